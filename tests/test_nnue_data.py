"""The neural evaluation's data path: packed self-play games (tools/nnue/packed_games.py) written by
datagen --packed, read back move for move, broken files named; positions extracted with the
core's input indices (tools/nnue/data.py); the trainer from games to a network the engine
loads (when PyTorch, the `train` extra, is installed)."""
from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest

from ponderosa.core_ext.core import Board, Evaluator
from ponderosa.engine import nnue
from ponderosa.engine.nnue import reference

from tools.nnue import data as nnue_data
from tools.nnue import datagen
from tools.nnue.packed_games import PackedGame, PackedGamesError, read_games, write_games

REPO = Path(__file__).resolve().parents[1]


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
    from tools.nnue import train as trainer
    games = tmp_path / "self.pgm.xz"
    assert datagen.main([str(games), "--packed", "--games", "4", "--nodes", "300", "--workers", "1", "--chunk", "2",
                         "--max-plies", "60"]) == 0
    net_path, float_path = tmp_path / "tiny.nnue", tmp_path / "tiny.npz"
    assert trainer.main([str(net_path), str(games), "--epochs", "2", "--batch", "64",
                         "--float-out", str(float_path)]) == 0
    net = nnue.load(Evaluator(), net_path)   # the engine's core takes it
    assert "positions of Ponderosa self-play" in net.description
    float_net = reference.load_float_network(float_path)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert abs(reference.quantised_evaluate(net, board) - reference.float_evaluate(float_net, board)) < 20
    # With output buckets: a network of four, which the core takes and computes as the reference does.
    assert trainer.main([str(net_path), str(games), "--epochs", "1", "--batch", "64", "--buckets", "4",
                         "--float-out", str(float_path)]) == 0
    evaluator = Evaluator()
    net = nnue.load(evaluator, net_path)
    assert net.buckets == 4 and "4 output buckets" in net.description
    assert reference.load_float_network(float_path).out_weights.shape == (4, 2 * net.hidden)
    for fen in ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                "8/5k2/8/3p4/8/2N5/5K2/8 w - - 0 1"):
        assert evaluator.network_evaluate(Board(fen)) == reference.quantised_evaluate(net, chess.Board(fen))
    # With king buckets: four sets of inputs, wings mirrored, which the core computes as the reference does.
    assert trainer.main([str(net_path), str(games), "--epochs", "1", "--batch", "64", "--king-buckets", "mirrored-4",
                         "--factorise", "--float-out", str(float_path)]) == 0
    net = nnue.load(evaluator, net_path)
    assert net.king_layout.count == 4 and "king buckets mirrored-4 factorised" in net.description
    assert reference.load_float_network(float_path).ft_weights.shape == (4 * 768, net.hidden)
    for fen in ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                "8/5k2/8/3p4/8/2N5/5K2/8 w - - 0 1", "8/8/3k4/8/8/8/1K3N2/8 b - - 0 1"):
        assert evaluator.network_evaluate(Board(fen)) == reference.quantised_evaluate(net, chess.Board(fen))


@pytest.mark.parametrize("layout_name, factorise", [("none", False), ("mirrored-4", False), ("mirrored-4", True)])
def test_batch_inputs_equal_the_whole_arrays_transformed(tmp_path: Path, layout_name: str, factorise: bool) -> None:
    """The trainer makes each batch's inputs from the positions alone; they must be the rows of
    the whole arrays it used to build: positions then their left-right images, each perspective
    moved into its king's set."""
    from ponderosa.engine.nnue.network_file import KING_LAYOUTS

    from tools.nnue.train import TrainingInputs
    path = tmp_path / "self.pgm.xz"
    write_games(path, sample_games())
    data, _ = nnue_data.extract_file(path, skip_plies=0, max_score=40000)
    data = {name: np.concatenate([values] * 3) for name, values in data.items()}   # rows to pick from
    data["flippable"][::2] = True   # (sample_games has castling rights to spare: force some images)
    layout = KING_LAYOUTS[layout_name]
    sources = np.flatnonzero(data["flippable"])
    assert 0 < len(sources) < len(data["features"])
    whole = np.concatenate([data["features"], nnue_data.flip_files(data["features"][sources])])
    expected_us = nnue_data.king_bucket_features(whole, layout)
    expected_them = nnue_data.king_bucket_features(nnue_data.mirror_features(whole), layout)
    if factorise:
        expected_us = nnue_data.factoriser_features(expected_us, layout)
        expected_them = nnue_data.factoriser_features(expected_them, layout)
    inputs = TrainingInputs(data["features"], sources, layout, factorise)
    rows = np.random.default_rng(3).permutation(len(whole))
    us, them = inputs(rows)
    assert us.dtype == np.int16 and them.dtype == np.int16
    assert np.array_equal(us, expected_us[rows]) and np.array_equal(them, expected_them[rows])
    plain_rows = rows[rows < len(data["features"])]   # a batch without images takes the other path
    assert np.array_equal(inputs(plain_rows)[1], expected_them[plain_rows])


