# Included by search.pxi (part of core.pyx, the core's one C unit: Stockfish 11's breadcrumbs for
# Lazy SMP); the names are module-level there.

# Near the root, a thread entering a node's move loop leaves its mark (the thread and the key) in a
# small shared array; a thread that finds another thread's mark for the same position knows the
# position is being searched already, and reduces its late moves more (SmpBreadcrumb), so that two
# threads spread over the tree instead of searching the same lines. One thread never sees a mark
# but its own: the single-thread search is unchanged; at 0 (the default) no marks are left at all.
# Every access is a relaxed whole-word atomic: a torn or stale pair only costs a reduction
# somewhere else.

cdef enum:
    BREADCRUMBS = 1024         # a power of two
    BREADCRUMB_PLIES = 8       # marks are left this close to the root only

cdef uint64_t BREADCRUMB_OWNER[BREADCRUMBS]   # the SearchState's address, 0 for none
cdef uint64_t BREADCRUMB_KEY[BREADCRUMBS]


cdef inline int breadcrumb_enter(SearchState* s, uint64_t key, int ply, bint* marked) noexcept nogil:
    """Leave this thread's mark for key; marked[0] tells whether another thread's mark was there.
    Returns the slot this thread now owns (to pass to breadcrumb_leave), or -1."""
    cdef int slot
    cdef uint64_t owner
    marked[0] = False
    if ply >= BREADCRUMB_PLIES or SMP_BREADCRUMB == 0:
        return -1   # (off: a mark nobody reads is not worth its shared writes)
    slot = key & (BREADCRUMBS - 1)
    owner = PONDEROSA_LOAD64(&BREADCRUMB_OWNER[slot])
    if owner == 0:
        PONDEROSA_STORE64(&BREADCRUMB_OWNER[slot], <uint64_t>s)
        PONDEROSA_STORE64(&BREADCRUMB_KEY[slot], key)
        return slot
    if owner != <uint64_t>s and PONDEROSA_LOAD64(&BREADCRUMB_KEY[slot]) == key:
        marked[0] = True
    return -1


cdef inline void breadcrumb_leave(int slot) noexcept nogil:
    if slot >= 0:
        PONDEROSA_STORE64(&BREADCRUMB_OWNER[slot], 0)


def breadcrumbs_held() -> int:
    """Marks left in the array: 0 whenever no search runs (every thread takes its marks back)."""
    cdef int i, held = 0
    for i in range(BREADCRUMBS):
        if PONDEROSA_LOAD64(&BREADCRUMB_OWNER[i]) != 0:
            held += 1
    return held
