"""Time to depth of N threads against 1, measured from outside through UCI as a GUI sees it.

Usage:  python -m tools.bench.smp_uci [--engine "ponderosa --uci"] [--depth 16] [--threads 2]
                                      [--rounds 2] [--fens FILE]

For each round and thread count a fresh engine process gets `setoption Threads`, `OwnBook false`,
then for each position `ucinewgame`, `position fen`, `isready` and `go depth D`; the time from
`go` to `bestmove` is the position's time to depth (the search ends when any thread completes
depth D). The order of the thread counts alternates by round. Prints the sum of the times and
the geometric mean of the per-position ratios. The default positions are four middlegames;
--fens takes a file of FENs, one a line. tools/bench/smp.py measures the same inside one process
on the bench positions, with nodes a second and the search overhead beside it.
"""
from __future__ import annotations

import argparse
import math
import shlex
import subprocess
import time
from pathlib import Path

MIDDLEGAMES = (
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2nppp/2n1p3/3pP3/2pP4/P1P2N2/2P1BPPP/R1BQK2R w KQ - 0 9",
    "r2q1rk1/1b1nbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 0 12",
)


class UciEngine:
    """Just enough of a UCI conversation to time searches (no python-chess: nothing between us and the pipe)."""

    def __init__(self, command: str) -> None:
        self.process = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, first_word: str) -> str:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.split()[:1] == [first_word]:
                return line
        raise RuntimeError(f"the engine ended before sending {first_word!r}")

    def ready(self) -> None:
        self.send("isready")
        self.wait_for("readyok")

    def quit(self) -> None:
        self.send("quit")
        self.process.wait(timeout=30)


def times_to_depth(command: str, threads: int, fens: list[str], depth: int) -> list[float]:
    """Seconds from `go depth` to `bestmove` for each position, in one fresh process."""
    engine = UciEngine(command)
    try:
        engine.send("uci")
        engine.wait_for("uciok")
        engine.send(f"setoption name Threads value {threads}")
        engine.send("setoption name OwnBook value false")
        engine.ready()
        seconds = []
        for fen in fens:
            engine.send("ucinewgame")
            engine.send(f"position fen {fen}")
            engine.ready()
            start = time.monotonic()
            engine.send(f"go depth {depth}")
            engine.wait_for("bestmove")
            seconds.append(time.monotonic() - start)
        return seconds
    finally:
        engine.quit()


def geometric_mean_ratio(single: list[float], multi: list[float]) -> float:
    """The geometric mean of multi / single over the positions both timed (nan for none)."""
    per_position = [m / s for s, m in zip(single, multi) if s > 0 and m > 0]
    return math.exp(sum(map(math.log, per_position)) / len(per_position)) if per_position else math.nan


def ratios(single: list[float], multi: list[float]) -> tuple[float, float]:
    """(sum of multi / sum of single, geometric mean of the per-position ratios)."""
    return sum(multi) / sum(single), geometric_mean_ratio(single, multi)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="ponderosa --uci", help="the engine's command")
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fens", type=Path, help="positions, one FEN a line (default: four middlegames)")
    args = parser.parse_args(argv)
    fens = ([line.strip() for line in args.fens.read_text().splitlines() if line.strip()] if args.fens
            else list(MIDDLEGAMES))
    single: list[float] = [0.0] * len(fens)
    multi: list[float] = [0.0] * len(fens)
    for round_number in range(args.rounds):
        counts = (1, args.threads) if round_number % 2 == 0 else (args.threads, 1)
        measured = {threads: times_to_depth(args.engine, threads, fens, args.depth) for threads in counts}
        total, geometric = ratios(measured[1], measured[args.threads])
        print(f"round {round_number + 1}: {args.threads}T/1T = {total:.3f} (geometric mean {geometric:.3f}); "
              f"1T {sum(measured[1]):.2f} s, {args.threads}T {sum(measured[args.threads]):.2f} s", flush=True)
        single = [a + b for a, b in zip(single, measured[1])]
        multi = [a + b for a, b in zip(multi, measured[args.threads])]
    total, geometric = ratios(single, multi)
    print(f"all {args.rounds} rounds, {len(fens)} positions, depth {args.depth}: time to depth "
          f"{args.threads}T/1T = {total:.3f} (geometric mean per position {geometric:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
