# Included by core.pyx: the neural evaluation's accumulators and output (the network: nnue_network.pxi).
#
# An accumulator holds, per perspective, the first layer's sums: bias plus the weight column of
# every piece on the board. A move changes two to four inputs, so a child's accumulator is its
# parent's with those columns added and subtracted. The stack is indexed like the position's
# states and each entry remembers the key of the position it was computed for: the evaluation
# finds the nearest ancestor whose entry still matches, replays the moves made since, and never
# needs a hook in do_move or undo_move. A mismatch (a sibling's values, history dropped by
# drop_old_history) only costs a recomputation.

cdef inline int nnue_feature(int perspective, int piece, int sq) noexcept nogil:
    """Input index of a piece code on sq seen from perspective: own pieces first, Black's view
    flipped vertically so both perspectives read the board from their own side."""
    cdef int relative = ((piece >> 3) ^ perspective) & 1
    if perspective == BLACK:
        sq ^= 56
    return relative * 384 + ((piece & 7) - 1) * 64 + sq


cdef extern from "nnue_kernels.h" nogil:
    enum: PONDEROSA_NNUE_HIDDEN
    void nnue_kernel_add(int16_t* values, const int16_t* column)
    void nnue_kernel_sub(int16_t* values, const int16_t* column)
    void nnue_kernel_add_sub(int16_t* out, const int16_t* source, const int16_t* a, const int16_t* s)
    void nnue_kernel_add_sub_sub(int16_t* out, const int16_t* source, const int16_t* a, const int16_t* s,
                                 const int16_t* t)
    void nnue_kernel_add_add_sub_sub(int16_t* out, const int16_t* source, const int16_t* a, const int16_t* b,
                                     const int16_t* s, const int16_t* t)
    int32_t nnue_kernel_output(const int16_t* us, const int16_t* them, const int16_t* weights, int32_t qa)
    int32_t nnue_kernel_output_narrow(const int16_t* us, const int16_t* them, const int16_t* weights, int16_t qa)

if PONDEROSA_NNUE_HIDDEN != NNUE_HIDDEN:
    raise ImportError("nnue_kernels.h and core.pxd disagree on the network's hidden size")


cdef inline const int16_t* nnue_column(NNUENetwork* net, int feature) noexcept nogil:
    return &net.ft_weights[feature * NNUE_HIDDEN]


cdef void nnue_refresh(NNUENetwork* net, Position* pos, NNUEAccumulator* acc) noexcept nogil:
    """Compute both perspectives from scratch: bias plus a column per piece."""
    cdef int perspective, sq
    cdef Bitboard pieces
    for perspective in range(2):
        memcpy(acc.values[perspective], net.ft_bias, NNUE_HIDDEN * sizeof(int16_t))
        pieces = occupied(pos)
        while pieces:
            sq = lsb(pieces)
            pieces &= pieces - 1
            nnue_kernel_add(acc.values[perspective], nnue_column(net, nnue_feature(perspective, pos.board[sq], sq)))


cdef void nnue_apply_move(NNUENetwork* net, Position* pos, NNUEAccumulator* parent, NNUEAccumulator* child,
                          StateInfo* st) noexcept nogil:
    """child = parent after the move recorded in st (a null move changes no input)."""
    cdef Move m = st.move
    cdef int frm, to, flag, moved, arrived, perspective, capsq, rook_from, rook_to, rook
    if m == 0:
        memcpy(child.values, parent.values, sizeof(parent.values))
        return
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    moved = st.moved
    arrived = (moved & 8) + (flag - 2) if flag >= FLAG_PROMO_KNIGHT else moved
    for perspective in range(2):
        if flag == FLAG_CASTLE:
            castle_rook_squares(pos, moved >> 3, to, &rook_from, &rook_to)
            rook = (moved & 8) + ROOK
            nnue_kernel_add_add_sub_sub(
                child.values[perspective], parent.values[perspective],
                nnue_column(net, nnue_feature(perspective, moved, to)), nnue_column(net, nnue_feature(perspective, rook, rook_to)),
                nnue_column(net, nnue_feature(perspective, moved, frm)),
                nnue_column(net, nnue_feature(perspective, rook, rook_from)))
        elif st.captured:
            capsq = to
            if flag == FLAG_EN_PASSANT:
                capsq = to - 8 if (moved >> 3) == WHITE else to + 8
            nnue_kernel_add_sub_sub(
                child.values[perspective], parent.values[perspective],
                nnue_column(net, nnue_feature(perspective, arrived, to)), nnue_column(net, nnue_feature(perspective, moved, frm)),
                nnue_column(net, nnue_feature(perspective, st.captured, capsq)))
        else:
            nnue_kernel_add_sub(
                child.values[perspective], parent.values[perspective],
                nnue_column(net, nnue_feature(perspective, arrived, to)), nnue_column(net, nnue_feature(perspective, moved, frm)))


cdef inline void nnue_cache_columns(NNUENetwork* net, NNUERefreshCache* cache, int piece, Bitboard squares,
                                   bint add) noexcept nogil:
    """Add (or subtract) the column of piece on each of squares to both of the cache's perspectives."""
    cdef int perspective, sq
    while squares:
        sq = lsb(squares)
        squares &= squares - 1
        for perspective in range(2):
            if add:
                nnue_kernel_add(cache.values[perspective], nnue_column(net, nnue_feature(perspective, piece, sq)))
            else:
                nnue_kernel_sub(cache.values[perspective], nnue_column(net, nnue_feature(perspective, piece, sq)))


cdef void nnue_refresh_cached(NNUENetwork* net, Position* pos, NNUERefreshCache* cache,
                              NNUEAccumulator* acc) noexcept nogil:
    """Compute both perspectives from the cache's last refreshed position: a column per piece
    that differs from it instead of a column per piece on the board (the positions one search
    refreshes share most of their pieces). The cache then holds this position."""
    cdef int perspective, colour, piece_type, piece
    cdef Bitboard now, was
    if cache.serial != net.serial:
        for perspective in range(2):
            memcpy(cache.values[perspective], net.ft_bias, NNUE_HIDDEN * sizeof(int16_t))
        memset(cache.pieces, 0, sizeof(cache.pieces))
        cache.serial = net.serial
    for colour in range(2):
        for piece_type in range(PAWN, KING + 1):
            now = pos.pieces[colour][piece_type]
            was = cache.pieces[colour][piece_type]
            if now == was:
                continue
            piece = colour * 8 + piece_type
            nnue_cache_columns(net, cache, piece, was & ~now, False)
            nnue_cache_columns(net, cache, piece, now & ~was, True)
            cache.pieces[colour][piece_type] = now
    memcpy(acc.values, cache.values, sizeof(acc.values))


cdef void nnue_update(NNUENetwork* net, Position* pos, NNUEAccumulator* stack, NNUERefreshCache* cache) noexcept nogil:
    """Bring stack[pos.ply] up to date: from the nearest matching ancestor, or afresh (through
    the refresh cache when there is one). An entry matches when it was computed for that
    position with this network (its key holds both)."""
    cdef int ply = pos.ply, base = pos.ply, j
    while stack[base].key != pos.states[base].key ^ net.serial:
        if base == 0 or ply - base >= NNUE_MAX_WALK:
            if cache != NULL:
                nnue_refresh_cached(net, pos, cache, &stack[ply])
            else:
                nnue_refresh(net, pos, &stack[ply])
            stack[ply].key = pos.states[ply].key ^ net.serial
            return
        base -= 1
    for j in range(base + 1, ply + 1):
        nnue_apply_move(net, pos, &stack[j - 1], &stack[j], &pos.states[j])
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
