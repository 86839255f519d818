# Included by search.pxi (part of core.pyx, the core's one C unit: the Lazy SMP helpers and the record of finished iterations); the names are module-level there.

# Lazy SMP: helper thread k skips the iteration depths d for which (d + SKIP_PHASE[k]) // SKIP_SPAN[k]
# is odd, so at any moment the helpers are spread over the next few depths instead of all
# searching the main thread's tree; what they store in the shared table is there when it arrives.
cdef int SKIP_SPAN[20]
cdef int SKIP_PHASE[20]
SKIP_SPAN[:] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
SKIP_PHASE[:] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]


cdef inline bint helper_skips(int helper, int depth) noexcept nogil:
    cdef int i = (helper - 1) % 20
    return ((depth + SKIP_PHASE[i]) // SKIP_SPAN[i]) % 2 == 1


cdef void record_iteration(SearchState* s, int depth, int score) noexcept nogil:
    """Keep a completed iteration's result: the main thread may take it if it is the deepest.
    A sequence lock: the count is odd while the fields change, so a reader can tell a torn copy."""
    cdef int i, seq = s.done_seq
    PONDEROSA_ATOMIC_STORE(&s.done_seq, seq + 1)
    PONDEROSA_FENCE_RELEASE()
    s.done_search = s.search_id
    s.done_depth = depth
    s.done_score = score
    if s.pv_length[0] > 0:
        for i in range(s.pv_length[0]):
            s.done_pv[i] = s.pv[0][i]
        s.done_pv_length = s.pv_length[0]
    else:
        s.done_pv[0] = s.root_moves[0].move
        s.done_pv_length = 1
    PONDEROSA_STORE_RELEASE(&s.done_seq, seq + 2)


cdef void helper_deepen(SearchState* s, int helper, int first_depth, int max_depth) noexcept nogil:
    """A helper thread's iterative deepening, with the same aspiration windows as the main
    thread's; it ends when the search is stopped or it completes max_depth (or the depth limit)."""
    cdef int depth, score = 0, value = 0, alpha, beta, delta
    if PONDEROSA_ATOMIC_LOAD(&s.shared.stop):
        return   # stopped before this helper got going (a search over in a few microseconds)
    for depth in range(first_depth, max_depth + 1):
        if depth < max_depth and helper_skips(helper, depth):
            continue
        delta = ASPIRATION_WINDOW
        if depth >= 5 and -MATE_BOUND < score < MATE_BOUND:
            alpha = score - delta if score - delta > -INFINITE else -INFINITE
            beta = score + delta if score + delta < INFINITE else INFINITE
        else:
            alpha, beta = -INFINITE, INFINITE
        while True:
            value = search_root(s, alpha, beta, depth * ONE_PLY)
            if s.stopped:
                return
            order_root_moves(s)
            if value <= alpha:
                alpha = value - delta if value - delta > -INFINITE else -INFINITE
            elif value >= beta:
                beta = value + delta if value + delta < INFINITE else INFINITE
            else:
                break
            delta *= 2
        score = value
        record_iteration(s, depth, score)
        if PONDEROSA_ATOMIC_LOAD(&s.shared.depth_limit) and depth >= PONDEROSA_ATOMIC_LOAD(&s.shared.depth_limit):
            PONDEROSA_ATOMIC_STORE(&s.shared.stop, 1)   # the limit is reached: the whole search ends
            return
