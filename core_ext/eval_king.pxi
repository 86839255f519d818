# Included by evaluation.pxi (part of core.pyx, the core's one C unit: these are its king-shelter terms); the names are module-level there.

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


cdef inline int pawn_shelter(PawnEntry* pe, Position* pos, int k, int ksq) noexcept nogil:
    """king_shelter, kept in the pawn entry: besides the pawns the entry stands for, it depends
    only on the king square and, on the home square, the castling rights, which make the key."""
    cdef int home = 4 if k == WHITE else 60
    cdef int key = ksq
    if ksq == home:
        key |= ((pos.states[pos.ply].castling >> (2 * k)) & 3) << 6
    if pe.shelter_key[k] != key:
        pe.shelter[k] = king_shelter(pos, k, ksq)
        pe.shelter_key[k] = key
    return pe.shelter[k]
