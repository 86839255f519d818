# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A compact set of positions evaluated in one C loop: the evaluation tuner's data.

A Board holds a full undo stack (about 200 KB); the tuner keeps hundreds of thousands of
positions, so each is packed to what the evaluation reads (bitboards, mailbox, side to move, the
current state record: about 240 bytes) and copied into one scratch Position to be evaluated.
Not used by the engine.
"""
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy

from ponderosa.core_ext.core cimport (
    Bitboard, Move, MAX_MOVES, FLAG_PROMO_KNIGHT, move_flag, Board, Evaluator, evaluate_terms, eval_state_clear,
    EvalTerms, generate_noisy, Position, StateInfo, in_check, see,
)


cdef struct PackedPosition:
    Bitboard pieces[2][7]
    signed char board[64]
    int side
    StateInfo state               # the position's current undo record (keys, castling, e.p.)


cdef inline void unpack(PackedPosition* packed, Position* pos) noexcept nogil:
    memcpy(pos.pieces, packed.pieces, sizeof(packed.pieces))
    memcpy(pos.board, packed.board, sizeof(packed.board))
    pos.side = packed.side
    pos.ply = 0
    pos.states[0] = packed.state


cdef bint quiet(Position* pos) noexcept nogil:
    """Not in check, no promotion, and no capture that wins material by the static exchange."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    if in_check(pos):
        return False
    n = generate_noisy(pos, moves)
    for i in range(n):
        if move_flag(moves[i]) >= FLAG_PROMO_KNIGHT or see(pos, moves[i]) > 0:
            return False
    return True


def is_quiet(Board board not None) -> bool:
    """Whether the tuner may use the position: see quiet()."""
    return quiet(board.pos)


cdef class PositionSet:
    """Packed positions, appended from Boards, evaluated all at once from White's point of view."""
    cdef PackedPosition* items
    cdef Py_ssize_t count
    cdef Py_ssize_t capacity
    cdef Position* scratch

    def __cinit__(self):
        self.items = NULL
        self.count = self.capacity = 0
        self.scratch = <Position*>malloc(sizeof(Position))
        if self.scratch == NULL:
            raise MemoryError()
        memset(self.scratch, 0, sizeof(Position))

    def __dealloc__(self):
        free(self.items)
        free(self.scratch)

    def __len__(self) -> int:
        return self.count

    def add(self, Board board not None) -> None:
        """Append the board's current position."""
        cdef Position* pos = board.pos
        cdef PackedPosition* grown
        cdef PackedPosition* item
        if self.count == self.capacity:
            self.capacity = max(1024, 2 * self.capacity)
            grown = <PackedPosition*>realloc(self.items, self.capacity * sizeof(PackedPosition))
            if grown == NULL:
                raise MemoryError()
            self.items = grown
        item = &self.items[self.count]
        memcpy(item.pieces, pos.pieces, sizeof(item.pieces))
        memcpy(item.board, pos.board, sizeof(item.board))
        item.side = pos.side
        item.state = pos.states[pos.ply]
        self.count += 1

    def scores(self, Evaluator evaluator not None):
        """numpy int32 array: every position's evaluation from White's point of view.

        The evaluator's pawn table is cleared first, so weights changed since its last use count."""
        out = numpy.empty(self.count, dtype=numpy.int32)
        cdef int[::1] view = out
        cdef Py_ssize_t i
        cdef EvalTerms terms
        eval_state_clear(&evaluator.state)
        with nogil:
            for i in range(self.count):
                unpack(&self.items[i], self.scratch)
                view[i] = evaluate_terms(self.scratch, &evaluator.state, &terms)
        return out

    def phases(self, Evaluator evaluator not None):
        """numpy int32 array: every position's game phase (24 = all pieces on, 0 = none)."""
        out = numpy.empty(self.count, dtype=numpy.int32)
        cdef int[::1] view = out
        cdef Py_ssize_t i
        cdef EvalTerms terms
        with nogil:
            for i in range(self.count):
                unpack(&self.items[i], self.scratch)
                evaluate_terms(self.scratch, &evaluator.state, &terms)
                view[i] = terms.phase
        return out
