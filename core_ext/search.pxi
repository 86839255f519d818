# Included by core.pyx, the core's one C unit:
# Principal variation search with a transposition table, null move, reductions and
# a quiescence search; one iteration runs without the GIL and stops on a C-level flag.

cdef extern from *:
    """
    #define PONDEROSA_ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define PONDEROSA_ATOMIC_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
    #define PONDEROSA_ATOMIC_ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
    #define PONDEROSA_LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
    #define PONDEROSA_STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
    #define PONDEROSA_FENCE_ACQUIRE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
    #define PONDEROSA_FENCE_RELEASE() __atomic_thread_fence(__ATOMIC_RELEASE)
    """
    int PONDEROSA_LOAD_ACQUIRE(int* p) noexcept nogil
    void PONDEROSA_STORE_RELEASE(int* p, int v) noexcept nogil
    void PONDEROSA_FENCE_ACQUIRE() noexcept nogil
    void PONDEROSA_FENCE_RELEASE() noexcept nogil
    int PONDEROSA_ATOMIC_LOAD(int* p) noexcept nogil
    void PONDEROSA_ATOMIC_STORE(int* p, int v) noexcept nogil
    uint64_t atomic_load_u64 "PONDEROSA_ATOMIC_LOAD"(uint64_t* p) noexcept nogil
    void atomic_store_u64 "PONDEROSA_ATOMIC_STORE"(uint64_t* p, uint64_t v) noexcept nogil
    uint64_t atomic_add_u64 "PONDEROSA_ATOMIC_ADD"(uint64_t* p, uint64_t v) noexcept nogil
    int64_t atomic_load_i64 "PONDEROSA_ATOMIC_LOAD"(int64_t* p) noexcept nogil
    void atomic_store_i64 "PONDEROSA_ATOMIC_STORE"(int64_t* p, int64_t v) noexcept nogil

# Move-ordering bands: hash move, good captures, killers, quiets by history, bad captures.
cdef int SCORE_HASH = 1 << 30
cdef int SCORE_GOOD_CAPTURE = 1 << 28
cdef int SCORE_KILLER = 1 << 27
cdef int SCORE_COUNTER = SCORE_KILLER - 1
cdef int CAPTURE_SCORE_OFFSET = 2 * HISTORY_MAX   # keeps a capture's score inside its band
cdef int SCORE_BAD_CAPTURE = -(1 << 27)
cdef int SCORE_SENTINEL = -2147483647 - 1   # below every score (INT_MIN); after the last one (score_moves)
cdef int SCORE_SENTINELS = 3
cdef int NODES_BETWEEN_POLLS = 1024

include "search_parameters.pxi"


cdef inline int64_t now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000000000 + ts.tv_nsec


cdef inline bint should_stop(SearchState* s) noexcept nogil:
    """Poll the stop request, the node limit and the deadline every thousand nodes; the
    thread adds its nodes to the shared count then, so the node limit counts all threads."""
    cdef SearchShared* shared
    cdef uint64_t total, limit
    cdef int64_t deadline
    if s.stopped:
        return True
    if (s.nodes & (NODES_BETWEEN_POLLS - 1)) == 0:
        shared = s.shared
        total = atomic_add_u64(&shared.nodes, s.nodes - s.nodes_reported)
        s.nodes_reported = s.nodes
        limit = atomic_load_u64(&shared.node_limit)
        deadline = atomic_load_i64(&shared.deadline_ns)
        if PONDEROSA_ATOMIC_LOAD(&shared.stop):
            s.stopped = True
        elif (limit and total >= limit) or (deadline and now_ns() >= deadline):
            s.stopped = True
            PONDEROSA_ATOMIC_STORE(&shared.stop, 1)   # the other threads stop at their next poll
    return s.stopped


include "search_rules.pxi"


include "search_ordering.pxi"


include "search_breadcrumbs.pxi"


cdef inline bint on_pv(bint pv_node, TTEntry* tte) noexcept nogil:
    """The node is on a principal variation, or its table entry says it once was (ttPv)."""
    return pv_node or (tte is not NULL and (tte.gen_bound & TT_PV) != 0)


