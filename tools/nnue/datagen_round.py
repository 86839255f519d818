"""A round of NNUE training data, file by file: `selfplay-NNN.pgm.xz` for each NNN in a range,
each 2,000 self-play games made by tools/nnue/datagen.py with the seed 1000 + NNN. Resumable and
shareable: a file already in the folder is skipped, a file is written under a temporary name and
renamed when whole (a stopped run's short file never is), so two machines given different ranges
(or the same range, one after the other) make the same files, merged by name.

    python -m tools.nnue.datagen_round 94 189 --net engine/nnue/ponderosa.nnue   # round four: data/nnue/README.md
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tools import ROOT, tool_command, tool_environment


def file_command(number: int, out: Path, net: Path | None, workers: int) -> list[str]:
    """The command that makes file NNN (the one data/nnue/README.md gives)."""
    command = [*tool_command("tools.nnue.datagen"), str(out), "--packed", "--games", "2000", "--nodes", "5000",
               "--workers", str(workers), "--chunk", "25", "--random-plies", "4", "--seed", str(1000 + number)]
    return command + (["--net", str(net)] if net is not None else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=int, help="the first file number (NNN)")
    parser.add_argument("last", type=int, help="the last file number, included")
    parser.add_argument("--net", type=Path, help="search with this network (omit: the hand-written evaluation)")
    parser.add_argument("--folder", type=Path, default=ROOT / "data" / "nnue")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    # SIGTERM ends the round as Ctrl-C does: subprocess.run then kills the file's run before it
    # writes, and nothing is renamed.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    for number in range(args.first, args.last + 1):
        final = args.folder / f"selfplay-{number:03d}.pgm.xz"
        if final.exists():
            continue   # made before, here or on another machine
        partial = final.with_name(f".partial-{final.name}")
        started = time.monotonic()
        try:
            made = subprocess.run(file_command(number, partial, args.net, args.workers), env=tool_environment())
        except KeyboardInterrupt:
            print(f"{final.name}: stopped, not made", file=sys.stderr)
            return 130
        if made.returncode != 0:
            # The run failed or was stopped on its own (its file holds only the games before
            # the stop): the file is made again from its seed next time.
            print(f"{final.name}: not made (tools.nnue.datagen exited {made.returncode})", file=sys.stderr)
            return 1
        os.replace(partial, final)
        print(f"{final.name}: {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
