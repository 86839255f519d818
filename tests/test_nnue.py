"""The neural evaluation: the core's integer network against the numpy reference (exactly), the
float network (within a stated tolerance), incremental accumulators against fresh ones, and
network files that cannot be used (a clear message, the evaluation in use kept), and a network
belonging to the evaluators given it."""
from __future__ import annotations

import lzma
import random
import struct
from dataclasses import replace
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from ponderosa.core_ext.core import Board, Evaluator, Network, TranspositionTable
from ponderosa.engine import nnue
from ponderosa.engine.nnue import reference
from ponderosa.engine.nnue.choice import EvaluationChoice
from ponderosa.engine.nnue.network_file import NetworkFileError, int16_array, network_bytes, write_network

REPO = Path(__file__).resolve().parents[1]
MASTER_GAMES = REPO / "tests" / "data" / "games" / "master_sample_2000.pgn.xz"
# The shipped network against its float weights: at most this many centipawns apart, plus this
# share of the score (rounding the weights to 1/255 and 1/64 moves a score by a few centipawns).
FLOAT_TOLERANCE_CP = 20
FLOAT_TOLERANCE_SHARE = 0.03
FLOAT_MEDIAN_CP = 5      # and half the positions within this

# Start positions rich in the moves an accumulator update must get right.
SPECIAL_STARTS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",    # castling both ways, e.p.
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",                               # promotions with captures
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",                             # e.p. and discovered checks
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
]


