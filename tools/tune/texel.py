"""Texel tuning of Ponderosa's evaluation weights against game results.

Usage (after `pip install -e .`; numpy is a dependency of the engine already):

    python -m tools.tune.texel --pgn GAMES.pgn[.xz] [--pgn MORE.pgn ...] [--write]

1. Positions: from every game with a result, up to --per-game positions (drawn at random, seed
   --seed) after the first --skip-plies plies that are quiet: not in check, no promotion and no
   capture that wins material by the static exchange (the core's SEE). Each is labelled with
   its game's result (1, 1/2, 0 for White). --equal-material keeps only positions where both
   sides have the same pieces and pawns (human games' material imbalances are mostly deliberate
   sacrifices, which teach the fit that material hardly matters). --save-positions keeps them in a text file
   (`FEN;result` lines, each game's after a `# game` line) and --positions reads such files, or
   those of tools/nnue/datagen.py (self-play) or tools/tune/label.py (results mixed with a stronger
   engine's expected score, any value from 0 to 1), instead of PGN. About a tenth of the positions, in
   whole games, is held out.
2. K: the scaling constant of the logistic 1 / (1 + 10^(-K·eval/400)) that turns a White-view
   evaluation in centipawns into an expected score is fitted first, to the current weights.
3. Weights: the mean squared error between results and expected scores is minimised over every
   tunable weight of core_ext/eval_weights.pxi. Each pass measures, by central differences of
   the real evaluation, how each position's score moves with each weight (a sparse Jacobian, so
   every term counts, tapering and draw scaling included); weights that move fewer than
   --min-positions scores stay fixed. On that linearised model (default --method newton)
   Gauss-Newton steps minimise the error plus a ridge penalty on the change from the starting
   weights; the ridge is picked from a range by the error on the held-out positions, so a weight
   that few positions see stays near its hand-set value (--method adam: fixed-size Adam steps,
   --ridge optional). The rounded weights are loaded into the core and the error re-measured
   exactly with the real evaluation; --passes repeats this from the new weights. Positions are
   scored on --threads threads at once (the core's loop runs without the GIL).
4. Output: the error before and after, on the training positions and on a held-out tenth, as a
   Markdown report on stdout; --write rewrites core_ext/eval_weights.pxi (then rebuild with
   `pip install -e .`), --out writes the weights file elsewhere.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ponderosa.core_ext import core as evaluate  # the core's evaluation weights
from ponderosa.core_ext.core import Board, Evaluator
from ponderosa.core_ext.position_set import PositionSet

from tools.tune import eval_weights  # the weights file's layout and writer
from tools.tune.positions import collect, hold_out_games  # the positions and their files

LN10 = math.log(10.0)


class ShardedPositions:
    """Positions packed in one PositionSet per thread, each with its own evaluator (and pawn
    table): the core scores a set without the GIL, so the shards are scored side by side."""

    def __init__(self, fens: list[str], shards: int) -> None:
        board = Board()
        size = max(1, -(-len(fens) // max(1, shards)))
        self.shards: list[PositionSet] = []
        for first in range(0, len(fens), size):
            shard = PositionSet()
            for fen in fens[first:first + size]:
                board.set_fen(fen)
                shard.add(board)
            self.shards.append(shard)
        self.evaluators = [Evaluator(1 << 16) for _ in self.shards]
        self._pool = ThreadPoolExecutor(max(1, len(self.shards)))
        self._count = len(fens)

    def __len__(self) -> int:
        return self._count

    def scores(self) -> np.ndarray:
        """Every position's evaluation from White's side, in the order given, with the weights in use."""
        if not self.shards:
            return np.zeros(0, dtype=np.int32)
        parts = self._pool.map(lambda pair: pair[0].scores(pair[1]), zip(self.shards, self.evaluators))
        return np.concatenate(list(parts))


@dataclass
class Data:
    positions: ShardedPositions
    results: np.ndarray        # float64, White's result per position

    def __len__(self) -> int:
        return len(self.positions)


def build_data(samples: list[tuple[str, float]], threads: int = 1) -> Data:
    """The positions packed for the core, in `threads` shards scored side by side."""
    return Data(ShardedPositions([fen for fen, _ in samples], threads),
                np.array([r for _, r in samples], dtype=np.float64))


# ---------------------------------------------------------------- error and K


def expected(scores: np.ndarray, k: float) -> np.ndarray:
    return 1.0 / (1.0 + np.power(10.0, -k * scores / 400.0))


def mean_squared_error(scores: np.ndarray, results: np.ndarray, k: float) -> float:
    return float(np.mean((results - expected(scores, k)) ** 2))


def fit_k(scores: np.ndarray, results: np.ndarray, low: float = 0.05, high: float = 5.0) -> float:
    """K minimising the error of these scores, by golden-section search (the error is unimodal in K)."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = low, high
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = mean_squared_error(scores, results, c), mean_squared_error(scores, results, d)
    while b - a > 1e-4:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = mean_squared_error(scores, results, c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = mean_squared_error(scores, results, d)
    return (a + b) / 2


# ---------------------------------------------------------------- the linearised model


@dataclass(frozen=True)
class Parameter:
    name: str
    index: int        # -1 for a single number


def tunable_parameters(frozen: str | None = None) -> list[Parameter]:
    """Every tunable number of the weights file, but those of weights whose name matches the
    regular expression `frozen`."""
    params = []
    for w in eval_weights.LAYOUT:
        if not w.tunable or (frozen and re.search(frozen, w.name)):
            continue
        if w.length == 0:
            params.append(Parameter(w.name, -1))
        else:
            params.extend(Parameter(w.name, i) for i in range(w.length))
    return params


def with_value(weights: dict, param: Parameter, value: int) -> dict:
    """{name: value} for set_weights with one entry of the weight changed."""
    if param.index < 0:
        return {param.name: value}
    values = list(weights[param.name])
    values[param.index] = value
    return {param.name: values}


def value_of(weights: dict, param: Parameter) -> int:
    return int(weights[param.name] if param.index < 0 else weights[param.name][param.index])


@dataclass
class Jacobian:
    rows: np.ndarray     # position index of each non-zero
    cols: np.ndarray     # parameter index
    vals: np.ndarray     # d(score) / d(weight)
    active: np.ndarray   # bool per parameter: it moves some position's score


def measure_jacobian(data: Data, weights: dict, params: list[Parameter], delta: int,
                     min_positions: int = 1, counted_from: int = 0) -> Jacobian:
    """Central differences of every position's score for every parameter, at the given weights.

    A parameter that moves fewer than min_positions scores (of positions counted_from on: the
    training positions) stays as it is (inactive): a weight seen in a handful of positions would be
    fitted to their noise (Adam, which scales every step to the same size, most of all)."""
    rows, cols, vals = [], [], []
    active = np.zeros(len(params), dtype=bool)
    for j, param in enumerate(params):
        if j and j % 200 == 0:
            print(f"    {j} of {len(params)} parameters measured", file=sys.stderr)
        base = value_of(weights, param)
        evaluate.set_weights(with_value(weights, param, base + delta))
        up = data.positions.scores()
        evaluate.set_weights(with_value(weights, param, base - delta))
        down = data.positions.scores()
        evaluate.set_weights(with_value(weights, param, base))
        diff = (up.astype(np.float32) - down.astype(np.float32)) / (2 * delta)
        nonzero = np.flatnonzero(diff)
        if np.count_nonzero(nonzero >= counted_from) >= min_positions:
            active[j] = True
            rows.append(nonzero.astype(np.int32))
            cols.append(np.full(nonzero.size, j, dtype=np.int32))
            vals.append(diff[nonzero])
    if not rows:
        return Jacobian(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.float32), active)
    return Jacobian(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), active)


