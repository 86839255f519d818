"""tools/tune/label.py: positions labelled by a UCI engine's search, mixed with their game results.
Ponderosa itself (through its UCI mode) stands in for Stockfish here."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.xboard_harness import engine_command
from tools.tune import label

WHITE_QUEEN_UP = "4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 30"
BLACK_QUEEN_UP = "3qk3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 30"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def uci_command() -> str:
    return shlex.join([*engine_command()[:-1], "--uci"])


def test_labels_mix_the_result_with_the_engines_expected_score(tmp_path: Path) -> None:
    positions, output = tmp_path / "positions.txt", tmp_path / "labelled.txt"
    positions.write_text(f"# game\n{WHITE_QUEEN_UP};0.5\n{BLACK_QUEEN_UP};0.5\n# game\n{START};1\n")
    assert label.main([str(positions), str(output), "--engine", uci_command(), "--nodes", "3000",
                       "--mix", "0.5", "--workers", "1"]) == 0
    lines = output.read_text().splitlines()
    assert lines[0].startswith("# tools/tune/label.py")
    assert [line for line in lines[1:] if line.startswith("#")] == ["# game", "# game"]   # games kept
    values = {fen: float(value) for fen, value in (line.rsplit(";", 1) for line in lines if not line.startswith("#"))}
    assert values[WHITE_QUEEN_UP] > 0.7             # 0.25 from the draw, nearly 0.5 from the search
    assert values[BLACK_QUEEN_UP] < 0.3
    assert 0.6 < values[START] < 0.9                # the win's 0.5 and about half of 0.5


def test_a_broken_line_names_file_and_line(tmp_path: Path) -> None:
    positions = tmp_path / "positions.txt"
    positions.write_text(f"{START};0.5\n{START};2\n")
    with pytest.raises(SystemExit, match=r"positions.txt:2: result '2'"):
        label.main([str(positions), str(tmp_path / "out.txt"), "--workers", "1"])
    assert not (tmp_path / "out.txt").exists()


def test_an_engine_that_will_not_start_is_named(tmp_path: Path) -> None:
    positions = tmp_path / "positions.txt"
    positions.write_text(f"{START};0.5\n")
    with pytest.raises(SystemExit, match="no-such-engine"):
        label.main([str(positions), str(tmp_path / "out.txt"), "--engine", str(tmp_path / "no-such-engine"),
                    "--workers", "1"])
    assert not (tmp_path / "out.txt").exists()
