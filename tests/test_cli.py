"""The installed `ponderosa` program, run as a subprocess."""
from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import time

import pytest

PROGRAM = shutil.which("ponderosa")


def run(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    if PROGRAM is None:
        pytest.fail("the `ponderosa` program is not installed on PATH")
    return subprocess.run([PROGRAM, *args], input=stdin, capture_output=True, text=True, timeout=timeout)


def test_perft_from_arguments_prints_nodes_time_and_speed() -> None:
    result = run("perft 5", "quit")
    assert result.returncode == 0
    assert re.search(r"total moves=4865609\s+time=\d+\.\d+s\s+\(\d+\.\d+[MK] nodes/sec\)", result.stdout)


def test_setboard_then_perft_from_arguments() -> None:
    result = run("setboard r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                 "perft 3", "quit")
    assert "total moves=97862" in result.stdout


def test_prompt_shows_side_and_move_number_on_a_terminal() -> None:
    if PROGRAM is None:
        pytest.fail("the `ponderosa` program is not installed on PATH")
    controller, terminal = pty.openpty()
    process = subprocess.Popen([PROGRAM], stdin=terminal, stdout=terminal, stderr=terminal, close_fds=True)
    os.close(terminal)
    os.write(controller, b"setboard 4k3/8/8/8/8/8/8/4K2R b K - 0 37\nquit\n")
    output = b""
    deadline = time.time() + 20
    while time.time() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        elif process.poll() is not None:
            break
    process.wait(timeout=10)
    os.close(controller)
    assert b"White(1): " in output
    assert b"Black(37): " in output


def test_no_prompt_on_a_pipe() -> None:
    # A prompt without a newline would glue itself to the next line a GUI reads.
    result = run(stdin="xboard\nprotover 2\nquit\n")
    assert result.stdout.startswith("feature ")


def test_bad_input_is_reported_and_the_engine_keeps_running() -> None:
    lines = [
        "xyzzy",
        "setboard 4k3/8/8/8/8/8/8/KK2K3 w - - 0 1",      # two white kings
        "setboard 4k3/8/8/8/8/8/8/r3K3 b - - 0 1",       # side not to move in check
        "setboard rnbqkbnr/pppppppp/8/8",                # truncated
        "setboard",
        "perft",
        "perft -3",
        "divide banana",
        "\x00\x01garbage\x7f",
        "perft 2",
        "quit",
    ]
    result = run(stdin="\n".join(lines) + "\n")
    assert result.returncode == 0
    assert result.stderr == ""
    errors = [line for line in result.stdout.splitlines() if "Error" in line]
    assert len(errors) == 9
    assert "Error (unknown command): xyzzy" in result.stdout
    assert "more than one king" in result.stdout
    assert "not to move is in check" in result.stdout
    assert "total moves=400" in result.stdout


def test_crafty_short_fen_divide_and_display() -> None:
    result = run("setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "divide 2", "display", "quit")
    rows = [line for line in result.stdout.splitlines() if re.match(r"^\S+\s+[a-h][1-8][a-h][1-8]\w?\s+\d+$", line)]
    assert len(rows) == 20
    assert "total moves=400" in result.stdout
    assert "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" in result.stdout


def test_perf_reports_both_rates() -> None:
    result = run("perf", "quit")
    assert re.search(r"generated \d+(\.\d)?[MK] moves/sec", result.stdout)
    assert re.search(r"generated/made/unmade \d+(\.\d)?[MK] moves/sec", result.stdout)


@pytest.mark.parametrize("word", ["quit", "end", "exit"])
def test_quit_words_and_end_of_input(word: str) -> None:
    assert run(stdin=f"{word}\nperft 1\n").stdout.count("total moves") == 0
    assert run(stdin="perft 1\n").returncode == 0


def test_help_lists_the_commands() -> None:
    result = run("help", "help perft", "quit")
    for name in ("setboard", "display", "perft", "divide", "perf", "quit"):
        assert name in result.stdout
    assert run("--help").returncode == 0


def test_go_thinks_and_plays(tmp_path) -> None:
    result = run("book off", "sd 5", "go", "display", "quit")
    assert re.search(r"^\s+5->\s+\d+\.\d\d\s+[+-]\d+\.\d\d\s+1\. \S+", result.stdout, re.MULTILINE)
    move = re.search(r"^White\(1\): (\S+)$", result.stdout, re.MULTILINE)
    assert move, result.stdout
    assert " b KQkq " in result.stdout or " b KQkq" in result.stdout


def test_go_plays_from_the_shipped_book_and_says_so() -> None:
    result = run("go", "quit")
    assert re.search(r"^\s+book moves \{e4, d4, c4, Nf3\}$", result.stdout, re.MULTILINE), result.stdout
    move = re.search(r"^White\(1\): (\S+)$", result.stdout, re.MULTILINE)
    assert move and move.group(1) in ("e4", "d4", "c4", "Nf3"), result.stdout


def test_moves_in_san_and_coordinates_and_illegal_ones() -> None:
    result = run("force", "e4", "e7e5", "Nf3", "e5e4", "Ke3", "display", "quit")
    assert "Illegal move: e5e4" in result.stdout
    assert "Illegal move: Ke3" in result.stdout
    assert "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2" in result.stdout


def test_hash_sizes_and_extensions() -> None:
    result = run("hash=1M", "hashp 512K", "extensions incheck 0.5", "extensions", "hash 12Q", "quit")
    assert "hash table memory = 1024K bytes" in result.stdout
    assert re.search(r"incheck\s+0\.50", result.stdout)
    assert "Error: bad size '12Q'" in result.stdout


def test_test_command_runs_a_crafty_suite(tmp_path) -> None:
    suite = tmp_path / "mates.txt"
    suite.write_text("title m1\nsetboard r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq -\n"
                     "solution Qxf7#\ntitle m2\nsetboard 2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w\n"
                     "solution Qg6\ntitle wrong\nsetboard 4k3/8/8/8/8/8/8/4K2R w K -\nsolution Kd1\nend\n")
    result = run("st 0.3", f"test {suite} 2", "quit")
    assert "2 of 3 right" in result.stdout
    assert "failed: wrong" in result.stdout
    missing = run(f"test {tmp_path / 'nope.epd'}", "quit")
    assert f"Error: {tmp_path / 'nope.epd'}: no such file" in missing.stdout


def test_bench_prints_nodes_and_speed() -> None:
    first = run("bench 3", "quit")
    second = run("bench 3", "quit")
    nodes = re.search(r"Total nodes: (\d+)", first.stdout)
    assert nodes and int(nodes.group(1)) > 1000
    assert re.search(r"Nodes/second: \d+", first.stdout)
    assert nodes.group(0) in second.stdout   # deterministic


def test_score_prints_a_breakdown() -> None:
    result = run("score", "quit")
    assert re.search(r"^total\s+[+-]?\d+\.\d\d$", result.stdout, re.MULTILINE)


def test_analyze_follows_moves_until_exit() -> None:
    if PROGRAM is None:
        pytest.fail("the `ponderosa` program is not installed on PATH")
    process = subprocess.Popen([PROGRAM], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None
    process.stdin.write("analyze\n")
    process.stdin.flush()
    time.sleep(0.7)
    process.stdin.write("e4\n")
    process.stdin.flush()
    time.sleep(0.7)
    process.stdin.write("exit\ndisplay\nquit\n")
    process.stdin.flush()
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    assert re.search(r"1\. \S+", output)           # thinking for White
    assert re.search(r"1\. \.\.\. \S+", output)     # then for Black after e4
    assert "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1" in output


def test_console_game_the_engine_replies_and_keeps_the_clock() -> None:
    result = run(stdin="level 0 1 0\nsd 4\ne4\nhistory\ninfo\nquit\n")
    reply = re.search(r"^Black\(1\): (\S+)$", result.stdout, re.MULTILINE)
    assert reply, result.stdout
    assert re.search(r"^\s+1\. e4\s+" + re.escape(reply.group(1)), result.stdout, re.MULTILINE)
    assert "time control: the game in 1 minutes" in result.stdout


def test_startup_file_and_input_command(tmp_path) -> None:
    (tmp_path / ".ponderosarc").write_text("echo rc-was-read\nsd 3\nexit\necho after-exit\n")
    commands = tmp_path / "commands.txt"
    commands.write_text("echo from-input-file\nsetboard 4k3/8/8/8/8/8/8/4K2R w K -\nexit\n")
    result = subprocess.run([PROGRAM or "ponderosa", f"input {commands}", "info", "quit"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, check=False)
    assert "rc-was-read" in result.stdout and "after-exit" not in result.stdout
    assert "from-input-file" in result.stdout
    assert "search limits: depth 3" in result.stdout
    assert "4k3/8/8/8/8/8/8/4K2R w K - 0 1" in result.stdout


def test_force_replaces_the_engines_move_and_remove_takes_back_two() -> None:
    result = run("sd 3", "e4", "force e5", "history", "remove", "history", "quit")
    assert re.search(r"^\s+1\. e4\s+e5\s*$", result.stdout, re.MULTILINE)
    assert result.stdout.count("White    Black") == 2


@pytest.mark.parametrize("start", [["--uci"], []])
def test_uci_writes_no_game_files_unless_asked(tmp_path, start: list[str]) -> None:
    """A UCI GUI keeps the game itself: neither `ponderosa --uci` nor the console's `uci`
    command leaves game.NNN / log.NNN files in the working directory; `log on` first does."""
    if PROGRAM is None:
        pytest.fail("the `ponderosa` program is not installed on PATH")
    session = "position startpos moves e2e4 e7e5\ngo depth 3\nisready\nquit\n"
    if not start:
        session = "uci\n" + session
    result = subprocess.run([PROGRAM, *start], input=session, capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    assert "bestmove" in result.stdout, result.stdout + result.stderr
    assert not sorted(tmp_path.glob("game.*")) and not sorted(tmp_path.glob("log.*"))
    logged = subprocess.run([PROGRAM], input="log on\nuci\n" + session, capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    assert "bestmove" in logged.stdout, logged.stdout + logged.stderr
    assert "1. e4 e5" in (tmp_path / "game.001").read_text()
