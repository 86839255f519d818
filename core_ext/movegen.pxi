# Included by core.pyx, the core's one C unit:
# Strictly legal move generation: pins and checks are resolved while generating,
# so a caller never has to make a move to learn whether it was legal.

cdef inline Bitboard shift_by(Bitboard b, int delta) noexcept nogil:
    return b << delta if delta > 0 else b >> (-delta)


cdef inline Bitboard pinned_pieces(Position* pos, int us, int ksq, Bitboard occ) noexcept nogil:
    """Our pieces that stand alone between our king and an enemy slider."""
    cdef int them = us ^ 1
    cdef Bitboard snipers = ((ROOK_PSEUDO[ksq] & (pos.pieces[them][ROOK] | pos.pieces[them][QUEEN]))
                             | (BISHOP_PSEUDO[ksq] & (pos.pieces[them][BISHOP] | pos.pieces[them][QUEEN])))
    return lone_blockers(ksq, snipers, pos.pieces[us][0], occ)


cdef inline Bitboard checkers_of(Position* pos, int ksq, int them, Bitboard occ) noexcept nogil:
    """The enemy pieces that attack our king on ksq (a king never does): attackers_to for one colour."""
    return ((PAWN_ATTACKS[them ^ 1][ksq] & pos.pieces[them][PAWN])
            | (KNIGHT_ATTACKS[ksq] & pos.pieces[them][KNIGHT])
            | rook_attackers(ksq, occ, pos.pieces[them][ROOK] | pos.pieces[them][QUEEN])
            | bishop_attackers(ksq, occ, pos.pieces[them][BISHOP] | pos.pieces[them][QUEEN]))


cdef inline bint pin_allows(Bitboard pinned, int ksq, int frm, int to) noexcept nogil:
    """A pinned piece may move only along the line through its king."""
    return not (pinned & square_bb(frm)) or (LINE[ksq][frm] & square_bb(to)) != 0


# Every generator below takes count_only: perft's last ply wants how many legal moves there are, not
# the moves, so with count_only (and moves NULL) whole target sets are counted with one popcount.
# The flag is a constant at each call, so the compiler builds the counting and the listing
# generators apart, and the search's stays as it was.

cdef inline int add_targets(Move* moves, int n, int frm, Bitboard targets, bint count_only) noexcept nogil:
    if count_only:
        return n + popcount(targets)
    while targets:
        moves[n] = make_move_code(frm, lsb(targets), FLAG_NORMAL)
        n += 1
        targets &= targets - 1
    return n


cdef inline int add_pawn_moves(Move* moves, int n, Bitboard targets, int delta, int flag,
                               Bitboard pinned, int ksq, bint count_only) noexcept nogil:
    """Pawn moves to each target from target - delta; pinned pawns stay on their pin line."""
    cdef int to, frm
    if count_only and not (pinned & shift_by(targets, -delta)):
        return n + popcount(targets)
    while targets:
        to = lsb(targets)
        targets &= targets - 1
        frm = to - delta
        if not pin_allows(pinned, ksq, frm, to):
            continue
        if not count_only:
            moves[n] = make_move_code(frm, to, flag)
        n += 1
    return n


cdef inline int add_promotions(Move* moves, int n, Bitboard targets, int delta,
                               Bitboard pinned, int ksq, bint queen_only, bint count_only) noexcept nogil:
    cdef int to, frm
    while targets:
        to = lsb(targets)
        targets &= targets - 1
        frm = to - delta
        if not pin_allows(pinned, ksq, frm, to):
            continue
        if count_only:
            n += 1 if queen_only else 4
            continue
        moves[n] = make_move_code(frm, to, FLAG_PROMO_QUEEN)
        if queen_only:
            n += 1
            continue
        moves[n + 1] = make_move_code(frm, to, FLAG_PROMO_KNIGHT)
        moves[n + 2] = make_move_code(frm, to, FLAG_PROMO_ROOK)
        moves[n + 3] = make_move_code(frm, to, FLAG_PROMO_BISHOP)
        n += 4
    return n


