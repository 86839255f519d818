"""tools/nnue/label_depth.py: the trainer's positions of packed games searched again at several node
counts and compared by the trainer's loss."""
from __future__ import annotations

import json
from pathlib import Path

import chess
import numpy as np
import pytest

from tools.nnue import label_depth
from tools.nnue.packed_games import PackedGame, write_games


def quiet_game(plies: int) -> PackedGame:
    """A game of knight moves back and forth (no captures, no checks) with made-up scores."""
    game = PackedGame(chess.STARTING_FEN, "1/2-1/2")
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for ply in range(plies):
        game.moves.append(chess.Move.from_uci(moves[ply % 4]))
        game.scores.append(10 * ply - 40)
    return game


def test_only_the_positions_the_trainer_takes_are_drawn(tmp_path: Path) -> None:
    path = tmp_path / "games.pgm.xz"
    game = quiet_game(12)
    game.scores[9] = 5000   # beyond the trainer's score limit: left out
    write_games(path, [game])
    found = label_depth.trainable_positions([path])
    # plies 8..11 are past the opening's first 8; ply 9's score is too large
    assert [score for _, score in found] == [40, 60, 70]
    board = chess.Board()
    for move in game.moves[:8]:
        board.push(move)
    assert found[0][0] == board.fen()


def test_the_loss_between_label_sets_is_the_trainers() -> None:
    rows = label_depth.compare({"a": np.array([0, 400]), "b": np.array([0, 400]), "c": np.array([400, 0])})
    by_pair = {row["labels"]: row for row in rows}
    assert by_pair["a ~ b"]["loss"] == 0.0 and by_pair["a ~ b"]["mean_abs_cp"] == 0.0
    # sigmoid(1) - sigmoid(0) = 0.2311 both times
    assert by_pair["a ~ c"]["loss"] == pytest.approx(0.2310586 ** 2, rel=1e-5)
    assert by_pair["b ~ c"]["mean_abs_cp"] == 400.0
    assert len(rows) == 3


def test_searched_labels_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.pgm.xz"
    write_games(path, [quiet_game(16)])
    assert label_depth.main([str(path), "--positions", "3", "--nodes", "200,400", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["positions"] == 3 and report["nodes"] == [200, 400]
    pairs = [row["labels"] for row in report["pairs"]]
    assert pairs == ["file ~ static", "file ~ nodes200", "file ~ nodes400", "static ~ nodes200",
                     "static ~ nodes400", "nodes200 ~ nodes400"]
    assert all(row["loss"] >= 0 for row in report["pairs"])
    with pytest.raises(SystemExit):
        label_depth.main([str(path), "--positions", "100"])   # more than the file holds