cdef int qsearch(SearchState* s, int alpha, int beta, int ply) noexcept nogil:
    """Captures (and evasions when in check) until the position is quiet."""
    cdef Position* pos = &s.pos
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, score, best_score, stand_pat, raw_eval = EVAL_NONE, bound
    cdef bint checked, pv_node = beta - alpha > 1, evaluated = False
    cdef Move m, best_move = 0, hash_move = 0
    cdef TTEntry* tte
    cdef TTEntry tt_copy   # the table is shared: entries are read as private copies
    cdef uint64_t key = pos.states[pos.ply].key
    cdef int old_alpha = alpha

    s.pv_length[ply] = ply
    s.nodes += 1
    if should_stop(s):
        return 0
    if ply > s.seldepth:
        s.seldepth = ply
    if ply >= MAX_PLY:
        return evaluate(pos, s.ev)
    tte = tt_probe(s.tt, key, &tt_copy)
    if tte is not NULL:
        hash_move = tte.move
        score = score_from_tt(tte.score, ply)
        bound = tte.gen_bound & 3
        if not pv_node and ((bound == BOUND_EXACT) or (bound == BOUND_LOWER and score >= beta)
                            or (bound == BOUND_UPPER and score <= alpha)):
            return score
    checked = in_check(pos)
    if checked:
        stand_pat = -INFINITE
        best_score = -MATE + ply
    else:
        if tte is not NULL and tte.static_eval != EVAL_NONE:
            raw_eval = tte.static_eval
        else:
            raw_eval = evaluate(pos, s.ev)
            evaluated = True
        stand_pat = corrected_eval(&s.history, pos.side, pos.states[pos.ply].pawn_key, raw_eval)
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best_score = stand_pat
    if not evaluated:
        prepare_evaluation(pos, s.ev)   # for the children: this node did not evaluate
    n = generate_noisy(pos, moves)
    if n == 0:
        return -MATE + ply if checked else best_score
    score_moves(s, moves, scores, n, hash_move, MAX_PLY)
    # The children's table buckets, all at once: their loads from memory overlap, where one
    # prefetch just before each move would leave most of the wait (captures here are few).
    for i in range(n):
        if checked or scores[i] >= SCORE_GOOD_CAPTURE:
            prefetch_child(s, moves[i])
    for i in range(n):
        m = pick_next(pos, moves, scores, i, n)
        if not checked:
            # Delta pruning: even winning the piece cannot lift the score to alpha.
            if move_flag(m) < FLAG_PROMO_KNIGHT and stand_pat + captured_value(pos, m) + 200 <= alpha:
                continue
            if scores[i] < SCORE_GOOD_CAPTURE and scores[i] != SCORE_HASH:
                continue   # losing captures and under-promotions
        do_move(pos, m)
        tt_prefetch(s.tt, pos.states[pos.ply].key)
        score = -qsearch(s, -beta, -alpha, ply + 1)
        undo_move(pos)
        if s.stopped:
            return 0
        if score > best_score:
            best_score = score
            if score > alpha:
                alpha = score
                best_move = m
                update_pv(s, ply, m)
                if score >= beta:
                    break
    if best_score >= beta:
        bound = BOUND_LOWER
    elif best_score > old_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    tt_store(s.tt, key, best_move, score_to_tt(best_score, ply), raw_eval, 0,
             bound | (TT_PV if on_pv(pv_node, tte) else 0))
    return best_score


cdef inline int extension_for(SearchState* s, Move m, bint move_checks, bint one_reply, bint mate_threat,
                              int moved_type, int victim_type) noexcept nogil:
    """Fractional extension for the move just made, capped at one ply."""
    cdef Position* pos = &s.pos
    cdef int ext = 0, to = move_to(m)
    cdef StateInfo* prev
    if move_checks:
        ext += s.ext_check
    if one_reply:
        ext += s.ext_one_reply
    if victim_type and pos.ply >= 2:
        # Recapture: the previous move captured on this square a piece of equal value.
        prev = &pos.states[pos.ply - 1]
        if prev.captured and move_to(prev.move) == to \
                and SEE_VALUE[prev.captured & 7] == SEE_VALUE[victim_type]:
            ext += s.ext_recapture
    if moved_type == PAWN:
        # pos.side is now the opponent: a white pawn reaching rank 7 (index 6) or a black one rank 2.
        if (pos.side != WHITE and square_rank(to) == 6) or (pos.side == WHITE and square_rank(to) == 1):
            ext += s.ext_passed_push
    if mate_threat:
        ext += s.ext_mate
    return ext if ext < ONE_PLY else ONE_PLY