cdef inline bint en_passant_is_legal(Position* pos, int us, int ksq, int frm, int ep, Bitboard occ) noexcept nogil:
    """Play the capture on the occupancy and look for any attack on our king: this covers
    the captured pawn's own check, and the rank pin where both pawns leave the rank."""
    cdef int them = us ^ 1
    cdef int capsq = ep - 8 if us == WHITE else ep + 8
    cdef Bitboard after = (occ ^ square_bb(frm) ^ square_bb(capsq)) | square_bb(ep)
    return not ((rook_attacks(ksq, after) & (pos.pieces[them][ROOK] | pos.pieces[them][QUEEN]))
                or (bishop_attacks(ksq, after) & (pos.pieces[them][BISHOP] | pos.pieces[them][QUEEN]))
                or (KNIGHT_ATTACKS[ksq] & pos.pieces[them][KNIGHT])
                or (PAWN_ATTACKS[us][ksq] & pos.pieces[them][PAWN] & ~square_bb(capsq)))


cdef inline int generate_pawn_moves(Position* pos, Move* moves, int n, int us, int ksq,
                                    Bitboard target, Bitboard pinned, Bitboard occ, bint noisy,
                                    bint count_only) noexcept nogil:
    cdef int them = us ^ 1
    cdef int up = 8 if us == WHITE else -8
    cdef int up_west = 7 if us == WHITE else -9
    cdef int up_east = 9 if us == WHITE else -7
    cdef Bitboard rank7 = RANK_7_BB if us == WHITE else RANK_2_BB
    cdef Bitboard rank3 = RANK_3_BB if us == WHITE else RANK_6_BB
    cdef Bitboard pawns = pos.pieces[us][PAWN]
    cdef Bitboard enemy = pos.pieces[them][0]
    cdef Bitboard empty = ~occ
    cdef Bitboard movers = pawns & ~rank7
    cdef Bitboard promoters = pawns & rank7
    cdef Bitboard single, double
    cdef int ep = pos.states[pos.ply].ep_square
    cdef Bitboard candidates
    cdef int frm

    if not noisy:
        single = shift_by(movers, up) & empty
        double = shift_by(single & rank3, up) & empty & target
        single &= target
        n = add_pawn_moves(moves, n, single, up, FLAG_NORMAL, pinned, ksq, count_only)
        n = add_pawn_moves(moves, n, double, 2 * up, FLAG_DOUBLE_PUSH, pinned, ksq, count_only)
    n = add_pawn_moves(moves, n, shift_by(movers & ~FILE_A_BB, up_west) & enemy & target,
                       up_west, FLAG_NORMAL, pinned, ksq, count_only)
    n = add_pawn_moves(moves, n, shift_by(movers & ~FILE_H_BB, up_east) & enemy & target,
                       up_east, FLAG_NORMAL, pinned, ksq, count_only)
    if promoters:
        n = add_promotions(moves, n, shift_by(promoters, up) & empty & target, up, pinned, ksq, noisy, count_only)
        n = add_promotions(moves, n, shift_by(promoters & ~FILE_A_BB, up_west) & enemy & target,
                           up_west, pinned, ksq, noisy, count_only)
        n = add_promotions(moves, n, shift_by(promoters & ~FILE_H_BB, up_east) & enemy & target,
                           up_east, pinned, ksq, noisy, count_only)
    if ep != NO_SQUARE:
        candidates = PAWN_ATTACKS[them][ep] & pawns
        while candidates:
            frm = lsb(candidates)
            candidates &= candidates - 1
            if en_passant_is_legal(pos, us, ksq, frm, ep, occ):
                if not count_only:
                    moves[n] = make_move_code(frm, ep, FLAG_EN_PASSANT)
                n += 1
    return n


