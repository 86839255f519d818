"""Opening book build speed and memory, and probe time, on the master game collection.

Usage:  python -m tools.bench.book [--pgn FILE] [--moves M] [--min-games N] [--win-percent W]
                                   [--workers K] [--out FILE] [--probes P]
Builds the book (`book create`), then prints time, games/s, peak memory of this process and of
the largest worker, the book's positions, moves and file size, and the median time of
`entries(key)` over P positions taken evenly from the book.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ponderosa.engine.book.build import create_book
from ponderosa.engine.book.file import OpeningBookFile, unsigned_key

# The master collection is not in the repository: the folder PONDEROSA_DATA names holds it (docs/DATA.md).
DEFAULT_PGN = (Path(os.environ["PONDEROSA_DATA"]) / "games" / "gnuchess_book_1.02.pgn.xz"
               if os.environ.get("PONDEROSA_DATA") else None)


def probe_median_microseconds(path: str, probes: int) -> tuple[float, int]:
    """Median microseconds of entries(key) over `probes` keys spread over the book, and the keys probed."""
    with OpeningBookFile.open(path) as book:
        keys = [unsigned_key(key) for (key,) in book._connection.execute("SELECT DISTINCT key FROM moves")]
        step = max(1, len(keys) // probes)
        chosen = keys[::step][:probes]
        times = []
        for key in chosen:
            start = time.perf_counter_ns()
            found = book.entries(key)
            times.append(time.perf_counter_ns() - start)
            assert found, "every probed key is in the book"
    return statistics.median(times) / 1000.0, len(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pgn", default=None if DEFAULT_PGN is None else str(DEFAULT_PGN),
                        help="games (default: $PONDEROSA_DATA/games/gnuchess_book_1.02.pgn.xz)")
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--min-games", type=int, default=1)
    parser.add_argument("--win-percent", type=float, default=0.0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", default=None, help="keep the book here (default: a temporary file)")
    parser.add_argument("--probes", type=int, default=10_000)
    options = parser.parse_args()
    if options.pgn is None:
        parser.error("give --pgn FILE, or set PONDEROSA_DATA to the folder holding games/gnuchess_book_1.02.pgn.xz")

    with tempfile.TemporaryDirectory() as folder:
        out = options.out or os.path.join(folder, "bench.book")
        start = time.perf_counter()
        report = create_book([options.pgn], out, options.moves, options.min_games, options.win_percent,
                             workers=options.workers)
        seconds = time.perf_counter() - start
        own_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
        worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest worker
        workers = options.workers or os.cpu_count() or 1
        size = os.path.getsize(out)
        probe, probed = probe_median_microseconds(out, options.probes) if options.probes else (0.0, 0)

    print(report.summary())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, workers {workers}")
    print(f"book create M={options.moves} N={options.min_games} WPCT={options.win_percent:g}: "
          f"{seconds:.1f} s, {report.games_read / seconds:,.0f} games/s")
    print(f"peak RSS: main process {own_peak:,.0f} MB, largest worker {worker_peak:,.0f} MB, "
          f"sum of main + {workers} workers at most {own_peak + workers * worker_peak:,.0f} MB")
    print(f"book: {report.positions:,} positions, {report.moves:,} moves, {size / 1e6:.1f} MB "
          f"({size / max(1, report.moves):.1f} bytes per move)")
    if probed:
        print(f"probe: median entries(key) {probe:.1f} µs over {probed:,} positions")


if __name__ == "__main__":
    main()
