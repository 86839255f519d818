"""tools/match/clock_report.py: each side's clock rebuilt from a match's or an SPRT's move times."""
from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from tools.match import clock_report

# White spends 1.0 + 2.0 s, Black 0.5 + 4.5 s at 5+1: White 5 -1 +1 -2 (lowest 3) +1 = 4 at the end;
# Black 5 -0.5 (4.5) +1 = 5.5, -4.5 (lowest 1.0) +1 = 2.0.
MATCH_GAME = """[Event "Ponderosa gauntlet"]
[Round "1.1"]
[White "Alpha"]
[Black "Beta"]
[Result "1/2-1/2"]
[TimeControl "5+1"]
[Termination "normal"]

1. e4 { +0.20/10 1.000s } e5 { -0.10/9 0.500s } 2. Nf3 { +0.25/11 2.000s } Nc6 { -0.20/8 4.500s } 1/2-1/2
"""

# Black's only move overdraws its 1-second clock: a time loss rebuilt from the times alone.
OVERDRAWN_GAME = """[Event "Ponderosa gauntlet"]
[Round "2.1"]
[White "Alpha"]
[Black "Beta"]
[Result "1/2-1/2"]
[TimeControl "1"]
[Termination "normal"]

1. d4 { +0.10/5 0.200s } d5 { -0.10/5 1.100s } 1/2-1/2
"""

# The scripts' verdict: the losing move is not in the PGN, so only the tag tells.
FORFEIT_GAME = """[Event "Ponderosa SPRT"]
[Round "7.2"]
[White "Ponderosa"]
[Black "Ponderosa"]
[Result "1-0"]
[TimeControl "10+0.1"]
[Termination "time forfeit"]

1. c4 { +0.10/5 0.300s } 1-0
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_clocks_are_rebuilt_move_by_move(tmp_path: Path) -> None:
    table = clock_report.report([write(tmp_path, "match.pgn", MATCH_GAME)])
    alpha, beta = table["Alpha"], table["Beta"]
    assert alpha["games"] == beta["games"] == 1
    assert alpha["min_clock_s"] == pytest.approx(3.0) and alpha["clock_left_s"] == pytest.approx(4.0)
    assert beta["min_clock_s"] == pytest.approx(1.0) and beta["clock_left_s"] == pytest.approx(2.0)
    assert alpha["move_ms"] == pytest.approx(1500.0) and beta["move_ms"] == pytest.approx(2500.0)
    assert alpha["first30_s_per_move"] == pytest.approx(1.5)
    assert alpha["time_losses"] == beta["time_losses"] == 0


def test_a_clock_below_zero_and_a_forfeit_are_time_losses(tmp_path: Path) -> None:
    table = clock_report.report([write(tmp_path, "over.pgn", OVERDRAWN_GAME)])
    assert table["Beta"]["time_losses"] == 1 and table["Alpha"]["time_losses"] == 0
    # Round 7.2 of an SPRT: the candidate had Black, and Black lost on time.
    table = clock_report.report([write(tmp_path, "sprt.pgn", FORFEIT_GAME)])
    assert table["candidate"]["time_losses"] == 1 and table["base"]["time_losses"] == 0
    assert table["base"]["min_clock_s"] == pytest.approx(9.7)


def test_sprt_sides_follow_the_round(tmp_path: Path) -> None:
    first = FORFEIT_GAME.replace('[Round "7.2"]', '[Round "7.1"]')
    table = clock_report.report([write(tmp_path, "sprt.pgn", first)])
    assert table["base"]["time_losses"] == 1 and table["candidate"]["move_ms"] == pytest.approx(300.0)


def test_xz_files_and_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.pgn.xz"
    path.write_bytes(lzma.compress((MATCH_GAME + "\n" + OVERDRAWN_GAME).encode()))
    assert clock_report.main([str(path), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["Beta"]["games"] == 2 and table["Beta"]["time_losses"] == 1
    assert table["Beta"]["min_clock_s"] == pytest.approx(-0.1)


def test_a_bad_time_control_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "bad.pgn", MATCH_GAME.replace('"5+1"', '"five"'))
    assert clock_report.main([str(path)]) == 1
    assert "five" in capsys.readouterr().err


def test_faults_are_charged_to_the_side_that_made_them(tmp_path: Path) -> None:
    illegal = MATCH_GAME.replace('[Result "1/2-1/2"]', '[Result "1-0"]').replace(
        '"normal"', '"rules infraction"').replace(
        "4.500s } 1/2-1/2", "4.500s } { Black (Beta) plays an illegal move: e1e8 } 1-0")
    crash = OVERDRAWN_GAME.replace('[Result "1/2-1/2"]', '[Result "0-1"]').replace(
        '"normal"', '"rules infraction"').replace(
        "1.100s } 1/2-1/2", "1.100s } { White (Alpha) crashed: exit code -11 } 0-1")
    table = clock_report.report([write(tmp_path, "a.pgn", illegal), write(tmp_path, "b.pgn", crash)])
    assert (table["Beta"]["illegal_moves"], table["Beta"]["crashes"]) == (1, 0)
    assert (table["Alpha"]["illegal_moves"], table["Alpha"]["crashes"]) == (0, 1)
    assert table["Alpha"]["errors"] == table["Beta"]["errors"] == 0
