"""Move Overhead: the time each move costs on the clock besides the search, kept back by the
allocation (engine/clock.py) and offered as an option in UCI and XBoard."""
from __future__ import annotations

import io
import re
import statistics
from pathlib import Path

import chess
import chess.engine
import pytest

from ponderosa.engine.clock import (
    COST_RESERVE_MOVES,
    MIN_BUDGET,
    MOVE_OVERHEAD,
    SD_MOVES_TO_GO,
    TimeControl,
    allocate,
    budget_for_move_time,
    parse_level,
    safety_margin,
)
from ponderosa.engine.engine import Engine
from ponderosa.engine.limits import DEFAULT_MOVE_OVERHEAD_MS, MOVE_OVERHEAD_RANGE_MS
from ponderosa.protocol.uci import UciSession, parse_go
from ponderosa.protocol.uci.go import search_limits
from ponderosa.protocol.xboard.features import feature_lines
from ponderosa.protocol.xboard.session import XBoardSession

from tests.test_clock import play_at_the_hard_limit  # the whole-game simulation, in one place
from tests.uci_harness import UciEngine, program
from tests.wall_clock import allowed

REPO = Path(__file__).resolve().parents[1]
MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"
SUDDEN_DEATH = parse_level("0 1 0")
INCREMENTAL = parse_level("0 0:10 0.1")
# Sudden death holds the overhead back for COST_RESERVE_MOVES and shares the clock over
# SD_MOVES_TO_GO, so each second of overhead takes this much off a move's soft limit.
SUDDEN_DEATH_DROP = COST_RESERVE_MOVES / SD_MOVES_TO_GO


# -- the allocation ------------------------------------------------------------------------------

def test_the_default_is_the_limits_module_one() -> None:
    assert MOVE_OVERHEAD == DEFAULT_MOVE_OVERHEAD_MS / 1000
    assert allocate(SUDDEN_DEATH, 60.0, 60.0, 0) == allocate(SUDDEN_DEATH, 60.0, 60.0, 0, move_overhead=MOVE_OVERHEAD)


@pytest.mark.parametrize("overhead", [0.01, 0.03, 0.05])
def test_the_soft_limit_drops_by_the_overhead(overhead: float) -> None:
    """Sudden death holds it back for 80 moves and shares the clock over the 40 assumed to go,
    so this move's share is twice the overhead less; an increment that pays for it gives it up
    on this move, the overhead less."""
    for control, clock, drop in ((SUDDEN_DEATH, 60.0, SUDDEN_DEATH_DROP * overhead),
                                 (INCREMENTAL, 8.0, overhead)):
        plain = allocate(control, clock, clock, 10, move_overhead=0.0).soft_seconds
        held = allocate(control, clock, clock, 10, move_overhead=overhead).soft_seconds
        assert plain - held == pytest.approx(drop), control


def test_the_hard_limit_leaves_the_overhead_on_the_clock() -> None:
    """Near the flag the hard limit is the clock less the safety margin and the overhead."""
    clock = 0.08
    for overhead in (0.0, 0.005, 0.02):
        budget = allocate(parse_level("40 5 0"), clock, clock, 39, move_overhead=overhead)   # last move of the session
        assert budget.hard_seconds == pytest.approx(clock - safety_margin(clock) - overhead)


def test_more_overhead_never_means_more_time() -> None:
    controls = (SUDDEN_DEATH, INCREMENTAL, parse_level("40 5 0"), parse_level("0 2 12"))
    for control in controls:
        for clock in (0.05, 0.5, 2.0, 10.0, 60.0, 300.0):
            budgets = [allocate(control, clock, clock, 20, move_overhead=milliseconds / 1000)
                       for milliseconds in (0, 10, 50, 200, 1000, 5000)]
            for less, more in zip(budgets, budgets[1:]):
                assert more.soft_seconds <= less.soft_seconds + 1e-12
                assert more.hard_seconds <= less.hard_seconds + 1e-12
                assert more.hard_seconds >= MIN_BUDGET


def test_a_larger_overhead_saves_a_slow_game() -> None:
    """1 min + 0.1 s, every move to its hard limit and 200 ms beyond: lost with the default
    allowance and with 150 ms (below the latency), kept for 120 moves with a Move Overhead of
    200 ms (the part the increment does not pay is held back for 80 moves) and 300 ms."""
    control = parse_level("0 1 0.1")
    for allowance in (MOVE_OVERHEAD, 0.15):
        with pytest.raises(AssertionError, match="lost on time"):
            play_at_the_hard_limit(control, overhead=0.2, move_overhead=allowance)
    assert play_at_the_hard_limit(control, overhead=0.2, move_overhead=0.2) >= 0
    assert play_at_the_hard_limit(control, overhead=0.2, move_overhead=0.3) >= 0


def test_a_fixed_time_gives_up_the_overhead_but_at_most_a_tenth() -> None:
    assert budget_for_move_time(1.0, 0.03).hard_seconds == pytest.approx(0.97)
    assert budget_for_move_time(1.0, 0.5).hard_seconds == pytest.approx(0.9)
    assert budget_for_move_time(1.0, 0.0).hard_seconds == pytest.approx(1.0)
    assert allocate(TimeControl(seconds_per_move=2.0), None, None, 0, move_overhead=0.1).hard_seconds == \
        pytest.approx(1.9)


def test_a_negative_overhead_is_refused() -> None:
    with pytest.raises(ValueError, match="move overhead"):
        allocate(SUDDEN_DEATH, 60.0, 60.0, 0, move_overhead=-0.01)


