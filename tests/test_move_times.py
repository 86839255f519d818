"""tools/match/move_times.py: one timed move over each position, read through a real protocol client."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ponderosa.engine.engine import Engine
from ponderosa.engine.search import WON_MIN_DEPTH, SearchLimits, won_position

from tools.match import move_times

WON_POSITIONS = Path(__file__).parent / "data" / "suites" / "won_positions.epd"


def test_the_won_positions_are_won_at_the_rules_depth() -> None:
    """The file's claim: the engine scores each position WON_SCORE or more at WON_MIN_DEPTH."""
    engine = Engine()
    try:
        boards = move_times.read_positions(WON_POSITIONS)
        assert len(boards) == 10
        for board in boards:
            engine.new_game()
            engine.set_position(board.fen())
            result = engine.think(SearchLimits(depth=WON_MIN_DEPTH))
            assert won_position(result.depth, result.score), (board.fen(), result.score)
    finally:
        engine.shutdown()


def test_a_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.epd"
    path.write_text("# a comment\n8/8/8 w - -\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"bad\.epd:2: not a position"):
        move_times.read_positions(path)


def test_times_a_move_per_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "two.epd"
    path.write_text("r5k1/5ppp/8/8/8/2N5/PPQ2PPP/1R2R1K1 w - - 0 1\n"
                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n", encoding="utf-8")
    assert move_times.main(["ponderosa --uci", str(path), "--clock", "2", "--inc", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [len(row["move"]) for row in report["moves"]] == [4, 4]
    assert all(0 < row["seconds"] < 2 for row in report["moves"])
    assert report["median_seconds"] == pytest.approx(sum(row["seconds"] for row in report["moves"]) / 2, abs=0.001)
