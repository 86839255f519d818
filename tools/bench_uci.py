"""UCI figures: the stop bound (stop -> bestmove) and the cost of MultiPV against one line.

Usage:  python tests/bench_uci.py [--stops N] [--depth D]
Stop: `go infinite` on a middlegame for a random 0.2-0.8 s, then `stop`; the time to `bestmove`
is measured in this process (pipe latency included). MultiPV: nodes and time to a fixed depth
over the bench positions with 1 and 3 lines, in the same run."""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from ponderosa.engine.bench import BENCH_POSITIONS  # noqa: E402
from ponderosa.engine.engine import Engine  # noqa: E402
from ponderosa.engine.search import SearchLimits  # noqa: E402

from uci_harness import BESTMOVE, UciEngine  # noqa: E402

MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"


def stop_latencies(count: int) -> list[float]:
    rng = random.Random(1)
    delays = []
    with UciEngine(("--uci",)) as engine:
        engine.send("setoption name OwnBook value false")
        engine.sync()
        for _ in range(count):
            engine.send(f"position fen {MIDGAME}", "go infinite")
            time.sleep(rng.uniform(0.2, 0.8))
            sent = engine.send("stop")
            _, seen = engine.until(BESTMOVE.pattern, 5.0)
            delays.append(seen[-1].at - sent)
    return delays


def multipv_cost(depth: int) -> dict[int, tuple[int, float]]:
    engine = Engine()
    figures = {}
    for lines in (1, 3):
        engine.multi_pv = lines
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
