# Included by core.pyx: the neural evaluation's accumulators and output (the network: nnue_network.pxi).
#
# An accumulator holds, per perspective, the first layer's sums: bias plus the weight column of
# every piece on the board. A move changes two to four inputs, so a child's accumulator is its
# parent's with those columns added and subtracted. The stack is indexed like the position's
# states and each entry remembers the key of the position it was computed for: the evaluation
# finds the nearest ancestor whose entry still matches, replays the moves made since, and never
# needs a hook in do_move or undo_move. A mismatch (a sibling's values, history dropped by
# drop_old_history) only costs a recomputation.
#
# With king buckets a perspective's inputs depend on its own king's square (its slot: the king
# bucket, and whether the board is mirrored). A king move that changes its slot cannot be
# replayed column by column: the position is refreshed instead.

cdef inline int nnue_king_slot(NNUENetwork* net, int perspective, int king_sq) noexcept nogil:
    """The slot of perspective's king on king_sq: its king bucket x 2, plus 1 when the board is
    mirrored left to right (the refresh cache keeps an entry per slot)."""
    if perspective == BLACK:
        king_sq ^= 56
    return net.king_bucket[king_sq] * 2 + (1 if net.king_mirror and (king_sq & 7) >= 4 else 0)


cdef inline bint nnue_king_slots_vary(NNUENetwork* net) noexcept nogil:
    """Whether the network has more than one king slot (king buckets or mirroring)."""
    return net.king_buckets > 1 or net.king_mirror


cdef inline int nnue_perspective_slot(NNUENetwork* net, Position* pos, int perspective) noexcept nogil:
    """The slot of perspective's king in pos (0 for a network without king buckets)."""
    cdef Bitboard king = pos.pieces[perspective][KING]
    if not nnue_king_slots_vary(net) or king == 0:
        return 0
    return nnue_king_slot(net, perspective, lsb(king))


cdef inline bint nnue_king_crosses(NNUENetwork* net, StateInfo* st) noexcept nogil:
    """Whether the move recorded in st is a king move into another slot of its own side."""
    cdef Move m = st.move
    if not nnue_king_slots_vary(net) or m == 0 or (st.moved & 7) != KING:
        return False
    return nnue_king_slot(net, st.moved >> 3, move_from(m)) != nnue_king_slot(net, st.moved >> 3, move_to(m))


cdef inline int nnue_feature(int perspective, int piece, int sq, int slot) noexcept nogil:
    """Input index of a piece code on sq seen from perspective, its king in slot: own pieces
    first, Black's view flipped vertically so both perspectives read the board from their own
    side, mirrored left to right in a mirrored slot, in the inputs of the slot's king bucket."""
    cdef int relative = ((piece >> 3) ^ perspective) & 1
    if perspective == BLACK:
        sq ^= 56
    sq ^= (slot & 1) * 7
    return (slot >> 1) * NNUE_INPUTS + relative * 384 + ((piece & 7) - 1) * 64 + sq


cdef extern from "nnue_kernels.h" nogil:
    void nnue_kernel_add(int16_t* values, const int16_t* column)
    void nnue_kernel_sub(int16_t* values, const int16_t* column)
    void nnue_kernel_add_sub(int16_t* out, const int16_t* source, const int16_t* a, const int16_t* s)
    void nnue_kernel_add_sub_sub(int16_t* out, const int16_t* source, const int16_t* a, const int16_t* s,
                                 const int16_t* t)
    void nnue_kernel_add_add_sub_sub(int16_t* out, const int16_t* source, const int16_t* a, const int16_t* b,
                                     const int16_t* s, const int16_t* t)
    int32_t nnue_kernel_output(const int16_t* us, const int16_t* them, const int16_t* weights, int32_t qa)
    int32_t nnue_kernel_output_narrow(const int16_t* us, const int16_t* them, const int16_t* weights, int16_t qa)


cdef inline const int16_t* nnue_column(NNUENetwork* net, int feature) noexcept nogil:
    return &net.ft_weights[feature * NNUE_HIDDEN]


