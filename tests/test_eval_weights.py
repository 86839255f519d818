"""The generated weights file: the core loads it, the writer reproduces it, the tuner can change it."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ponderosa.core_ext.core import Board, Evaluator, default_weights, get_weights, set_weights

from tools.tune import eval_weights


@pytest.fixture
def restore_weights() -> Iterator[None]:
    yield
    set_weights(default_weights())


def test_file_names_every_weight_of_the_core() -> None:
    assert set(default_weights()) == {w.name for w in eval_weights.LAYOUT}
    assert get_weights() == default_weights()


def test_writer_reproduces_the_file_byte_for_byte(tmp_path: Path) -> None:
    text = eval_weights.WEIGHTS_FILE.read_text()
    source = text.splitlines()[2].split("(", 1)[1].rsplit(")", 1)[0]
    out = tmp_path / "eval_weights.pxi"
    eval_weights.write(default_weights(), source, out)
    assert out.read_text() == text


def test_writer_rejects_a_wrong_length(tmp_path: Path) -> None:
    weights = default_weights()
    weights["PIECE_MG"] = [0, 100]
    with pytest.raises(ValueError, match="PIECE_MG"):
        eval_weights.write(weights, "test", tmp_path / "w.pxi")
    assert not list(tmp_path.iterdir())


def test_set_weights_changes_the_evaluation(restore_weights: None) -> None:
    board = Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    before = Evaluator().evaluate(board)
    piece_eg = default_weights()["PIECE_EG"]
    piece_mg = default_weights()["PIECE_MG"]
    set_weights({"PIECE_MG": [v + (100 if i == 4 else 0) for i, v in enumerate(piece_mg)],
                          "PIECE_EG": [v + (100 if i == 4 else 0) for i, v in enumerate(piece_eg)]})
    assert Evaluator().evaluate(board) == before + 100
    set_weights({"TEMPO_MG": 0, "TEMPO_EG": 0})
    assert get_weights()["TEMPO_EG"] == 0


def test_psq_diagram_maps_to_both_colours(restore_weights: None) -> None:
    knight = default_weights()["PSQ_KNIGHT_MG"]
    white = Board("4k3/8/8/8/8/8/P7/1N2K3 w - - 0 1")      # knight b1 (diagram index 57)
    black = Board("1n2k3/p7/8/8/8/8/8/4K3 b - - 0 1")      # its mirror, Black to move
    assert Evaluator().evaluate(white) == Evaluator().evaluate(black)
    base = Evaluator().evaluate(white)
    set_weights({"PSQ_KNIGHT_MG": [v + (40 if i == 57 else 0) for i, v in enumerate(knight)],
                          "PSQ_KNIGHT_EG": [v + (40 if i == 57 else 0)
                                            for i, v in enumerate(default_weights()["PSQ_KNIGHT_EG"])]})
    assert Evaluator().evaluate(white) == base + 40
    assert Evaluator().evaluate(black) == base + 40


def test_bad_weights_change_nothing(restore_weights: None) -> None:
    with pytest.raises(ValueError, match="unknown"):
        set_weights({"NO_SUCH_WEIGHT": 1})
    with pytest.raises(ValueError, match="PIECE_MG"):
        set_weights({"TEMPO_MG": 99, "PIECE_MG": [1, 2, 3]})
    assert get_weights() == default_weights()
