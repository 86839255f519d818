"""Fit the win/draw/loss model behind UCI_ShowWDL (engine/wdl.py) to packed self-play games.

Usage (scipy comes with the test extras, `pip install -e ".[test]"`):

    python -m tools.tune.fit_wdl data/nnue/selfplay-05*.pgm.xz [--max-score 600] [--holdout-every 10] \\
        [--save-counts C.npz]
    python -m tools.tune.fit_wdl --counts C.npz          # fit again from the counted samples, no replay
    python -m tools.tune.fit_wdl --scale-check 0.01 data/nnue/selfplay-002.pgm.xz data/nnue/selfplay-045.pgm.xz

Every ply of every game (tools/nnue/packed_games.py) is a sample: the search's score x (centipawns, side
to move), the material on the board m (pawns 1, knights and bishops 3, rooks 5, queens 9, both
sides) and the game's result for the side to move. Mate scores and scores beyond --max-score are
left out. The model is Stockfish's (github.com/official-stockfish/WDL_model):

    win = 1 / (1 + exp((a - x) / b)),   loss = 1 / (1 + exp((a + x) / b)),   draw = 1 - win - loss

with a and b cubic polynomials in t = clamp(m, MATERIAL_RANGE) / MATERIAL_ANCHOR (the constants
and `model_parameters` of engine/wdl.py, here over arrays), fitted by maximum likelihood (scipy's
L-BFGS-B, then Nelder-Mead) over the samples counted by (result, material, score). Every
--holdout-every'th game is held out of the fit: the tables of observed against predicted rates
and the log-loss marked held-out are over those games only.

Prints the coefficients to put into engine/wdl.py, the held-out log-loss of the fit and of the
coefficients engine/wdl.py has now (whether the refit pays), and, as Markdown, the calibration tables.

The model maps the engine's scores, so the games must have been scored on the scale the engine
scores on now. --scale-check F searches a share F of each file's positions (|score| <= 600) again
with the engine's default evaluation at 5,000 nodes, as the games were searched, and prints the
least-squares slope of the new scores against the recorded ones (1: the same scale).
"""
from __future__ import annotations

import argparse
import math
from collections.abc import Iterable
from pathlib import Path

import chess
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits
from ponderosa.engine.wdl import (
    A_COEFFICIENTS,
    B_COEFFICIENTS,
    MATERIAL_ANCHOR,
    MATERIAL_RANGE,
    PIECE_VALUES,
    material_count,
)

from tools.nnue.packed_games import read_games

MAX_MATERIAL = 2 * 39 + 16 * 8  # every pawn promoted to a queen: a bound for the counts array
LOSS, DRAW, WIN = 0, 1, 2       # the result's index, for the side to move
RESULT_FOR_WHITE = {"0-1": LOSS, "1/2-1/2": DRAW, "1-0": WIN}
EPSILON = 1e-12                 # no log of zero when a rate rounds to nothing
SCORE_BUCKETS = (-300, -200, -100, -50, -20, 20, 50, 100, 200, 300)
MATERIAL_BUCKETS = ((60, 78, "60-78 (opening)"), (30, 59, "30-59"), (0, 29, "0-29 (endgame)"))
SCALE_CHECK_SCORE = 600         # --scale-check: positions scored within this...
SCALE_CHECK_NODES = 5000        # ...searched again as tools/nnue/datagen.py searched them
MATE_FREE_SCORE = 3000          # a search score beyond this is a mate or tablebase win: no scale
NODES = (6, 30, 54, 78)         # material at which the fit moves a and b (the cubics pass through them)
Counts = NDArray[np.int64]
Floats = NDArray[np.float64]


def model_parameters(material: Floats, a: Floats, b: Floats) -> tuple[Floats, Floats]:
    """engine/wdl.py's model_parameters for an array of material counts."""
    t = np.clip(material, *MATERIAL_RANGE) / MATERIAL_ANCHOR
    return np.polyval(a, t), np.polyval(b, t)


def count_samples(paths: Iterable[Path], max_score: int, holdout_every: int) -> tuple[Counts, Counts]:
    """(fit, held out): samples counted by [result, material, score + max_score], every
    holdout_every'th game (0: none) into the second array."""
    shape = (3, MAX_MATERIAL + 1, 2 * max_score + 1)
    fit, held = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
    number = 0
    for path in paths:
        for game in read_games(path):
            number += 1
            target = held if holdout_every and number % holdout_every == 0 else fit
            white_result = RESULT_FOR_WHITE[game.result]
            board = chess.Board(game.start_fen)
            material = material_count(board)
            for move, score in zip(game.moves, game.scores):
                if abs(score) <= max_score:
                    result = white_result if board.turn == chess.WHITE else 2 - white_result
                    target[result, min(material, MAX_MATERIAL), score + max_score] += 1
                changes_material = board.is_capture(move) or move.promotion is not None
                board.push(move)
                if changes_material:
                    material = material_count(board)
    return fit, held


