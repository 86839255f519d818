# Included by core.pyx, the core's one C unit (this was bitboard.pyx, a module of its own):
# Attack tables: leapers, magic-bitboard sliders, and square-pair lines.
#
# Everything is computed once at import; magics are found by a seeded search so
# that no table of numbers has to be shipped (it takes a few milliseconds).

cdef Bitboard ROOK_TABLE[102400]
cdef Bitboard BISHOP_TABLE[5248]

cdef int ROOK_DIRS[4][2]
cdef int BISHOP_DIRS[4][2]
ROOK_DIRS[0][:] = [1, 0]
ROOK_DIRS[1][:] = [-1, 0]
ROOK_DIRS[2][:] = [0, 1]
ROOK_DIRS[3][:] = [0, -1]
BISHOP_DIRS[0][:] = [1, 1]
BISHOP_DIRS[1][:] = [1, -1]
BISHOP_DIRS[2][:] = [-1, 1]
BISHOP_DIRS[3][:] = [-1, -1]


cdef Bitboard slide(int sq, Bitboard occ, int dirs[4][2]) noexcept nogil:
    """Slider attacks by walking rays: slow, used only to fill the tables."""
    cdef Bitboard result = 0
    cdef int d, f, r
    for d in range(4):
        f = sq & 7
        r = sq >> 3
        while True:
            f += dirs[d][0]
            r += dirs[d][1]
            if f < 0 or f > 7 or r < 0 or r > 7:
                break
            result |= square_bb(r * 8 + f)
            if occ & square_bb(r * 8 + f):
                break
    return result


cdef Bitboard edges_for(int sq) noexcept nogil:
    """Board edges that do not matter for a slider on sq (its own rank/file edge excluded)."""
    cdef Bitboard ranks = (RANK_1_BB | RANK_8_BB) & ~(RANK_1_BB << (8 * (sq >> 3)))
    cdef Bitboard files = (FILE_A_BB | FILE_H_BB) & ~(FILE_A_BB << (sq & 7))
    return ranks | files


cdef uint64_t rng_state = 1
# Per-rank seeds known to reach good magics quickly with this generator (as Stockfish seeds it).
cdef uint64_t MAGIC_SEEDS[8]
MAGIC_SEEDS[:] = [728, 10316, 55013, 32803, 12281, 15100, 16645, 255]

cdef uint64_t rng_next() noexcept nogil:
    """xorshift64*: deterministic, so the tables are the same on every run."""
    global rng_state
    rng_state ^= rng_state >> 12
    rng_state ^= rng_state << 25
    rng_state ^= rng_state >> 27
    return rng_state * 2685821657736338717ULL


cdef Bitboard occupancies[4096]
cdef Bitboard references[4096]
cdef int epoch_of[4096]


cdef int init_magics(Magic* magics, Bitboard* table, int dirs[4][2]) noexcept nogil:
    """Find a magic multiplier for each square and fill its attack slice."""
    cdef int sq, size, i, bits, attempt = 0, idx
    cdef Bitboard b, magic
    cdef Magic* m
    cdef Bitboard* next_slice = table
    cdef bint ok
    global rng_state
    for i in range(4096):
        epoch_of[i] = 0
    for sq in range(64):
        m = &magics[sq]
        m.mask = slide(sq, 0, dirs) & ~edges_for(sq)
        bits = popcount(m.mask)
        m.shift = 64 - bits
        m.attacks = next_slice
        rng_state = MAGIC_SEEDS[sq >> 3]
        # Enumerate every subset of the mask (Carry-Rippler).
        size = 0
        b = 0
        while True:
            occupancies[size] = b
            references[size] = slide(sq, b, dirs)
            size += 1
            b = (b - m.mask) & m.mask
            if b == 0:
                break
        while True:
            magic = rng_next() & rng_next() & rng_next()
            if popcount((m.mask * magic) >> 56) < 6:
                continue
            attempt += 1
            ok = True
            for i in range(size):
                idx = <int>(((occupancies[i] & m.mask) * magic) >> m.shift)
                if epoch_of[idx] < attempt:
                    epoch_of[idx] = attempt
                    m.attacks[idx] = references[i]
                elif m.attacks[idx] != references[i]:
                    ok = False
                    break
            if ok:
                break
        m.magic = magic
        next_slice += size
    return <int>(next_slice - table)


cdef void init_leapers() noexcept nogil:
    cdef int sq, f, r, k, nf, nr
    cdef int knight_df[8]
    cdef int knight_dr[8]
    cdef int king_df[8]
    cdef int king_dr[8]
    knight_df[:] = [1, 2, 2, 1, -1, -2, -2, -1]
    knight_dr[:] = [2, 1, -1, -2, -2, -1, 1, 2]
    king_df[:] = [1, 1, 1, 0, -1, -1, -1, 0]
    king_dr[:] = [1, 0, -1, -1, -1, 0, 1, 1]
    for sq in range(64):
        f = sq & 7
        r = sq >> 3
        KNIGHT_ATTACKS[sq] = 0
        KING_ATTACKS[sq] = 0
        for k in range(8):
            nf = f + knight_df[k]
            nr = r + knight_dr[k]
            if 0 <= nf < 8 and 0 <= nr < 8:
                KNIGHT_ATTACKS[sq] |= square_bb(nr * 8 + nf)
            nf = f + king_df[k]
            nr = r + king_dr[k]
            if 0 <= nf < 8 and 0 <= nr < 8:
                KING_ATTACKS[sq] |= square_bb(nr * 8 + nf)
        PAWN_ATTACKS[WHITE][sq] = 0
        PAWN_ATTACKS[BLACK][sq] = 0
        if r < 7:
            if f > 0:
                PAWN_ATTACKS[WHITE][sq] |= square_bb(sq + 7)
            if f < 7:
                PAWN_ATTACKS[WHITE][sq] |= square_bb(sq + 9)
        if r > 0:
            if f > 0:
                PAWN_ATTACKS[BLACK][sq] |= square_bb(sq - 9)
            if f < 7:
                PAWN_ATTACKS[BLACK][sq] |= square_bb(sq - 7)


cdef void init_lines() noexcept nogil:
    cdef int a, b
    for a in range(64):
        ROOK_PSEUDO[a] = slide(a, 0, ROOK_DIRS)
        BISHOP_PSEUDO[a] = slide(a, 0, BISHOP_DIRS)
    for a in range(64):
        for b in range(64):
            BETWEEN[a][b] = 0
            LINE[a][b] = 0
            if a == b:
                continue
            if ROOK_PSEUDO[a] & square_bb(b):
                LINE[a][b] = (ROOK_PSEUDO[a] & ROOK_PSEUDO[b]) | square_bb(a) | square_bb(b)
                BETWEEN[a][b] = slide(a, square_bb(b), ROOK_DIRS) & slide(b, square_bb(a), ROOK_DIRS)
            elif BISHOP_PSEUDO[a] & square_bb(b):
                LINE[a][b] = (BISHOP_PSEUDO[a] & BISHOP_PSEUDO[b]) | square_bb(a) | square_bb(b)
                BETWEEN[a][b] = slide(a, square_bb(b), BISHOP_DIRS) & slide(b, square_bb(a), BISHOP_DIRS)


init_leapers()
init_lines()
init_magics(ROOK_MAGICS, ROOK_TABLE, ROOK_DIRS)
init_magics(BISHOP_MAGICS, BISHOP_TABLE, BISHOP_DIRS)
