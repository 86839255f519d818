"""Start-up and speed of engine programs side by side, as a match runner sees them: from starting the
process to `uciok`, and to the `bestmove` of `go depth 1` after `isready` and `position startpos`;
alone and two started at once (fastchess starts both engines of a game together); then the
`bench` node count and speed. Every program is started with a bare environment
(`env -i PATH=/usr/bin:/bin`) in an empty folder; starts alternate between the programs, so a drift
in the machine's load hits all alike. Medians and ranges; ratios against the first program.

    python -m tools.bench.binary --engine pip=/tmp/venv/bin/ponderosa --engine file=./ponderosa --runs 9 --benches 3
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

BARE_ENVIRONMENT = {"PATH": "/usr/bin:/bin"}
FIRST_MOVE = b"isready\nposition startpos\ngo depth 1\n"
BENCH_LINE = re.compile(r"(\d+) nodes (\d+) nps")
COLUMNS = ["uciok", "bestmove", "cpu", "pair uciok", "pair bestmove"]


def time_to_move(command: list[str], folder: str, timeout: float = 60.0) -> tuple[float, float, float]:
    """Seconds from the start of the process to its `uciok`, and to its first `bestmove`; and the
    processor time (user and system, its waited-for children included) of the whole run, which a
    busy machine stretches less than the wall-clock times."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               cwd=folder, env=BARE_ENVIRONMENT, bufsize=0)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"uci\n")
        buffer, uciok = b"", 0.0
        while time.perf_counter() - started < timeout:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError(f"{command[0]} ended before bestmove")
            buffer += chunk
            if not uciok and b"uciok" in buffer:
                uciok = time.perf_counter() - started
                process.stdin.write(FIRST_MOVE)
            if uciok and b"bestmove" in buffer.split(b"uciok", 1)[1]:
                moved = time.perf_counter() - started
                process.stdin.write(b"quit\n")
                process.stdin.close()
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = os.waitstatus_to_exitcode(status)
                return uciok, moved, usage.ru_utime + usage.ru_stime
        raise RuntimeError(f"{command[0]}: no bestmove within {timeout} s")
    finally:
        if process.returncode is None:
            process.kill()
            process.wait()


def pair_to_move(command: list[str], folder: str) -> tuple[float, float, float]:
    """Two copies started at once: the later one's uciok and bestmove, the larger processor time."""
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: time_to_move(command, folder), range(2))
    return max(first[0], second[0]), max(first[1], second[1]), max(first[2], second[2])


def bench(command: list[str], folder: str) -> tuple[int, int]:
    """`PROGRAM bench`: its node count and speed, read from its last `N nodes N nps` line."""
    done = subprocess.run([*command, "bench"], cwd=folder, env=BARE_ENVIRONMENT, capture_output=True, text=True,
                          timeout=600, check=True)
    nodes, speed = BENCH_LINE.findall(done.stdout)[-1]
    return int(nodes), int(speed)


def spread(values: list[float], scale: float = 1000.0) -> str:
    return f"{statistics.median(values) * scale:7.0f} ({min(values) * scale:.0f}-{max(values) * scale:.0f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", required=True, metavar="NAME=PROGRAM",
                        help="a program to start (the first is the reference for the ratios)")
    parser.add_argument("--runs", type=int, default=9, help="starts of each program, alone and in pairs")
    parser.add_argument("--benches", type=int, default=3, help="bench runs of each program (0: none)")
    arguments = parser.parse_args()
    engines = {name: [os.path.abspath(program)] for name, _, program in
               (entry.partition("=") for entry in arguments.engine)}
    alone: dict[str, list[tuple[float, float, float]]] = {name: [] for name in engines}
    paired: dict[str, list[tuple[float, float, float]]] = {name: [] for name in engines}
    benches: dict[str, list[tuple[int, int]]] = {name: [] for name in engines}
    with tempfile.TemporaryDirectory(prefix="bench-binary-") as folder:
        for command in engines.values():   # a first start fills caches (disk, an extraction folder)
            time_to_move(command, folder)
        for _ in range(arguments.runs):
            for name, command in engines.items():
                alone[name].append(time_to_move(command, folder))
                paired[name].append(pair_to_move(command, folder))
        for _ in range(arguments.benches):
            for name, command in engines.items():
                benches[name].append(bench(command, folder))
    reference = next(iter(engines))
    print("milliseconds, median (range); x: ratio of medians to the first program")
    print(f"{'program':12s}" + "".join(f"{title:>25s}" for title in COLUMNS))

    def columns(name: str) -> list[list[float]]:
        return [[run[0] for run in alone[name]], [run[1] for run in alone[name]], [run[2] for run in alone[name]],
                [run[0] for run in paired[name]], [run[1] for run in paired[name]]]

    for name in engines if arguments.runs else ():
        cells = [f"{spread(values)} {statistics.median(values) / statistics.median(base):4.2f}x"
                 for values, base in zip(columns(name), columns(reference))]
        print(f"{name:12s}" + "".join(f"{cell:>25s}" for cell in cells))
    if arguments.benches:
        base_speed = statistics.median(speed for _, speed in benches[reference])
        for name in engines:
            counts = {nodes for nodes, _ in benches[name]}
            speed = statistics.median(speed for _, speed in benches[name])
            print(f"{name:14s} bench nodes {sorted(counts)} nps median {speed:.0f} "
                  f"(range {min(s for _, s in benches[name])}-{max(s for _, s in benches[name])}) "
                  f"{speed / base_speed:4.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
