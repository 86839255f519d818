# The alpha-beta search: one iteration at a time, driven from Python.
from libc.stdint cimport uint64_t, int64_t

from ponderosa.core_ext.bitboard cimport Move, MAX_MOVES
from ponderosa.core_ext.evaluate cimport EvalState
from ponderosa.core_ext.history cimport History
from ponderosa.core_ext.position cimport Position
from ponderosa.core_ext.tt cimport TTable

cdef enum:
    MAX_PLY = 128
    ONE_PLY = 4            # depth unit is a quarter ply, so extensions can be fractional
    MATE = 32000           # score of mate at the root; mate in n plies scores MATE - n
    MATE_BOUND = 31000     # scores beyond this are mate scores
    INFINITE = 32500
    LEARNED_DEPTH = 250    # hash-entry depth that marks a position-learning entry (searches stay below MAX_PLY)
    TB_WIN_SCORE = 30000   # a tablebase win at the root; below every mate score, so real mates win over it
    TB_WIN_BOUND = 29872   # TB_WIN_SCORE - MAX_PLY: scores beyond this count distance from the root

cdef struct RootMove:
    Move move
    int score              # exact score, or -INFINITE when only an upper bound is known
    uint64_t nodes         # nodes spent below it in this iteration

cdef struct SearchShared:  # what the threads of one search share; every field is read and written atomically
    int stop               # set by stop(), by the main thread when it is done, or by a limit reached
    uint64_t nodes         # nodes of all threads, each adding its count at every poll
    uint64_t node_limit    # 0 = none; counts the nodes of all threads
    int64_t deadline_ns    # CLOCK_MONOTONIC deadline, 0 = none
    int depth_limit        # 0 = none; a helper that completes this depth stops the search

cdef struct SearchState:   # one thread's search: everything here but *tt and *shared is its own
    Position pos
    TTable* tt
    EvalState* ev
    SearchShared* shared
    bint stopped
    uint64_t nodes
    uint64_t nodes_reported   # part of nodes already added to shared.nodes
    int root_side
    int seldepth
    int draw_score         # score of a draw for the side that moves at the root
    int ext_check, ext_one_reply, ext_recapture, ext_passed_push, ext_mate
    Move killers[MAX_PLY + 2][2]
    History history        # quiet, capture, counter-move and continuation statistics
    int moved[MAX_PLY + 4] # moved[ply + 2]: key of the move made at ply (history.move_key; 0 = null move)
    Move excluded[MAX_PLY + 2]   # the hash move left out of a singular-extension test at that ply
    int root_depth         # depth of the iteration being searched, in plies
    int static_evals[MAX_PLY + 2]
    bint in_check[MAX_PLY + 2]   # whether the side to move at each ply is in check
    Move pv[MAX_PLY + 2][MAX_PLY + 2]
    int pv_length[MAX_PLY + 2]
    RootMove root_moves[MAX_MOVES]
    int root_count
    int search_id          # which search of its main thread a helper is doing
    int done_seq           # even when the done_ fields are whole: the main thread reads them while they change
    int done_search        # search_id of the iteration below
    int done_depth         # the deepest iteration this thread completed, its score and line
    int done_score
    Move done_pv[MAX_PLY + 2]
    int done_pv_length
    bint tb_probing        # probe the Syzygy WDL tables in the tree
    int tb_probe_depth     # least remaining depth (quarter plies) at which a node probes
    uint64_t tbhits
    int root_index         # the root move being searched now (read by another thread for UCI currmove)
    int root_first         # MultiPV: root moves before this index are lines already found this iteration

cdef int search_root(SearchState* s, int alpha, int beta, int depth) noexcept nogil
