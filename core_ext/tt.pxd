# Transposition table: 4-entry buckets of 16-byte entries, replaced by depth and age.
from libc.stdint cimport uint64_t, uint16_t, int16_t, uint8_t

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1      # score <= value (failed low)
    BOUND_LOWER = 2      # score >= value (failed high)
    BOUND_EXACT = 3
    BUCKET_SIZE = 4
    EVAL_NONE = -32768   # static_eval of an entry whose evaluation is not known

cdef struct TTEntry:
    uint64_t key
    uint16_t move         # low 16 bits of the packed move
    int16_t score         # mate scores stored relative to this node
    int16_t static_eval
    uint8_t depth         # in plies; 0 = quiescence
    uint8_t gen_bound     # generation << 2 | bound

cdef struct TTable:
    TTEntry* entries
    uint64_t bucket_mask  # buckets - 1
    uint64_t salt         # keys are stored XOR salt: a new salt empties the table in O(1)
    uint64_t clears       # how many times the table was emptied by a new salt
    uint8_t generation

cdef TTEntry* tt_probe(TTable* tt, uint64_t key) noexcept nogil

cdef extern from *:
    """
    #define PONDEROSA_PREFETCH(p) __builtin_prefetch(p)
    """
    void PONDEROSA_PREFETCH(void* p) noexcept nogil

cdef inline void tt_prefetch(TTable* tt, uint64_t key) noexcept nogil:
    """Start loading the bucket of key into the cache while other work goes on."""
    PONDEROSA_PREFETCH(&tt.entries[(key & tt.bucket_mask) * BUCKET_SIZE])
cdef void tt_store(TTable* tt, uint64_t key, int move, int score, int static_eval, int depth, int bound) noexcept nogil

cdef class TranspositionTable:
    cdef TTable table
    cdef size_t size_bytes
    cdef void* mapping         # the whole anonymous mapping (table plus alignment slack)
    cdef size_t mapping_bytes
