"""Perft 1-4 of all 960 Chess960 start positions, counted by python-chess alone: the independent
table that tests/test_chess960_core.py holds the core's Chess960 move generation to.

Usage:

    python -m tools.generate.chess960_perft [--output tests/data/chess960_start_perft.txt] [--depth 4] [--workers 2]

Writes one line per start position, in the numbering of python-chess's
`chess.Board.from_chess960_pos(n)` (518 is the standard start position):

    n shredder-fen perft1 perft2 ... perftD

after a few `#` comment lines saying what the file is and the command that made it. The Shredder-FEN
names the castling rooks by file (HAha for rooks on a and h); python-chess's X-FEN of every start
position is plain KQkq. The last ply is counted in bulk (the legal moves of each position one ply
short of the depth are counted, not made). Ponderosa is not imported: the counts are python-chess's.
The file is written atomically once every position is counted.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

import chess

from tools import ROOT as REPO

DEFAULT_OUTPUT = REPO / "tests" / "data" / "chess960_start_perft.txt"
POSITIONS = 960


def perft(board: chess.Board, depth: int) -> int:
    """Leaf count at depth (>= 1), the last ply counted without making its moves."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def start_position_counts(task: tuple[int, int]) -> tuple[int, str, list[int]]:
    """(n, Shredder-FEN, [perft 1, ..., perft depth]) of start position n."""
    number, depth = task
    board = chess.Board.from_chess960_pos(number)
    assert board.chess960
    return number, board.shredder_fen(), [perft(board, d) for d in range(1, depth + 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.depth < 1:
        parser.error("--depth must be at least 1")

    started = time.monotonic()
    rows: dict[int, tuple[str, list[int]]] = {}
    tasks = [(number, args.depth) for number in range(POSITIONS)]
    with multiprocessing.Pool(args.workers) as pool:
        for number, fen, counts in pool.imap_unordered(start_position_counts, tasks, chunksize=4):
            rows[number] = (fen, counts)
            if len(rows) % 96 == 0:
                print(f"{len(rows)}/{POSITIONS} positions, {time.monotonic() - started:.0f} s", file=sys.stderr)

    command = "python -m tools.generate.chess960_perft"
    if args.depth != 4:
        command += f" --depth {args.depth}"
    lines = [
        f"# Perft 1-{args.depth} of the 960 Chess960 start positions, counted by python-chess {chess.__version__}",
        "# (the independent oracle of tests/test_chess960_core.py; Ponderosa's core is not used to make it).",
        "# n = chess.Board.from_chess960_pos(n) (518 is the standard start); the FEN is its Shredder-FEN.",
        f"# Made with: {command}",
        "# n shredder-fen " + " ".join(f"perft{d}" for d in range(1, args.depth + 1)),
    ]
    for number in range(POSITIONS):
        fen, counts = rows[number]
        lines.append(f"{number} {fen} " + " ".join(str(count) for count in counts))
    text = "\n".join(lines) + "\n"

    args.output.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=args.output.parent, prefix=args.output.name + ".")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.chmod(temporary, 0o644)   # mkstemp makes it owner-only
        os.replace(temporary, args.output)
    except BaseException:
        os.unlink(temporary)
        raise
    print(f"wrote {args.output} ({POSITIONS} positions, {time.monotonic() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
