# Included by core.pyx, the core's one C unit:
# Static evaluation, tapered between opening and endgame by the non-pawn material on the board.
#
# Every term is computed for each colour from that colour's point of view, as an (opening, endgame)
# pair; the terms Crafty's `evaluation` command names are multiplied by their percent scale; the sum
# White minus Black is interpolated by the phase, with the endgame part multiplied by a scale factor
# for drawish endings (0 = dead draw .. 64 = normal), and returned from the side to move's point of view. The starting points are
# John Stanback's GNU Chess heuristics and Crafty's list of scalable terms; the numbers are ours.

include "eval_tables.pxi"


# ---------------------------------------------------------------- helpers


cdef inline int relative_rank(int colour, int sq) noexcept nogil:
    return (sq >> 3) ^ (7 * colour)


cdef inline int taper(int mg, int eg, int phase) noexcept nogil:
    """Interpolate by phase; C division truncates toward zero, so colours stay symmetric."""
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


cdef inline Bitboard pawn_attacks_of(int colour, Bitboard pawns) noexcept nogil:
    if colour == WHITE:
        return ((pawns << 7) & ~FILE_H_BB) | ((pawns << 9) & ~FILE_A_BB)
    return ((pawns >> 9) & ~FILE_H_BB) | ((pawns >> 7) & ~FILE_A_BB)


cdef inline Bitboard front_fill(int colour, Bitboard b) noexcept nogil:
    """b with every square in front of its squares (toward the colour's promotion rank)."""
    if colour == WHITE:
        b |= b << 8
        b |= b << 16
        b |= b << 32
    else:
        b |= b >> 8
        b |= b >> 16
        b |= b >> 32
    return b


cdef inline int file_set(Bitboard b) noexcept nogil:
    """One bit per file that holds a square of b."""
    b |= b >> 32
    b |= b >> 16
    b |= b >> 8
    return <int>(b & 0xFF)


include "eval_pawns.pxi"


include "eval_king.pxi"


include "eval_endgame.pxi"


include "eval_terms.pxi"


include "eval_pieces.pxi"


# ---------------------------------------------------------------- the evaluation


