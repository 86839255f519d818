"""The evaluation tuner: packed positions (whole and in shards), quietness, K, the Jacobian, the
Gauss-Newton optimiser and its ridge choice, and short runs that lower the error."""
from __future__ import annotations

import lzma
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from ponderosa.core_ext.core import Board, Evaluator, default_weights, get_weights, set_weights
from ponderosa.core_ext.position_set import PositionSet, is_quiet

from tests.conftest import data_file
from tools.tune import positions as tune_positions
from tools.tune import texel

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def restore_weights():  # type: ignore[no-untyped-def]
    yield
    set_weights(default_weights())


def sample_fens(games: int) -> list[str]:
    fens = []
    with lzma.open(data_file("games", "master_sample_2000.pgn.xz"), "rt") as handle:
        for _ in range(games):
            game = chess.pgn.read_game(handle)
            assert game is not None
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                fens.append(board.fen())
    return fens


def test_packed_scores_equal_the_evaluator() -> None:
    fens = sample_fens(20)
    positions = PositionSet()
    for fen in fens:
        positions.add(Board(fen))
    evaluator = Evaluator()
    scores = positions.scores(evaluator)
    assert len(positions) == len(fens) == len(scores)
    for fen, score in zip(fens, scores):
        board = Board(fen)
        white_view = evaluator.evaluate(board) * (1 if board.white_to_move else -1)
        assert score == white_view, fen


def test_quiet_positions() -> None:
    assert is_quiet(Board())
    assert not is_quiet(Board("4k3/8/8/8/8/8/8/4K2r w - - 0 1"))          # in check
    assert not is_quiet(Board("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1"))       # exd5 wins a queen
    assert is_quiet(Board("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1"))         # exd5 cxd5: even
    assert not is_quiet(Board("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"))         # promotion


def test_fit_k_finds_the_constant_of_the_data() -> None:
    scores = np.linspace(-600, 600, 241)
    results = texel.expected(scores, 1.37)
    assert texel.fit_k(scores, results) == pytest.approx(1.37, abs=1e-3)


def test_jacobian_of_the_queen_value_is_the_phase_share() -> None:
    # White has a queen more: the score moves by phase/24 per centipawn of the opening value.
    data = texel.build_data([("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1", 1.0),
                            ("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", 0.5)])
    params = [texel.Parameter("PIECE_MG", 5), texel.Parameter("PIECE_EG", 5), texel.Parameter("TEMPO_MG", -1)]
    jac = texel.measure_jacobian(data, get_weights(), params, 8)
    dense = np.zeros((2, 3))
    dense[jac.rows, jac.cols] = jac.vals
    assert dense[0, 0] == pytest.approx(4 / 24, abs=0.07)     # phase 4 (one queen)
    assert dense[0, 1] == pytest.approx(20 / 24, abs=0.07)
    assert dense[1, 0] == dense[1, 1] == 0                    # no queen on the board
    assert dense[1, 2] == 0                                   # phase 0: the opening tempo counts nothing
    assert list(jac.active) == [True, True, True]
    assert get_weights() == default_weights()   # every weight put back


def test_position_file_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "positions.txt"
    path.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.5\nnot a fen;1\n")
    with pytest.raises(SystemExit, match=r"positions.txt:2"):
        list(tune_positions.read_position_file(path))
    path.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;1.5\n")
    with pytest.raises(SystemExit, match=r"positions.txt:1: result '1.5'"):
        list(tune_positions.read_position_file(path))
    path.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.7\n")   # a tools/tune/label.py label
    assert [result for _, result, _ in tune_positions.read_position_file(path)] == [0.7]


def test_position_files_number_their_games(tmp_path: Path) -> None:
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    marked = tmp_path / "marked.txt"
    marked.write_text(f"# header\n# game\n{start};1\n{start};1\n# game\n{start};0\n")
    assert [game for _, _, game in tune_positions.read_position_file(marked)] == [1, 1, 2]
    plain = tmp_path / "plain.txt"
    plain.write_text(f"{start};1\n{start};1\n{start};0\n")
    assert [game for _, _, game in tune_positions.read_position_file(plain)] == [0, 1, 2]


def test_whole_games_are_held_out() -> None:
    samples = [(f"fen{game}-{i}", float(game % 2), game) for game in range(50) for i in range(game % 7 + 1)]
    ordered, held = tune_positions.hold_out_games(samples, seed=3)
    assert sorted(ordered) == sorted((fen, result) for fen, result, _ in samples)
    game_of = {fen: game for fen, _, game in samples}
    held_games = {game_of[fen] for fen, _ in ordered[:held]}
    trained_games = {game_of[fen] for fen, _ in ordered[held:]}
    assert held_games and trained_games and not held_games & trained_games
    assert 0.1 * len(samples) <= held < 0.1 * len(samples) + 7   # about a tenth: up to one game more


