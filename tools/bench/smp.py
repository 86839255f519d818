"""Parallel search speed: time to depth and nodes per second, N threads against 1, in one run.

Usage:  nice python -m tools.bench.smp [--depth D] [--threads N] [--rounds R] [--hash MB] [--set NAME=VALUE]
Every bench position is searched to depth D from cleared tables, once with one thread and once
with N, R times over (the order alternates by round, so a change in the machine's load hits both
sides alike). Prints per round and in total: the time to depth of N threads as a fraction of one
thread's (sum of the times, and the geometric mean of the per-position ratios), the ratio of
nodes per second, the ratio of nodes searched to reach the depth (the parallel search's overhead:
time to depth = overhead / nps ratio), and the CPU time the process got per wall second (on a
loaded machine two threads may get much less than two cores: read the ratios with it).
"""
from __future__ import annotations

import argparse
import os

from ponderosa.core_ext.core import set_search_parameter
from ponderosa.engine.bench import BENCH_POSITIONS
from ponderosa.engine.engine import Engine
from ponderosa.engine.limits import MEGABYTE
from ponderosa.engine.search import SearchResult

from tools.bench.smp_uci import geometric_mean_ratio
from tools.match.gauntlet import option_list


class Side:
    """Totals of one thread count."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.nodes = 0
        self.per_position: list[float] = [0.0] * len(BENCH_POSITIONS)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0


def run_bench(engine: Engine, depth: int, side: Side) -> None:
    """One bench at depth with side.threads threads, added to side's totals."""
    def on_position(index: int, fen: str, result: SearchResult) -> None:
        side.per_position[index] += result.seconds

    engine.settings.set_threads(side.threads)
    cpu = sum(os.times()[:2])
    result = engine.bench(depth, on_position, threads=side.threads)
    side.seconds += result.seconds
    side.nodes += result.nodes
    side.cpu_seconds += sum(os.times()[:2]) - cpu


def report(single: Side, multi: Side, label: str) -> None:
    geo = geometric_mean_ratio(single.per_position, multi.per_position)
    print(f"{label}: time to depth {multi.threads}T/1T = {multi.seconds / single.seconds:.3f} "
          f"(geometric mean per position {geo:.3f}); nps {multi.threads}T/1T = {multi.nps / single.nps:.2f} "
          f"({single.nps / 1e3:.0f} vs {multi.nps / 1e3:.0f} knps); nodes to depth "
          f"{multi.nodes / single.nodes:.2f}; CPU per wall second "
          f"{single.cpu_seconds / single.seconds:.2f} vs {multi.cpu_seconds / multi.seconds:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--hash", type=int, default=0, metavar="MB",
                        help="transposition table size (default: the engine's); a deep bench on a small "
                             "table measures its overwriting as much as the threads")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a search parameter for both sides (docs/OPTIONS.md), e.g. SmpBreadcrumb=4")
    args = parser.parse_args(argv)
    for name, value in option_list(parser, "--set", args.set):
        try:
            set_search_parameter(name, value)
        except KeyError:
            parser.error(f"--set {name}={value}: no such search parameter (docs/OPTIONS.md lists them)")
        except (ValueError, TypeError) as error:
            parser.error(f"--set {name}={value}: {error}")
    engine = Engine()
    if args.hash:
        engine.options.set("Hash", args.hash)
    single_total, multi_total = Side(1), Side(args.threads)
    print(f"hash {engine.options.hash_bytes // MEGABYTE} MB; load average at start: {os.getloadavg()}")
    for round_number in range(args.rounds):
        single, multi = Side(1), Side(args.threads)
        order = (single, multi) if round_number % 2 == 0 else (multi, single)
        for side in order:
            run_bench(engine, args.depth, side)
        report(single, multi, f"round {round_number + 1}")
        for total, part in ((single_total, single), (multi_total, multi)):
            total.seconds += part.seconds
            total.cpu_seconds += part.cpu_seconds
            total.nodes += part.nodes
            total.per_position = [a + b for a, b in zip(total.per_position, part.per_position)]
    report(single_total, multi_total, f"all {args.rounds} rounds, depth {args.depth}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
