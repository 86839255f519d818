"""A subprocess driver for `ponderosa --xboard`, as docs/PROTOCOL.md §11.0 describes.

Lines are read on a thread of their own, so every read has a timeout; the harness keeps
a python-chess board of the game it has told the engine about, so that moves can be
checked for legality. Helpers: INIT (and the python-chess and cutechess variants),
SYNC(n), QUIET(t) and MOVE(t)."""
from __future__ import annotations

import atexit
import os
import queue
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field

import chess

from tests.uci_harness import address_space_cap
from tests.wall_clock import allowed
from tools.engine_process import engine_command  # tools/engine_process.py: the installed program

# §11.0 regexes.
MOVE = re.compile(r"^move\s+(\S+)\s*$")
PONG = re.compile(r"^pong\s+(-?\d+)\s*$")
ILLEGAL = re.compile(r"^Illegal move(\s*\([^)]*\))?\s*:\s*(\S+)")
ERROR = re.compile(r"^Error\s*\(([^)]*)\)\s*:\s*(.*)$")
THINK = re.compile(r"^\s*(\d+)[ \t]+(-?\d+)[ \t]+(\d+)[ \t]+(\d+)(?:[ \t]+(.*))?$")
RESULT = re.compile(r"^(1-0|0-1|1/2-1/2)\s*\{[^}]*\}")
FEATURE = re.compile(r"^feature\s+(.*)$")

# §11.0 fixtures.
F_W1 = "k7/8/8/8/8/8/1q6/K7 w - - 0 1"
F_B1 = "k7/1Q6/8/8/8/8/8/K7 b - - 0 1"
F_PROMO = "3k4/P7/8/8/8/8/5q2/7K w - - 0 1"
F_EP1 = "8/8/4k3/3pP3/8/8/2q5/K7 w - d6 0 1"
F_TWO = "8/8/8/8/8/8/2q4P/K6k w - - 0 1"
F_STALE = "7k/8/8/8/8/8/5q2/7K w - - 0 1"
F_MATED = "R5k1/5ppp/8/8/8/8/8/7K b - - 0 1"
F_MATE1 = "6k1/5ppp/8/8/8/8/8/R6K w - - 0 1"
F_CASTLE = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
F_EPFEN = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
F_KK = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
F_50 = "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"
F_FRC_X = "k7/8/8/8/8/8/8/4RKR1 w KQ - 0 1"
F_FRC_S = "k7/8/8/8/8/8/8/4RKR1 w GE - 0 1"
F_MID = "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 w - - 0 40"

# The features cutechess accepts; it rejects every other one (§9.3).
CUTECHESS_ACCEPTS = {"ping", "setboard", "san", "usermove", "nps", "time", "reuse", "myname", "variants",
                     "name", "memory", "smp", "egt", "option", "done"}


class ProtocolFailure(AssertionError):
    """The engine broke a rule of the protocol; the message carries the recent transcript."""


@dataclass
class Line:
    at: float           # time.monotonic() when it was read
    text: str


@dataclass
class Features:
    values: dict[str, str | int] = field(default_factory=dict)
    options: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    names_in_order: list[str] = field(default_factory=list)

    def flag(self, name: str, default: int = 0) -> int:
        value = self.values.get(name, default)
        return int(value) if isinstance(value, int) or str(value).lstrip("-").isdigit() else default


