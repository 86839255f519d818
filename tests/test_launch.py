"""The launcher's relay (protocol/launch.py): what it answers before the engine has loaded, what
it hands on, that its feature lines are the session's own, and that the time lines waited for
the engine to load is gone from the move's clock (protocol/arrivals.py)."""
from __future__ import annotations

import io
import subprocess
import time
from pathlib import Path

import pytest

from ponderosa.engine.engine import Engine
from ponderosa.protocol.arrivals import ARRIVALS, ArrivalNotes
from ponderosa.protocol.launch import WAIT_FOR_DONE, relay
from ponderosa.protocol.uci.go import parse_go, search_limits
from ponderosa.protocol.xboard.features import EarlyAnswer, feature_lines
from ponderosa.protocol.xboard.session import XBoardSession

from tests.xboard_harness import engine_command


class Sink(io.BytesIO):
    def close(self) -> None:   # keep the bytes for the test to read
        pass


def run_relay(lines: list[str], capfd: pytest.CaptureFixture[str], answer_features: bool = True
              ) -> tuple[list[str], list[str]]:
    """(what the relay wrote to standard output, what it handed on to the program)."""
    sink = Sink()
    try:
        relay(io.BytesIO("".join(f"{line}\n" for line in lines).encode()), sink, answer_features)
        written = capfd.readouterr().out.splitlines()
    finally:
        EarlyAnswer.take()   # no later session in this process may take it for its own
    return written, sink.getvalue().decode().splitlines()


def test_handshake_pings_are_answered_and_not_handed_on(capfd: pytest.CaptureFixture[str]) -> None:
    written, handed_on = run_relay(["xboard", "protover 2", "accepted ping", "rejected san", "ping 7", "ping"], capfd)
    assert written == feature_lines() + ["pong 7", "pong"]
    assert handed_on == ["xboard", "protover 2", "accepted ping", "rejected san"]


def test_a_ping_after_any_other_command_goes_to_the_program(capfd: pytest.CaptureFixture[str]) -> None:
    """The program must answer it: only it knows when `new` (and all before the ping) is done."""
    written, handed_on = run_relay(["xboard", "protover 2", "new", "ping 1", "ping 2"], capfd)
    assert written == feature_lines()
    assert handed_on == ["xboard", "protover 2", "new", "ping 1", "ping 2"]


def test_a_ping_before_protover_goes_to_the_program(capfd: pytest.CaptureFixture[str]) -> None:
    written, handed_on = run_relay(["xboard", "ping 1", "protover 2"], capfd)
    assert written == feature_lines()
    assert handed_on == ["xboard", "ping 1", "protover 2"]


def test_with_a_startup_file_the_session_answers(capfd: pytest.CaptureFixture[str]) -> None:
    """A .ponderosarc may change what the features show: done=0 only, the rest from the session."""
    written, handed_on = run_relay(["xboard", "protover 2", "ping 1"], capfd, answer_features=False)
    assert written == [WAIT_FOR_DONE.decode().strip()]
    assert handed_on == ["xboard", "protover 2", "ping 1"]


def session_protover() -> list[str]:
    out = io.StringIO()
    engine = Engine()
    try:
        XBoardSession(engine, out).handle("protover 2")
    finally:
        engine.shutdown()
    return out.getvalue().splitlines()


def test_the_early_features_are_a_fresh_sessions_own() -> None:
    assert session_protover() == feature_lines()


def test_the_session_is_silent_after_the_early_answer() -> None:
    EarlyAnswer.sent = True
    assert session_protover() == []
    assert session_protover() == feature_lines()   # the early answer stands for one protover only


def test_a_startup_file_changes_the_features(tmp_path: Path) -> None:
    """The installed program with a .ponderosarc that sets the tablebase path: done=0 at once,
    then the features showing the file's setting."""
    (tmp_path / ".ponderosarc").write_text(f"tbpath {tmp_path}\nexit\n")
    process = subprocess.run(engine_command(), input="xboard\nprotover 2\nping 1\nquit\n", capture_output=True,
                             text=True, timeout=60, cwd=tmp_path)
    lines = process.stdout.splitlines()
    assert lines[0] == WAIT_FOR_DONE.decode().strip(), lines
    assert f'feature option="SyzygyPath -path {tmp_path}"' in lines and lines[-1] == "pong 1", lines


# -- the time lines waited while the engine loaded ------------------------------------------

