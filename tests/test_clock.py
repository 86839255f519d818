"""Time controls and time allocation: the parsers, a table of budgets, invariants over a grid of
clocks, and whole games played at the hard limit without losing on time."""
from __future__ import annotations

import dataclasses
import itertools

import pytest

from ponderosa.engine.clock import (
    COST_RESERVE_MOVES,
    MIN_BUDGET,
    MOVE_OVERHEAD,
    ClockSetting,
    TimeBudget,
    TimeControl,
    allocate,
    moves_played_for,
    parse_clock,
    parse_crafty_time,
    parse_level,
    parse_settc,
    parse_st,
)

# The rules every budget must obey, stated here independently of the module's own constants.
LATENCY_FLOOR = 0.05      # the hard limit leaves at least 50 ms on the clock...
LATENCY_SHARE = 0.05      # ...or 5% of it (up to a second) for GUI and process latency
MAX_HARD_RATIO = 4.0      # hard is at most 4x soft
TINY = 0.05               # "move at once": a budget of at most a few tens of milliseconds


def clock_cap(own: float, operator: float = 0.0) -> float:
    """The most the hard limit may be with `own` seconds left (a minimum budget is always allowed)."""
    margin = max(LATENCY_FLOOR, min(1.0, LATENCY_SHARE * own))
    return max(MIN_BUDGET, own - margin - operator)


def check_invariants(budget: TimeBudget, own: float | None, operator: float = 0.0, fixed_time: bool = False) -> None:
    """soft <= hard <= 4x soft, both at least the minimum; with a clock, hard leaves the latency
    margin (and the operator's time) on it and, under a level, takes at most half of it."""
    soft, hard = budget.soft_seconds, budget.hard_seconds
    assert 0 < MIN_BUDGET <= soft <= hard, budget
    assert hard <= MAX_HARD_RATIO * soft + 1e-12, budget
    if own is not None:
        clock = max(0.0, own)
        assert hard <= clock_cap(clock, operator) + 1e-9, (budget, own)
        if not fixed_time:
            assert hard <= max(MIN_BUDGET, clock / 2) + 1e-9, (budget, own)


# ----------------------------------------------------------------------------- the interface

def test_defaults_and_frozen_records() -> None:
    control = TimeControl()
    assert (control.moves_per_session, control.base_seconds, control.increment_seconds) == (0, 300.0, 0.0)
    assert control.seconds_per_move is None and control.secondary is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        control.base_seconds = 10.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        TimeBudget(1.0, 2.0).hard_seconds = 3.0  # type: ignore[misc]


