"""The neural evaluation: the core's integer network against the numpy reference (exactly), the
float network (within a stated tolerance), incremental accumulators against fresh ones, and
network files that cannot be used (a clear message, the evaluation in use kept)."""
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

from ponderosa.core_ext.board import Board
from ponderosa.core_ext.evaluate import Evaluator, nnue_active
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


@pytest.fixture
def restore_evaluation():
    """Tests change the process's network; put back the hand-written evaluation after each."""
    yield
    nnue.remove()


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


def test_core_equals_quantised_reference_on_10000_positions(restore_evaluation) -> None:
    net = reference.quantise(reference.random_network(256, seed=7))
    nnue.install(net)
    evaluator = Evaluator()
    mismatches = []
    for board, core in random_positions(10_000, seed=11):
        for side in (chess.WHITE, chess.BLACK):   # no first-layer sum may leave int16
            assert np.abs(reference.accumulator(net, board, side)).max() < 32768
        expected = reference.quantised_evaluate(net, board)
        got = evaluator.network_evaluate(core)
        if got != expected:
            mismatches.append((board.fen(), got, expected))
    assert mismatches == []


def test_the_shipped_network_in_the_core_equals_the_reference_on_real_games(restore_evaluation) -> None:
    """The shipped network (engine/nnue/ponderosa.nnue) as the core computes it, accumulators
    updated move by move, against the numpy integer reference, on 1,200 positions of master games."""
    net = nnue.read_network(nnue.DEFAULT_NETWORK)
    nnue.install(net)
    evaluator = Evaluator()
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


def test_quantised_network_stays_near_its_float_network(restore_evaluation) -> None:
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


def test_incremental_accumulators_equal_fresh_ones(restore_evaluation) -> None:
    nnue.install(reference.quantise(reference.random_network(256, seed=9)))
    evaluator = Evaluator()
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


def test_search_takeback_and_siblings_keep_accumulators_right(restore_evaluation) -> None:
    """After searches (siblings overwrite the stack's entries) and take-backs, the evaluation of
    the position at hand still equals the fresh one."""
    from ponderosa.core_ext.tt import TranspositionTable
    from ponderosa.engine.search import Searcher, SearchLimits
    nnue.install(reference.quantise(reference.random_network(256, seed=4)))
    evaluator = Evaluator()
    searcher = Searcher(TranspositionTable(1 << 20), evaluator)
    core = Board(SPECIAL_STARTS[1])
    for _ in range(6):
        result = searcher.run(core, SearchLimits(nodes=3000))
        assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)
        core.push_uci(result.best_move)
    core.pop()
    core.pop()
    assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)


def test_refreshes_through_the_cache_are_exact(restore_evaluation) -> None:
    """A position none of whose ancestors has an accumulator is computed from the last position
    refreshed before it (the pieces that differ); unrelated positions one after another, and
    another network in between, still give the fresh sums and the reference's score."""
    boards = [board.copy() for board, _ in random_positions(400, seed=19)]
    random.Random(23).shuffle(boards)
    evaluator = Evaluator()
    for seed in (31, 32):
        net = reference.quantise(reference.random_network(256, seed=seed))
        nnue.install(net)
        for board in boards[:150]:
            core = Board(board.fen())
            assert evaluator.network_evaluate(core) == reference.quantised_evaluate(net, board), board.fen()
            assert evaluator.network_accumulator(core) == evaluator.network_accumulator(core, fresh=True)


def test_output_weights_beyond_a_byte_take_the_wide_output_layer(restore_evaluation) -> None:
    """Output weights within +-128 multiply in int16 lanes; a network with larger ones (not made
    by the trainer, which clips them) must still be computed exactly, in int32."""
    net = reference.quantise(reference.random_network(256, seed=6))
    wide = np.frombuffer(net.out_weights, dtype=np.int16).copy()
    wide[::97] = np.where(np.arange(wide[::97].size) % 2, 900, -700)
    net = replace(net, out_weights=int16_array(wide.astype("<i2").tobytes()))
    nnue.install(net)
    evaluator = Evaluator()
    mismatches = [(board.fen(), evaluator.network_evaluate(core), reference.quantised_evaluate(net, board))
                  for board, core in random_positions(1_000, seed=29)]
    assert [m for m in mismatches if m[1] != m[2]] == []
    assert len({m[2] for m in mismatches}) > 100   # the scores vary: the wide weights count


