"""Cost of one static evaluation over the Win at Chess positions, timed in C without the GIL.

Usage:  python -m tools.bench.evaluate [--repetitions N]
Prints nanoseconds per evaluation computed afresh (bypassing the evaluation cache, which answers
every pass after the first) with a warm pawn table (as in a search, where nearly every probe hits)
and with a one-entry table (every probe misses), then the cost of an evaluation-cache hit and of
the Python-level call.
"""
from __future__ import annotations

import argparse
import time

import chess

from ponderosa.core_ext.core import Board, Evaluator

from tools import ROOT

WAC = ROOT / "tests" / "data" / "suites" / "wac.epd"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=1000)
    args = parser.parse_args()
    boards = [Board(chess.Board.from_epd(line)[0].fen()) for line in WAC.read_text().splitlines() if line.strip()]
    warm = Evaluator()
    print(f"{len(boards)} positions, {args.repetitions} repetitions")
    print(f"pawn table hits:   {warm.benchmark(boards, args.repetitions, cached=False):7.1f} ns/eval")
    print(f"pawn table misses: {Evaluator(0).benchmark(boards, args.repetitions, cached=False):7.1f} ns/eval")
    print(f"eval cache hits:   {warm.benchmark(boards, args.repetitions):7.1f} ns/eval")
    start = time.perf_counter()
    for _ in range(args.repetitions // 10 or 1):
        for board in boards:
            warm.evaluate(board)
    calls = (args.repetitions // 10 or 1) * len(boards)
    print(f"Python call:       {(time.perf_counter() - start) * 1e9 / calls:7.1f} ns/eval (with call overhead)")


if __name__ == "__main__":
    main()
