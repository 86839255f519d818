"""The 5,000-ply shuffling game of tests/test_long_game_5000.py (python-chess, a fixed seed): quiet
piece moves that avoid repeating a position, and a pawn move or a capture before the fifty-move count
gets near 75 moves, never a check, never a move that ends the game.

    python -m tools.generate.long_game [--output tests/data/games/long_game_5000.txt] [--plies 5000] [--seed 1]

Writes the moves in UCI notation on one line.
"""
from __future__ import annotations

import argparse
import collections
import random
from pathlib import Path

import chess

from tools import ROOT

DEFAULT_OUTPUT = ROOT / "tests" / "data" / "games" / "long_game_5000.txt"


def make_long_game(plies: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    board = chess.Board()

    def position() -> str:   # the FEN without its move counters
        return board.fen().rsplit(" ", 2)[0]

    def position_after(move: chess.Move) -> str:
        board.push(move)
        key = position()
        board.pop()
        return key

    seen = collections.Counter([position()])

    def keeps_the_game_going(move: chess.Move) -> bool:
        if board.gives_check(move):
            return False
        board.push(move)
        over = board.is_game_over()
        board.pop()
        return not over

    moves: list[str] = []
    while len(moves) < plies:
        legal = [move for move in board.legal_moves if keeps_the_game_going(move)]
        quiet = [move for move in legal
                 if not board.is_capture(move) and board.piece_type_at(move.from_square) != chess.PAWN]
        if board.halfmove_clock < 120 and quiet:
            rng.shuffle(quiet)
            move = min(quiet, key=lambda move: seen[position_after(move)])
        else:
            pawn = [move for move in legal
                    if board.piece_type_at(move.from_square) == chess.PAWN and not board.is_capture(move)]
            move = rng.choice(pawn or [move for move in legal if board.is_capture(move)] or legal)
        board.push(move)
        seen[position()] += 1
        moves.append(move.uci())
    return moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--plies", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    args.output.write_text(" ".join(make_long_game(args.plies, args.seed)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
