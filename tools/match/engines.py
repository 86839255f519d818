"""The engines of a match (tools/match/gauntlet.py): what each Debian engine is and how it is started, and one
engine process driven through python-chess with a transcript of its I/O, its faults classified
and its clock measured in its own I/O thread. No game logic: tools/match/games.py plays the games."""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path

import chess
import chess.engine

START_TIMEOUT = 20.0   # seconds for an engine to start and finish its handshake
QUIT_TIMEOUT = 3.0     # seconds an engine gets to exit after `quit` before it is killed
RESULT_TIMEOUT = 3.0   # seconds for sending the game result to an engine
TRANSCRIPT_LINES = 400  # engine I/O lines kept per engine for error reports
GAMES_DIR = ("/usr/games", "/usr/local/games")


@dataclass(frozen=True)
class EngineSpec:
    key: str                    # name on the command line and in the table
    protocol: str               # "xboard" or "uci"
    command: tuple[str, ...]
    options: tuple[tuple[str, object], ...] = ()   # engine options set once after the start
    note: str = ""


OPPONENTS: dict[str, EngineSpec] = {
    "fairymax": EngineSpec(
        "fairymax", "xboard", ("fairymax",),
        note="no opening book and no learning; declares setboard=0 (it wants `edit`), so every "
             "opening is sent to it as moves from the start position"),
    "phalanx": EngineSpec(
        "phalanx", "xboard", ("phalanx", "-b-", "-l-", "-p-"),
        note="-b- opening book off, -l- learning off, -p- pondering off; it does not resign (-r 0 default)"),
    "sjeng": EngineSpec(
        "sjeng", "xboard", ("sjeng",),
        note="no flags exist; Debian ships no standard-chess book for it (only variant .opn books), "
             "so it plays without a book, and its learning only touches book moves"),
    "hoichess": EngineSpec(
        "hoichess", "xboard",
        ("hoichess", "--norc", "--initcmd", "hash size 32M", "--initcmd", "pawnhash size 4M",
         "--initcmd", "evalcache size 4M"),
        note="--norc skips hoichess.rc, whose `book open` is what loads its opening book; the rc "
             "file's hash sizes are given with --initcmd instead; it keeps about 1 s in reserve and moves "
             "without searching below that, so it is weak at base times of 1-2 s"),
    "gnuchess": EngineSpec(
        "gnuchess", "uci", ("gnuchess", "--uci"), options=(("OwnBook", False),),
        note="UCI (GNU Chess 6.2.7 loses its XBoard handshake); OwnBook=false turns its book off"),
    "ponderosa1": EngineSpec(
        "ponderosa1", "xboard", ("ponderosa",), options=(("Threads", 1), ("OwnBook", False), ("Learn", 0)),
        note="Ponderosa itself on one search thread, book and learning off: the reference for a "
             "parallel-search match (--engine-option Threads=2 --engine-option OwnBook=false "
             "--engine-option Learn=0)"),
    # The strength issue's next rungs (not in the default gauntlet): one thread, 64 MB hash, no book.
    "toga2": EngineSpec(
        "toga2", "uci", ("toga2",), options=(("OwnBook", False), ("Hash", 64)),
        note="Toga II 3.0, UCI; OwnBook=false (its performance.bin book off); single-threaded"),
    "ethereal": EngineSpec(
        "ethereal", "uci", ("ethereal-chess",), options=(("Threads", 1), ("Hash", 64)),
        note="Ethereal 12, UCI; no book; Threads=1"),
    "crafty": EngineSpec(
        "crafty", "xboard", ("crafty", "log off", "hash=64M", "hashp=8M"),
        note="Crafty 25.6 built from source (docs/BENCHMARKS.md: one gcc command) and on PATH; "
             "without its book.bin it plays no book moves; it declares reuse=0, so each game gets a fresh "
             "process; `log off` keeps log.NNN/game.NNN out of "
             "the working folder; one search thread (its default)"),
    "stockfish": EngineSpec(
        "stockfish", "uci", ("stockfish",), options=(("Threads", 1), ("Hash", 64)),
        note="Stockfish 15.1, UCI; no book; Threads=1"),
    "stockfish11": EngineSpec(
        "stockfish11", "uci", ("stockfish11",), options=(("Threads", 1), ("Hash", 64)),
        note="Stockfish 11, the last with a hand-written evaluation, built from the official repository's "
             "tag sf_11 (`cd src && make build ARCH=x86-64-modern`) and on PATH as stockfish11; no book; "
             "Threads=1"),
}
# Stockfish at a set strength, e.g. stockfish-elo-1800: its UCI_LimitStrength/UCI_Elo, which its
# documentation calibrates at 60+0.6 against CCRL 40/4 (Stockfish 15.1: 1350-2850): opponents of
# a known rating for the strength levels (tools/match/calibrate_strength.py).
LIMITED_STOCKFISH = re.compile(r"stockfish-elo-(\d{4})")


