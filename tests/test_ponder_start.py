"""Engine.ponder: the one place where every protocol starts thinking on the opponent's time."""
from __future__ import annotations

import queue

import chess

from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits, SearchResult


def test_ponder_searches_the_position_after_the_expected_reply_and_leaves_the_game_alone() -> None:
    engine = Engine()
    engine.make_move("e2e4")
    results: queue.Queue[SearchResult] = queue.Queue()
    serial = engine.ponder("e7e5", SearchLimits(depth=4), None, lambda _serial, result: results.put(result))
    assert serial is not None
    result = results.get(timeout=30)
    after = chess.Board()
    after.push_uci("e2e4")
    after.push_uci("e7e5")
    assert result.best_move in {move.uci() for move in after.legal_moves}   # White's move, after 1...e5
    assert [move.uci() for move in engine.game.move_stack] == ["e2e4"]      # the reply is not played


def test_nothing_to_ponder_starts_no_search() -> None:
    engine = Engine()
    finished: list[int] = []
    assert engine.ponder(None, SearchLimits(), None, lambda serial, _result: finished.append(serial)) is None
    assert engine.ponder("e7e5", SearchLimits(), None, lambda serial, _result: finished.append(serial)) is None
    engine.set_position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")   # stalemate: the game is over
    assert engine.ponder("h8g8", SearchLimits(), None, lambda serial, _result: finished.append(serial)) is None
    assert not engine.searching and finished == []