def optimise(jac: Jacobian, base_scores: np.ndarray, results: np.ndarray, k: float, n_params: int,
             iterations: int, rate: float, log: bool, ridge: float = 0.0,
             start: np.ndarray | None = None) -> np.ndarray:
    """Adam on the linearised error plus ridge * sum((total change)^2); returns the change of
    every parameter (centipawns, float). start: changes made by earlier passes (for the ridge)."""
    n = len(results)
    change = np.zeros(n_params)
    m = np.zeros(n_params)
    v = np.zeros(n_params)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    vals = jac.vals.astype(np.float64)
    for step in range(1, iterations + 1):
        scores = base_scores + np.bincount(jac.rows, weights=vals * change[jac.cols], minlength=n)
        e = expected(scores, k)
        d_score = -2.0 * (results - e) * e * (1.0 - e) * LN10 * k / 400.0 / n
        grad = np.bincount(jac.cols, weights=vals * d_score[jac.rows], minlength=n_params)
        if ridge:
            grad += 2.0 * ridge * (change + (start if start is not None else 0.0))
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        change -= rate * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + eps)
        if log and (step % 100 == 0 or step == iterations):
            print(f"    step {step}: linearised error {float(np.mean((results - e) ** 2)):.6f}", file=sys.stderr)
    return change


