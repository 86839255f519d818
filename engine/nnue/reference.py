"""The network in numpy: the float network the trainer learns, its quantisation, and the integer
forward pass the core computes, written plainly so the tests can hold the core to it.

Inputs, per perspective: 768 = (own / opponent's piece) x (pawn .. king) x square, the square
flipped vertically for Black's perspective; with king buckets, one such set per bucket of the
perspective's own king square (network_file.KingLayout). First layer: the perspective's active columns summed
onto a bias (the accumulator). Output: both accumulators, side to move first, through the squared
clipped ReLU clamp(x, 0, 1)^2, into one linear neuron; times the scale it is centipawns.
"""
from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np

from ponderosa.engine.nnue.network_file import (
    INPUTS,
    NO_KING_BUCKETS,
    KingLayout,
    QuantisedNetwork,
    int16_array,
    output_bucket,
)

QA = 255
QB = 64
SCALE = 400
# Weights are clipped to these in training and quantisation: with 32 pieces, bias included, a
# first-layer sum stays within int16 (33 x 1.98 x 255 < 32767), and an output weight within a byte.
FT_WEIGHT_LIMIT = 1.98
OUT_WEIGHT_LIMIT = 127 / QB


@dataclass
class FloatNetwork:
    ft_weights: np.ndarray    # float32 [768 x king buckets, hidden]
    ft_bias: np.ndarray       # float32 [hidden]
    out_weights: np.ndarray   # float32 [buckets, 2 * hidden]
    out_bias: np.ndarray      # float32 [buckets]
    king_layout: KingLayout = NO_KING_BUCKETS

    @property
    def buckets(self) -> int:
        return len(self.out_bias)


def features(board: chess.Board, perspective: chess.Color, layout: KingLayout = NO_KING_BUCKETS) -> list[int]:
    """Active input indices of the board seen from perspective (the core's nnue_feature): in the
    set of the perspective's king bucket, the board mirrored left to right when the layout says."""
    flip_rank = 0 if perspective == chess.WHITE else 56
    offset, flip_file = 0, 0
    king = board.king(perspective)
    if not layout.plain and king is not None:   # a board without that king: the first set (the core's too)
        bucket, flip_file = layout.transform(king ^ flip_rank)
        offset = bucket * INPUTS
    active = []
    for square, piece in board.piece_map().items():
        relative = 0 if piece.color == perspective else 1
        active.append(offset + relative * 384 + (piece.piece_type - 1) * 64 + (square ^ flip_rank ^ flip_file))
    return active


def float_evaluate(net: FloatNetwork, board: chess.Board) -> float:
    """Centipawns from the side to move's view, in floating point."""
    halves = []
    for perspective in (board.turn, not board.turn):
        accumulator = net.ft_bias + net.ft_weights[features(board, perspective, net.king_layout)].sum(axis=0)
        halves.append(np.clip(accumulator, 0.0, 1.0) ** 2)
    bucket = output_bucket(len(board.piece_map()), net.buckets)
    return float((np.concatenate(halves) @ net.out_weights[bucket] + net.out_bias[bucket]) * SCALE)


def _truncating_divide(numerator: int, denominator: int) -> int:
    """C's integer division (toward zero), which the core uses."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def as_numpy(values) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int16).astype(np.int64)


def accumulator(net: QuantisedNetwork, board: chess.Board, perspective: chess.Color) -> np.ndarray:
    """The first-layer sums, in int64 (the core keeps them in int16; the test checks none overflow)."""
    weights = as_numpy(net.ft_weights).reshape(net.inputs, net.hidden)
    return as_numpy(net.ft_bias) + weights[features(board, perspective, net.king_layout)].sum(axis=0)


def quantised_evaluate(net: QuantisedNetwork, board: chess.Board, limit: int = 9000) -> int:
    """The core's integer score for the board, side to move's view, clamped like the core's."""
    halves = [np.clip(accumulator(net, board, side), 0, net.qa) for side in (board.turn, not board.turn)]
    activated = np.concatenate(halves)
    bucket = output_bucket(len(board.piece_map()), net.buckets)
    weights = as_numpy(net.out_weights).reshape(net.buckets, 2 * net.hidden)[bucket]
    total = int((activated * activated * weights).sum())
    score = _truncating_divide((_truncating_divide(total, net.qa) + net.out_biases[bucket]) * net.scale,
                               net.qa * net.qb)
    return max(-limit, min(limit, score))


def quantise(net: FloatNetwork, description: str = "") -> QuantisedNetwork:
    """Round the float network to the core's integers (weights clipped to what fits)."""
    def rounded(values: np.ndarray, factor: float, limit: float):
        return int16_array(np.round(np.clip(values, -limit, limit) * factor).astype("<i2").tobytes())

    return QuantisedNetwork(
        ft_weights=rounded(net.ft_weights, QA, FT_WEIGHT_LIMIT),
        ft_bias=rounded(net.ft_bias, QA, FT_WEIGHT_LIMIT),
        out_weights=rounded(np.asarray(net.out_weights).reshape(-1), QB, OUT_WEIGHT_LIMIT),
        out_biases=tuple(int(round(float(bias) * QA * QB)) for bias in np.asarray(net.out_bias).reshape(-1)),
        qa=QA, qb=QB, scale=SCALE, description=description, king_layout=net.king_layout)


def random_network(hidden: int, seed: int, buckets: int = 1, king_layout: KingLayout = NO_KING_BUCKETS) -> FloatNetwork:
    """A network of the magnitudes a trained one has (weights' spread about 0.05), for tests
    of the arithmetic."""
    rng = np.random.default_rng(seed)
    return FloatNetwork(
        ft_weights=rng.normal(0.0, 0.05, size=(INPUTS * king_layout.count, hidden)).astype(np.float32),
        ft_bias=rng.normal(0.1, 0.05, size=hidden).astype(np.float32),
        out_weights=rng.normal(0.0, 0.06, size=(buckets, 2 * hidden)).astype(np.float32),
        out_bias=np.full(buckets, 0.01, dtype=np.float32), king_layout=king_layout)


def save_float_network(path, net: FloatNetwork) -> None:
    """The float weights as a compressed .npz (written whole, then renamed)."""
    from pathlib import Path
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(temporary, ft_weights=net.ft_weights, ft_bias=net.ft_bias,
                        out_weights=net.out_weights, out_bias=net.out_bias,
                        king_buckets=np.frombuffer(net.king_layout.buckets, dtype=np.uint8),
                        king_mirror=np.array(net.king_layout.mirror))
    temporary.replace(path)


def load_float_network(path) -> FloatNetwork:
    """The float weights saved by save_float_network (a file of one output, saved before output
    buckets, reads as one bucket; one saved before king buckets, as none)."""
    with np.load(path) as stored:
        out_bias = np.asarray(stored["out_bias"], dtype=np.float32).reshape(-1)
        out_weights = np.asarray(stored["out_weights"], dtype=np.float32).reshape(len(out_bias), -1)
        layout = NO_KING_BUCKETS
        if "king_buckets" in stored:
            layout = KingLayout(bytes(stored["king_buckets"].astype(np.uint8)), bool(stored["king_mirror"]))
        return FloatNetwork(stored["ft_weights"], stored["ft_bias"], out_weights, out_bias, layout)
