"""XBoard's chess-server commands (`ics`, `name`, `computer`, `rating`) and the lines a bot
sends through zippy: finger note, greeting, whispers and kibitzes, draw offers, the abort of a
blocked opponent's game. The rules are engine/ics.py's; this module wires them, writes the lines,
and puts a game's plan in force on the engine (its draw score and book) for the game.

zippy relays `tellicsnoalias X` as `$X`, `tellics X` as `X`, `tellothers X` as `whisper X`,
`tellall X` as `kibitz X` and `offer draw` as `draw`."""
from __future__ import annotations

import dataclasses
import logging
import time
from typing import TYPE_CHECKING, Callable

import chess

from ponderosa.engine import ics
from ponderosa.engine.identity import FULL_NAME
from ponderosa.engine.search import SearchResult, Thinking, mate_distance
from ponderosa.protocol.xboard.thinking import san_text

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.xboard.session import XBoardSession

log = logging.getLogger("ponderosa.xboard")

MAX_SCORES_KEPT = 16
class PlanInForce:
    """Applies a game plan's draw score and book to the engine, and undoes it when the game
    ends, so that the operator's own settings come back for the next opponent."""

    def __init__(self) -> None:
        self.saved: tuple[int, object] | None = None
        self.plan: ics.GamePlan | None = None

    def apply(self, engine: Engine, plan: ics.GamePlan) -> None:
        self.restore(engine)
        self.saved = (engine.draw_score, engine.options.book_selection())
        engine.options.set("drawscore", plan.draw_score)
        if plan.book_width is not None:
            engine.options.narrow_book_selection()
        self.plan = plan

    def restore(self, engine: Engine) -> None:
        if self.saved is not None:
            engine.options.set("drawscore", self.saved[0])
            engine.options.restore_book_selection(self.saved[1])
        self.saved, self.plan = None, None


