"""XBoard's chess-server commands (`ics`, `name`, `computer`, `rating`) and the lines a bot
sends through zippy: finger note, greeting, whispers and kibitzes, draw offers, the abort of a
blocked opponent's game. The rules are engine/ics.py's; this mixin only wires and writes.

zippy relays `tellicsnoalias X` as `$X`, `tellics X` as `X`, `tellothers X` as `whisper X`,
`tellall X` as `kibitz X` and `offer draw` as `draw`."""
from __future__ import annotations

import dataclasses
import logging
import time
from typing import TYPE_CHECKING

import chess

from ponderosa.engine import ics
from ponderosa.engine.notation import san_moves
from ponderosa.engine.search import SearchResult, Thinking, mate_distance

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.xboard import Output

log = logging.getLogger("ponderosa.xboard")

MAX_SCORES_KEPT = 16


class XBoardIcs:
    """Mixed into XBoardSession: server mode state for the session and the game."""

    engine: Engine
    out: Output
    last_scores: list[int]
    moves_played: int
    resign_pawns: int

    def ics_init(self) -> None:
        self.ics_finger_sent = False
        self.ics_plan_in_force = ics.PlanInForce()
        self.ics_chatter_limit = ics.RateLimit()
        self.ics_new_game()

    def ics_new_game(self) -> None:
        """Forget the opponent and the per-game state (XBoard's `new`): names come after it."""
        self.ics_plan_in_force.restore(self.engine)
        self.engine.ics.forget_opponent()
        self.ics_game_started = False
        self.ics_announced_mate: int | None = None
        self.ics_last_offer_move: int | None = None

    @property
    def ics_on(self) -> bool:
        return self.engine.ics.enabled

    # -- commands ---------------------------------------------------------------

    def cmd_ics(self, args: str) -> None:
        """`ics HOST` switches server mode on, `ics -` (local play) off."""
        host = args.strip()
        self.engine.ics.enabled = host not in ("", "-")
        self.engine.ics.host = host if self.engine.ics.enabled else ""

    def cmd_name(self, args: str) -> None:
        self.engine.learner.opponent = args or "?"
        handle = ics.clean_handle(args) if args.strip() else None
        self.engine.ics.opponent_name = handle or ""

    def cmd_rating(self, args: str) -> None:
        ratings = ics.parse_ratings(args)
        if ratings is None:
            return
        self.engine.ics.ratings = ratings
        own, opponent = ratings
        if own is not None and opponent is not None:
            self.engine.learner.rating_difference = own - opponent   # own minus opponent's
        if self.ics_on:
            self.ics_start_game()   # zippy sends rating last, right after name (and computer)

    def cmd_computer(self, args: str) -> None:
        self.engine.ics.opponent_computer = True

    def ics_result(self, args: str) -> None:
        """A `result` line: odd ones (long, unicode comments) are logged; the plan ends."""
        if len(args) > 100 or not args.isascii():
            ics.log_server_text("result", args)
        self.ics_plan_in_force.restore(self.engine)

    # -- the game ---------------------------------------------------------------

    def ics_plan(self) -> ics.GamePlan | None:
        return self.ics_plan_in_force.plan if self.ics_on else None

    def ics_start_game(self) -> None:
        """Once per game in server mode: the finger note (first game after login: earlier
        tells are dropped by xboard), the plan for this opponent, the greeting or the abort."""
        if not self.ics_on or self.ics_game_started:
            return
        self.ics_game_started = True
        settings = self.engine.ics
        opponent = settings.opponent()
        base = self.ics_plan_in_force.saved[0] if self.ics_plan_in_force.saved else self.engine.draw_score
        plan = ics.game_plan(settings, opponent, settings.ratings, base)
        if self.resign_pawns and plan.resign_pawns:   # option Resign sets the base threshold
            plan = dataclasses.replace(plan, resign_pawns=min(plan.resign_pawns, self.resign_pawns))
        self.ics_plan_in_force.apply(self.engine, plan)
        log.info("server game against %r: %s", opponent.name, plan)
        if not self.ics_finger_sent:
            self.ics_finger_sent = True
            from ponderosa.protocol.xboard import ENGINE_NAME
            self.out.line(f"tellicsnoalias {ics.finger_note(ENGINE_NAME, self.engine.threads)}")
        if plan.abort:
            # zippy accepts every challenge itself; the engine learns the name only now. What
            # it can still do: ask the server to abort, and keep the player from challenging again.
            self.out.line(f"tellics +noplay {opponent.name}")
            self.out.line("tellics abort")
            return
        greeting = ics.greeting_text(settings, opponent, plan)
        if greeting:
            self.out.line(f"tellall {greeting}")

    def ics_should_resign(self, result: SearchResult) -> bool | None:
        """Server mode's resignation rule (None outside server mode: the usual rule decides)."""
        plan = self.ics_plan()
        if plan is None:
            return None
        mate = mate_distance(result.score)
        return ics.should_resign(self.last_scores, plan.resign_pawns, plan.resign_searches,
                                 mate_for_engine=mate is not None and mate > 0)

    def ics_accepts_draw(self, score: int) -> bool | None:
        plan = self.ics_plan()
        if plan is None:
            return None
        board = self.engine.game
        return ics.accepts_draw(score, self.engine.draw_score, board.fullmove_number,
                                board.is_insufficient_material(), None, plan.accept_equal_draws)

    def ics_offers_draw(self) -> bool:
        """Offer a draw with this move (long equal endgames against computers)?"""
        plan = self.ics_plan()
        if plan is None:
            return False
        board = self.engine.game
        pieces = chess.popcount(board.occupied & ~board.pawns & ~board.kings)
        since = None if self.ics_last_offer_move is None else board.fullmove_number - self.ics_last_offer_move
        offer = ics.offers_draw(self.last_scores, self.engine.draw_score, board.fullmove_number, pieces, since,
                                self.engine.ics.opponent(), plan.offer_draws)
        if offer:
            self.ics_last_offer_move = board.fullmove_number
        return offer

    def ics_keep_score(self, score: int) -> None:
        self.last_scores = (self.last_scores + [score])[-MAX_SCORES_KEPT:]

    # -- what is said -----------------------------------------------------------

    def ics_tell(self, level_kind: str, text: str | None) -> None:
        """Whisper (`tellothers`) or kibitz (`tellall`) one line."""
        if text:
            self.out.line(f"{'tellothers' if level_kind == 'whisper' else 'tellall'} {text}")

    def _ics_levels(self) -> list[tuple[str, int]]:
        plan = self.ics_plan()
        if plan is None or plan.silent:
            return []
        return [(kind, level) for kind, level in (("whisper", plan.whisper_level), ("kibitz", plan.kibitz_level))
                if level > 0]

    def ics_move_chatter(self, result: SearchResult) -> list[tuple[str, str]]:
        """The lines for a searched move, computed before the move is played (the PV starts
        there): a mate announcement, then one line at levels 2-4."""
        levels = self._ics_levels()
        if not levels:
            return []
        mate = mate_distance(result.score)
        summary = ics.SearchSummary(result.depth, result.score, result.seconds, result.nodes,
                                    _san_line(self.engine.game, result.pv), mate,
                                    self.engine.game.turn == chess.WHITE)
        lines = []
        announced = self.ics_announced_mate
        for kind, level in levels:
            announcement = ics.mate_announcement(level, mate, announced)
            if announcement:
                lines.append((kind, announcement))
                self.ics_announced_mate = mate
            report = ics.move_report(min(level, 4), summary, self.engine.ics.noise_nodes)
            if report:
                lines.append((kind, report))
        if mate is None or mate <= 0:
            self.ics_announced_mate = None
        return lines

    def ics_say(self, lines: list[tuple[str, str]]) -> None:
        for kind, text in lines:
            self.ics_tell(kind, text)

    def ics_book_move(self, san: str, chance: float, candidates: str) -> None:
        for kind, level in self._ics_levels():
            self.ics_tell(kind, ics.book_report(level, san, chance * 100, candidates))

    def ics_on_thinking(self, report: Thinking, board: chess.Board) -> None:
        """Levels 5-6 while the engine thinks (search thread), one line a second at most."""
        levels = [(kind, level) for kind, level in self._ics_levels() if level >= 5]
        if not levels:
            return
        white = board.turn == chess.WHITE
        lines = [(kind, ics.iteration_report(level, report.depth, report.score, report.bound, report.seconds,
                                             report.nodes, _san_line(board, report.pv),
                                             mate_distance(report.score), white, self.engine.ics.noise_nodes))
                 for kind, level in levels]
        lines = [(kind, text) for kind, text in lines if text]
        if lines and self.ics_chatter_limit.allow(time.monotonic()):
            for kind, text in lines:
                self.ics_tell(kind, text)


def _san_line(start: chess.Board, pv: list[str]) -> str:
    return " ".join(san_moves(start, pv))
