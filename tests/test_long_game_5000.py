"""A game of 5,000 plies, as a bot that keeps one process for weeks may meet (a shuffling game
without the fifty-move claim): given by `force` moves through XBoard it must neither raise nor
slow down, and the engine must still answer with a legal move at its end.

The moves are in tests/data/games/long_game_5000.txt; `python -m tools.generate.long_game` makes that file
again (python-chess, a fixed seed): quiet piece moves that avoid repeating a position, and a pawn
move or a capture before the fifty-move count gets near 75 moves, never a check, never a move that
ends the game."""
from __future__ import annotations

import time

import chess
import pytest

from tests.conftest import data_file
from tests.wall_clock import READINGS, allowed
from tests.xboard_harness import XBoardEngine

PLIES = 5_000
MOVES_FILE = ("games", "long_game_5000.txt")


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