@pytest.mark.train
@pytest.mark.parametrize("buckets", [1, 4])
def test_the_two_backends_compute_the_same_gradients(buckets: int) -> None:
    """numpy's hand-written gradients against PyTorch's autograd, on the same weights and batch
    (with output buckets: rows of 2 to 32 pieces, so every bucket gets some)."""
    pytest.importorskip("scipy", reason="pip install -e .[train]")
    torch = pytest.importorskip("torch", reason="the PyTorch backend: pip install -e .[torch]")
    from tools.nnue import backends as nnue_backends
    numpy_backend = nnue_backends.NumpyBackend(64, 1e-3, 0.0, seed=2, buckets=buckets)
    torch_backend = nnue_backends.TorchBackend(64, 1e-3, 0.0, seed=2, buckets=buckets)
    p = numpy_backend.params
    p["b2"] += np.linspace(-0.1, 0.1, buckets).astype(np.float32)
    model = torch_backend.model
    with torch.no_grad():
        model.ft.weight[:768] = torch.from_numpy(p["w1"])
        model.ft_bias[:] = torch.from_numpy(p["b1"])
        model.out.weight[:] = torch.from_numpy(p["w2"])
        model.out.bias[:] = torch.from_numpy(p["b2"])
    rng = np.random.default_rng(4)
    counts = rng.integers(2, 33, size=128)
    us = np.array([np.concatenate([rng.choice(768, count, replace=False), np.full(32 - count, nnue_data.PAD)])
                   for count in counts], dtype=np.int64)
    them = nnue_data.mirror_features(us)
    want = rng.random(128).astype(np.float32)
    bucket = nnue_backends.output_buckets(us, buckets)
    assert len(set(bucket.tolist())) == buckets
    loss, grads = numpy_backend.gradients(us, them, want)
    us_t, them_t, want_t = torch.from_numpy(us), torch.from_numpy(them), torch.from_numpy(want)
    torch_loss = ((torch.sigmoid(model(us_t, them_t, torch.from_numpy(bucket.astype(np.int64)))) - want_t) ** 2).mean()
    torch_loss.backward()
    assert abs(loss - torch_loss.item()) < 1e-6
    assert np.allclose(grads["w1"], model.ft.weight.grad[:768].numpy(), atol=1e-8)
    assert np.allclose(grads["b1"], model.ft_bias.grad.numpy(), atol=1e-8)
    assert np.allclose(grads["w2"], model.out.weight.grad.numpy(), atol=1e-8)
    assert np.allclose(grads["b2"], model.out.bias.grad.numpy(), atol=1e-8)


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


# An OpenBench DATAGEN upload as its client compacts it (no move numbers, `score/depth` comments),
# a game as fastchess writes it (numbers, verbose comments), and games to pass over.
OPENBENCH_PGN = """\
[Event "OpenBench"]
[White "dev"]
[Black "base"]
[Result "0-1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
[SetUp "1"]
[ScaleFactor "1.0"]

e4 {book} e5 {+0.35/12} Nf3 {-0.20/11, line=pv 1/2} Nc6 {unknown} Bb5 {+M3/20} a6 {-12.50/14}
Bxc6 {+0.10/9} dxc6 {+1.00/10} 0-1

[Event "Fast Chess"]
[White "dev"]
[Black "base"]
[Result "1/2-1/2"]

1. e4 { +0.20/10 0.051s, n=5012, sd=14 } 1... f6 { -0.30/10 0.048s, n=4999, sd=12 }
2. Qh5+ { +0.50/10 0.050s, n=5100, sd=13 } 2... g6 { -0.40/10 0.049s, n=5003, sd=12 } 1/2-1/2

[Event "unfinished"]
[Result "*"]

1. d4 {+0.10/8} d5 {-0.10/8} *

[Event "illegal move"]
[Result "1-0"]

1. d4 {+0.10/8} Ke3 {-0.10/8} 1-0
"""


def test_comment_scores_as_fastchess_writes_them() -> None:
    assert nnue_data.comment_score("+0.35/12") == 35
    assert nnue_data.comment_score(" -12.50/14 0.123s, n=1, sd=2") == -1250
    assert nnue_data.comment_score("0.07/3, line=x") == 7
    assert nnue_data.comment_score("+M3/20") == 32000 - 5     # mates in 3 moves: 5 plies
    assert nnue_data.comment_score("-M4/30") == -(32000 - 8)  # mated in 4 moves: 8 plies
    for no_score in ("book", "unknown", "", "line=1/2"):
        assert nnue_data.comment_score(no_score) is None


