"""The neural evaluation's data path: packed self-play games (tools/packed_games.py) written by
datagen --packed, read back move for move, broken files named; positions extracted with the
core's input indices (tools/nnue_data.py); the trainer from games to a network the engine
loads (when PyTorch, the `train` extra, is installed)."""
from __future__ import annotations

import sys
from pathlib import Path

import chess
import numpy as np
import pytest

from ponderosa.engine import nnue
from ponderosa.engine.nnue import reference

from conftest import load_tool

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import nnue_data  # noqa: E402
from packed_games import PackedGame, PackedGamesError, read_games, write_games  # noqa: E402

datagen = load_tool("datagen_packed_script", "datagen.py")


def sample_games() -> list[PackedGame]:
    game = PackedGame("r3k2r/8/8/8/8/8/6p1/R3K2R b KQkq - 0 1", "0-1")
    board = chess.Board(game.start_fen)
    for uci, score in (("g2g1n", 250), ("e1c1", -120), ("e8g8", 32767)):
        move = chess.Move.from_uci(uci)
        assert board.is_legal(move)
        board.push(move)
        game.moves.append(move)
        game.scores.append(score)
    return [game, PackedGame(chess.STARTING_FEN, "1/2-1/2")]


def test_packed_games_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "games.pgm.xz"
    write_games(path, sample_games())
    again = list(read_games(path))
    assert [(g.start_fen, g.result, g.moves, g.scores) for g in again] == \
        [(g.start_fen, g.result, g.moves, g.scores) for g in sample_games()]
    assert [p.name for p in tmp_path.iterdir()] == ["games.pgm.xz"]


def test_broken_packed_files_are_named(tmp_path: Path) -> None:
    good = tmp_path / "good.pgm.xz"
    write_games(good, sample_games())
    import lzma
    raw = lzma.decompress(good.read_bytes())
    cases = {"cut.pgm.xz": lzma.compress(raw[:-3]), "plain.pgm.xz": raw,
             "magic.pgm.xz": lzma.compress(b"XXXX" + raw[4:]),
             "result.pgm.xz": lzma.compress(raw[:4] + b"\x07" + raw[5:])}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(PackedGamesError, match=name):
            list(read_games(tmp_path / name))


def test_datagen_packed_keeps_every_ply_with_its_score(tmp_path: Path) -> None:
    out = tmp_path / "self.pgm.xz"
    assert datagen.main([str(out), "--packed", "--games", "2", "--nodes", "300", "--workers", "1", "--chunk", "2",
                         "--max-plies", "40"]) == 0
    games = list(read_games(out))
    assert len(games) == 2
    for game in games:
        board = chess.Board(game.start_fen)
        assert game.moves and len(game.moves) == len(game.scores)
        for move in game.moves:
            assert board.is_legal(move)
            board.push(move)
        if board.is_checkmate():
            assert game.result == ("0-1" if board.turn == chess.WHITE else "1-0")


def test_extracted_positions_use_the_core_inputs(tmp_path: Path) -> None:
    path = tmp_path / "games.pgm.xz"
    write_games(path, sample_games())
    data = nnue_data.extract([path], skip_plies=0, max_score=3000)
    # Kept: only the position before e1c1 (the first move is a promotion, the last one's score a mate's).
    assert data["scores"].tolist() == [-120] and data["results"].tolist() == [0.0] and data["games"].tolist() == [0]
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K1nR w KQkq - 0 2")
    row = data["features"][0]
    assert sorted(row[row != nnue_data.PAD].tolist()) == sorted(reference.features(board, board.turn))
    row = np.array(nnue_data.stm_features(board))
    assert sorted(row.tolist()) == sorted(reference.features(board, board.turn))
    assert sorted(nnue_data.mirror_features(row).tolist()) == sorted(reference.features(board, not board.turn))


def test_trainer_makes_a_network_the_engine_loads(tmp_path: Path) -> None:
    pytest.importorskip("scipy", reason="the trainer needs scipy: pip install -e .[train]")
    trainer = load_tool("nnue_train_script", "nnue_train.py")
    games = tmp_path / "self.pgm.xz"
    assert datagen.main([str(games), "--packed", "--games", "4", "--nodes", "300", "--workers", "1", "--chunk", "2",
                         "--max-plies", "60"]) == 0
    net_path, float_path = tmp_path / "tiny.nnue", tmp_path / "tiny.npz"
    assert trainer.main([str(net_path), str(games), "--epochs", "2", "--batch", "64",
                         "--float-out", str(float_path)]) == 0
    try:
        net = nnue.load(net_path)
        assert "positions of Ponderosa self-play" in net.description
        float_net = reference.load_float_network(float_path)
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        assert abs(reference.quantised_evaluate(net, board) - reference.float_evaluate(float_net, board)) < 20
    finally:
        nnue.remove()


def test_the_two_backends_compute_the_same_gradients() -> None:
    """numpy's hand-written gradients against PyTorch's autograd, on the same weights and batch."""
    pytest.importorskip("scipy", reason="pip install -e .[train]")
    torch = pytest.importorskip("torch", reason="the PyTorch backend: pip install -e .[torch]")
    import nnue_backends
    numpy_backend = nnue_backends.NumpyBackend(64, 1e-3, 0.0, seed=2)
    torch_backend = nnue_backends.TorchBackend(64, 1e-3, 0.0, seed=2)
    p = numpy_backend.params
    model = torch_backend.model
    with torch.no_grad():
        model.ft.weight[:768] = torch.from_numpy(p["w1"])
        model.ft_bias[:] = torch.from_numpy(p["b1"])
        model.out.weight[0] = torch.from_numpy(p["w2"])
        model.out.bias[0] = float(p["b2"][0])
    rng = np.random.default_rng(4)
    us = np.array([np.concatenate([rng.choice(768, 20, replace=False), np.full(12, nnue_data.PAD)])
                   for _ in range(128)], dtype=np.int64)
    them = nnue_data.mirror_features(us)
    want = rng.random(128).astype(np.float32)
    loss, grads = numpy_backend.gradients(us, them, want)
    us_t, them_t, want_t = torch.from_numpy(us), torch.from_numpy(them), torch.from_numpy(want)
    torch_loss = ((torch.sigmoid(model(us_t, them_t)) - want_t) ** 2).mean()
    torch_loss.backward()
    assert abs(loss - torch_loss.item()) < 1e-6
    assert np.allclose(grads["w1"], model.ft.weight.grad[:768].numpy(), atol=1e-8)
    assert np.allclose(grads["b1"], model.ft_bias.grad.numpy(), atol=1e-8)
    assert np.allclose(grads["w2"], model.out.weight.grad[0].numpy(), atol=1e-8)


def test_datagen_plays_with_a_network_and_refuses_a_broken_one(tmp_path: Path) -> None:
    from ponderosa.engine.nnue.network_file import write_network
    net = tmp_path / "round1.nnue"
    write_network(net, reference.quantise(reference.random_network(256, seed=8)))
    out = tmp_path / "round2.pgm.xz"
    assert datagen.main([str(out), "--packed", "--net", str(net), "--games", "2", "--nodes", "300",
                         "--workers", "1", "--chunk", "2", "--max-plies", "30"]) == 0
    assert len(list(read_games(out))) == 2
    broken = tmp_path / "broken.nnue"
    broken.write_bytes(net.read_bytes()[:500])
    with pytest.raises(SystemExit):
        datagen.main([str(tmp_path / "x.pgm.xz"), "--packed", "--net", str(broken)])
    assert not nnue.active()   # the workers loaded it, not this process
