"""How long an engine thinks over each of a set of positions on a given clock.

Each position is searched once, in a new game, with both clocks at --clock seconds and the
increment --inc (FICS's `2 12` is `--clock 120 --inc 12`); the script prints the move, score,
depth and wall time of each, and their median. It measures the clock's rules (a won position
taking little time, a forced move none), not strength.

    python -m tools.match.move_times "ponderosa --xboard" POSITIONS.epd --clock 120 --inc 12 [--json]

POSITIONS: one FEN or EPD a line; a line starting with `#` is a comment, and words after a FEN's
six fields are left out.
"""
from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.engine

from tools.match.openings import position_fen, read_openings


def read_positions(path: Path) -> list[chess.Board]:
    """The positions of a FEN/EPD file, read as the match scripts read their openings."""
    try:
        lines = read_openings(path)
    except ValueError as error:   # no positions at all
        sys.exit(str(error))
    boards = []
    for number, text in lines:
        try:
            boards.append(chess.Board(position_fen(text)))
        except ValueError as error:
            sys.exit(f"{path}:{number}: not a position: {error}")
    return boards


def open_engine(command: str) -> chess.engine.SimpleEngine:
    argv = shlex.split(command)
    if "--uci" in argv:
        return chess.engine.SimpleEngine.popen_uci(argv)
    return chess.engine.SimpleEngine.popen_xboard(argv)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", help="the engine's command; UCI when it has --uci, XBoard otherwise")
    parser.add_argument("positions", type=Path)
    parser.add_argument("--clock", type=float, default=120.0, help="each side's clock in seconds")
    parser.add_argument("--inc", type=float, default=12.0, help="increment in seconds")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args(argv)
    boards = read_positions(args.positions)
    limit = chess.engine.Limit(white_clock=args.clock, black_clock=args.clock,
                               white_inc=args.inc, black_inc=args.inc)
    rows = []
    engine = open_engine(args.engine)
    try:
        if "OwnBook" in engine.options:
            engine.configure({"OwnBook": False})
        for board in boards:
            started = time.monotonic()
            played = engine.play(board, limit, info=chess.engine.INFO_SCORE | chess.engine.INFO_BASIC,
                                 game=object())
            seconds = time.monotonic() - started
            score = played.info.get("score")
            rows.append({"fen": board.fen(), "move": played.move.uci() if played.move else None,
                         "score": str(score.relative) if score is not None else None,
                         "depth": played.info.get("depth"), "seconds": round(seconds, 3)})
    finally:
        engine.quit()
    median = statistics.median(row["seconds"] for row in rows) if rows else 0.0
    if args.json:
        print(json.dumps({"clock": args.clock, "inc": args.inc, "median_seconds": round(median, 3),
                          "max_seconds": max((row["seconds"] for row in rows), default=0.0), "moves": rows}))
    else:
        for row in rows:
            print(f"{row['seconds']:7.2f} s  depth {row['depth']!s:>3}  {row['score']!s:>8}  "
                  f"{row['move']}  {row['fen']}")
        print(f"median {median:.2f} s over {len(rows)} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