def test_network_file_round_trip(tmp_path: Path) -> None:
    net = reference.quantise(reference.random_network(256, seed=1), "round trip")
    path = tmp_path / "net.nnue"
    write_network(path, net)
    again = nnue.read_network(path)
    assert again.description == "round trip" and again.out_bias == net.out_bias
    assert np.array_equal(again.ft_weights, net.ft_weights) and np.array_equal(again.out_weights, net.out_weights)


@pytest.mark.parametrize("damage", ["missing", "empty", "truncated", "magic", "checksum", "shape", "version"])
def test_unusable_network_file_is_named_and_the_evaluation_kept(tmp_path: Path, damage: str,
                                                                 restore_evaluation) -> None:
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
    choice = EvaluationChoice()
    assert choice.set_file(str(working)) == [] and nnue_active()
    messages = choice.set_file(str(path))
    assert len(messages) == 1 and str(tmp_path) in messages[0]
    assert messages[0].endswith("keeping the network working.nnue")
    assert nnue_active() and "working.nnue" in choice.describe()   # the network in use is kept
    with pytest.raises(NetworkFileError, match=str(path)):
        nnue.load(path)
    assert nnue_active()
    choice.set_mode("classic")
    assert choice.set_file(str(path)) == [f"{messages[0].rsplit('; ', 1)[0]}; keeping the hand-written evaluation"]
    assert not nnue_active()


def test_switching_between_network_and_hand_written(tmp_path: Path, restore_evaluation) -> None:
    path = tmp_path / "net.nnue"
    write_network(path, reference.quantise(reference.random_network(256, seed=2)))
    choice = EvaluationChoice()
    assert choice.set_file(str(path)) == [] and nnue_active()
    board, evaluator = Board(), Evaluator()
    network_score = evaluator.evaluate(board)
    assert network_score == reference.quantised_evaluate(choice.network, chess.Board())
    choice.set_mode("classic")
    assert not nnue_active() and evaluator.evaluate(board) == evaluator.classic_evaluate(board)
    choice.set_mode("nnue")
    assert nnue_active() and evaluator.evaluate(board) == network_score
    with pytest.raises(ValueError):
        choice.set_mode("neural")


def test_replacing_the_network_during_a_search_is_safe(restore_evaluation) -> None:
    """The engine changes networks only between searches, but a search running on meanwhile
    (another Engine in the process, as in the test suite) must not read freed memory: each
    evaluation keeps the network it began with, and a replaced network is never freed."""
    import threading

    from ponderosa.core_ext.tt import TranspositionTable
    from ponderosa.engine.search import Searcher, SearchLimits
    nets = [reference.quantise(reference.random_network(256, seed=seed)) for seed in (21, 22)]
    nnue.install(nets[0])
    searcher = Searcher(TranspositionTable(1 << 20), Evaluator())
    board = Board(SPECIAL_STARTS[1])
    found = []
    thread = threading.Thread(target=lambda: found.append(searcher.run(board, SearchLimits(nodes=400_000))))
    thread.start()
    for flip in range(200):
        if flip % 3 == 2:
            nnue.remove()
        else:
            nnue.install(nets[flip % 2])
    thread.join()
    assert found and found[0].best_move in board.legal_moves()


@pytest.mark.parametrize("fen", [
    "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",        # a lone knight
    "8/8/4k3/8/8/2NKN3/8/8 w - - 0 1",       # two knights against a bare king
    "8/8/2nkn3/8/8/3K4/8/8 b - - 0 1",
])
def test_the_network_keeps_the_facts_of_drawn_material(fen: str, restore_evaluation) -> None:
    """evaluate() applies the hand-written evaluation's material facts to the network's output:
    a dead draw scores 0 whatever the network says (whichever side it thinks is ahead, neither
    can mate); the start position, with pawns on every file, passes the output unchanged."""
    net = reference.quantise(reference.random_network(256, seed=3))
    nnue.install(net)
    evaluator = Evaluator()
    board = Board(fen)
    raw = evaluator.network_evaluate(board)
    assert raw == reference.quantised_evaluate(net, chess.Board(fen))
    assert evaluator.evaluate(board) == 0 and raw != 0
    start = Board()
    assert evaluator.evaluate(start) == evaluator.network_evaluate(start)
