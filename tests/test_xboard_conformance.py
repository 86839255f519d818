"""The numbered conformance cases of docs/PROTOCOL.md §11 (T01-T114), one test each,
run against the installed `ponderosa --xboard` through tests/xboard_harness.py.

Where a case would take more than a few seconds with the clock values printed in §11
(e.g. `time 30000` under `level 40 5 0`, 7.5 s a move), the test keeps the command
sequence and sends a smaller clock instead; each such test says so in its docstring."""
from __future__ import annotations

import inspect
import os
import random
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import chess
import pytest

from tests import wall_clock
from tests.wall_clock import READINGS, allowed
from tests.xboard_harness import (
    ERROR,
    F_50,
    F_B1,
    F_CASTLE,
    F_EP1,
    F_EPFEN,
    F_KK,
    F_MATE1,
    F_MATED,
    F_MID,
    F_PROMO,
    F_STALE,
    F_TWO,
    F_W1,
    FEATURE,
    ILLEGAL,
    MOVE,
    PONG,
    RESULT,
    THINK,
    Line,
    XBoardEngine,
    engine_command,
    fresh_engine,
)

Start = Callable[..., XBoardEngine]


class Engines:
    """Starts engines for one case (INIT done unless init=False); `finish` quits them all and
    fails the case if one wrote a traceback on its stderr."""

    def __init__(self) -> None:
        self.engines: list[XBoardEngine] = []

    def __call__(self, style: str = "X", init: bool = True, protover: int = 2, cold: bool = False) -> XBoardEngine:
        engine = XBoardEngine() if cold else fresh_engine()
        self.engines.append(engine)
        if init:
            engine.init(style, protover)
        return engine

    def finish(self) -> None:
        for engine in self.engines:
            engine.close()
        for engine in self.engines:
            crash = engine.crash_report()
            if crash:
                pytest.fail(f"the engine wrote an error on stderr:\n{crash}")


@pytest.fixture
def xb() -> Iterator[Start]:
    engines = Engines()
    yield engines
    engines.finish()


def setboard(engine: XBoardEngine, fen: str) -> None:
    engine.send("new", "force", f"setboard {fen}")


def pv_first_move(text: str | None, board: chess.Board) -> chess.Move | None:
    """The first move of a PV text (SAN or coordinates, move numbers allowed) on board."""
    for token in (text or "").split():
        if re.match(r"^\d+\.+$", token):
            continue
        try:
            return board.parse_san(token.rstrip("!?"))
        except ValueError:
            return None
    return None


def thinking(lines: list[Line]) -> list[re.Match]:
    return [match for match in (THINK.match(line.text) for line in lines) if match]


# -- 11.1 Handshake and features ----------------------------------------------------


@pytest.mark.timing
def test_T01_feature_reply_in_time(xb: Start) -> None:
    """MUST done=1 within 2 s of protover (SHOULD 1 s); nothing like an error before it. A cold
    process, as a GUI starts it: `xboard` and `protover 2` are written at once."""
    engine = xb(init=False, cold=True)
    sent = engine.send("xboard", "protover 2")
    done_at = None
    while done_at is None:
        line = engine.read(2.0 - (time.monotonic() - sent), keep_thinking=True)
        assert line is not None, "no feature done=1 within 2 s"
        assert not ERROR.match(line.text) and not ILLEGAL.match(line.text), line.text
        match = FEATURE.match(line.text)
        if match and "done=1" in match.group(1).split():
            done_at = line.at
    if done_at - sent >= 1.0:   # SHOULD; a loaded machine may start Python this slowly
        warnings.warn(f"T01: done=1 came {done_at - sent:.2f} s after protover (SHOULD be within 1 s)",
                      stacklevel=1)
    engine.sync(1)


def test_T02_slow_start_with_done0(xb: Start) -> None:
    """MUST if done=0 is used: done=1 follows within 10 s (INIT waits up to 10 s after done=0)."""
    engine = xb()
    first = engine.features.lines[0]
    if "done=0" in first.split():
        assert engine.features.values.get("done") == 1
    else:
        assert "done=0" not in " ".join(engine.features.lines), "done=0 used, but not in the first line"


def test_T03_required_features(xb: Start) -> None:
    engine = xb()
    values = engine.features.values
    assert values.get("ping") == 1 and values.get("setboard") == 1
    assert isinstance(values.get("myname"), str) and values["myname"]
    assert str(values.get("variants", "")).startswith("normal")
    assert values.get("colors") == 0 and values.get("sigint") == 0 and values.get("sigterm") == 0
    assert "usermove" in values and "analyze" in values
    assert engine.features.names_in_order[-1] == "done" and values["done"] == 1


BOOLEAN_FEATURES = {"ping", "setboard", "playother", "san", "usermove", "time", "draw", "sigint", "sigterm",
                    "reuse", "analyze", "colors", "ics", "name", "pause", "nps", "debug", "memory", "smp",
                    "exclude", "setscore", "highlight"}


def test_T04_feature_syntax(xb: Start) -> None:
    engine = xb()
    token = re.compile(r'\s*([a-z]+)=("[^"]+"|-?\d+)')
    seen: dict[str, str] = {}
    tokens: list[str] = []
    for line in engine.features.lines:
        body = FEATURE.match(line).group(1)   # type: ignore[union-attr]
        position = 0
        while position < len(body.rstrip()):
            match = token.match(body, position)
            assert match, f"bad feature token at {body[position:]!r} in {line!r}"
            name, value = match.group(1), match.group(2)
            tokens.append(name)
            if name in BOOLEAN_FEATURES:
                assert value in ("0", "1"), f"{name}={value} is not boolean"
            if name == "done" and value == "0" and line == engine.features.lines[0]:
                pass   # done=0 first ("wait for done=1"), done=1 last: the one feature sent twice
            elif name != "option":
                assert seen.setdefault(name, value) == value, f"{name} declared twice differently"
            position = match.end()
    assert tokens.count("done") == 1 + (engine.features.lines[0] == "feature done=0") and tokens[-1] == "done"
    assert engine.features.lines[-1].split()[-1] == "done=1"


def t05_body(engine: XBoardEngine) -> None:
    setboard(engine, F_W1)
    engine.sync(1)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "a1b2"
    engine.sync(2)


def test_T05_silent_gui(xb: Start) -> None:
    t05_body(xb("P"))


def test_T06_rejected_features(xb: Start) -> None:
    t05_body(xb("C"))


def test_T07_higher_protocol_number(xb: Start) -> None:
    engine = xb(protover=3)
    assert engine.features.values.get("done") == 1
    engine.sync(1)


