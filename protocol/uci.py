"""The UCI protocol: translates a UCI GUI's commands into engine calls and the engine's reports
into `info`/`bestmove` lines. Same Engine facade, book, learning and time allocation as XBoard."""
from __future__ import annotations

import logging
import queue
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, TextIO

import chess

from ponderosa.core_ext.board import START_FEN
from ponderosa.engine.book.file import BookFileError
from ponderosa.engine.book.opening_book import BookProbe
from ponderosa.engine.clock import (
    TimeBudget,
    budget_for_move_time,
    budget_from_clocks,
    deadline_seconds,
)
from ponderosa.engine.engine import DEFAULT_SECONDS_PER_MOVE, Engine, IllegalMoveError
from ponderosa.engine.fen import FenError, validate_fen
from ponderosa.engine.identity import FULL_NAME
from ponderosa.engine.learning.store import LearnedStoreError
from ponderosa.engine.opponent import parse_uci_opponent
from ponderosa.engine.search import MAX_DEPTH, SearchLimits, SearchResult, Thinking, mate_distance
from ponderosa.protocol.output import Output, set_logging, tolerate_bad_bytes
from ponderosa.protocol.uci_options import UCI_OPTIONS, apply_option

log = logging.getLogger("ponderosa.uci")

AUTHOR = "the Ponderosa developers"
PROGRESS_INTERVAL = 1.0      # seconds between currmove/progress lines (at most once a second)
MAX_MATE_MOVES = 50          # `go mate N` searches 2N plies; more than this is no mate search
MAX_GAME_PLIES = 3500        # the core's history holds 4,096 plies, game and search together
MAX_NODES = 1 << 62          # a node limit the core's 64-bit counter can hold
GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime")