def write_archive(path: Path, members: dict[str, bytes]) -> None:
    import io
    import tarfile
    with tarfile.open(path, "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_openbench_pgns_give_the_same_positions_as_packed_games(tmp_path: Path) -> None:
    import bz2
    import gzip
    import lzma
    text = OPENBENCH_PGN.encode()
    files = {"games.pgn": text, "games.pgn.gz": gzip.compress(text), "games.pgn.xz": lzma.compress(text),
             "games.pgn.bz2": bz2.compress(text)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    # OpenBench's download of a workload's games: one .pgn.bz2 per upload in a .tar.
    write_archive(tmp_path / "7.pgn.tar", {"7.1.0.pgn.bz2": bz2.compress(text), "7.2.0.pgn.bz2": bz2.compress(text)})
    # Kept: e5 (+35), Nf3 (-20), a6 (-1250) of game 1: e4 is a book move, Nc6 has no score, Bb5's is a mate's,
    # the last two are captures; e4, f6 and Qh5+ of game 2: g6 is played in check. Games 3 and 4 are passed over.
    want_scores = [35, -20, -1250, 20, -30, 50]
    want_results = [1.0, 0.0, 1.0, 0.5, 0.5, 0.5]
    for name in files:
        data = nnue_data.extract([tmp_path / name], skip_plies=0, max_score=3000)
        assert data["scores"].tolist() == want_scores, name
        assert data["results"].tolist() == want_results, name
        assert data["games"].tolist() == [0, 0, 0, 1, 1, 1], name
    data = nnue_data.extract([tmp_path / "7.pgn.tar"], skip_plies=0, max_score=3000)
    assert data["scores"].tolist() == want_scores * 2 and data["games"].tolist()[3:6] == [1, 1, 1]
    board = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")   # before Nf3
    row = data["features"][1]
    assert sorted(row[row != nnue_data.PAD].tolist()) == sorted(reference.features(board, board.turn))
    # The same filters as the packed files': --skip-plies counts from the game's start.
    assert nnue_data.extract([tmp_path / "games.pgn"], skip_plies=2, max_score=1000)["scores"].tolist() == [-20, 50]
    # Packed and PGN files in one run: game numbers go on across them.
    write_games(tmp_path / "self.pgm.xz", sample_games())
    mixed = nnue_data.extract([tmp_path / "self.pgm.xz", tmp_path / "games.pgn.xz"], skip_plies=0, max_score=3000)
    assert mixed["scores"].tolist() == [-120, *want_scores]
    assert mixed["games"].tolist() == [0, 2, 2, 2, 3, 3, 3]
    # Read in two processes, the files give the same arrays in the same order.
    parallel = nnue_data.extract([tmp_path / "self.pgm.xz", tmp_path / "games.pgn.xz", tmp_path / "self.pgm.xz"],
                                 skip_plies=0, max_score=3000, jobs=2)
    assert parallel["games"].tolist() == [0, 2, 2, 2, 3, 3, 3, 4]
    for name in mixed:
        assert np.array_equal(parallel[name][:len(mixed[name])], mixed[name]), name
    assert nnue_data.extract([], skip_plies=0, max_score=3000)["features"].shape == (0, nnue_data.SLOTS)


def test_openbench_pgn_command_line_and_broken_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import lzma
    (tmp_path / "games.pgn.xz").write_bytes(lzma.compress(OPENBENCH_PGN.encode()))
    out = tmp_path / "positions.npz"
    assert nnue_data.main([str(out), str(tmp_path / "games.pgn.xz"), "--skip-plies", "0"]) == 0
    assert np.load(out)["scores"].tolist() == [35, -20, -1250, 20, -30, 50]
    assert "6 positions from 2 games" in capsys.readouterr().err
    (tmp_path / "cut.pgn.xz").write_bytes(lzma.compress(OPENBENCH_PGN.encode())[:-20])
    assert nnue_data.main([str(out), str(tmp_path / "cut.pgn.xz")]) == 1
    assert "cut.pgn.xz" in capsys.readouterr().err


def openbench_pgn(games: list[PackedGame]) -> str:
    """Packed games written as OpenBench uploads DATAGEN games: SAN moves, `{score/depth}` comments
    in pawns from the side to move's view, mates as +M/-M moves."""
    texts = []
    for game in games:
        board = chess.Board(game.start_fen)
        moves = []
        for move, score in zip(game.moves, game.scores):
            plies = 32000 - abs(score)
            if plies <= 1000:
                text = f"+M{(plies + 1) // 2}" if score > 0 else f"-M{plies // 2}"
            else:
                text = f"{score / 100:+.2f}" if abs(score) < 31000 else ("+M1" if score > 0 else "-M1")
            moves.append(f"{board.san(move)} {{{text}/1}}")
            board.push(move)
        texts.append(f'[Result "{game.result}"]\n[FEN "{game.start_fen}"]\n[SetUp "1"]\n\n'
                     f'{" ".join(moves)} {game.result}\n')
    return "\n".join(texts)


def test_a_game_as_pgn_gives_what_its_packed_file_gives(tmp_path: Path) -> None:
    games = sample_games()
    game = PackedGame(chess.STARTING_FEN, "1-0")
    board = chess.Board()
    for uci, score in (("e2e4", 30), ("e7e5", -25), ("g1f3", 41), ("b8c6", -38), ("f1c4", 31000 - 1),
                       ("d7d6", -31990), ("b1c3", 3000), ("c8g4", -3001), ("h2h3", 12)):
        board.push_uci(uci)
        game.moves.append(chess.Move.from_uci(uci))
        game.scores.append(score)
    games.append(game)
    write_games(tmp_path / "self.pgm.xz", games)
    (tmp_path / "self.pgn").write_text(openbench_pgn(games))
    packed = nnue_data.extract([tmp_path / "self.pgm.xz"], skip_plies=1, max_score=3000)
    from_pgn = nnue_data.extract([tmp_path / "self.pgn"], skip_plies=1, max_score=3000)
    assert packed["scores"].tolist() == [-120, -25, 41, -38, 3000, 12]
    for name, array in packed.items():
        assert np.array_equal(array, from_pgn[name]), name


@pytest.mark.parametrize("transform", [nnue_data.mirror_features, nnue_data.flip_files])
def test_chunked_feature_transforms_match_one_piece_by_piece(transform) -> None:
    # Done in chunks to fit tens of millions of rows in memory: every chunk size must give the
    # row-by-row answer, padding kept, dtype kept, including a last chunk shorter than the rest.
    rng = np.random.default_rng(11)
    counts = rng.integers(2, 33, size=50)
    rows = np.array([np.concatenate([rng.choice(768, count, replace=False), np.full(32 - count, nnue_data.PAD)])
                     for count in counts], dtype=np.int16)
    one_by_one = np.array([transform(row[None, :])[0] for row in rows])
    for chunk in (1, 7, 50, 1 << 20):
        out = transform(rows, chunk=chunk)
        assert out.dtype == np.int16
        assert np.array_equal(out, one_by_one)
    assert np.array_equal(out == nnue_data.PAD, rows == nnue_data.PAD)
    assert not np.array_equal(out, rows)
    assert np.array_equal(transform(transform(rows, chunk=7), chunk=3), rows)   # both are involutions


def test_positions_file_is_read_whole_or_by_its_first_rows(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    stored = nnue_data.position_arrays(rng.integers(0, 769, (50, nnue_data.SLOTS)).tolist(),
                                       rng.integers(-3000, 3000, 50).tolist(), [0.5] * 50,
                                       (np.arange(50) // 5).tolist(), (np.arange(50) % 3 == 0).tolist())
    path = tmp_path / "positions.npz"
    np.savez(path, **stored)   # as data.main writes it
    for limit, rows in ((0, 50), (7, 7), (500, 50)):
        read = nnue_data.load_positions(path, limit)
        assert sorted(read) == sorted(stored)
        for name, values in stored.items():
            assert read[name].dtype == values.dtype and np.array_equal(read[name], values[:rows]), (name, limit)
    compressed = tmp_path / "compressed.npz"
    np.savez_compressed(compressed, **stored)
    assert np.array_equal(nnue_data.load_positions(compressed, 9)["features"], stored["features"][:9])


def test_a_broken_positions_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tools.nnue import train
    good = tmp_path / "good.npz"
    np.savez(good, **nnue_data.position_arrays([[1] * nnue_data.SLOTS] * 4, [1] * 4, [1.0] * 4,
                                               [0] * 4, [True] * 4))
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:-300])
    partial = tmp_path / "partial.npz"
    np.savez(partial, scores=np.zeros(4, np.int16))
    for path in (cut, partial, tmp_path / "missing.npz"):
        with pytest.raises(nnue_data.PositionsFileError, match=path.name):
            nnue_data.load_positions(path)
        assert train.main([str(tmp_path / "net.nnue"), "--positions", str(path)]) == 1
        assert path.name in capsys.readouterr().err
    assert not (tmp_path / "net.nnue").exists()
