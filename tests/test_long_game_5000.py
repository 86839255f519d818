"""A game of 5,000 plies, as a bot that keeps one process for weeks may meet (a shuffling game
without the fifty-move claim): given by `force` moves through XBoard it must neither raise nor
slow down, and the engine must still answer with a legal move at its end.

The moves are in tests/data/games/long_game_5000.txt; `python tests/test_long_game_5000.py`
makes that file again (python-chess, a fixed seed): quiet piece moves that avoid repeating a
position, and a pawn move or a capture before the fifty-move count gets near 75 moves, never a
check, never a move that ends the game."""
from __future__ import annotations

import collections
import random
import time

import chess
import pytest

from conftest import DATA, data_file
from wall_clock import READINGS, allowed
from xboard_harness import XBoardEngine

PLIES = 5_000
MOVES_FILE = ("games", "long_game_5000.txt")


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


@pytest.mark.parametrize("reading", READINGS)
def test_five_thousand_plies_neither_raise_nor_slow_down(reading: str) -> None:
    moves = data_file(*MOVES_FILE).read_text().split()
    assert len(moves) == PLIES
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    assert not board.is_game_over()
    engine = XBoardEngine()
    engine.init()
    engine.send("new", "force")
    engine.sync(1)
    seconds = []
    for part in range(5):   # a thousand plies at a time, timed to their pong
        started = time.monotonic()
        engine.send(*moves[part * 1000:(part + 1) * 1000])
        lines = engine.sync(part + 2, timeout=allowed(10.0))
        seconds.append(time.monotonic() - started)
        assert not [line.text for line in lines if line.text.startswith(("Illegal", "Error", "tellusererror"))]
    # the last thousand take no longer than the first thousand, with room for a busy machine
    assert seconds[-1] < max(seconds[0], 0.05) * allowed(3.0), seconds
    engine.board = board   # the harness follows only the moves it is given through engine.move
    engine.send("st 0.3", "go")
    assert board.is_legal(chess.Move.from_uci(engine.expect_move(3.0, push=False)))
    engine.close()
    assert engine.crash_report() is None


if __name__ == "__main__":
    (DATA.joinpath(*MOVES_FILE)).write_text(" ".join(make_long_game(PLIES)) + "\n")
