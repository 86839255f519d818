# Included by core.pyx (the search's part of the unit): how the move-ordering statistics of one
# search thread (History, declared in core.pxd) are scored and updated.
#
# The divisions here are floor divisions (Python's: cdivision off, against core.pyx's
# cdivision=True): the statistics can be negative, and C's truncating division would round
# them the other way (and change the search, and its bench signature).


cdef inline int move_key(int piece, int to) noexcept nogil:
    return piece * 64 + to


@cython.cdivision(False)
cdef inline int gravity(int value, int bonus) noexcept nogil:
    """value after adding bonus, pulled back the nearer it is to the limit, so it never passes it."""
    return value + bonus - value * (bonus if bonus > 0 else -bonus) // HISTORY_MAX


cdef inline void add_quiet(History* h, int piece, int to, int before, int before2, int bonus) noexcept nogil:
    """Credit (or debit) a quiet move in the plain table and in the tables of the one and two
    moves before it (keys before and before2)."""
    cdef int key = move_key(piece, to)
    h.quiet[piece][to] = gravity(h.quiet[piece][to], bonus)
    h.continuation[before][key] = <int16_t>gravity(h.continuation[before][key], bonus)
    h.continuation[before2][key] = <int16_t>gravity(h.continuation[before2][key], bonus)


cdef inline int quiet_score(History* h, int piece, int to, int before, int before2) noexcept nogil:
    """The ordering score of a quiet move: its three statistics summed (about +-3 * HISTORY_MAX)."""
    cdef int key = move_key(piece, to)
    return h.quiet[piece][to] + h.continuation[before][key] + h.continuation[before2][key]


cdef inline bint continuation_bad(History* h, int piece, int to, int before, int before2) noexcept nogil:
    """Both continuation statistics of a quiet move (after the move one and two plies before)
    below zero: Stockfish 11's counter-move pruning test."""
    cdef int key = move_key(piece, to)
    return h.continuation[before][key] < 0 and h.continuation[before2][key] < 0


cdef inline void add_capture(History* h, int piece, int to, int captured, int bonus) noexcept nogil:
    h.capture[piece][to][captured] = gravity(h.capture[piece][to][captured], bonus)


@cython.cdivision(False)
cdef inline int corrected_eval(History* h, int side, uint64_t pawn_key, int raw) noexcept nogil:
    """The static evaluation moved by what searches of positions with these pawns found it missed."""
    return raw + h.correction[side][pawn_key & (CORRECTION_SIZE - 1)] // CORRECTION_GRAIN


@cython.cdivision(False)
cdef inline void update_correction(History* h, int side, uint64_t pawn_key, int error, int plies) noexcept nogil:
    """Blend a search's finding (error = search score - static evaluation) into the entry,
    weighted by the search's depth: a deep search says more than a shallow one."""
    cdef int* entry = &h.correction[side][pawn_key & (CORRECTION_SIZE - 1)]
    cdef int weight = plies + 1 if plies < 16 else 16
    cdef int value = (entry[0] * (256 - weight) + error * CORRECTION_GRAIN * weight) // 256
    if value > CORRECTION_MAX:
        value = CORRECTION_MAX
    elif value < -CORRECTION_MAX:
        value = -CORRECTION_MAX
    entry[0] = value
