"""The program's start and end: the banner at a terminal only, --version, and a clean close of the
learned store on every way out (quit, end of input, SIGTERM, SIGINT)."""
from __future__ import annotations

import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ponderosa.engine.identity import FULL_NAME
from ponderosa.protocol.xboard.features import feature_lines

from tests.xboard_harness import engine_command

PROGRAM = [sys.executable, "-m", "ponderosa.protocol.cli"]
LEARNED = "ponderosa-learned.db"
# Play a move and give it a user value: the learned store is written (and its write-ahead log opened).
LEARN_SOMETHING = ["force", "e4", "bookeval 75", "echo stored"]


def start(arguments: list[str] = ()) -> subprocess.Popen[str]:
    return subprocess.Popen(PROGRAM + list(arguments), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def send(process: subprocess.Popen[str], lines: list[str], until: str) -> None:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(line + "\n" for line in lines))
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        assert line, f"the engine ended before printing {until!r}"
        if until in line:
            return
    raise AssertionError(f"no {until!r} within a minute")


def learned_files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.startswith(LEARNED))


def user_values(folder: Path) -> int:
    with sqlite3.connect(folder / LEARNED) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM user_values").fetchone()[0])


def test_version_is_printed_and_the_program_exits() -> None:
    done = subprocess.run(PROGRAM + ["--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == FULL_NAME


def test_banner_at_a_terminal(tmp_path: Path) -> None:
    """After .ponderosarc: the tables it points at are in the banner."""
    tables = Path(__file__).resolve().parent / "data" / "syzygy"
    (tmp_path / ".ponderosarc").write_text(f"tbpath {tables}\nexit\n")
    controller, terminal = pty.openpty()
    process = subprocess.Popen(PROGRAM, stdin=terminal, stdout=terminal, stderr=terminal)
    os.close(terminal)
    os.write(controller, b"quit\n")
    output = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(controller, 4096)
            except OSError:   # the terminal closed: the program has ended
                break
            if not chunk:
                break
            output += chunk
    process.wait(timeout=30)
    os.close(controller)
    text = output.decode(errors="replace")
    assert FULL_NAME in text
    assert "hash table memory = 64M bytes" in text and "pawn hash table memory = 4M bytes" in text
    assert "search threads = 1" in text
    assert "opening book:" in text and "positions)" in text
    assert "learned data:" in text
    assert f"4 piece tablebase files found in {tables}" in text


def test_no_banner_for_a_gui() -> None:
    """A GUI talks through pipes: the first thing it reads is the protocol's answer."""
    done = subprocess.run(PROGRAM, input="xboard\nprotover 2\nquit\n", capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[0].startswith("feature ")
    assert "hash table memory" not in done.stdout


@pytest.mark.parametrize("way_out", ["quit", "end of input", "SIGTERM", "SIGINT", "SIGHUP", "quit in XBoard mode",
                                     "SIGTERM in XBoard mode", "SIGHUP in XBoard mode",
                                     "end of input in XBoard mode"])
def test_every_way_out_leaves_only_the_database_and_keeps_what_was_learned(tmp_path: Path, way_out: str) -> None:
    process = start()
    send(process, LEARN_SOMETHING, until="stored")
    assert (tmp_path / (LEARNED + "-wal")).exists()   # the write-ahead log is open while the engine runs
    assert process.stdin is not None
    if way_out == "quit":
        process.stdin.write("quit\n")
        process.stdin.flush()
    elif way_out == "end of input":
        process.stdin.close()
        process.stdin = None   # communicate must not flush it again
    elif way_out == "SIGTERM":
        process.send_signal(signal.SIGTERM)
    elif way_out == "SIGINT":
        process.send_signal(signal.SIGINT)
    elif way_out == "SIGHUP":   # the terminal it ran in was closed
        process.send_signal(signal.SIGHUP)
    elif way_out == "quit in XBoard mode":
        # As XBoard does: `quit`, with the pipe to the engine still open until the engine is gone.
        send(process, ["xboard", "protover 2"], until="done=1")
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=60)
    elif way_out == "end of input in XBoard mode":   # xboard killed (SIGKILL) mid-game: the pipe closes
        send(process, ["xboard", "protover 2"], until="done=1")
        send(process, ["new", "e2e4", "ping 1"], until="pong 1")
        process.stdin.close()
        process.stdin = None
    else:
        send(process, ["xboard", "protover 2"], until="done=1")
        process.send_signal(signal.SIGHUP if way_out.startswith("SIGHUP") else signal.SIGTERM)
    process.communicate(timeout=60)
    assert learned_files(tmp_path) == [LEARNED]
    assert user_values(tmp_path) == 1


def test_protover_is_answered_at_once_and_every_line_reaches_the_engine() -> None:
    """The installed program answers `protover` with its features before the engine has loaded
    (protocol/launch.py), once; the lines behind it still reach the engine in order (the pong
    comes after the move's own lines), and the end of input still ends the program."""
    process = subprocess.Popen(engine_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("xboard\nprotover 2\nnew\nforce\ne2e4\nsd 1\ngo\nping 1\n")
    process.stdin.flush()
    lines = []
    while not lines or lines[-1] != "pong 1":
        line = process.stdout.readline()
        assert line, f"the engine ended early: {lines}"
        lines.append(line.rstrip("\n"))
    features = [line for line in lines if line.startswith("feature ")]
    assert features == feature_lines() and lines[:len(features)] == features, lines
    assert [line for line in lines if line.startswith("move ")] and lines.index("pong 1") > lines.index(
        next(line for line in lines if line.startswith("move "))), lines
    assert not [line for line in lines if line.startswith(("Error", "Illegal"))], lines
    process.stdin.close()   # the end of input
    assert process.wait(timeout=60) == 0


@pytest.mark.parametrize("front_end", ["xboard", "uci"])
def test_a_gui_gone_from_the_output_ends_the_session_quietly(tmp_path: Path, front_end: str) -> None:
    """The GUI closes its end of the engine's output (or dies) while the input stays open: the next
    line the engine sends finds no reader, and the engine ends as at the end of its input, keeping
    what it learned, with no traceback on standard error."""
    process = start()
    send(process, LEARN_SOMETHING, until="stored")
    if front_end == "xboard":
        send(process, ["xboard", "protover 2"], until="done=1")
        more = ["new", "e2e4", "ping 1"]
    else:
        send(process, ["uci"], until="uciok")
        more = ["position startpos moves e2e4", "go depth 4", "isready"]
    assert process.stdin is not None and process.stdout is not None
    process.stdout.close()
    process.stdin.write("".join(line + "\n" for line in more))
    process.stdin.flush()
    process.wait(timeout=60)   # the input is still open: only the closed output ends the engine
    error = process.stderr.read() if process.stderr else ""
    assert "Traceback" not in error and "BrokenPipe" not in error, error
    assert learned_files(tmp_path) == [LEARNED]
    assert user_values(tmp_path) == 1
