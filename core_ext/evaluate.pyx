# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# TEMPORARY stub: material only.
from ponderosa.core_ext.bitboard cimport popcount, PAWN, KNIGHT, BISHOP, ROOK, QUEEN
from ponderosa.core_ext.board cimport Board

cdef int VALUES[7]
VALUES[:] = [0, 100, 325, 335, 500, 975, 0]

cdef int evaluate(Position* pos, EvalState* ev) noexcept nogil:
    cdef int score = 0, t
    for t in range(1, 6):
        score += VALUES[t] * (popcount(pos.pieces[0][t]) - popcount(pos.pieces[1][t]))
    return score if pos.side == 0 else -score

cdef class Evaluator:
    def __init__(self, pawn_hash_bytes=0):
        pass
    def evaluate(self, Board board):
        return evaluate(board.pos, &self.state)
    def set_pawn_hash(self, n): pass
    def clear(self): pass
    def set_scale(self, name, value): pass
    def breakdown(self, Board board): return []
