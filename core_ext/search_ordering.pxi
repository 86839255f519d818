# Included by search.pxi (part of core.pyx, the core's one C unit: move ordering and the history updates); the names are module-level there.

cdef void score_moves(SearchState* s, Move* moves, int* scores, int n, Move hash_move, int ply) noexcept nogil:
    """Ordering scores: hash move, winning and even captures (by victim, then capture history),
    killers, the counter move, quiets by their history statistics, losing captures."""
    cdef Position* pos = &s.pos
    cdef History* h = &s.history
    cdef int i, victim, attacker, flag, piece, to
    cdef int before = s.moved[ply + 1], before2 = s.moved[ply]
    cdef Move m, counter = h.counter[before] if before else 0
    for i in range(n):
        m = moves[i]
        flag = move_flag(m)
        piece = pos.board[move_from(m)]
        to = move_to(m)
        if (m & 0xFFFF) == (hash_move & 0xFFFF) and hash_move:
            scores[i] = SCORE_HASH
        elif is_capture(pos, m) or flag >= FLAG_PROMO_KNIGHT:
            victim = captured_value(pos, m)
            attacker = piece & 7
            if flag == FLAG_PROMO_QUEEN:
                victim += SEE_VALUE[QUEEN]
            elif flag >= FLAG_PROMO_KNIGHT:
                scores[i] = SCORE_BAD_CAPTURE - 1000   # under-promotions last
                continue
            # Most valuable victim first, then what such captures achieved before; a capture by
            # a more valuable piece is marked (lowest bit) for a static exchange check when it
            # comes up (pick_next).
            scores[i] = SCORE_GOOD_CAPTURE \
                + (victim * 64 + h.capture[piece][to][captured_type(pos, m)] + CAPTURE_SCORE_OFFSET) * 2 \
                + (1 if SEE_VALUE[attacker] > victim else 0)
        elif m == s.killers[ply][0]:
            scores[i] = SCORE_KILLER + 1
        elif m == s.killers[ply][1]:
            scores[i] = SCORE_KILLER
        elif m == counter:
            scores[i] = SCORE_COUNTER
        else:
            scores[i] = quiet_score(h, piece, to, before, before2)
    # Past the last score, what best_scored's four-wide reads may see: lower than any score.
    for i in range(n, n + SCORE_SENTINELS):
        scores[i] = SCORE_SENTINEL


cdef extern from *:
    """
    #include <limits.h>
    #if defined(__SSE4_1__)
    #include <smmintrin.h>
    #endif
    /* The index of the highest score in scores[start..n), the first one among equals. The
       selection sort runs this at every pick: with forty quiet moves to order it was a fifth of
       the search's instructions. With SSE4.1 (the x86-64-v2 baseline) four scores a step: their
       maximum, then the first four holding it. The chunks may read past n: score_moves puts
       SCORE_SENTINELS there, below every real score. Without SSE4.1, one pass over each score
       packed with its index reversed into a 64-bit key, a plain maximum without branches. */
    static inline int ponderosa_best_scored(const int* scores, int start, int n) {
    #if defined(__SSE4_1__)
        __m128i best = _mm_set1_epi32(INT_MIN);
        for (int i = start; i < n; i += 4)
            best = _mm_max_epi32(best, _mm_loadu_si128((const __m128i*)(scores + i)));
        best = _mm_max_epi32(best, _mm_shuffle_epi32(best, 0x4E));
        best = _mm_max_epi32(best, _mm_shuffle_epi32(best, 0xB1));
        for (int i = start; ; i += 4) {
            __m128i equal = _mm_cmpeq_epi32(best, _mm_loadu_si128((const __m128i*)(scores + i)));
            int mask = _mm_movemask_ps(_mm_castsi128_ps(equal));
            if (mask)
                return i + __builtin_ctz(mask);
        }
    #else
        int64_t best = INT64_MIN;
        for (int i = start; i < n; i++) {
            int64_t key = (int64_t)scores[i] * 256 + (255 - i);
            best = key > best ? key : best;
        }
        return 255 - (int)(best & 255);
    #endif
    }
    """
    int best_scored "ponderosa_best_scored"(const int* scores, int start, int n) noexcept nogil


