"""Networks with king buckets: the first layer's inputs chosen by each perspective's own king
square (network_file.KingLayout). The core against the numpy reference, exactly, through king
moves that change a perspective's inputs (incremental stack, refresh cache, search); the file
format (version 3, and version 2 kept for networks without them); the trainer's inputs against
the reference's."""
from __future__ import annotations

import random
import struct
from pathlib import Path

import chess
import numpy as np
import pytest

from ponderosa.core_ext.core import Board, Evaluator, Network, TranspositionTable
from ponderosa.engine import nnue
from ponderosa.engine.nnue import reference
from ponderosa.engine.nnue.network_file import (
    KING_LAYOUTS,
    KingLayout,
    NetworkFileError,
    network_bytes,
    write_network,
)

from tests.test_nnue import random_positions
from tools.nnue import data as nnue_data

MIRRORED = KING_LAYOUTS["mirrored-4"]
# Eight buckets without mirroring: one per file on the first rank, the rest of the board in one
# of them (the core takes any numbering of 1-16 sets).
BY_FILE = KingLayout(bytes([square & 7 if square < 8 else (square * 7) % 8 for square in range(64)]), False)


def crosses(layout: KingLayout, board: chess.Board, move: chess.Move) -> bool:
    """Whether move (on board, before it is made) takes its side's king into another slot."""
    if board.piece_type_at(move.from_square) != chess.KING:
        return False
    side = board.turn
    destination = move.to_square
    if board.is_castling(move):
        destination = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))
    flip = 0 if side == chess.WHITE else 56
    return layout.transform(move.from_square ^ flip) != layout.transform(destination ^ flip)


def test_the_layouts_are_sound() -> None:
    assert MIRRORED.count == 4 and MIRRORED.mirror and not MIRRORED.plain
    assert KING_LAYOUTS["none"].plain and KING_LAYOUTS["none"].count == 1
    assert MIRRORED.transform(chess.G1) == (0, 7)
    assert MIRRORED.transform(chess.B1) == MIRRORED.transform(chess.A1) == (0, 0)
    assert MIRRORED.transform(chess.E1)[0] == MIRRORED.transform(chess.D1)[0] == 1
    assert MIRRORED.transform(chess.E4) == (3, 7) and MIRRORED.transform(chess.D2) == (2, 0)
    assert BY_FILE.count == 8
    wider = KING_LAYOUTS["mirrored-8"]
    assert wider.count == 8 and wider.transform(chess.H8) == (7, 7) and wider.transform(chess.C2) == (3, 0)


@pytest.mark.parametrize("layout", [MIRRORED, BY_FILE], ids=["mirrored-4", "by-file"])
def test_core_equals_reference_through_king_moves(layout: KingLayout) -> None:
    """Random games move by move: every score equals the reference's, every incremental
    accumulator the one computed afresh; king moves into another slot were among the moves."""
    net = reference.quantise(reference.random_network(256, seed=17, king_layout=layout))
    evaluator = Evaluator()
    nnue.install(evaluator, net)
    crossings, mismatches = 0, []
    for board, core in random_positions(4_000, seed=21, null_moves=True):
        last = board.peek()
        if last:
            board.pop()
            crossings += crosses(layout, board, last)
            board.push(last)
        for side in (chess.WHITE, chess.BLACK):
            assert np.abs(reference.accumulator(net, board, side)).max() < 32768
        if evaluator.network_evaluate(core) != reference.quantised_evaluate(net, board):
            mismatches.append(board.fen())
        assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True), board.fen()
    assert mismatches == [] and crossings > 100


def test_refreshes_through_the_cache_and_searches_are_exact() -> None:
    """Unrelated positions one after another (each refreshed from the cache entry of its kings'
    slots), then searches and take-backs: the reference's scores and the fresh sums."""
    net = reference.quantise(reference.random_network(256, seed=33, king_layout=MIRRORED))
    evaluator = Evaluator()
    nnue.install(evaluator, net)
    boards = [board.copy() for board, _ in random_positions(400, seed=35)]
    random.Random(37).shuffle(boards)
    for board in boards[:200]:
        core = Board(board.fen())
        assert evaluator.network_evaluate(core) == reference.quantised_evaluate(net, board), board.fen()
    from ponderosa.engine.search import Searcher, SearchLimits
    searcher = Searcher(TranspositionTable(1 << 20), evaluator)
    core = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    for _ in range(6):
        result = searcher.run(core, SearchLimits(nodes=3000))
        assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)
        core.push_uci(result.best_move)
    for _ in range(3):
        core.pop()
        assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)


