"""Start-up time: from starting the process to its `pong`, as an XBoard GUI or a bot client sees
it (`xboard`, `protover 2`, then `ping 1` once the features are done), and to the pong after `new`
(the engine ready for a game), for Ponderosa and the peers given, alternating, several starts
each; medians and ranges.

    python -m tools.bench.startup                       # Ponderosa, Fairy-Max (Debian), 5 starts each
    python -m tools.bench.startup --runs 9 --peer crafty=/path/to/crafty --peer fairymax=/usr/games/fairymax

Crafty needs `xboard` before `protover` as any engine does; it answers `ping` only in XBoard
mode. Run it on an idle machine: start-up is mostly disk cache and one core's speed."""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from tools.engine_process import engine_command
from tools.match.engines import resolve_command


def time_to_pong(command: list[str], timeout: float = 10.0) -> tuple[float, float]:
    """Seconds from the process start to its `pong 1` line, and to the `pong 2` that follows
    `new` (the engine loaded and ready for a game)."""
    folder = tempfile.mkdtemp(prefix="startup-")
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               cwd=folder, bufsize=0)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"xboard\nprotover 2\n")
        pinged = False
        ponged: float | None = None
        deadline = started + timeout
        buffer = b""
        while time.perf_counter() < deadline:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError(f"{command[0]} ended before pong")
            buffer += chunk
            if not pinged and (b"done=1" in buffer or b"feature" not in buffer and b"\n" in buffer):
                process.stdin.write(b"ping 1\n")
                pinged = True
            if pinged and b"pong 1" in buffer and ponged is None:
                ponged = time.perf_counter() - started
                process.stdin.write(b"new\nping 2\n")
            if ponged is not None and b"pong 2" in buffer:
                return ponged, time.perf_counter() - started
        raise RuntimeError(f"{command[0]}: no pong within {timeout} s")
    finally:
        try:
            process.stdin.write(b"quit\n")
        except OSError:
            pass
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=COMMAND",
                        help="another engine to start the same way (default: fairymax from Debian)")
    arguments = parser.parse_args()
    engines = {"ponderosa": engine_command()}
    [fairymax] = resolve_command(["fairymax"])
    peers = arguments.peer or ([f"fairymax={fairymax}"] if os.access(fairymax, os.X_OK) else [])
    for peer in peers:
        name, _, command = peer.partition("=")
        engines[name] = command.split()
    pongs: dict[str, list[float]] = {name: [] for name in engines}
    ready: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(arguments.runs):   # alternating, so a drift of the machine's speed hits all alike
        for name, command in engines.items():
            pong, after_new = time_to_pong(command)
            pongs[name].append(pong)
            ready[name].append(after_new)
    print("start to pong (after protover); start to the pong after `new` (the engine loaded)")
    base = statistics.median(pongs["ponderosa"])
    for name in engines:
        median = statistics.median(pongs[name])
        print(f"{name:12s} pong {median * 1000:6.1f} ms ({min(pongs[name]) * 1000:.1f}-{max(pongs[name]) * 1000:.1f})"
              f"  after new {statistics.median(ready[name]) * 1000:6.1f} ms"
              f" ({min(ready[name]) * 1000:.1f}-{max(ready[name]) * 1000:.1f})"
              + ("" if name == "ponderosa" else f"  Ponderosa/{name} {base / median:.2f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
