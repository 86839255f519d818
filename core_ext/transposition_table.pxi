# Included by core.pyx, the core's one C unit:
# The transposition table: positions already searched, with their bound, depth and best move.

cdef extern from *:
    """
    /* Add 0 atomically: the page is faulted in for writing, and a concurrent store by a
       search is never lost (a plain store of 0 would wipe it). */
    #define PONDEROSA_TOUCH(p) ((void)__atomic_fetch_add((p), 0, __ATOMIC_RELAXED))
    """
    void PONDEROSA_TOUCH(char* p) noexcept nogil

cdef size_t HUGE_PAGE = 2 * 1024 * 1024


cdef inline uint64_t splitmix64(uint64_t n) noexcept nogil:
    """A well-mixed 64-bit value for n (Vigna's SplitMix64 finaliser); never 0 for n > 0 in practice."""
    n += 0x9E3779B97F4A7C15ULL
    n = (n ^ (n >> 30)) * 0xBF58476D1CE4E5B9ULL
    n = (n ^ (n >> 27)) * 0x94D049BB133111EBULL
    return n ^ (n >> 31)


cdef extern from *:
    """
    /* Whole-word relaxed atomics: a slot's two words are each read and written in one piece;
       the key check (check == key ^ data) catches a slot whose words come from two writers. */
    #define PONDEROSA_LOAD64(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define PONDEROSA_STORE64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
    """
    uint64_t PONDEROSA_LOAD64(uint64_t* p) noexcept nogil
    void PONDEROSA_STORE64(uint64_t* p, uint64_t v) noexcept nogil


cdef inline uint64_t pack(TTEntry* e) noexcept nogil:
    """The eight data bytes of an entry as one word."""
    cdef uint64_t data
    memcpy(&data, &e.move, sizeof(uint64_t))
    return data


cdef inline bint read_slot(TTSlot* slot, TTEntry* out) noexcept nogil:
    """Copy a slot into out; False if it is empty or torn (its key check fails: out.key is then
    whatever the halves give, matching no probe)."""
    cdef uint64_t data = PONDEROSA_LOAD64(&slot.data)
    cdef uint64_t check = PONDEROSA_LOAD64(&slot.check)
    out.key = check ^ data
    memcpy(&out.move, &data, sizeof(uint64_t))
    return (out.gen_bound & 3) != 0


cdef TTEntry* tt_probe(TTable* tt, uint64_t key, TTEntry* copy) noexcept nogil:
    """A consistent copy of the entry holding key, or NULL (copy.key is the stored form)."""
    cdef TTSlot* bucket = &tt.entries[(key & tt.bucket_mask) * BUCKET_SIZE]
    cdef uint64_t stored = key ^ tt.salt
    cdef int i
    for i in range(BUCKET_SIZE):
        if read_slot(&bucket[i], copy) and copy.key == stored:
            return copy
    return NULL


cdef inline int replacement_worth(TTable* tt, TTEntry* e) noexcept nogil:
    """Lower is more replaceable: shallow entries from older searches go first."""
    cdef int age = (tt.generation - (e.gen_bound >> 3)) & 31
    if age >= 16:
        age = 32   # from before a clear (which jumps the generation by 16): below every current entry
    return e.depth - 8 * age


cdef void tt_store(TTable* tt, uint64_t key, int move, int score, int static_eval,
                   int depth, int bound) noexcept nogil:
    cdef TTSlot* bucket = &tt.entries[(key & tt.bucket_mask) * BUCKET_SIZE]
    cdef TTEntry seen[BUCKET_SIZE]
    cdef bint used
    cdef int i, victim = 0
    cdef TTEntry entry
    cdef int pv_flag = bound & TT_PV   # the node is or was on a principal variation
    bound &= 3
    key = key ^ tt.salt   # from here on only the stored form is compared and written
    for i in range(BUCKET_SIZE):
        used = read_slot(&bucket[i], &seen[i])
        if seen[i].key == key or not used:
            victim = i
            break
        if replacement_worth(tt, &seen[i]) < replacement_worth(tt, &seen[victim]):
            victim = i
    # Keep a deeper exact result of the same position from this search unless this one is exact.
    if seen[victim].key == key and bound != BOUND_EXACT and seen[victim].depth > depth + 2 \
            and (seen[victim].gen_bound >> 3) == tt.generation:
        return
    if move == 0 and seen[victim].key == key:
        move = seen[victim].move
    if depth < 0:
        depth = 0
    entry.key = key
    entry.move = <uint16_t>(move & 0xFFFF)
    entry.score = score
    entry.static_eval = static_eval
    entry.depth = depth if depth < 255 else 255
    entry.gen_bound = ((tt.generation & 31) << 3) | pv_flag | bound
    PONDEROSA_STORE64(&bucket[victim].data, pack(&entry))
    PONDEROSA_STORE64(&bucket[victim].check, key ^ pack(&entry))


