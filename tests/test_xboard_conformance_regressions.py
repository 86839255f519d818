"""Conformance cases beyond docs/PROTOCOL.md §11: regressions found while proving the protocol, one
test each, run against the installed `ponderosa --xboard` through tests/xboard_harness.py
(tests/xboard_cases.py runs them side by side, and says how clocks are kept short)."""
from __future__ import annotations

import time

import chess
import pytest

from tests.wall_clock import allowed
from tests.xboard_cases import Start, pv_first_move, register_cases, setboard
from tests.xboard_harness import (
    ERROR,
    F_MID,
    F_W1,
    ILLEGAL,
    PONG,
    RESULT,
    THINK,
    XBoardEngine,
    engine_command,
)

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


def expected_reply(engine: XBoardEngine, move_seconds: float) -> str:
    """Wait for the engine's move and return the reply it ponders on (`hint`); when it has none
    (the search ended inside an iteration with a one-move PV), play on until it has."""
    for _ in range(4):
        engine.expect_move(move_seconds)
        engine.send("hint")
        hint = [line.text.split()[1] for line in engine.sync(50) if line.text.startswith("Hint:")]
        if hint:
            return hint[0]
        engine.move(next(iter(engine.board.legal_moves)).uci())
    pytest.fail("the engine never pondered")


def test_X02_ponder_hit_thinking_lines(xb: Start) -> None:
    """After a ponder hit the thinking lines show the engine's own line, and its move follows."""
    engine = xb()
    engine.send("new", "hard", "post", "st 1")
    engine.move("e2e4")
    engine.move(expected_reply(engine, 2.5))
    engine.expect_move(2.5)
    after_hit = engine.board.copy()
    after_hit.pop()
    pvs = [m.group(5) for m in (THINK.match(text) for text in engine.side_lines) if m]
    assert pvs, "no thinking lines after the ponder hit"
    assert all(pv and pv.strip() for pv in pvs), f"empty PV in {engine.side_lines}"
    assert pv_first_move(pvs[-1], after_hit) == engine.board.peek(), "the last PV does not start with the move"
    engine.sync(1)


def test_X02b_ponder_hit_after_the_budget_is_spent_still_shows_a_line(xb: Start) -> None:
    """A ponder hit after pondering longer than the move's budget plays at once; a thinking line
    for the engine's own move still comes before the move (GUIs and bots show its score)."""
    engine = xb()
    setboard(engine, F_MID)   # out of the book: a ponder hit into the book is a book move
    engine.send("hard", "post", "st 0.5", "go")
    reply = expected_reply(engine, 2.0)
    time.sleep(1.5)   # three times the budget, which counts from the start of pondering
    engine.move(reply)
    engine.expect_move(1.0)
    after_hit = engine.board.copy()
    after_hit.pop()
    pvs = [m.group(5) for m in (THINK.match(text) for text in engine.side_lines) if m]
    assert pvs, f"no thinking line before the move after the ponder hit: {engine.side_lines}"
    assert pv_first_move(pvs[-1], after_hit) == engine.board.peek(), \
        f"the last PV does not start with the move: {engine.side_lines[-3:]}"
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


register_cases(globals())
