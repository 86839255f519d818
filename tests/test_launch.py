"""The launcher's relay (protocol/launch.py): what it answers before the engine has loaded, what
it hands on, and that its feature lines are the session's own."""
from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from ponderosa.engine.engine import Engine
from ponderosa.protocol.launch import WAIT_FOR_DONE, relay
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
