# The alpha-beta search: one iteration at a time, driven from Python.
from libc.stdint cimport uint64_t, int64_t

from ponderosa.core_ext.bitboard cimport Move, MAX_MOVES
from ponderosa.core_ext.evaluate cimport EvalState
from ponderosa.core_ext.position cimport Position
from ponderosa.core_ext.tt cimport TTable

cdef enum:
    MAX_PLY = 128
    ONE_PLY = 4            # depth unit is a quarter ply, so extensions can be fractional
    MATE = 32000           # score of mate at the root; mate in n plies scores MATE - n
    MATE_BOUND = 31000     # scores beyond this are mate scores
    INFINITE = 32500
    HISTORY_MAX = 16384
    LEARNED_DEPTH = 250    # hash-entry depth that marks a position-learning entry (searches stay below MAX_PLY)

cdef struct RootMove:
    Move move
    int score              # exact score, or -INFINITE when only an upper bound is known
    uint64_t nodes         # nodes spent below it in this iteration

cdef struct SearchState:
    Position pos
    TTable* tt
    EvalState* ev
    int stop_request       # set by another thread; read with an atomic load
    bint stopped
    uint64_t nodes
    uint64_t node_limit    # 0 = none
    int64_t deadline_ns    # CLOCK_MONOTONIC deadline, 0 = none
    int root_side
    int seldepth
    int draw_score         # score of a draw for the side that moves at the root
    int ext_check, ext_one_reply, ext_recapture, ext_passed_push, ext_mate
    Move killers[MAX_PLY + 2][2]
    int history[16][64]    # by piece code and destination
    int static_evals[MAX_PLY + 2]
    bint in_check[MAX_PLY + 2]   # whether the side to move at each ply is in check
    Move pv[MAX_PLY + 2][MAX_PLY + 2]
    int pv_length[MAX_PLY + 2]
    RootMove root_moves[MAX_MOVES]
    int root_count
    int root_index         # the root move being searched now (read by another thread for UCI currmove)
    int root_first         # MultiPV: root moves before this index are lines already found this iteration

cdef int search_root(SearchState* s, int alpha, int beta, int depth) noexcept nogil