# -- UCI -----------------------------------------------------------------------------------------

def test_uci_declares_and_sets_the_option() -> None:
    out = io.StringIO()
    session = UciSession(Engine(), out)
    session.handle("uci")
    low, high = MOVE_OVERHEAD_RANGE_MS
    assert f"option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD_MS} min {low} max {high}" \
        in out.getvalue().splitlines()
    assert (low, high) == (0, 5000)
    session.handle("setoption name Move Overhead value 300")
    assert session.move_overhead == pytest.approx(0.3)
    session.handle("setoption name move overhead value 99999")   # names are case-insensitive; clamped
    assert session.move_overhead == pytest.approx(5.0)
    assert "99999 is outside 0..5000, 5000 used" in out.getvalue()


def test_uci_limits_follow_the_option() -> None:
    go = parse_go("wtime 60000 btime 60000")
    plain = search_limits(go, "think", True, False, 0.0)
    held = search_limits(go, "think", True, False, 0.5)
    assert plain.soft_seconds is not None and held.soft_seconds is not None
    assert plain.soft_seconds - held.soft_seconds == pytest.approx(SUDDEN_DEATH_DROP * 0.5)
    timed = search_limits(parse_go("movetime 2000"), "think", True, False, 0.1)
    assert timed.hard_seconds == pytest.approx(1.9)


def test_uci_answers_faster_with_a_large_overhead() -> None:
    """go wtime 60000: with no overhead the search runs past 60% of its 1.5 s soft limit; with
    5 s held back for each of 40 moves there is nothing to spend, and the move comes at once."""
    engine = UciEngine()
    try:
        engine.send("setoption name OwnBook value false", f"position fen {MIDGAME}")
        engine.sync()
        took: dict[int, list[float]] = {0: [], 5000: []}
        for overhead in (5000, 0, 5000, 0, 5000):
            engine.send(f"setoption name Move Overhead value {overhead}")
            engine.sync()
            sent = engine.send("go wtime 60000 btime 60000")
            _, lines = engine.until(r"^bestmove \S+", allowed(5.0))
            took[overhead].append(lines[-1].at - sent)
        assert min(took[0]) > 0.8, took
        assert statistics.median(took[5000]) < allowed(0.1), took
    finally:
        engine.close()


# -- XBoard --------------------------------------------------------------------------------------

def test_xboard_declares_and_sets_the_option() -> None:
    low, high = MOVE_OVERHEAD_RANGE_MS
    assert f'feature option="MoveOverhead -spin {DEFAULT_MOVE_OVERHEAD_MS} {low} {high}"' in feature_lines()
    out = io.StringIO()
    session = XBoardSession(Engine(), out)
    for line in ("xboard", "protover 2", "level 0 1 0", "time 6000", "otim 6000"):
        session.handle(line)
    assert session.clock.move_overhead == MOVE_OVERHEAD
    soft_default, _ = session.clock.budget(False, 0.0)
    session.handle("option MoveOverhead=0")
    soft_none, _ = session.clock.budget(False, 0.0)
    session.handle("option MoveOverhead=500")
    assert session.clock.move_overhead == pytest.approx(0.5)
    soft_large, _ = session.clock.budget(False, 0.0)
    assert soft_none - soft_large == pytest.approx(SUDDEN_DEATH_DROP * 0.5)   # sudden death
    assert soft_none - soft_default == pytest.approx(SUDDEN_DEATH_DROP * MOVE_OVERHEAD)
    session.handle("option MoveOverhead=9000")    # out of range: the nearest allowed value
    assert session.clock.move_overhead == pytest.approx(5.0)
    session.handle("option Move Overhead=250")    # UCI's name, typed by hand
    assert session.clock.move_overhead == pytest.approx(0.25)
    session.handle("new")                         # a new game keeps the setting
    assert session.clock.move_overhead == pytest.approx(0.25)
    assert "Error" not in out.getvalue()


def test_the_default_is_documented_with_its_measurement() -> None:
    text = (REPO / "docs" / "TIME.md").read_text()
    assert "## Move Overhead" in text
    assert re.search(rf"\bdefault\s+{DEFAULT_MOVE_OVERHEAD_MS} ms\b", text), "docs/TIME.md names another default"
    assert "min 0 max 5000" in text and f"default {DEFAULT_MOVE_OVERHEAD_MS} min" in text


def test_python_chess_sees_and_sets_it_in_both_protocols() -> None:
    """lichess-bot's engine layer: `uci_options: {Move Overhead: N}` and `xboard_options: {MoveOverhead: N}`."""
    command = program()
    uci = chess.engine.SimpleEngine.popen_uci([*command, "--uci"], timeout=allowed(10.0))
    try:
        option = uci.options["Move Overhead"]
        assert (option.type, option.default, option.min, option.max) == ("spin", DEFAULT_MOVE_OVERHEAD_MS, 0, 5000)
        uci.configure({"Move Overhead": 5000, "OwnBook": False})
        played = uci.play(chess.Board(MIDGAME), chess.engine.Limit(white_clock=60, black_clock=60))
        assert played.move is not None
    finally:
        uci.quit()
    xboard = chess.engine.SimpleEngine.popen_xboard([*command, "--xboard"], timeout=allowed(10.0))
    try:
        option = xboard.options["MoveOverhead"]
        assert (option.type, option.default, option.min, option.max) == ("spin", DEFAULT_MOVE_OVERHEAD_MS, 0, 5000)
        xboard.configure({"MoveOverhead": 300})
    finally:
        xboard.quit()