def random_positions(count: int, seed: int, null_moves: bool = False):
    """(python-chess board, core Board) pairs along random games from SPECIAL_STARTS, yielded
    after each move, the core board being the same game move by move (so its accumulators are
    updated incrementally). With null_moves, a side switch now and then."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        fen = rng.choice(SPECIAL_STARTS)
        board, core = chess.Board(fen), Board(fen)
        for _ in range(rng.randint(10, 120)):
            moves = list(board.legal_moves)
            if not moves or board.is_insufficient_material():
                break
            if null_moves and not board.is_check() and rng.random() < 0.05:
                board.push(chess.Move.null())
                core.push_uci("0000")
            else:
                # castling, e.p. and promotions, rare in random play, are taken when they come
                special = [move for move in moves if board.is_castling(move) or board.is_en_passant(move)
                           or move.promotion is not None]
                move = rng.choice(special if special and rng.random() < 0.5 else moves)
                board.push(move)
                core.push_uci(move.uci())
            yield board, core
            produced += 1
            if produced >= count:
                return


def test_core_equals_quantised_reference_on_10000_positions() -> None:
    net = reference.quantise(reference.random_network(256, seed=7))
    evaluator = Evaluator()
    nnue.install(evaluator, net)
    mismatches = []
    for board, core in random_positions(10_000, seed=11):
        for side in (chess.WHITE, chess.BLACK):   # no first-layer sum may leave int16
            assert np.abs(reference.accumulator(net, board, side)).max() < 32768
        expected = reference.quantised_evaluate(net, board)
        got = evaluator.network_evaluate(core)
        if got != expected:
            mismatches.append((board.fen(), got, expected))
    assert mismatches == []


def test_the_shipped_network_in_the_core_equals_the_reference_on_real_games() -> None:
    """The shipped network (engine/nnue/ponderosa.nnue) as the core computes it, accumulators
    updated move by move, against the numpy integer reference, on 1,200 positions of master games."""
    evaluator = Evaluator()
    net = nnue.load(evaluator, nnue.DEFAULT_NETWORK)
    checked, mismatches = 0, []
    with lzma.open(MASTER_GAMES, "rt", encoding="utf-8", errors="replace") as stream:
        while checked < 1200:
            game = chess.pgn.read_game(stream)
            assert game is not None, "the sample ran out of games"
            board, core = game.board(), Board(game.board().fen())
            for ply, move in enumerate(game.mainline_moves()):
                board.push(move)
                core.push_uci(move.uci())
                if ply % 7 == 3 and not board.is_game_over():
                    checked += 1
                    expected, got = reference.quantised_evaluate(net, board), evaluator.network_evaluate(core)
                    if got != expected:
                        mismatches.append((board.fen(), got, expected))
    assert mismatches == []


def test_quantised_network_stays_near_its_float_network() -> None:
    """On a random network of trained magnitudes (the shipped network's float weights are not
    kept; its integers are checked against the reference exactly, below)."""
    for float_net in [reference.random_network(256, seed=3)]:
        net = reference.quantise(float_net)
        worst, errors = 0.0, []
        for board, _ in random_positions(2_000, seed=5):
            exact = reference.float_evaluate(float_net, board)
            if abs(exact) > 3000:
                continue
            errors.append(abs(reference.quantised_evaluate(net, board) - exact))
            worst = max(worst, errors[-1] - FLOAT_TOLERANCE_SHARE * abs(exact))
        assert worst <= FLOAT_TOLERANCE_CP and np.median(errors) <= FLOAT_MEDIAN_CP


def test_incremental_accumulators_equal_fresh_ones() -> None:
    evaluator = Evaluator()
    nnue.install(evaluator, reference.quantise(reference.random_network(256, seed=9)))
    seen = {"castle": 0, "ep": 0, "promotion": 0, "capture": 0, "null": 0}
    for board, core in random_positions(6_000, seed=13, null_moves=True):
        last = board.peek()
        if not last:
            seen["null"] += 1
        else:
            board.pop()
            seen["castle"] += board.is_castling(last)
            seen["ep"] += board.is_en_passant(last)
            seen["capture"] += board.is_capture(last)
            board.push(last)
            seen["promotion"] += last.promotion is not None
        assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True), board.fen()
    assert min(seen.values()) > 0, seen   # every kind of move was among them


def test_search_takeback_and_siblings_keep_accumulators_right() -> None:
    """After searches (siblings overwrite the stack's entries) and take-backs, the evaluation of
    the position at hand still equals the fresh one."""
    from ponderosa.engine.search import Searcher, SearchLimits
    evaluator = Evaluator()
    nnue.install(evaluator, reference.quantise(reference.random_network(256, seed=4)))
    searcher = Searcher(TranspositionTable(1 << 20), evaluator)
    core = Board(SPECIAL_STARTS[1])
    for _ in range(6):
        result = searcher.run(core, SearchLimits(nodes=3000))
        assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)
        core.push_uci(result.best_move)
    core.pop()
    core.pop()
    assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)


def test_refreshes_through_the_cache_are_exact() -> None:
    """A position none of whose ancestors has an accumulator is computed from the last position
    refreshed before it (the pieces that differ); unrelated positions one after another, and
    another network in between, still give the fresh sums and the reference's score."""
    boards = [board.copy() for board, _ in random_positions(400, seed=19)]
    random.Random(23).shuffle(boards)
    evaluator = Evaluator()
    for seed in (31, 32):
        net = reference.quantise(reference.random_network(256, seed=seed))
        nnue.install(evaluator, net)
        for board in boards[:150]:
            core = Board(board.fen())
            assert evaluator.network_evaluate(core) == reference.quantised_evaluate(net, board), board.fen()
            assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)


def test_output_weights_beyond_a_byte_take_the_wide_output_layer() -> None:
    """Output weights within +-128 multiply in int16 lanes; a network with larger ones (not made
    by the trainer, which clips them) must still be computed exactly, in int32."""
    net = reference.quantise(reference.random_network(256, seed=6))
    wide = np.frombuffer(net.out_weights, dtype=np.int16).copy()
    wide[::97] = np.where(np.arange(wide[::97].size) % 2, 900, -700)
    net = replace(net, out_weights=int16_array(wide.astype("<i2").tobytes()))
    evaluator = Evaluator()
    nnue.install(evaluator, net)
    mismatches = [(board.fen(), evaluator.network_evaluate(core), reference.quantised_evaluate(net, board))
                  for board, core in random_positions(1_000, seed=29)]
    assert [m for m in mismatches if m[1] != m[2]] == []
    assert len({m[2] for m in mismatches}) > 100   # the scores vary: the wide weights count


