# Static evaluation: tapered, named, scalable terms and a pawn-structure hash table.
from ponderosa.core_ext.bitboard cimport Bitboard
from ponderosa.core_ext.position cimport Position

cdef enum:
    EVAL_LIMIT = 9000        # |evaluate()| never exceeds this (mate scores can stay above it)
    PHASE_MAX = 24           # phase of the full set of pieces: N,B = 1, R = 2, Q = 4
    SCALE_NORMAL = 64        # endgame scale factor meaning "no scaling"

# Named terms, in the order the breakdown lists them.
cdef enum:  # Term
    T_MATERIAL = 0
    T_PSQT = 1
    T_PAWNS = 2              # pawn structure (pscale)
    T_BLOCKED = 3            # pawns that cannot advance (bscale)
    T_PASSED = 4             # passed pawns (ppscale)
    T_MOBILITY = 5
    T_KING = 6               # king safety (kscale, asymmetry)
    T_TROPISM = 7            # closeness of pieces to the enemy king (tropism)
    T_ROOKS = 8
    T_BISHOP_PAIR = 9
    T_OUTPOSTS = 10
    T_TRAPPED = 11
    T_ENDGAME = 12
    T_THREATS = 13           # enemy pieces and pawns attacked by lesser or undefended
    T_TEMPO = 14
    N_TERMS = 15

cdef struct PawnEntry:
    Bitboard key                  # pawn_key of the pawn set this entry describes
    Bitboard passed[2]            # passed pawns per colour
    Bitboard attacks[2]           # squares attacked by the colour's pawns
    Bitboard span[2]              # squares the colour's pawns attack now or after advancing
    short structure_mg[2]         # isolated/doubled/backward/connected, unscaled
    short structure_eg[2]
    short rams_mg[2]              # pawns blocked by an enemy pawn, unscaled (part of T_BLOCKED)
    short rams_eg[2]
    unsigned char half_open[2]    # bit f set: no pawn of the colour on file f
    unsigned char filled          # 1 once the entry has been written

cdef struct EvalState:
    PawnEntry* pawn_table         # malloc'd, power-of-two number of entries
    unsigned long pawn_mask       # entries - 1
    int asymmetry                 # percent added to the opponent's king safety (0 = symmetric)
    int bscale                    # blocked pawns, percent (100 = normal)
    int kscale                    # king safety, percent
    int tropism                   # king tropism, percent
    int pscale                    # pawn structure, percent
    int ppscale                   # passed pawns, percent
    int engine_side               # colour the engine plays (for asymmetry); set by the search
    unsigned long pawn_probes     # statistics: pawn-table probes and hits
    unsigned long pawn_hits

cdef struct EvalTerms:
    int mg[N_TERMS][2]            # [term][colour], after scaling, from that colour's view
    int eg[N_TERMS][2]
    int phase                     # 0 (bare kings and pawns) .. PHASE_MAX
    int scale                     # scale factor of the endgame part, 0 (dead draw) .. SCALE_NORMAL
    int unscaled                  # tapered total from White's view before the scale factor
    int score                     # final score from White's view

cdef int evaluate(Position* pos, EvalState* ev) noexcept nogil
cdef int evaluate_terms(Position* pos, EvalState* ev, EvalTerms* terms) noexcept nogil
cdef int eval_state_init(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil   # defaults + table; -1 if no memory
cdef int resize_pawn_table(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil
cdef void eval_state_clear(EvalState* ev) noexcept nogil
cdef void eval_state_free(EvalState* ev) noexcept nogil

cdef class Evaluator:
    cdef EvalState state