def test_the_king_square_chooses_the_weights() -> None:
    """Weights for bucket 0 only (the others zero): with both kings castled the pieces count;
    with both kings on the second rank (bucket 2) only the bias does, whatever the pieces."""
    float_net = reference.random_network(256, seed=5, king_layout=MIRRORED)
    float_net.ft_weights[768:] = 0.0
    net = reference.quantise(float_net)
    evaluator = Evaluator()
    nnue.install(evaluator, net)
    fens = {"castled": "r4rk1/ppp2ppp/2n5/8/8/2N5/PPP2PPP/R4RK1 w - - 0 1",
            "castled, no knights": "r4rk1/ppp2ppp/8/8/8/8/PPP2PPP/R4RK1 w - - 0 1",
            "second rank": "r4r2/ppp1kppp/2n5/8/8/2N5/PPP1KPPP/R4R2 w - - 0 1",
            "second rank, no knights": "r4r2/ppp1kppp/8/8/8/8/PPP1KPPP/R4R2 w - - 0 1"}
    scores = {name: evaluator.network_evaluate(Board(fen)) for name, fen in fens.items()}
    assert scores == {name: reference.quantised_evaluate(net, chess.Board(fen)) for name, fen in fens.items()}
    assert scores["castled"] != scores["castled, no knights"]
    assert scores["second rank"] == scores["second rank, no knights"]


def test_file_round_trip_and_the_version_written(tmp_path: Path) -> None:
    net = reference.quantise(reference.random_network(256, seed=3, king_layout=MIRRORED, buckets=2), "kings")
    path = tmp_path / "kings.nnue"
    write_network(path, net)
    data = path.read_bytes()
    assert struct.unpack_from("<II", data, 8) == (3, 768 * 4)   # version 3, 768 inputs per king bucket
    again = nnue.read_network(path)
    assert again.king_layout == MIRRORED and again.buckets == 2 and again.description == "kings"
    assert np.array_equal(again.ft_weights, net.ft_weights) and len(again.ft_weights) == 4 * 768 * 256
    evaluator = Evaluator()
    nnue.load(evaluator, path)
    fen = "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 0 6"
    assert evaluator.network_evaluate(Board(fen)) == reference.quantised_evaluate(net, chess.Board(fen))
    # Without king buckets the file stays version 2: the shipped network's bytes are written again unchanged.
    shipped = nnue.DEFAULT_NETWORK.read_bytes()
    assert struct.unpack_from("<I", shipped, 8) == (2,)
    assert network_bytes(nnue.read_network(nnue.DEFAULT_NETWORK)) == shipped


@pytest.mark.parametrize("damage", ["gap", "mirror flag", "too many", "inputs"])
def test_unsound_king_fields_are_refused_naming_the_file(tmp_path: Path, damage: str) -> None:
    net = reference.quantise(reference.random_network(256, seed=3, king_layout=MIRRORED))
    data = bytearray(network_bytes(net))
    fields = 8 + 7 * 4 + 4   # magic, seven u32, the output bucket count
    if damage == "gap":
        data[fields + 4] = 5   # a1's bucket: 5 of sets 0-3, so set 4 is missing
    elif damage == "mirror flag":
        data[fields:fields + 4] = struct.pack("<I", 2)
    elif damage == "too many":
        data[fields + 4:fields + 68] = bytes(range(17)) + bytes(47)
    elif damage == "inputs":
        data[12:16] = struct.pack("<I", 768)
    import zlib
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))   # a sound checksum: the fields are what is wrong
    path = tmp_path / "bad.nnue"
    path.write_bytes(bytes(data))
    with pytest.raises(NetworkFileError, match=str(path)):
        nnue.read_network(path)


def test_the_core_refuses_weights_of_another_number_of_king_buckets() -> None:
    net = reference.quantise(reference.random_network(256, seed=3, king_layout=MIRRORED))
    with pytest.raises(ValueError, match="shape"):
        Network(net.ft_weights, net.ft_bias, net.out_weights, net.out_biases)   # four sets, no layout: one
    with pytest.raises(ValueError, match="shape"):
        Network(net.ft_weights, net.ft_bias, net.out_weights, net.out_biases, bytes(63) + b"\x04", False)
    Network(net.ft_weights, net.ft_bias, net.out_weights, net.out_biases, MIRRORED.buckets, True)