cdef inline int evaluate_into(Position* pos, EvalState* ev, TermSink* table) noexcept nogil:
    """Return the final score from White's view. Given an EvalTerms table, fill it with every term
    per colour, the phase, scale and totals; given a NULL ScoreSums*, keep only the sums the score
    needs, in a local of this function (never behind a pointer that might alias the position)."""
    cdef ScoreSums own_sums
    cdef TermSink* t = table
    cdef PawnEntry scratch
    cdef PawnEntry* pe = probe_pawns(pos, ev, &scratch)
    cdef Bitboard occ = pos.pieces[0][0] | pos.pieces[1][0]
    cdef Bitboard all_pawns = pos.pieces[0][PAWN] | pos.pieces[1][PAWN]
    cdef Bitboard attacked[2]
    cdef Bitboard attacked_by[2][7]
    cdef int ksq[2]
    cdef int cnt[16]
    cdef int zone_count[2]          # enemy pieces attacking the zone of this colour's king
    cdef int zone_weight[2]
    cdef int zone_hits[2]
    cdef int queen_in_zone[2]
    cdef int unstoppable[2]         # plies until the first unstoppable pawn queens
    cdef int c, them, pt, sq, piece, n, f, r, stop, w, d, danger, pct, mg, eg, phase, score, strong, scale
    cdef Bitboard b, att, area, zone, ring, occ_x, safe, rl, bl, path
    cdef bint whole
    if TermSink is ScoreSums:
        t = &own_sums
    memset(t, 0, sizeof(t[0]))

    for c in range(2):
        ksq[c] = lsb(pos.pieces[c][KING]) if pos.pieces[c][KING] else 0
        for pt in range(1, 7):
            cnt[c * 8 + pt] = popcount(pos.pieces[c][pt])
        attacked_by[c][PAWN] = pe.attacks[c]
        attacked_by[c][KING] = KING_ATTACKS[ksq[c]]
        attacked_by[c][KNIGHT] = attacked_by[c][BISHOP] = attacked_by[c][ROOK] = attacked_by[c][QUEEN] = 0
        zone_count[c] = zone_weight[c] = zone_hits[c] = queen_in_zone[c] = 0
        unstoppable[c] = 1000

    # Material and phase.
    phase = 0
    for c in range(2):
        for pt in range(1, 6):
            add_term(t, T_MATERIAL, c, cnt[c * 8 + pt] * PIECE_MG[pt], cnt[c * 8 + pt] * PIECE_EG[pt])
            phase += cnt[c * 8 + pt] * PHASE_WEIGHT[pt]
    if phase > PHASE_MAX:
        phase = PHASE_MAX

    # Piece-square tables of pawns and kings; the pieces' come with their mobility below. By
    # bitboard, the table row is known without reading the board (a load less on the chain).
    for c in range(2):
        piece = c * 8 + PAWN
        b = pos.pieces[c][PAWN]
        while b:
            sq = lsb(b)
            b &= b - 1
            add_term(t, T_PSQT, c, PSQ_MG[piece][sq], PSQ_EG[piece][sq])
        if pos.pieces[c][KING]:
            add_term(t, T_PSQT, c, PSQ_MG[c * 8 + KING][ksq[c]], PSQ_EG[c * 8 + KING][ksq[c]])

    # Pawn structure and blocked pawns (rams come from the pawn table; pieces in the way do not).
    for c in range(2):
        add_term(t, T_PAWNS, c, pe.structure_mg[c], pe.structure_eg[c])
    b = (pos.pieces[WHITE][PAWN] << 8) & occ & ~all_pawns
    n = popcount(b)
    add_term(t, T_BLOCKED, WHITE, pe.rams_mg[WHITE] - n * PIECE_BLOCKED_MG - CENTRE_HOME_BLOCKED_MG * popcount(
        pos.pieces[WHITE][PAWN] & 0x1800ULL & (occ >> 8)), -n * PIECE_BLOCKED_EG)
    b = (pos.pieces[BLACK][PAWN] >> 8) & occ & ~all_pawns
    n = popcount(b)
    add_term(t, T_BLOCKED, BLACK, pe.rams_mg[BLACK] - n * PIECE_BLOCKED_MG - CENTRE_HOME_BLOCKED_MG * popcount(
        pos.pieces[BLACK][PAWN] & 0x0018000000000000ULL & (occ << 8)), -n * PIECE_BLOCKED_EG)

    # Pieces: piece-square tables, mobility, attacks on the enemy king zone, tropism, rooks, outposts,
    # trapped pieces.
    for c in range(2):
        them = c ^ 1
        area = ~(pos.pieces[c][PAWN] | pos.pieces[c][KING] | pe.attacks[them])
        zone = KING_ZONE[them][ksq[them]]
        ring = KING_ATTACKS[ksq[them]]
        for pt in range(KNIGHT, KING):
            piece = c * 8 + pt
            b = pos.pieces[c][pt]
            if pt == BISHOP:
                occ_x = occ ^ pos.pieces[c][QUEEN]                          # x-ray through own queen
            elif pt == ROOK:
                occ_x = occ ^ (pos.pieces[c][QUEEN] | pos.pieces[c][ROOK])  # and own rooks
            else:
                occ_x = occ
            while b:
                sq = lsb(b)
                b &= b - 1
                if pt == KNIGHT:
                    att = KNIGHT_ATTACKS[sq]
                elif pt == BISHOP:
                    att = bishop_attacks(sq, occ_x)
                elif pt == ROOK:
                    att = rook_attacks(sq, occ_x)
                else:
                    att = rook_attacks(sq, occ) | bishop_attacks(sq, occ)
                attacked_by[c][pt] |= att
                add_term(t, T_PSQT, c, PSQ_MG[piece][sq], PSQ_EG[piece][sq])
                n = popcount(att & area)
                add_term(t, T_MOBILITY, c, MOB_MG[pt][n], MOB_EG[pt][n])
                if att & zone:
                    zone_count[them] += 1
                    zone_weight[them] += ATTACK_WEIGHT[pt]
                    zone_hits[them] += popcount(att & ring)
                    if pt == QUEEN:
                        queen_in_zone[them] = 1
                add_term(t, T_TROPISM, c, TROPISM_WEIGHT[pt] * (7 - DIST[sq][ksq[them]]), 0)
                r = relative_rank(c, sq)
                if pt == ROOK:
                    f = sq & 7
                    if (pe.half_open[c] >> f) & 1:
                        if (pe.half_open[them] >> f) & 1:
                            add_term(t, T_ROOKS, c, ROOK_OPEN_MG, ROOK_OPEN_EG)
                        else:
                            add_term(t, T_ROOKS, c, ROOK_HALF_OPEN_MG, ROOK_HALF_OPEN_EG)
                    if r == 6 and (relative_rank(c, ksq[them]) == 7
                                   or (pos.pieces[them][PAWN] & RANK_BB[6 if c == WHITE else 1])):
                        add_term(t, T_ROOKS, c, ROOK_SEVENTH_MG, ROOK_SEVENTH_EG)
                    # A rook shut in the corner by its own king, which walked instead of castling.
                    if r == 0 and relative_rank(c, ksq[c]) == 0 and n <= 3:
                        d = ksq[c] & 7
                        if (d >= 5 and f > d) or (1 <= d <= 3 and f < d):
                            w = 2 if (pos.states[pos.ply].castling & (3 << (2 * c))) == 0 else 1
                            add_term(t, T_TRAPPED, c, -w * TRAPPED_ROOK_MG, -w * TRAPPED_ROOK_EG)
                elif pt == KNIGHT or pt == BISHOP:
                    if (3 <= r <= 5 and (pe.attacks[c] & square_bb(sq))
                            and (pe.span[them] & square_bb(sq)) == 0):
                        if pt == KNIGHT:
                            add_term(t, T_OUTPOSTS, c, KNIGHT_OUTPOST_MG, KNIGHT_OUTPOST_EG)
                        else:
                            add_term(t, T_OUTPOSTS, c, BISHOP_OUTPOST_MG, BISHOP_OUTPOST_EG)
                    if r >= 5:
                        w = trapped_minor(pos, c, pt, sq ^ (56 * c))
                        add_term(t, T_TRAPPED, c, -w, -w)
        attacked[c] = (attacked_by[c][PAWN] | attacked_by[c][KNIGHT] | attacked_by[c][BISHOP]
                       | attacked_by[c][ROOK] | attacked_by[c][QUEEN] | attacked_by[c][KING])

    # King safety of each colour's own king (a penalty, so these numbers are <= 0).
    for c in range(2):
        them = c ^ 1
        mg = pawn_shelter(pe, pos, c, ksq[c])
        danger = 0
        if zone_count[c] >= 2 or queen_in_zone[c]:
            danger = zone_weight[c] * ATTACKER_PERCENT[zone_count[c] if zone_count[c] < 7 else 7] // 100
            danger += RING_HIT * zone_hits[c]
        # Checks from squares we do not guard; worth half when nothing bears on the king zone yet.
        safe = ~attacked[c] & ~pos.pieces[them][0]
        rl = rook_attacks(ksq[c], occ)
        bl = bishop_attacks(ksq[c], occ)
        d = 0
        if KNIGHT_ATTACKS[ksq[c]] & attacked_by[them][KNIGHT] & safe:
            d += SAFE_CHECK[KNIGHT]
        if bl & attacked_by[them][BISHOP] & safe:
            d += SAFE_CHECK[BISHOP]
        if rl & attacked_by[them][ROOK] & safe:
            d += SAFE_CHECK[ROOK]
        if (rl | bl) & attacked_by[them][QUEEN] & safe:
            d += SAFE_CHECK[QUEEN]
        danger += d if zone_count[c] else d // 2
        if pos.pieces[them][QUEEN] == 0:
            danger //= 2
        if danger > DANGER_MAX:
            danger = DANGER_MAX
        add_term(t, T_KING, c, mg - danger, -(danger // 8))

    # Passed pawns.
    for c in range(2):
        them = c ^ 1
        b = pe.passed[c]
        while b:
            sq = lsb(b)
            b &= b - 1
            r = relative_rank(c, sq)
            add_term(t, T_PASSED, c, PASSED_MG[r], PASSED_EG[r])
            stop = sq + 8 if c == WHITE else sq - 8
            path = FORWARD_FILE[c][sq]
            w = PASSED_WEIGHT[r]
            if w:
                d = DIST[ksq[them]][stop]
                add_term(t, T_PASSED, c, 0, (PASSED_ENEMY_KING_EG * (d if d < 5 else 5)
                                             - PASSED_OWN_KING_EG * DIST[ksq[c]][stop]) * w)
                if (path & occ) == 0:
                    add_term(t, T_PASSED, c, PASSED_FREE_MG * w, PASSED_FREE_EG * w)
                    if (path & attacked[them]) == 0:
                        add_term(t, T_PASSED, c, 0, PASSED_SAFE_PATH_EG * w)
                    elif (square_bb(stop) & attacked[them]) == 0:
                        add_term(t, T_PASSED, c, 0, PASSED_SAFE_STOP_EG * w)
            # Rule of the square, when the enemy has only king and pawns.
            if (cnt[them * 8 + KNIGHT] + cnt[them * 8 + BISHOP] + cnt[them * 8 + ROOK] + cnt[them * 8 + QUEEN] == 0
                    and (path & pos.pieces[c][0]) == 0):
                n = 7 - r if r > 1 else 5                       # moves to queen (double step from home)
                f = (sq & 7) + (56 if c == WHITE else 0)        # promotion square
                d = DIST[ksq[them]][f] - (1 if pos.side == them else 0)
                if d > n:
                    n = 2 * n - (1 if pos.side == c else 0)     # plies until it queens
                    if n < unstoppable[c]:
                        unstoppable[c] = n
    for c in range(2):
        if unstoppable[c] < 1000 and unstoppable[c] + 2 < unstoppable[c ^ 1]:
            add_term(t, T_PASSED, c, 0, UNSTOPPABLE_EG)

    # Bishop pair.
    for c in range(2):
        if (pos.pieces[c][BISHOP] & DARK_SQUARES) and (pos.pieces[c][BISHOP] & ~DARK_SQUARES):
            add_term(t, T_BISHOP_PAIR, c, BISHOP_PAIR_MG, BISHOP_PAIR_EG)

    # Mating knowledge against a bare king.
    for c in range(2):
        if pos.pieces[c ^ 1][0] == pos.pieces[c ^ 1][KING] and pos.pieces[c][0] != pos.pieces[c][KING]:
            d = endgame_bonus(pos, c, cnt)
            add_term(t, T_ENDGAME, c, d, d)

    for c in range(2):
        add_threats(pos, t, c, attacked, attacked_by, occ)

    add_term(t, T_TEMPO, pos.side, TEMPO_MG, TEMPO_EG)

    # Scales (percent), then the tapered sum.
    for c in range(2):
        scale_term(t, T_PAWNS, c, ev.pscale)
        scale_term(t, T_BLOCKED, c, ev.bscale)
        scale_term(t, T_PASSED, c, ev.ppscale)
        scale_term(t, T_TROPISM, c, ev.tropism)
        pct = ev.kscale
        if c != ev.engine_side:
            pct = pct * (100 + ev.asymmetry) // 100
        scale_term(t, T_KING, c, pct)
    net_for_white(t, &mg, &eg)
    score = taper(mg, eg, phase)
    # The scale factor belongs to the side ahead in the endgame part. Drawn material shrinks the
    # whole score (0 is a dead draw); opposite bishops shrink only the endgame part, so with
    # queens and rooks still on, an attack keeps its value.
    strong = WHITE if eg > 0 or (eg == 0 and score > 0) else BLACK
    scale = scale_factor(pos, strong, cnt, &whole)
    if TermSink is EvalTerms:
        t.phase = phase
        t.unscaled = score
        t.scale = scale
    if scale == 0:
        score = 0
    elif scale != SCALE_NORMAL:
        if whole:
            score = score * scale // SCALE_NORMAL
        else:
            score = taper(mg, eg * scale // SCALE_NORMAL, phase)
    if score > EVAL_LIMIT:
        score = EVAL_LIMIT
    elif score < -EVAL_LIMIT:
        score = -EVAL_LIMIT
    if TermSink is EvalTerms:
        t.score = score
    return score


cdef int evaluate_terms(Position* pos, EvalState* ev, EvalTerms* t) noexcept nogil:
    """Fill t with every term per colour and return the final score from White's view."""
    return evaluate_into(pos, ev, t)


cdef enum:
    EVAL_CACHE_ENTRIES = 1 << 16   # 1 MB a thread: the quiescence search's working set fits


cdef inline uint64_t settings_key(EvalState* ev) noexcept nogil:
    """The evaluation settings packed into distinct bits and spread by an odd multiplier: cached
    scores of one setting never answer for another."""
    cdef uint64_t packed = <uint64_t>(ev.asymmetry + 128)
    packed = (packed << 10) | <uint64_t>ev.bscale
    packed = (packed << 10) | <uint64_t>ev.kscale
    packed = (packed << 10) | <uint64_t>ev.tropism
    packed = (packed << 10) | <uint64_t>ev.pscale
    packed = (packed << 10) | <uint64_t>ev.ppscale
    packed = (packed << 1) | <uint64_t>(ev.engine_side & 1)
    return packed * 0x9E3779B97F4A7C15ULL


cdef inline int evaluate_uncached(Position* pos, EvalState* ev) noexcept nogil:
    """The final score from White's view, computed afresh (what the evaluation cache keeps)."""
    return evaluate_into(pos, ev, <ScoreSums*>NULL)


cdef inline int network_with_material_scale(Position* pos, int score) noexcept nogil:
    """The network's score (side to move's view) with the hand-written evaluation's facts about
    drawn material applied to it: a lone minor, two knights, a rook against a minor, a rook pawn
    the defending king holds shrink the whole score as they shrink the hand-written one. Such
    endings are rare in the games a network learns from, and a small network learns them badly."""
    cdef int white = score if pos.side == WHITE else -score
    cdef int strong = WHITE if white > 0 else BLACK
    cdef Bitboard pawns = pos.pieces[strong][PAWN]
    cdef int cnt[16]
    cdef int scale, colour, piece_type
    cdef bint whole = False
    if (pawns & ~FILE_A_BB) and (pawns & ~FILE_H_BB):
        return score   # pawns on more than one rook file: none of those facts can apply
    for colour in range(2):
        for piece_type in range(PAWN, KING + 1):
            cnt[colour * 8 + piece_type] = popcount(pos.pieces[colour][piece_type])
    scale = scale_factor(pos, strong, cnt, &whole)
    if not whole or scale == SCALE_NORMAL:
        return score   # opposite bishops concern the endgame part of the hand-written score only
    return score * scale // SCALE_NORMAL


cdef bint nnue_state_ready(EvalState* ev) noexcept nogil:
    """Whether the thread's accumulator stack and refresh cache exist, made at the first use."""
    if ev.accumulators == NULL:
        ev.accumulators = <NNUEAccumulator*>calloc(MAX_STATES, sizeof(NNUEAccumulator))
    if ev.refresh_cache == NULL:
        ev.refresh_cache = <NNUERefreshCache*>calloc(1, sizeof(NNUERefreshCache))
    return ev.accumulators != NULL and ev.refresh_cache != NULL


cdef void prepare_evaluation(Position* pos, EvalState* ev) noexcept nogil:
    """Bring the network's accumulator of this position up to date without evaluating it: for a
    node that searches its moves but took its static evaluation from the table (or is in
    check). Its children then evaluate by one incremental step from it; otherwise they find no
    computed ancestor and refresh, which costs a column per differing piece. The scores are the
    same either way (the sums are exact); nothing to do for the hand-written evaluation."""
    cdef NNUENetwork* net = ev.net
    if net != NULL and nnue_state_ready(ev):
        nnue_update(net, pos, ev.accumulators, ev.refresh_cache)


cdef int evaluate(Position* pos, EvalState* ev) noexcept nogil:
    """Centipawns from the side to move's point of view (negamax convention). The search meets
    the same position many times (transpositions, the quiescence search after a null window):
    a small table per thread keeps each score, which depends only on the position (its key has
    the pieces, side, castling and e.p. square) and on the settings mixed into the key."""
    cdef int score
    cdef uint64_t key
    cdef EvalCacheEntry* slot
    cdef NNUENetwork* net = ev.net   # read once: the evaluation uses this one throughout
    if net != NULL:
        # The network's accumulators make a cache of little use; made at the first use.
        if nnue_state_ready(ev):
            return network_with_material_scale(pos, nnue_evaluate(net, pos, ev.accumulators, ev.refresh_cache))
    key = pos.states[pos.ply].key ^ settings_key(ev)
    if ev.eval_cache != NULL and key != 0:
        slot = &ev.eval_cache[key & ev.eval_cache_mask]
        if slot.key == key:
            score = slot.score
        else:
            score = evaluate_uncached(pos, ev)
            slot.key = key
            slot.score = score
    else:
        score = evaluate_uncached(pos, ev)
    return score if pos.side == WHITE else -score


# ---------------------------------------------------------------- state management


cdef inline void set_defaults(EvalState* ev) noexcept nogil:
    ev.asymmetry = 0
    ev.bscale = ev.kscale = ev.tropism = ev.pscale = ev.ppscale = 100
    ev.engine_side = WHITE


cdef int resize_pawn_table(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil:
    """Replace the pawn table by a cleared one of the largest power of two of entries that fits
    (at least one); keeps the old table and returns -1 if out of memory."""
    cdef size_t entries = 1
    cdef PawnEntry* table
    while entries * 2 * sizeof(PawnEntry) <= pawn_hash_bytes:
        entries *= 2
    table = <PawnEntry*>calloc(entries, sizeof(PawnEntry))
    if table == NULL:
        return -1
    free(ev.pawn_table)
    ev.pawn_table = table
    ev.pawn_mask = entries - 1
    ev.pawn_probes = ev.pawn_hits = 0
    if ev.eval_cache == NULL:   # made with the first pawn table, of a fixed size
        ev.eval_cache = <EvalCacheEntry*>calloc(EVAL_CACHE_ENTRIES, sizeof(EvalCacheEntry))
        if ev.eval_cache == NULL:
            return -1
        ev.eval_cache_mask = EVAL_CACHE_ENTRIES - 1
    return 0


cdef int eval_state_init(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil:
    """Default scales, a cleared pawn table of at most pawn_hash_bytes and a cleared evaluation
    cache; -1 if out of memory."""
    memset(ev, 0, sizeof(EvalState))
    set_defaults(ev)
    return resize_pawn_table(ev, pawn_hash_bytes)


cdef void eval_state_clear(EvalState* ev) noexcept nogil:
    if ev.pawn_table != NULL:
        memset(ev.pawn_table, 0, (ev.pawn_mask + 1) * sizeof(PawnEntry))
    if ev.eval_cache != NULL:
        memset(ev.eval_cache, 0, (ev.eval_cache_mask + 1) * sizeof(EvalCacheEntry))
    ev.pawn_probes = ev.pawn_hits = 0


cdef void eval_state_free(EvalState* ev) noexcept nogil:
    free(ev.accumulators)
    ev.accumulators = NULL
    free(ev.refresh_cache)
    ev.refresh_cache = NULL
    free(ev.pawn_table)
    ev.pawn_table = NULL
    ev.pawn_mask = 0
    free(ev.eval_cache)
    ev.eval_cache = NULL
    ev.eval_cache_mask = 0


include "evaluator.pxi"