RIDGES = (1e-10, 1e-9, 3e-9, 1e-8, 3e-8, 1e-7, 3e-7)   # tried in turn when --ridge is not given
CURVATURE_CHUNK = 16384                                  # positions per dense block of the curvature


class LinearisedError:
    """The error of a set of positions whose scores move linearly with the parameter changes:
    scores = base + J·change, over the active parameters only (column c is active[c])."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, base: np.ndarray,
                 results: np.ndarray, k: float) -> None:
        order = np.argsort(rows, kind="stable")          # by position, for the curvature's blocks
        self.rows, self.cols = rows[order], cols[order]
        self.vals = vals[order].astype(np.float64)
        self.base, self.results, self.k = base, results, k
        # where each block of CURVATURE_CHUNK positions starts and ends among the sorted entries
        self._blocks = np.searchsorted(self.rows, np.arange(0, len(base) + CURVATURE_CHUNK, CURVATURE_CHUNK))

    def expected(self, change: np.ndarray) -> np.ndarray:
        moved = np.bincount(self.rows, weights=self.vals * change[self.cols], minlength=len(self.base))
        return expected(self.base + moved, self.k)

    def error(self, change: np.ndarray) -> float:
        return float(np.mean((self.results - self.expected(change)) ** 2))

    def gradient_and_slopes(self, change: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """d(error)/d(change), and each position's d(expected)/d(score)."""
        e = self.expected(change)
        slope = e * (1.0 - e) * LN10 * self.k / 400.0
        per_score = 2.0 * (e - self.results) * slope / len(self.results)
        return np.bincount(self.cols, weights=self.vals * per_score[self.rows], minlength=len(change)), slope

    def curvature(self, slope: np.ndarray, n_params: int) -> np.ndarray:
        """The Gauss-Newton matrix (2/n)·Jᵀ diag(slope²) J, built from dense blocks of positions."""
        matrix = np.zeros((n_params, n_params))
        weight = (2.0 / len(self.results)) * slope * slope
        scale = float(weight.max()) or 1.0              # float32 blocks: keep the numbers near 1
        for first, (lo, hi) in enumerate(zip(self._blocks[:-1], self._blocks[1:])):
            if lo == hi:
                continue
            block = np.zeros((CURVATURE_CHUNK, n_params), dtype=np.float32)
            block[self.rows[lo:hi] - first * CURVATURE_CHUNK, self.cols[lo:hi]] = self.vals[lo:hi]
            rows_weight = (weight[first * CURVATURE_CHUNK:(first + 1) * CURVATURE_CHUNK] / scale).astype(np.float32)
            used = len(rows_weight)
            matrix += (block[:used].T @ (block[:used] * rows_weight[:, None])).astype(np.float64)
        return matrix * scale


