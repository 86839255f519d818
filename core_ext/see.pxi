# Included by core.pyx, the core's one C unit:
# Static exchange evaluation: the material outcome of the capture sequence on one square.

SEE_VALUE[:] = [0, 100, 325, 325, 500, 975, 20000]


cdef int see(Position* pos, Move m) noexcept nogil:
    """Gain for the side to move of playing m and then the best exchanges on its square."""
    cdef int frm = move_from(m)
    cdef int to = move_to(m)
    cdef int flag = move_flag(m)
    cdef int gain[40]
    cdef int d = 0, side, piece_type, on_square
    cdef Bitboard occ, attackers, mine, candidates
    cdef Bitboard bishops_queens, rooks_queens
    if flag == FLAG_CASTLE:
        return 0
    occ = occupied(pos) ^ square_bb(frm)
    on_square = pos.board[frm] & 7
    if flag == FLAG_EN_PASSANT:
        gain[0] = SEE_VALUE[PAWN]
        occ ^= square_bb(to - 8 if pos.side == WHITE else to + 8)
    else:
        gain[0] = SEE_VALUE[pos.board[to] & 7]
    if flag >= FLAG_PROMO_KNIGHT:
        on_square = flag - 2
        gain[0] += SEE_VALUE[on_square] - SEE_VALUE[PAWN]
    bishops_queens = (pos.pieces[0][BISHOP] | pos.pieces[0][QUEEN] | pos.pieces[1][BISHOP] | pos.pieces[1][QUEEN])
    rooks_queens = (pos.pieces[0][ROOK] | pos.pieces[0][QUEEN] | pos.pieces[1][ROOK] | pos.pieces[1][QUEEN])
    attackers = attackers_to(pos, to, occ) & occ
    side = pos.side ^ 1
    while True:
        mine = attackers & pos.pieces[side][0]
        if not mine:
            break
        # Least valuable attacker takes next.
        for piece_type in range(PAWN, KING + 1):
            candidates = mine & pos.pieces[side][piece_type]
            if candidates:
                break
        if piece_type == KING and (attackers & pos.pieces[side ^ 1][0]):
            break  # the king may not capture into a defended square
        d += 1
        if d >= 39:
            break
        gain[d] = SEE_VALUE[on_square] - gain[d - 1]
        if (-gain[d - 1] if -gain[d - 1] > gain[d] else gain[d]) < 0:
            break
        occ ^= square_bb(lsb(candidates))
        # Sliders behind the piece that just took join in (x-rays), along the line it stood on:
        # a pawn or bishop took along a diagonal, a rook along a rank or file, a knight along
        # neither; a queen or king along either.
        if piece_type == PAWN or piece_type == BISHOP:
            attackers |= bishop_attackers(to, occ, bishops_queens)
        elif piece_type == ROOK:
            attackers |= rook_attackers(to, occ, rooks_queens)
        elif piece_type != KNIGHT:
            attackers |= bishop_attackers(to, occ, bishops_queens) | rook_attackers(to, occ, rooks_queens)
        attackers &= occ
        on_square = piece_type
        side ^= 1
    while d > 0:
        d -= 1
        gain[d] = -(-gain[d] if -gain[d] > gain[d + 1] else gain[d + 1])
    return gain[0]
