"""A subprocess driver for Ponderosa in UCI mode: every read has a timeout, both directions are
kept in a transcript for failure messages, and `info` lines are parsed into dictionaries."""
from __future__ import annotations

import os
import queue
import re
import resource
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tests.wall_clock import allowed
from tools.engine_process import program  # tools/engine_process.py: the installed program

BESTMOVE = re.compile(r"^bestmove (\S+)(?: ponder (\S+))?$")
INFO_FIELDS = ("depth", "seldepth", "multipv", "score", "nodes", "nps", "time", "hashfull", "tbhits", "pv")


def address_space_cap(limit: int | None) -> Callable[[], None] | None:
    """For Popen's preexec_fn: the child's address space capped at limit bytes (RLIMIT_AS), so
    that a table or thread beyond it fails to allocate as on a smaller machine."""
    if limit is None:
        return None

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


def peak_megabytes(pid: int) -> float:
    """A live process's peak resident memory (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for process {pid}")


def bad_files(folder: Path) -> dict[str, str]:
    """For the fuzzers: a FIFO nobody writes, a folder, and a sparse file of 5 GB (beyond every
    kind's cap), by the names the generated lines use."""
    os.mkfifo(folder / "fifo")
    (folder / "folder").mkdir()
    with open(folder / "big", "wb") as handle:
        handle.truncate(5 << 30)
    return {"{FIFO}": str(folder / "fifo"), "{BIG}": str(folder / "big"), "{FOLDER}": str(folder / "folder")}


@dataclass
class Line:
    at: float
    text: str


def parse_info(text: str) -> dict[str, object]:
    """An `info` line as {field: value}: numbers as int, score as (kind, value, bound), pv as a list."""
    words = text.split()[1:]
    fields: dict[str, object] = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word == "score":
            kind, value = words[index + 1], int(words[index + 2])
            bound = None
            if index + 3 < len(words) and words[index + 3] in ("lowerbound", "upperbound"):
                bound = words[index + 3]
                index += 1
            fields["score"] = (kind, value, bound)
            index += 3
        elif word == "pv":
            fields["pv"] = words[index + 1:]
            break
        elif word == "string":
            fields["string"] = " ".join(words[index + 1:])
            break
        elif word == "currmove":
            fields["currmove"] = words[index + 1]
            index += 2
        else:
            fields[word] = int(words[index + 1])
            index += 2
    return fields


class UciEngine:
    """One engine process over pipes; `--uci` unless told otherwise (`uci` as first command works too)."""

    def __init__(self, arguments: tuple[str, ...] = ("--uci",), handshake: bool = True,
                 address_space: int | None = None) -> None:
        self.folder = tempfile.mkdtemp(prefix="ponderosa-uci-")   # learning writes here, not in a shared place
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(program() + list(arguments), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, bufsize=0, cwd=self.folder, env=env,
                                        preexec_fn=address_space_cap(address_space))
        self.lines: queue.Queue[Line | None] = queue.Queue()
        self.transcript: list[str] = []
        self.stderr_chunks: list[bytes] = []
        self.options: dict[str, str] = {}
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        if handshake:
            self.handshake()

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

    def send(self, *lines: str) -> float:
        """Write lines; returns the time just before writing."""
        assert self.process.stdin is not None
        sent = time.monotonic()
        for line in lines:
            self.transcript.append(f"> {line}")
            self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()
        return sent

    def fail(self, message: str) -> AssertionError:
        tail = "\n".join(self.transcript[-40:])
        return AssertionError(f"{message}\n--- transcript (last 40 lines) ---\n{tail}\n"
                              f"--- stderr ---\n{self.stderr[-2000:]}")

    def read(self, seconds: float) -> Line | None:
        try:
            line = self.lines.get(timeout=max(0.0, seconds))
        except queue.Empty:
            return None
        if line is None:
            raise self.fail("the engine closed its output")
        return line

    def until(self, pattern: str, seconds: float) -> tuple[re.Match, list[Line]]:
        """Read until a line matches; returns the match and every line read (the match last)."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + allowed(seconds)
        seen: list[Line] = []
        while True:
            line = self.read(deadline - time.monotonic())
            if line is None:
                raise self.fail(f"no line matching {pattern!r} within {seconds} s")
            seen.append(line)
            match = regex.match(line.text)
            if match:
                return match, seen

    def quiet(self, seconds: float) -> list[Line]:
        """Every line that arrives within seconds."""
        deadline = time.monotonic() + seconds
        seen = []
        while True:
            line = self.read(deadline - time.monotonic())
            if line is None:
                return seen
            seen.append(line)

    def handshake(self) -> None:
        self.send("uci")
        _, lines = self.until(r"^uciok$", 10.0)
        for line in lines:
            match = re.match(r"^option name (.+?) type (\S+)", line.text)
            if match:
                self.options[match.group(1)] = line.text
        self.sync()

    def sync(self, seconds: float = 5.0) -> None:
        self.send("isready")
        self.until(r"^readyok$", seconds)

    def search(self, *lines: str, seconds: float = 10.0) -> tuple[str, str | None, list[Line]]:
        """Send lines (the last a `go`) and read to the bestmove: (move, ponder move, lines)."""
        self.send(*lines)
        match, seen = self.until(BESTMOVE.pattern, seconds)
        return match.group(1), match.group(2), seen

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.wait(3)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> UciEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def infos(lines: list[Line]) -> list[dict[str, object]]:
    return [parse_info(line.text) for line in lines if line.text.startswith("info ")]
