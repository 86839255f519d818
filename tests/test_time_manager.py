"""The time plan of a move between iterations (engine/time_manager.py), on made-up iteration times:
what the search shows scales the clock's soft limit, and no iteration starts that the hard limit
would cut off."""
from __future__ import annotations

from ponderosa.engine.time_manager import STOP_SHARE, WON_FACTOR, WON_SCORE, MoveTimer

MS = 1_000_000


def run(timer: MoveTimer, iterations: list[tuple[str, int, float]], step_ms: float = 1.0,
        growth: float = 2.0) -> int | None:
    """Feed iterations (best move, score, best move's node share), each taking `growth` times the
    one before; the depth after which the timer stopped the search, or None."""
    now, took = timer.start_ns, step_ms * MS
    for depth, (move, score, share) in enumerate(iterations, 1):
        now += int(took)
        took *= growth
        if timer.iteration_done(depth, move, score, share, now):
            return depth
    return None


def timer(soft_ms: float = 1000, hard_ms: float = 4000) -> MoveTimer:
    return MoveTimer(start_ns=0, soft_ns=int(soft_ms * MS), hard_ns=int(hard_ms * MS))


def test_a_settled_move_stops_sooner_than_a_doubtful_one() -> None:
    settled = run(timer(), [("e2e4", 20, 0.9)] * 20)
    doubtful = run(timer(), [("e2e4" if depth % 2 else "d2d4", 20 - 10 * depth, 0.4) for depth in range(20)])
    assert settled is not None and doubtful is not None and settled < doubtful


def test_each_factor_lengthens_the_move_it_should() -> None:
    settled = timer()
    run(settled, [("e2e4", 20, 0.9)] * 8, growth=1.0)
    changed = timer()
    run(changed, [("e2e4", 20, 0.9)] * 7 + [("d2d4", 20, 0.9)], growth=1.0)
    falling = timer()
    run(falling, [("e2e4", 20 - 10 * depth, 0.9) for depth in range(8)], growth=1.0)
    spread = timer()
    run(spread, [("e2e4", 20, 0.3)] * 8, growth=1.0)
    assert settled.factor < min(changed.factor, falling.factor, spread.factor)
    assert settled.factor < 1.0 < spread.factor


def test_a_won_position_is_played_quickly() -> None:
    won = timer()
    run(won, [("d1d8", WON_SCORE + 100, 0.5)] * 4, growth=1.0)
    assert won.factor == WON_FACTOR
    # It stops once an iteration ends past STOP_SHARE of the shortened target.
    stopped = run(timer(soft_ms=1000), [("d1d8", WON_SCORE + 100, 0.5)] * 100, step_ms=10, growth=1.0)
    assert stopped is not None and stopped * 10 >= STOP_SHARE * WON_FACTOR * 1000 > (stopped - 1) * 10


def test_no_iteration_starts_that_the_hard_limit_would_cut_off() -> None:
    # Iterations doubling from 1 ms: the one ending at 1023 ms would need about 1 s more, past the
    # 1.5 s hard limit, though the soft limit (scaled up by a best move changing each time) is far.
    doubtful = [("e2e4" if depth % 2 else "d2d4", 0, 0.2) for depth in range(30)]
    stopped = run(timer(soft_ms=10_000, hard_ms=1500), doubtful)
    assert stopped == 10


def test_without_a_soft_limit_the_search_runs_on() -> None:
    assert run(MoveTimer(start_ns=0, soft_ns=0, hard_ns=0), [("e2e4", 20, 0.9)] * 40, growth=1.0) is None


def test_a_new_budget_replaces_the_old_one() -> None:
    pondering = MoveTimer(start_ns=0, soft_ns=0, hard_ns=0)
    assert run(pondering, [("e2e4", 20, 0.9)] * 10, growth=1.0) is None
    pondering.set_limits(soft_ns=5 * MS, hard_ns=20 * MS)   # a ponder hit
    assert pondering.iteration_done(11, "e2e4", 20, 0.9, 11 * MS)
