"""The UCI session: translates a UCI GUI's commands into engine calls and the engine's reports
into `info`/`bestmove` lines, over one flat command table; its searches from start to bestmove.
Same Engine facade, book, learning and time allocation as XBoard."""
from __future__ import annotations

import logging
import queue
import sys
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, TextIO

import chess

from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking
from ponderosa.engine.wdl import material_count, wdl
from ponderosa.protocol.arrivals import seconds_since
from ponderosa.protocol.streams import Output, start_reader
from ponderosa.protocol.uci.go import SEARCH_COMMANDS, GoCommand, stop
from ponderosa.protocol.uci.info import format_info, progress_lines
from ponderosa.protocol.uci.options import OPTION_COMMANDS, UciFrontEnd
from ponderosa.protocol.uci.position import POSITION_COMMANDS

log = logging.getLogger("ponderosa.uci")

PROGRESS_INTERVAL = 1.0      # seconds between currmove/progress lines (at most once a second)


@dataclass
class ActiveSearch:
    serial: int
    kind: str                            # "think", "ponder" (until ponderhit) or "infinite"
    go: GoCommand
    white: bool                          # side to move in the searched position
    started: float = 0.0
    ponder_move: str | None = None       # the GUI's predicted move, taken back while pondering on it
    stop_sent: bool = False              # `stop` came: the bestmove is due as soon as there is one
    result: SearchResult | None = None   # a ponder/infinite search that ended before stop/ponderhit
    last_progress: float = 0.0
    last_depth: int = 0
    material: int | None = None          # of the searched position, for UCI_ShowWDL
    hit: bool = False                    # a ponder search that ponderhit made the move's search
    reported_since_hit: bool = False     # an info line went out after the ponderhit
    last_report: Thinking | None = None


