# Included by evaluation.pxi (part of core.pyx, the core's one C unit: these are its endgame scale factor and endgame knowledge); the names are module-level there.

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