class XBoardEngine:
    """One engine process driven over pipes; `transcript` holds both directions."""

    def __init__(self, command: list[str] | None = None, cwd: str | None = None,
                 env: dict[str, str] | None = None, address_space: int | None = None) -> None:
        self.command = command or engine_command()
        self.started = time.monotonic()
        env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        # A working directory of its own: the engine learns there (learned data, .lrn files),
        # and what one test's engine learned must not change another test's engine.
        self.own_folder = tempfile.mkdtemp(prefix="ponderosa-engine-") if cwd is None else None
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, bufsize=0, cwd=cwd or self.own_folder, env=env,
                                        preexec_fn=address_space_cap(address_space))
        self.lines: queue.Queue[Line | None] = queue.Queue()
        self.transcript: list[str] = []
        self.stderr_chunks: list[bytes] = []
        self.board = chess.Board()
        self.features = Features()
        self.usermove = False
        self.debug = False
        self.eof = False
        self.pushed_back: list[Line] = []
        self.side_lines: list[str] = []
        self.last_move_at = 0.0
        self.last_line_at = 0.0
        self._tracking = True
        self._readers = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self._readers:
            reader.start()

    # -- pipes ------------------------------------------------------------------

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            self.transcript.append(f"< {text}")
            self.lines.put(Line(time.monotonic(), text))
        self.lines.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self.stderr_chunks.append(raw)

    @property
    def stderr(self) -> str:
        return b"".join(self.stderr_chunks).decode("utf-8", errors="replace")

    def write_raw(self, data: bytes) -> None:
        """Write bytes exactly as given (one write() call)."""
        assert self.process.stdin is not None
        self.transcript.append(f"> {data!r}")
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            self.fail(f"cannot write to the engine: {error}")

    def send(self, *lines: str) -> float:
        """Write the lines in ONE write (each ends in a newline); track the board; returns the time."""
        for line in lines:
            self._track(line)
        assert self.process.stdin is not None
        data = "".join(line + "\n" for line in lines).encode()
        for line in lines:
            self.transcript.append(f"> {line}")
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            self.fail(f"cannot write to the engine: {error}")
        return time.monotonic()

    def move(self, *moves: str) -> float:
        """Send moves (with the `usermove` prefix when declared) and play them on the harness board."""
        texts = []
        for move in moves:
            try:
                self.board.push(self.board.parse_san(move))
            except ValueError:   # king takes rook (f1g1) castles in Chess960
                self.board.push(self.board.parse_uci(move))
            texts.append(f"usermove {move}" if self.usermove else move)
        saved, self._tracking = self._tracking, False
        try:
            return self.send(*texts)
        finally:
            self._tracking = saved

    def _track(self, line: str) -> None:
        """Follow the commands that change the position, so MOVE can check legality."""
        if not self._tracking:
            return
        word, _, rest = line.strip().partition(" ")
        if word == "new":
            self.board = chess.Board()
        elif word == "variant":
            self.board = chess.Board(chess960=rest.strip() == "fischerandom")
        elif word == "setboard":
            try:
                self.board = chess.Board(rest.strip(), chess960=self.board.chess960)
            except ValueError:
                pass
        elif word == "undo" and self.board.move_stack:
            self.board.pop()
        elif word == "remove":
            for _ in range(2):
                if self.board.move_stack:
                    self.board.pop()

    def read(self, timeout: float, keep_thinking: bool = False) -> Line | None:
        """The next line within timeout seconds (None if none); `#` lines are skipped, and
        thinking lines unless keep_thinking."""
        deadline = time.monotonic() + timeout
        while True:
            if self.pushed_back:
                line = self.pushed_back.pop(0)
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.eof:
                    return None
                try:
                    item = self.lines.get(timeout=remaining)
                except queue.Empty:
                    return None
                if item is None:
                    self.eof = True
                    return None
                line = item
            if line.text.startswith("#"):
                continue
            if not keep_thinking and THINK.match(line.text):
                continue
            return line

    def collect(self, seconds: float, keep_thinking: bool = True) -> list[Line]:
        """Every line that arrives within the next `seconds`."""
        deadline = time.monotonic() + seconds
        lines = []
        while True:
            line = self.read(max(0.0, deadline - time.monotonic()), keep_thinking)
            if line is None:
                return lines
            lines.append(line)

    def fail(self, message: str) -> None:
        recent = "\n".join(self.transcript[-60:])
        stderr = self.stderr[-3000:]
        raise ProtocolFailure(f"{message}\n--- transcript (last lines) ---\n{recent}\n--- stderr ---\n{stderr}")

    # -- §11.0 macros -----------------------------------------------------------

    def init(self, style: str = "X", protover: int = 2, timeout: float = 5.0) -> Features:
        """INIT: `xboard` and `protover N` in one write, features until done=1.

        style "X": accept every feature (xboard); "P": answer nothing (python-chess);
        "C": accept cutechess's list and reject the rest. The timeout is lenient (a loaded
        machine starts Python slowly); T01 checks the handshake time itself."""
        sent = self.send("xboard", f"protover {protover}")
        deadline = sent + allowed(timeout)
        done = False
        while not done:
            line = self.read(max(0.0, deadline - time.monotonic()), keep_thinking=True)
            if line is None:
                self.fail(f"no `feature ... done=1` within {timeout} s of protover")
            if ERROR.match(line.text) or ILLEGAL.match(line.text):
                self.fail(f"error line during the handshake: {line.text!r}")
            match = FEATURE.match(line.text)
            if not match:
                continue
            self.features.lines.append(line.text)
            for token in shlex.split(match.group(1)):
                name, _, value = token.partition("=")
                self.features.names_in_order.append(name)
                if name == "option":
                    self.features.options.append(value)
                    continue
                self.features.values[name] = int(value) if value.lstrip("-").isdigit() else value
                if name == "done" and value == "0":
                    deadline = max(deadline, sent + allowed(10.0))   # the protocol's 10 s after done=0
                if name == "done" and value == "1":
                    done = True
        names = [name for name in dict.fromkeys(self.features.names_in_order)]
        if style == "X":
            self.send(*[f"accepted {name}" for name in names])
            accepted = set(names)
        elif style == "C":
            self.send(*[f"{'accepted' if name in CUTECHESS_ACCEPTS else 'rejected'} {name}" for name in names])
            accepted = {name for name in names if name in CUTECHESS_ACCEPTS}
        else:
            accepted = set(names)   # python-chess accepts by silence
        self.usermove = "usermove" in accepted and self.features.flag("usermove") == 1
        self.debug = style == "X" and self.features.flag("debug") == 1
        return self.features

    def sync(self, number: int | str, timeout: float = 1.0, allow: tuple[re.Pattern, ...] = ()) -> list[Line]:
        """SYNC(n): ping n, expect pong n within timeout, with no move/Error/Illegal line before it
        (unless matched by a pattern in `allow`). Returns the lines read before the pong."""
        sent = self.send(f"ping {number}")
        seen: list[Line] = []
        while True:
            line = self.read(max(0.0, sent + allowed(timeout) - time.monotonic()))
            if line is None:
                self.fail(f"no `pong {number}` within {timeout} s")
            match = PONG.match(line.text)
            if match and match.group(1) == str(number):
                return seen
            if match:
                self.fail(f"wrong pong: {line.text!r} while waiting for pong {number}")
            if any(pattern.match(line.text) for pattern in allow):
                seen.append(line)
                continue
            if MOVE.match(line.text) or ERROR.match(line.text) or ILLEGAL.match(line.text):
                self.fail(f"unexpected {line.text!r} before pong {number}")
            seen.append(line)

    def quiet(self, seconds: float, allow_thinking: bool = True) -> None:
        """QUIET(t): no line but `#` (and thinking) lines for t seconds."""
        for line in self.collect(seconds, keep_thinking=not allow_thinking):
            self.fail(f"expected silence for {seconds} s, got {line.text!r}")

    def expect_move(self, timeout: float, push: bool = True) -> str:
        """MOVE(t): `move M` within t s, M legal on the harness board (pushed). Other lines in
        between (thinking, claims, offers, hints) are kept in `self.side_lines`; Error/Illegal fail."""
        deadline = time.monotonic() + allowed(timeout)
        self.side_lines = []
        while True:
            line = self.read(max(0.0, deadline - time.monotonic()), keep_thinking=True)
            if line is None:
                self.fail(f"no move within {timeout} s" + (" (engine exited)" if self.eof else ""))
            if ERROR.match(line.text) or ILLEGAL.match(line.text):
                self.fail(f"unexpected {line.text!r} while waiting for a move")
            match = MOVE.match(line.text)
            if not match:
                self.side_lines.append(line.text)
                continue
            token = match.group(1)
            try:
                move = self.board.parse_san(token)
            except ValueError:
                self.fail(f"illegal move from the engine: {token} in {self.board.fen()}")
            if push:
                self.board.push(move)
            self.last_move_at = line.at
            return token

    def expect_line(self, pattern: re.Pattern, timeout: float, keep_thinking: bool = False) -> re.Match:
        """The first line matching pattern within timeout; other lines are skipped."""
        deadline = time.monotonic() + allowed(timeout)
        while True:
            line = self.read(max(0.0, deadline - time.monotonic()), keep_thinking)
            if line is None:
                self.fail(f"no line matching {pattern.pattern!r} within {timeout} s")
            match = pattern.match(line.text)
            if match:
                self.last_line_at = line.at
                return match

    # -- the end ----------------------------------------------------------------

    def alive(self) -> bool:
        return self.process.poll() is None

    def quit(self, timeout: float = 5.0) -> int | None:
        """Send quit and wait for the exit; returns the exit code (None if it had to be killed)."""
        if self.alive():
            try:
                self.send("quit")
            except ProtocolFailure:
                pass
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None

    def close(self) -> None:
        if self.alive():
            self.quit(timeout=3.0)
        if self.alive():
            self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        # The readers end at the pipes' end; closing a pipe under a reader still in it would
        # make it read a closed file (EBADF).
        for reader in self._readers:
            reader.join(timeout=5)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        if self.own_folder is not None and not self.alive():
            shutil.rmtree(self.own_folder, ignore_errors=True)

    def crash_report(self) -> str | None:
        """A traceback or fatal error the engine wrote on stderr, if any."""
        text = self.stderr
        for marker in ("Traceback", "Fatal Python error", "Exception in thread", "Error while handling",
                       "error while handling"):
            if marker in text:
                return text[-4000:]
        return None


# A spare process, started while the previous test runs, spares each test the program's
# start-up (about 0.2 s of Python imports); it is still a fresh process per test.
_spares: list[XBoardEngine] = []
_spares_lock = threading.Lock()


def fresh_engine() -> XBoardEngine:
    """A new, unused engine process (the spare if there is one), and a new spare behind it."""
    engine = None
    with _spares_lock:
        while _spares and engine is None:
            candidate = _spares.pop()
            if candidate.alive():
                engine = candidate
            else:
                candidate.close()
        _spares.append(XBoardEngine())
    return engine if engine is not None else XBoardEngine()


@atexit.register
def _close_spares() -> None:
    while _spares:
        _spares.pop().close()