@pytest.mark.parametrize("layout", [MIRRORED, BY_FILE], ids=["mirrored-4", "by-file"])
def test_the_trainers_inputs_are_the_references(layout: KingLayout) -> None:
    """tools/nnue/data.py's stored indices (side to move's, and the other side's from them)
    moved into king buckets give the reference's inputs for both perspectives (in chunks of 7
    rows, as millions of rows are done)."""
    boards = [board.copy() for board, _ in random_positions(500, seed=41)]
    rows = np.array([nnue_data.stm_features(board) + [nnue_data.PAD] * (32 - len(board.piece_map()))
                     for board in boards], dtype=np.int16)
    all_us = nnue_data.king_bucket_features(rows, layout, chunk=7)
    all_them = nnue_data.king_bucket_features(nnue_data.mirror_features(rows), layout, chunk=7)
    pad = 768 * layout.count
    for board, us, them in zip(boards, all_us, all_them):
        assert sorted(us[us != pad].tolist()) == sorted(reference.features(board, board.turn, layout))
        assert sorted(them[them != pad].tolist()) == sorted(reference.features(board, not board.turn, layout))
        assert (us == pad).sum() == 32 - len(board.piece_map())


def test_the_numpy_trainer_computes_the_reference_network() -> None:
    """The numpy backend's output for a batch, with king buckets and output buckets, is the float
    reference's for the same weights (so the trainer learns the network the engine computes)."""
    pytest.importorskip("scipy", reason="pip install -e .[train]")
    from tools.nnue import backends as nnue_backends
    backend = nnue_backends.NumpyBackend(32, 1e-3, 0.0, seed=2, buckets=2, king_layout=MIRRORED)
    backend.params["w1"][:] = np.random.default_rng(3).normal(0, 0.2, backend.params["w1"].shape)
    boards = [board.copy() for board, _ in random_positions(64, seed=43)]
    rows = np.array([nnue_data.stm_features(board) + [nnue_data.PAD] * (32 - len(board.piece_map()))
                     for board in boards], dtype=np.int16)
    us = nnue_data.king_bucket_features(rows, MIRRORED)
    them = nnue_data.king_bucket_features(nnue_data.mirror_features(rows), MIRRORED)
    predicted = backend._forward(us, them)[-1]
    float_net = backend.float_network()
    expected = [1 / (1 + np.exp(-reference.float_evaluate(float_net, board) / reference.SCALE)) for board in boards]
    assert np.allclose(predicted, expected, atol=1e-5)
    assert len({round(float(value), 4) for value in predicted}) > 30   # the positions' values differ


def test_a_factorised_trainer_computes_the_folded_network() -> None:
    """With a factoriser the trainer's network has a shared set of inputs beside the buckets'; its
    output equals the reference's for the written network, where the shared set is folded into
    each bucket's."""
    pytest.importorskip("scipy", reason="pip install -e .[train]")
    from tools.nnue import backends as nnue_backends
    backend = nnue_backends.NumpyBackend(32, 1e-3, 0.0, seed=2, king_layout=MIRRORED, factorised=True)
    assert backend.params["w1"].shape == (5 * 768, 32)
    backend.params["w1"][:] = np.random.default_rng(6).normal(0, 0.1, backend.params["w1"].shape)
    boards = [board.copy() for board, _ in random_positions(64, seed=47)]
    rows = np.array([nnue_data.stm_features(board) + [nnue_data.PAD] * (32 - len(board.piece_map()))
                     for board in boards], dtype=np.int16)
    us = nnue_data.factoriser_features(nnue_data.king_bucket_features(rows, MIRRORED), MIRRORED)
    them = nnue_data.factoriser_features(
        nnue_data.king_bucket_features(nnue_data.mirror_features(rows), MIRRORED), MIRRORED)
    assert us.shape == (64, 64) and ((us == 5 * 768).sum(axis=1) == 2 * (rows == 768).sum(axis=1)).all()
    predicted = backend._forward(us, them)[-1]
    folded = backend.float_network()
    assert folded.ft_weights.shape == (4 * 768, 32)
    shared = backend.params["w1"][4 * 768:]
    assert np.allclose(folded.ft_weights[768:1536], backend.params["w1"][768:1536] + shared)
    expected = [1 / (1 + np.exp(-reference.float_evaluate(folded, board) / reference.SCALE)) for board in boards]
    assert np.allclose(predicted, expected, atol=1e-5)
