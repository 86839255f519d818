"""What a hash resize costs through the protocols, as a GUI meets it:

- the first search after `setoption name Hash value N` against the tenth, in nodes a second
  (the same position, `ucinewgame` between them), and how long the setoption took to `readyok`;
- `memory N` and `cores C` sent again and again through XBoard (python-chess's habit): the time
  of the repeats after the first, and the lines they printed.

    python -m tools.bench.resize --hash 1024 --memory 4096 --cores 4
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time

import chess
import chess.engine

from tools.engine_process import engine_command, program  # tools/engine_process.py: the installed program

MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"


def first_searches(megabytes: int, searches: int, seconds: float) -> tuple[float, list[float]]:
    """(seconds from setoption to readyok, nodes a second of each search after it)."""
    engine = chess.engine.SimpleEngine.popen_uci([*program(), "--uci"], timeout=120)
    try:
        engine.configure({"OwnBook": False, "Learn": 0})
        started = time.monotonic()
        engine.configure({"Hash": megabytes})
        engine.ping()
        configured = time.monotonic() - started
        rates = []
        for _ in range(searches):
            engine.protocol.send_line("ucinewgame")
            info = engine.analyse(chess.Board(MIDGAME), chess.engine.Limit(time=seconds), game=object())
            rates.append(info.get("nodes", 0) / max(info.get("time", 0.0), 1e-3))
        return configured, rates
    finally:
        engine.quit()


def repeated_settings(memory: int, cores: int, repeats: int) -> tuple[float, float, list[str]]:
    """(seconds of the first memory+cores, seconds of the repeats, lines the repeats printed)."""
    process = subprocess.Popen(engine_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               bufsize=1)
    assert process.stdin is not None and process.stdout is not None

    def exchange(lines: list[str], number: int) -> tuple[float, list[str]]:
        started = time.monotonic()
        process.stdin.write("".join(f"{line}\n" for line in lines) + f"ping {number}\n")
        process.stdin.flush()
        printed = []
        for text in process.stdout:
            if text.strip() == f"pong {number}":
                return time.monotonic() - started, printed
            printed.append(text.rstrip("\n"))
        raise RuntimeError("the engine closed its output")

    try:
        exchange(["xboard", "protover 2"], 1)
        first, _ = exchange([f"memory {memory}", f"cores {cores}"], 2)
        again, printed = exchange([f"memory {memory}", f"cores {cores}"] * repeats, 3)
        return first, again, printed
    finally:
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hash", type=int, default=1024, help="UCI Hash for the first searches (MB)")
    parser.add_argument("--searches", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=0.5, help="each search's time")
    parser.add_argument("--memory", type=int, default=4096, help="XBoard memory sent again and again (MB)")
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    configured, rates = first_searches(args.hash, args.searches, args.seconds)
    print(f"Hash {args.hash}: setoption to readyok {configured:.2f} s; nodes/s first {rates[0]:.0f}, "
          f"last {rates[-1]:.0f}, ratio {rates[0] / max(rates[-1], 1):.3f}; all {[round(rate) for rate in rates]}")
    first, again, printed = repeated_settings(args.memory, args.cores, args.repeats)
    print(f"memory {args.memory} + cores {args.cores}: first {first:.2f} s; {args.repeats} repeats {again:.3f} s, "
          f"{len(printed)} lines printed{': ' + ' | '.join(printed[:4]) if printed else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
