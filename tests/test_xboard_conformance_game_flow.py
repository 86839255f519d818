"""The conformance cases of docs/PROTOCOL.md §11.2 (game flow and the state machine) and §11.4
(positions and time control), one test each, run against the installed `ponderosa --xboard` through
tests/xboard_harness.py (tests/xboard_cases.py runs them side by side, and says how clocks are kept
short)."""
from __future__ import annotations

import random
import time

import chess
import pytest

from tests.wall_clock import READINGS, allowed
from tests.xboard_cases import Start, long_think, ponder_setup, register_cases, setboard
from tests.xboard_harness import (
    ERROR,
    F_B1,
    F_MID,
    F_W1,
    ILLEGAL,
    MOVE,
    THINK,
    XBoardEngine,
)

# -- 11.2 Game flow and state machine --------------------------------------------------


def test_T20_new_does_not_move(xb: Start) -> None:
    engine = xb()
    engine.send("new", "level 0 1 0", "time 6000", "otim 6000")
    engine.quiet(2)
    engine.sync(1)


def test_T21_new_plays_black(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 1")
    engine.move("e2e4")
    engine.expect_move(2.5)


def test_T22_go_after_new_plays_white(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 1", "go")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.BLACK


def test_T23_go_plays_side_to_move(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_B1)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "a8b7"


def test_T24_force_never_moves(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("e2e4", "e7e5")
    engine.quiet(2)
    engine.sync(1)


def test_T25_force_then_go_keeps_side(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("e2e4", "e7e5")
    engine.send("st 1", "go")
    engine.expect_move(2.5)
    reply = random.Random(25).choice(list(engine.board.legal_moves)).uci()
    engine.move(reply)
    engine.expect_move(2.5)
    assert engine.board.turn == chess.BLACK


def test_T26_playother(xb: Start) -> None:
    engine = xb()
    if not engine.features.flag("playother"):
        pytest.skip("playother=0 declared")
    engine.send("new", "force")
    engine.move("e2e4")
    engine.send("st 1", "playother")
    engine.quiet(1.5)
    engine.move("e7e5")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.BLACK


def test_T27_obsolete_colour_idioms(xb: Start) -> None:
    """SHOULD unless colors=0. Ponderosa declares colors=0, so no client sends these; it still
    implements them, and this checks that they work."""
    engine = xb()
    engine.send("new", "force")
    engine.move("e2e4")
    engine.send("white", "time 6000", "otim 6000", "black", "st 1", "go")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.WHITE     # the engine moved for Black
    engine.send("new", "force", "white", "st 1", "go")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.BLACK     # the engine moved for White


def test_T28_opponent_info_before_and_after_new(xb: Start) -> None:
    engine = xb()
    engine.send("name A", "rating 1 2", "computer", "new", "name B C", "rating 3 4", "computer", "st 1", "go")
    engine.expect_move(2.5)


def test_T29_undo_in_force_mode(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_W1)
    engine.move("a1b2", "a8a7")
    engine.send("undo", "undo", "st 1", "go")
    assert engine.expect_move(2.5) == "a1b2"


def test_T30_undo_restores_side_to_move(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("e2e4")
    engine.send("undo")
    engine.send(f"{'usermove ' if engine.usermove else ''}e7e5")
    match = engine.expect_line(ILLEGAL, 1.0)
    assert match.group(2) == "e7e5"
    engine.sync(1)


def test_T33_remove_while_playing(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 1")
    engine.move("e2e4")
    engine.expect_move(2.5)
    engine.send("remove")
    engine.quiet(1.5)
    engine.move("d2d4")
    engine.expect_move(2.5)
    assert engine.board.move_stack[0] == chess.Move.from_uci("d2d4")


def test_T34_remove_in_force_mode(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_W1)
    engine.move("a1b2", "a8a7")
    engine.send("remove", "st 1", "go")
    assert engine.expect_move(2.5) == "a1b2"


def test_T35_engine_reuse_across_games(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 1", "go")
    engine.expect_move(2.5)
    for game in range(3):
        engine.send("result 1-0 {White wins}", "force")
        engine.sync(5 + game)
        engine.send("new", "st 1", "go")
        engine.expect_move(2.5)
        assert len(engine.board.move_stack) == 1


def test_T36_ponder_does_not_block_ping_and_easy_stops_it(xb: Start) -> None:
    engine = xb()
    before_move = ponder_setup(engine)
    sent = time.monotonic()
    engine.sync(7, timeout=0.5)
    assert time.monotonic() - sent < allowed(0.5)
    engine.send("easy")
    engine.sync(8, timeout=0.5)
    lines = engine.collect(1.0, keep_thinking=True)
    assert not [line.text for line in lines if MOVE.match(line.text)]
    # SHOULD: `post` was never sent, so no thinking output at all.
    assert not [text for text in before_move + [line.text for line in lines] if text[:1].isdigit()]


def test_T37_new_and_force_stop_pondering(xb: Start) -> None:
    engine = xb()
    ponder_setup(engine)
    engine.send("force")
    engine.quiet(2)
    engine.send("new")
    engine.quiet(1)
    engine.sync(9)


def test_T38_move_now_while_idle(xb: Start) -> None:
    """(`st 1` is sent before 1.e4 so that the reply comes quickly.)"""
    engine = xb()
    engine.send("new", "?")
    for line in engine.collect(1.0):
        assert not MOVE.match(line.text), line.text
        assert not ERROR.match(line.text), f"SHOULD not answer `?` with an error: {line.text}"
    engine.sync(1)
    engine.send("st 1")
    engine.move("e2e4")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.WHITE


@pytest.mark.parametrize("reading", READINGS)
def test_T39_move_now_while_thinking_and_after_the_move(xb: Start, reading: str) -> None:
    engine = xb()
    long_think(engine)
    time.sleep(0.5)
    asked = engine.send("?")
    engine.expect_move(1.0)
    assert engine.last_move_at - asked < allowed(1.0)
    engine.send("?")
    engine.quiet(1.5)
    engine.sync(2)


# -- 11.4 Positions and time control --------------------------------------------------------


def test_T50_setboard_and_go(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_W1)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "a1b2"
    setboard(engine, F_B1)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "a8b7"


def test_T51_cutechess_dummy_move_before_setboard(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("b2b3")
    engine.send(f"setboard {F_B1}")
    engine.sync(1)
    engine.send("time 1000", "otim 1000", "go")
    assert engine.expect_move(2.5) == "a8b7"


def test_T52_level_with_min_sec(xb: Start) -> None:
    engine = xb()
    engine.send("new", "level 40 0:30 0")
    engine.sync(1)
    sent = engine.send("time 3000", "otim 3000", "go")
    engine.expect_move(30)
    assert engine.last_move_at - sent < allowed(3.0)


def test_T53_fractional_increments(xb: Start) -> None:
    """All four `level` forms are accepted. The search then runs under a fractional increment
    on a 30 s clock (`level 0 0:30 0.5`): under the spec's last form, `level 0 2 12`, a move may
    take up to 15 s, too long for this suite."""
    engine = xb()
    engine.send("new", "level 0 1 0.5", "level 0 0:30 2.0", "level 40 1 0.1", "level 0 2 12")
    assert engine.sync(1) == []
    engine.send("level 0 0:30 0.5", "time 3000", "otim 3000", "go")
    engine.expect_move(3.0)


def test_T54_level_resent_every_move(xb: Start) -> None:
    """python-chess re-sends `level 0 0:SS 2.0` before every move; 2 turns instead of 6 (each
    move may take about 2 s with a 2 s increment)."""
    engine = xb("P")
    rng = random.Random(54)
    seconds = 23
    for turn in range(2):
        if turn == 0:
            engine.send("new", "force")
        else:
            engine.send("force")
            engine.move(rng.choice(list(engine.board.legal_moves)).uci())
        sent = engine.send(f"level 0 0:{seconds:02d} 2.0", f"time {seconds * 100}", "otim 13655", "nopost",
                           "easy", "go")
        engine.expect_move(seconds)
        used = engine.last_move_at - sent
        engine.sync(100 + turn)
        seconds = max(1, int(seconds - used + 2.0) - 1)


def test_T55_fractional_minutes(xb: Start) -> None:
    engine = xb()
    engine.send("new", "level 0 0.5 0")
    engine.sync(1, allow=(ERROR,))
    engine.send("time 3000", "otim 3000", "go")
    engine.expect_move(30)


def test_T56_float_st(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 1.5", "go")
    engine.expect_move(3.0)
    engine.send("new", "st 0.01", "go")
    engine.expect_move(1.0)


def test_T57_st_zero_and_st_over_level(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 0", "go")
    engine.expect_move(1.0)
    engine.send("new", "level 40 60 0", "st 1", "time 360000", "otim 360000", "go")
    engine.expect_move(2.5)


def test_T58_clock_beats_nominal_tc(xb: Start) -> None:
    engine = xb()
    engine.send("new", "level 0 60 0", "time 200", "otim 360000", "go")
    engine.expect_move(2.3)


def test_T59_zero_clock(xb: Start) -> None:
    engine = xb()
    engine.send("new", "level 0 1 0", "time 0", "otim 6000", "go")
    engine.expect_move(1.0)


def test_T60_time_is_centiseconds(xb: Start) -> None:
    engine = xb()
    engine.send("new", "level 0 60 0", "time 150", "otim 30000", "go")
    engine.expect_move(1.8)


def test_T61_thinking_time_in_centiseconds(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    start = engine.send("post", "analyze")
    checked = 0
    # On a loaded machine the search may begin a second after `analyze` was sent: the lower bound
    # counts from the first line, less the time that line reports (when the search began).
    began: float | None = None
    for line in engine.collect(3.0):
        match = THINK.match(line.text)
        if not match:
            continue
        wall = (line.at - start) * 100
        reported = int(match.group(3))
        assert reported <= wall + 50, f"TIME {reported} cs printed {wall:.0f} cs after the start (ms?)"
        if began is None:
            began = wall - reported
        searched = wall - began
        if searched >= 100:
            assert reported >= searched / 4 - 20, f"TIME {reported} cs printed {searched:.0f} cs into the search (s?)"
            checked += 1
    assert checked, "no thinking line after the first second of analysis"
    engine.send("exit")


def test_T62_sd_and_its_reset_by_new(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("level 0 60 0", "time 360000", "otim 360000", "sd 1", "post", "go")
    engine.expect_move(2)
    plies = [int(m.group(1)) for m in (THINK.match(text) for text in engine.side_lines) if m]
    assert plies and max(plies) <= 1
    setboard(engine, F_MID)
    engine.send("post", "st 2", "go")
    engine.expect_move(3.5)
    plies = [int(m.group(1)) for m in (THINK.match(text) for text in engine.side_lines) if m]
    assert plies and max(plies) >= 2


def last_nodes(engine: XBoardEngine, timeout: float) -> int:
    """Wait for the move, keeping the thinking lines; the NODES of the last one."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        line = engine.read(max(0.0, deadline - time.monotonic()), keep_thinking=True)
        assert line is not None, "no move"
        match = THINK.match(line.text)
        if match:
            last = int(match.group(4))
        elif MOVE.match(line.text):
            assert last is not None, "no thinking line before the move"
            return last


def test_T63_nps(xb: Start) -> None:
    engine = xb()
    assert engine.features.flag("nps") == 1
    engine.send("new", "nps 10000", "st 1", "post", "go")
    assert last_nodes(engine, 2.5) <= 11000
    engine.send("new", "level 40 1 0", "st 1", "nps 5000", "post", "go")
    assert last_nodes(engine, 2.5) <= 5500


def test_T64_edit_white_to_move(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "edit", "#", "Ka1", "c", "Ka8", "Qb2", ".", "st 1", "go")
    engine.board = chess.Board(F_W1)
    assert engine.expect_move(2.5) == "a1b2"


@pytest.mark.parametrize("kludge", [["a2a3"], ["black", "force"]], ids=["a2a3", "black-force"])
def test_T65_edit_black_to_move(xb: Start, kludge: list[str]) -> None:
    engine = xb()
    prefix = [f"usermove {k}" if engine.usermove and k == "a2a3" else k for k in kludge]
    engine.send("new", "force", *prefix, "edit", "#", "Ka1", "Qb7", "c", "Ka8", ".", "st 1", "go")
    engine.board = chess.Board(F_B1)
    assert engine.expect_move(2.5) == "a8b7"


def test_T66_edit_infers_castling(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "edit", "#", "Ke1", "Rh1", "Pa2", "c", "Ke8", ".")
    engine.board = chess.Board("4k3/8/8/8/8/8/P7/4K2R w K - 0 1")
    engine.move("e1g1", "e8e7", "f1f7")
    engine.sync(1)


register_cases(globals())
