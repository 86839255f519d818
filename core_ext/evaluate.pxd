# TEMPORARY stub with the agreed interface; replaced by the real evaluation.
from ponderosa.core_ext.position cimport Position

cdef struct PawnEntry:
    unsigned long long key

cdef struct EvalState:
    PawnEntry* pawn_table
    unsigned long pawn_mask
    int asymmetry, bscale, kscale, tropism, pscale, ppscale
    int engine_side

cdef int evaluate(Position* pos, EvalState* ev) noexcept nogil

cdef class Evaluator:
    cdef EvalState state