OPTION = re.compile(r"^(.+?) -(button|save|reset|check|spin|slider|combo|string|file|path)( .*)?$")


def test_T08_option_definitions(xb: Start) -> None:
    engine = xb()
    assert engine.features.options
    for text in engine.features.options:
        match = OPTION.match(text)
        assert match, f"bad option {text!r}"
        name, kind, args = match.group(1), match.group(2), (match.group(3) or "").split()
        assert " " not in name, f"option name with a space breaks python-chess: {name!r}"
        assert kind != "reset", "-reset is not supported by xboard 4.9 or cutechess"
        if kind == "check":
            assert args in (["0"], ["1"])
        if kind in ("spin", "slider"):
            assert len(args) == 3 and all(re.match(r"^-?\d+$", a) for a in args)
            default, low, high = map(int, args)
            assert low <= default <= high, text
        if kind == "combo":
            assert (match.group(3) or "").count("*") <= 1


def option_defaults(engine: XBoardEngine) -> list[str]:
    """`option NAME=DEFAULT` (or `option NAME`) for every declared option."""
    commands = []
    for text in engine.features.options:
        match = OPTION.match(text)
        assert match
        name, kind, args = match.group(1), match.group(2), (match.group(3) or "").strip()
        if kind in ("button", "save", "reset"):
            commands.append(f"option {name}")
        elif kind == "combo":
            default = next((c.strip()[1:] for c in args.split("///") if c.strip().startswith("*")),
                           args.split("///")[0].strip())
            commands.append(f"option {name}={default}")
        elif kind in ("spin", "slider", "check"):
            commands.append(f"option {name}={args.split()[0]}")
        else:
            commands.append(f"option {name}={args}")
    return commands


def test_T09_option_commands_accepted(xb: Start) -> None:
    engine = xb()
    engine.send(*option_defaults(engine))
    if engine.features.flag("memory"):
        engine.send("memory 16")
    if engine.features.flag("smp"):
        engine.send("cores 1")
    egt = engine.features.values.get("egt")
    if isinstance(egt, str):
        engine.send(*[f"egtpath {kind} /path/to/tables" for kind in egt.split(",")])
    # A tablebase path that does not exist is reported to the user (and noted in a # line), nothing else.
    assert [line.text for line in engine.sync(1)
            if not line.text.startswith(("telluser Syzygy: /path/to/tables: no such directory", "#"))] == []
    assert engine.alive()


def test_T10_protocol_1_fallback(xb: Start) -> None:
    """SHOULD: no protover. (`st 1` is added so that the test stays short; it is a protocol-1
    command as well.)"""
    engine = xb(init=False)
    engine.send("xboard", "new", "st 1")
    engine.move("e2e4")
    engine.expect_move(10)


def test_T11_uci_probe_ignored(xb: Start) -> None:
    engine = xb()
    engine.send("uci")
    # An error line for the unknown command is allowed, late or early (a loaded machine may delay it).
    seen = engine.collect(1.0) + engine.sync(3, allow=(re.compile(r"^Error \(unknown command\): uci$"),))
    assert all(line.text.strip() != "uciok" for line in seen)
    engine.send("new", "st 1", "go")
    engine.expect_move(2.5)


def test_T12_routine_commands_are_silent(xb: Start) -> None:
    engine = xb()
    engine.send("new", "random", "name GM Mechanical Turk", "rating 2600 1500", "computer", "ics -", "post",
                "nopost", "hard", "easy", "accepted foo", "rejected bar", "random")
    seen = engine.sync(4)
    assert [line.text for line in seen if not line.text.startswith("telluser")] == []


def test_T13_unknown_command(xb: Start) -> None:
    engine = xb()
    engine.send("frobnicate 1 2")
    match = engine.expect_line(ERROR, 1.0)
    assert match.group(1) == "unknown command" and match.group(2).startswith("frobnicate")
    assert engine.alive()
    setboard(engine, F_W1)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "a1b2"


def test_T14_batched_input(xb: Start) -> None:
    engine = xb()
    engine.write_raw(f"new\nforce\nsetboard {F_W1}\nst 1\ngo\n".encode())
    engine.board = chess.Board(F_W1)
    assert engine.expect_move(3) == "a1b2"


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


def ponder_setup(engine: XBoardEngine) -> list[str]:
    """T36's start: `hard`, `new`, a clock, 1.e4; the engine replies and ponders. Returns the
    lines before the move. (`time 3000` rather than 30000, so that the reply comes in about a second.)"""
    engine.send("hard", "new", "level 0 5 0", "time 3000", "otim 30000")
    engine.move("e2e4")
    engine.expect_move(10)
    return engine.side_lines


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


def long_think(engine: XBoardEngine) -> None:
    setboard(engine, F_MID)
    engine.send("level 0 60 0", "time 360000", "otim 360000", "go")


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


# -- 11.3 ping / races ---------------------------------------------------------------------


@pytest.mark.parametrize("reading", READINGS)
def test_T40_idle_ping(xb: Start, reading: str) -> None:
    engine = xb()
    sent = engine.send("ping 1")
    match = engine.expect_line(PONG, 0.5)
    assert match.group(1) == "1" and engine.last_line_at - sent < allowed(0.5)
    engine.send("ping 0", "ping 65535", "ping 2147483647")
    pongs = [line.text for line in engine.collect(allowed(0.7))]
    assert pongs == ["pong 0", "pong 65535", "pong 2147483647"]


def test_T41_ping_after_setup(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_W1)
    engine.sync(2)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "a1b2"


