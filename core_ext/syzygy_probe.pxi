# Included by syzygy.pxi (part of core.pyx, the core's one C unit): WDL and DTZ probes with captures and en passant resolved, for the search.

# -- probing with captures resolved ------------------------------------------------------------

cdef inline bint room_for(Position* pos) noexcept nogil:
    return pos.ply + 2 * TB_MAX_PIECES + 4 < MAX_STATES


cdef int probe_ab(Position* pos, int alpha, int beta, int* success) noexcept nogil:
    """WDL with the captures searched first (tables store positions where a capture is not better).
    success: 1, or 2 when a capture is the best move; 0 when a table is missing."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i, v
    if not room_for(pos):
        success[0] = 0
        return 0
    n = generate_legal(pos, moves)
    for i in range(n):
        if pos.board[move_to(moves[i])] == 0:
            continue   # not a capture (e.p. is handled by the callers)
        do_move(pos, moves[i])
        v = -probe_ab(pos, -beta, -alpha, success)
        undo_move(pos)
        if success[0] == 0:
            return 0
        if v > alpha:
            if v >= beta:
                success[0] = 2
                return v
            alpha = v
    v = probe_table(pos, False, 0, success)
    if success[0] != 1:
        success[0] = 0
        return 0
    v -= 2
    if alpha >= v:
        success[0] = 2 if alpha > 0 else 1
        return alpha
    success[0] = 1
    return v


cdef int best_ep_capture_wdl(Position* pos, bint* only_ep, int* success) noexcept nogil:
    """The best WDL among the en-passant captures (-3 when there is none); only_ep says whether
    they are the only legal moves. The tables leave e.p. out, so both probes look at it here."""
    cdef Move moves[MAX_MOVES]
    cdef int v0, v1 = -3, n, i, s
    only_ep[0] = True
    n = generate_legal(pos, moves)
    for i in range(n):
        if move_flag(moves[i]) != FLAG_EN_PASSANT:
            only_ep[0] = False
            continue
        do_move(pos, moves[i])
        v0 = -probe_ab(pos, -2, 2, &s)
        undo_move(pos)
        if s == 0:
            success[0] = 0
            return 0
        if v0 > v1:
            v1 = v0
    return v1


cdef int probe_wdl_full(Position* pos, int* success) noexcept nogil:
    cdef int v, v1
    cdef bint only_ep
    v = probe_ab(pos, -2, 2, success)
    if success[0] == 0 or pos.states[pos.ply].ep_square == NO_SQUARE:
        return v
    v1 = best_ep_capture_wdl(pos, &only_ep, success)
    if success[0] == 0:
        return 0
    if v1 > -3:
        if v1 >= v:
            v = v1
        elif v == 0 and only_ep:
            v = v1   # the losing e.p. capture is the only legal move
    return v


cdef inline int dtz_before_zeroing(int wdl) noexcept nogil:
    if wdl == 0:
        return 0
    return (1 if wdl > 0 else -1) * (1 if wdl == 2 or wdl == -2 else 101)


cdef inline bint is_checkmate(Position* pos) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    return in_check(pos) and generate_legal(pos, moves) == 0


cdef int probe_dtz_no_ep(Position* pos, int* success) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int wdl, n, i, v, dtz, best, s
    cdef Move m
    wdl = probe_ab(pos, -2, 2, success)
    if success[0] == 0:
        return 0
    if wdl == 0:
        return 0
    if success[0] == 2:
        return dtz_before_zeroing(wdl)
    n = generate_legal(pos, moves)
    if wdl > 0:
        # A pawn push that keeps the win resets the counter at once.
        for i in range(n):
            m = moves[i]
            if (pos.board[move_from(m)] & 7) != PAWN or pos.board[move_to(m)] != 0 \
                    or move_flag(m) == FLAG_EN_PASSANT:
                continue
            do_move(pos, m)
            v = -probe_wdl_full(pos, &s)
            undo_move(pos)
            if s == 0:
                success[0] = 0
                return 0
            if v == wdl:
                return 1 if v == 2 else 101
    dtz = probe_table(pos, True, wdl, &s)
    if s == 1:
        return dtz_before_zeroing(wdl) + (dtz if wdl > 0 else -dtz)
    if s == 0:
        success[0] = 0
        return 0
    # The table holds the other side to move: one ply deeper.
    if wdl > 0:
        best = 0xFFFF
        for i in range(n):
            m = moves[i]
            if (pos.board[move_from(m)] & 7) == PAWN or pos.board[move_to(m)] != 0:
                continue
            do_move(pos, m)
            v = -probe_dtz_full(pos, &s)
            if s == 0:
                undo_move(pos)
                success[0] = 0
                return 0
            if v == 1 and is_checkmate(pos):
                best = 1
            elif v > 0 and v + 1 < best:
                best = v + 1
            undo_move(pos)
        return best
    best = -1
    for i in range(n):
        do_move(pos, moves[i])
        if pos.states[pos.ply].halfmove == 0:
            if wdl == -2:
                v = -1
                s = 1
            else:
                v = probe_ab(pos, 1, 2, &s)
                v = 0 if v == 2 else -101
        else:
            v = -probe_dtz_full(pos, &s) - 1
        undo_move(pos)
        if s == 0:
            success[0] = 0
            return 0
        if v < best:
            best = v
    return best


cdef int probe_dtz_full(Position* pos, int* success) noexcept nogil:
    cdef int v, v1
    cdef bint only_ep
    if not room_for(pos):
        success[0] = 0
        return 0
    v = probe_dtz_no_ep(pos, success)
    if success[0] == 0 or pos.states[pos.ply].ep_square == NO_SQUARE:
        return v
    v1 = best_ep_capture_wdl(pos, &only_ep, success)
    if success[0] == 0:
        return 0
    if v1 > -3:
        v1 = WDL_TO_DTZ[v1 + 2]
        if v < -100:
            if v1 >= 0:
                v = v1
        elif v < 0:
            if v1 >= 0 or v1 < -100:
                v = v1
        elif v > 100:
            if v1 > 0:
                v = v1
        elif v > 0:
            if v1 == 1:
                v = v1
        elif v1 >= 0:
            v = v1
        elif only_ep:
            v = v1
    return v


cdef inline bint probe_allowed(Position* pos) noexcept nogil:
    return TABLE_COUNT > 0 and pos.states[pos.ply].castling == 0 \
        and popcount(pos.pieces[0][0] | pos.pieces[1][0]) <= TB_LARGEST


cdef int tb_probe_wdl(Position* pos, int* success) noexcept nogil:
    success[0] = 0
    if not probe_allowed(pos):
        return 0
    success[0] = 1
    return probe_wdl_full(pos, success)


cdef int tb_probe_dtz(Position* pos, int* success) noexcept nogil:
    success[0] = 0
    if not probe_allowed(pos):
        return 0
    success[0] = 1
    return probe_dtz_full(pos, success)