def optimise_newton(jac: Jacobian, base_scores: np.ndarray, results: np.ndarray, k: float, held: int,
                    n_params: int, iterations: int, ridge: float | None, start: np.ndarray,
                    log: bool) -> tuple[np.ndarray, float]:
    """Gauss-Newton on the linearised error of the training positions (rows from `held` on) plus
    ridge · Σ(total change from the starting weights)². A weight that few positions see has little
    curvature, so the ridge keeps it near its hand-set value while well-seen weights move freely.

    With ridge None every value of RIDGES is tried with the curvature at the start (cheap solves)
    and the one whose result predicts the held-out positions (rows below `held`) best is kept.
    Then `iterations` full steps, each with the curvature measured anew and halved until the
    error falls. Returns (change of every parameter, the ridge used)."""
    active = np.flatnonzero(jac.active)
    column = np.full(n_params, -1, dtype=np.int64)
    column[active] = np.arange(active.size)
    training = jac.rows >= held
    train = LinearisedError(jac.rows[training] - held, column[jac.cols[training]], jac.vals[training],
                            base_scores[held:], results[held:], k)
    test = LinearisedError(jac.rows[~training], column[jac.cols[~training]], jac.vals[~training],
                           base_scores[:held], results[:held], k)
    prior = start[active]      # what earlier passes changed: the ridge counts from the hand-set weights
    size = active.size
    identity = np.eye(size)

    def objective(change: np.ndarray, penalty: float) -> float:
        return train.error(change) + penalty * float(np.sum((change + prior) ** 2))

    def gradient(change: np.ndarray, penalty: float) -> tuple[np.ndarray, np.ndarray]:
        grad, slope = train.gradient_and_slopes(change)
        return grad + 2.0 * penalty * (change + prior), slope

    _, slope0 = train.gradient_and_slopes(np.zeros(size))
    curvature0 = train.curvature(slope0, size)
    jitter = 1e-9 * float(np.mean(np.diag(curvature0)) or 1.0)   # material and tables are collinear
    candidates = [ridge] if ridge is not None else list(RIDGES)
    best: tuple[float, float, np.ndarray] | None = None
    for penalty in candidates:
        trial = np.zeros(size)
        system = curvature0 + (2.0 * penalty + jitter) * identity
        for _ in range(8):    # Newton steps with the starting curvature: enough to rank the ridges
            trial = trial - np.linalg.solve(system, gradient(trial, penalty)[0])
        held_error = test.error(trial) if held else train.error(trial)
        if log:
            print(f"    ridge {penalty:g}: training {train.error(trial):.6f}, held-out {held_error:.6f}",
                  file=sys.stderr)
        if best is None or held_error < best[0]:
            best = (held_error, penalty, trial)
    assert best is not None
    _, penalty, change = best
    for step in range(1, iterations + 1):
        grad, slope = gradient(change, penalty)
        system = train.curvature(slope, size) + (2.0 * penalty + jitter) * identity
        move = -np.linalg.solve(system, grad)
        before = objective(change, penalty)
        for _ in range(10):
            if objective(change + move, penalty) < before:
                change = change + move
                break
            move /= 2
        if log:
            print(f"    step {step}: linearised error {train.error(change):.6f} (held-out "
                  f"{test.error(change) if held else float('nan'):.6f})", file=sys.stderr)
    full = np.zeros(n_params)
    full[active] = change
    return full, penalty


def apply_change(weights: dict, params: list[Parameter], change: np.ndarray, active: np.ndarray) -> dict:
    """The weights with every active parameter moved by its rounded change."""
    new = {name: (list(value) if isinstance(value, list) else value) for name, value in weights.items()}
    for j, param in enumerate(params):
        if not active[j]:
            continue
        value = value_of(weights, param) + int(round(float(change[j])))
        if param.index < 0:
            new[param.name] = value
        else:
            new[param.name][param.index] = value
    return new


# ---------------------------------------------------------------- the run