class ServerPlay:
    """Server mode for one XBoard session: the state of the session and of the game, and the
    lines said to the server (the session hands itself in: its engine, output and scores)."""

    def __init__(self, session: XBoardSession) -> None:
        self.session = session
        self.engine = session.engine
        self.settings = session.engine.ics   # the engine's server rules: lists, levels, the opponent
        self.finger_sent = False
        self.plan_in_force = PlanInForce()
        self.chatter_limit = ics.RateLimit()
        self.new_game()

    def new_game(self) -> None:
        """Forget the opponent and the per-game state (XBoard's `new`): names come after it."""
        self.plan_in_force.restore(self.engine)
        self.settings.forget_opponent()
        self.game_started = False
        self.announced_mate: int | None = None
        self.last_offer_move: int | None = None

    @property
    def on(self) -> bool:
        return self.settings.enabled

    def result(self, args: str) -> None:
        """A `result` line: odd ones (long, unicode comments) are logged; the plan ends."""
        if len(args) > 100 or not args.isascii():
            ics.log_server_text("result", args)
        self.plan_in_force.restore(self.engine)

    # -- the game ---------------------------------------------------------------

    def plan(self) -> ics.GamePlan | None:
        return self.plan_in_force.plan if self.on else None

    def start_game(self) -> None:
        """Once per game in server mode: the finger note (first game after login: earlier
        tells are dropped by xboard), the plan for this opponent, the greeting or the abort."""
        if not self.on or self.game_started:
            return
        self.game_started = True
        settings = self.settings
        opponent = settings.opponent()
        base = self.plan_in_force.saved[0] if self.plan_in_force.saved else self.engine.draw_score
        plan = ics.game_plan(settings, opponent, settings.ratings, base)
        resign_pawns = self.session.resign_pawns
        if resign_pawns and plan.resign_pawns:   # option Resign sets the base threshold
            plan = dataclasses.replace(plan, resign_pawns=min(plan.resign_pawns, resign_pawns))
        self.plan_in_force.apply(self.engine, plan)
        log.info("server game against %r: %s", opponent.name, plan)
        out = self.session.out
        if not self.finger_sent:
            self.finger_sent = True
            out.line(f"tellicsnoalias {ics.finger_note(FULL_NAME, self.engine.threads)}")
        if plan.abort:
            # zippy accepts every challenge itself; the engine learns the name only now. What
            # it can still do: ask the server to abort, and keep the player from challenging again.
            out.line(f"tellics +noplay {opponent.name}")
            out.line("tellics abort")
            return
        greeting = ics.greeting_text(settings, opponent, plan)
        if greeting:
            out.line(f"tellall {greeting}")

    def lag_allowance(self) -> float:
        """Seconds a move is held back for the server's lag (none off a server)."""
        return self.settings.lag_seconds * self.settings.enabled

    def should_resign(self, result: SearchResult) -> bool | None:
        """Server mode's resignation rule (None outside server mode: the usual rule decides)."""
        plan = self.plan()
        if plan is None:
            return None
        mate = mate_distance(result.score)
        return ics.should_resign(self.session.last_scores, plan.resign_pawns, plan.resign_searches,
                                 mate_for_engine=mate is not None and mate > 0)

    def accepts_draw(self, score: int) -> bool | None:
        plan = self.plan()
        if plan is None:
            return None
        board = self.engine.position(stack=False)
        return ics.accepts_draw(score, self.engine.draw_score, board.fullmove_number,
                                board.is_insufficient_material(), None, plan.accept_equal_draws)

    def offers_draw(self) -> bool:
        """Offer a draw with this move (long equal endgames against computers)?"""
        plan = self.plan()
        if plan is None:
            return False
        board = self.engine.position(stack=False)
        pieces = chess.popcount(board.occupied & ~board.pawns & ~board.kings)
        since = None if self.last_offer_move is None else board.fullmove_number - self.last_offer_move
        offer = ics.offers_draw(self.session.last_scores, self.engine.draw_score, board.fullmove_number, pieces,
                                since, self.settings.opponent(), plan.offer_draws)
        if offer:
            self.last_offer_move = board.fullmove_number
        return offer

    def keep_score(self, score: int) -> None:
        self.session.last_scores = (self.session.last_scores + [score])[-MAX_SCORES_KEPT:]

    # -- what is said -----------------------------------------------------------

    def tell(self, level_kind: str, text: str | None) -> None:
        """Whisper (`tellothers`) or kibitz (`tellall`) one line."""
        if text:
            self.session.out.line(f"{'tellothers' if level_kind == 'whisper' else 'tellall'} {text}")

    def _levels(self) -> list[tuple[str, int]]:
        plan = self.plan()
        if plan is None or plan.silent:
            return []
        return [(kind, level) for kind, level in (("whisper", plan.whisper_level), ("kibitz", plan.kibitz_level))
                if level > 0]

    def move_chatter(self, result: SearchResult) -> list[tuple[str, str]]:
        """The lines for a searched move, computed before the move is played (the PV starts
        there): a mate announcement, then one line at levels 2-4."""
        levels = self._levels()
        if not levels:
            return []
        mate = mate_distance(result.score)
        summary = ics.SearchSummary(result.depth, result.score, result.seconds, result.nodes,
                                    san_text(self.engine.position(stack=False), result.pv), mate,
                                    self.engine.white_to_move)
        lines = []
        for kind, level in levels:
            announcement = ics.mate_announcement(level, mate, self.announced_mate)
            if announcement:
                lines.append((kind, announcement))
            report = ics.move_report(min(level, 4), summary, self.settings.noise_nodes)
            if report:
                lines.append((kind, report))
        self.announced_mate = ics.next_announced_mate(mate)
        return lines

    def say(self, lines: list[tuple[str, str]]) -> None:
        for kind, text in lines:
            self.tell(kind, text)

    def book_move(self, san: str, chance: float, candidates: str) -> None:
        for kind, level in self._levels():
            self.tell(kind, ics.book_report(level, san, chance * 100, candidates))

    def on_thinking(self, report: Thinking, board: chess.Board) -> None:
        """Levels 5-6 while the engine thinks (search thread), one line a second at most."""
        levels = [(kind, level) for kind, level in self._levels() if level >= 5]
        if not levels:
            return
        white = board.turn == chess.WHITE
        lines = [(kind, ics.iteration_report(level, report.depth, report.score, report.bound, report.seconds,
                                             report.nodes, san_text(board, report.pv),
                                             mate_distance(report.score), white, self.settings.noise_nodes))
                 for kind, level in levels]
        lines = [(kind, text) for kind, text in lines if text]
        if lines and self.chatter_limit.allow(time.monotonic()):
            for kind, text in lines:
                self.tell(kind, text)


# -- commands ---------------------------------------------------------------------

def ics_host(session: XBoardSession, args: str) -> None:
    """`ics HOST` switches server mode on, `ics -` (local play) off."""
    host = args.strip()
    settings = session.engine.ics
    settings.enabled = host not in ("", "-")
    settings.host = host if settings.enabled else ""


def name(session: XBoardSession, args: str) -> None:
    handle = ics.clean_handle(args) if args.strip() else None
    session.engine.name_opponent(handle or "", learned_as=args)


def rating(session: XBoardSession, args: str) -> None:
    ratings = ics.parse_ratings(args)
    if ratings is None:
        return
    session.engine.set_ratings(ratings)
    if session.ics.on:
        session.ics.start_game()   # zippy sends rating last, right after name (and computer)


def computer(session: XBoardSession, args: str) -> None:
    session.engine.name_opponent(computer=True)


ICS_COMMANDS: dict[str, Callable[[XBoardSession, str], None]] = {
    "ics": ics_host, "name": name, "rating": rating, "computer": computer,
}
