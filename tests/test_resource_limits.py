"""Memory and threads the machine will not give, simulated with an address-space limit
(RLIMIT_AS) on the engine's process: a hash table that cannot be mapped keeps the old one, threads
that cannot start keep the count it had, each said in one line (UCI `info string`, XBoard
`telluser`, the console's `Error:`), and the engine plays on. And `bench DEPTH THREADS` searches
with the threads its report names."""
from __future__ import annotations

import io
import queue
import re
import resource
import subprocess
import threading
import time

import pytest

from ponderosa.engine.engine import Engine
from ponderosa.protocol.console.session import Console

from tests.uci_harness import program
from tests.wall_clock import allowed

LIMIT_BYTES = 1 << 30   # the engine runs in about 0.6 GB of address space; a 4 GB table cannot fit


class LimitedEngine:
    """`ponderosa` with its address space capped, over pipes."""

    def __init__(self, *arguments: str) -> None:
        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))
        self.process = subprocess.Popen(program() + list(arguments), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, bufsize=1, preexec_fn=cap)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def until(self, pattern: str, seconds: float = 20.0) -> list[str]:
        """The lines up to and including the first that matches pattern."""
        seen: list[str] = []
        deadline = time.monotonic() + allowed(seconds)
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line like {pattern!r}; seen: {seen[-20:]}") from None
            assert line is not None, f"the engine ended; seen: {seen[-20:]}"
            seen.append(line)
            if re.search(pattern, line):
                return seen

    def close(self) -> str:
        if self.process.poll() is None:
            self.send("quit")
            try:
                self.process.wait(allowed(10))
            except subprocess.TimeoutExpired:
                self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read()


def test_uci_hash_and_threads_beyond_the_machine() -> None:
    engine = LimitedEngine("--uci")
    try:
        engine.send("uci", "setoption name Hash value 4096", "isready")
        lines = engine.until("^readyok$")
        told = [line for line in lines if line.startswith("info string")]
        assert told == ["info string option Hash: cannot allocate a hash table of 4096 MB; keeping the 64 MB table"]
        engine.send("setoption name Hash value 16", "setoption name Hash value 4096", "isready")
        told = [line for line in engine.until("^readyok$") if line.startswith("info string")]
        assert told == ["info string option Hash: cannot allocate a hash table of 4096 MB; keeping the 16 MB table"]
        engine.send("setoption name Threads value 64", "isready")
        told = [line for line in engine.until("^readyok$") if line.startswith("info string")]
        assert len(told) == 1 and re.fullmatch(r"info string option Threads: could start only \d+ of 64 search "
                                               r"threads; keeping 1", told[0]), told
        engine.send("setoption name OwnBook value false", "position startpos moves e2e4", "go depth 5")
        assert re.match(r"bestmove [a-h][1-8][a-h][1-8]", engine.until("^bestmove")[-1])
    finally:
        stderr = engine.close()
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


def test_xboard_memory_beyond_the_machine() -> None:
    engine = LimitedEngine("--xboard")
    try:
        engine.send("xboard", "protover 2", "memory 100000", "ping 1")
        lines = engine.until("^pong 1$")
        told = [line for line in lines if line.startswith(("telluser", "Error", "Traceback"))]
        assert told == ["telluser cannot allocate a hash table of 4096 MB; keeping the 64 MB table"], lines
        engine.send("new", "st 0.2", "go")
        assert re.match(r"move [a-h][1-8][a-h][1-8]", engine.until("^move ")[-1])
    finally:
        stderr = engine.close()
    assert "Traceback" not in stderr, stderr


def test_console_hash_beyond_the_machine() -> None:
    engine = LimitedEngine()
    try:
        engine.send("log off", "hash 3G", "echo done")
        lines = engine.until("^done$")
        assert "Error: cannot allocate a hash table of 3072 MB; keeping the 64 MB table" in lines, lines
        assert not any("Traceback" in line for line in lines)
    finally:
        engine.close()


def test_bench_runs_the_threads_it_names() -> None:
    """`bench 8 2` starts a second thread for the bench (ending it after) and reports it; the
    search then differs from the one-thread signature. Its speed is compared in
    test_bench_two_threads_are_faster (a quiet machine's reading)."""
    engine, out = Engine(), io.StringIO()
    console = Console(engine, out)
    one = engine.bench(8)
    two = engine.bench(8, threads=2)
    assert (one.threads, two.threads) == (1, 2)
    assert engine.threads == 1   # the helper started for the bench has ended
    assert two.nodes != one.nodes and engine.bench(8).nodes == one.nodes
    console.execute("bench 6 2")
    assert "positions=34  depth=6  threads=2" in out.getvalue()
    console.execute("smpmax 0")   # no helper may join a search: the report says one thread ran
    console.execute("bench 6 2")
    assert out.getvalue().rsplit("positions=", 1)[1].startswith("34  depth=6  threads=1")
    engine.shutdown()


@pytest.mark.timing
def test_bench_two_threads_are_faster() -> None:
    engine = Engine()
    try:
        one = engine.bench(10)
        two = engine.bench(10, threads=2)
    finally:
        engine.shutdown()
    assert two.nodes_per_second > 1.4 * one.nodes_per_second, (one, two)