cdef void nnue_refresh(NNUENetwork* net, Position* pos, NNUEAccumulator* acc) noexcept nogil:
    """Compute both perspectives from scratch: bias plus a column per piece."""
    cdef int perspective, sq, slot
    cdef Bitboard pieces
    for perspective in range(2):
        slot = nnue_perspective_slot(net, pos, perspective)
        memcpy(acc.values[perspective], net.ft_bias, NNUE_HIDDEN * sizeof(int16_t))
        pieces = occupied(pos)
        while pieces:
            sq = lsb(pieces)
            pieces &= pieces - 1
            nnue_kernel_add(acc.values[perspective],
                            nnue_column(net, nnue_feature(perspective, pos.board[sq], sq, slot)))


cdef void nnue_apply_move(NNUENetwork* net, Position* pos, NNUEAccumulator* parent, NNUEAccumulator* child,
                          StateInfo* st, int* slots) noexcept nogil:
    """child = parent after the move recorded in st (a null move changes no input); the move
    leaves each perspective's king in slots[perspective] (nnue_king_crosses is false for it)."""
    cdef Move m = st.move
    cdef int frm, to, flag, moved, arrived, perspective, capsq, rook_from, rook_to, rook, slot
    if m == 0:
        memcpy(child.values, parent.values, sizeof(parent.values))
        return
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    moved = st.moved
    arrived = (moved & 8) + (flag - 2) if flag >= FLAG_PROMO_KNIGHT else moved
    for perspective in range(2):
        slot = slots[perspective]
        if flag == FLAG_CASTLE:
            castle_rook_squares(pos, moved >> 3, to, &rook_from, &rook_to)
            rook = (moved & 8) + ROOK
            nnue_kernel_add_add_sub_sub(
                child.values[perspective], parent.values[perspective],
                nnue_column(net, nnue_feature(perspective, moved, to, slot)),
                nnue_column(net, nnue_feature(perspective, rook, rook_to, slot)),
                nnue_column(net, nnue_feature(perspective, moved, frm, slot)),
                nnue_column(net, nnue_feature(perspective, rook, rook_from, slot)))
        elif st.captured:
            capsq = to
            if flag == FLAG_EN_PASSANT:
                capsq = to - 8 if (moved >> 3) == WHITE else to + 8
            nnue_kernel_add_sub_sub(
                child.values[perspective], parent.values[perspective],
                nnue_column(net, nnue_feature(perspective, arrived, to, slot)),
                nnue_column(net, nnue_feature(perspective, moved, frm, slot)),
                nnue_column(net, nnue_feature(perspective, st.captured, capsq, slot)))
        else:
            nnue_kernel_add_sub(
                child.values[perspective], parent.values[perspective],
                nnue_column(net, nnue_feature(perspective, arrived, to, slot)),
                nnue_column(net, nnue_feature(perspective, moved, frm, slot)))


cdef inline void nnue_cache_columns(NNUENetwork* net, NNUERefreshEntry* entry, int perspective, int slot,
                                   int piece, Bitboard squares, bint add) noexcept nogil:
    """Add (or subtract) the column of piece on each of squares to the entry (one perspective's)."""
    cdef int sq
    while squares:
        sq = lsb(squares)
        squares &= squares - 1
        if add:
            nnue_kernel_add(entry.values, nnue_column(net, nnue_feature(perspective, piece, sq, slot)))
        else:
            nnue_kernel_sub(entry.values, nnue_column(net, nnue_feature(perspective, piece, sq, slot)))