cdef int search(SearchState* s, int alpha, int beta, int depth, int ply, bint null_ok, bint cut_node) noexcept nogil:
    cdef Position* pos = &s.pos
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Move quiets[64]
    cdef Move captures[32]
    cdef int quiet_count = 0, capture_count = 0
    cdef bint pv_node = beta - alpha > 1
    cdef bint checked, move_checks, check_extended, quiet, improving, mate_threat = False, singular = False
    cdef bint skip_quiets = False, evaluated = False, hash_capture, tt_pv, other_thread
    cdef int breadcrumb
    cdef CheckInfo check_info   # whether each move gives check, told before it is made
    cdef Move excluded = s.excluded[ply]
    cdef int singular_beta
    cdef int n, i, score, best_score, static_eval, raw_eval = EVAL_NONE, bound, reduction, new_depth, ext
    cdef int searched = 0
    cdef int tt_score = 0, tt_depth = -1, tt_bound = 0, r, old_alpha = alpha
    cdef int tb_value = 0, tb_bound = 0
    cdef int moved_type, victim_type, plies, prune_plies
    cdef Move m, best_move = 0, hash_move = 0
    cdef TTEntry* tte
    cdef TTEntry tt_copy
    cdef uint64_t key

    if depth < ONE_PLY:
        return qsearch(s, alpha, beta, ply)
    s.pv_length[ply] = ply
    s.nodes += 1
    if should_stop(s):
        return 0
    if ply >= MAX_PLY:
        return evaluate(pos, s.ev)
    if is_draw(pos) and not (pos.states[pos.ply].halfmove >= 100 and in_check(pos)
                             and generate_legal(pos, moves) == 0):
        return draw_value(s)   # (a mate on the hundredth ply is still a mate)
    # Upcoming repetition: a move from here repeats an earlier position, so the side to move can
    # have a draw at least (Stockfish 11's has_game_cycle; legality of that move is not checked).
    if UPCOMING_REPETITION and ply > 0 and alpha < draw_value(s) and upcoming_repetition_move(pos) >= 0:
        alpha = draw_value(s)
        if alpha >= beta:
            return alpha
    # Mate-distance pruning: no line from here can beat a mate already found nearer the root.
    if alpha < -MATE + ply:
        alpha = -MATE + ply
    if beta > MATE - ply - 1:
        beta = MATE - ply - 1
    if alpha >= beta:
        return alpha

    key = pos.states[pos.ply].key
    tte = tt_probe(s.tt, key, &tt_copy)
    tt_pv = on_pv(pv_node, tte)
    if tte is not NULL:
        hash_move = tte.move
        if hash_move:
            prefetch_child(s, hash_move)   # long before it is made: null move, IID and the rest come first
        tt_score = score_from_tt(tte.score, ply)
        tt_depth = tte.depth
        tt_bound = tte.gen_bound & 3
        # Position learning's entries (depth LEARNED_DEPTH) cut even on the principal variation:
        # they are what the engine learned to avoid, not a guess from a shallower search.
        if not excluded and (not pv_node or tt_depth >= LEARNED_DEPTH) and tt_depth * ONE_PLY >= depth and (
                tt_bound == BOUND_EXACT or (tt_bound == BOUND_LOWER and tt_score >= beta)
                or (tt_bound == BOUND_UPPER and tt_score <= alpha)):
            if TT_CUTOFF_HISTORY and hash_move and is_quiet(pos, hash_move):
                # The table's move decides this node without a search: its statistics learn
                # from that as from a searched cut-off (or fail-low), as in Stockfish 11.
                if tt_score >= beta:
                    update_quiet_stats(s, hash_move, NULL, 0, ply, depth)
                elif tt_score <= alpha:
                    add_quiet(&s.history, pos.board[move_from(hash_move)], move_to(hash_move),
                              s.moved[ply + 1], s.moved[ply], -history_bonus(depth))
            return tt_score

    if s.tb_probing and not excluded and pos.states[pos.ply].halfmove == 0 and depth >= s.tb_probe_depth:
        if tablebase_cut(s, ply, depth, alpha, beta, &tb_value, &tb_bound):
            return tb_value
        if not pv_node:
            tb_bound = 0
        elif tb_bound == BOUND_LOWER and tb_value > alpha:
            alpha = tb_value   # on the principal variation the table's bound still narrows the window

    checked = s.in_check[ply]   # the parent knew whether its move gave check
    if checked:
        static_eval = -INFINITE
        improving = False
    else:
        if tte is not NULL and tte.static_eval != EVAL_NONE:
            raw_eval = tte.static_eval
        else:
            raw_eval = evaluate(pos, s.ev)
            evaluated = True
        static_eval = corrected_eval(&s.history, pos.side, pos.states[pos.ply].pawn_key, raw_eval)
        improving = ply >= 2 and static_eval > s.static_evals[ply - 2]
    s.static_evals[ply] = static_eval
    s.killers[ply + 1][0] = 0
    s.killers[ply + 1][1] = 0

    if not pv_node and not checked and not excluded:
        plies = depth // ONE_PLY
        # Razoring: so far below alpha near the leaves that only a capture could help; when the
        # quiescence search finds none that does, the node fails low without its quiet moves.
        if plies <= RAZOR_DEPTH and static_eval + RAZOR_MARGIN * plies <= alpha and alpha > -MATE_BOUND:
            score = qsearch(s, alpha, alpha + 1, ply)
            if s.stopped:
                return 0
            if score <= alpha:
                return score
        # Reverse futility: far above beta at low depth, the opponent will not let us keep it.
        if plies <= RFP_DEPTH and static_eval - RFP_MARGIN * (plies - improving) >= beta and beta > -MATE_BOUND \
                and beta < MATE_BOUND:
            return static_eval
    if not evaluated:
        # For the children (the null move's too): this node did not evaluate.
        prepare_evaluation(pos, s.ev)
    if not pv_node and not checked and not excluded:
        plies = depth // ONE_PLY
        # Null move, never with only pawns left (zugzwang) and verified at high depth.
        # (not when the table already says this node fails low: the null move would too)
        if null_ok and plies >= 2 and static_eval >= beta and has_non_pawn_material(pos, pos.side) \
                and beta > -MATE_BOUND and not (tt_bound == BOUND_UPPER and tt_score < beta):
            r = NULL_BASE * ONE_PLY + depth // NULL_DEPTH_DIVISOR
            if static_eval - beta >= NULL_EVAL_DIVISOR:
                r += ONE_PLY * ((static_eval - beta) // NULL_EVAL_DIVISOR if (static_eval - beta) // NULL_EVAL_DIVISOR < 3 else 3)
            do_null_move(pos)
            s.in_check[ply + 1] = False
            s.moved[ply + 2] = 0
            score = -search(s, -beta, -beta + 1, depth - r, ply + 1, False, not cut_node)
            undo_null_move(pos)
            if s.stopped:
                return 0
            if score >= beta:
                if score >= MATE_BOUND:
                    score = beta
                if plies < 10:
                    return score
                if search(s, beta - 1, beta, depth - r, ply, False, False) >= beta:
                    return score
            elif score <= -MATE_BOUND:
                mate_threat = True   # passing gets us mated: the threat extension applies

    # Internal iterative reduction: off the principal variation, a node the table gives no move
    # for was never searched or failed low everywhere; a ply less is spent on it.
    if not pv_node and hash_move == 0 and depth >= IIR_DEPTH * ONE_PLY and not excluded:
        depth -= ONE_PLY

    # Internal iterative deepening: find a move to search first when the table has none.
    if hash_move == 0 and pv_node and depth >= 5 * ONE_PLY and not excluded:
        search(s, alpha, beta, depth - 2 * ONE_PLY, ply, null_ok, cut_node)
        if s.stopped:
            return 0
        tte = tt_probe(s.tt, key, &tt_copy)
        if tte is not NULL:
            hash_move = tte.move

    n = generate_legal(pos, moves)
    if n == 0:
        return -MATE + ply if checked else draw_value(s)

    # Singular extension: when every move but the hash move fails well below the hash score, the
    # hash move is the only good one and is searched a ply deeper. When even without it a move
    # reaches beta, several moves would cut off here, and this node does (multi-cut).
    if not excluded and hash_move and ply > 0 and depth >= SINGULAR_DEPTH * ONE_PLY \
            and ply < 2 * s.root_depth and (tt_bound & BOUND_LOWER) and -MATE_BOUND < tt_score < MATE_BOUND \
            and tt_depth * ONE_PLY >= depth - 3 * ONE_PLY:
        singular_beta = tt_score - SINGULAR_MARGIN * (depth // ONE_PLY)
        s.excluded[ply] = hash_move
        score = search(s, singular_beta - 1, singular_beta, (depth - ONE_PLY) // 2, ply, False, cut_node)
        s.excluded[ply] = 0
        s.pv_length[ply] = ply
        if s.stopped:
            return 0
        if score < singular_beta:
            singular = True
        elif singular_beta >= beta:
            return singular_beta

    score_moves(s, moves, scores, n, hash_move, ply)
    init_check_info(pos, &check_info)
    hash_capture = hash_move != 0 and not is_quiet(pos, hash_move)
    breadcrumb = breadcrumb_enter(s, key, ply, &other_thread)
    best_score = -INFINITE

    for i in range(n):
        m = pick_next(pos, moves, scores, i, n)
        if excluded and (m & 0xFFFF) == (excluded & 0xFFFF):
            continue
        moved_type = pos.board[move_from(m)] & 7
        victim_type = captured_type(pos, m)
        quiet = victim_type == 0 and move_flag(m) < FLAG_PROMO_KNIGHT
        plies = depth // ONE_PLY

        # Near the leaves, moves unlikely to matter are dropped before they are made: late quiet
        # moves (once one is late or futile, so are all after it), quiet moves with bad history or
        # that lose material by exchange, and losing captures. Moves that give check are kept.
        if not pv_node and not checked and searched > 0 and best_score > -MATE_BOUND:
            if quiet and plies <= PRUNING_DEPTH and scores[i] < SCORE_COUNTER:
                if not gives_check_by(pos, m, &check_info):
                    if skip_quiets or searched >= LATE_MOVE_COUNT[improving][plies] \
                            or static_eval + FUTILITY_MARGIN[plies] <= alpha:
                        skip_quiets = True
                        continue
                    # Stockfish prunes by the depth the move would be searched to after its
                    # reduction; PRUNE_LMR_SHARE takes that share of the reduction off.
                    prune_plies = plies - LMR_TABLE[plies][searched if searched < 64 else 63] * PRUNE_LMR_SHARE // 100
                    if prune_plies < 1:
                        prune_plies = 1   # at zero, any negative history or exchange would do
                    if prune_plies <= 3 and scores[i] < -HISTORY_PRUNE_MARGIN * prune_plies:
                        continue
                    if prune_plies <= CONTINUATION_PRUNE_DEPTH and continuation_bad(
                            &s.history, pos.board[move_from(m)], move_to(m), s.moved[ply + 1], s.moved[ply]):
                        continue
                    if see(pos, m) < -QUIET_SEE_MARGIN * prune_plies:
                        continue
            elif not quiet and plies <= CAPTURE_SEE_DEPTH and scores[i] < -(1 << 20) \
                    and see(pos, m) < -CAPTURE_SEE_MARGIN * plies:
                continue

        prefetch_child(s, m)
        move_checks = gives_check_by(pos, m, &check_info)   # before the move: cheaper than in_check after it
        # Stockfish 11 extends a check only when it is discovered or does not lose material by
        # exchange (CHECK_EXTENSION_SEE); a check that throws the piece away is searched normally.
        check_extended = move_checks and (not CHECK_EXTENSION_SEE
                                          or (check_info.discoverers & square_bb(move_from(m))) != 0
                                          or see(pos, m) >= 0)
        s.moved[ply + 2] = move_key(pos.board[move_from(m)], move_to(m))
        do_move(pos, m)
        tt_prefetch(s.tt, pos.states[pos.ply].key)

        s.in_check[ply + 1] = move_checks
        ext = extension_for(s, m, check_extended, checked and n == 1, mate_threat, moved_type, victim_type)
        if singular and (m & 0xFFFF) == (hash_move & 0xFFFF):
            ext = ONE_PLY
        new_depth = depth - ONE_PLY + ext
        if searched == 0:
            score = -search(s, -beta, -alpha, new_depth, ply + 1, True, not pv_node and not cut_node)
        else:
            reduction = 0
            if depth >= 3 * ONE_PLY and not quiet and not pv_node and not move_checks and not checked \
                    and scores[i] < SCORE_GOOD_CAPTURE:
                reduction = ONE_PLY   # a capture that loses material by exchange
            elif depth >= 3 * ONE_PLY and searched >= (3 if pv_node else 2) and quiet and not checked:
                reduction = LMR_TABLE[plies if plies < 64 else 63][searched if searched < 64 else 63]
                if pv_node:
                    reduction -= 1
                if move_checks:
                    reduction -= 1   # a late quiet check is reduced too, a ply less (its extension stays)
                if not improving:
                    reduction += 1
                if scores[i] >= SCORE_COUNTER:
                    reduction = (reduction - 1) * ONE_PLY   # a killer or the counter move
                else:
                    # A move whose statistics are good is reduced less, a bad one more (a ply per
                    # HISTORY_PER_PLY, in quarter plies).
                    reduction = reduction * ONE_PLY - scores[i] * ONE_PLY // HISTORY_PER_PLY
                if tt_pv:
                    reduction -= LMR_TT_PV   # on or once on a principal variation: searched more fully
                if cut_node:
                    reduction += LMR_CUT_NODE   # expected to fail high: a quiet late move is unlikely to matter
                if hash_capture:
                    reduction += LMR_CAPTURE_HASH_MOVE   # the best move found so far is a capture
                if other_thread:
                    reduction += SMP_BREADCRUMB   # another thread searches this position already
                if reduction > new_depth - ONE_PLY:
                    reduction = new_depth - ONE_PLY
                if reduction < 0:
                    reduction = 0
            score = -search(s, -alpha - 1, -alpha, new_depth - reduction, ply + 1, True, reduction > 0 or not cut_node)
            if reduction > 0 and score > alpha:
                score = -search(s, -alpha - 1, -alpha, new_depth, ply + 1, True, not cut_node)
            if pv_node and score > alpha and score < beta:
                score = -search(s, -beta, -alpha, new_depth, ply + 1, True, False)
        undo_move(pos)
        if s.stopped:
            breadcrumb_leave(breadcrumb)
            return 0
        searched += 1

        if score > best_score:
            best_score = score
            if score > alpha:
                best_move = m
                alpha = score
                update_pv(s, ply, m)
                if score >= beta:
                    if quiet:
                        update_quiet_stats(s, m, quiets, quiet_count, ply, depth)
                    update_capture_stats(s, 0 if quiet else m, captures, capture_count, depth)
                    break
        if quiet:
            if quiet_count < 64:
                quiets[quiet_count] = m
                quiet_count += 1
        elif capture_count < 32:
            captures[capture_count] = m
            capture_count += 1

    breadcrumb_leave(breadcrumb)
    if tb_bound == BOUND_LOWER and best_score < tb_value:
        best_score = tb_value
    elif tb_bound == BOUND_UPPER and best_score > tb_value:
        best_score = tb_value
    if searched == 0:
        # Every move was pruned (or the only one excluded): fall back to a fail-low bound.
        return alpha
    if excluded:
        return best_score   # the position without its hash move: nothing to keep in the table
    if best_score >= beta or (tb_bound == BOUND_LOWER and best_score == tb_value):
        bound = BOUND_LOWER
    elif best_move:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    # What the search found teaches the evaluation's correction, when the score says something
    # about the static evaluation: not after a capture, and not a bound on the wrong side of it.
    if not checked and (best_move == 0 or is_quiet(pos, best_move)) and -MATE_BOUND < best_score < MATE_BOUND \
            and not (bound == BOUND_LOWER and best_score <= static_eval) \
            and not (bound == BOUND_UPPER and best_score >= static_eval):
        update_correction(&s.history, pos.side, pos.states[pos.ply].pawn_key, best_score - static_eval,
                          depth // ONE_PLY)
    tt_store(s.tt, key, best_move, score_to_tt(best_score, ply), raw_eval, depth // ONE_PLY,
             bound | (TT_PV if tt_pv else 0))
    return best_score


cdef int search_root(SearchState* s, int alpha, int beta, int depth) noexcept nogil:
    """One iteration over the root moves from root_first on; the best so far is kept at
    root_moves[root_first] (0 but for the later lines of a MultiPV search)."""
    cdef Position* pos = &s.pos
    cdef int i, j, score, best_score = -INFINITE, new_depth, ext
    cdef uint64_t nodes_before
    cdef RootMove found
    cdef bint move_checks
    s.pv_length[0] = 0
    s.static_evals[0] = -INFINITE
    s.root_depth = depth // ONE_PLY
    s.moved[0] = 0   # the game's moves before the root are not looked at
    s.moved[1] = 0
    cdef int first = s.root_first
    for i in range(first, s.root_count):
        s.root_moves[i].nodes = 0
    for i in range(first, s.root_count):
        nodes_before = s.nodes
        s.root_index = i
        s.moved[2] = move_key(pos.board[move_from(s.root_moves[i].move)], move_to(s.root_moves[i].move))
        do_move(pos, s.root_moves[i].move)
        move_checks = in_check(pos)
        s.in_check[1] = move_checks
        ext = s.ext_check if move_checks else 0
        new_depth = depth - ONE_PLY + (ext if ext < ONE_PLY else ONE_PLY)
        if i == first:
            score = -search(s, -beta, -alpha, new_depth, 1, True, False)
        else:
            score = -search(s, -alpha - 1, -alpha, new_depth, 1, True, True)
            if score > alpha and not s.stopped:
                score = -search(s, -beta, -alpha, new_depth, 1, True, False)
        undo_move(pos)
        s.root_moves[i].nodes += s.nodes - nodes_before
        if s.stopped:
            break
        if score > best_score:
            best_score = score
        if score > alpha:
            s.root_moves[i].score = score
            s.pv[0][0] = s.root_moves[i].move
            for j in range(1, s.pv_length[1]):
                s.pv[0][j] = s.pv[1][j]
            s.pv_length[0] = s.pv_length[1] if s.pv_length[1] > 1 else 1
            # Keep the best move first: a stop now still plays the best move found so far.
            found = s.root_moves[i]
            for j in range(i, first, -1):
                s.root_moves[j] = s.root_moves[j - 1]
            s.root_moves[first] = found
            if score >= beta:
                break
            alpha = score
        else:
            s.root_moves[i].score = -INFINITE
    return best_score


cdef void order_root_moves(SearchState* s) noexcept nogil:
    """After an iteration: best move first, the rest by the effort their refutation took
    (lines before root_first stay where they are)."""
    cdef int i, j
    cdef int first = s.root_first
    cdef RootMove key
    for i in range(first + 2, s.root_count):
        key = s.root_moves[i]
        j = i - 1
        while j >= first + 1 and s.root_moves[j].nodes < key.nodes:
            s.root_moves[j + 1] = s.root_moves[j]
            j -= 1
        s.root_moves[j + 1] = key



include "search_smp.pxi"


include "searcher.pxi"