def test_network_file_round_trip(tmp_path: Path) -> None:
    net = reference.quantise(reference.random_network(256, seed=1), "round trip")
    path = tmp_path / "net.nnue"
    write_network(path, net)
    again = nnue.read_network(path)
    assert again.description == "round trip" and again.out_biases == net.out_biases and again.buckets == 1
    assert np.array_equal(again.ft_weights, net.ft_weights) and np.array_equal(again.out_weights, net.out_weights)
    bucketed = reference.quantise(reference.random_network(256, seed=1, buckets=8), "eight buckets")
    write_network(path, bucketed)
    again = nnue.read_network(path)
    assert again.buckets == 8 and again.out_biases == bucketed.out_biases
    assert np.array_equal(again.out_weights, bucketed.out_weights) and len(again.out_weights) == 8 * 2 * 256


def version_1_bytes(net) -> bytes:
    """A network in the first file format: no bucket count, one output (files made before buckets)."""
    import zlib
    description = net.description.encode()
    body = b"".join([struct.pack("<8s7I", b"PONDNNUE", 1, 768, net.hidden, net.qa, net.qb, net.scale, len(description)),
                     description, bytes(net.ft_weights), bytes(net.ft_bias), bytes(net.out_weights),
                     struct.pack("<i", net.out_biases[0])])
    return body + struct.pack("<I", zlib.crc32(body))


def test_a_file_of_the_first_format_is_still_read(tmp_path: Path) -> None:
    net = reference.quantise(reference.random_network(256, seed=4), "version 1")
    path = tmp_path / "old.nnue"
    path.write_bytes(version_1_bytes(net))
    again = nnue.read_network(path)
    assert again.buckets == 1 and again.description == "version 1" and again.out_biases == net.out_biases
    evaluator = Evaluator()
    nnue.load(evaluator, path)
    for board, core in random_positions(50, seed=5):
        assert evaluator.network_evaluate(core) == reference.quantised_evaluate(net, board), board.fen()
    path.write_bytes(version_1_bytes(net)[:-6])
    with pytest.raises(NetworkFileError, match="truncated"):
        nnue.read_network(path)


def test_output_buckets_follow_the_number_of_pieces() -> None:
    """A network of eight output buckets: the core picks each position's bucket by its number of
    pieces as the reference does (network_file.output_bucket), over positions from 32 pieces down
    to bare kings, and the buckets differ (each position scored by a bucket of its own)."""
    from ponderosa.engine.nnue.network_file import output_bucket
    assert [output_bucket(pieces, 8) for pieces in (2, 4, 5, 8, 9, 28, 29, 32)] == [0, 0, 1, 1, 2, 6, 7, 7]
    assert {output_bucket(pieces, 1) for pieces in range(2, 33)} == {0}
    net = reference.quantise(reference.random_network(256, seed=7, buckets=8))
    single = replace(net, out_weights=net.out_weights[:2 * 256], out_biases=net.out_biases[:1])
    evaluator, one_bucket = Evaluator(), Evaluator()
    nnue.install(evaluator, net)
    nnue.install(one_bucket, single)
    seen, differ = set(), 0
    fens = ["8/8/4k3/8/8/3K4/8/8 w - - 0 1", "8/8/4k3/8/8/3K4/4P3/8 w - - 0 1", "4k3/8/8/2n5/8/2B5/4P3/4K3 w - - 0 1"]
    boards = [(chess.Board(fen), Board(fen)) for fen in fens] + list(random_positions(600, seed=8))
    for board, core in boards:
        pieces = len(board.piece_map())
        seen.add(output_bucket(pieces, 8))
        score = evaluator.network_evaluate(core)
        assert score == reference.quantised_evaluate(net, board), board.fen()
        differ += score != one_bucket.network_evaluate(core) and output_bucket(pieces, 8) != 0
    assert len(seen) >= 6 and differ > 100


