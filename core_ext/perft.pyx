# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Perft with bulk counting: at the last ply the legal moves are counted, not made."""
from libc.stdint cimport uint64_t

from ponderosa.core_ext.bitboard cimport Move, MAX_MOVES
from ponderosa.core_ext.movegen cimport generate_legal
from ponderosa.core_ext.position cimport Position, do_move, undo_move


cdef uint64_t perft(Position* pos, int depth) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef uint64_t total = 0
    if depth <= 0:
        return 1
    n = generate_legal(pos, moves)
    if depth == 1:
        return n
    for i in range(n):
        do_move(pos, moves[i])
        total += perft(pos, depth - 1)
        undo_move(pos)
    return total
