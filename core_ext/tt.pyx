# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The transposition table: positions already searched, with their bound, depth and best move."""
from libc.stdint cimport uint64_t
from libc.stdlib cimport free
from libc.string cimport memset

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef extern from "<sys/mman.h>" nogil:
    int madvise(void* addr, size_t length, int advice)
    int MADV_HUGEPAGE

cdef size_t HUGE_PAGE = 2 * 1024 * 1024



cdef TTEntry* tt_probe(TTable* tt, uint64_t key) noexcept nogil:
    """The entry holding key, or NULL."""
    cdef TTEntry* bucket = &tt.entries[(key & tt.bucket_mask) * BUCKET_SIZE]
    cdef int i
    for i in range(BUCKET_SIZE):
        if bucket[i].key == key and bucket[i].gen_bound & 3:
            return &bucket[i]
    return NULL


cdef inline int replacement_worth(TTable* tt, TTEntry* e) noexcept nogil:
    """Lower is more replaceable: shallow entries from older searches go first."""
    cdef int age = (tt.generation - (e.gen_bound >> 2)) & 63
    return e.depth - 8 * age


cdef void tt_store(TTable* tt, uint64_t key, int move, int score, int static_eval,
                   int depth, int bound) noexcept nogil:
    cdef TTEntry* bucket = &tt.entries[(key & tt.bucket_mask) * BUCKET_SIZE]
    cdef TTEntry* victim = &bucket[0]
    cdef int i
    for i in range(BUCKET_SIZE):
        if bucket[i].key == key or not (bucket[i].gen_bound & 3):
            victim = &bucket[i]
            break
        if replacement_worth(tt, &bucket[i]) < replacement_worth(tt, victim):
            victim = &bucket[i]
    # Keep a deeper exact result of the same position from this search unless this one is exact.
    if victim.key == key and bound != BOUND_EXACT and victim.depth > depth + 2 \
            and (victim.gen_bound >> 2) == tt.generation:
        return
    if move == 0 and victim.key == key:
        move = victim.move
    if depth < 0:
        depth = 0
    victim.key = key
    victim.move = <uint16_t>(move & 0xFFFF)
    victim.score = score
    victim.static_eval = static_eval
    victim.depth = depth if depth < 255 else 255
    victim.gen_bound = ((tt.generation & 63) << 2) | bound


cdef class TranspositionTable:
    """Owns the table memory; `resize` takes bytes (Crafty's `hash=64M`) and clears it."""

    def __cinit__(self):
        self.table.entries = NULL
        self.table.bucket_mask = 0
        self.table.generation = 0
        self.size_bytes = 0

    def __init__(self, size_bytes: int = 64 * 1024 * 1024):
        self.resize(size_bytes)

    def __dealloc__(self):
        free(self.table.entries)

    def resize(self, size_bytes: int) -> None:
        """Largest power-of-two number of buckets that fits in size_bytes (at least one)."""
        cdef uint64_t buckets = 1
        cdef size_t bucket_bytes = sizeof(TTEntry) * BUCKET_SIZE
        cdef TTEntry* entries
        cdef size_t total
        cdef void* memory = NULL
        if size_bytes < bucket_bytes:
            raise ValueError(f"hash size {size_bytes} is smaller than one bucket ({bucket_bytes} bytes)")
        while buckets * 2 * bucket_bytes <= <uint64_t>size_bytes:
            buckets *= 2
        # Buckets are one cache line; 2 MB alignment and huge pages spare the TLB misses
        # that otherwise make a probe of a large table the slowest step of a node.
        total = buckets * bucket_bytes
        if posix_memalign(&memory, HUGE_PAGE if total >= HUGE_PAGE else 64, total) != 0:
            raise MemoryError(f"cannot allocate a {size_bytes}-byte hash table")
        if total >= HUGE_PAGE:
            madvise(memory, total, MADV_HUGEPAGE)   # advice only: failure is harmless
        memset(memory, 0, total)
        entries = <TTEntry*>memory
        free(self.table.entries)
        self.table.entries = entries
        self.table.bucket_mask = buckets - 1
        self.size_bytes = buckets * bucket_bytes

    def clear(self) -> None:
        memset(self.table.entries, 0, (self.table.bucket_mask + 1) * BUCKET_SIZE * sizeof(TTEntry))
        self.table.generation = 0

    def new_search(self) -> None:
        """Age the entries: those of earlier searches are replaced first."""
        self.table.generation = (self.table.generation + 1) & 63

    @property
    def size(self) -> int:
        """Bytes actually used (a power of two not above the size asked for)."""
        return self.size_bytes

    def store(self, key: int, move: int, score: int, depth: int, bound: int) -> None:
        """Store an entry from Python (position learning loads its entries this way)."""
        if not 1 <= bound <= 3:
            raise ValueError("bound must be 1 (upper), 2 (lower) or 3 (exact)")
        tt_store(&self.table, key, move, score, EVAL_NONE, depth, bound)

    def probe(self, key: int):
        """(move, score, depth, bound) stored for key, or None."""
        cdef TTEntry* e = tt_probe(&self.table, key)
        if e is NULL:
            return None
        return (e.move, e.score, e.depth, e.gen_bound & 3)

    def hashfull(self) -> int:
        """Per mille of the first thousand entries used by the current search."""
        cdef int i, used = 0
        cdef int count = min(1000, (self.table.bucket_mask + 1) * BUCKET_SIZE)
        for i in range(count):
            if (self.table.entries[i].gen_bound & 3) and (self.table.entries[i].gen_bound >> 2) == self.table.generation:
                used += 1
        return used * 1000 // count