def test_equal_material_means_the_same_pieces_and_pawns_on_both_sides() -> None:
    assert tune_positions.has_equal_material("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert tune_positions.has_equal_material("4k3/pp6/8/8/8/8/6PP/4K3 w - - 0 1")
    assert not tune_positions.has_equal_material("4k3/pp6/8/8/8/8/7P/4K3 w - - 0 1")                # a pawn down
    assert not tune_positions.has_equal_material("r3k3/8/8/8/8/8/8/1B2K3 w - - 0 1")                 # the exchange
    assert not tune_positions.has_equal_material("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w - - 0 1")


def test_frozen_weights_are_not_tuned() -> None:
    every = texel.tunable_parameters()
    free = texel.tunable_parameters("^PSQ_|^PIECE_[ME]G$")
    assert not any(p.name.startswith("PSQ_") or p.name in ("PIECE_MG", "PIECE_EG") for p in free)
    assert len(every) - len(free) == 12 * 64 + 2 * 7
    assert {"TEMPO_MG", "PIECE_BLOCKED_MG"} <= {p.name for p in free}


def test_sharded_scores_equal_the_whole_set_in_order() -> None:
    samples = [(fen, 0.5) for fen in sample_fens(12)]
    whole = PositionSet()
    for fen, _ in samples:
        whole.add(Board(fen))
    whole_scores = whole.scores(Evaluator())
    assert list(texel.build_data(samples).positions.scores()) == list(whole_scores)
    sharded = texel.build_data(samples, threads=3)
    assert len(sharded.positions.shards) == 3
    assert list(sharded.positions.scores()) == list(whole_scores)
    assert len(sharded) == len(samples)


def synthetic_problem(truth: np.ndarray, held_truth: np.ndarray, n: int = 6000, held: int = 600,
                      seed: int = 3) -> tuple:
    """A Jacobian of random sparse slopes, base scores, and results that are the expected scores
    of base + J·truth (held-out rows: of base + J·held_truth); K 1.1."""
    rng = np.random.default_rng(seed)
    params = truth.size
    dense = rng.normal(0.0, 1.0, (n, params)) * (rng.random((n, params)) < 0.4)
    rows, cols = np.nonzero(dense)
    jac = texel.Jacobian(rows.astype(np.int32), cols.astype(np.int32), dense[rows, cols].astype(np.float32),
                         np.ones(params, dtype=bool))
    base = rng.normal(0.0, 150.0, n)
    moved = dense @ truth
    moved[:held] = dense[:held] @ held_truth
    return jac, base, texel.expected(base + moved, 1.1)


def test_gauss_newton_recovers_the_weights_that_made_the_results() -> None:
    truth = np.array([30.0, -20.0, 12.0, 0.0])
    jac, base, results = synthetic_problem(truth, truth)
    change, ridge = texel.optimise_newton(jac, base, results, 1.1, 600, 4, 4, 1e-12, np.zeros(4), False)
    assert ridge == 1e-12
    assert change == pytest.approx(truth, abs=0.3)
    # A heavy ridge holds the weights near where they started.
    held_back, _ = texel.optimise_newton(jac, base, results, 1.1, 600, 4, 4, 1e-4, np.zeros(4), False)
    assert np.abs(held_back).sum() < 0.5 * np.abs(truth).sum()


def test_the_ridge_is_chosen_by_the_held_out_positions() -> None:
    truth = np.array([30.0, -20.0, 12.0, 5.0])
    # The held-out positions follow the same weights: the lightest ridge predicts them best.
    jac, base, results = synthetic_problem(truth, truth)
    _, ridge = texel.optimise_newton(jac, base, results, 1.1, 600, 4, 1, None, np.zeros(4), False)
    assert ridge == min(texel.RIDGES)
    # They follow the starting weights: what the training rows say does not carry over, and the
    # heaviest ridge (the least change) predicts them best.
    jac, base, results = synthetic_problem(truth, np.zeros(4))
    _, ridge = texel.optimise_newton(jac, base, results, 1.1, 600, 4, 1, None, np.zeros(4), False)
    assert ridge == max(texel.RIDGES)


@pytest.mark.parametrize("method", ["newton", "adam"])
def test_short_run_lowers_the_training_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], method: str) -> None:
    out = tmp_path / "eval_weights.pxi"
    saved = tmp_path / "positions.txt"
    iterations = ["--iterations", "60"] if method == "adam" else []
    code = texel.main(["--pgn", str(data_file("games", "master_sample_2000.pgn.xz")), "--max-games", "200",
                      "--passes", "1", "--method", method, *iterations, "--min-positions", "20",
                      "--out", str(out), "--save-positions", str(saved)])
    assert code == 0
    report = capsys.readouterr().out
    before, after = (float(x) for x in report.split("training: ")[1].split()[0:3:2])
    assert after < before
    namespace: dict = {}
    exec(out.read_text(), namespace)          # the weights file is Python: one dict
    texel.eval_weights.check(namespace["EVAL_WEIGHTS"])
    assert namespace["EVAL_WEIGHTS"] != default_weights()
    lines = [line for line in saved.read_text().splitlines() if line != "# game"]
    assert len(lines) > 300 and all(line.rsplit(";", 1)[1] in ("1", "0.5", "0") for line in lines)
    games = {game for _, _, game in tune_positions.read_position_file(saved)}
    assert len(lines) / 3 <= len(games) < len(lines)   # up to --per-game 3 positions a game, numbered by game
