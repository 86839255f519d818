"""The XBoard session: the state machine of docs/PROTOCOL.md over an Engine, its flat command loop,
and the life of its searches (think, ponder, analyze) up to the move sent."""
from __future__ import annotations

import logging
import queue
import re
import sys
import time
from dataclasses import dataclass
from typing import Callable, TextIO

import chess

from ponderosa.engine.book.opening_book import BookProbe, book_moves_text
from ponderosa.engine.engine import Engine, IllegalMoveError
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking
from ponderosa.protocol.arrivals import seconds_since
from ponderosa.protocol.streams import Output, start_reader
from ponderosa.protocol.xboard.clock import CLOCK_COMMANDS, XBoardClock
from ponderosa.protocol.xboard.game import GAME_COMMANDS, EditBoard, edit_line
from ponderosa.protocol.xboard.ics import ICS_COMMANDS, ServerPlay
from ponderosa.protocol.xboard.options import OPTION_COMMANDS, XBoardFrontEnd, report_evaluation, report_threads
from ponderosa.protocol.xboard.ponder_output import PonderOutputHold
from ponderosa.protocol.xboard.tablebases import TABLEBASE_COMMANDS, report_problems, report_tables
from ponderosa.protocol.xboard.thinking import is_shown, thinking_line

log = logging.getLogger("ponderosa.xboard")

MOVE_LIKE = re.compile(r"^([a-h][1-8][a-h][1-8](=?[qrbnQRBN])?|[KQRBNP]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBN])?[+#]?"
                       r"|[O0]-[O0](-[O0])?[+#]?)$")
EDIT_PASSTHROUGH = ("ping", "quit")   # still obeyed inside edit mode, where no piece command looks like them
RESIGN_CONFIRMATIONS = 3        # searches in a row below the resign threshold
WAIT_SHOWN_SECONDS = 0.05       # a longer wait before a search is told in a `#` line


@dataclass
class ActiveSearch:
    serial: int
    kind: str                   # "think", "ponder" or "analyze"
    ponder_move: str | None = None
    started: float = 0.0
    searched: chess.Board | None = None   # the position searched (after the ponder move)
    last_report: Thinking | None = None   # the last report that got a line
    shown_as_own: bool = False            # a line went out for the engine's own move (not a ponder line)