def test_T42_ping_while_thinking_after_the_move(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("st 2", "go", "ping 3")
    engine.expect_move(3.5)
    match = engine.expect_line(PONG, 0.5)
    assert match.group(1) == "3"


def test_T43_move_now_then_ping(xb: Start) -> None:
    engine = xb()
    long_think(engine)
    time.sleep(0.3)
    sent = engine.send("?", "ping 4")
    engine.expect_move(1.0)
    assert engine.expect_line(PONG, 1.0).group(1) == "4"
    assert engine.last_line_at - sent < allowed(1.0)


@pytest.mark.parametrize("reading", READINGS)
def test_T44_ping_while_pondering_is_immediate(xb: Start, reading: str) -> None:
    engine = xb()
    ponder_setup(engine)
    for number in (44, 45, 46):
        sent = time.monotonic()
        engine.sync(number, timeout=0.5)
        assert time.monotonic() - sent < allowed(0.5)


def test_T45_force_during_thinking(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("st 10", "go")
    time.sleep(0.5)
    engine.send("force")
    engine.sync(6, timeout=1.0)     # also fails on a move before the pong (SHOULD: no move at all)
    engine.quiet(2)


def test_T46_ping_during_analysis(xb: Start) -> None:
    engine = xb()
    engine.send("new", "post", "analyze")
    time.sleep(0.5)
    engine.collect(0.0)
    engine.sync(9, timeout=0.5)
    # Thinking lines continue afterwards: the start position deepens for a while.
    assert thinking(engine.collect(1.0)), "no thinking lines after the pong"
    engine.send("exit")
    engine.sync(10)


def test_T47_queued_commands_during_search(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("st 1", "go", "force", "new")
    engine.sync(10, timeout=1.5)
    engine.quiet(2)
    engine.send("st 1", "go")
    engine.expect_move(2.5)
    assert len(engine.board.move_stack) == 1 and engine.board.move_stack[0] in chess.Board().legal_moves


def test_T48_result_while_thinking(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("st 5", "go")
    time.sleep(0.3)
    engine.send("result 1-0 {White mates}")
    engine.sync(11, timeout=1.0)
    engine.quiet(2)


def test_T49a_quit(xb: Start) -> None:
    engine = xb()
    engine.send("quit")
    engine.process.wait(1.0)


def test_T49b_quit_mid_search(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("st 30", "go")
    time.sleep(0.3)
    engine.send("quit")
    engine.process.wait(1.0)


def test_T49c_eof(xb: Start) -> None:
    engine = xb()
    assert engine.process.stdin is not None
    engine.process.stdin.close()
    engine.process.wait(2.0)


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


# -- 11.5 Move syntax ---------------------------------------------------------------------------


def test_T67_usermove_prefix(xb: Start) -> None:
    engine = xb()
    assert engine.usermove, "usermove=1 declared and accepted"
    engine.send("new", "force", "usermove e2e4", "usermove e7e5")
    engine.board.push_uci("e2e4")
    engine.board.push_uci("e7e5")
    engine.sync(1)
    engine.send("st 1", "go")
    engine.expect_move(2.5)


def test_T68_prefix_tolerance(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "e2e4", "usermove e7e5")
    engine.sync(1)
    engine.board.push_uci("e2e4")
    engine.board.push_uci("e7e5")
    engine.send("st 1", "go")
    engine.expect_move(2.5)


def test_T69_illegal_moves_rejected(xb: Start) -> None:
    engine = xb()
    prefix = "usermove " if engine.usermove else ""
    engine.send("new", "force", f"{prefix}e2e5")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e2e5"
    engine.send(f"{prefix}e7e5")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e7e5"
    engine.move("e2e4")
    engine.sync(1)
    engine.send("st 1", "go")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.WHITE


def test_T70_standard_castling_input(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_CASTLE)
    engine.move("e1g1", "a8a7", "f1f8")
    engine.sync(1)
    engine.send("setboard r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    engine.move("e8c8", "a1a7", "d8d1")
    engine.sync(2)


def test_T71_castling_rights_tracking(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_CASTLE)
    engine.move("h1h2", "a8a7", "h2h1", "a7a8")
    engine.send(f"{'usermove ' if engine.usermove else ''}e1g1")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e1g1"


def test_T72_promotion_input_honours_the_piece(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_PROMO)
    engine.move("a7a8n", "d8e8", "a8b6")
    engine.sync(1)
    engine.send(f"setboard {F_PROMO}")
    prefix = "usermove " if engine.usermove else ""
    engine.send(f"{prefix}a7a8q", f"{prefix}d8e8")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "d8e8"
    engine.sync(2)


def test_T73_promotion_output(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_PROMO)
    engine.send("st 1", "go")
    assert re.match(r"^a7a8[qrbn]$", engine.expect_move(2.5))


def test_T74_tolerant_promotion_input(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_PROMO)
    engine.send(f"{'usermove ' if engine.usermove else ''}a7a8Q")
    engine.sync(1)


def test_T75_en_passant(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("e2e4", "a7a6", "e4e5", "d7d5", "e5d6")
    engine.sync(1)
    prefix = "usermove " if engine.usermove else ""
    engine.send(f"setboard {F_EPFEN}", f"{prefix}e5d6")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e5d6"
    engine.send(f"setboard {F_EPFEN}", f"{prefix}e5f6")
    engine.sync(2)
    setboard(engine, F_EP1)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "e5d6"


# -- 11.6 Analyze mode --------------------------------------------------------------------------


def test_T76_basic_analysis(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "post", "analyze")
    lines = engine.collect(3.0)
    assert thinking([line for line in lines if line.at - lines[0].at < 2.0] if lines else [])
    assert not [line.text for line in lines if MOVE.match(line.text)]
    engine.send("exit")
    engine.sync(1)
    engine.quiet(1, allow_thinking=False)


def analysis_first_moves(engine: XBoardEngine, board: chess.Board, seconds: float = 0.6,
                         restarted: bool = True) -> list[chess.Move]:
    """First PV moves of the thinking lines printed within `seconds` of the search's first line
    (which must come within allowed(seconds)); Error/Illegal/move fail.

    With `restarted`, lines before the first ply-1 line belong to the search that the last
    command replaced (it was deeper by then) and are skipped."""
    moves: list[chess.Move] = []
    end = time.monotonic() + allowed(seconds)
    while (line := engine.read(max(0.0, end - time.monotonic()), keep_thinking=True)) is not None:
        assert not MOVE.match(line.text) and not ERROR.match(line.text) and not ILLEGAL.match(line.text), line
        match = THINK.match(line.text)
        if match and restarted:
            if match.group(1) != "1":
                continue
            restarted = False
        if match and not moves:
            end = line.at + seconds   # the window opens with the search's first line
        if match:
            move = pv_first_move(match.group(5), board)
            assert move is not None, f"PV not legal in {board.fen()}: {line.text}"
            moves.append(move)
    return moves


def test_T77_commands_inside_analysis(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "post", "analyze")
    engine.expect_line(THINK, 3.0, keep_thinking=True)   # its ply-1 line is out: the next one is new
    engine.move("e2e4")
    assert analysis_first_moves(engine, engine.board.copy())
    engine.send("undo")
    assert analysis_first_moves(engine, chess.Board())
    engine.send("new")
    assert analysis_first_moves(engine, chess.Board())
    engine.send(f"setboard {F_W1}")
    moves = analysis_first_moves(engine, chess.Board(F_W1))
    assert moves and set(moves) == {chess.Move.from_uci("a1b2")}
    engine.send("exit")
    engine.sync(2)


STAT01 = re.compile(r"^stat01:\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+(\s+\S+)?\s*$")


def test_T78_status_request(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "post", "analyze")
    time.sleep(0.5)
    engine.collect(0.0)
    engine.send(".")
    others = [line.text for line in engine.collect(1.0) if not THINK.match(line.text)]
    assert not [text for text in others if ERROR.match(text)]
    assert len(others) <= 1 and all(STAT01.match(text) for text in others), others
    engine.send("exit")


def test_T79_python_chess_stop_sequence(xb: Start) -> None:
    engine = xb("P")
    engine.send("new", "force", "post", "analyze")
    time.sleep(0.5)
    engine.send(".", "exit")
    seen = engine.sync(77, timeout=1.0)
    assert not [line.text for line in seen if ERROR.match(line.text) or ILLEGAL.match(line.text)]
    engine.quiet(1, allow_thinking=False)


# -- 11.7 Variants / Chess960 ---------------------------------------------------------------------

NOT_DECLARED = 'Ponderosa declares variants="normal,fischerandom": no client sends {} to it'
F_FRC_X = "k7/8/8/8/8/8/8/4RKR1 w KQ - 0 1"
F_FRC_S = "k7/8/8/8/8/8/8/4RKR1 w GE - 0 1"


def test_T80_frc_xfen_and_oo(xb: Start) -> None:
    engine = xb()
    assert "fischerandom" in str(engine.features.values.get("variants", "")).split(",")
    engine.send("new", "variant fischerandom", "force", f"setboard {F_FRC_X}")
    engine.move("O-O", "a8a7", "f1f7")
    engine.sync(1)
    assert engine.board.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE)
    # The engine's own move in Chess960: castling comes as O-O/O-O-O (or king takes rook),
    # which python-chess reads on a Chess960 board (the harness's MOVE check).
    engine.send("new", "variant fischerandom", "force", f"setboard {F_FRC_X}", "st 1", "go")
    engine.expect_move(2.0)
    engine.send("force")
    engine.sync(2)


def test_T80_frc_engine_castles_as_o_o(xb: Start) -> None:
    """The only mate is castling with the king standing still on g1 (only castling brings the
    h1 rook past it to f1): the engine plays it and writes it O-O."""
    engine = xb()
    engine.send("new", "variant fischerandom", "force", "setboard 4rkr1/4p1p1/8/8/8/8/8/6KR w K - 0 1",
                "st 1", "go")
    assert engine.expect_move(3.0) == "O-O"
    assert engine.board.is_checkmate()


def test_T81_frc_shredder_fen(xb: Start) -> None:
    engine = xb()
    engine.send("new", "variant fischerandom", "force", f"setboard {F_FRC_S}")
    engine.move("f1g1", "a8a7", "f1f7")
    engine.sync(1)


def test_T82_new_returns_to_normal_chess(xb: Start) -> None:
    engine = xb()
    engine.send("new", "variant fischerandom", "new", "force")
    engine.move("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1")
    engine.sync(1)
    engine.send("variant crazyhouse")
    assert engine.expect_line(ERROR, 1.0)


# -- 11.8 Root move control ------------------------------------------------------------------------


def test_T83_exclude(xb: Start) -> None:
    engine = xb()
    assert engine.features.flag("exclude") == 1
    setboard(engine, F_TWO)
    engine.send("exclude h2h4", "st 1", "go")
    assert engine.expect_move(2.5) == "h2h3"
    engine.send("force", f"setboard {F_TWO}", "exclude h2h3", "st 1", "go")
    assert engine.expect_move(2.5) == "h2h4"


def test_T84_include_all(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_TWO)
    engine.send("exclude h2h3", "exclude h2h4", "include all", "st 1", "go")
    engine.expect_move(2.5)


# -- 11.9 Game end, claims, draw offers --------------------------------------------------------------


def collect_until_end(engine: XBoardEngine, timeout: float, after: float = 0.3) -> list[Line]:
    """Lines until a move or a claim (then `after` seconds more), or until timeout."""
    deadline = time.monotonic() + timeout
    lines: list[Line] = []
    while True:
        line = engine.read(max(0.0, deadline - time.monotonic()))
        if line is None:
            return lines
        lines.append(line)
        if MOVE.match(line.text) or RESULT.match(line.text) or line.text.startswith("offer draw"):
            return lines + engine.collect(after)


def claims(lines: list[Line]) -> list[str]:
    return [line.text for line in lines if RESULT.match(line.text)]


def test_T85_checkmated_side_on_move(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MATED)
    sent = engine.send("st 1", "go")
    lines = engine.collect(3.0)
    assert not [line.text for line in lines if MOVE.match(line.text)]
    found = [line for line in lines if RESULT.match(line.text)]
    assert found and found[0].text.startswith("1-0") and found[0].at - sent < 2.0


def test_T86_stalemate(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_STALE)
    engine.send("st 1", "go")
    lines = engine.collect(1.5)
    assert not [line.text for line in lines if MOVE.match(line.text)]
    assert [text for text in claims(lines) if text.startswith("1/2-1/2")]


def test_T87_mate_claim_order(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MATE1)
    engine.send("st 2", "go")
    assert engine.expect_move(3.5) == "a1a8"
    assert not claims([Line(0, text) for text in engine.side_lines]), "a claim before the move"
    after = claims(engine.collect(0.5))
    assert all(text.startswith("1-0") for text in after), after


def test_T88_insufficient_material(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_KK)
    engine.send("st 1", "go")
    lines = collect_until_end(engine, 2.5)
    texts = [line.text for line in lines]
    moves = [text for text in texts if MOVE.match(text)]
    draws = [text for text in claims(lines) if text.startswith("1/2-1/2")]
    assert moves or draws
    if draws and not moves:
        assert texts.index(draws[0]) >= 0
    if draws and moves:
        assert texts.index(moves[0]) < texts.index(draws[0]), "a move after the claim"
    assert not [text for text in claims(lines) if not text.startswith("1/2-1/2")]


def test_T89_fifty_move_position(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_50)
    engine.send("st 1", "go")
    lines = collect_until_end(engine, 2.5)
    texts = [line.text for line in lines]
    assert [t for t in texts if MOVE.match(t) or t.startswith("offer draw") or t.startswith("1/2-1/2")]
    assert not [t for t in texts if t.startswith(("1-0", "0-1"))]


def test_T90_threefold_repetition(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8")
    engine.send("st 1", "go")
    texts = [line.text for line in collect_until_end(engine, 2.5)]
    assert [t for t in texts if MOVE.match(t) or t.startswith("1/2-1/2")]
    assert not [t for t in texts if t.startswith(("1-0", "0-1"))]


def test_T91_gui_draw_offer(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 1")
    engine.move("e2e4")
    engine.send("draw")
    engine.expect_move(3)


def test_T92_resignation_and_recovery(xb: Start) -> None:
    engine = xb()
    setboard(engine, "7k/8/8/8/8/8/qq6/7K w - - 0 1")
    engine.send("st 1", "go")
    texts = []
    deadline = time.monotonic() + 2.5
    while True:
        line = engine.read(max(0.0, deadline - time.monotonic()))
        assert line is not None, f"no move, resign or result: {texts}"
        texts.append(line.text)
        if line.text in ("move h1g1", "resign") or re.match(r"^0-1 \{.*resign.*\}", line.text):
            break
        assert not ERROR.match(line.text) and not ILLEGAL.match(line.text)
    engine.send("result 0-1 {White resigns}", "force")
    engine.sync(1)
    engine.send("new", "st 1", "go")
    engine.expect_move(2.5)


# -- 11.10 Output format ----------------------------------------------------------------------------


def test_T93_thinking_line_format(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("post", "st 2", "go")
    engine.expect_move(3.5)
    digit_lines = [text for text in engine.side_lines if text.lstrip()[:1].isdigit()]
    assert digit_lines
    last_ply = last_nodes_seen = 0
    for text in digit_lines:
        match = THINK.match(text)
        assert match, f"not a thinking line: {text!r}"
        ply_end = len(text) - len(text.lstrip()) + len(match.group(1))
        assert text[ply_end] in " \t"
        ply, nodes = int(match.group(1)), int(match.group(4))
        assert ply >= last_ply and nodes >= last_nodes_seen, text
        last_ply, last_nodes_seen = ply, nodes


def test_T94_mate_score_convention(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MATE1)
    engine.send("post", "st 2", "go")
    engine.expect_move(3.5)
    scores = [int(m.group(2)) for m in (THINK.match(text) for text in engine.side_lines) if m]
    assert scores and scores[-1] == 100001


def test_T95_extra_thinking_fields(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("post", "st 0.5", "go")
    engine.expect_move(2.0)
    for text in engine.side_lines:
        match = THINK.match(text)
        if not match:
            continue
        rest = (match.group(5) or "")
        extras = re.match(r"^((?:-?\d+[ \t]+)*)", rest + " ").group(1).split()
        pv_tokens = rest.split()
        # A PV starts with a move, never with a bare integer; more integers are extra fields.
        if extras and len(extras) < len(pv_tokens):
            assert len(extras) == 3 and "\t" in rest, f"extra fields need all three and a TAB: {text!r}"


HAZARD = re.compile(r"^White|^Black|Draw|offer.*draw|^resign|^checkmate|^computer (mates|resigns)|^opponent mates|"
                    r"^Error|^.llegal move|not found|No such file|Permission denied|unknown host|can't alloc|"
                    r"^setboard |^uciok|^tell|^kibitz|^whisper|^warning|^setup |^piece |^highlight |^click |"
                    r"^choice |^dice ")


def hazards(engine: XBoardEngine) -> list[str]:
    """Output lines that xboard would misread (§5.10), less the protocol's own lines."""
    found = []
    for entry in engine.transcript:
        if not entry.startswith("< "):
            continue
        text = entry[2:]
        if (text.startswith("#") and engine.debug) or THINK.match(text) or MOVE.match(text) or PONG.match(text) \
                or FEATURE.match(text) or text.startswith("Hint:") or RESULT.match(text) \
                or text in ("resign", "offer draw"):
            continue
        if HAZARD.search(text):
            found.append(text)
    return found


@pytest.mark.parametrize("replay", ["T102", "T108"])
def test_T96_output_hazard_lint(xb: Start, replay: str) -> None:
    engine = xb("C" if replay == "T102" else "X")
    (cutechess_black_replay if replay == "T102" else xboard_machine_black_replay)(engine, turns=4)
    assert hazards(engine) == []


MOVE_TOKEN = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$|^O-O(-O)?$|^[PNBRQ]@[a-h][1-8]$|^@@@@$")


def test_T97_move_token_format(xb: Start) -> None:
    engine = xb()
    for fen in (F_PROMO, F_CASTLE, chess.STARTING_FEN, F_EP1):
        setboard(engine, fen)
        engine.send("st 0.3", "go")
        engine.expect_move(2.0)
    for entry in engine.transcript:
        if entry.startswith("< move") or entry.startswith("< bestmove") or re.match(r"^< \d+\. \.\.\.", entry):
            words = entry[2:].split()
            assert words[0] == "move" and len(words) == 2 and MOVE_TOKEN.match(words[1]), entry


def test_T98_hint_and_bk(xb: Start) -> None:
    engine = xb()
    engine.send("new", "hint", "bk")
    seen = engine.sync(1)
    texts = [line.text for line in seen]
    for text in texts:
        if text.startswith("Hint:"):
            chess.Board().parse_san(text.split()[1])
    book = [text for text in texts if not text.startswith("Hint:")]
    if book:
        assert book[-1] == "" and all(text[:1] in (" ", "\t") for text in book[:-1]), book


def test_T99_duplicate_go(xb: Start) -> None:
    engine = xb()
    # A book move would be made before the second go arrives (which then rightly plays Black):
    # the case is a go that arrives while the engine thinks.
    engine.send("option OwnBook=0", "new", "st 1", "go", "go")
    engine.expect_move(3)
    engine.quiet(2)


def test_T100_settings_during_play(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 2", "go")
    time.sleep(0.3)
    engine.send("cores 1", "memory 16", *option_defaults(engine))
    engine.expect_move(3.5)
    engine.sync(1)


def test_T101_pause_resume(xb: Start) -> None:
    engine = xb()
    if not engine.features.flag("pause"):
        pytest.skip("pause=0 declared")
    engine.send("option OwnBook=0", "new", "st 2", "go")   # pause must catch it thinking, not in book
    time.sleep(0.3)
    engine.send("pause")
    engine.quiet(3)
    engine.send("resume")
    engine.expect_move(3)


# -- 11.12 Client replays and robustness -------------------------------------------------------------


def cutechess_black_replay(engine: XBoardEngine, turns: int = 10) -> None:
    """T102's game: the engine plays Black under `level 40 1 0` (with a 6 s clock, so that
    moves are quick), against random White moves."""
    rng = random.Random(102)
    engine.send("new", "force", "level 40 1 0", "post", "easy")
    engine.move("e2e4")
    own, other = 600, 600
    for turn in range(turns):
        engine.sync(rng.randint(1, 32))
        engine.send(f"time {own}", f"otim {other}")
        if turn == 0:
            sent = engine.send("go")
        else:
            sent = engine.move(rng.choice(list(engine.board.legal_moves)).uci())
        engine.expect_move(own / 100)
        own -= int((engine.last_move_at - sent) * 100)
        other -= 5
        assert own > 0
        if engine.board.is_game_over(claim_draw=True) or not any(engine.board.legal_moves):
            break
    engine.send("force", "result 1-0 {White wins by adjudication}")
    engine.sync(rng.randint(1, 32))


def test_T102_cutechess_replay_engine_black(xb: Start) -> None:
    engine = xb("C")
    cutechess_black_replay(engine)
    engine.send("quit")
    engine.process.wait(5)


def test_T103_cutechess_replay_engine_white_ponder(xb: Start) -> None:
    engine = xb("C")
    rng = random.Random(103)
    engine.send("new", "force", "level 0 0:10 0.1", "post", "hard")
    engine.sync(5)
    own, other = 1000, 1000
    sent = engine.send(f"time {own}", f"otim {other}", "go")
    engine.expect_move(own / 100)
    for _ in range(8):
        own += 10 - int((engine.last_move_at - sent) * 100)
        if engine.board.is_game_over(claim_draw=True):
            break
        engine.sync(rng.randint(1, 32), timeout=1.0)
        engine.send(f"time {own}", f"otim {other}")
        sent = engine.move(rng.choice(list(engine.board.legal_moves)).uci())
        if engine.board.is_game_over(claim_draw=True):
            break
        engine.expect_move(own / 100)
    engine.send("force", "result * {stopped}")
    engine.sync(99)


def test_T104_python_chess_play_replay(xb: Start) -> None:
    """python-chess's `play`: `force` and the moves, `level 0 M:SS INC`, time/otim, nopost,
    easy, go, then ping. (Increment 0.1 s rather than 2 s, so that 8 moves take a few seconds.)"""
    engine = xb("P")
    rng = random.Random(104)
    own = 500
    for turn in range(8):
        if turn == 0:
            engine.send("new", "force")
        else:
            engine.send("force")
            engine.move(rng.choice(list(engine.board.legal_moves)).uci())
            if engine.board.is_game_over(claim_draw=True):
                break
        sent = engine.send(f"level 0 {own // 6000}:{own // 100 % 60:02d} 0.1", f"time {own}", "otim 500",
                           "nopost", "easy", "go")
        engine.expect_move(own / 100)
        engine.sync(rng.randint(0, 65535))
        own = own + 10 - int((engine.last_move_at - sent) * 100)
        if engine.board.is_game_over(claim_draw=True):
            break


def test_T105_python_chess_ponder_flow(xb: Start) -> None:
    engine = xb("P")
    engine.send("new", "force", "st 1", "post", "hard", "go")
    engine.expect_move(2.5)
    sent = time.monotonic()
    engine.sync(100, timeout=0.5)
    assert time.monotonic() - sent <= allowed(0.5)
    engine.send("easy")
    engine.sync(101)
    engine.send("force")
    engine.move(random.Random(105).choice(list(engine.board.legal_moves)).uci())
    engine.send("st 1", "nopost", "easy", "go")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.BLACK


def test_T106_python_chess_analysis_with_root_moves(xb: Start) -> None:
    engine = xb("P")
    assert engine.features.flag("exclude") == 1
    engine.send("new", "force")
    engine.move("e2e4")
    engine.send("exclude all", "include e7e5", "post", "analyze")
    moves = analysis_first_moves(engine, engine.board.copy(), 1.0, restarted=False)
    assert moves and set(moves) == {chess.Move.from_uci("e7e5")}
    engine.send(".", "exit")
    engine.sync(7, allow=(re.compile(r"^stat01:"),))


def test_T107_python_chess_replay_with_undo(xb: Start) -> None:
    engine = xb("P")
    engine.send("new", "force")
    engine.move("d2d4", "g8f6", "c2c4")
    engine.send("st 1.5", "sd 17", "nopost", "easy", "go")
    engine.expect_move(3)
    engine.sync(1)
    engine.send("force", "remove", "st 1.5", "sd 17", "nopost", "easy", "go")
    engine.expect_move(3)
    assert engine.board.turn == chess.BLACK and len(engine.board.move_stack) == 3
    engine.sync(2)
    engine.send("force", "remove", "undo", "st 1.5", "sd 17", "nopost", "easy", "go")
    engine.expect_move(3)
    assert len(engine.board.move_stack) == 1


def xboard_machine_black_replay(engine: XBoardEngine, turns: int = 5) -> None:
    """T108's game: xboard's Machine Black (a 6 s clock for the quick turns), then an aborted
    think under a long clock; a move that beats the pong is taken back with `undo`."""
    rng = random.Random(108)
    engine.send("new", "random", "level 40 5 0", "post", "hard", "easy")
    engine.sync(1)
    for _ in range(turns):
        engine.send("time 600", "otim 30000")
        engine.move(rng.choice(list(engine.board.legal_moves)).uci())
        engine.expect_move(6)
        if engine.board.is_game_over(claim_draw=True):
            return
    engine.send("time 30000", "otim 30000")
    engine.move(rng.choice(list(engine.board.legal_moves)).uci())
    time.sleep(0.2)
    engine.send("force", "ping 2")
    while True:
        line = engine.read(2.0)
        assert line is not None, "no pong 2"
        if MOVE.match(line.text):
            engine.board.push_uci(MOVE.match(line.text).group(1))   # type: ignore[union-attr]
            engine.send("undo")
            continue
        assert not ILLEGAL.match(line.text) and not ERROR.match(line.text), line.text
        if line.text == "pong 2":
            break
    for line in engine.collect(0.2):
        assert not ILLEGAL.match(line.text) and not MOVE.match(line.text), line.text
    engine.send("st 1", "go")
    engine.expect_move(2.5)


def test_T108_xboard_machine_black_with_abort(xb: Start) -> None:
    xboard_machine_black_replay(xb())


def test_T109_xboard_two_machine_start(xb: Start) -> None:
    """(`time 600` rather than 30000: the same commands, quicker moves.)"""
    engine = xb()
    engine.send("new", "random", "level 40 5 0", "post", "hard", "easy")
    engine.sync(1)
    engine.send("computer", "name Other 1.0", "time 600", "otim 30000", "go")
    engine.expect_move(6)
    engine.send("time 580", "otim 29700")
    engine.move("e7e5" if engine.board.is_legal(chess.Move.from_uci("e7e5")) else
                next(iter(engine.board.legal_moves)).uci())
    engine.expect_move(6)


def test_T110_zippy_replay(xb: Start) -> None:
    """(`time 600` rather than 18000.)"""
    engine = xb()
    engine.send("new", "random", "ics freechess.org", "post", "hard", "easy")
    engine.sync(1)
    engine.send("level 0 3 0", "computer", "name Opponent", "rating 2100 1900", "time 600", "otim 18000", "go")
    engine.expect_move(6)
    engine.send("time 580", "otim 17800")
    engine.move(random.Random(110).choice(list(engine.board.legal_moves)).uci())
    engine.expect_move(6)
    engine.send("draw")
    for line in engine.collect(0.3):
        assert not ERROR.match(line.text), line.text
    engine.send("result 1/2-1/2 {Game drawn by mutual agreement}", "force")
    engine.sync(2)
    engine.quiet(1)


def test_T111_zippy_resumed_game_playother(xb: Start) -> None:
    """(`time 600` rather than 18000.)"""
    engine = xb()
    if not engine.features.flag("playother"):
        pytest.skip("playother=0 declared")
    engine.send("new", "force")
    engine.move("e2e4", "e7e5", "g1f3")
    engine.send("level 0 3 0", "name Opp", "rating 0 0", "time 600", "otim 18000", "playother")
    engine.quiet(1)
    engine.move("b8c6")
    engine.expect_move(6)
    assert engine.board.turn == chess.BLACK


@pytest.mark.skip(reason=NOT_DECLARED.format("`variant crazyhouse` or drops"))
def test_T112_crazyhouse_drops() -> None:
    pass


def test_T113_line_endings(xb: Start) -> None:
    engine = xb()
    engine.write_raw(b"ping 5\r\n")
    assert engine.expect_line(PONG, 1.0).group(1) == "5"
    engine.write_raw(b"\n")
    assert engine.sync(6) == []


def test_T114_illegal_setup_position(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "setboard 8/8/8/8/8/8/8/8 w - - 0 1")
    line = engine.read(allowed(1.0))
    assert line is not None and (line.text.startswith("tellusererror") or ERROR.match(line.text)), line
    engine.sync(1)
    engine.send(f"{'usermove ' if engine.usermove else ''}e2e4")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e2e4"
    engine.send("new", "st 1", "go")
    engine.expect_move(2.5)


# -- Beyond §11: regressions found while proving the protocol --------------------------------------


def test_X01_ping_while_thinking_then_force(xb: Start) -> None:
    """A ping held back for the move is answered when `force` abandons the search instead."""
    engine = xb()
    setboard(engine, F_MID)
    engine.send("st 10", "go", "ping 3")
    time.sleep(0.3)
    engine.send("force")
    assert engine.expect_line(PONG, 1.0).group(1) == "3"
    engine.sync(4)
    engine.quiet(1)


def test_X02_ponder_hit_thinking_lines(xb: Start) -> None:
    """After a ponder hit the thinking lines show the engine's own line, and its move follows."""
    engine = xb()
    engine.send("new", "hard", "post", "st 1")
    engine.move("e2e4")
    for _ in range(4):
        engine.expect_move(2.5)
        engine.send("hint")
        hint = [line.text.split()[1] for line in engine.sync(50) if line.text.startswith("Hint:")]
        if hint:
            break
        # No predicted reply this time (the search ended inside an iteration with a one-move PV).
        engine.move(next(iter(engine.board.legal_moves)).uci())
    else:
        pytest.fail("the engine never pondered")
    engine.move(hint[0])
    engine.expect_move(2.5)
    after_hit = engine.board.copy()
    after_hit.pop()
    pvs = [m.group(5) for m in (THINK.match(text) for text in engine.side_lines) if m]
    assert pvs, "no thinking lines after the ponder hit"
    assert all(pv and pv.strip() for pv in pvs), f"empty PV in {engine.side_lines}"
    assert pv_first_move(pvs[-1], after_hit) == engine.board.peek(), "the last PV does not start with the move"
    engine.sync(1)


@pytest.mark.parametrize("fen", ["4k3/8/8/8/8/8/8/R3K3 w - - 98 80", "4k3/8/8/8/8/8/8/R3K3 w - - 99 80"])
def test_X03_no_draw_claim_before_the_draw(xb: Start, fen: str) -> None:
    """With the fifty-move count at 98 or 99 the draw is not there yet: the engine must move, and
    not claim 1/2-1/2 (xboard and cutechess forfeit a false claim); `offer draw` is allowed."""
    engine = xb()
    setboard(engine, fen)
    engine.send("st 0.5", "go")
    engine.expect_move(2.0)
    texts = engine.side_lines + [line.text for line in engine.collect(0.5)]
    board = engine.board
    for text in texts:
        if RESULT.match(text):
            assert text.startswith("1/2-1/2") and board.is_fifty_moves(), f"false claim {text!r} in {board.fen()}"


def test_X04_never_plan_past_the_own_clock(xb: Start) -> None:
    """With 3 s on the clock a 12 s increment (added after the move) must not tempt the engine
    to think longer than the clock has."""
    engine = xb()
    engine.send("new", "level 0 0:30 12", "time 300", "otim 3000", "go")
    engine.expect_move(2.9)


@pytest.mark.parametrize("commands", [
    ["st inf"], ["st 1e30"], ["st nan"], ["st -5"], ["level 0 inf 0"], ["level 0 1e300 1e300"],
    ["level 0 1 nan"], ["time 99999999999999999999", "level 0 5 0"], ["nps 99999999999999999999", "st 0.3"],
    ["sd 99999999999999999999", "st 0.3"], ["option Contempt=99999999999999999999", "st 0.3"],
    ["option Resign=-99999999999999999999", "st 0.3"], ["option KingSafety=99999999999999999999", "st 0.3"],
], ids=lambda commands: " / ".join(commands))
def test_X05_absurd_numbers(xb: Start, commands: list[str]) -> None:
    """Out-of-range or non-finite numbers never stop the engine from answering and moving (a
    huge `st` or node rate may mean a very long think: `?` ends it)."""
    engine = xb()
    engine.send("new", *commands)
    engine.sync(1, allow=(ERROR,))
    engine.send("time 100", "go")
    time.sleep(0.5)
    engine.send("?")
    engine.expect_move(1.5)
    engine.sync(2)


def test_X06_ping_and_quit_inside_edit(xb: Start) -> None:
    """Inside `edit` a ping is still answered (no GUI sends one there, but a stuck edit mode must
    not make the engine deaf), and quit still quits."""
    engine = xb()
    engine.send("new", "force", "edit", "#", "Ka1")
    engine.sync(1, allow=(ERROR,))
    engine.send("c", "Ka8", "Qb2", ".", "st 1", "go")
    engine.board = chess.Board(F_W1)
    assert engine.expect_move(2.5) == "a1b2"
    engine.send("edit", "quit")
    engine.process.wait(2)


@pytest.mark.parametrize("console_first", [False, True], ids=["--xboard", "console-then-xboard"])
def test_X07_bytes_that_are_not_utf8(xb: Start, console_first: bool) -> None:
    """A GUI may send Latin-1 (an ICS opponent's name): with a strict UTF-8 stdin (a UTF-8 locale,
    simulated with PYTHONIOENCODING) the engine must not go deaf."""
    engine = XBoardEngine(engine_command()[:1] if console_first else None, env={"PYTHONIOENCODING": "utf-8"})
    try:
        engine.init()
        engine.write_raw("name M\u00fcller\n".encode("latin-1") + b"\xff\xfe\xc3\n")
        engine.sync(1, allow=(ERROR,))
        engine.send("new", "st 0.2", "go")
        engine.expect_move(1.5)
    finally:
        engine.close()
    assert engine.crash_report() is None, engine.crash_report()


def test_X08_started_as_console_then_xboard(xb: Start) -> None:
    """`xboard -fcp ponderosa` starts the console, which must hand over to XBoard mode at the
    `xboard` line, with `protover 2` in the same read, and no prompt on the pipe."""
    engine = XBoardEngine(engine_command()[:1])
    try:
        engine.init()
        setboard(engine, F_W1)
        engine.send("st 1", "go")
        assert engine.expect_move(2.5) == "a1b2"
        engine.sync(1)
    finally:
        engine.close()
    assert not [entry for entry in engine.transcript if entry.startswith("< ") and ": " in entry[:20]
                and entry[2:].startswith(("White(", "Black("))]


@pytest.mark.parametrize("text", ["@@@@", "--", "0000", "Z0"])
def test_X09_null_move_is_illegal(xb: Start, text: str) -> None:
    """python-chess's SAN parser reads these as a null move; the engine cannot play one, and must
    say `Illegal move` (it used to say nothing and log a traceback)."""
    engine = xb()
    engine.send("new", "force", f"usermove {text}")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == text
    engine.sync(1)


@pytest.mark.parametrize("counters", ["16 99999999999999999999999999999999", "100000000000000001 78"])
def test_X10_fen_with_absurd_counters(xb: Start, counters: str) -> None:
    """Counters the core cannot hold: the position is refused like any illegal one (it used to
    raise inside the core, with no reply)."""
    engine = xb()
    engine.send("new", "force", f"setboard 8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 w - - {counters}")
    line = engine.read(allowed(1.0))
    assert line is not None and line.text.startswith("tellusererror"), line
    engine.sync(1)


@pytest.mark.parametrize("command", ["option Hash=16", "memory 32"])
def test_X11_hash_resize_right_after_start(xb: Start, command: str) -> None:
    """xboard sends `memory N` (and any `option Hash=N` from its command line) right after the
    handshake, while the start-up thread may still be faulting the table's pages in."""
    engine = xb(cold=True)
    engine.send(command)
    engine.sync(1, timeout=2.0)
    engine.send("new", "st 0.2", "go")
    engine.expect_move(1.5)
    assert engine.alive()


# -- Running the cases side by side ----------------------------------------------------------------
# Most of a case's time is waiting (QUIET windows, `st` searches on one core), so the selected
# cases run JOBS at a time in threads when the module starts; each pytest test then reports its
# case's outcome. PONDEROSA_XBOARD_JOBS=1 runs every case inside its own test instead.

JOBS = int(os.environ.get("PONDEROSA_XBOARD_JOBS", "3"))
LONGEST_FIRST = ("T54", "T101", "T107", "T35", "T76", "T37", "T33", "T99", "T85", "T47")
SOLO = ("T01", "T40", "X11")    # timed from a cold start: run one by one before the others, as `timing` cases are


def run_case(case: Callable[..., None], params: dict[str, object]) -> BaseException | None:
    engines = Engines()
    try:
        case(engines, **params)
        engines.finish()
    except BaseException as error:   # pytest's skip/fail outcomes are BaseExceptions too
        try:
            engines.finish()
        except BaseException:
            pass
        return error
    return None


@pytest.fixture(scope="module")
def case_outcomes(request: pytest.FixtureRequest) -> dict[str, BaseException | None]:
    items = [item for item in request.session.items
             if getattr(item, "module", None) is sys.modules[__name__] and hasattr(item.obj, "case")
             and item.get_closest_marker("skip") is None]
    def params(item: pytest.Item) -> dict[str, object]:
        return dict(item.callspec.params) if hasattr(item, "callspec") else {}

    def alone(item: pytest.Item) -> bool:
        return item.name.startswith(SOLO) or item.get_closest_marker("timing") is not None

    outcomes = {}
    for item in filter(alone, items):   # a `timing` case holds its bounds as written (tests/wall_clock.py)
        wall_clock.scale = 1.0 if item.get_closest_marker("timing") else wall_clock.LOADED_SCALE
        outcomes[item.nodeid] = run_case(item.obj.case, params(item))
    wall_clock.scale = wall_clock.LOADED_SCALE
    items = sorted((item for item in items if not alone(item)),
                   key=lambda item: not item.name.startswith(LONGEST_FIRST))
    with ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
        futures = {item.nodeid: pool.submit(run_case, item.obj.case, params(item)) for item in items}
        outcomes.update({nodeid: future.result() for nodeid, future in futures.items()})
    return outcomes


def reported(case: Callable[..., None]) -> Callable[..., None]:
    """The pytest test for a case: its outcome from the side-by-side run (or, with JOBS=1, the
    case itself, run now)."""
    parameters = [p for name, p in inspect.signature(case).parameters.items() if name != "xb"]

    def test(request: pytest.FixtureRequest, **params: object) -> None:
        if JOBS <= 1:
            error = run_case(case, params)
        else:
            error = request.getfixturevalue("case_outcomes")[request.node.nodeid]
        if error is not None:
            raise error

    test.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD), *parameters])
    test.__name__, test.__qualname__, test.__doc__ = case.__name__, case.__qualname__, case.__doc__
    test.pytestmark = getattr(case, "pytestmark", [])  # type: ignore[attr-defined]
    test.case = case  # type: ignore[attr-defined]
    return test


for _name, _case in list(globals().items()):
    if _name.startswith("test_") and callable(_case) and "xb" in inspect.signature(_case).parameters:
        globals()[_name] = reported(_case)


def test_case_list_is_complete() -> None:
    """Every numbered case of §11 has a test here."""
    numbers = {int(m.group(1)) for m in (re.match(r"^test_T(\d+)", name) for name in globals()) if m}
    expected = set(range(1, 15)) | set(range(20, 31)) | set(range(33, 115))
    assert expected - numbers == set()
    assert len(expected) == 107