def opponent_spec(key: str) -> EngineSpec | None:
    """The opponent a --opponents name means: one of OPPONENTS or stockfish-elo-N; None if neither."""
    if key in OPPONENTS:
        return OPPONENTS[key]
    limited = LIMITED_STOCKFISH.fullmatch(key)
    if limited is None:
        return None
    elo = int(limited.group(1))
    full = OPPONENTS["stockfish"]
    return replace(full, key=key, options=full.options + (("UCI_LimitStrength", True), ("UCI_Elo", elo)),
                   note=f"Stockfish 15.1 at UCI_Elo {elo} (its scale: CCRL 40/4, calibrated at 60+0.6)")


def classify_engine_error(error: BaseException) -> str:
    """'illegal' when python-chess rejected the engine's move, 'crash' when the process died,
    else 'error' (an `Error`/`Illegal move` line from the engine, a protocol problem)."""
    if isinstance(error, chess.engine.EngineTerminatedError):
        return "crash"
    text = str(error)
    if re.search(r"illegal (san|uci|move \S+ in position)|invalid (san|uci)|ambiguous san|no matching legal move|"
                 r"missing promotion piece|expected uci string|unsupported multi-leg", text):
        return "illegal"
    return "error"


class IOLog:
    """All engine I/O of the run to one file (--log), with time and engine label."""

    def __init__(self, path: Path | None):
        self.lock = threading.Lock()
        self.file = open(path, "w", encoding="utf-8") if path else None
        self.t0 = time.monotonic()

    def write(self, label: str, direction: str, line: str) -> None:
        if self.file is None:
            return
        with self.lock:
            self.file.write(f"{time.monotonic() - self.t0:10.3f} {label} {direction} {line}\n")

    def close(self) -> None:
        if self.file is not None:
            with self.lock:
                self.file.close()
                self.file = None


IO_LOG = IOLog(None)


class _Recorder:
    """Mixin: keeps the last engine I/O lines and python-chess's 'unexpected output' complaints."""

    label = "?"

    def _init_recorder(self) -> None:
        self.transcript: deque[str] = deque(maxlen=TRANSCRIPT_LINES)
        self.unexpected: list[str] = []
        self.declared_setboard: bool | None = None
        self.go_sent: float | None = None      # when `go` was written (the request of a move)
        self.move_seen: float | None = None    # when the first `move`/`bestmove` after it arrived

    def _record(self, direction: str, line: str) -> None:
        # The clock of a move runs from writing `go` to reading the move, both stamped here in the
        # engine's I/O thread (python-chess's thread hops and its ping after the move are excluded).
        if direction == ">" and (line == "go" or line.startswith("go ")):
            self.go_sent, self.move_seen = time.monotonic(), None
        elif direction == "<" and self.go_sent is not None and self.move_seen is None and \
                (line.startswith("move ") or line.startswith("bestmove")):
            self.move_seen = time.monotonic()
        self.transcript.append(f"{direction} {line}")
        if IO_LOG.file is not None:
            transport = getattr(self, "transport", None)
            pid = transport.get_pid() if transport is not None else "?"
            IO_LOG.write(f"{self.label}[{pid}]", direction, line)

    def _note_idle_error(self, line: str) -> None:
        # python-chess drops lines that come while no command runs (e.g. the answer to `result`):
        # keep the XBoard `Error`/`Illegal move` ones for the report.
        if getattr(self, "command", None) is None and chess.engine.XBOARD_ERROR_REGEX.match(line):
            self.unexpected.append(f"{line} (between commands)")

    def send_line(self, line: str) -> None:
        self._record(">", line)
        super().send_line(line)  # type: ignore[misc]


