"""Search speed beside other engines' own benchmarks, in the same run: Ponderosa's `bench`,
Crafty's `bench` (one thread) and Ethereal's `bench`, alternating, several runs each; medians
and ranges of nodes per second, and Ponderosa's share of each.

    python -m tools.bench.peers --crafty /path/to/crafty            # 5 rounds
    python -m tools.bench.peers --crafty /path/to/crafty --runs 7 --ponderosa "ponderosa"

Crafty 25.6 is built from its public repository (github.com/MichaelB7/Crafty, folder src) with
one command, everything compiled as the single file crafty.c:

    gcc -O3 -march=native -DUNIX -DCPUS=2 -pthread -w -o crafty crafty.c -lm

Ethereal 12 is Debian's `ethereal-chess`. The benches search different positions to different
depths, so only the speeds compare, not the node counts. Run on an idle machine."""
from __future__ import annotations

import argparse
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.engine_process import engine_command
from tools.match.engines import resolve_command


def ponderosa_nps(command: list[str]) -> tuple[int, int]:
    """(nodes per second, signature) of one `bench`."""
    output = subprocess.run(command + ["bench"], capture_output=True, text=True, check=True, timeout=600).stdout
    match = re.search(r"^(\d+) nodes (\d+) nps", output, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"no `N nodes N nps` line from {command}: {output[-300:]}")
    return int(match.group(2)), int(match.group(1))


def crafty_nps(path: str) -> int:
    """Crafty's `bench` with one search thread (smpmt=1), run in an empty folder (no books)."""
    with tempfile.TemporaryDirectory() as folder:
        output = subprocess.run([path], input="smpmt=1\nbench\nquit\n", capture_output=True, text=True,
                                cwd=folder, timeout=600).stdout
    match = re.search(r"Raw nodes per second:\s*(\d+)", output)
    if match is None:
        raise RuntimeError(f"no `Raw nodes per second` from Crafty: {output[-300:]}")
    return int(match.group(1))


def ethereal_nps(path: str) -> int:
    output = subprocess.run([path, "bench"], capture_output=True, text=True, timeout=600).stdout
    match = re.search(r"^NPS\s*:\s*(\d+)", output, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"no `NPS :` line from Ethereal: {output[-300:]}")
    return int(match.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--crafty", help="a Crafty 25.6 binary (see above); left out when not given")
    parser.add_argument("--ethereal", default=resolve_command(["ethereal-chess"])[0])
    parser.add_argument("--ponderosa", help="the Ponderosa program to run (default: the one installed here)")
    arguments = parser.parse_args()
    ponderosa = shlex.split(arguments.ponderosa) if arguments.ponderosa else engine_command()[:1]
    figures: dict[str, list[int]] = {"ponderosa": []}
    if arguments.crafty:
        figures["crafty"] = []
    if Path(arguments.ethereal).exists():
        figures["ethereal"] = []
    signatures = set()
    for _ in range(arguments.runs):
        nps, signature = ponderosa_nps(ponderosa)
        figures["ponderosa"].append(nps)
        signatures.add(signature)
        if "crafty" in figures:
            figures["crafty"].append(crafty_nps(arguments.crafty))
        if "ethereal" in figures:
            figures["ethereal"].append(ethereal_nps(arguments.ethereal))
    base = statistics.median(figures["ponderosa"])
    print(f"Ponderosa bench signature(s): {sorted(signatures)}")
    for name, values in figures.items():
        median = statistics.median(values)
        share = "" if name == "ponderosa" else f"  Ponderosa at {100 * base / median:.0f}% of it"
        print(f"{name:10s} median {median / 1e6:5.2f} M nodes/s  range {min(values) / 1e6:.2f}-{max(values) / 1e6:.2f}"
              f"  runs {', '.join(f'{v / 1e6:.2f}' for v in values)}{share}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