class XBoardSession:
    """One XBoard connection: reads commands, runs the engine's searches, writes the replies."""

    def __init__(self, engine: Engine, out: TextIO = sys.stdout) -> None:
        self.engine = engine
        self.out = Output(out, log)
        self.events: queue.Queue = queue.Queue()
        self.running = True
        self.engine_side: bool | None = chess.BLACK   # None = force mode
        self.analyzing = False
        self.post = False              # thinking output only after `post` (§2.1)
        self.ponder_enabled = True
        self.clock = XBoardClock()
        self.excluded: set[str] = set()
        self.pending_pings: list[str] = []
        self.active: ActiveSearch | None = None
        self.ponder_result: SearchResult | None = None
        self.paused_kind: str | None = None
        self.invalid_position = False
        self.editing: EditBoard | None = None
        self.draw_offered = False
        self.last_scores: list[int] = []
        self.last_report: Thinking | None = None
        self.resign_pawns = 0
        self.line_arrived: float | None = None   # when the line being handled came (time.monotonic())
        self.tablebase_messages_told: set[str] = set()   # each said once per process, not per game
        self.ics = ServerPlay(self)
        self.ponder_output = PonderOutputHold(self.out)   # a ponder search's first lines wait for the next command
        engine.options.attach(XBoardFrontEnd(self), "xboard")   # the session's own settings, at their defaults

    # -- the loop ---------------------------------------------------------------

    def run(self, stream: TextIO) -> None:
        """Read commands from stream on a thread of its own and execute them in order."""
        start_reader(stream, self.out, self.events, "xboard-input")
        while self.running:
            try:
                kind, *payload = self.events.get(timeout=self.ponder_output.wait_seconds())
            except queue.Empty:
                self.ponder_output.expire(self._pondering())
                continue
            try:
                if kind == "line":
                    holds = self.ponder_output.holds
                    self.line_arrived = payload[1] if len(payload) > 1 else None
                    try:
                        self.handle(payload[0])
                    finally:
                        self.line_arrived = None
                    self.ponder_output.release(self._pondering(), holds)
                elif kind == "done":
                    self._search_finished(payload[0], payload[1])
                elif kind == "eof":
                    self.quit()
            except Exception:   # a bug must never end a game: log it and keep playing
                log.exception("error while handling %r", payload)
        self.engine.end_search()

    def handle(self, raw: str) -> None:
        line = raw.strip()
        log.debug("< %s", line)
        if not line:
            return
        word, _, rest = line.partition(" ")
        if self.editing is not None and word not in EDIT_PASSTHROUGH:
            edit_line(self, line)
            return
        handler = COMMANDS.get(word)
        if handler is not None:
            handler(self, rest.strip())
        elif MOVE_LIKE.match(word) and not rest:
            self.user_move(word)
        else:
            self.out.line(f"Error (unknown command): {word}")

    def quit(self, args: str = "") -> None:
        self.running = False
        self.active = None
        self.engine.stop()

    # -- searches ---------------------------------------------------------------

    def _start(self, kind: str, limits: SearchLimits, ponder_move: str | None = None,
               excluded: set[str] | None = None) -> None:
        started = time.monotonic()
        # The positions the PV is printed from, fixed now: the search thread must not read the
        # game while the protocol thread plays moves on it (a ponder hit does).
        before_ponder = self.engine.position(stack=False)
        searched = before_ponder.copy(stack=False)
        if ponder_move is not None:
            searched.push_uci(ponder_move)
        search = ActiveSearch(0, kind, ponder_move, started, searched)

        def thinking(report: Thinking) -> None:
            try:
                predicted = search.ponder_move   # None again after a ponder hit
                shown = is_shown(report)
                if shown:
                    search.last_report = report
                if predicted is not None:
                    self._show_thinking(report, before_ponder, [predicted],
                                        lambda text: self.ponder_output.line(search, text))
                else:
                    search.shown_as_own = search.shown_as_own or shown
                    self._show_thinking(report, searched, [])
                    self.ics.on_thinking(report, searched)
            except Exception:   # a report must never end the search (no move would follow)
                log.exception("thinking report failed")

        def finished(serial: int, result: SearchResult) -> None:
            self.events.put(("done", serial, result))

        self.ponder_result = None
        if kind == "ponder":
            self.ponder_output.hold(search)   # before its first line
            serial = self.engine.ponder(ponder_move, limits, thinking, finished)
            if serial is None:
                self.ponder_output.release(None)
                return
            search.serial = serial
        else:
            search.serial = self.engine.start_search(limits, thinking, finished,
                                                     self.excluded if excluded is None else excluded)
        self.active = search

    def abandon(self) -> None:
        """Stop any search; its result will be ignored. Pings held back for the move that now
        never comes are answered (every command before them is done)."""
        self.active = None
        self.engine.end_search()
        self.ponder_result = None
        self.apply_pending_settings()
        self._flush_pings()

    def apply_pending_settings(self) -> None:
        """What waited for the search's end is applied now that none runs (the engine's rule);
        the threads and the tables are reported, with problems the search found in the tables."""
        applied = self.engine.options.apply_pending()
        for message in applied.resource_messages:   # memory or threads the machine would not give
            self.out.line(f"telluser {message}")
        if applied.threads:
            report_threads(self)
        report_problems(self)
        report_tables(self, applied.tablebase_messages)
        report_evaluation(self, applied.evaluation_messages)

    def thinking_limits(self) -> SearchLimits:
        """The limits of the engine's move: the clock's budget, with the time the command that
        asked for the move has waited to be handled gone from the clock (the engine loading
        after an early handshake: the GUI's clock ran from the command on)."""
        waited = self.waited_seconds()
        limits = self.clock.think_limits(self.ponder_enabled, self._lag_seconds(), waited)
        if waited >= WAIT_SHOWN_SECONDS and limits.hard_seconds is not None:
            self.send_debug(f"{waited:.2f} s waited before this move's search: gone from the clock")
        return limits

    def waited_seconds(self) -> float:
        """Seconds since the line being handled came; 0 outside a line (a search's end)."""
        return seconds_since(self.line_arrived)

    def _lag_seconds(self) -> float:
        """The server's lag allowance, in server mode only."""
        return self.ics.lag_allowance()

    def start_thinking(self) -> None:
        """The engine is on move: claim a finished game, or search and later play a move."""
        if self.invalid_position:
            return
        self.ics.start_game()
        outcome = self.engine.outcome()
        if outcome is not None or not self.engine.legal_moves():
            self._claim(outcome)
            return
        probe = self.engine.book_probe()
        if probe.move is not None:
            self._play_book_move(probe)
            return
        if probe.search_only:
            limits, excluded = self.engine.book_search(probe, self.thinking_limits())
            moves = probe.search_only_text(self.engine.position(stack=False))
            self.send_debug(f"book moves {{{moves}}}: searching them")
            self._start("think", limits, excluded=excluded | self.excluded)
            return
        self._start("think", self.thinking_limits())

    def _play_book_move(self, probe: BookProbe) -> None:
        """Play the book's move at once; with post on, a thinking line tells the GUI it was book."""
        assert probe.decision is not None and probe.move is not None
        chance = probe.chance
        san = self.engine.san(probe.move)
        moves = book_moves_text(probe.decision, self.engine.position(stack=False))
        self.send_debug(f"book move {san} ({chance * 100:.0f}%) from {{{moves}}}")
        if self.post:
            self.out.line(f"0 0 0 0 {san} {{book {chance * 100:.0f}%}}")
        self.ics.book_move(san, chance, moves)   # before the move, as for a searched move
        self._answer_draw_offer(self.last_scores[-1] if self.last_scores else 0)
        if self._send_move(probe.move, None):
            self.start_pondering(self.engine.book_reply())   # on the book's likely answer

    def _send_move(self, uci: str, searched: SearchResult | None) -> bool:
        """Play the engine's move and send it, then any claim and the held pongs; True while
        the game goes on. The move line goes out first: the learner may write to its store
        when it notes the move, and that time is not the engine's to spend on the clock."""
        self.out.line(f"move {self.move_text(uci)}")
        self.draw_offered = False   # the server declines a pending offer when its receiver moves
        self.engine.play_own_move(uci, searched)
        self.clock.moves_played += 1
        outcome = self.engine.outcome()
        if outcome is not None:
            self._claim(outcome)
        self._flush_pings()
        return outcome is None

    def move_text(self, uci: str) -> str:
        """A move of the current position as sent to the GUI: coordinates (e1g1 castles in
        normal chess), but O-O and O-O-O for castling in Chess960, as XBoard and cutechess
        send and read it there."""
        if self.engine.chess960:
            san = self.engine.san(uci)
            if san.startswith("O-O"):
                return san.rstrip("+#")
        return uci

    def send_debug(self, text: str) -> None:
        """A `#` line: GUIs ignore it (feature debug=1), xboard's debug file keeps it."""
        self.out.line(f"# {text}")

    def start_pondering(self, expected: str | None) -> None:
        if not (self.ponder_enabled and self.engine_side is not None and self.engine.can_ponder(expected)):
            return
        self._start("ponder", SearchLimits(depth=self.clock.depth_limit), ponder_move=expected)

    def start_analysis(self) -> None:
        if self.invalid_position or not self.engine.legal_moves():
            return
        self._start("analyze", SearchLimits())

    def _search_finished(self, serial: int, result: SearchResult) -> None:
        active = self.active
        if active is None or active.serial != serial:
            return   # a search that was abandoned
        if active.kind == "ponder":
            self.ponder_result = result   # kept for a ponder hit
            return
        if active.kind == "analyze":
            return
        self.active = None
        self.apply_pending_settings()
        self._show_last_line(active)
        self._play(result)

    def _show_last_line(self, search: ActiveSearch) -> None:
        """After a ponder hit that ends the search before its next line (the budget already spent),
        the last line once more, now as the engine's own: the GUI shows a score for the move."""
        if not search.shown_as_own and search.last_report is not None and search.searched is not None:
            search.shown_as_own = True
            self._show_thinking(search.last_report, search.searched, [])

    def _play(self, result: SearchResult) -> None:
        """Send the engine's move (or resign), then claims, pongs, and start pondering."""
        if result.best_move is None:
            self._claim(self.engine.outcome())
            self._flush_pings()
            return
        self.ics.keep_score(result.score)
        resign = self.ics.should_resign(result)   # None outside server mode
        if resign is None:
            resign = self._should_resign()
        if resign:
            self.out.line("resign")
            self.engine.finish_game("0-1" if self.engine.white_to_move else "1-0")
            self.engine_side = None
            self._flush_pings()
            return
        if not self._answer_draw_offer(result.score) and self.ics.offers_draw():
            self.out.line("offer draw")
        # What is said of a move goes out before it: a move that ends the game ends the server's
        # game too, and a tell after it reaches nobody ("You are not playing or observing a game").
        self.ics.say(self.ics.move_chatter(result))
        going_on = self._send_move(result.best_move, result)
        if going_on:
            self.start_pondering(result.ponder_move)

    def _answer_draw_offer(self, score: int) -> bool:
        """Just before the engine's move: accept the opponent's offer (`offer draw`) if the score
        allows; True if accepted. An offer still waiting in the input counts too: zippy sends
        `draw` right behind the move it came with, and after an instant move (a book move) an
        answer would be a new offer of the engine's, the server having declined the old one."""
        self.draw_offered |= self._take_waiting_line("draw")
        accepted = self.draw_offered and self.accepts_draw(score)
        if accepted:
            self.out.line("offer draw")
        return accepted   # either way the offer ends with the move (_send_move)

    def _take_waiting_line(self, command: str) -> bool:
        """Take a line holding just `command` out of the input not yet handled; True if there
        was one."""
        with self.events.mutex:
            for event in self.events.queue:
                if event[0] == "line" and event[1].strip() == command:
                    self.events.queue.remove(event)
                    return True
        return False

    def _claim(self, outcome: tuple[str, str] | None) -> None:
        if outcome is not None:
            self.out.line(f"{outcome[0]} {{{outcome[1]}}}")
            self.engine.finish_game(outcome[0])

    def _flush_pings(self) -> None:
        for number in self.pending_pings:
            self.out.line(f"pong {number}".rstrip())
        self.pending_pings.clear()

    def _should_resign(self) -> bool:
        limit = -100 * self.resign_pawns
        recent = self.last_scores[-RESIGN_CONFIRMATIONS:]
        return (self.resign_pawns > 0 and len(recent) == RESIGN_CONFIRMATIONS
                and all(score <= limit for score in recent))

    def accepts_draw(self, score: int) -> bool:
        """Take a draw when the position is dead drawn or the engine stands worse than a draw."""
        on_server = self.ics.accepts_draw(score)
        if on_server is not None:
            return on_server
        return self.engine.position(stack=False).is_insufficient_material() or score <= self.engine.draw_score - 25

    def _show_thinking(self, report: Thinking, board: chess.Board, prefix: list[str],
                       write: Callable[[str], None] | None = None) -> None:
        """One thinking line (with post on); the PV (prefix, then the search's) in SAN from board,
        written by write (the output, or the ponder hold)."""
        self.last_report = report
        if not self.post:
            return
        line = thinking_line(report, board, prefix)
        if line is not None:
            (write or self.out.line)(line)

    def _pondering(self) -> ActiveSearch | None:
        active = self.active
        return active if active is not None and active.kind == "ponder" else None

    # -- moves from the GUI -----------------------------------------------------

    def user_move(self, text: str) -> None:
        if self.invalid_position:
            self.out.line(f"Illegal move: {text}")
            return
        try:
            uci = self.engine.parse_move(text)
        except IllegalMoveError:
            self.out.line(f"Illegal move: {text}")
            return
        active = self.active
        if active is not None and active.kind == "ponder":
            if uci == active.ponder_move:
                self._ponder_hit(uci)
                return
            self.abandon()
        elif active is not None:
            self.abandon()
        self.engine.make_move(uci)
        self.excluded.clear()
        if self.analyzing:
            self.start_analysis()
        elif self.engine_side is not None and self.engine_side == self.engine.white_to_move:
            self.start_thinking()

    def _ponder_hit(self, uci: str) -> None:
        """The opponent played the expected move: the ponder search becomes the real search."""
        self.engine.make_move(uci)
        self.excluded.clear()
        assert self.active is not None
        probe = self.engine.book_probe()   # a ponder hit into the book is a book hit
        if probe.move is not None:
            self.abandon()
            self._play_book_move(probe)
            return
        self.active.kind = "think"
        self.active.ponder_move = None
        if self.ponder_result is not None:
            # The ponder search already ended (a forced line or depth limit): play its move.
            result, self.ponder_result = self.ponder_result, None
            search, self.active = self.active, None
            self._show_last_line(search)
            self._play(result)
            return
        soft, hard = self.clock.budget(self.ponder_enabled, self._lag_seconds())
        if self.clock.node_rate:
            self.engine.set_time_budget(0.0, 0.0)   # node clock: play what pondering found
            return
        # The budget counts from the start of pondering: time already spent thinking on the
        # expected move is spent, and a long ponder makes an instant reply.
        self.engine.set_time_budget(soft, hard)


Handler = Callable[[XBoardSession, str], None]
# The flat command table, one part per capability; a word not in it that looks like a move is one.
COMMANDS: dict[str, Handler] = {**GAME_COMMANDS, "quit": XBoardSession.quit, **CLOCK_COMMANDS, **OPTION_COMMANDS,
                                **TABLEBASE_COMMANDS, **ICS_COMMANDS}