class MatchXBoardProtocol(_Recorder, chess.engine.XBoardProtocol):
    """XBoard protocol that also drives engines declaring setboard=0: the script sends every
    opening as moves from the start position, so python-chess never needs `setboard`."""

    def __init__(self) -> None:
        super().__init__()
        self._init_recorder()

    def _line_received(self, line: str) -> None:
        self._record("<", line)
        if line.startswith("feature") and re.search(r"\bsetboard=[01]\b", line):
            self.declared_setboard = "setboard=1" in line
            line = re.sub(r"\bsetboard=0\b", "setboard=1", line)
        self._note_idle_error(line)
        super()._line_received(line)


class MatchUciProtocol(_Recorder, chess.engine.UciProtocol):
    def __init__(self) -> None:
        super().__init__()
        self._init_recorder()
        self.declared_setboard = True

    def _line_received(self, line: str) -> None:
        self._record("<", line)
        super()._line_received(line)


class _EngineLogHandler(logging.Handler):
    """Routes python-chess's 'Unexpected engine output' warnings to the engine they are about."""

    def __init__(self, verbose: bool):
        super().__init__()
        self.verbose = verbose

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        if args and isinstance(args[0], _Recorder) and "Unexpected engine output" in str(record.msg):
            args[0].unexpected.append(str(args[1]))
        elif self.verbose:
            try:
                sys.stderr.write(f"python-chess: {record.getMessage()}\n")
            except Exception:  # logging must never break a game
                pass


LIVE_PIDS: set[int] = set()


LIVE_LOCK = threading.Lock()


def resolve_command(command: tuple[str, ...] | list[str]) -> list[str]:
    """The command with its program looked up on PATH, then in /usr/games (Debian's engines)."""
    program = command[0]
    found = shutil.which(program)
    if found is None and os.sep not in program:
        for folder in GAMES_DIR:
            candidate = os.path.join(folder, program)
            if os.access(candidate, os.X_OK):
                found = candidate
                break
    return [found or program, *command[1:]]


@dataclass
class MoveOutcome:
    result: chess.engine.PlayResult | None
    elapsed: float
    fault: str | None = None    # time / illegal / crash / error / aborted
    detail: str = ""


