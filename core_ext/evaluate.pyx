# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Static evaluation, tapered between opening and endgame by the non-pawn material on the board.

Every term is computed for each colour from that colour's point of view, as an (opening, endgame)
pair; the terms Crafty's `evaluation` command names are multiplied by their percent scale; the sum
White minus Black is interpolated by the phase, with the endgame part multiplied by a scale factor
for drawish endings (0 = dead draw .. 64 = normal), and returned from the side to move's point of view. The starting points are
John Stanback's GNU Chess heuristics and Crafty's list of scalable terms; the numbers are ours.
"""
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.time cimport clock_t, clock, CLOCKS_PER_SEC

from ponderosa.core_ext.bitboard cimport (
    Bitboard, WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,
    WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO, FILE_A_BB, FILE_H_BB,
    KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS,
    rook_attacks, bishop_attacks, popcount, lsb, msb, square_bb,
)
from ponderosa.core_ext.board cimport Board
from ponderosa.core_ext.position cimport Position

# ---------------------------------------------------------------- values (centipawns)

cdef int PIECE_MG[7]
cdef int PIECE_EG[7]
PIECE_MG[:] = [0, 90, 325, 335, 500, 975, 0]
PIECE_EG[:] = [0, 115, 315, 345, 535, 1000, 0]
cdef int PHASE_WEIGHT[7]
PHASE_WEIGHT[:] = [0, 0, 1, 1, 2, 4, 0]
cdef int UNITS[7]                        # rough material units for endgame rules
UNITS[:] = [0, 1, 3, 3, 5, 9, 0]

# Piece-square tables as board diagrams (rank 8 on top), from White's side.
_PSQ_DIAGRAMS = {
    PAWN: (
        [0, 0, 0, 0, 0, 0, 0, 0,
         25, 30, 35, 40, 40, 35, 30, 25,
         8, 12, 18, 26, 26, 18, 12, 8,
         2, 5, 10, 20, 20, 10, 5, 2,
         0, 2, 6, 16, 16, 6, 2, 0,
         0, 2, 2, 6, 6, 2, 2, 0,
         0, 0, 0, -8, -8, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0,
         40, 40, 40, 40, 40, 40, 40, 40,
         24, 24, 24, 24, 24, 24, 24, 24,
         12, 12, 12, 12, 12, 12, 12, 12,
         5, 5, 5, 5, 5, 5, 5, 5,
         2, 2, 2, 2, 2, 2, 2, 2,
         0, 0, 0, 0, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0]),
    KNIGHT: (
        [-50, -35, -25, -20, -20, -25, -35, -50,
         -30, -10, 0, 5, 5, 0, -10, -30,
         -20, 5, 12, 18, 18, 12, 5, -20,
         -15, 5, 15, 22, 22, 15, 5, -15,
         -15, 0, 12, 18, 18, 12, 0, -15,
         -20, 0, 8, 10, 10, 8, 0, -20,
         -30, -15, -5, 0, 0, -5, -15, -30,
         -50, -30, -25, -20, -20, -25, -30, -50],
        [-40, -28, -20, -16, -16, -20, -28, -40,
         -26, -12, -4, 0, 0, -4, -12, -26,
         -18, -2, 6, 10, 10, 6, -2, -18,
         -14, 2, 10, 14, 14, 10, 2, -14,
         -14, 2, 10, 14, 14, 10, 2, -14,
         -18, -2, 6, 10, 10, 6, -2, -18,
         -26, -12, -4, 0, 0, -4, -12, -26,
         -40, -28, -20, -16, -16, -20, -28, -40]),
    BISHOP: (
        [-15, -8, -8, -8, -8, -8, -8, -15,
         -8, 0, 0, 0, 0, 0, 0, -8,
         -8, 0, 5, 6, 6, 5, 0, -8,
         -6, 4, 5, 10, 10, 5, 4, -6,
         -6, 2, 8, 10, 10, 8, 2, -6,
         -6, 6, 6, 6, 6, 6, 6, -6,
         -8, 6, 2, 2, 2, 2, 6, -8,
         -15, -8, -12, -8, -8, -12, -8, -15],
        [-12, -8, -6, -4, -4, -6, -8, -12,
         -8, -3, -1, 0, 0, -1, -3, -8,
         -6, -1, 3, 4, 4, 3, -1, -6,
         -4, 0, 4, 6, 6, 4, 0, -4,
         -4, 0, 4, 6, 6, 4, 0, -4,
         -6, -1, 3, 4, 4, 3, -1, -6,
         -8, -3, -1, 0, 0, -1, -3, -8,
         -12, -8, -6, -4, -4, -6, -8, -12]),
    ROOK: (
        [0, 0, 2, 4, 4, 2, 0, 0,
         5, 8, 8, 8, 8, 8, 8, 5,
         -4, 0, 0, 0, 0, 0, 0, -4,
         -4, 0, 0, 0, 0, 0, 0, -4,
         -4, 0, 0, 0, 0, 0, 0, -4,
         -4, 0, 0, 0, 0, 0, 0, -4,
         -6, -2, 0, 0, 0, 0, -2, -6,
         -2, 0, 2, 5, 5, 2, 0, -2],
        [0, 0, 0, 0, 0, 0, 0, 0,
         6, 6, 6, 6, 6, 6, 6, 6,
         0, 0, 0, 0, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0]),
    QUEEN: (
        [-10, -6, -4, -2, -2, -4, -6, -10,
         -6, 0, 0, 0, 0, 0, 0, -6,
         -4, 0, 2, 2, 2, 2, 0, -4,
         -2, 0, 2, 3, 3, 2, 0, -2,
         -2, 0, 2, 3, 3, 2, 0, -2,
         -4, 1, 2, 2, 2, 2, 0, -4,
         -6, 0, 1, 0, 0, 0, 0, -6,
         -10, -6, -4, 0, -2, -4, -6, -10],
        [-16, -10, -8, -6, -6, -8, -10, -16,
         -10, -4, -2, 0, 0, -2, -4, -10,
         -8, -2, 4, 6, 6, 4, -2, -8,
         -6, 0, 6, 8, 8, 6, 0, -6,
         -6, 0, 6, 8, 8, 6, 0, -6,
         -8, -2, 4, 6, 6, 4, -2, -8,
         -10, -4, -2, 0, 0, -2, -4, -10,
         -16, -10, -8, -6, -6, -8, -10, -16]),
    KING: (
        [-60, -60, -60, -60, -60, -60, -60, -60,
         -50, -50, -50, -50, -50, -50, -50, -50,
         -40, -45, -45, -50, -50, -45, -45, -40,
         -30, -35, -40, -45, -45, -40, -35, -30,
         -20, -25, -30, -40, -40, -30, -25, -20,
         -10, -15, -20, -25, -25, -20, -15, -10,
         5, 5, -5, -15, -15, -5, 5, 5,
         15, 25, 10, -5, 0, 5, 25, 15],
        [-50, -35, -25, -20, -20, -25, -35, -50,
         -30, -10, 0, 5, 5, 0, -10, -30,
         -25, 0, 15, 20, 20, 15, 0, -25,
         -20, 5, 20, 30, 30, 20, 5, -20,
         -20, 5, 20, 30, 30, 20, 5, -20,
         -25, 0, 15, 20, 20, 15, 0, -25,
         -30, -10, 0, 5, 5, 0, -10, -30,
         -50, -35, -25, -20, -20, -25, -35, -50]),
}

# Mobility by number of reachable squares (not own pawns or king, not attacked by enemy pawns).
cdef int MOB_MG[7][28]
cdef int MOB_EG[7][28]
_MOBILITY = {
    KNIGHT: ([-28, -16, -6, 0, 5, 9, 13, 16, 18],
             [-34, -20, -8, 0, 6, 10, 14, 17, 19]),
    BISHOP: ([-24, -14, -6, 0, 5, 10, 14, 18, 21, 24, 26, 28, 30, 31],
             [-30, -18, -8, 0, 6, 12, 17, 21, 25, 28, 30, 32, 34, 35]),
    ROOK: ([-18, -12, -8, -5, -2, 0, 2, 4, 6, 8, 10, 11, 12, 13, 14],
           [-34, -24, -16, -9, -3, 2, 7, 12, 16, 20, 24, 27, 30, 32, 34]),
    QUEEN: ([-20, -14, -10, -7, -5, -3, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 13, 13, 14,
             14, 15, 15, 16],
            [-30, -22, -16, -12, -9, -6, -3, 0, 2, 4, 6, 8, 10, 12, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24,
             24, 25, 25, 26]),
}

# Pawn structure.
cdef int ISOLATED_MG[8]
cdef int ISOLATED_EG[8]
ISOLATED_MG[:] = [8, 10, 12, 14, 14, 12, 10, 8]         # Stanback: centre isolanis hurt more
ISOLATED_EG[:] = [12, 14, 16, 18, 18, 16, 14, 12]
cdef enum:
    ISOLATED_EXPOSED_MG = 6      # extra, when no enemy pawn in front shields it from rooks
    DOUBLED_MG = 10
    DOUBLED_EG = 20
    BACKWARD_MG = 8
    BACKWARD_EG = 10
    BACKWARD_EXPOSED_MG = 8
    SUPPORTER_BONUS = 4          # per pawn defending a pawn
cdef int CONNECTED[8]                    # by relative rank: phalanx gets it whole, supported half
CONNECTED[:] = [0, 4, 6, 9, 15, 25, 40, 0]
cdef int RAM_MG[8]                       # own pawn blocked by an enemy pawn, by relative rank (cramp)
RAM_MG[:] = [0, 12, 8, 4, 0, 0, 0, 0]
cdef enum:
    PIECE_BLOCKED_MG = 3         # own pawn whose stop square holds a piece
    PIECE_BLOCKED_EG = 6
    CENTRE_HOME_BLOCKED_MG = 15  # d/e pawn still on its second rank and blocked (Stanback)

# Passed pawns by relative rank, and the weight of the rank for the dynamic parts.
cdef int PASSED_MG[8]
cdef int PASSED_EG[8]
cdef int PASSED_WEIGHT[8]
PASSED_MG[:] = [0, 4, 6, 10, 22, 40, 65, 0]
PASSED_EG[:] = [0, 8, 12, 20, 38, 65, 105, 0]
PASSED_WEIGHT[:] = [0, 0, 0, 1, 3, 5, 8, 0]
cdef enum:
    UNSTOPPABLE_EG = 600         # passed pawn the bare enemy king cannot catch

# King safety.
cdef int SHIELD[8]                       # own pawn on a shield file, by ranks in front of the king
SHIELD[:] = [0, 0, -8, -18, -24, -26, -26, -26]
cdef int STORM[8]                        # enemy pawn on a shield file, by ranks in front of the king
STORM[:] = [0, -10, -30, -20, -10, -4, 0, 0]
cdef int STORM_BLOCKED[8]                # the same, stopped by an own pawn just in front of it
STORM_BLOCKED[:] = [0, 0, -15, -6, -2, 0, 0, 0]
cdef enum:
    SHIELD_NONE = -22            # no own pawn in front of the king on a shield file
    HALF_OPEN_KING_FILE = -14    # no own pawn on the king's file
    HALF_OPEN_NEAR_KING = -9     # no own pawn on a file beside the king
    OPEN_NEAR_KING = -8          # extra when the file has no pawns at all
cdef int ATTACK_WEIGHT[7]
ATTACK_WEIGHT[:] = [0, 0, 20, 20, 30, 50, 0]
cdef int ATTACKER_PERCENT[8]             # how much of the weight counts, by number of attackers
ATTACKER_PERCENT[:] = [0, 30, 55, 75, 88, 94, 97, 100]
cdef int SAFE_CHECK[7]
SAFE_CHECK[:] = [0, 0, 35, 25, 45, 40, 0]
cdef enum:
    RING_HIT = 8                 # per attack on a square next to the king
    DANGER_MAX = 700
cdef int TROPISM_WEIGHT[7]               # per step of closeness to the enemy king
TROPISM_WEIGHT[:] = [0, 0, 3, 2, 2, 4, 0]

# Pieces.
cdef enum:
    ROOK_OPEN_MG = 25
    ROOK_OPEN_EG = 12
    ROOK_HALF_OPEN_MG = 12
    ROOK_HALF_OPEN_EG = 6
    ROOK_SEVENTH_MG = 20
    ROOK_SEVENTH_EG = 30
    BISHOP_PAIR_MG = 30
    BISHOP_PAIR_EG = 50
    KNIGHT_OUTPOST_MG = 20
    KNIGHT_OUTPOST_EG = 12
    BISHOP_OUTPOST_MG = 10
    BISHOP_OUTPOST_EG = 5
    TRAPPED_BISHOP = 110         # a7/h7 (b8/g8) bishop shut in by pawns on b6/g6 (c7/f7)
    TRAPPED_BISHOP_A6 = 50       # a6/h6 bishop shut in by b5/g5
    TRAPPED_KNIGHT = 60          # a8/h8 knight with a7/c7 (h7/f7) enemy pawns
    TRAPPED_ROOK_MG = 40         # rook in the corner behind a king that walked instead of castling
    TRAPPED_ROOK_EG = 10
    TEMPO_MG = 10
    TEMPO_EG = 5

# ---------------------------------------------------------------- tables built at import

cdef int PSQ_MG[16][64]                  # by piece code, from the owner's view
cdef int PSQ_EG[16][64]
cdef Bitboard FILE_BB[8]
cdef Bitboard RANK_BB[8]
cdef Bitboard ADJ_FILES[8]
cdef Bitboard FORWARD_FILE[2][64]        # squares in front of a pawn on its file
cdef Bitboard PASSED_MASK[2][64]         # in front on its own and adjacent files
cdef Bitboard AHEAD_OR_LEVEL[2][8]       # ranks at or in front of a rank, per colour
cdef Bitboard BEHIND_OR_LEVEL[2][8]
cdef Bitboard KING_ZONE[2][64]           # king square, its ring, and one rank further forward
cdef unsigned char DIST[64][64]          # Chebyshev (king-move) distance
cdef unsigned char MANHATTAN[64][64]
cdef unsigned char CENTRE_DIST[64]       # Manhattan distance to the nearest of d4 e4 d5 e5 (0..6)
cdef Bitboard DARK_SQUARES = 0xAA55AA55AA55AA55ULL


def _init_tables() -> None:
    cdef int pt, sq, i, c, f, r, f2, r2, s2
    for pt, (mg, eg) in _PSQ_DIAGRAMS.items():
        for i in range(64):
            sq = (7 - i // 8) * 8 + i % 8
            PSQ_MG[pt][sq] = mg[i]
            PSQ_EG[pt][sq] = eg[i]
            PSQ_MG[8 + pt][sq ^ 56] = mg[i]
            PSQ_EG[8 + pt][sq ^ 56] = eg[i]
    for pt, (mg, eg) in _MOBILITY.items():
        for i in range(28):
            MOB_MG[pt][i] = mg[min(i, len(mg) - 1)]
            MOB_EG[pt][i] = eg[min(i, len(eg) - 1)]
    for f in range(8):
        FILE_BB[f] = FILE_A_BB << f
        RANK_BB[f] = (<Bitboard>0xFF) << (8 * f)
    for f in range(8):
        ADJ_FILES[f] = (FILE_BB[f - 1] if f > 0 else 0) | (FILE_BB[f + 1] if f < 7 else 0)
    for r in range(8):
        AHEAD_OR_LEVEL[WHITE][r] = AHEAD_OR_LEVEL[BLACK][r] = 0
        BEHIND_OR_LEVEL[WHITE][r] = BEHIND_OR_LEVEL[BLACK][r] = 0
        for r2 in range(8):
            if r2 >= r:
                AHEAD_OR_LEVEL[WHITE][r] |= RANK_BB[r2]
                BEHIND_OR_LEVEL[BLACK][r] |= RANK_BB[r2]
            if r2 <= r:
                AHEAD_OR_LEVEL[BLACK][r] |= RANK_BB[r2]
                BEHIND_OR_LEVEL[WHITE][r] |= RANK_BB[r2]
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        for c in range(2):
            FORWARD_FILE[c][sq] = 0
            for r2 in range(8):
                if (c == WHITE and r2 > r) or (c == BLACK and r2 < r):
                    FORWARD_FILE[c][sq] |= square_bb(r2 * 8 + f)
            PASSED_MASK[c][sq] = FORWARD_FILE[c][sq]
            if f > 0:
                PASSED_MASK[c][sq] |= FORWARD_FILE[c][sq - 1]
            if f < 7:
                PASSED_MASK[c][sq] |= FORWARD_FILE[c][sq + 1]
        KING_ZONE[WHITE][sq] = KING_ATTACKS[sq] | square_bb(sq)
        KING_ZONE[BLACK][sq] = KING_ZONE[WHITE][sq]
        KING_ZONE[WHITE][sq] |= (KING_ZONE[WHITE][sq] << 8)
        KING_ZONE[BLACK][sq] |= (KING_ZONE[BLACK][sq] >> 8)
        CENTRE_DIST[sq] = max(3 - f, f - 4) + max(3 - r, r - 4)
        for s2 in range(64):
            f2, r2 = s2 & 7, s2 >> 3
            DIST[sq][s2] = max(abs(f - f2), abs(r - r2))
            MANHATTAN[sq][s2] = abs(f - f2) + abs(r - r2)


_init_tables()

TERM_NAMES = (
    "material", "piece squares", "pawn structure", "blocked pawns", "passed pawns", "mobility",
    "king safety", "tropism", "rooks", "bishop pair", "outposts", "trapped pieces", "endgame", "tempo",
)
SCALE_NAMES = ("asymmetry", "bscale", "kscale", "tropism", "pscale", "ppscale")

# ---------------------------------------------------------------- helpers


cdef inline int relative_rank(int colour, int sq) noexcept nogil:
    return (sq >> 3) ^ (7 * colour)


cdef inline int taper(int mg, int eg, int phase) noexcept nogil:
    """Interpolate by phase; C division truncates toward zero, so colours stay symmetric."""
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


cdef inline Bitboard pawn_attacks_of(int colour, Bitboard pawns) noexcept nogil:
    if colour == WHITE:
        return ((pawns << 7) & ~FILE_H_BB) | ((pawns << 9) & ~FILE_A_BB)
    return ((pawns >> 9) & ~FILE_H_BB) | ((pawns >> 7) & ~FILE_A_BB)


cdef inline Bitboard front_fill(int colour, Bitboard b) noexcept nogil:
    """b with every square in front of its squares (toward the colour's promotion rank)."""
    if colour == WHITE:
        b |= b << 8
        b |= b << 16
        b |= b << 32
    else:
        b |= b >> 8
        b |= b >> 16
        b |= b >> 32
    return b


cdef inline int file_set(Bitboard b) noexcept nogil:
    """One bit per file that holds a square of b."""
    b |= b >> 32
    b |= b >> 16
    b |= b >> 8
    return <int>(b & 0xFF)


# ---------------------------------------------------------------- pawn structure (hashed)


cdef inline void fill_pawn_entry(PawnEntry* e, Position* pos) noexcept nogil:
    """Score the pawn skeleton of both colours; depends on pawns alone, so it can be cached."""
    cdef int c, them, sq, f, r, stop, mg, eg, rmg, v
    cdef Bitboard own, enemy, b, front, neighbours, supporters, phalanx
    for c in range(2):
        e.attacks[c] = pawn_attacks_of(c, pos.pieces[c][PAWN])
        e.span[c] = pawn_attacks_of(c, front_fill(c, pos.pieces[c][PAWN]))
        e.half_open[c] = (~file_set(pos.pieces[c][PAWN])) & 0xFF
    for c in range(2):
        them = c ^ 1
        own = pos.pieces[c][PAWN]
        enemy = pos.pieces[them][PAWN]
        mg = eg = rmg = 0
        e.passed[c] = 0
        b = own
        while b:
            sq = lsb(b)
            b &= b - 1
            f = sq & 7
            r = relative_rank(c, sq)
            stop = sq + 8 if c == WHITE else sq - 8
            front = FORWARD_FILE[c][sq]
            neighbours = own & ADJ_FILES[f]
            supporters = own & PAWN_ATTACKS[them][sq]
            phalanx = neighbours & RANK_BB[sq >> 3]
            if (enemy & PASSED_MASK[c][sq]) == 0 and (own & front) == 0:
                e.passed[c] |= square_bb(sq)
            if own & front:
                mg -= DOUBLED_MG
                eg -= DOUBLED_EG
            if neighbours == 0:
                mg -= ISOLATED_MG[f]
                eg -= ISOLATED_EG[f]
                if (enemy & front) == 0:
                    mg -= ISOLATED_EXPOSED_MG
            elif ((supporters | phalanx) == 0
                  and (neighbours & BEHIND_OR_LEVEL[c][sq >> 3]) == 0
                  and (enemy & PAWN_ATTACKS[c][stop])):
                mg -= BACKWARD_MG
                eg -= BACKWARD_EG
                if (enemy & front) == 0:
                    mg -= BACKWARD_EXPOSED_MG
            if supporters | phalanx:
                v = (CONNECTED[r] if phalanx else CONNECTED[r] // 2) + SUPPORTER_BONUS * popcount(supporters)
                mg += v
                eg += v
            if enemy & square_bb(stop):
                rmg -= RAM_MG[r]
        e.structure_mg[c] = mg
        e.structure_eg[c] = eg
        e.rams_mg[c] = rmg
        e.rams_eg[c] = 0


cdef inline PawnEntry* probe_pawns(Position* pos, EvalState* ev, PawnEntry* scratch) noexcept nogil:
    cdef Bitboard key = pos.states[pos.ply].pawn_key
    cdef PawnEntry* e
    if ev.pawn_table == NULL:
        fill_pawn_entry(scratch, pos)
        return scratch
    e = &ev.pawn_table[key & ev.pawn_mask]
    ev.pawn_probes += 1
    if e.filled and e.key == key:
        ev.pawn_hits += 1
        return e
    fill_pawn_entry(e, pos)
    e.key = key
    e.filled = 1
    return e


# ---------------------------------------------------------------- king safety


cdef inline int shelter(int k, int ksq, Bitboard own, Bitboard enemy) noexcept nogil:
    """Pawn shield, pawn storm and open files on the king's file and its neighbours (opening only)."""
    cdef int kf = ksq & 7
    cdef int kr = relative_rank(k, ksq)
    cdef int f, score = 0, d, nearest
    cdef Bitboard ahead = AHEAD_OR_LEVEL[k][ksq >> 3]
    cdef Bitboard b
    if kf < 1:
        kf = 1
    elif kf > 6:
        kf = 6
    for f in range(kf - 1, kf + 2):
        b = own & FILE_BB[f] & ahead
        if b:
            nearest = lsb(b) if k == WHITE else msb(b)
            score += SHIELD[relative_rank(k, nearest) - kr]
        else:
            score += SHIELD_NONE
        b = enemy & FILE_BB[f] & ahead
        if b:
            nearest = lsb(b) if k == WHITE else msb(b)
            d = relative_rank(k, nearest) - kr
            if own & square_bb(nearest - 8 if k == WHITE else nearest + 8):
                score += STORM_BLOCKED[d]
            else:
                score += STORM[d]
        if (own & FILE_BB[f]) == 0:
            score += HALF_OPEN_KING_FILE if f == (ksq & 7) else HALF_OPEN_NEAR_KING
            if (enemy & FILE_BB[f]) == 0:
                score += OPEN_NEAR_KING
    return score


cdef inline int king_shelter(Position* pos, int k, int ksq) noexcept nogil:
    """Shelter where the king stands, or where it can still castle to if that is better."""
    cdef Bitboard own = pos.pieces[k][PAWN]
    cdef Bitboard enemy = pos.pieces[k ^ 1][PAWN]
    cdef int score = shelter(k, ksq, own, enemy)
    cdef int rights = pos.states[pos.ply].castling
    cdef int home = 4 if k == WHITE else 60
    cdef int alt
    if ksq == home:
        if rights & (WHITE_OO if k == WHITE else BLACK_OO):
            alt = shelter(k, home + 2, own, enemy)
            if alt > score:
                score = alt
        if rights & (WHITE_OOO if k == WHITE else BLACK_OOO):
            alt = shelter(k, home - 2, own, enemy)
            if alt > score:
                score = alt
    return score


# ---------------------------------------------------------------- endgame scale factor


cdef inline int scale_factor(Position* pos, int strong, int* cnt, bint* whole) noexcept nogil:
    """How much of the score the side ahead can hope to convert: 0 dead draw .. SCALE_NORMAL.

    cnt[colour * 8 + type] holds piece counts. whole is set when the factor is a fact about the
    material (it applies to the whole score), left unset when it concerns the endgame part only."""
    cdef int weak = strong ^ 1
    cdef int s8 = strong * 8, w8 = weak * 8
    cdef int units_s = 3 * (cnt[s8 + KNIGHT] + cnt[s8 + BISHOP]) + 5 * cnt[s8 + ROOK] + 9 * cnt[s8 + QUEEN]
    cdef int units_w = 3 * (cnt[w8 + KNIGHT] + cnt[w8 + BISHOP]) + 5 * cnt[w8 + ROOK] + 9 * cnt[w8 + QUEEN]
    cdef Bitboard pawns = pos.pieces[strong][PAWN]
    cdef Bitboard bishops
    cdef int q, wk, sk, front, to_go
    whole[0] = True
    if cnt[s8 + PAWN] == 0:
        if units_s <= 3:
            return 0                                  # a lone minor (or nothing) cannot mate
        if units_s == 6 and cnt[s8 + KNIGHT] == 2:
            if units_w == 0 and cnt[w8 + PAWN] == 0:
                return 0                              # two knights cannot force mate
            return 16                                 # only rarely, against pawns
        if units_s - units_w <= 3 and not (cnt[s8 + BISHOP] == 2 and units_w == 3 and cnt[w8 + PAWN] == 0):
            return 16                                 # KR v KB, KR v KN, KRB v KR ...: mostly drawn
        return SCALE_NORMAL
    # Only rook pawns on one file, at most a bishop that does not cover the promotion corner.
    if (units_s == 3 * cnt[s8 + BISHOP] and cnt[s8 + BISHOP] <= 1
            and ((pawns & ~FILE_A_BB) == 0 or (pawns & ~FILE_H_BB) == 0)):
        q = (lsb(pawns) & 7) + (56 if strong == WHITE else 0)
        bishops = pos.pieces[strong][BISHOP]
        if bishops == 0 or ((bishops & DARK_SQUARES) != 0) != ((square_bb(q) & DARK_SQUARES) != 0):
            wk = lsb(pos.pieces[weak][KING]) if pos.pieces[weak][KING] else q
            sk = lsb(pos.pieces[strong][KING]) if pos.pieces[strong][KING] else 0
            if DIST[wk][q] <= 1:
                return 2                              # the defending king holds the corner
            front = msb(pawns) if strong == WHITE else lsb(pawns)
            to_go = 7 - relative_rank(strong, front)
            if DIST[wk][q] - (1 if pos.side == weak else 0) < to_go and DIST[wk][q] < DIST[sk][q]:
                return 16                             # it gets there first
    # Opposite-coloured bishops.
    whole[0] = False
    if (cnt[s8 + BISHOP] == 1 and cnt[w8 + BISHOP] == 1
            and ((pos.pieces[strong][BISHOP] & DARK_SQUARES) != 0)
            != ((pos.pieces[weak][BISHOP] & DARK_SQUARES) != 0)):
        if units_s == 3 and units_w == 3:
            return 22 if cnt[s8 + PAWN] - cnt[w8 + PAWN] <= 2 else 40
        return 48
    return SCALE_NORMAL


cdef inline int endgame_bonus(Position* pos, int strong, int* cnt) noexcept nogil:
    """Against a bare king: drive it to the edge (KBN: to a corner of the bishop's colour)."""
    cdef int s8 = strong * 8
    cdef int wk = lsb(pos.pieces[strong ^ 1][KING])
    cdef int sk = lsb(pos.pieces[strong][KING])
    cdef int d, d2
    if (cnt[s8 + KNIGHT] == 1 and cnt[s8 + BISHOP] == 1 and cnt[s8 + ROOK] == 0
            and cnt[s8 + QUEEN] == 0 and cnt[s8 + PAWN] == 0):
        if pos.pieces[strong][BISHOP] & DARK_SQUARES:
            d = MANHATTAN[wk][0]
            d2 = MANHATTAN[wk][63]
        else:
            d = MANHATTAN[wk][7]
            d2 = MANHATTAN[wk][56]
        if d2 < d:
            d = d2
        return 20 * (14 - d) + 10 * (7 - DIST[sk][wk])
    if cnt[s8 + ROOK] or cnt[s8 + QUEEN] or cnt[s8 + BISHOP] >= 2:
        return 20 * CENTRE_DIST[wk] + 5 * (7 - DIST[sk][wk])
    return 0


# ---------------------------------------------------------------- the evaluation


cdef int evaluate_terms(Position* pos, EvalState* ev, EvalTerms* t) noexcept nogil:
    """Fill t with every term per colour and return the final score from White's view."""
    cdef PawnEntry scratch
    cdef PawnEntry* pe = probe_pawns(pos, ev, &scratch)
    cdef Bitboard occ = pos.pieces[0][0] | pos.pieces[1][0]
    cdef Bitboard all_pawns = pos.pieces[0][PAWN] | pos.pieces[1][PAWN]
    cdef Bitboard attacked[2]
    cdef Bitboard attacked_by[2][7]
    cdef int ksq[2]
    cdef int cnt[16]
    cdef int zone_count[2]          # enemy pieces attacking the zone of this colour's king
    cdef int zone_weight[2]
    cdef int zone_hits[2]
    cdef int queen_in_zone[2]
    cdef int unstoppable[2]         # plies until the first unstoppable pawn queens
    cdef int c, them, pt, sq, piece, n, f, r, stop, w, d, danger, pct, mg, eg, phase, i, score, strong
    cdef Bitboard b, att, area, zone, ring, occ_x, safe, rl, bl, path
    cdef bint whole
    memset(t, 0, sizeof(EvalTerms))

    for c in range(2):
        ksq[c] = lsb(pos.pieces[c][KING]) if pos.pieces[c][KING] else 0
        for pt in range(1, 7):
            cnt[c * 8 + pt] = popcount(pos.pieces[c][pt])
        attacked_by[c][PAWN] = pe.attacks[c]
        attacked_by[c][KING] = KING_ATTACKS[ksq[c]]
        attacked_by[c][KNIGHT] = attacked_by[c][BISHOP] = attacked_by[c][ROOK] = attacked_by[c][QUEEN] = 0
        zone_count[c] = zone_weight[c] = zone_hits[c] = queen_in_zone[c] = 0
        unstoppable[c] = 1000

    # Material and phase.
    phase = 0
    for c in range(2):
        for pt in range(1, 6):
            t.mg[T_MATERIAL][c] += cnt[c * 8 + pt] * PIECE_MG[pt]
            t.eg[T_MATERIAL][c] += cnt[c * 8 + pt] * PIECE_EG[pt]
            phase += cnt[c * 8 + pt] * PHASE_WEIGHT[pt]
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    t.phase = phase

    # Piece-square tables.
    for c in range(2):
        b = pos.pieces[c][0]
        while b:
            sq = lsb(b)
            b &= b - 1
            piece = pos.board[sq]
            t.mg[T_PSQT][c] += PSQ_MG[piece][sq]
            t.eg[T_PSQT][c] += PSQ_EG[piece][sq]

    # Pawn structure and blocked pawns (rams come from the pawn table; pieces in the way do not).
    for c in range(2):
        t.mg[T_PAWNS][c] = pe.structure_mg[c]
        t.eg[T_PAWNS][c] = pe.structure_eg[c]
    b = (pos.pieces[WHITE][PAWN] << 8) & occ & ~all_pawns
    n = popcount(b)
    t.mg[T_BLOCKED][WHITE] = pe.rams_mg[WHITE] - n * PIECE_BLOCKED_MG
    t.eg[T_BLOCKED][WHITE] = pe.rams_eg[WHITE] - n * PIECE_BLOCKED_EG
    t.mg[T_BLOCKED][WHITE] -= CENTRE_HOME_BLOCKED_MG * popcount(pos.pieces[WHITE][PAWN] & 0x1800ULL & (occ >> 8))
    b = (pos.pieces[BLACK][PAWN] >> 8) & occ & ~all_pawns
    n = popcount(b)
    t.mg[T_BLOCKED][BLACK] = pe.rams_mg[BLACK] - n * PIECE_BLOCKED_MG
    t.eg[T_BLOCKED][BLACK] = pe.rams_eg[BLACK] - n * PIECE_BLOCKED_EG
    t.mg[T_BLOCKED][BLACK] -= CENTRE_HOME_BLOCKED_MG * popcount(
        pos.pieces[BLACK][PAWN] & 0x0018000000000000ULL & (occ << 8))

    # Pieces: mobility, attacks on the enemy king zone, tropism, rooks, outposts, trapped pieces.
    for c in range(2):
        them = c ^ 1
        area = ~(pos.pieces[c][PAWN] | pos.pieces[c][KING] | pe.attacks[them])
        zone = KING_ZONE[them][ksq[them]]
        ring = KING_ATTACKS[ksq[them]]
        for pt in range(KNIGHT, KING):
            b = pos.pieces[c][pt]
            if pt == BISHOP:
                occ_x = occ ^ pos.pieces[c][QUEEN]                          # x-ray through own queen
            elif pt == ROOK:
                occ_x = occ ^ (pos.pieces[c][QUEEN] | pos.pieces[c][ROOK])  # and own rooks
            else:
                occ_x = occ
            while b:
                sq = lsb(b)
                b &= b - 1
                if pt == KNIGHT:
                    att = KNIGHT_ATTACKS[sq]
                elif pt == BISHOP:
                    att = bishop_attacks(sq, occ_x)
                elif pt == ROOK:
                    att = rook_attacks(sq, occ_x)
                else:
                    att = rook_attacks(sq, occ) | bishop_attacks(sq, occ)
                attacked_by[c][pt] |= att
                n = popcount(att & area)
                t.mg[T_MOBILITY][c] += MOB_MG[pt][n]
                t.eg[T_MOBILITY][c] += MOB_EG[pt][n]
                if att & zone:
                    zone_count[them] += 1
                    zone_weight[them] += ATTACK_WEIGHT[pt]
                    zone_hits[them] += popcount(att & ring)
                    if pt == QUEEN:
                        queen_in_zone[them] = 1
                t.mg[T_TROPISM][c] += TROPISM_WEIGHT[pt] * (7 - DIST[sq][ksq[them]])
                r = relative_rank(c, sq)
                if pt == ROOK:
                    f = sq & 7
                    if (pe.half_open[c] >> f) & 1:
                        if (pe.half_open[them] >> f) & 1:
                            t.mg[T_ROOKS][c] += ROOK_OPEN_MG
                            t.eg[T_ROOKS][c] += ROOK_OPEN_EG
                        else:
                            t.mg[T_ROOKS][c] += ROOK_HALF_OPEN_MG
                            t.eg[T_ROOKS][c] += ROOK_HALF_OPEN_EG
                    if r == 6 and (relative_rank(c, ksq[them]) == 7
                                   or (pos.pieces[them][PAWN] & RANK_BB[6 if c == WHITE else 1])):
                        t.mg[T_ROOKS][c] += ROOK_SEVENTH_MG
                        t.eg[T_ROOKS][c] += ROOK_SEVENTH_EG
                    # A rook shut in the corner by its own king, which walked instead of castling.
                    if r == 0 and relative_rank(c, ksq[c]) == 0 and n <= 3:
                        d = ksq[c] & 7
                        if (d >= 5 and f > d) or (1 <= d <= 3 and f < d):
                            w = 2 if (pos.states[pos.ply].castling & (3 << (2 * c))) == 0 else 1
                            t.mg[T_TRAPPED][c] -= w * TRAPPED_ROOK_MG
                            t.eg[T_TRAPPED][c] -= w * TRAPPED_ROOK_EG
                elif pt == KNIGHT or pt == BISHOP:
                    if (3 <= r <= 5 and (pe.attacks[c] & square_bb(sq))
                            and (pe.span[them] & square_bb(sq)) == 0):
                        if pt == KNIGHT:
                            t.mg[T_OUTPOSTS][c] += KNIGHT_OUTPOST_MG
                            t.eg[T_OUTPOSTS][c] += KNIGHT_OUTPOST_EG
                        else:
                            t.mg[T_OUTPOSTS][c] += BISHOP_OUTPOST_MG
                            t.eg[T_OUTPOSTS][c] += BISHOP_OUTPOST_EG
                    if r >= 5:
                        w = trapped_minor(pos, c, pt, sq ^ (56 * c))
                        t.mg[T_TRAPPED][c] -= w
                        t.eg[T_TRAPPED][c] -= w
        attacked[c] = (attacked_by[c][PAWN] | attacked_by[c][KNIGHT] | attacked_by[c][BISHOP]
                       | attacked_by[c][ROOK] | attacked_by[c][QUEEN] | attacked_by[c][KING])

    # King safety of each colour's own king (a penalty, so these numbers are <= 0).
    for c in range(2):
        them = c ^ 1
        mg = king_shelter(pos, c, ksq[c])
        danger = 0
        if zone_count[c] >= 2 or queen_in_zone[c]:
            danger = zone_weight[c] * ATTACKER_PERCENT[zone_count[c] if zone_count[c] < 7 else 7] // 100
            danger += RING_HIT * zone_hits[c]
        # Checks from squares we do not guard; worth half when nothing bears on the king zone yet.
        safe = ~attacked[c] & ~pos.pieces[them][0]
        rl = rook_attacks(ksq[c], occ)
        bl = bishop_attacks(ksq[c], occ)
        d = 0
        if KNIGHT_ATTACKS[ksq[c]] & attacked_by[them][KNIGHT] & safe:
            d += SAFE_CHECK[KNIGHT]
        if bl & attacked_by[them][BISHOP] & safe:
            d += SAFE_CHECK[BISHOP]
        if rl & attacked_by[them][ROOK] & safe:
            d += SAFE_CHECK[ROOK]
        if (rl | bl) & attacked_by[them][QUEEN] & safe:
            d += SAFE_CHECK[QUEEN]
        danger += d if zone_count[c] else d // 2
        if pos.pieces[them][QUEEN] == 0:
            danger //= 2
        if danger > DANGER_MAX:
            danger = DANGER_MAX
        t.mg[T_KING][c] = mg - danger
        t.eg[T_KING][c] = -(danger // 8)

    # Passed pawns.
    for c in range(2):
        them = c ^ 1
        b = pe.passed[c]
        while b:
            sq = lsb(b)
            b &= b - 1
            r = relative_rank(c, sq)
            t.mg[T_PASSED][c] += PASSED_MG[r]
            t.eg[T_PASSED][c] += PASSED_EG[r]
            stop = sq + 8 if c == WHITE else sq - 8
            path = FORWARD_FILE[c][sq]
            w = PASSED_WEIGHT[r]
            if w:
                d = DIST[ksq[them]][stop]
                t.eg[T_PASSED][c] += (4 * (d if d < 5 else 5) - 2 * DIST[ksq[c]][stop]) * w
                if (path & occ) == 0:
                    t.mg[T_PASSED][c] += 2 * w
                    t.eg[T_PASSED][c] += 5 * w
                    if (path & attacked[them]) == 0:
                        t.eg[T_PASSED][c] += 4 * w
                    elif (square_bb(stop) & attacked[them]) == 0:
                        t.eg[T_PASSED][c] += 2 * w
            # Rule of the square, when the enemy has only king and pawns.
            if (cnt[them * 8 + KNIGHT] + cnt[them * 8 + BISHOP] + cnt[them * 8 + ROOK] + cnt[them * 8 + QUEEN] == 0
                    and (path & pos.pieces[c][0]) == 0):
                n = 7 - r if r > 1 else 5                       # moves to queen (double step from home)
                f = (sq & 7) + (56 if c == WHITE else 0)        # promotion square
                d = DIST[ksq[them]][f] - (1 if pos.side == them else 0)
                if d > n:
                    n = 2 * n - (1 if pos.side == c else 0)     # plies until it queens
                    if n < unstoppable[c]:
                        unstoppable[c] = n
    for c in range(2):
        if unstoppable[c] < 1000 and unstoppable[c] + 2 < unstoppable[c ^ 1]:
            t.eg[T_PASSED][c] += UNSTOPPABLE_EG

    # Bishop pair.
    for c in range(2):
        if (pos.pieces[c][BISHOP] & DARK_SQUARES) and (pos.pieces[c][BISHOP] & ~DARK_SQUARES):
            t.mg[T_BISHOP_PAIR][c] = BISHOP_PAIR_MG
            t.eg[T_BISHOP_PAIR][c] = BISHOP_PAIR_EG

    # Mating knowledge against a bare king.
    for c in range(2):
        if pos.pieces[c ^ 1][0] == pos.pieces[c ^ 1][KING] and pos.pieces[c][0] != pos.pieces[c][KING]:
            d = endgame_bonus(pos, c, cnt)
            t.mg[T_ENDGAME][c] = d
            t.eg[T_ENDGAME][c] = d

    t.mg[T_TEMPO][pos.side] = TEMPO_MG
    t.eg[T_TEMPO][pos.side] = TEMPO_EG

    # Scales (percent), then the tapered sum.
    for c in range(2):
        apply_scale(t, T_PAWNS, c, ev.pscale)
        apply_scale(t, T_BLOCKED, c, ev.bscale)
        apply_scale(t, T_PASSED, c, ev.ppscale)
        apply_scale(t, T_TROPISM, c, ev.tropism)
        pct = ev.kscale
        if c != ev.engine_side:
            pct = pct * (100 + ev.asymmetry) // 100
        apply_scale(t, T_KING, c, pct)
    mg = eg = 0
    for i in range(N_TERMS):
        mg += t.mg[i][WHITE] - t.mg[i][BLACK]
        eg += t.eg[i][WHITE] - t.eg[i][BLACK]
    score = taper(mg, eg, phase)
    t.unscaled = score
    # The scale factor belongs to the side ahead in the endgame part. Drawn material shrinks the
    # whole score (0 is a dead draw); opposite bishops shrink only the endgame part, so with
    # queens and rooks still on, an attack keeps its value.
    strong = WHITE if eg > 0 or (eg == 0 and score > 0) else BLACK
    t.scale = scale_factor(pos, strong, cnt, &whole)
    if t.scale == 0:
        score = 0
    elif t.scale != SCALE_NORMAL:
        if whole:
            score = score * t.scale // SCALE_NORMAL
        else:
            score = taper(mg, eg * t.scale // SCALE_NORMAL, phase)
    if score > EVAL_LIMIT:
        score = EVAL_LIMIT
    elif score < -EVAL_LIMIT:
        score = -EVAL_LIMIT
    t.score = score
    return score


cdef inline void apply_scale(EvalTerms* t, int term, int c, int pct) noexcept nogil:
    if pct != 100:
        t.mg[term][c] = t.mg[term][c] * pct // 100
        t.eg[term][c] = t.eg[term][c] * pct // 100


cdef inline int trapped_minor(Position* pos, int c, int pt, int rsq) noexcept nogil:
    """Penalty for a bishop or knight deep in enemy territory with its way out shut by pawns.

    rsq is the square seen from c's side (a8 = 56 for either colour)."""
    cdef Bitboard enemy = pos.pieces[c ^ 1][PAWN]
    cdef int flip = 56 * c
    if pt == BISHOP:
        if rsq == 48 or rsq == 57:           # a7, b8: shut in by b6 / c7
            if enemy & square_bb((41 if rsq == 48 else 50) ^ flip):
                return TRAPPED_BISHOP
        elif rsq == 55 or rsq == 62:         # h7, g8: shut in by g6 / f7
            if enemy & square_bb((46 if rsq == 55 else 53) ^ flip):
                return TRAPPED_BISHOP
        elif rsq == 40:                      # a6 with b5
            if enemy & square_bb(33 ^ flip):
                return TRAPPED_BISHOP_A6
        elif rsq == 47:                      # h6 with g5
            if enemy & square_bb(38 ^ flip):
                return TRAPPED_BISHOP_A6
    else:
        if rsq == 56:                        # a8 knight: a7 or c7 pawn takes its squares
            if enemy & (square_bb(48 ^ flip) | square_bb(50 ^ flip)):
                return TRAPPED_KNIGHT
        elif rsq == 63:                      # h8 knight: h7 or f7
            if enemy & (square_bb(55 ^ flip) | square_bb(53 ^ flip)):
                return TRAPPED_KNIGHT
    return 0


cdef int evaluate(Position* pos, EvalState* ev) noexcept nogil:
    """Centipawns from the side to move's point of view (negamax convention)."""
    cdef EvalTerms t
    cdef int score = evaluate_terms(pos, ev, &t)
    return score if pos.side == WHITE else -score


# ---------------------------------------------------------------- state management


cdef inline void set_defaults(EvalState* ev) noexcept nogil:
    ev.asymmetry = 0
    ev.bscale = ev.kscale = ev.tropism = ev.pscale = ev.ppscale = 100
    ev.engine_side = WHITE


cdef int resize_pawn_table(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil:
    """Replace the pawn table by a cleared one of the largest power of two of entries that fits
    (at least one); keeps the old table and returns -1 if out of memory."""
    cdef size_t entries = 1
    cdef PawnEntry* table
    while entries * 2 * sizeof(PawnEntry) <= pawn_hash_bytes:
        entries *= 2
    table = <PawnEntry*>calloc(entries, sizeof(PawnEntry))
    if table == NULL:
        return -1
    free(ev.pawn_table)
    ev.pawn_table = table
    ev.pawn_mask = entries - 1
    ev.pawn_probes = ev.pawn_hits = 0
    return 0


cdef int eval_state_init(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil:
    """Default scales and a cleared pawn table of at most pawn_hash_bytes; -1 if out of memory."""
    memset(ev, 0, sizeof(EvalState))
    set_defaults(ev)
    return resize_pawn_table(ev, pawn_hash_bytes)


cdef void eval_state_clear(EvalState* ev) noexcept nogil:
    if ev.pawn_table != NULL:
        memset(ev.pawn_table, 0, (ev.pawn_mask + 1) * sizeof(PawnEntry))
    ev.pawn_probes = ev.pawn_hits = 0


cdef void eval_state_free(EvalState* ev) noexcept nogil:
    free(ev.pawn_table)
    ev.pawn_table = NULL
    ev.pawn_mask = 0


cdef long long bench_loop(Position** positions, int count, long repetitions, EvalState* ev) noexcept nogil:
    """Evaluate every position repetitions times; returns a checksum so nothing is optimised away."""
    cdef long r
    cdef int i
    cdef long long total = 0
    for r in range(repetitions):
        for i in range(count):
            total += evaluate(positions[i], ev)
    return total


SCALE_LIMITS = {"asymmetry": (-100, 500), "bscale": (0, 1000), "kscale": (0, 1000),
                "tropism": (0, 1000), "pscale": (0, 1000), "ppscale": (0, 1000)}


cdef class Evaluator:
    """Static evaluator with its own pawn hash table and Crafty-style term scales."""

    def __cinit__(self, *args, **kwargs):
        memset(&self.state, 0, sizeof(EvalState))
        set_defaults(&self.state)

    def __init__(self, pawn_hash_bytes: int = 4 * 1024 * 1024):
        self.set_pawn_hash(pawn_hash_bytes)

    def __dealloc__(self):
        eval_state_free(&self.state)

    def set_pawn_hash(self, bytes: int) -> None:
        """Resize the pawn table to the largest power of two of entries that fits in bytes
        (at least one entry) and clear it; the scales are kept."""
        if bytes < 0:
            raise ValueError(f"pawn hash size {bytes} is negative")
        if resize_pawn_table(&self.state, <size_t>bytes) != 0:
            raise MemoryError(f"cannot allocate a pawn hash of {bytes} bytes")

    def clear(self) -> None:
        """Empty the pawn hash table."""
        eval_state_clear(&self.state)

    @property
    def pawn_hash_entries(self) -> int:
        return self.state.pawn_mask + 1

    @property
    def pawn_hash_stats(self) -> tuple:
        """(probes, hits) since the last clear."""
        return (self.state.pawn_probes, self.state.pawn_hits)

    @property
    def engine_side(self) -> int:
        """Colour the engine plays (0 White, 1 Black): asymmetry scales the other side's king safety."""
        return self.state.engine_side

    @engine_side.setter
    def engine_side(self, int colour) -> None:
        if colour not in (WHITE, BLACK):
            raise ValueError(f"engine side must be 0 (White) or 1 (Black), not {colour}")
        self.state.engine_side = colour

    def set_scale(self, name, value) -> None:
        """Set one of Crafty's evaluation scales (percent; asymmetry is a signed percent)."""
        if name not in SCALE_LIMITS:
            raise ValueError(f"unknown evaluation scale {name!r}; known: {', '.join(SCALE_NAMES)}")
        low, high = SCALE_LIMITS[name]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{name} must be an integer from {low} to {high}, not {value!r}")
        if name == "asymmetry":
            self.state.asymmetry = value
        elif name == "bscale":
            self.state.bscale = value
        elif name == "kscale":
            self.state.kscale = value
        elif name == "tropism":
            self.state.tropism = value
        elif name == "pscale":
            self.state.pscale = value
        else:
            self.state.ppscale = value

    def scales(self) -> dict:
        return {"asymmetry": self.state.asymmetry, "bscale": self.state.bscale, "kscale": self.state.kscale,
                "tropism": self.state.tropism, "pscale": self.state.pscale, "ppscale": self.state.ppscale}

    def evaluate(self, Board board not None) -> int:
        """Centipawns from the side to move's point of view."""
        return evaluate(board.pos, &self.state)

    def breakdown(self, Board board not None) -> list:
        """(term, White's part, Black's part, net for White) per term, after tapering and scaling.

        Each colour's part is that colour's own score (positive = good for it). The net column is
        cumulative: each row is the change of the tapered running total White minus Black when the
        term is added, so the nets add up exactly to the White-view score; a row's net can differ by
        1 from White's part minus Black's part through rounding. The last row, "draw scaling", is the
        change made by the endgame scale factor (dead draws, opposite bishops ...) and the clamp.
        """
        cdef EvalTerms t
        cdef int i, mg = 0, eg = 0, running, previous = 0
        cdef int total = evaluate_terms(board.pos, &self.state, &t)
        rows = []
        for i in range(N_TERMS):
            mg += t.mg[i][WHITE] - t.mg[i][BLACK]
            eg += t.eg[i][WHITE] - t.eg[i][BLACK]
            running = taper(mg, eg, t.phase)
            rows.append((TERM_NAMES[i], taper(t.mg[i][WHITE], t.eg[i][WHITE], t.phase),
                         taper(t.mg[i][BLACK], t.eg[i][BLACK], t.phase), running - previous))
            previous = running
        rows.append(("draw scaling", 0, 0, total - previous))
        return rows

    def phase(self, Board board not None) -> int:
        """Game phase, PHASE_MAX (24) with all pieces on the board down to 0 with none."""
        cdef EvalTerms t
        evaluate_terms(board.pos, &self.state, &t)
        return t.phase

    def benchmark(self, boards: list, long repetitions = 1000) -> float:
        """Average nanoseconds per evaluate() call over the boards, timed in C without the GIL."""
        cdef int count = len(boards)
        cdef Position** positions
        cdef clock_t start, stop
        cdef long long checksum
        if count == 0 or repetitions <= 0:
            raise ValueError("need at least one board and one repetition")
        positions = <Position**>calloc(count, sizeof(Position*))
        if positions == NULL:
            raise MemoryError()
        try:
            for i, board in enumerate(boards):
                positions[i] = (<Board?>board).pos
            with nogil:
                start = clock()
                checksum = bench_loop(positions, count, repetitions, &self.state)
                stop = clock()
        finally:
            free(positions)
        return (stop - start) * 1e9 / CLOCKS_PER_SEC / (count * repetitions)
