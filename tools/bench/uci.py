"""UCI figures: the stop bound (stop -> bestmove) and the cost of MultiPV against one line.

Usage:  python -m tools.bench.uci [--stops N] [--depth D]
Stop: `go infinite` on a middlegame for a random 0.2-0.8 s, then `stop`; the time to `bestmove`
is measured in this process (pipe latency included). MultiPV: nodes and time to a fixed depth
over the bench positions with 1 and 3 lines, in the same run."""
from __future__ import annotations

import argparse
import os
import queue
import random
import statistics
import subprocess
import tempfile
import threading
import time

from ponderosa.engine.bench import BENCH_POSITIONS
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits

from tools.engine_process import program

MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"


class UciProcess:
    """The installed program in UCI mode over pipes, each output line stamped on arrival by a thread
    of its own (so that a time read here is when the line came, not when it was looked at)."""

    def __init__(self, folder: str) -> None:
        self.process = subprocess.Popen([*program(), "--uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, bufsize=0, cwd=folder,
                                        env=dict(os.environ, PYTHONUNBUFFERED="1"))
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.put((time.monotonic(), raw.decode("utf-8", errors="replace").rstrip("\r\n")))
        self.lines.put((time.monotonic(), None))

    def send(self, *commands: str) -> float:
        """Write the commands; the time just before writing."""
        assert self.process.stdin is not None
        sent = time.monotonic()
        self.process.stdin.write("".join(command + "\n" for command in commands).encode())
        self.process.stdin.flush()
        return sent

    def until(self, first_word: str, seconds: float) -> float:
        """Read to the first line starting with first_word; the time it arrived."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                arrived, text = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"no `{first_word}` within {seconds} s") from None
            if text is None:
                raise RuntimeError("the engine closed its output")
            if text.split(" ", 1)[0] == first_word:
                return arrived

    def close(self) -> None:
        try:
            self.send("quit")
            self.process.wait(3)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def stop_latencies(count: int) -> list[float]:
    rng = random.Random(1)
    delays = []
    with tempfile.TemporaryDirectory(prefix="ponderosa-uci-") as folder:   # learning writes here
        engine = UciProcess(folder)
        try:
            engine.send("uci")
            engine.until("uciok", 10.0)
            engine.send("setoption name OwnBook value false", "isready")
            engine.until("readyok", 5.0)
            for _ in range(count):
                engine.send(f"position fen {MIDGAME}", "go infinite")
                time.sleep(rng.uniform(0.2, 0.8))
                sent = engine.send("stop")
                delays.append(engine.until("bestmove", 5.0) - sent)
        finally:
            engine.close()
    return delays


def multipv_cost(depth: int) -> dict[int, tuple[int, float]]:
    engine = Engine()
    figures = {}
    for lines in (1, 3):
        engine.options.set("MultiPV", lines)
        nodes, seconds = 0, 0.0
        for fen in BENCH_POSITIONS:
            engine.set_position(fen)
            engine.tt.wipe()
            engine.evaluator.clear()
            engine.searcher.core.clear()
            result = engine.think(SearchLimits(depth=depth))
            nodes += result.nodes
            seconds += result.seconds
        figures[lines] = (nodes, seconds)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stops", type=int, default=20)
    parser.add_argument("--depth", type=int, default=8)
    args = parser.parse_args()
    delays = stop_latencies(args.stops)
    print(f"stop -> bestmove over {len(delays)} stops: median {statistics.median(delays) * 1000:.1f} ms, "
          f"max {max(delays) * 1000:.1f} ms")
    figures = multipv_cost(args.depth)
    (n1, s1), (n3, s3) = figures[1], figures[3]
    print(f"depth {args.depth}, {len(BENCH_POSITIONS)} bench positions: MultiPV 1 {n1} nodes {s1:.2f} s; "
          f"MultiPV 3 {n3} nodes {s3:.2f} s; ratio {n3 / n1:.2f}x nodes, {s3 / s1:.2f}x time")


if __name__ == "__main__":
    main()