def test_a_network_of_too_many_buckets_is_refused(tmp_path: Path) -> None:
    net = reference.quantise(reference.random_network(256, seed=1, buckets=8))
    with pytest.raises(ValueError, match="shape"):
        Network(net.ft_weights, net.ft_bias, net.out_weights + net.out_weights[:512], net.out_biases + (0,))
    data = bytearray(network_bytes(net))
    data[36:40] = struct.pack("<I", 9)   # the bucket count, after the 8-byte magic and seven u32
    path = tmp_path / "nine.nnue"
    path.write_bytes(bytes(data))
    with pytest.raises(NetworkFileError, match="output buckets"):
        nnue.read_network(path)


@pytest.mark.parametrize("damage", ["missing", "empty", "truncated", "magic", "checksum", "shape", "version"])
def test_unusable_network_file_is_named_and_the_evaluation_kept(tmp_path: Path, damage: str) -> None:
    good = network_bytes(reference.quantise(reference.random_network(256, seed=1)))
    path = tmp_path / f"{damage}.nnue"
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "truncated":
        path.write_bytes(good[:len(good) // 2])
    elif damage == "magic":
        path.write_bytes(b"NOTANNUE" + good[8:])
    elif damage == "checksum":
        path.write_bytes(good[:100] + bytes([good[100] ^ 1]) + good[101:])
    elif damage == "shape":
        path.write_bytes(network_bytes(reference.quantise(reference.random_network(128, seed=1))))
    elif damage == "version":
        path.write_bytes(good[:8] + struct.pack("<I", 99) + good[12:])
    working = tmp_path / "working.nnue"
    working.write_bytes(good)
    evaluator = Evaluator()
    choice = EvaluationChoice(evaluator)
    assert choice.set_file(str(working)) == [] and evaluator.network_active
    kept = evaluator.network
    messages = choice.set_file(str(path))
    assert len(messages) == 1 and str(tmp_path) in messages[0]
    assert messages[0].endswith("keeping the network working.nnue")
    assert evaluator.network is kept and "working.nnue" in choice.describe()   # the network in use is kept
    with pytest.raises(NetworkFileError, match=str(path)):
        nnue.load(evaluator, path)
    assert evaluator.network is kept
    choice.set_mode("classic")
    assert choice.set_file(str(path)) == [f"{messages[0].rsplit('; ', 1)[0]}; keeping the hand-written evaluation"]
    assert not evaluator.network_active


def test_switching_between_network_and_hand_written(tmp_path: Path) -> None:
    path = tmp_path / "net.nnue"
    write_network(path, reference.quantise(reference.random_network(256, seed=2)))
    board, evaluator = Board(), Evaluator()
    choice = EvaluationChoice(evaluator)
    assert choice.set_file(str(path)) == [] and choice.active and evaluator.network_active
    network, network_score = evaluator.network, evaluator.evaluate(board)
    assert network_score == reference.quantised_evaluate(choice.network, chess.Board())
    choice.set_mode("classic")
    assert not evaluator.network_active and evaluator.network is None
    assert evaluator.evaluate(board) == evaluator.classic_evaluate(board)
    choice.set_mode("nnue")
    assert evaluator.network is network and evaluator.evaluate(board) == network_score   # the same copy back
    with pytest.raises(ValueError):
        choice.set_mode("neural")


def test_replacing_the_network_during_a_search_is_safe() -> None:
    """The engine changes its evaluator's network only between searches, but a search running on
    meanwhile must not read freed memory: each evaluation keeps the network it began with, and
    the evaluator keeps every network it was given."""
    import threading

    from ponderosa.engine.search import Searcher, SearchLimits
    evaluator = Evaluator()
    searcher = Searcher(TranspositionTable(1 << 20), evaluator)
    nets = [reference.quantise(reference.random_network(256, seed=seed)) for seed in (21, 22)]
    nnue.install(evaluator, nets[0])
    board = Board(SPECIAL_STARTS[1])
    found = []
    thread = threading.Thread(target=lambda: found.append(searcher.run(board, SearchLimits(nodes=400_000))))
    thread.start()
    for flip in range(200):
        if flip % 3 == 2:
            nnue.remove(evaluator)
        else:   # a new copy each time, the old one dropped by this test
            nnue.install(evaluator, nets[flip % 2])
    thread.join()
    assert found and found[0].best_move in board.legal_moves()


@pytest.mark.parametrize("fen", [
    "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",        # a lone knight
    "8/8/4k3/8/8/2NKN3/8/8 w - - 0 1",       # two knights against a bare king
    "8/8/2nkn3/8/8/3K4/8/8 b - - 0 1",
])
def test_the_network_keeps_the_facts_of_drawn_material(fen: str) -> None:
    """evaluate() applies the hand-written evaluation's material facts to the network's output:
    a dead draw scores 0 whatever the network says (whichever side it thinks is ahead, neither
    can mate); the start position, with pawns on every file, passes the output unchanged."""
    net = reference.quantise(reference.random_network(256, seed=3))
    evaluator = Evaluator()
    nnue.install(evaluator, net)
    board = Board(fen)
    raw = evaluator.network_evaluate(board)
    assert raw == reference.quantised_evaluate(net, chess.Board(fen))
    assert evaluator.evaluate(board) == 0 and raw != 0
    start = Board()
    assert evaluator.evaluate(start) == evaluator.network_evaluate(start)


def test_a_network_belongs_to_the_evaluators_given_it() -> None:
    """Two evaluators in one process: one with a network, one without, one with another network;
    each evaluates with its own, and a change to one leaves the others as they were."""
    nets = [reference.quantise(reference.random_network(256, seed=seed)) for seed in (41, 42)]
    first, second, plain = Evaluator(), Evaluator(), Evaluator()
    assert plain.network is None and not plain.network_active and not nnue.active(plain)
    network = nnue.install(first, nets[0])
    assert isinstance(network, Network) and first.network is network and nnue.active(first)
    nnue.install(second, nets[1])
    for board, core in random_positions(200, seed=43):
        assert first.network_evaluate(core) == reference.quantised_evaluate(nets[0], board), board.fen()
        assert second.network_evaluate(core) == reference.quantised_evaluate(nets[1], board), board.fen()
        assert plain.evaluate(core) == plain.classic_evaluate(core)
    start = Board()
    second.network = network   # one network for two evaluators: the same scores
    assert second.evaluate(start) == first.evaluate(start) != plain.evaluate(start)
    nnue.remove(first)
    assert not first.network_active and second.network is network
    assert first.evaluate(start) == plain.evaluate(start)
    assert second.network_evaluate(start) == reference.quantised_evaluate(nets[0], chess.Board())


def test_another_network_in_one_evaluator_recomputes_its_accumulators() -> None:
    """An evaluator's accumulators hold its network's serial: given another network (or a network
    made where a dropped one was), it recomputes them rather than reuse the old network's sums."""
    evaluator = Evaluator()
    board, core = chess.Board(SPECIAL_STARTS[1]), Board(SPECIAL_STARTS[1])
    serials = set()
    for seed in (51, 52, 51, 53):
        net = reference.quantise(reference.random_network(256, seed=seed))
        network = nnue.install(evaluator, net)   # the last copy dropped each time but kept by the evaluator
        serials.add(network.serial)
        for move in ("e2a6", "b4c3", "d2c3"):
            core.push_uci(move)
            board.push_uci(move)
            assert evaluator.network_evaluate(core) == reference.quantised_evaluate(net, board), (seed, move)
        for _ in range(3):
            core.pop()
            board.pop()
    assert len(serials) == 4 and 0 not in serials


def test_a_network_of_another_shape_is_refused_by_the_core() -> None:
    net = reference.quantise(reference.random_network(256, seed=1))
    with pytest.raises(ValueError, match="shape"):
        Network(net.ft_weights[:-1], net.ft_bias, net.out_weights, net.out_biases)
    with pytest.raises(ValueError, match="shape"):
        Network(net.ft_weights, net.ft_bias, net.out_weights, net.out_biases * 2)   # two biases, one bucket's weights
    with pytest.raises(TypeError):
        Evaluator().network = net   # the file's network, not the core's copy
