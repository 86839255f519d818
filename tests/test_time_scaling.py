"""The clock within a move: the soft limit scaled by how settled the search is (engine/time_scaling.py)."""
from __future__ import annotations

import pytest

from ponderosa.core_ext.board import Board
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits, mate_distance
from ponderosa.engine.time_scaling import (
    BASE_SHARE, INSTABILITY_MAX, MIN_SCALED_DEPTH, NODE_FACTOR_MAX, NODE_FACTOR_MIN, NODE_SHARE_CENTRE, SCALE_MAX,
    TREND_MAX, TREND_MIN, WON_FACTOR, WON_HARD_SHARE, WON_MIN_DEPTH, WON_SCORE, IterationClock,
)


def settled(depths: int = 10, score: int = 30, previous: int | None = None, share: float = NODE_SHARE_CENTRE,
            move: str = "e2e4") -> IterationClock:
    """A search whose iterations 1..depths all chose `move` at `score`, each taking twice the last."""
    clock = IterationClock(previous)
    for depth in range(1, depths + 1):
        clock.iteration_done(depth, move, score, share, 0.001 * 2 ** depth, mate=False)
    return clock


def test_a_settled_search_stops_at_the_base_share_of_the_soft_limit() -> None:
    clock = settled(previous=30)
    assert clock.scale() == pytest.approx(1.0)
    assert not clock.should_stop(BASE_SHARE * 1.0 - 0.01, 1.0, None)
    assert clock.should_stop(BASE_SHARE * 1.0, 1.0, None)


def test_no_factor_applies_before_the_scaled_depth() -> None:
    clock = IterationClock(500)
    for depth in range(1, MIN_SCALED_DEPTH):
        clock.iteration_done(depth, "e2e4" if depth % 2 else "d2d4", -500, 0.1, 0.001 * depth, mate=False)
    assert clock.scale() == 1.0


def test_a_changing_best_move_buys_time_that_decays() -> None:
    clock = settled()
    clock.iteration_done(11, "d2d4", 30, NODE_SHARE_CENTRE, 4.0, mate=False)
    assert clock.instability() == pytest.approx(2.0)
    clock.iteration_done(12, "e2e4", 30, NODE_SHARE_CENTRE, 8.0, mate=False)
    assert clock.instability() == pytest.approx(2.5)   # the first change halved, and a second one
    for depth in range(13, 20):
        clock.iteration_done(depth, "e2e4", 30, NODE_SHARE_CENTRE, 8.0 + depth, mate=False)
    assert 1.0 < clock.instability() < 1.05
    flipping = settled()
    for depth in range(11, 30):
        flipping.iteration_done(depth, "d2d4" if depth % 2 else "e2e4", 30, NODE_SHARE_CENTRE, depth, mate=False)
    assert flipping.instability() == INSTABILITY_MAX


def test_a_falling_score_buys_time_and_a_rising_one_gives_some_back() -> None:
    assert settled(score=-50, previous=0).trend() == pytest.approx(1.2)
    assert settled(score=-400, previous=0).trend() == TREND_MAX
    assert settled(score=400, previous=0).trend() == TREND_MIN
    clock = settled(score=0)   # the iteration trend: 3 iterations back
    for depth, score in ((11, -20), (12, -40), (13, -60)):
        clock.iteration_done(depth, "e2e4", score, NODE_SHARE_CENTRE, depth, mate=False)
    assert clock.trend() == pytest.approx(1.24)
    assert settled(score=-50, previous=None, depths=3).trend() == 1.0   # nothing to compare with yet


def test_mate_scores_are_clipped_in_the_trend() -> None:
    clock = settled(score=30, previous=30)
    clock.iteration_done(11, "e2e4", -31990, NODE_SHARE_CENTRE, 4.0, mate=True)
    assert clock.trend() == TREND_MAX


def test_the_best_moves_share_of_the_nodes_scales_the_time() -> None:
    assert settled(share=1.0).node_factor() == pytest.approx(NODE_FACTOR_MIN)
    assert settled(share=0.47).node_factor() == pytest.approx(1.5)
    assert settled(share=0.05).node_factor() == NODE_FACTOR_MAX
    assert settled(share=0.95).scale() < settled().scale() < settled(share=0.6).scale()


def test_the_scale_is_capped() -> None:
    clock = settled(share=0.05, score=-500, previous=0)
    for depth in range(11, 20):
        clock.iteration_done(depth, "d2d4" if depth % 2 else "e2e4", -500, 0.05, depth, mate=False)
    assert clock.scale() == SCALE_MAX


def test_a_won_position_takes_a_quarter() -> None:
    clock = settled(depths=WON_MIN_DEPTH - 1, score=WON_SCORE, previous=WON_SCORE)
    assert not clock.won
    clock.iteration_done(WON_MIN_DEPTH, "e2e4", WON_SCORE, NODE_SHARE_CENTRE, 1.0, mate=False)
    assert clock.won and clock.scale() == pytest.approx(WON_FACTOR)
    mating = IterationClock(None)
    for depth in range(1, WON_MIN_DEPTH + 3):
        mating.iteration_done(depth, "e2e4", 31990, NODE_SHARE_CENTRE, 0.01 * depth, mate=True)
    assert not mating.won   # a mate score: the search ends on its own once the mate is proven


def test_no_iteration_starts_that_the_hard_limit_would_cut_off() -> None:
    clock = IterationClock(None)
    for depth, end in enumerate((0.01, 0.03, 0.07, 0.15, 0.31), start=1):   # each takes twice the last
        clock.iteration_done(depth, "e2e4", 0, NODE_SHARE_CENTRE, end, mate=False)
    assert clock.next_iteration_seconds() == pytest.approx(0.32)
    assert not clock.should_stop(0.31, 10.0, 0.64)
    assert clock.should_stop(0.31, 10.0, 0.62)
    assert not clock.should_stop(0.31, 10.0, None)


def test_the_core_reports_the_best_moves_node_share() -> None:
    engine = Engine()
    engine.new_game()
    engine.think(SearchLimits(depth=8))
    share = engine.searcher.core.best_move_node_share()
    assert 0.0 < share < 1.0
    engine.set_position("7k/8/8/8/8/8/6q1/K7 w - - 0 1")   # one legal move
    engine.think(SearchLimits(depth=4))
    assert engine.searcher.core.best_move_node_share() == 1.0


def test_a_won_position_cuts_the_hard_limit_and_the_losing_side_keeps_it() -> None:
    engine = Engine()
    engine.new_game()
    engine.set_position("1n2k3/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1")   # a queen and more ahead
    result = engine.think(SearchLimits(soft_seconds=4.0, hard_seconds=12.0))
    assert result.score >= WON_SCORE and mate_distance(result.score) is None
    assert engine.searcher.hard_limit_seconds == pytest.approx(WON_HARD_SHARE * 4.0)
    engine.set_position("1n2k3/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b K - 0 1")   # the losing side: no cut
    result = engine.think(SearchLimits(soft_seconds=1.0, hard_seconds=3.0))
    assert result.score <= -WON_SCORE
    assert engine.searcher.hard_limit_seconds == pytest.approx(3.0)


def test_the_previous_moves_score_counts_only_for_the_same_side() -> None:
    engine = Engine()
    engine.new_game()
    board = Board()
    engine.think(SearchLimits(soft_seconds=0.2, hard_seconds=0.6))
    stored = engine.searcher._previous_score
    assert stored is not None and stored[0] is board.white_to_move
    engine.new_game()
    assert engine.searcher._previous_score is None
    engine.think(SearchLimits(depth=3))   # no clock: nothing to carry to the next move
    assert engine.searcher._previous_score is None
