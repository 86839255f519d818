"""The conformance cases of docs/PROTOCOL.md §11.1 (handshake and features) and §11.3 (ping and races),
one test each, run against the installed `ponderosa --xboard` through tests/xboard_harness.py
(tests/xboard_cases.py runs them side by side, and says how clocks are kept short)."""
from __future__ import annotations

import importlib
import re
import time
import warnings
from pathlib import Path

import chess
import pytest

from tests.wall_clock import READINGS, allowed
from tests.xboard_cases import (
    OPTION,
    Start,
    long_think,
    option_defaults,
    ponder_setup,
    register_cases,
    setboard,
    thinking,
)
from tests.xboard_harness import (
    ERROR,
    F_MID,
    F_W1,
    FEATURE,
    ILLEGAL,
    PONG,
    XBoardEngine,
)

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
    engine.process.wait(allowed(1.0))


def test_T49c_eof(xb: Start) -> None:
    engine = xb()
    assert engine.process.stdin is not None
    engine.process.stdin.close()
    engine.process.wait(allowed(2.0))


def test_case_list_is_complete() -> None:
    """Every numbered case of §11 has a test in one of the conformance files."""
    files = sorted(Path(__file__).parent.glob("test_xboard_conformance_*.py"))
    assert len(files) == 5, [file.name for file in files]
    names = [name for file in files for name in vars(importlib.import_module(f"tests.{file.stem}"))]
    numbers = {int(m.group(1)) for m in (re.match(r"^test_T(\d+)", name) for name in names) if m}
    expected = set(range(1, 15)) | set(range(20, 31)) | set(range(33, 115))
    assert expected - numbers == set()
    assert len(expected) == 107


register_cases(globals())