@dataclass
class GoCommand:
    """A parsed `go` line; `problems` lists what was wrong with it (reported, then ignored)."""

    numbers: dict[str, int] = field(default_factory=dict)
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse_go(args: str) -> GoCommand:
    """`go` parameters in any order; a bad number or unknown word is a problem, not a failure."""
    go = GoCommand()
    words = args.split()
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word in GO_NUMBERS:
            if index >= len(words):
                go.problems.append(f"go {word} needs a number")
                break
            text = words[index]
            index += 1
            try:
                value = int(text)
            except ValueError:
                go.problems.append(f"go {word} {text}: not a whole number, ignored")
                continue
            if value < 0:
                if word in ("depth", "nodes", "mate", "movestogo"):
                    go.problems.append(f"go {word} {value}: negative, ignored")
                    continue
                go.problems.append(f"go {word} {value}: negative time counted as 0")
                value = 0
            go.numbers[word] = value
        elif word == "infinite":
            go.infinite = True
        elif word == "ponder":
            go.ponder = True
        elif word == "searchmoves":
            while index < len(words) and words[index] not in GO_NUMBERS + ("infinite", "ponder"):
                go.searchmoves.append(words[index])
                index += 1
        else:
            go.problems.append(f"go: unknown parameter {word!r} ignored")
    return go


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
        self._held: deque[tuple] = deque()  # events read while waiting for a stopped search's result

    # -- the loop ---------------------------------------------------------------

    def run(self, stream: TextIO, first_line: str | None = None) -> None:
        """Read commands from stream on a thread of their own and execute them in order;
        first_line is a command already read (the `uci` that chose this protocol)."""
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:
            pass   # not in the main thread (tests)
        tolerate_bad_bytes(stream, self.out.stream)
        if first_line is not None:
            self.events.put(("line", first_line))
        threading.Thread(target=self._read, args=(stream,), name="uci-input", daemon=True).start()
        while self.running:
            try:
                event = self._held.popleft() if self._held else self.events.get(timeout=PROGRESS_INTERVAL / 4)
            except queue.Empty:
                self._report_progress()
                continue
            kind, *payload = event
            try:
                if kind == "line":
                    self.handle(payload[0])
                elif kind == "done":
                    self._search_finished(payload[0], payload[1])
                elif kind == "eof":
                    self.cmd_quit("")
            except Exception:   # a bug must never end a game: log it, say it, keep going
                log.exception("error while handling %r", payload)
                self.info_string(f"internal error while handling {str(payload[0]).strip()[:80]!r}")
        self.engine.end_search()

    def _read(self, stream: TextIO) -> None:
        for raw in stream:
            self.events.put(("line", raw))
        self.events.put(("eof",))

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

    def info_string(self, text: str) -> None:
        self.out.line(f"info string {text}")

    # -- commands ---------------------------------------------------------------

    def cmd_uci(self, args: str) -> None:
        self.out.line(f"id name {FULL_NAME}")
        self.out.line(f"id author {AUTHOR}")
        for option in UCI_OPTIONS:
            self.out.line(option.declaration(self.engine))
        self.out.line("uciok")

    def cmd_isready(self, args: str) -> None:
        """Answered at once, also while a search runs (the search has a thread of its own)."""
        self.out.line("readyok")

    def cmd_debug(self, args: str) -> None:
        set_logging(args.strip() == "on")

    def cmd_setoption(self, args: str) -> None:
        """`setoption name NAME [value VALUE]`; NAME may hold spaces (Clear Hash)."""
        words = args.split()
        if not words or words[0] != "name":
            self.info_string(f"setoption needs 'name NAME [value VALUE]', got {args!r}")
            return
        if "value" in words:
            at = words.index("value")
            name, value = " ".join(words[1:at]), " ".join(words[at + 1:])
        else:
            name, value = " ".join(words[1:]), ""
        option = next((option for option in UCI_OPTIONS if option.name.lower() == name.lower()), None)
        if option is None:
            self.info_string(f"unknown option: {name}")
            return
        if option.name in ("Hash", "Clear Hash", "SyzygyPath") and self.active is not None:
            self._finish_active()   # never resize or clear a table a search is using
        try:
            message = apply_option(self, option, value)
        except (ValueError, FenError, BookFileError, LearnedStoreError, OSError) as error:
            self.info_string(f"option {option.name}: {error}")
            return
        if message:
            self.info_string(message)

    def cmd_register(self, args: str) -> None:
        self.out.line("registration ok")   # nothing to register; answered so that GUIs move on

    def cmd_ucinewgame(self, args: str) -> None:
        self._finish_active()
        self._learn_from_game()
        self.engine.new_game()

    def cmd_position(self, args: str) -> None:
        """`position startpos|fen FEN [moves ...]`. The same game plus moves only plays the new
        moves (the learner and the book keep their state); a bad FEN keeps the last position;
        an illegal move keeps the position before it and drops the rest."""
        self._finish_active()
        words = args.split()
        if not words or words[0] not in ("startpos", "fen"):
            self.info_string(f"position needs 'startpos' or 'fen FEN', got {args!r}: position unchanged")
            return
        moves_at = words.index("moves") if "moves" in words else len(words)
        if words[0] == "startpos":
            if moves_at != 1:
                self.info_string(f"position startpos: unexpected {' '.join(words[1:moves_at])!r} ignored")
            fen = START_FEN
        else:
            try:
                fen = validate_fen(" ".join(words[1:moves_at]))
            except FenError as error:
                self.info_string(f"bad FEN: {error}: position unchanged")
                return
        if len(words) - moves_at - 1 > MAX_GAME_PLIES:
            self.info_string(f"position: {len(words) - moves_at - 1} moves is more than the {MAX_GAME_PLIES} "
                             "plies of history the engine keeps: position unchanged")
            return
        board = chess.Board(fen)
        moves: list[str] = []
        for text in words[moves_at + 1:]:
            try:
                move = board.parse_uci(text.lower())
            except ValueError:
                self.info_string(f"illegal move {text} in position: the moves from it on are ignored")
                break
            board.push(move)
            moves.append(move.uci())
        self._set_game(fen, moves)

    def _set_game(self, fen: str, moves: list[str]) -> None:
        """Bring the engine's game to fen + moves, playing or taking back as few moves as possible."""
        game = self.engine.game
        current = [move.uci() for move in game.move_stack]
        if game.root().fen() == chess.Board(fen).fen():
            common = 0
            while common < min(len(current), len(moves)) and current[common] == moves[common]:
                common += 1
            for _ in range(len(current) - common):
                self.engine.undo()
            for move in moves[common:]:
                self.engine.make_move(move)
            return
        self.engine.set_position(fen)
        for move in moves:
            self.engine.make_move(move)

    def cmd_go(self, args: str) -> None:
        self._finish_active()
        go = parse_go(args)
        for problem in go.problems:
            self.info_string(problem)
        legal = self.engine.legal_moves()
        if not legal:
            mated = self.engine.game.is_check()
            self.out.line(f"info depth 0 score {'mate 0' if mated else 'cp 0'}")
            self.out.line("bestmove 0000")
            return
        excluded: set[str] = set()
        if go.searchmoves:
            chosen = set()
            for text in go.searchmoves:
                try:
                    chosen.add(self.engine.parse_move(text))
                except IllegalMoveError:
                    self.info_string(f"searchmoves: illegal move {text} ignored")
            excluded = set(legal) - chosen if chosen else set()
        kind = "ponder" if go.ponder else "infinite" if go.infinite else "think"
        limits = self._limits(go, kind)
        if kind == "think" and not excluded and not self.analyse_mode and self.engine.book.enabled:
            probe = self.engine.book_probe()   # once per move: a probe also ages the learned data
            if probe.move is not None:
                self._play_book_move(probe)
                return
            if probe.search_only:
                limits, excluded = self.engine.book_search(probe, limits)
                self.info_string(f"searching only the book moves {' '.join(probe.search_only)}")
        self._start(kind, go, limits, excluded)

    def _play_book_move(self, probe: BookProbe) -> None:
        """The book's move, answered at once and noted for book learning."""
        assert probe.move is not None
        self.info_string(f"book move {self.engine.san(probe.move)} ({probe.chance * 100:.0f}%)")
        self.out.line(f"bestmove {probe.move}")
        self.engine.note_own_move(probe.move, None)   # after the answer (see _send_bestmove)

    def _limits(self, go: GoCommand, kind: str) -> SearchLimits:
        numbers = go.numbers
        depth = min(numbers.get("depth") or 0, MAX_DEPTH) or None
        if "mate" in numbers and numbers["mate"] > 0:
            mate_depth = 2 * min(numbers["mate"], MAX_MATE_MOVES)
            depth = min(depth, mate_depth) if depth else mate_depth
        nodes = min(numbers.get("nodes") or 0, MAX_NODES) or None   # the core counts in 64 bits
        if kind == "infinite":
            return SearchLimits()
        if kind == "ponder":
            return SearchLimits(depth=depth, nodes=nodes)   # open-ended until ponderhit or stop
        budget = self._budget(go)
        if budget is None:
            if depth is not None or nodes is not None:
                return SearchLimits(depth=depth, nodes=nodes)
            budget = budget_for_move_time(DEFAULT_SECONDS_PER_MOVE)   # a bare `go`: the engine's default
        soft, hard = deadline_seconds(budget.soft_seconds), deadline_seconds(budget.hard_seconds)
        return SearchLimits(depth=depth, nodes=nodes, soft_seconds=min(soft, hard), hard_seconds=hard)

    def _budget(self, go: GoCommand) -> TimeBudget | None:
        """The time for the move from movetime or the side to move's clock (one allocation for
        both protocols: engine/clock.py); None when the GUI gave neither."""
        numbers = go.numbers
        if "movetime" in numbers:
            return budget_for_move_time(numbers["movetime"] / 1000)
        white = self.engine.white_to_move
        own, other = ("wtime", "btime") if white else ("btime", "wtime")
        if own not in numbers:
            return None
        increment = numbers.get("winc" if white else "binc", 0)
        opponent = numbers[other] / 1000 if other in numbers else None
        return budget_from_clocks(numbers[own] / 1000, opponent, increment / 1000,
                                  numbers.get("movestogo") or None, pondering=self.ponder_enabled)

    def _start(self, kind: str, go: GoCommand, limits: SearchLimits, excluded: set[str]) -> None:
        search = ActiveSearch(0, kind, go, self.engine.white_to_move, time.monotonic())

        def thinking(report: Thinking) -> None:
            try:
                search.last_depth = report.depth
                self.out.line(self.info_line(report))
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
        stack = self.engine.game.move_stack
        return stack[-1].uci() if stack else None

    def _restore_predicted_move(self, active: ActiveSearch) -> None:
        """Pondering ended without a hit: the board is again the GUI's (with the predicted move)."""
        if active.ponder_move is not None:
            self.engine.make_move(active.ponder_move)
            active.ponder_move = None

    def info_line(self, report: Thinking) -> str:
        """`info depth seldepth multipv score nodes nps time hashfull tbhits pv` for one report."""
        mate = mate_distance(report.score)
        score = f"mate {mate}" if mate is not None else f"cp {report.score}"
        if report.bound != "exact":
            score += " lowerbound" if report.bound == "lower" else " upperbound"
        millis = int(report.seconds * 1000)
        nps = int(report.nodes / report.seconds) if report.seconds > 0 else 0
        return (f"info depth {report.depth} seldepth {max(report.seldepth, report.depth)} multipv {report.multipv} "
                f"score {score} nodes {report.nodes} nps {nps} time {millis} hashfull {self.engine.tt.hashfull()} "
                f"tbhits {self.tablebase_hits()} pv {' '.join(report.pv)}")

    def tablebase_hits(self) -> int:
        """Tablebase probes that answered in this search (none until the tablebases are wired in)."""
        return int(getattr(self.engine, "tablebase_hits", 0))

    def _report_progress(self) -> None:
        """At most once a second, while a search runs: the root move searched, and the counters."""
        active = self.active
        if active is None or active.result is not None or not self.engine.searching:
            return
        now = time.monotonic()
        if now - active.started < PROGRESS_INTERVAL or now - active.last_progress < PROGRESS_INTERVAL:
            return
        active.last_progress = now
        move, number, nodes, seconds = self.engine.searcher.progress()
        nps = int(nodes / seconds) if seconds > 0 else 0
        if move is not None:
            self.out.line(f"info depth {max(1, active.last_depth + 1)} currmove {move} currmovenumber {number}")
        self.out.line(f"info nodes {nodes} nps {nps} time {int(seconds * 1000)} hashfull {self.engine.tt.hashfull()}")

    def _search_finished(self, serial: int, result: SearchResult) -> None:
        active = self.active
        if active is None or active.serial != serial:
            return   # an abandoned search
        if active.kind in ("ponder", "infinite") and not active.stop_sent:
            active.result = result   # UCI: no bestmove before stop or ponderhit
            return
        self.active = None
        self._send_bestmove(result, record=active.kind == "think" and not active.stop_sent)

    def _send_bestmove(self, result: SearchResult, record: bool) -> None:
        """`bestmove X [ponder Y]`; a move played in a game (not a ponder miss or analysis) is noted
        for the learner; the board stays as the GUI set it (its next `position` plays the move)."""
        move = result.best_move
        if move is None or move not in self.engine.legal_moves():
            self.out.line("bestmove 0000")
            return
        after = self.engine.game.copy(stack=False)
        after.push_uci(move)
        ponder = result.ponder_move
        if ponder is not None and chess.Move.from_uci(ponder) not in after.legal_moves:
            ponder = None
        self.out.line(f"bestmove {move}" + (f" ponder {ponder}" if ponder else ""))
        if record and not self.analyse_mode:
            # After the answer: the learner may write to its store (110 ms measured), on the engine's time.
            self.engine.note_own_move(move, result)

    def cmd_stop(self, args: str) -> None:
        """bestmove at once: the search stops at its next poll (the same bound as XBoard's `?`)."""
        active = self.active
        if active is None:
            return
        record = active.kind == "think"   # a stopped ponder search is a ponder miss: not played
        active.stop_sent = True
        if active.kind == "ponder":
            active.kind = "ponder-miss"
            self._restore_predicted_move(active)
        if active.result is not None:
            self.active = None
            self._send_bestmove(active.result, record)
            return
        self.engine.searcher.stop()

    def cmd_ponderhit(self, args: str) -> None:
        """The opponent played the expected move: the ponder search becomes the real search, its
        budget counted from the start of pondering (time spent pondering is already used)."""
        active = self.active
        if active is None or active.kind != "ponder":
            return
        active.kind = "think"
        self._restore_predicted_move(active)   # the predicted move was played: the game has it again
        if active.result is not None:
            result, self.active = active.result, None
            self._send_bestmove(result, record=True)
            return
        budget = self._budget(active.go)
        if budget is None:
            if "depth" in active.go.numbers or "nodes" in active.go.numbers or "mate" in active.go.numbers:
                return   # the depth or node limit ends it, as it would have without pondering
            budget = budget_for_move_time(DEFAULT_SECONDS_PER_MOVE)
        hard = deadline_seconds(budget.hard_seconds)
        self.engine.set_time_budget(min(deadline_seconds(budget.soft_seconds), hard), hard)

    def cmd_quit(self, args: str) -> None:
        self.running = False
        self.active = None
        self.engine.searcher.stop()

    # -- helpers ---------------------------------------------------------------

    def _finish_active(self) -> None:
        """A command that changes the position arrived while a search runs (a GUI should have sent
        stop first): stop it, answer its bestmove as UCI requires, then go on."""
        active = self.active
        if active is None:
            return
        self.cmd_stop("")
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

    def _learn_from_game(self) -> None:
        """UCI sends no result: a game that ended on the board by rule is learned from."""
        if self.analyse_mode or not self.engine.game.move_stack:
            return
        outcome = self.engine.outcome()
        if outcome is not None:
            self.engine.finish_game(outcome[0])

    def set_opponent(self, text: str) -> str:
        """UCI_Opponent: who the engine plays, for the learner (and the server rules)."""
        if not text.strip():
            return ""
        opponent = parse_uci_opponent(text)
        self.engine.set_opponent(opponent)
        return ""


Handler = Callable[[UciSession, str], None]
COMMANDS: dict[str, Handler] = {
    "uci": UciSession.cmd_uci, "isready": UciSession.cmd_isready, "debug": UciSession.cmd_debug,
    "setoption": UciSession.cmd_setoption, "register": UciSession.cmd_register,
    "ucinewgame": UciSession.cmd_ucinewgame, "position": UciSession.cmd_position, "go": UciSession.cmd_go,
    "stop": UciSession.cmd_stop, "ponderhit": UciSession.cmd_ponderhit, "quit": UciSession.cmd_quit,
}
