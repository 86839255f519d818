"""Win, draw and loss chances from a search score and the material on the board: UCI_ShowWDL's
`wdl W D L` (per mille, for the side to move). Stockfish's model (github.com/official-stockfish/WDL_model):

    win = 1 / (1 + exp((a - score) / b)),   loss = 1 / (1 + exp((a + score) / b)),   draw = the rest

where a (the score at which a win is as likely as not) and b (how fast that chance grows with the
score) are cubics in the material (pawns 1, knights and bishops 3, rooks 5, queens 9; both sides).
The coefficients were fitted to the project's own self-play games (every ply's search score and
the game's result) by

    python -m tools.tune.fit_wdl data/nnue/selfplay-14[8-9].pgm.xz data/nnue/selfplay-15[0-4].pgm.xz

on selfplay-148..154, games searched with net-130; net-189, the shipped network, scores on the same
scale (docs/WDL.md: the data, the fit and how well it predicts)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import chess

from ponderosa.engine.search import MATE_THRESHOLD

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
MATERIAL_ANCHOR = 58          # the polynomials' variable is material / 58, as Stockfish's
MATERIAL_RANGE = (6, 78)      # material the games cover well; beyond it the nearest end's a and b
# a(t) and b(t) in centipawns, t = material / MATERIAL_ANCHOR, highest power first.
A_COEFFICIENTS = (-452.280538, 1343.302750, -1345.127609, 540.997859)
B_COEFFICIENTS = (-27.878133, 63.143829, -27.819803, 99.005653)
PER_MILLE = 1000


def material_count(board: chess.Board) -> int:
    """Both sides' material in pawns (the kings not counted): 78 at the start."""
    return sum(value * chess.popcount(board.pieces_mask(piece, chess.WHITE) | board.pieces_mask(piece, chess.BLACK))
               for piece, value in PIECE_VALUES.items())


def polynomial(t: float, coefficients: Sequence[float]) -> float:
    """Horner's rule, the highest power's coefficient first."""
    value = 0.0
    for coefficient in coefficients:
        value = value * t + coefficient
    return value


def model_parameters(material: int, a_coefficients: Sequence[float] = A_COEFFICIENTS,
                     b_coefficients: Sequence[float] = B_COEFFICIENTS) -> tuple[float, float]:
    """(a, b) for this much material, clamped to the range the fit covers."""
    t = min(max(material, MATERIAL_RANGE[0]), MATERIAL_RANGE[1]) / MATERIAL_ANCHOR
    return polynomial(t, a_coefficients), polynomial(t, b_coefficients)


def _rate(x: float) -> float:
    """The logistic function, without overflow for scores far beyond the model's range."""
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def wdl(score: int, material: int) -> tuple[int, int, int]:
    """(win, draw, loss) per mille for the side to move, summing to 1000; a mate is certain."""
    if score >= MATE_THRESHOLD:
        return PER_MILLE, 0, 0
    if score <= -MATE_THRESHOLD:
        return 0, 0, PER_MILLE
    a, b = model_parameters(material)
    a = max(a, 0.0)   # a >= 0 keeps win + loss <= 1 at every score: no negative draw
    b = max(b, 1.0)   # a positive scale: more score, more wins
    win = round(PER_MILLE * _rate((score - a) / b))
    loss = min(round(PER_MILLE * _rate((-score - a) / b)), PER_MILLE - win)   # rounding may overshoot by one
    return win, PER_MILLE - win - loss, loss
