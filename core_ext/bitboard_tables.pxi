# Included by core.pyx, the core's one C unit:
# Attack tables: leapers, magic bitboards for the bishop, rank and file tables for the rook
# (core.pxd), and square-pair lines.
#
# Everything is computed once at import, from the magic multipliers written out below (a seeded
# search found them, and finds a new one if a written one ever does not fit).

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


# The multipliers the seeded search below finds, written out so that start-up does not search
# (it took 30 ms of the engine's start); each is still checked as its slice is filled, and a
# square whose number does not fit its table is searched for as before.
cdef uint64_t BISHOP_MAGIC_NUMBERS[64]
BISHOP_MAGIC_NUMBERS[:] = [
    0x40106000A1160020ULL, 0x0020010250810120ULL, 0x2010010220280081ULL, 0x002806004050C040ULL,
    0x0002021018000000ULL, 0x2001112010000400ULL, 0x0881010120218080ULL, 0x1030820110010500ULL,
    0x0000120222042400ULL, 0x2000020404040044ULL, 0x8000480094208000ULL, 0x0003422A02000001ULL,
    0x000A220210100040ULL, 0x8004820202226000ULL, 0x0018234854100800ULL, 0x0100004042101040ULL,
    0x0004001004082820ULL, 0x0010000810010048ULL, 0x1014004208081300ULL, 0x2080818802044202ULL,
    0x0040880C00A00100ULL, 0x0080400200522010ULL, 0x0001000188180B04ULL, 0x0080249202020204ULL,
    0x1004400004100410ULL, 0x00013100A0022206ULL, 0x2148500001040080ULL, 0x4241080011004300ULL,
    0x4020848004002000ULL, 0x10101380D1004100ULL, 0x0008004422020284ULL, 0x01010A1041008080ULL,
    0x0808080400082121ULL, 0x0808080400082121ULL, 0x0091128200100C00ULL, 0x0202200802010104ULL,
    0x8C0A020200440085ULL, 0x01A0008080B10040ULL, 0x0889520080122800ULL, 0x100902022202010AULL,
    0x04081A0816002000ULL, 0x0000681208005000ULL, 0x8170840041008802ULL, 0x0A00004200810805ULL,
    0x0830404408210100ULL, 0x2602208106006102ULL, 0x1048300680802628ULL, 0x2602208106006102ULL,
    0x0602010120110040ULL, 0x0941010801043000ULL, 0x000040440A210428ULL, 0x0008240020880021ULL,
    0x0400002012048200ULL, 0x00AC102001210220ULL, 0x0220021002009900ULL, 0x84440C080A013080ULL,
    0x0001008044200440ULL, 0x0004C04410841000ULL, 0x2000500104011130ULL, 0x1A0C010011C20229ULL,
    0x0044800112202200ULL, 0x0434804908100424ULL, 0x0300404822C08200ULL, 0x48081010008A2A80ULL,
]


cdef bint fill_slice(Magic* m, int size, Bitboard magic, int attempt) noexcept nogil:
    """Fill the square's slice with the multiplier; False if two occupancies that need
    different attacks share an index (attempt marks the entries written by this try)."""
    cdef int i, idx
    for i in range(size):
        idx = <int>(((occupancies[i] & m.mask) * magic) >> m.shift)
        if epoch_of[idx] < attempt:
            epoch_of[idx] = attempt
            m.attacks[idx] = references[i]
        elif m.attacks[idx] != references[i]:
            return False
    return True


cdef int init_magics(Magic* magics, Bitboard* table, int dirs[4][2], const uint64_t* known) noexcept nogil:
    """Fill each square's attack slice with its known multiplier (or one found by search)."""
    cdef int sq, size, i, bits, attempt = 0
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
        magic = known[sq]
        attempt += 1
        ok = fill_slice(m, size, magic, attempt)
        while not ok:
            magic = rng_next() & rng_next() & rng_next()
            if popcount((m.mask * magic) >> 56) < 6:
                continue
            attempt += 1
            ok = fill_slice(m, size, magic, attempt)
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


cdef void init_rook_lines() noexcept nogil:
    """The rook's rank and file tables, by walking rays over every inner occupancy."""
    cdef int file, rank, inner, i
    cdef Bitboard occ
    for file in range(8):
        for inner in range(64):
            ROOK_RANK_ATTACKS[file][inner] = <uint8_t>(slide(file, (<Bitboard>inner) << 1, ROOK_DIRS) & RANK_1_BB)
    for rank in range(8):
        for inner in range(64):
            occ = 0
            for i in range(6):
                if inner & (1 << i):
                    occ |= square_bb((i + 1) * 8)
            ROOK_FILE_ATTACKS[rank][rook_file_index(occ)] = slide(rank * 8, occ, ROOK_DIRS) & FILE_A_BB


init_leapers()
init_lines()
init_rook_lines()
init_magics(BISHOP_MAGICS, BISHOP_TABLE, BISHOP_DIRS, BISHOP_MAGIC_NUMBERS)