class Samples:
    """The nonzero cells of a counts array, flattened: material, score and the three counts."""

    def __init__(self, counts: Counts) -> None:
        max_score = (counts.shape[2] - 1) // 2
        cells = np.nonzero(counts.sum(axis=0))
        self.material = cells[0].astype(np.float64)
        self.score = cells[1].astype(np.float64) - max_score
        self.losses, self.draws, self.wins = (counts[result][cells].astype(np.float64) for result in (LOSS, DRAW, WIN))
        self.total = self.losses + self.draws + self.wins

    def rates(self, coefficients: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
        """The model's (win, draw, loss) rates at every cell."""
        a, b = model_parameters(self.material, coefficients[:4], coefficients[4:])
        a, b = np.maximum(a, 0.0), np.maximum(b, 1.0)   # as engine/wdl.py clamps them
        with np.errstate(over="ignore"):   # exp overflowing to infinity is a rate of 0, as it should be
            win = 1 / (1 + np.exp((a - self.score) / b))
            loss = 1 / (1 + np.exp((a + self.score) / b))
        return win, np.maximum(1 - win - loss, EPSILON), loss

    def log_loss(self, coefficients: NDArray[np.float64]) -> float:
        """Mean negative log-likelihood of a sample's result under the model."""
        win, draw, loss = self.rates(coefficients)
        total = (self.wins * np.log(np.maximum(win, EPSILON)) + self.draws * np.log(draw)
                 + self.losses * np.log(np.maximum(loss, EPSILON))).sum()
        return float(-total / self.total.sum())

    def baseline_log_loss(self) -> float:
        """The same for the overall rates alone (what knowing nothing of score and material gives)."""
        counts = np.array([self.wins.sum(), self.draws.sum(), self.losses.sum()])
        rates = counts / counts.sum()
        return float(-(counts * np.log(np.maximum(rates, EPSILON))).sum() / counts.sum())


def coefficients_through(values: Floats) -> Floats:
    """The two cubics (a's, then b's coefficients) through a and b at the NODES: the fit moves
    these values, all in centipawns, because the coefficients themselves are so unequally scaled
    (and so correlated) that a quasi-Newton search over them stops far from the optimum."""
    nodes = np.array(NODES, dtype=np.float64) / MATERIAL_ANCHOR
    return np.concatenate([np.polyfit(nodes, values[:4], 3), np.polyfit(nodes, values[4:], 3)])


def fit(samples: Samples) -> Floats:
    """The eight coefficients (a's cubic, then b's) of the maximum-likelihood fit: from a and b
    constant in material, L-BFGS-B over a and b at the nodes, then Nelder-Mead to polish."""
    def loss(values: Floats) -> float:
        return samples.log_loss(coefficients_through(values))
    constant = minimize(lambda pair: loss(np.repeat(pair, 4)), np.array([150.0, 100.0]), method="Nelder-Mead")
    start = np.repeat(constant.x, 4)
    rough = minimize(loss, start, method="L-BFGS-B", options={"maxiter": 10000, "maxfun": 100000})
    polished = minimize(loss, rough.x, method="Nelder-Mead",
                        options={"maxiter": 20000, "maxfev": 20000, "xatol": 1e-3, "fatol": 1e-10})
    return coefficients_through(np.asarray(polished.x, dtype=np.float64))


def calibration_table(samples: Samples, coefficients: NDArray[np.float64],
                      material_range: tuple[int, int] = (0, MAX_MATERIAL)) -> list[str]:
    """Markdown rows: per score bucket, the positions, and the observed and predicted W/D/L (%)."""
    win, draw, loss = samples.rates(coefficients)
    edges = (-math.inf, *SCORE_BUCKETS, math.inf)
    rows = ["| score (cp) | positions | observed W / D / L % | predicted W / D / L % |", "|---|---:|---|---|"]
    in_range = (samples.material >= material_range[0]) & (samples.material <= material_range[1])
    for low, high in zip(edges, edges[1:]):
        cells = in_range & (samples.score >= low) & (samples.score < high)
        total = samples.total[cells].sum()
        if not total:
            continue
        observed = [samples.wins[cells].sum(), samples.draws[cells].sum(), samples.losses[cells].sum()]
        predicted = [(rate[cells] * samples.total[cells]).sum() for rate in (win, draw, loss)]
        label = f"< {high:g}" if low == -math.inf else f">= {low:g}" if high == math.inf else f"{low:g} .. {high:g}"
        rows.append(f"| {label} | {int(total):,} | {' / '.join(f'{100 * n / total:.1f}' for n in observed)} | "
                    f"{' / '.join(f'{100 * n / total:.1f}' for n in predicted)} |")
    return rows


def scale_check(path: Path, share: float, seed: int = 11) -> str:
    """The slope of the engine's scores (default evaluation, 5,000 nodes, fresh hash) against
    the file's, over a random share of its positions with |score| <= 600."""
    rng = np.random.default_rng(seed)
    engine = Engine()
    recorded, searched = [], []
    for game in read_games(path):
        board = chess.Board(game.start_fen)
        for move, score in zip(game.moves, game.scores):
            if abs(score) <= SCALE_CHECK_SCORE and rng.random() < share:
                engine.set_position(board.fen())
                engine.tt.clear()
                found = engine.think(SearchLimits(nodes=SCALE_CHECK_NODES)).score
                if abs(found) <= MATE_FREE_SCORE:
                    recorded.append(score)
                    searched.append(found)
            board.push(move)
    old, new = np.array(recorded, dtype=np.float64), np.array(searched, dtype=np.float64)
    slope = float(new @ old / (old @ old))
    return (f"{path}: {len(old)} positions, slope {slope:.3f}; mean |score| recorded {np.abs(old).mean():.1f}, "
            f"now {np.abs(new).mean():.1f} ({engine.evaluation.describe()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", type=Path, help="packed games files (.pgm.xz)")
    parser.add_argument("--max-score", type=int, default=600, help="leave out |score| above this (default 600)")
    parser.add_argument("--holdout-every", type=int, default=10,
                        help="hold every Nth game out of the fit to test it (default 10; 0: none)")
    parser.add_argument("--save-counts", type=Path, help="write the counted samples here (npz)")
    parser.add_argument("--counts", type=Path, help="read counted samples (from --save-counts) instead of games")
    parser.add_argument("--scale-check", type=float, metavar="SHARE",
                        help="compare the files' scores with the engine's own on this share of positions, then stop")
    args = parser.parse_args()
    if args.scale_check:
        for path in args.games:
            print(scale_check(path, args.scale_check))
        return
    if args.counts:
        saved = np.load(args.counts)
        fit_counts, held_counts = saved["fit"], saved["held"]
    elif args.games:
        fit_counts, held_counts = count_samples(args.games, args.max_score, args.holdout_every)
    else:
        parser.error("name packed games files, or --counts")
    if args.save_counts:
        np.savez_compressed(args.save_counts, fit=fit_counts, held=held_counts)
    training = Samples(fit_counts)
    coefficients = fit(training)
    a, b = coefficients[:4], coefficients[4:]
    per_material = fit_counts.sum(axis=(0, 2))
    print(f"samples: {int(fit_counts.sum()):,} fitted, {int(held_counts.sum()):,} held out; "
          f"material {MATERIAL_RANGE[0]}..{MATERIAL_RANGE[1]} / {MATERIAL_ANCHOR} (positions below "
          f"{MATERIAL_RANGE[0]}: {int(per_material[:MATERIAL_RANGE[0]].sum()):,}); piece values {PIECE_VALUES}")
    print(f"A_COEFFICIENTS = ({', '.join(f'{value:.6f}' for value in a)})")
    print(f"B_COEFFICIENTS = ({', '.join(f'{value:.6f}' for value in b)})")
    for material in (78, 58, 40, 20):
        a_value, b_value = model_parameters(np.array([material], dtype=np.float64), a, b)
        print(f"material {material}: a {a_value[0]:.1f} cp (50% win), b {b_value[0]:.1f} cp")
    print(f"log-loss (fitted games): {training.log_loss(coefficients):.4f}, "
          f"overall rates alone {training.baseline_log_loss():.4f}")
    if held_counts.sum():
        held = Samples(held_counts)
        print(f"log-loss (held-out games): {held.log_loss(coefficients):.4f}, "
              f"overall rates alone {held.baseline_log_loss():.4f}")
        shipped = np.array(A_COEFFICIENTS + B_COEFFICIENTS, dtype=np.float64)
        print(f"log-loss (held-out games) of engine/wdl.py's coefficients now: {held.log_loss(shipped):.4f}")
        print("\nHeld-out games, all material:\n")
        print("\n".join(calibration_table(held, coefficients)))
        for low, high, name in MATERIAL_BUCKETS:
            print(f"\nHeld-out games, material {name}:\n")
            print("\n".join(calibration_table(held, coefficients, (low, high))))


if __name__ == "__main__":
    main()
