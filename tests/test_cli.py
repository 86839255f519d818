"""The installed `ponderosa` program, run as a subprocess."""
from __future__ import annotations

import re
import shutil
import subprocess

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


def test_prompt_shows_side_and_move_number() -> None:
    result = run(stdin="setboard 4k3/8/8/8/8/8/8/4K2R b K - 0 37\nquit\n")
    assert "White(1): " in result.stdout
    assert "Black(37): " in result.stdout


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
