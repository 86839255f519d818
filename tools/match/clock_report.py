"""How each side of a match or SPRT used its clock, read back from the games' PGN.

The match and SPRT scripts write every move's time into its comment (`{ +0.31/14 0.758s }`) and
the control into the TimeControl tag (`10+0.1`); the clock of each side is rebuilt from those the
way the scripts keep it: the move's time off, then the increment on. A clock below zero is a
time loss, and so is a game the scripts ended with Termination "time forfeit" (such a move is
not in the PGN). Illegal moves, crashes and engine errors are read from a game that ended with
Termination "rules infraction".

Sides: in an SPRT's PGN (Event "Ponderosa SPRT") the candidate has White in the first game of
each pair (Round "N.1") and Black in the second; elsewhere a side is a player's name.

    python -m tools.match.clock_report games.pgn [more.pgn.xz ...] [--json]
"""
from __future__ import annotations

import argparse
import io
import json
import lzma
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from tools.match.games import FAULT_WORDS
from tools.match.gauntlet import parse_tc  # the scripts' --tc, written as TimeControl
from tools.match.sprt import candidate_side

MOVE_TIME = re.compile(r"(?:^|\s)(\d+(?:\.\d+)?)s(?:\s|$)")
EARLY_MOVES = 30   # a side's first moves out of the opening, where the clock is spent most freely
# The figure each fault counts in, by the match scripts' words for it in the game's last comment;
# any other infraction (a null move, a false claim) is an engine error.
FAULTS = {FAULT_WORDS["illegal"]: "illegal_moves", FAULT_WORDS["crash"]: "crashes", FAULT_WORDS["error"]: "errors"}


@dataclass
class SideClock:
    """One side's clock over the games it played."""

    games: int = 0
    moves: int = 0
    seconds: float = 0.0
    time_losses: int = 0
    lowest: list[float] = field(default_factory=list)    # each game's lowest clock (s)
    at_end: list[float] = field(default_factory=list)    # each game's clock after its last move
    early_seconds: float = 0.0
    early_moves: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS.values(), 0))

    def summary(self) -> dict[str, float | int | None]:
        return {
            "games": self.games,
            "time_losses": self.time_losses,
            **self.faults,
            "move_ms": round(1000 * self.seconds / self.moves, 1) if self.moves else None,
            "first30_s_per_move": round(self.early_seconds / self.early_moves, 3) if self.early_moves else None,
            "min_clock_s": round(min(self.lowest), 3) if self.lowest else None,
            "median_lowest_clock_s": round(statistics.median(self.lowest), 3) if self.lowest else None,
            "clock_left_s": round(statistics.fmean(self.at_end), 2) if self.at_end else None,
        }


def move_seconds(comment: str) -> float | None:
    match = MOVE_TIME.search(comment)
    return float(match.group(1)) if match else None


def side_names(game: chess.pgn.Game) -> tuple[str, str]:
    """(White's side, Black's side)."""
    headers = game.headers
    if "SPRT" in headers.get("Event", ""):
        _, candidate_white = candidate_side(headers.get("Round", ""))
        return ("candidate", "base") if candidate_white else ("base", "candidate")
    return headers.get("White", "?"), headers.get("Black", "?")


def loser(game: chess.pgn.Game, termination: str) -> bool | None:
    """The colour that lost a game ended by termination (True: White), None for any other game."""
    if game.headers.get("Termination") != termination:
        return None
    return {"0-1": True, "1-0": False}.get(game.headers.get("Result", ""))


def infraction(game: chess.pgn.Game) -> tuple[bool, str] | None:
    """(the colour at fault, True: White; the kind) of a game lost by a rules infraction."""
    colour = loser(game, "rules infraction")
    if colour is None:
        return None
    words = game.end().comment
    return colour, next((name for phrase, name in FAULTS.items() if phrase in words), "errors")


def add_game(game: chess.pgn.Game, sides: dict[str, SideClock]) -> None:
    base, increment = parse_tc(game.headers.get("TimeControl", ""))
    names = side_names(game)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    lowest = {chess.WHITE: base, chess.BLACK: base}
    counted = {chess.WHITE: 0, chess.BLACK: 0}
    below_zero = {chess.WHITE: False, chess.BLACK: False}
    records = {chess.WHITE: sides.setdefault(names[0], SideClock()),
               chess.BLACK: sides.setdefault(names[1], SideClock())}
    board = game.board()
    for node in game.mainline():
        colour = board.turn
        board.push(node.move)
        seconds = move_seconds(node.comment)
        if seconds is None:
            continue
        record = records[colour]
        clocks[colour] -= seconds
        lowest[colour] = min(lowest[colour], clocks[colour])
        below_zero[colour] |= clocks[colour] < 0
        clocks[colour] += increment
        record.moves += 1
        record.seconds += seconds
        if counted[colour] < EARLY_MOVES:
            counted[colour] += 1
            record.early_moves += 1
            record.early_seconds += seconds
    forfeit = loser(game, "time forfeit")   # the losing move is not in the PGN
    fault = infraction(game)
    for colour in (chess.WHITE, chess.BLACK):
        record = records[colour]
        record.games += 1
        record.time_losses += below_zero[colour] or forfeit == colour
        if fault is not None and fault[0] == colour:
            record.faults[fault[1]] += 1
        record.lowest.append(lowest[colour])
        record.at_end.append(clocks[colour])


def read_games(path: Path) -> io.TextIOBase:
    if path.suffix == ".xz":
        return io.TextIOWrapper(lzma.open(path), encoding="utf-8")
    return path.open(encoding="utf-8")


def report(paths: list[Path]) -> dict[str, dict[str, float | int | None]]:
    sides: dict[str, SideClock] = {}
    for path in paths:
        with read_games(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                add_game(game, sides)
    return {name: side.summary() for name, side in sorted(sides.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", type=Path, help="PGN files of a match or SPRT (.xz too)")
    parser.add_argument("--json", action="store_true", help="one JSON object by side")
    args = parser.parse_args(argv)
    try:
        table = report(args.pgn)
    except (OSError, lzma.LZMAError, ValueError) as error:
        print(f"clock_report: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(table, indent=1))
        return 0
    for name, row in table.items():
        print(f"{name}: " + ", ".join(f"{key} {value}" for key, value in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
