"""A game longer than the core's move history (thousands of plies, only possible when nobody
claims the fifty-move draw) keeps being played, searched and taken back."""
from __future__ import annotations

import itertools

import chess

from ponderosa.core_ext.core import Board
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits

SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]   # knights out and back: the start position again
PLIES = 5000                                  # past the core's 4,096 states


def test_board_plays_past_its_history_and_keeps_the_move_number_and_recent_moves() -> None:
    board = Board()
    reference = chess.Board()
    for uci in itertools.islice(itertools.cycle(SHUFFLE), PLIES):
        board.push_uci(uci)
        reference.push_uci(uci)
    assert board.fen() == reference.fen()          # the fullmove number too, after history was dropped
    for _ in range(20):                            # the recent moves can still be taken back
        assert board.pop() == reference.pop().uci()
    assert board.fen() == reference.fen()


def test_engine_game_past_the_history_still_searches_and_takes_back() -> None:
    engine = Engine()
    for uci in itertools.islice(itertools.cycle(SHUFFLE), PLIES):
        engine.make_move(uci)
    result = engine.think(SearchLimits(depth=4))
    assert result.best_move in engine.legal_moves()
    for _ in range(PLIES):                          # every move back to the start, through the dropped part
        engine.undo()
    assert engine.board.fen() == chess.STARTING_FEN
    assert engine.think(SearchLimits(depth=3)).best_move in engine.legal_moves()