class UciSession:
    """The UCI loop over an Engine: one reader thread, one event queue, one locked writer."""

    def __init__(self, engine: Engine, out: TextIO = sys.stdout) -> None:
        self.engine = engine
        self.out = Output(out, log)
        self.events: queue.Queue = queue.Queue()
        self.running = True
        self.active: ActiveSearch | None = None
        self.ponder_enabled = True          # option Ponder: pondering is expected (more time per move)
        self.analyse_mode = False           # UCI_AnalyseMode: no book moves, nothing recorded for learning
        self.move_overhead = 0.0            # Move Overhead (seconds): kept back from every move's time
        self.show_wdl = False               # UCI_ShowWDL: info lines carry the win/draw/loss chances
        self._held: deque[tuple] = deque()  # events read while waiting for a stopped search's result
        self.line_arrived: float | None = None   # when the line being handled came (time.monotonic())
        engine.options.attach(UciFrontEnd(self), "uci")   # the session's own settings, at their defaults

    # -- the loop ---------------------------------------------------------------

    def run(self, stream: TextIO, first_line: str | None = None) -> None:
        """Read commands from stream on a thread of their own and execute them in order;
        first_line is a command already read (the `uci` that chose this protocol)."""
        if first_line is not None:
            self.events.put(("line", first_line))
        start_reader(stream, self.out, self.events, "uci-input")
        while self.running:
            try:
                event = self._held.popleft() if self._held else self.events.get(timeout=PROGRESS_INTERVAL / 4)
            except queue.Empty:
                self._report_progress()
                continue
            kind, *payload = event
            try:
                if kind == "line":
                    self.line_arrived = payload[1] if len(payload) > 1 else None
                    try:
                        self.handle(payload[0])
                    finally:
                        self.line_arrived = None
                elif kind == "done":
                    self._search_finished(payload[0], payload[1])
                elif kind == "eof":
                    self.quit("")
            except Exception:   # a bug must never end a game: log it, say it, keep going
                log.exception("error while handling %r", payload)
                self.info_string(f"internal error while handling {str(payload[0]).strip()[:80]!r}")
        self.engine.end_search()

    def handle(self, raw: str) -> None:
        line = raw.strip()
        log.debug("< %s", line)
        if not line:
            return
        word, _, rest = line.partition(" ")
        handler = COMMANDS.get(word)
        if handler is None:
            self.info_string(f"unknown command: {line}")
            return
        handler(self, rest.strip())

    def waited_seconds(self) -> float:
        """Seconds since the line being handled came (taken off a `go`'s time); 0 outside a line."""
        return seconds_since(self.line_arrived)

    def info_string(self, text: str) -> None:
        self.out.line(f"info string {text}")

    def quit(self, args: str) -> None:
        self.running = False
        self.active = None
        self.engine.stop()

    # -- searches ---------------------------------------------------------------

    def start(self, kind: str, go: GoCommand, limits: SearchLimits, excluded: set[str]) -> None:
        """Start a `go` search of this kind; its bestmove comes when the search (or stop) says."""
        search = ActiveSearch(0, kind, go, self.engine.white_to_move, time.monotonic())
        # The GUI's position is the searched one (a ponder search's too, predicted move included).
        search.material = material_count(self.engine.position(stack=False))

        def thinking(report: Thinking) -> None:
            try:
                search.last_depth = report.depth
                search.last_report = report
                search.reported_since_hit = search.hit
                self.out.line(self.info_line(report, search.material))
            except Exception:   # a report must never end the search (no bestmove would follow)
                log.exception("info line failed")

        def finished(serial: int, result: SearchResult) -> None:
            self.events.put(("done", serial, result))

        expected = self._predicted_move() if kind == "ponder" else None
        serial = None
        if expected is not None:
            # The GUI's position ends with the predicted reply: take it back and ponder on it through
            # the engine's one ponder call, as XBoard does; a ponder hit plays it again.
            self.engine.undo()
            serial = self.engine.ponder(expected, limits, thinking, finished)
            if serial is None:
                self.engine.make_move(expected)
            search.ponder_move = expected if serial is not None else None
        if serial is None:
            serial = self.engine.start_search(limits, thinking, finished, excluded)
        search.serial = serial
        self.active = search

    def _predicted_move(self) -> str | None:
        """The last move of the game (the predicted reply a `go ponder` thinks about), if any."""
        stack = self.engine.position().move_stack
        return stack[-1].uci() if stack else None

    def restore_predicted_move(self, active: ActiveSearch) -> None:
        """Pondering ended (a hit or a miss): the board is again the GUI's (with the predicted move)."""
        if active.ponder_move is not None:
            self.engine.make_move(active.ponder_move)
            active.ponder_move = None

    def info_line(self, report: Thinking, material: int | None = None) -> str:
        """The `info` line of one report, with the table's fill now and the search's own tablebase hits, and with
        UCI_ShowWDL the chances for the searched position's material (the game's, if not given)."""
        chances = None
        if self.show_wdl:
            if material is None:
                material = material_count(self.engine.position(stack=False))
            chances = wdl(report.score, material)
        return format_info(report, self.engine.hashfull(), report.tbhits or 0, chances)

    def _report_progress(self) -> None:
        """At most once a second, while a search runs: the root move searched, and the counters."""
        active = self.active
        if active is None or active.result is not None or not self.engine.searching:
            return
        now = time.monotonic()
        if now - active.started < PROGRESS_INTERVAL or now - active.last_progress < PROGRESS_INTERVAL:
            return
        active.last_progress = now
        move, number, nodes, seconds = self.engine.progress()
        for line in progress_lines(move, number, max(1, active.last_depth + 1), nodes, seconds,
                                   self.engine.hashfull()):
            self.out.line(line)

    def _search_finished(self, serial: int, result: SearchResult) -> None:
        active = self.active
        if active is None or active.serial != serial:
            return   # an abandoned search
        if active.kind in ("ponder", "infinite") and not active.stop_sent:
            active.result = result   # UCI: no bestmove before stop or ponderhit
            return
        self.active = None
        self.send_bestmove(result, record=active.kind == "think" and not active.stop_sent, search=active)

    def send_bestmove(self, result: SearchResult, record: bool, search: ActiveSearch | None = None) -> None:
        """`bestmove X [ponder Y]`; a move played in a game (not a ponder miss or analysis) is noted
        for the learner; the board stays as the GUI set it (its next `position` plays the move)."""
        move = result.best_move
        if move is None or move not in self.engine.legal_moves():
            self.out.line("bestmove 0000")
            return
        if search is not None and search.hit and not search.reported_since_hit and result.pv[:1] == [move]:
            self._final_info(search, result)
        after = self.engine.position(stack=False)
        after.push_uci(move)
        ponder = result.ponder_move
        if ponder is not None and chess.Move.from_uci(ponder) not in after.legal_moves:
            ponder = None
        self.out.line(f"bestmove {move}" + (f" ponder {ponder}" if ponder else ""))
        if record and not self.analyse_mode:
            # After the answer: the learner may write to its store (110 ms measured), on the engine's time.
            self.engine.note_own_move(move, result)

    def _final_info(self, search: ActiveSearch, result: SearchResult) -> None:
        """The result's line once more, after a ponderhit that no line followed (the pondering had used
        the budget, or had ended): a client such as python-chess keeps only the lines after ponderhit as
        the move's information, and lichess-bot's score, draw and resign logic reads them."""
        last = search.last_report
        report = Thinking(result.depth, result.score, result.seconds, result.nodes, list(result.pv),
                          seldepth=last.seldepth if last else 0, tbhits=last.tbhits if last else None)
        self.out.line(self.info_line(report, search.material))

    def finish_active(self) -> None:
        """A command that changes the position arrived while a search runs (a GUI should have sent
        stop first): stop it, answer its bestmove as UCI requires, then go on."""
        active = self.active
        if active is None:
            return
        stop(self, "")
        self.engine.end_search()
        self._drain_done(active.serial)

    def _drain_done(self, serial: int) -> None:
        """Handle the stopped search's result now (its `done` event is already queued: the
        worker joined its thread); events that came before it are held and handled next, in order."""
        while self.active is not None and self.active.serial == serial:
            event = self.events.get()
            if event[0] == "done" and event[1] == serial:
                self._search_finished(event[1], event[2])
            else:
                self._held.append(event)


Handler = Callable[[UciSession, str], None]
# The flat command table, one part per capability.
COMMANDS: dict[str, Handler] = {**OPTION_COMMANDS, **POSITION_COMMANDS, **SEARCH_COMMANDS, "quit": UciSession.quit}