cdef class TranspositionTable:
    """Owns the table memory; `resize` takes bytes (Crafty's `hash=64M`) and clears it."""

    def __cinit__(self):
        self.table.entries = NULL
        self.table.bucket_mask = 0
        self.table.salt = 0
        self.table.clears = 0
        self.table.generation = 0
        self.size_bytes = 0
        self.mapping = NULL
        self.mapping_bytes = 0

    def __init__(self, size_bytes: int = 64 * 1024 * 1024):
        self.resize(size_bytes)

    def __dealloc__(self):
        if self.mapping is not NULL:
            munmap(self.mapping, self.mapping_bytes)

    def resize(self, size_bytes: int) -> None:
        """Largest power-of-two number of buckets that fits in size_bytes (at least one).

        The memory is an anonymous mapping: the kernel hands out zeroed pages only as they are
        first touched, so even a 1 GB table costs nothing at start-up. It is aligned to 2 MB
        and offered huge pages, which spare the TLB misses of probing a large table."""
        cdef uint64_t buckets = 1
        cdef size_t bucket_bytes = sizeof(TTSlot) * BUCKET_SIZE
        cdef size_t total, mapped
        cdef void* memory
        cdef char* aligned
        if size_bytes < bucket_bytes:
            raise ValueError(f"hash size {size_bytes} is smaller than one bucket ({bucket_bytes} bytes)")
        while buckets * 2 * bucket_bytes <= <uint64_t>size_bytes:
            buckets *= 2
        total = buckets * bucket_bytes
        mapped = total + HUGE_PAGE
        memory = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if memory == MAP_FAILED:
            raise MemoryError(f"cannot allocate a {size_bytes}-byte hash table")
        aligned = <char*>memory + ((HUGE_PAGE - (<size_t>memory % HUGE_PAGE)) % HUGE_PAGE)
        madvise(aligned, total, MADV_HUGEPAGE)   # advice only: failure is harmless
        if self.mapping is not NULL:
            munmap(self.mapping, self.mapping_bytes)
        self.mapping = memory
        self.mapping_bytes = mapped
        self.table.entries = <TTSlot*>aligned
        self.table.bucket_mask = buckets - 1
        self.size_bytes = total

    def prefault(self) -> None:
        """Touch every page of a fresh table now (without the GIL, so a start-up thread can do
        it beside the protocol): otherwise the first search pays for the page faults."""
        cdef char* memory = <char*>self.table.entries
        cdef size_t size = self.size_bytes, offset
        with nogil:
            offset = 0
            while offset < size:
                PONDEROSA_TOUCH(&memory[offset])   # a search may already be storing entries here
                offset += 4096

    def clear(self) -> None:
        """Empty the table at once, at any size (`new`): keys are stored XOR a salt, so a new
        salt makes every old entry miss (a false match needs a 64-bit coincidence). The
        generation jumps half its range, so the old entries are the first to be replaced."""
        self.table.clears += 1
        self.table.salt = splitmix64(self.table.clears)
        self.table.generation = (self.table.generation + 16) & 31

    def wipe(self) -> None:
        """Write the whole table over with zeros: what `bench` needs, since its node count must
        not depend on what earlier searches left behind. Slow on a large table (about 2 s for
        1 GB); the memory is written over rather than handed back to the kernel, because
        faulting pages in again during the next search would cost that search its speed."""
        memset(self.table.entries, 0, self.size_bytes)
        self.table.salt = 0
        self.table.generation = 0

    def new_search(self) -> None:
        """Age the entries: those of earlier searches are replaced first."""
        self.table.generation = (self.table.generation + 1) & 31

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
        cdef TTEntry copy
        cdef TTEntry* e = tt_probe(&self.table, key, &copy)
        if e is NULL:
            return None
        return (e.move, e.score, e.depth, e.gen_bound & 3)

    def on_pv(self, key: int):
        """Whether the entry for key is marked as on (or once on) a principal variation; None on a miss."""
        cdef TTEntry copy
        cdef TTEntry* e = tt_probe(&self.table, key, &copy)
        if e is NULL:
            return None
        return (e.gen_bound & TT_PV) != 0

    def hashfull(self) -> int:
        """Per mille of the first thousand entries used by the current search."""
        cdef int i, used = 0
        cdef int count = min(1000, (self.table.bucket_mask + 1) * BUCKET_SIZE)
        cdef TTEntry copy
        for i in range(count):
            if read_slot(&self.table.entries[i], &copy) and (copy.gen_bound >> 3) == self.table.generation:
                used += 1
        return used * 1000 // count