class Player:
    """One engine process for one worker; restarted after anything went wrong with it."""

    def __init__(self, spec: EngineSpec, label: str):
        self.spec = spec
        self.label = label
        self.command = resolve_command(spec.command)
        self.engine: chess.engine.SimpleEngine | None = None
        self.name = label
        self.dirty = False
        self.has_played = False     # this process has been handed a game
        self.unexpected: list[str] = []
        self.transcript: deque[str] = deque(maxlen=TRANSCRIPT_LINES)

    # -- life cycle
    def start(self) -> None:
        base = MatchXBoardProtocol if self.spec.protocol == "xboard" else MatchUciProtocol
        protocol = type(base.__name__, (base,), {"label": self.label})   # labels the I/O log from the start
        # setpgrp: a Ctrl-C in the terminal reaches the script only; the script closes the engines.
        engine = chess.engine.SimpleEngine.popen(protocol, self.command, timeout=START_TIMEOUT, setpgrp=True)
        self.transcript = engine.protocol.transcript  # type: ignore[attr-defined]
        self.unexpected = engine.protocol.unexpected  # type: ignore[attr-defined]
        with LIVE_LOCK:
            LIVE_PIDS.add(engine.transport.get_pid())
        self.engine = engine
        self.dirty = False
        self.has_played = False
        try:
            if self.spec.options:
                engine.configure(dict(self.spec.options))
        except Exception:
            self.close()
            raise
        self.name = engine.id.get("name") or self.label

    @property
    def declared_setboard(self) -> bool:
        return bool(self.engine and self.engine.protocol.declared_setboard is not False)  # type: ignore[attr-defined]

    def alive(self) -> bool:
        return self.engine is not None and not self.engine.protocol.returncode.done()

    @property
    def one_game_each(self) -> bool:
        """An XBoard engine that declared reuse=0 (Crafty: `new` is not implemented) needs a
        fresh process for every game; python-chess answers `rejected reuse`, which Crafty ignores."""
        return bool(self.engine is not None and self.spec.protocol == "xboard"
                    and self.engine.protocol.features.get("reuse", 1) == 0)  # type: ignore[attr-defined]

    def ensure_started(self) -> None:
        """A process ready for the next game (each call is followed by one game)."""
        if self.engine is not None and (self.dirty or not self.alive() or (self.has_played and self.one_game_each)):
            self.close()
        if self.engine is None:
            self.start()
        self.has_played = True

    def close(self) -> None:
        """`quit`, then kill after QUIT_TIMEOUT (at once if the engine is in an unknown state)."""
        engine, self.engine = self.engine, None
        if engine is None:
            return
        pid = engine.transport.get_pid()
        try:
            if not self.dirty and not engine.protocol.returncode.done():
                future = asyncio.run_coroutine_threadsafe(engine.protocol.quit(), engine.protocol.loop)
                try:
                    future.result(QUIT_TIMEOUT)
                except BaseException:  # any failure: kill it below
                    future.cancel()
        finally:
            engine.close()  # closes the transport, which kills a process still running
            try:
                engine.returncode.result(QUIT_TIMEOUT)
            except BaseException:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            with LIVE_LOCK:
                LIVE_PIDS.discard(pid)

    # -- playing
    def play(self, board: chess.Board, limit: chess.engine.Limit, game: object, wait: float,
             stop: threading.Event) -> MoveOutcome:
        """Ask for a move; waits at most `wait` seconds (the engine's clock plus FORFEIT_WAIT)."""
        assert self.engine is not None
        protocol = self.engine.protocol
        done_at: list[float] = []
        coroutine = protocol.play(board, limit, game=game, info=chess.engine.INFO_SCORE | chess.engine.INFO_BASIC,
                                  ponder=False)
        protocol.go_sent = protocol.move_seen = None  # type: ignore[attr-defined]
        start = time.monotonic()
        future = asyncio.run_coroutine_threadsafe(coroutine, protocol.loop)
        future.add_done_callback(lambda _: done_at.append(time.monotonic()))
        while True:
            left = wait - (time.monotonic() - start)
            if stop.is_set():
                future.cancel()
                self.dirty = True
                return MoveOutcome(None, time.monotonic() - start, "aborted")
            try:
                result = future.result(timeout=max(0.0, min(0.1, left)))
            except concurrent.futures.TimeoutError:
                if left <= 0:
                    future.cancel()
                    self.dirty = True
                    return MoveOutcome(None, time.monotonic() - start, "time", "no move")
                continue
            except concurrent.futures.CancelledError:
                self.dirty = True
                return MoveOutcome(None, time.monotonic() - start, "error", "search cancelled")
            except Exception as error:  # every engine failure is reported, none raised
                self.dirty = True
                elapsed = (done_at[0] if done_at else time.monotonic()) - start
                return MoveOutcome(None, elapsed, classify_engine_error(error), f"{type(error).__name__}: {error}")
            go_sent, move_seen = protocol.go_sent, protocol.move_seen  # type: ignore[attr-defined]
            if result.move is not None and go_sent is not None and move_seen is not None:
                return MoveOutcome(result, move_seen - go_sent)
            elapsed = (done_at[0] if done_at else time.monotonic()) - start
            return MoveOutcome(result, elapsed)

    def send_result(self, board: chess.Board, result: str, reason: str) -> None:
        if self.engine is None or self.dirty or not self.alive():
            return
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(result)
        ending = re.sub(r"[{}\r\n]", "", reason)
        protocol = self.engine.protocol

        async def result_then_ping() -> None:
            await protocol.send_game_result(board, winner, ending)
            # A ping drains what the engine says about the finished game (Fairy-Max answers
            # `result` with an Error line, some engines print their own result line), so that
            # none of it lands in the next game's first search.
            await protocol.ping()

        future = asyncio.run_coroutine_threadsafe(result_then_ping(), protocol.loop)
        try:
            future.result(RESULT_TIMEOUT)
        except BaseException:  # the game is decided; restart the engine to be safe
            future.cancel()
            self.dirty = True

    def tail(self, lines: int = 12) -> list[str]:
        return list(self.transcript)[-lines:]


def kill_leftovers() -> None:
    with LIVE_LOCK:
        pids = list(LIVE_PIDS)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
