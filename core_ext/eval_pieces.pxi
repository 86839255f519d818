# Included by evaluation.pxi (part of core.pyx, the core's one C unit: these are its threat, scale and trapped-piece helpers of evaluate_terms); the names are module-level there.

cdef inline void add_threats(Position* pos, TermSink* t, int c, Bitboard* attacked, Bitboard (*attacked_by)[7],
                             Bitboard occ) noexcept nogil:
    """The threats colour c makes: enemy pieces its pawns or lesser pieces attack, enemy pieces and
    pawns it attacks that nothing defends, and safe pawn pushes that would attack a piece."""
    cdef int them = c ^ 1
    cdef Bitboard minors = pos.pieces[them][KNIGHT] | pos.pieces[them][BISHOP]
    cdef Bitboard majors = pos.pieces[them][ROOK] | pos.pieces[them][QUEEN]
    cdef Bitboard undefended = ~attacked[them]
    cdef Bitboard by_pawn = attacked_by[c][PAWN]
    cdef Bitboard by_minor = attacked_by[c][KNIGHT] | attacked_by[c][BISHOP]
    cdef Bitboard push, safe
    add_threat(t, c, minors & by_pawn, THREAT_PAWN_ON_MINOR_MG, THREAT_PAWN_ON_MINOR_EG)
    add_threat(t, c, majors & by_pawn, THREAT_PAWN_ON_MAJOR_MG, THREAT_PAWN_ON_MAJOR_EG)
    add_threat(t, c, minors & by_minor, THREAT_MINOR_ON_MINOR_MG, THREAT_MINOR_ON_MINOR_EG)
    add_threat(t, c, majors & by_minor, THREAT_MINOR_ON_MAJOR_MG, THREAT_MINOR_ON_MAJOR_EG)
    add_threat(t, c, pos.pieces[them][QUEEN] & attacked_by[c][ROOK], THREAT_ROOK_ON_QUEEN_MG, THREAT_ROOK_ON_QUEEN_EG)
    add_threat(t, c, (minors | majors) & attacked[c] & undefended, THREAT_HANGING_MG, THREAT_HANGING_EG)
    add_threat(t, c, pos.pieces[them][PAWN] & attacked[c] & undefended, THREAT_WEAK_PAWN_MG, THREAT_WEAK_PAWN_EG)
    # Pawn pushes (one step, or two from the home rank) to squares no enemy pawn attacks and that
    # the enemy does not attack unless we defend them too.
    if c == WHITE:
        push = (pos.pieces[c][PAWN] << 8) & ~occ
        push |= ((push & RANK_BB[2]) << 8) & ~occ
    else:
        push = (pos.pieces[c][PAWN] >> 8) & ~occ
        push |= ((push & RANK_BB[5]) >> 8) & ~occ
    safe = push & ~attacked_by[them][PAWN] & (attacked[c] | undefended)
    add_threat(t, c, pawn_attacks_of(c, safe) & (minors | majors), THREAT_PAWN_PUSH_MG, THREAT_PAWN_PUSH_EG)


cdef inline void add_threat(TermSink* t, int c, Bitboard targets, int mg, int eg) noexcept nogil:
    """Credit colour c with mg / eg for each target of one kind of threat."""
    cdef int n = popcount(targets)
    add_term(t, T_THREATS, c, n * mg, n * eg)


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