def without_rows_before(jac: Jacobian, first: int) -> Jacobian:
    """The Jacobian of positions first.. only, renumbered from 0."""
    keep = jac.rows >= first
    return Jacobian(jac.rows[keep] - first, jac.cols[keep], jac.vals[keep], jac.active)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", type=Path, action="append", default=[], help="games (.pgn or .pgn.xz), repeatable")
    parser.add_argument("--positions", type=Path, action="append", default=[],
                        help="`FEN;result` file written by --save-positions, repeatable")
    parser.add_argument("--save-positions", type=Path, help="write the extracted positions to this file")
    parser.add_argument("--max-games", type=int, default=10**9, help="games read from each PGN file")
    parser.add_argument("--per-game", type=int, default=3, help="quiet positions drawn from each game (default 3)")
    parser.add_argument("--skip-plies", type=int, default=16, help="opening plies never drawn (default 16)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--equal-material", action="store_true",
                        help="keep only positions where both sides have the same pieces and pawns: "
                             "material then stays as it is and cannot be confounded (see docs/STRENGTH.md)")
    parser.add_argument("--method", choices=("newton", "adam"), default="newton",
                        help="newton: Gauss-Newton with a ridge chosen on the held-out positions "
                             "(default); adam: fixed-size Adam steps")
    parser.add_argument("--passes", type=int, default=2, help="Jacobian + optimiser rounds (default 2)")
    parser.add_argument("--iterations", type=int,
                        help="optimiser steps per pass (default: newton 4, adam 400)")
    parser.add_argument("--rate", type=float, default=1.0, help="Adam step size in centipawns (default 1)")
    parser.add_argument("--delta", type=int, default=8, help="weight change for the differences (default 8)")
    parser.add_argument("--min-positions", type=int,
                        help="weights moving fewer scores than this stay fixed (default: newton 50, adam 500)")
    parser.add_argument("--ridge", type=float,
                        help="penalty per squared centipawn of change from the start (default: newton picks "
                             "one of " + ", ".join(f"{r:g}" for r in RIDGES) + " by the held-out error; adam 0)")
    parser.add_argument("--freeze", metavar="REGEX",
                        help="weights whose names match stay as they are (e.g. '^PSQ_' for the piece-square tables)")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                        help="threads that score positions side by side (default: 2, or 1 on one core)")
    parser.add_argument("--write", action="store_true", help="rewrite core_ext/eval_weights.pxi")
    parser.add_argument("--out", type=Path, help="write the weights file here instead")
    args = parser.parse_args(argv)
    if not args.pgn and not args.positions:
        parser.error("give games (--pgn) or positions (--positions)")
    for path in [*args.pgn, *args.positions]:
        if not path.is_file():
            parser.error(f"{path}: no such file")
    newton = args.method == "newton"
    iterations = args.iterations if args.iterations is not None else (4 if newton else 400)
    min_positions = args.min_positions if args.min_positions is not None else (50 if newton else 500)
    started = time.monotonic()

    samples = collect(args)
    if len(samples) < 100:
        raise SystemExit(f"only {len(samples)} positions: too few to tune")
    ordered, held = hold_out_games(samples, args.seed)   # positions 0..held-1 are held out, the rest train
    data = build_data(ordered, args.threads)
    print(f"{len(samples) - held} training and {held} held-out positions", file=sys.stderr)

    weights = evaluate.get_weights()
    start_weights = weights
    scores = data.positions.scores().astype(np.float64)
    k = fit_k(scores[held:], data.results[held:])
    error: dict[str, list[float]] = {"train": [], "test": []}

    def measure() -> np.ndarray:
        now = data.positions.scores().astype(np.float64)
        error["train"].append(mean_squared_error(now[held:], data.results[held:], k))
        error["test"].append(mean_squared_error(now[:held], data.results[:held], k))
        print(f"  error: training {error['train'][-1]:.6f}, held-out {error['test'][-1]:.6f}", file=sys.stderr)
        return now

    print(f"K = {k:.4f}", file=sys.stderr)
    scores = measure()
    params = tunable_parameters(args.freeze)
    ridges_used = []
    for number in range(1, args.passes + 1):
        print(f"pass {number}: Jacobian of {len(params)} parameters", file=sys.stderr)
        jac = measure_jacobian(data, weights, params, args.delta, min_positions, counted_from=held)
        print(f"  {int(jac.active.sum())} parameters move at least {min_positions} scores; "
              f"{jac.vals.size} non-zeros", file=sys.stderr)
        so_far = np.array([value_of(weights, p) - value_of(start_weights, p) for p in params], dtype=np.float64)
        if newton:
            change, ridge = optimise_newton(jac, scores, data.results, k, held, len(params), iterations,
                                            args.ridge, so_far, True)
            ridges_used.append(ridge)
        else:
            change = optimise(without_rows_before(jac, held), scores[held:], data.results[held:], k, len(params),
                              iterations, args.rate, True, args.ridge or 0.0, so_far)
        candidate = apply_change(weights, params, change, jac.active)
        evaluate.set_weights(candidate)
        scores = measure()
        if error["train"][-1] > error["train"][-2]:
            print("  the real error went up: this pass is undone and the run stops", file=sys.stderr)
            evaluate.set_weights(weights)
            error["train"].pop()
            error["test"].pop()
            break
        weights = candidate

    source = (f"tools/tune/texel.py: {len(samples) - held} positions, K {k:.4f}, error {error['train'][0]:.6f} -> "
              f"{error['train'][-1]:.6f}" if weights != start_weights else "hand-set weights, before any tuning")
    target = args.out or (eval_weights.WEIGHTS_FILE if args.write else None)
    if target is not None:
        eval_weights.write(weights, source, target)
    minutes = (time.monotonic() - started) / 60
    changed = sum(1 for p in params if value_of(weights, p) != value_of(start_weights, p))
    arguments = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"## Tuning run\n\nCommand: `python -m tools.tune.texel {arguments}`\n")
    print(f"- positions: {len(samples) - held} training, {held} held out; K = {k:.4f}; method {args.method}"
          + (f", ridge {', '.join(f'{r:g}' for r in ridges_used)}" if ridges_used else ""))
    print(f"- mean squared error, training: {error['train'][0]:.6f} -> {error['train'][-1]:.6f}")
    print(f"- mean squared error, held out: {error['test'][0]:.6f} -> {error['test'][-1]:.6f}")
    print(f"- passes kept: {len(error['train']) - 1}; weights changed: {changed} of {len(params)} tunable")
    print(f"- time: {minutes:.1f} min" + (f"; weights written to {target}" if target else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