cdef void nnue_refresh_cached(NNUENetwork* net, Position* pos, NNUERefreshCache* cache,
                              NNUEAccumulator* acc) noexcept nogil:
    """Compute both perspectives from the cache's last position refreshed with the same king
    slot: a column per piece that differs from it instead of a column per piece on the board
    (the positions one search refreshes share most of their pieces). The entries then hold
    this position."""
    cdef int perspective, slot, colour, piece_type, piece
    cdef Bitboard now, was
    cdef NNUERefreshEntry* entry
    if cache.serial != net.serial:
        for perspective in range(2):
            for slot in range(NNUE_KING_SLOTS):
                memcpy(cache.entries[perspective][slot].values, net.ft_bias, NNUE_HIDDEN * sizeof(int16_t))
                memset(cache.entries[perspective][slot].pieces, 0, sizeof(cache.entries[perspective][slot].pieces))
        cache.serial = net.serial
    for perspective in range(2):
        slot = nnue_perspective_slot(net, pos, perspective)
        entry = &cache.entries[perspective][slot]
        for colour in range(2):
            for piece_type in range(PAWN, KING + 1):
                now = pos.pieces[colour][piece_type]
                was = entry.pieces[colour][piece_type]
                if now == was:
                    continue
                piece = colour * 8 + piece_type
                nnue_cache_columns(net, entry, perspective, slot, piece, was & ~now, False)
                nnue_cache_columns(net, entry, perspective, slot, piece, now & ~was, True)
                entry.pieces[colour][piece_type] = now
        memcpy(acc.values[perspective], entry.values, sizeof(entry.values))


cdef void nnue_update(NNUENetwork* net, Position* pos, NNUEAccumulator* stack, NNUERefreshCache* cache) noexcept nogil:
    """Bring stack[pos.ply] up to date: from the nearest matching ancestor, or afresh (through
    the refresh cache when there is one). An entry matches when it was computed for that
    position with this network (its key holds both). A king move into another slot on the way
    from the ancestor means afresh too."""
    cdef int ply = pos.ply, base = pos.ply, j
    cdef int slots[2]
    while stack[base].key != pos.states[base].key ^ net.serial:
        if base == 0 or ply - base >= NNUE_MAX_WALK or nnue_king_crosses(net, &pos.states[base]):
            if cache != NULL:
                nnue_refresh_cached(net, pos, cache, &stack[ply])
            else:
                nnue_refresh(net, pos, &stack[ply])
            stack[ply].key = pos.states[ply].key ^ net.serial
            return
        base -= 1
    slots[0] = nnue_perspective_slot(net, pos, 0)
    slots[1] = nnue_perspective_slot(net, pos, 1)
    for j in range(base + 1, ply + 1):
        nnue_apply_move(net, pos, &stack[j - 1], &stack[j], &pos.states[j], slots)
        stack[j].key = pos.states[j].key ^ net.serial


cdef inline int32_t nnue_output(NNUENetwork* net, const int16_t* us, const int16_t* them, int pieces) noexcept nogil:
    """The output layer of the bucket for this many pieces (kings included) on the two halves:
    sum of clamp(v, 0, QA)^2 * w, then the scales."""
    cdef int32_t total
    # network_file.output_bucket: (pieces - 1) * buckets // 32, at most buckets - 1
    cdef int bucket = (pieces - 1) * net.buckets // 32
    cdef const int16_t* weights
    if bucket >= net.buckets:
        bucket = net.buckets - 1
    elif bucket < 0:
        bucket = 0
    weights = &net.out_weights[bucket * 2 * NNUE_HIDDEN]
    if net.narrow_output:
        total = nnue_kernel_output_narrow(us, them, weights, NNUE_QA)
    else:
        total = nnue_kernel_output(us, them, weights, NNUE_QA)
    # C division truncates toward zero; the Python reference does the same.
    return <int32_t>((<int64_t>(total // NNUE_QA) + net.out_bias[bucket]) * NNUE_SCALE // (NNUE_QA * NNUE_QB))


cdef int nnue_evaluate(NNUENetwork* net, Position* pos, NNUEAccumulator* stack,
                       NNUERefreshCache* cache) noexcept nogil:
    """Centipawns from the side to move's view, by net (the caller read its EvalState's net once:
    the evaluator may be given another meanwhile, and it keeps a replaced one); cache may be NULL."""
    cdef NNUEAccumulator* acc
    cdef int32_t score
    nnue_update(net, pos, stack, cache)
    acc = &stack[pos.ply]
    score = nnue_output(net, acc.values[pos.side], acc.values[pos.side ^ 1], popcount(occupied(pos)))
    if score > EVAL_LIMIT:
        return EVAL_LIMIT
    if score < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return score