cdef inline Move pick_next(Position* pos, Move* moves, int* scores, int start, int n) noexcept nogil:
    """Selection sort step: bring the best-scored remaining move to `start`.

    A capture marked for checking that loses material by exchange drops to the losing band
    and the pick is made again, so SEE runs only on captures that are actually reached."""
    cdef int best, tmp_score
    cdef Move tmp
    while True:
        best = best_scored(scores, start, n)
        if best != start:
            tmp = moves[start]
            moves[start] = moves[best]
            moves[best] = tmp
            tmp_score = scores[start]
            scores[start] = scores[best]
            scores[best] = tmp_score
        if scores[start] >= SCORE_GOOD_CAPTURE and scores[start] < SCORE_HASH and (scores[start] & 1):
            if see(pos, moves[start]) >= 0:
                scores[start] -= 1
            else:
                scores[start] = SCORE_BAD_CAPTURE + (scores[start] - SCORE_GOOD_CAPTURE)
                continue
        return moves[start]


cdef inline void update_pv(SearchState* s, int ply, Move m) noexcept nogil:
    cdef int i
    s.pv[ply][ply] = m
    for i in range(ply + 1, s.pv_length[ply + 1]):
        s.pv[ply][i] = s.pv[ply + 1][i]
    s.pv_length[ply] = s.pv_length[ply + 1] if s.pv_length[ply + 1] > ply + 1 else ply + 1


cdef inline int history_bonus(int depth) noexcept nogil:
    cdef int plies = depth // ONE_PLY
    return 16 * (plies * plies if plies < 20 else 400)


cdef void update_quiet_stats(SearchState* s, Move best, Move* quiets, int quiet_count,
                             int ply, int depth) noexcept nogil:
    """A quiet move cut off: it becomes a killer and the counter move of the move before, and
    gains in every history table; the quiet moves searched before it lose as much."""
    cdef Position* pos = &s.pos
    cdef History* h = &s.history
    cdef int bonus = history_bonus(depth)
    cdef int before = s.moved[ply + 1], before2 = s.moved[ply]
    cdef int i
    if s.killers[ply][0] != best:
        s.killers[ply][1] = s.killers[ply][0]
        s.killers[ply][0] = best
    if before:
        h.counter[before] = best
    add_quiet(h, pos.board[move_from(best)], move_to(best), before, before2, bonus)
    for i in range(quiet_count):
        if quiets[i] != best:
            add_quiet(h, pos.board[move_from(quiets[i])], move_to(quiets[i]), before, before2, -bonus)


cdef void update_capture_stats(SearchState* s, Move best, Move* captures, int capture_count,
                               int depth) noexcept nogil:
    """After a cut-off: the capture that made it (best, or 0 for a quiet move) gains, the captures
    searched without cutting off lose."""
    cdef Position* pos = &s.pos
    cdef int bonus = history_bonus(depth)
    cdef int i
    cdef Move m
    if best:
        add_capture(&s.history, pos.board[move_from(best)], move_to(best), captured_type(pos, best), bonus)
    for i in range(capture_count):
        m = captures[i]
        if m != best:
            add_capture(&s.history, pos.board[move_from(m)], move_to(m), captured_type(pos, m), -bonus)


cdef inline void prefetch_child(SearchState* s, Move m) noexcept nogil:
    """Start loading the table bucket of the position after m before the move is made: the
    child probes it first thing, and the load from memory takes longer than making the move.
    The key is the usual one (piece moved, piece taken, side, e.p. square gone); castling
    rights, promotions, e.p. captures and a double push's new e.p. square are left out, so for
    those a wrong bucket is loaded, which only wastes the prefetch (the search prefetches the
    exact key again once the move is made)."""
    cdef Position* pos = &s.pos
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef int frm = move_from(m), to = move_to(m)
    cdef int piece = pos.board[frm]
    cdef uint64_t key = st.key ^ Z_TURN ^ Z_PSQ[piece][frm] ^ Z_PSQ[piece][to] ^ Z_PSQ[pos.board[to]][to]
    if st.ep_square != NO_SQUARE:
        key ^= Z_EP[st.ep_square & 7]
    tt_prefetch(s.tt, key)
