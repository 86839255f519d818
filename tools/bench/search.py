"""Search speed: Ponderosa's `bench` beside Phalanx on the same positions, in one run.

Usage:  python -m tools.bench.search [--phalanx PATH] [--seconds S]
Ponderosa searches every bench position to the bench depth (as `ponderosa bench` does);
Phalanx (Debian package `phalanx`) searches each position for S seconds in XBoard mode,
and its speed is its nodes over its time, read from its last thinking line per position.
Prints a Markdown table for docs/BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import threading

from ponderosa.engine.bench import BENCH_DEPTH, BENCH_POSITIONS
from ponderosa.engine.engine import Engine


def phalanx_speed(path: str, fens: list[str], seconds: float) -> tuple[int, float]:
    """Total nodes and seconds Phalanx reports over the positions (one process, book and learning off)."""
    process = subprocess.Popen([path, "-l-", "-b-", "-p-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, bufsize=1)
    assert process.stdin is not None and process.stdout is not None
    total_nodes, total_centiseconds = 0, 0

    def send(line: str) -> None:
        process.stdin.write(line + "\n")
        process.stdin.flush()

    send("xboard")
    send("protover 2")
    send("post")
    for fen in fens:
        send("new")
        send("force")
        send(f"setboard {fen}")
        send(f"st {seconds}")
        send("go")
        last = None
        for line in process.stdout:
            words = line.split()
            if len(words) >= 4 and all(w.lstrip("-").isdigit() for w in words[:4]):
                last = words
            if line.startswith("move "):
                break
        if last is not None:
            total_centiseconds += int(last[2])
            total_nodes += int(last[3])
    send("quit")
    timer = threading.Timer(5, process.kill)
    timer.start()
    process.wait()
    timer.cancel()
    return total_nodes, total_centiseconds / 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phalanx", default=shutil.which("phalanx") or "/usr/games/phalanx")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--depth", type=int, default=BENCH_DEPTH)
    args = parser.parse_args()

    ours = Engine().bench(args.depth)
    theirs_nodes, theirs_seconds = phalanx_speed(args.phalanx, BENCH_POSITIONS, args.seconds)
    theirs = theirs_nodes / theirs_seconds
    print("| engine | positions | nodes | seconds | nodes/s | Ponderosa ÷ this |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| Ponderosa `bench` (depth {ours.depth}) | {ours.positions} | {ours.nodes:,} | {ours.seconds:.2f} | "
          f"{ours.nodes_per_second:,.0f} | 1.00× |")
    print(f"| Phalanx XXV ({args.seconds:g} s each) | {len(BENCH_POSITIONS)} | {theirs_nodes:,} | "
          f"{theirs_seconds:.2f} | {theirs:,.0f} | {ours.nodes_per_second / theirs:.2f}× |")


if __name__ == "__main__":
    main()