@pytest.mark.parametrize("kwargs,message", [
    pytest.param({"moves_per_session": -1}, "moves per session", id="negative-mps"),
    pytest.param({"moves_per_session": 2.5}, "whole number", id="fractional-mps"),
    pytest.param({"base_seconds": -1.0}, "base time", id="negative-base"),
    pytest.param({"base_seconds": float("nan")}, "base time", id="nan-base"),
    pytest.param({"increment_seconds": -0.1}, "increment", id="negative-increment"),
    pytest.param({"increment_seconds": float("inf")}, "increment", id="infinite-increment"),
    pytest.param({"seconds_per_move": -1.0}, "time per move", id="negative-st"),
    pytest.param({"secondary": TimeControl(40, 60.0)}, "sudden-death", id="secondary-after-sudden-death"),
    pytest.param({"moves_per_session": 40, "secondary": TimeControl(seconds_per_move=5.0)}, "secondary",
                 id="st-as-secondary"),
])
def test_time_control_rejects_nonsense(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TimeControl(**kwargs)


# ----------------------------------------------------------------------------- parsers

@pytest.mark.parametrize("args,mps,base,inc", [
    pytest.param("40 5 0", 40, 300.0, 0.0, id="conventional"),
    pytest.param("0 2 12", 0, 120.0, 12.0, id="incremental"),
    pytest.param("0 5 0", 0, 300.0, 0.0, id="sudden-death"),
    pytest.param("40 0:30 0", 40, 30.0, 0.0, id="min-sec"),
    pytest.param("0 1:30 5", 0, 90.0, 5.0, id="min-sec-2"),
    pytest.param("0 0:23 2.0", 0, 23.0, 2.0, id="python-chess-float-increment"),
    pytest.param("0 1 0.1", 0, 60.0, 0.1, id="cutechess-fraction"),
    pytest.param("0 1 0.5", 0, 60.0, 0.5, id="xboard-%g-fraction"),
    pytest.param("0 0.5 0", 0, 30.0, 0.0, id="fractional-minutes"),
    pytest.param("0 25+5 0", 0, 1500.0, 0.0, id="trailing-junk-in-base"),
    pytest.param("40 5: 0", 40, 300.0, 0.0, id="dangling-colon"),
    pytest.param("  40\t5  0 ", 40, 300.0, 0.0, id="extra-blanks"),
    pytest.param("0 0 2", 0, 0.0, 2.0, id="ics-zero-base"),
])
def test_parse_level(args: str, mps: int, base: float, inc: float) -> None:
    control = parse_level(args)
    assert control == TimeControl(moves_per_session=mps, base_seconds=base, increment_seconds=inc)
    assert not control.is_fixed_time


@pytest.mark.parametrize("args,message", [
    pytest.param("", "three fields", id="empty"),
    pytest.param("40 5", "three fields", id="two-fields"),
    pytest.param("40 5 0 1", "three fields", id="four-fields"),
    pytest.param("x 5 0", "moves per session", id="mps-word"),
    pytest.param("-1 5 0", "moves per session", id="mps-negative"),
    pytest.param("40.5 5 0", "moves per session", id="mps-fraction"),
    pytest.param("40 x 0", "base time", id="base-word"),
    pytest.param("40 -5 0", "base time", id="base-negative"),
    pytest.param("40 :30 0", "base time", id="base-no-minutes"),
    pytest.param("40 5 x", "increment", id="increment-word"),
    pytest.param("40 5 -1", "increment", id="increment-negative"),
    pytest.param("40 5 nan", "increment", id="increment-nan"),
    pytest.param("40 5 inf", "increment", id="increment-inf"),
])
def test_parse_level_rejects_bad_input(args: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_level(args)


@pytest.mark.parametrize("text,seconds", [
    pytest.param("5", 5.0, id="integer"),
    pytest.param("1.5", 1.5, id="python-chess-float"),
    pytest.param("0.01", 0.01, id="python-chess-minimum"),
    pytest.param("0", 0.0, id="cutechess-sub-second"),
    pytest.param("86400", 86400.0, id="cutechess-infinite"),
    pytest.param("1:30", 90.0, id="crafty-mm-ss"),
    pytest.param("0:05.5", 5.5, id="mm-ss-fraction"),
    pytest.param(" 2 ", 2.0, id="blanks"),
])
def test_parse_st(text: str, seconds: float) -> None:
    control = parse_st(text)
    assert control.seconds_per_move == seconds
    assert control.is_fixed_time


@pytest.mark.parametrize("text", [
    pytest.param("", id="empty"),
    pytest.param("-1", id="negative"),
    pytest.param("abc", id="word"),
    pytest.param("1.5s", id="unit"),
    pytest.param("nan", id="nan"),
    pytest.param("1:", id="half-mm-ss"),
    pytest.param("1 2", id="two-numbers"),
])
def test_parse_st_rejects_bad_input(text: str) -> None:
    with pytest.raises(ValueError, match="st: time must be seconds"):
        parse_st(text)


G15 = TimeControl(0, 900.0)
SD_AFTER_60 = TimeControl(0, 1800.0, 0.0)


@pytest.mark.parametrize("text,expected", [
    pytest.param("sd/15", G15, id="game-in-15"),
    pytest.param("SD/15;", G15, id="upper-case-and-semicolon"),
    pytest.param("sd 15", G15, id="blank-separated"),
    pytest.param("sd/2/12", TimeControl(0, 120.0, 12.0), id="ics-2-12"),
    pytest.param("60/30", TimeControl(60, 1800.0), id="60-moves-in-30"),
    pytest.param("60/30/5", TimeControl(60, 1800.0, 5.0), id="60-in-30-plus-5"),
    pytest.param("40/120/20/60", TimeControl(40, 7200.0, secondary=TimeControl(20, 3600.0)), id="two-controls"),
    pytest.param("40/120/20/60/5", TimeControl(40, 7200.0, 5.0, secondary=TimeControl(20, 3600.0, 5.0)),
                 id="two-controls-plus-increment"),
    pytest.param("60/30/sd/30", TimeControl(60, 1800.0, secondary=SD_AFTER_60), id="then-sudden-death"),
    pytest.param("60/30/sd/30/5", TimeControl(60, 1800.0, 5.0, secondary=TimeControl(0, 1800.0, 5.0)),
                 id="then-sudden-death-plus-5"),
    pytest.param("40/2.5", TimeControl(40, 150.0), id="fractional-minutes"),
])
def test_parse_crafty_time(text: str, expected: TimeControl) -> None:
    assert parse_crafty_time(text) == expected


@pytest.mark.parametrize("text,message", [
    pytest.param("", "no time control", id="empty"),
    pytest.param("cpu", "kind of clock", id="cpu"),
    pytest.param("elapsed", "kind of clock", id="elapsed"),
    pytest.param("60", "expected nmoves/ntime", id="one-field"),
    pytest.param("40/120/20/60/5/1", "expected nmoves/ntime", id="six-fields"),
    pytest.param("60/30/sd", "second control needs its time", id="secondary-without-time"),
    pytest.param("sd/15/sd/30", "never ends", id="control-after-sudden-death"),
    pytest.param("0/30", "at least 1", id="zero-moves"),
    pytest.param("x/30", "nmoves", id="moves-word"),
    pytest.param("60/x", "minutes", id="time-word"),
    pytest.param("60/-30", "minutes", id="time-negative"),
    pytest.param("60/30/x", "increment", id="increment-word"),
])
def test_parse_crafty_time_rejects_bad_input(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_crafty_time(text)


@pytest.mark.parametrize("text,expected", [
    pytest.param("25", ClockSetting(1500.0), id="own-only"),
    pytest.param("25 31.5", ClockSetting(1500.0, 1890.0), id="both"),
    pytest.param("1:30 0:45", ClockSetting(5400.0, 2700.0), id="hh-mm"),
])
def test_parse_clock(text: str, expected: ClockSetting) -> None:
    assert parse_clock(text) == expected


@pytest.mark.parametrize("text", ["", "x", "1 2 3", "-5"])
def test_parse_clock_rejects_bad_input(text: str) -> None:
    with pytest.raises(ValueError, match="clock"):
        parse_clock(text)


def test_parse_settc_and_resuming_the_session() -> None:
    setting = parse_settc("12 25 1:01")
    assert setting == ClockSetting(own_seconds=1500.0, opponent_seconds=3660.0, moves_to_go=12)
    control = parse_crafty_time("40/120")
    played = moves_played_for(control, 12)
    assert control.session(played) == (control, 12)
    assert moves_played_for(parse_crafty_time("sd/60"), 12) == 0
    with pytest.raises(ValueError, match="between 1 and 40"):
        moves_played_for(control, 41)


@pytest.mark.parametrize("text,message", [
    pytest.param("12 25", "MOVES CTIME OTIME", id="two-fields"),
    pytest.param("x 25 31", "moves to the next control", id="moves-word"),
    pytest.param("12 x 31", "settc: time", id="time-word"),
])
def test_parse_settc_rejects_bad_input(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_settc(text)


# ----------------------------------------------------------------------------- sessions

@pytest.mark.parametrize("control,moves_played,session_moves,moves_to_go", [
    pytest.param(TimeControl(40, 300.0), 0, 40, 40, id="conventional-start"),
    pytest.param(TimeControl(40, 300.0), 20, 40, 20, id="conventional-middle"),
    pytest.param(TimeControl(40, 300.0), 39, 40, 1, id="conventional-last-move"),
    pytest.param(TimeControl(40, 300.0), 40, 40, 40, id="conventional-repeats"),
    pytest.param(TimeControl(0, 300.0), 75, 0, None, id="sudden-death"),
    pytest.param(parse_crafty_time("60/30/sd/30"), 59, 60, 1, id="before-secondary"),
    pytest.param(parse_crafty_time("60/30/sd/30"), 60, 0, None, id="secondary-sudden-death"),
    pytest.param(parse_crafty_time("40/120/20/60"), 45, 20, 15, id="secondary-conventional"),
    pytest.param(parse_crafty_time("40/120/20/60"), 60, 20, 20, id="secondary-repeats"),
])
def test_session_and_moves_to_go(control: TimeControl, moves_played: int, session_moves: int,
                                 moves_to_go: int | None) -> None:
    session, to_go = control.session(moves_played)
    assert session.moves_per_session == session_moves
    assert to_go == moves_to_go


# ----------------------------------------------------------------------------- the table

LEVEL_40_5 = parse_level("40 5 0")
SD_5 = parse_level("0 5 0")


@pytest.mark.parametrize("control,own,opp,played,options,soft_range,hard_range", [
    # Sudden death: some 30-40 moves assumed to go, hard 3-5x soft.
    pytest.param(SD_5, 300.0, 300.0, 0, {}, (300 / 40 - 0.5, 300 / 30), (20.0, 300 / 30 * 5),
                 id="sudden-death-5min-start"),
    pytest.param(SD_5, 30.0, 30.0, 60, {}, (30 / 50, 30 / 30), (1.5, 5.0), id="sudden-death-30s-left"),
    pytest.param(SD_5, None, None, 0, {}, (6.5, 10.0), (20.0, 50.0), id="sudden-death-no-clock-sent"),
    # Conventional: the remaining time divided by the moves to go, less a reserve.
    pytest.param(LEVEL_40_5, 300.0, 300.0, 0, {}, (6.5, 7.5), (20.0, 37.5), id="40-in-5-start"),
    pytest.param(LEVEL_40_5, 150.0, 150.0, 20, {}, (6.5, 7.5), (20.0, 37.5), id="40-in-5-middle"),
    pytest.param(LEVEL_40_5, 10.0, 10.0, 39, {}, (3.0, 5.0), (3.0, 5.0), id="40-in-5-last-move-of-session"),
    pytest.param(LEVEL_40_5, 301.0, 10.0, 40, {}, (6.5, 7.5), (20.0, 37.5), id="40-in-5-second-session"),
    pytest.param(LEVEL_40_5, None, None, 20, {}, (3.0, 7.5), (10.0, 37.5), id="40-in-5-no-clock-sent"),
    # Increments: most of the increment is spent on every move, and the clock over some 20 moves.
    pytest.param(parse_level("0 2 12"), 120.0, 120.0, 0, {}, (0.8 * 12 + 120 / 25, 12 + 120 / 15), (30.0, 60.0),
                 id="incremental-2-12"),
    pytest.param(parse_level("0 0:10 0.1"), 10.0, 10.0, 0, {}, (0.4, 0.6), (1.2, 1.8), id="incremental-10s-0.1"),
    # Tiny clocks.
    pytest.param(parse_level("0 1 0"), 0.0, 60.0, 10, {}, (MIN_BUDGET, TINY), (MIN_BUDGET, TINY), id="time-0"),
    pytest.param(parse_level("0 1 0"), 0.10, 60.0, 10, {}, (MIN_BUDGET, TINY), (MIN_BUDGET, TINY), id="time-10"),
    pytest.param(parse_level("0 1 0.1"), 0.10, 60.0, 10, {}, (MIN_BUDGET, 0.05), (MIN_BUDGET, 0.05),
                 id="time-10-increment-0.1"),
    pytest.param(parse_level("0 1 0.1"), 0.0, 60.0, 10, {}, (MIN_BUDGET, TINY), (MIN_BUDGET, TINY),
                 id="time-0-increment-0.1"),
    pytest.param(parse_level("0 60 0"), 1.5, 300.0, 0, {}, (MIN_BUDGET, 0.1), (MIN_BUDGET, 0.75), id="time-150"),
    # Fixed time per move: soft == hard == st less a margin, never zero.
    pytest.param(parse_st("0"), None, None, 0, {}, (MIN_BUDGET, TINY), (MIN_BUDGET, TINY), id="st-0"),
    pytest.param(parse_st("0.01"), None, None, 0, {}, (0.005, 0.01), (0.005, 0.01), id="st-0.01"),
    pytest.param(parse_st("1.5"), None, None, 0, {}, (1.4, 1.499), (1.4, 1.499), id="st-1.5"),
    pytest.param(parse_st("1"), 3600.0, 3600.0, 0, {}, (0.9, 0.999), (0.9, 0.999), id="st-1-ignores-level-clock"),
    pytest.param(parse_st("5"), 2.0, 2.0, 0, {}, (1.0, 1.95), (1.0, 1.95), id="st-5-but-2s-on-clock"),
    # `level` forms clients send.
    pytest.param(parse_level("40 0:30 0"), 30.0, 30.0, 0, {}, (0.5, 0.75), (1.5, 3.0), id="level-40-0:30-0"),
    pytest.param(parse_level("0 0:23 2.0"), 23.0, 136.55, 0, {}, (2.0, 3.0), (4.0, 11.5),
                 id="level-0-0:23-2.0"),
    pytest.param(parse_level("0 1 0.1"), 60.0, 60.0, 0, {}, (2.5, 3.5), (7.5, 10.5), id="level-0-1-0.1"),
    pytest.param(parse_level("0 0.5 0"), 30.0, 30.0, 0, {}, (0.5, 0.75), (1.5, 2.5), id="level-0-0.5-0"),
    # Crafty's usage, operator; pondering.
    pytest.param(SD_5, 300.0, 300.0, 0, {"usage_percent": 50}, (11.0, 11.3), (20.0, 25.0), id="usage+50"),
    pytest.param(SD_5, 300.0, 300.0, 0, {"usage_percent": -50}, (3.6, 3.8), (10.0, 15.0), id="usage-50"),
    pytest.param(SD_5, 300.0, 300.0, 0, {"usage_percent": 500}, (11.0, 11.3), (20.0, 25.0), id="usage-clamped"),
    pytest.param(SD_5, 300.0, 300.0, 0, {"operator_seconds": 5.0}, (2.0, 2.6), (6.0, 8.0), id="operator-5"),
    pytest.param(parse_crafty_time("40/120"), 7200.0, 7200.0, 0, {"operator_seconds": 5.0}, (170.0, 175.0),
                 (600.0, 720.0), id="operator-5-tournament"),
    pytest.param(SD_5, 300.0, 300.0, 0, {"pondering": True}, (8.5, 10.0), (20.0, 25.0), id="pondering-on"),
    pytest.param(SD_5, 300.0, 300.0, 0, {"pondering": False}, (7.0, 7.6), (20.0, 25.0), id="pondering-off"),
    # The clock beats the nominal control, whichever way.
    pytest.param(parse_level("0 60 0"), 2.0, 3600.0, 0, {}, (MIN_BUDGET, 0.1), (MIN_BUDGET, 0.5),
                 id="clock-lower-than-control"),
    pytest.param(LEVEL_40_5, 20.0, 300.0, 0, {}, (0.3, 0.5), (1.0, 2.0), id="clock-lower-than-control-40-moves"),
    pytest.param(parse_level("0 1 0"), 600.0, 600.0, 0, {}, (13.0, 15.0), (39.0, 45.0),
                 id="clock-higher-than-control"),
    pytest.param(LEVEL_40_5, 600.0, 600.0, 0, {}, (13.0, 15.0), (52.0, 60.0), id="clock-higher-than-control-40-moves"),
    # Crafty's secondary controls.
    pytest.param(parse_crafty_time("60/30/sd/30/5"), 100.0, 100.0, 59, {}, (45.0, 50.0), (45.0, 50.0),
                 id="last-move-before-sudden-death"),
    pytest.param(parse_crafty_time("60/30/sd/30/5"), 1900.0, 1900.0, 60, {}, (90.0, 105.0), (270.0, 315.0),
                 id="first-move-of-sudden-death"),
])
def test_budget_table(control: TimeControl, own: float | None, opp: float | None, played: int, options: dict,
                      soft_range: tuple[float, float], hard_range: tuple[float, float]) -> None:
    budget = allocate(control, own, opp, played, **options)
    check_invariants(budget, own, options.get("operator_seconds", 0.0), control.is_fixed_time)
    assert soft_range[0] <= budget.soft_seconds <= soft_range[1], budget
    assert hard_range[0] <= budget.hard_seconds <= hard_range[1], budget
    if control.is_fixed_time:
        assert budget.soft_seconds == budget.hard_seconds


def test_increment_with_a_tiny_clock_never_overdraws() -> None:
    """`time 10` with a 0.1 s increment: the move ends before the clock does."""
    control = parse_level("0 0:10 0.1")
    for own in (0.0, 0.01, 0.05, 0.1, 0.15, 0.3):
        budget = allocate(control, own, 10.0, 50)
        assert budget.hard_seconds < own + control.increment_seconds
        assert own == 0.0 or budget.hard_seconds <= max(MIN_BUDGET, own - LATENCY_FLOOR) + 1e-12


# ----------------------------------------------------------------------------- relative effects

def _soft(control: TimeControl = SD_5, own: float = 300.0, opp: float | None = 300.0, played: int = 0,
          **options: object) -> float:
    return allocate(control, own, opp, played, **options).soft_seconds  # type: ignore[arg-type]


@pytest.mark.parametrize("usage,factor", [(50, 1.5), (-50, 0.5), (25, 1.25), (-10, 0.9), (80, 1.5), (-90, 0.5)])
def test_usage_scales_the_soft_limit(usage: int, factor: float) -> None:
    assert _soft(usage_percent=usage) == pytest.approx(factor * _soft())


def test_usage_never_raises_the_hard_limit() -> None:
    plain = allocate(SD_5, 300.0, 300.0, 0)
    more = allocate(SD_5, 300.0, 300.0, 0, usage_percent=50)
    less = allocate(SD_5, 300.0, 300.0, 0, usage_percent=-50)
    assert more.hard_seconds == plain.hard_seconds
    assert less.hard_seconds == pytest.approx(plain.hard_seconds / 2)


def test_pondering_spends_a_little_more() -> None:
    for control, own in ((SD_5, 300.0), (LEVEL_40_5, 200.0), (parse_level("0 2 12"), 100.0)):
        on, off = _soft(control, own, pondering=True), _soft(control, own, pondering=False)
        assert 1.1 * off <= on <= 1.3 * off
        assert allocate(control, own, own, 0, pondering=True).hard_seconds == \
            allocate(control, own, own, 0).hard_seconds


def test_operator_time_is_held_back_for_every_move_to_go() -> None:
    # 40 moves in 120 minutes, 5 s per move for the operator: 200 s fewer to share out.
    control = parse_crafty_time("40/120")
    plain, held = _soft(control, 7200.0), _soft(control, 7200.0, operator_seconds=5.0)
    assert plain - held == pytest.approx(5.0, abs=0.01)
    for own in (1.0, 5.0, 30.0):
        budget = allocate(control, own, own, 30, operator_seconds=5.0)
        check_invariants(budget, own, 5.0)


def test_behind_on_the_clock_plays_faster() -> None:
    assert _soft(own=100.0, opp=300.0) < _soft(own=100.0, opp=100.0)
    assert _soft(own=100.0, opp=None) == _soft(own=100.0, opp=100.0) == _soft(own=100.0, opp=50.0)


def test_the_clock_wins_over_the_nominal_control() -> None:
    nominal = _soft(parse_level("0 60 0"), 3600.0)
    assert _soft(parse_level("0 60 0"), 2.0, opp=3600.0) < 0.05 * nominal
    assert _soft(parse_level("0 1 0"), 600.0) > 5 * _soft(parse_level("0 1 0"), 60.0)


def test_a_conventional_session_does_not_dump_saved_time_on_one_move() -> None:
    # 200 s left for the last move of a 40/5 session: at most 3x the session's 7.5 s average.
    budget = allocate(LEVEL_40_5, 200.0, 200.0, 39)
    assert budget.soft_seconds <= 3 * 7.5 + 1e-9
    assert budget.hard_seconds <= 100.0


def test_rejects_negative_moves_or_operator_time() -> None:
    with pytest.raises(ValueError, match="moves played"):
        allocate(SD_5, 300.0, 300.0, -1)
    with pytest.raises(ValueError, match="operator time"):
        allocate(SD_5, 300.0, 300.0, 0, operator_seconds=-1.0)


# ----------------------------------------------------------------------------- properties

CLOCKS = [-1.0, 0.0, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 1.5, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0, 86400.0]
MOVES_PLAYED = [0, 1, 19, 38, 39, 40, 41, 79, 150]


@pytest.mark.parametrize("mps", [0, 1, 2, 40])
@pytest.mark.parametrize("increment", [0.0, 0.01, 0.1, 0.5, 2.0, 12.0])
def test_invariants_over_a_grid(mps: int, increment: float) -> None:
    """Every clock, every point of the game, every option: the rules hold."""
    for base in (10.0, 300.0):
        control = TimeControl(moves_per_session=mps, base_seconds=base, increment_seconds=increment)
        options = itertools.product(MOVES_PLAYED, (-50, 0, 50), (0.0, 5.0), (False, True))
        for played, usage, operator, pondering in options:
            for own in [*CLOCKS, None]:
                for opp in (None, 0.0, own, 10 * (own or 1.0)):
                    budget = allocate(control, own, opp, played, usage_percent=usage,
                                      operator_seconds=operator, pondering=pondering)
                    check_invariants(budget, own, operator)


@pytest.mark.parametrize("control", [SD_5, LEVEL_40_5, parse_level("0 0:10 0.1"), parse_level("0 2 12"),
                                     parse_crafty_time("60/30/sd/30/5")], ids=str)
def test_more_clock_never_means_less_time(control: TimeControl) -> None:
    for played in MOVES_PLAYED:
        budgets = [allocate(control, own, 300.0, played) for own in sorted(c for c in CLOCKS if c >= 0)]
        for earlier, later in zip(budgets, budgets[1:]):
            assert later.soft_seconds >= earlier.soft_seconds - 1e-12
            assert later.hard_seconds >= earlier.hard_seconds - 1e-12


@pytest.mark.parametrize("seconds", [0.0, 0.001, 0.01, 0.05, 0.1, 0.5, 1.0, 1.5, 10.0, 86400.0])
def test_fixed_time_invariants(seconds: float) -> None:
    for own in (None, *CLOCKS):
        budget = allocate(TimeControl(seconds_per_move=seconds), own, None, 7)
        check_invariants(budget, own, fixed_time=True)
        assert budget.soft_seconds == budget.hard_seconds
        assert budget.hard_seconds <= max(MIN_BUDGET, seconds)


# ----------------------------------------------------------------------------- whole games

def play_at_the_hard_limit(control: TimeControl, overhead: float, moves: int = 120, **options: object) -> float:
    """Every move uses its whole hard budget plus `overhead`; return the lowest clock seen."""
    clock = control.session(0)[0].base_seconds
    lowest = clock
    for played in range(moves):
        budget = allocate(control, clock, clock, played, **options)  # type: ignore[arg-type]
        check_invariants(budget, clock)
        clock -= budget.hard_seconds + overhead
        assert clock >= 0, f"lost on time at own move {played + 1} (budget {budget})"
        lowest = min(lowest, clock)
        session, moves_to_go = control.session(played)
        clock += session.increment_seconds
        if moves_to_go == 1:
            clock += control.session(played + 1)[0].base_seconds
    return lowest


@pytest.mark.parametrize("pondering", [False, True], ids=["ponder-off", "ponder-on"])
@pytest.mark.parametrize("control,overhead", [
    pytest.param(parse_level("0 0:10 0.1"), 0.02, id="10s+0.1s"),
    pytest.param(parse_level("0 0:05 0.05"), 0.02, id="5s+0.05s"),
    pytest.param(parse_level("0 10 0.1"), 0.02, id="10min+0.1s"),
    pytest.param(parse_level("0 1 0.01"), 0.02, id="1min+0.01s"),
    # 1 s + 0.01 s: a 20 ms overhead exceeds the increment, and 120 moves would lose 1.2 s with no
    # thinking at all; with 5 ms the engine must survive on its minimum budget.
    pytest.param(parse_level("0 0:01 0.01"), 0.005, id="1s+0.01s-5ms-overhead"),
    pytest.param(parse_level("40 5 0"), 0.02, id="40-moves-in-5min"),
    pytest.param(parse_level("40 0:30 0"), 0.02, id="40-moves-in-30s"),
    pytest.param(parse_level("0 1 0"), 0.02, id="sudden-death-1min"),
    pytest.param(parse_level("0 0:30 0"), 0.02, id="sudden-death-30s"),
    pytest.param(parse_level("0 2 12"), 0.02, id="2min+12s"),
    pytest.param(parse_crafty_time("60/30/sd/30/5"), 0.02, id="crafty-60/30/sd/30/5"),
    pytest.param(parse_crafty_time("40/120/20/60"), 0.02, id="crafty-40/120/20/60"),
])
def test_a_game_at_the_hard_limit_never_loses_on_time(control: TimeControl, overhead: float,
                                                      pondering: bool) -> None:
    assert play_at_the_hard_limit(control, overhead, pondering=pondering) >= 0


def test_the_game_simulation_can_lose() -> None:
    """The simulation is not vacuous: an overhead larger than the latency allowance loses."""
    with pytest.raises(AssertionError, match="lost on time"):
        play_at_the_hard_limit(parse_level("0 0:10 0"), overhead=0.2)


def clock_after_typical_play(control: TimeControl, moves: int, share: float = 0.75) -> float:
    """The clock after `moves` own moves that each use `share` of the soft budget (a search
    stops between iterations, so it mostly ends somewhat before its soft limit)."""
    clock = control.base_seconds
    for played in range(moves):
        clock -= share * allocate(control, clock, clock, played).soft_seconds
        clock += control.increment_seconds
    return clock


def test_an_incremental_game_spends_most_of_its_clock() -> None:
    """At 10+0.1 the first 20 moves get more than half of the clock, and after 60 moves
    less than two fifths is left, yet the increment keeps a reserve (docs/TIME.md)."""
    control = parse_level("0 0:10 0.1")
    assert control.base_seconds + 20 * 0.1 - clock_after_typical_play(control, 20) > 5.0
    assert 0.5 < clock_after_typical_play(control, 60) < 10.0 * 2 / 5


def test_sudden_death_keeps_its_forty_move_horizon() -> None:
    """A fortieth of the clock less the safety margin and the overhead held back for 80 moves."""
    control = parse_level("0 1 0")
    assert COST_RESERVE_MOVES == 80
    assert allocate(control, 60.0, 60.0, 0).soft_seconds == \
        pytest.approx((60.0 - 1.0 - COST_RESERVE_MOVES * MOVE_OVERHEAD) / 40)