cdef inline int generate_castling(Position* pos, Move* moves, int n, int us, Bitboard occ,
                                  bint count_only) noexcept nogil:
    """Castling when not in check (standard chess and Chess960 alike): the king ends on the g- or
    c-file and the rook beside it on the f- or d-file; every square either crosses or lands on
    is empty but for the two of them, the squares the king crosses are not attacked, nor is its
    last square once both have moved (the rook may have shielded it where it stood)."""
    cdef int rights = pos.states[pos.ply].castling
    cdef int them = us ^ 1, ksq = lsb(pos.pieces[us][KING]), side, index, rsq, kto, rto
    cdef Bitboard movers, path, crossed
    for side in range(2):   # the short side first
        index = 2 * us + side
        if not rights & (1 << index):
            continue
        rsq = pos.castle_rook[index]
        kto = 56 * us + (6 if side == 0 else 2)
        rto = 56 * us + (5 if side == 0 else 3)
        movers = square_bb(ksq) | square_bb(rsq)
        path = (BETWEEN[ksq][kto] | square_bb(kto) | BETWEEN[rsq][rto] | square_bb(rto)) & ~movers
        if occ & path:
            continue
        crossed = BETWEEN[ksq][kto]
        while crossed:
            if square_attacked(pos, lsb(crossed), them, occ ^ square_bb(ksq)):
                break
            crossed &= crossed - 1
        if crossed:
            continue
        if square_attacked(pos, kto, them, (occ ^ movers) | square_bb(rto)):
            continue
        if not count_only:
            moves[n] = make_move_code(ksq, kto, FLAG_CASTLE)
        n += 1
    return n


cdef int generate_legal(Position* pos, Move* moves) noexcept nogil:
    """All legal moves of the side to move into moves[]; returns how many."""
    return generate(pos, moves, False, False)


cdef int count_legal(Position* pos) noexcept nogil:
    """How many legal moves the side to move has (perft's last ply), without listing them."""
    return generate(pos, NULL, False, True)


cdef int generate_noisy(Position* pos, Move* moves) noexcept nogil:
    """Legal captures, e.p. and queen promotions for the quiescence search; all evasions in check."""
    return generate(pos, moves, True, False)


cdef inline int generate(Position* pos, Move* moves, bint noisy, bint count_only) noexcept nogil:
    cdef int us = pos.side
    cdef int them = us ^ 1
    cdef Bitboard own = pos.pieces[us][0]
    cdef Bitboard occ = own | pos.pieces[them][0]
    cdef int ksq = lsb(pos.pieces[us][KING])
    cdef Bitboard checkers = checkers_of(pos, ksq, them, occ)
    cdef Bitboard occ_without_king = occ ^ square_bb(ksq)
    cdef Bitboard targets, pieces, target, pinned
    cdef int n = 0, to, frm

    # King moves, tested with the king lifted so that it cannot hide behind itself.
    targets = KING_ATTACKS[ksq] & ~own
    if noisy and not checkers:
        targets &= pos.pieces[them][0]
    while targets:
        to = lsb(targets)
        targets &= targets - 1
        if not square_attacked(pos, to, them, occ_without_king):
            if not count_only:
                moves[n] = make_move_code(ksq, to, FLAG_NORMAL)
            n += 1
    if more_than_one(checkers):
        return n

    if checkers:
        target = BETWEEN[ksq][lsb(checkers)] | checkers
        noisy = False
    elif noisy:
        target = pos.pieces[them][0]
    else:
        target = ~own
    pinned = pinned_pieces(pos, us, ksq, occ)

    pieces = pos.pieces[us][KNIGHT] & ~pinned
    while pieces:
        frm = lsb(pieces)
        pieces &= pieces - 1
        n = add_targets(moves, n, frm, KNIGHT_ATTACKS[frm] & target, count_only)

    pieces = pos.pieces[us][BISHOP] | pos.pieces[us][QUEEN]
    while pieces:
        frm = lsb(pieces)
        pieces &= pieces - 1
        targets = bishop_attacks(frm, occ) & target
        if pinned & square_bb(frm):
            targets &= LINE[ksq][frm]
        n = add_targets(moves, n, frm, targets, count_only)

    pieces = pos.pieces[us][ROOK] | pos.pieces[us][QUEEN]
    while pieces:
        frm = lsb(pieces)
        pieces &= pieces - 1
        targets = rook_attacks(frm, occ) & target
        if pinned & square_bb(frm):
            targets &= LINE[ksq][frm]
        n = add_targets(moves, n, frm, targets, count_only)

    # Pawn pushes to the last rank are noisy too: promotions get the whole empty board as target.
    n = generate_pawn_moves(pos, moves, n, us, ksq, ~own if noisy else target, pinned, occ, noisy, count_only)
    if not checkers and not noisy:
        n = generate_castling(pos, moves, n, us, occ, count_only)
    return n
