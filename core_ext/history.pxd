# Move-ordering statistics of one search thread: which moves cut off before, and in what context.
# Declarations and inline functions only (no module of its own): search.pyx is the one user.
from libc.stdint cimport int16_t, uint64_t

from ponderosa.core_ext.bitboard cimport Move

cdef enum:
    HISTORY_MAX = 16384      # every table saturates at +-HISTORY_MAX (gravity, below)
    MOVE_KEYS = 1024         # a move's key: piece code (0-15) * 64 + destination; 0 = none or null move
    CORRECTION_SIZE = 16384  # entries per side of the evaluation-correction table (a power of two)
    CORRECTION_GRAIN = 64    # correction entries are kept in 1/64 centipawn
    CORRECTION_MAX = 100 * CORRECTION_GRAIN   # no pawn structure moves the evaluation by more than 100 cp

cdef struct History:
    int quiet[16][64]                            # quiet moves by piece code and destination
    int capture[16][64][8]                       # captures by piece code, destination, captured type
    Move counter[MOVE_KEYS]                      # the quiet move that last refuted a move, by its key
    int16_t continuation[MOVE_KEYS][MOVE_KEYS]   # quiet move (second key) played after a move (first key)
    int correction[2][CORRECTION_SIZE]           # how far searches found the static evaluation off,
                                                 # by side to move and pawn structure (pawn key)


cdef inline int move_key(int piece, int to) noexcept nogil:
    return piece * 64 + to


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


cdef inline void add_capture(History* h, int piece, int to, int captured, int bonus) noexcept nogil:
    h.capture[piece][to][captured] = gravity(h.capture[piece][to][captured], bonus)


cdef inline int corrected_eval(History* h, int side, uint64_t pawn_key, int raw) noexcept nogil:
    """The static evaluation moved by what searches of positions with these pawns found it missed."""
    return raw + h.correction[side][pawn_key & (CORRECTION_SIZE - 1)] // CORRECTION_GRAIN


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
