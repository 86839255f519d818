# Included by search.pxi (part of core.pyx, the core's one C unit: table scores, draws, tablebase cuts and move classes); the names are module-level there.

cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    """Mate and tablebase-win scores are stored as distance from this node, not from the root."""
    if score >= TB_WIN_BOUND:
        return score + ply
    if score <= -TB_WIN_BOUND:
        return score - ply
    return score


cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score >= TB_WIN_BOUND:
        return score - ply
    if score <= -TB_WIN_BOUND:
        return score + ply
    return score


cdef inline int draw_value(SearchState* s) noexcept nogil:
    return s.draw_score if s.pos.side == s.root_side else -s.draw_score


cdef inline bint is_draw(Position* pos) noexcept nogil:
    """Fifty-move rule, repetition since the last irreversible move, or bare minor pieces."""
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef int i = pos.ply - 4
    cdef int oldest = pos.ply - st.halfmove
    cdef Bitboard heavy, minors
    if st.halfmove >= 100:
        return True
    while i >= oldest and i >= 0:
        if pos.states[i].key == st.key:
            return True
        i -= 2
    heavy = (pos.pieces[0][PAWN] | pos.pieces[1][PAWN] | pos.pieces[0][ROOK] | pos.pieces[1][ROOK]
             | pos.pieces[0][QUEEN] | pos.pieces[1][QUEEN])
    if not heavy:
        # K vs K, or a single knight or bishop on the board: no mate is possible.
        minors = (pos.pieces[0][KNIGHT] | pos.pieces[1][KNIGHT] | pos.pieces[0][BISHOP] | pos.pieces[1][BISHOP])
        if (minors & (minors - 1)) == 0:
            return True
    return False


cdef inline bint tablebase_cut(SearchState* s, int ply, int depth, int alpha, int beta, int* value,
                               int* bound_out) noexcept nogil:
    """After a capture or pawn move, the WDL table bounds the score: a win is at least a
    tablebase win, a loss at most a tablebase loss, a draw (also by the 50-move rule) exact.
    True when that settles the node; the result is kept in the hash table. bound_out gets
    the bound (0 when no table answered) for a principal-variation node to use."""
    cdef Position* pos = &s.pos
    cdef int ok, wdl, bound, plies
    bound_out[0] = 0
    wdl = tb_probe_wdl(pos, &ok)
    if not ok:
        return False
    s.tbhits += 1
    if wdl >= 2:
        value[0] = TB_WIN_SCORE - ply
        bound = BOUND_LOWER
    elif wdl <= -2:
        value[0] = -TB_WIN_SCORE + ply
        bound = BOUND_UPPER
    else:
        value[0] = draw_value(s) + wdl   # cursed wins and blessed losses are draws by a hair
        bound = BOUND_EXACT
    bound_out[0] = bound
    if bound == BOUND_EXACT or (bound == BOUND_LOWER and value[0] >= beta) \
            or (bound == BOUND_UPPER and value[0] <= alpha):
        plies = depth // ONE_PLY + 6
        tt_store(s.tt, pos.states[pos.ply].key, 0, score_to_tt(value[0], ply), EVAL_NONE,
                 plies if plies < MAX_PLY - 1 else MAX_PLY - 1, bound)
        return True
    return False


cdef inline bint has_non_pawn_material(Position* pos, int side) noexcept nogil:
    return (pos.pieces[side][KNIGHT] | pos.pieces[side][BISHOP] | pos.pieces[side][ROOK]
            | pos.pieces[side][QUEEN]) != 0


cdef inline bint is_capture(Position* pos, Move m) noexcept nogil:
    # (a Chess960 castling move may go to its own rook's square: no capture)
    return (pos.board[move_to(m)] != 0 and move_flag(m) != FLAG_CASTLE) or move_flag(m) == FLAG_EN_PASSANT


cdef inline int captured_type(Position* pos, Move m) noexcept nogil:
    """Type of the piece m captures (0 for none; a pawn for en passant)."""
    if move_flag(m) == FLAG_EN_PASSANT:
        return PAWN
    if move_flag(m) == FLAG_CASTLE:
        return 0
    return pos.board[move_to(m)] & 7


cdef inline bint is_quiet(Position* pos, Move m) noexcept nogil:
    return captured_type(pos, m) == 0 and move_flag(m) < FLAG_PROMO_KNIGHT


cdef inline int captured_value(Position* pos, Move m) noexcept nogil:
    return SEE_VALUE[captured_type(pos, m)]


cdef inline bint game_ends_here(Position* pos) noexcept nogil:
    """The game is over in pos by a rule a match runner applies: the fiftieth move (100 plies)
    or a threefold repetition (the position twice before, since the last capture or pawn move).
    Checkmate and stalemate show as no legal moves."""
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef int i = pos.ply - 2
    cdef int oldest = pos.ply - st.halfmove
    cdef int seen = 0
    if st.halfmove >= 100:
        return True
    while i >= oldest and i >= 0:
        if pos.states[i].key == st.key:
            seen += 1
            if seen == 2:
                return True
        i -= 2
    return False


cdef int playable_length(Position* root, Move* line, int length) noexcept nogil:
    """How many moves of line, from root, a game can play: it ends with the move that mates,
    stalemates, repeats a position the third time or makes the hundredth ply without a capture
    or pawn move. A move that is not legal ends the line before it (a helper's stale PV)."""
    cdef Position* pos = <Position*>malloc(sizeof(Position))
    cdef Move moves[MAX_MOVES]
    cdef int i, j, n, played = length
    if pos is NULL:
        return length
    memcpy(pos, root, sizeof(Position))
    for i in range(length):
        n = generate_legal(pos, moves)
        for j in range(n):
            if moves[j] == line[i]:
                break
        else:
            played = i
            break
        do_move(pos, line[i])
        if game_ends_here(pos):
            played = i + 1
            break
    free(pos)
    return played