def test_the_relay_notes_when_each_line_it_hands_on_came(capfd: pytest.CaptureFixture[str]) -> None:
    notes = ArrivalNotes(recording=True)
    before = time.monotonic()
    source = io.BytesIO(b"xboard\nprotover 2\nping 3\nnew\ngo\n")
    try:
        relay(source, Sink(), arrivals=notes)
    finally:
        EarlyAnswer.take()
    capfd.readouterr()
    assert notes.waiting() == 4   # the ping the relay answered is not the program's to read
    assert notes.arrival("new") is not None   # xboard and protover, read by nobody, are passed over
    arrived = notes.arrival("go\n")
    assert arrived is not None and before <= arrived <= time.monotonic()
    assert notes.waiting() == 0 and notes.arrival("go") is None


def test_no_line_is_noted_once_the_program_reads() -> None:
    notes = ArrivalNotes(recording=True)
    notes.note(b"new\n")
    notes.stop_recording()
    notes.note(b"go\n")
    assert notes.arrival("go") is None   # read as it came: nothing to charge
    assert ArrivalNotes().waiting() == 0 and ARRIVALS.waiting() == 0   # no relay in this process


def test_a_line_found_nowhere_clears_the_notes() -> None:
    """A line the reader splits otherwise than the relay (a lone CR) finds no note: it and the
    lines after it are charged nothing rather than another line's time."""
    notes = ArrivalNotes(recording=True)
    notes.note(b"time 500\rgo\n")
    assert notes.arrival("time 500") is None and notes.arrival("go") is None


def test_an_xboard_move_asked_for_while_loading_is_allocated_from_the_clock_left() -> None:
    engine = Engine()
    try:
        session = XBoardSession(engine, io.StringIO())
        for line in ("new", "level 0 1 0", "time 6000"):
            session.handle(line)
        fresh = session.clock.think_limits(session.ponder_enabled, 0.0)
        session.line_arrived = time.monotonic() - 30.0   # half the clock gone while it waited
        waited = session.thinking_limits()
        session.clock.own_seconds = 30.0
        half_clock = session.clock.think_limits(session.ponder_enabled, 0.0)
    finally:
        engine.shutdown()
    assert waited.soft_seconds is not None and fresh.soft_seconds is not None
    assert waited.soft_seconds < fresh.soft_seconds
    assert waited.soft_seconds == pytest.approx(half_clock.soft_seconds, rel=0.01)
    assert waited.hard_seconds == pytest.approx(half_clock.hard_seconds, rel=0.01)


def test_a_fixed_time_a_move_loses_the_wait() -> None:
    engine = Engine()
    try:
        session = XBoardSession(engine, io.StringIO())
        session.handle("st 2")
        session.line_arrived = time.monotonic() - 0.5
        limits = session.thinking_limits()
    finally:
        engine.shutdown()
    assert limits.hard_seconds is not None and 1.35 < limits.hard_seconds < 1.5
    assert limits.soft_seconds == limits.hard_seconds   # still all of it, none beyond


def test_a_uci_go_that_waited_is_allocated_from_the_clock_left() -> None:
    go = parse_go("wtime 60000 btime 60000")
    waited = search_limits(go, "think", True, False, 0.03, waited=30.0)
    half = search_limits(parse_go("wtime 30000 btime 60000"), "think", True, False, 0.03)
    assert (waited.soft_seconds, waited.hard_seconds) == (half.soft_seconds, half.hard_seconds)
    assert waited.soft_seconds < search_limits(go, "think", True, False, 0.03).soft_seconds
    moved = search_limits(parse_go("movetime 2000"), "think", True, False, 0.03, waited=0.5)
    assert moved.hard_seconds == search_limits(parse_go("movetime 1500"), "think", True, False, 0.03).hard_seconds


@pytest.mark.parametrize("flag", [["--xboard"], []])
def test_the_program_charges_the_load_to_a_move_sent_with_the_handshake(flag: list[str]) -> None:
    """python-chess sends `new`, the clocks and `go` right after the early features, with no
    ping: the session reads them once the engine has loaded, and the wait is gone from its clock."""
    lines = "xboard\nprotover 2\nnew\noption OwnBook=0\nlevel 0 1 0\ntime 6000\notim 6000\nsd 1\ngo\n"
    process = subprocess.Popen(engine_command() + flag, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(lines)   # at once, before the engine has loaded
    process.stdin.flush()
    told = []
    for line in process.stdout:
        told.append(line.strip())
        if line.startswith("move "):
            break
    process.stdin.write("quit\n")
    process.stdin.close()
    process.wait(timeout=60)
    waits = [line for line in told if line.startswith("#") and "waited before this move's search" in line]
    assert len(waits) == 1, told
    assert float(waits[0].split()[1]) >= 0.05
