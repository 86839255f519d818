# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Principal variation search with a transposition table, null move, reductions and
a quiescence search; one iteration runs without the GIL and stops on a C-level flag."""
from libc.math cimport log
from libc.stdint cimport uint64_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from ponderosa.core_ext.bitboard cimport (
    Bitboard, Move, MAX_MOVES, WHITE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,
    FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT, FLAG_PROMO_QUEEN,
    move_from, move_to, move_flag, square_rank,
)
from ponderosa.core_ext.board cimport Board
from ponderosa.core_ext.evaluate cimport Evaluator, evaluate
from ponderosa.core_ext.history cimport (
    History, HISTORY_MAX, move_key, add_quiet, quiet_score, add_capture, corrected_eval, update_correction,
)
from ponderosa.core_ext.movegen cimport generate_legal, generate_noisy
from ponderosa.core_ext.position cimport (
    Position, StateInfo, MAX_STATES, do_move, undo_move, do_null_move, undo_null_move,
    in_check, gives_check, move_to_uci,
)
from ponderosa.core_ext.see cimport SEE_VALUE, see
from ponderosa.core_ext.syzygy cimport tb_probe_wdl
from ponderosa.core_ext.tt cimport (
    TTEntry, TranspositionTable, tt_probe, tt_prefetch, tt_store, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT, EVAL_NONE,
)

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
cdef int HISTORY_PRUNE_MARGIN = 3000   # a quiet move this far below zero per ply of depth is not tried near the leaves
cdef int HISTORY_PER_PLY = 12288       # statistics that change a reduction by a ply
cdef int SINGULAR_DEPTH = 8            # least depth (plies) of a singular-extension test
cdef int SCORE_BAD_CAPTURE = -(1 << 27)

cdef int LMR_TABLE[64][64]          # reduction in plies by depth and move number
cdef int PRUNING_DEPTH = 8              # late-move and futility pruning up to this many plies from the leaves
cdef int FUTILITY_MARGIN[9]
FUTILITY_MARGIN[:] = [0, 120, 220, 330, 440, 550, 660, 770, 880]
# Quiet moves tried before the rest are skipped, by plies from the leaves, when the static
# evaluation is not improving [0] and when it is [1] (Ethereal's published counts).
cdef int LATE_MOVE_COUNT[2][9]
LATE_MOVE_COUNT[0][:] = [0, 3, 4, 7, 12, 16, 21, 28, 34]
LATE_MOVE_COUNT[1][:] = [0, 5, 7, 12, 18, 27, 38, 50, 65]
cdef int QUIET_SEE_MARGIN = 60          # a quiet move losing more than this per ply by exchange is not tried
cdef int NODES_BETWEEN_POLLS = 1024
cdef int IIR_DEPTH = 4                  # least depth (plies) of an internal iterative reduction


cdef void init_reductions() noexcept nogil:
    cdef int d, m
    for d in range(64):
        for m in range(64):
            if d == 0 or m == 0:
                LMR_TABLE[d][m] = 0
            else:
                LMR_TABLE[d][m] = <int>(0.75 + log(d) * log(m) / 2.25)

init_reductions()


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
    return pos.board[move_to(m)] != 0 or move_flag(m) == FLAG_EN_PASSANT


cdef inline int captured_type(Position* pos, Move m) noexcept nogil:
    """Type of the piece m captures (0 for none; a pawn for en passant)."""
    if move_flag(m) == FLAG_EN_PASSANT:
        return PAWN
    return pos.board[move_to(m)] & 7


cdef inline bint is_quiet(Position* pos, Move m) noexcept nogil:
    return captured_type(pos, m) == 0 and move_flag(m) < FLAG_PROMO_KNIGHT


cdef inline int captured_value(Position* pos, Move m) noexcept nogil:
    return SEE_VALUE[captured_type(pos, m)]


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


cdef inline Move pick_next(Position* pos, Move* moves, int* scores, int start, int n) noexcept nogil:
    """Selection sort step: bring the best-scored remaining move to `start`.

    A capture marked for checking that loses material by exchange drops to the losing band
    and the pick is made again, so SEE runs only on captures that are actually reached."""
    cdef int best, i, tmp_score
    cdef Move tmp
    while True:
        best = start
        for i in range(start + 1, n):
            if scores[i] > scores[best]:
                best = i
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


cdef int qsearch(SearchState* s, int alpha, int beta, int ply) noexcept nogil:
    """Captures (and evasions when in check) until the position is quiet."""
    cdef Position* pos = &s.pos
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, score, best_score, stand_pat, raw_eval = EVAL_NONE, bound
    cdef bint checked, pv_node = beta - alpha > 1
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
        stand_pat = corrected_eval(&s.history, pos.side, pos.states[pos.ply].pawn_key, raw_eval)
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best_score = stand_pat
    n = generate_noisy(pos, moves)
    if n == 0:
        return -MATE + ply if checked else best_score
    score_moves(s, moves, scores, n, hash_move, MAX_PLY)
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
    tt_store(s.tt, key, best_move, score_to_tt(best_score, ply), raw_eval, 0, bound)
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


cdef int search(SearchState* s, int alpha, int beta, int depth, int ply, bint null_ok) noexcept nogil:
    cdef Position* pos = &s.pos
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Move quiets[64]
    cdef Move captures[32]
    cdef int quiet_count = 0, capture_count = 0
    cdef bint pv_node = beta - alpha > 1
    cdef bint checked, move_checks, quiet, improving, mate_threat = False, singular = False
    cdef bint skip_quiets = False
    cdef Move excluded = s.excluded[ply]
    cdef int singular_beta
    cdef int n, i, score, best_score, static_eval, raw_eval = EVAL_NONE, bound, reduction, new_depth, ext
    cdef int searched = 0
    cdef int tt_score = 0, tt_depth = -1, tt_bound = 0, r, old_alpha = alpha
    cdef int tb_value = 0, tb_bound = 0
    cdef int moved_type, victim_type, plies
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
    # Mate-distance pruning: no line from here can beat a mate already found nearer the root.
    if alpha < -MATE + ply:
        alpha = -MATE + ply
    if beta > MATE - ply - 1:
        beta = MATE - ply - 1
    if alpha >= beta:
        return alpha

    key = pos.states[pos.ply].key
    tte = tt_probe(s.tt, key, &tt_copy)
    if tte is not NULL:
        hash_move = tte.move
        tt_score = score_from_tt(tte.score, ply)
        tt_depth = tte.depth
        tt_bound = tte.gen_bound & 3
        # Position learning's entries (depth LEARNED_DEPTH) cut even on the principal variation:
        # they are what the engine learned to avoid, not a guess from a shallower search.
        if not excluded and (not pv_node or tt_depth >= LEARNED_DEPTH) and tt_depth * ONE_PLY >= depth and (
                tt_bound == BOUND_EXACT or (tt_bound == BOUND_LOWER and tt_score >= beta)
                or (tt_bound == BOUND_UPPER and tt_score <= alpha)):
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
        static_eval = corrected_eval(&s.history, pos.side, pos.states[pos.ply].pawn_key, raw_eval)
        improving = ply >= 2 and static_eval > s.static_evals[ply - 2]
    s.static_evals[ply] = static_eval
    s.killers[ply + 1][0] = 0
    s.killers[ply + 1][1] = 0

    if not pv_node and not checked and not excluded:
        plies = depth // ONE_PLY
        # Reverse futility: far above beta at low depth, the opponent will not let us keep it.
        if plies <= 8 and static_eval - 85 * (plies - improving) >= beta and beta > -MATE_BOUND \
                and beta < MATE_BOUND:
            return static_eval
        # Null move, never with only pawns left (zugzwang) and verified at high depth.
        # (not when the table already says this node fails low: the null move would too)
        if null_ok and plies >= 2 and static_eval >= beta and has_non_pawn_material(pos, pos.side) \
                and beta > -MATE_BOUND and not (tt_bound == BOUND_UPPER and tt_score < beta):
            r = 3 * ONE_PLY + depth // 6
            if static_eval - beta >= 200:
                r += ONE_PLY * ((static_eval - beta) // 200 if (static_eval - beta) // 200 < 3 else 3)
            do_null_move(pos)
            s.in_check[ply + 1] = False
            s.moved[ply + 2] = 0
            score = -search(s, -beta, -beta + 1, depth - r, ply + 1, False)
            undo_null_move(pos)
            if s.stopped:
                return 0
            if score >= beta:
                if score >= MATE_BOUND:
                    score = beta
                if plies < 10:
                    return score
                if search(s, beta - 1, beta, depth - r, ply, False) >= beta:
                    return score
            elif score <= -MATE_BOUND:
                mate_threat = True   # passing gets us mated: the threat extension applies

    # Internal iterative reduction: off the principal variation, a node the table gives no move
    # for was never searched or failed low everywhere; a ply less is spent on it.
    if not pv_node and hash_move == 0 and depth >= IIR_DEPTH * ONE_PLY and not excluded:
        depth -= ONE_PLY

    # Internal iterative deepening: find a move to search first when the table has none.
    if hash_move == 0 and pv_node and depth >= 5 * ONE_PLY and not excluded:
        search(s, alpha, beta, depth - 2 * ONE_PLY, ply, null_ok)
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
        singular_beta = tt_score - 2 * (depth // ONE_PLY)
        s.excluded[ply] = hash_move
        score = search(s, singular_beta - 1, singular_beta, (depth - ONE_PLY) // 2, ply, False)
        s.excluded[ply] = 0
        s.pv_length[ply] = ply
        if s.stopped:
            return 0
        if score < singular_beta:
            singular = True
        elif singular_beta >= beta:
            return singular_beta

    score_moves(s, moves, scores, n, hash_move, ply)
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
                if not gives_check(pos, m):
                    if skip_quiets or searched >= LATE_MOVE_COUNT[improving][plies] \
                            or static_eval + FUTILITY_MARGIN[plies] <= alpha:
                        skip_quiets = True
                        continue
                    if plies <= 3 and scores[i] < -HISTORY_PRUNE_MARGIN * plies:
                        continue
                    if see(pos, m) < -QUIET_SEE_MARGIN * plies:
                        continue
            elif not quiet and plies <= 4 and scores[i] < -(1 << 20) and see(pos, m) < -100 * plies:
                continue

        s.moved[ply + 2] = move_key(pos.board[move_from(m)], move_to(m))
        do_move(pos, m)
        tt_prefetch(s.tt, pos.states[pos.ply].key)
        move_checks = in_check(pos)

        s.in_check[ply + 1] = move_checks
        ext = extension_for(s, m, move_checks, checked and n == 1, mate_threat, moved_type, victim_type)
        if singular and (m & 0xFFFF) == (hash_move & 0xFFFF):
            ext = ONE_PLY
        new_depth = depth - ONE_PLY + ext
        if searched == 0:
            score = -search(s, -beta, -alpha, new_depth, ply + 1, True)
        else:
            reduction = 0
            if depth >= 3 * ONE_PLY and not quiet and not pv_node and not move_checks and not checked \
                    and scores[i] < SCORE_GOOD_CAPTURE:
                reduction = ONE_PLY   # a capture that loses material by exchange
            elif depth >= 3 * ONE_PLY and searched >= (3 if pv_node else 2) and quiet and not move_checks \
                    and not checked:
                reduction = LMR_TABLE[plies if plies < 64 else 63][searched if searched < 64 else 63]
                if pv_node:
                    reduction -= 1
                if not improving:
                    reduction += 1
                if scores[i] >= SCORE_COUNTER:
                    reduction = (reduction - 1) * ONE_PLY   # a killer or the counter move
                else:
                    # A move whose statistics are good is reduced less, a bad one more (a ply per
                    # HISTORY_PER_PLY, in quarter plies).
                    reduction = reduction * ONE_PLY - scores[i] * ONE_PLY // HISTORY_PER_PLY
                if reduction > new_depth - ONE_PLY:
                    reduction = new_depth - ONE_PLY
                if reduction < 0:
                    reduction = 0
            score = -search(s, -alpha - 1, -alpha, new_depth - reduction, ply + 1, True)
            if reduction > 0 and score > alpha:
                score = -search(s, -alpha - 1, -alpha, new_depth, ply + 1, True)
            if pv_node and score > alpha and score < beta:
                score = -search(s, -beta, -alpha, new_depth, ply + 1, True)
        undo_move(pos)
        if s.stopped:
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
    tt_store(s.tt, key, best_move, score_to_tt(best_score, ply), raw_eval, depth // ONE_PLY, bound)
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
            score = -search(s, -beta, -alpha, new_depth, 1, True)
        else:
            score = -search(s, -alpha - 1, -alpha, new_depth, 1, True)
            if score > alpha and not s.stopped:
                score = -search(s, -beta, -alpha, new_depth, 1, True)
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


cdef int ASPIRATION_WINDOW = 25

# Lazy SMP: helper thread k skips the iteration depths d for which (d + SKIP_PHASE[k]) // SKIP_SPAN[k]
# is odd, so at any moment the helpers are spread over the next few depths instead of all
# searching the main thread's tree; what they store in the shared table is there when it arrives.
cdef int SKIP_SPAN[20]
cdef int SKIP_PHASE[20]
SKIP_SPAN[:] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
SKIP_PHASE[:] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]


cdef inline bint helper_skips(int helper, int depth) noexcept nogil:
    cdef int i = (helper - 1) % 20
    return ((depth + SKIP_PHASE[i]) // SKIP_SPAN[i]) % 2 == 1


cdef void record_iteration(SearchState* s, int depth, int score) noexcept nogil:
    """Keep a completed iteration's result: the main thread may take it if it is the deepest.
    A sequence lock: the count is odd while the fields change, so a reader can tell a torn copy."""
    cdef int i, seq = s.done_seq
    PONDEROSA_ATOMIC_STORE(&s.done_seq, seq + 1)
    PONDEROSA_FENCE_RELEASE()
    s.done_search = s.search_id
    s.done_depth = depth
    s.done_score = score
    if s.pv_length[0] > 0:
        for i in range(s.pv_length[0]):
            s.done_pv[i] = s.pv[0][i]
        s.done_pv_length = s.pv_length[0]
    else:
        s.done_pv[0] = s.root_moves[0].move
        s.done_pv_length = 1
    PONDEROSA_STORE_RELEASE(&s.done_seq, seq + 2)


cdef void helper_deepen(SearchState* s, int helper, int first_depth, int max_depth) noexcept nogil:
    """A helper thread's iterative deepening, with the same aspiration windows as the main
    thread's; it ends when the search is stopped or it completes max_depth (or the depth limit)."""
    cdef int depth, score = 0, value = 0, alpha, beta, delta
    if PONDEROSA_ATOMIC_LOAD(&s.shared.stop):
        return   # stopped before this helper got going (a search over in a few microseconds)
    for depth in range(first_depth, max_depth + 1):
        if depth < max_depth and helper_skips(helper, depth):
            continue
        delta = ASPIRATION_WINDOW
        if depth >= 5 and -MATE_BOUND < score < MATE_BOUND:
            alpha = score - delta if score - delta > -INFINITE else -INFINITE
            beta = score + delta if score + delta < INFINITE else INFINITE
        else:
            alpha, beta = -INFINITE, INFINITE
        while True:
            value = search_root(s, alpha, beta, depth * ONE_PLY)
            if s.stopped:
                return
            order_root_moves(s)
            if value <= alpha:
                alpha = value - delta if value - delta > -INFINITE else -INFINITE
            elif value >= beta:
                beta = value + delta if value + delta < INFINITE else INFINITE
            else:
                break
            delta *= 2
        score = value
        record_iteration(s, depth, score)
        if PONDEROSA_ATOMIC_LOAD(&s.shared.depth_limit) and depth >= PONDEROSA_ATOMIC_LOAD(&s.shared.depth_limit):
            PONDEROSA_ATOMIC_STORE(&s.shared.stop, 1)   # the limit is reached: the whole search ends
            return


EXTENSIONS = ("incheck", "onerep", "recapture", "pushpp", "mate")


cdef class Search:
    """The search of one position; iterative deepening and the clock are the caller's."""

    cdef SearchState* s
    cdef SearchShared* own_shared      # the shared part, when this is a main search
    cdef TranspositionTable tt_owner
    cdef Evaluator evaluator_owner
    cdef Search main_owner             # the main search whose shared part a helper uses

    def __cinit__(self):
        self.s = <SearchState*>malloc(sizeof(SearchState))
        self.own_shared = <SearchShared*>malloc(sizeof(SearchShared))
        if self.s is NULL or self.own_shared is NULL:
            free(self.s)
            free(self.own_shared)
            raise MemoryError()
        memset(self.s, 0, sizeof(SearchState))
        memset(self.own_shared, 0, sizeof(SearchShared))
        self.s.shared = self.own_shared

    def __dealloc__(self):
        free(self.s)
        free(self.own_shared)

    def __init__(self, TranspositionTable tt, Evaluator evaluator):
        self.tt_owner = tt
        self.evaluator_owner = evaluator
        self.s.tt = &tt.table
        self.s.ev = &evaluator.state
        self.s.ext_check = ONE_PLY
        self.s.ext_one_reply = 3 * ONE_PLY // 4
        self.s.ext_recapture = 0
        self.s.ext_passed_push = ONE_PLY // 2
        self.s.ext_mate = 0

    def set_position(self, Board board, excluded=()) -> int:
        """Take a copy of the board (with its history, for repetitions); returns the root move count.

        Root moves named (UCI) in `excluded` are not searched (XBoard's exclude/include)."""
        cdef Position* pos = &self.s.pos
        cdef Move moves[MAX_MOVES]
        cdef int scores[MAX_MOVES]
        cdef int n, i, keep, drop, count
        memcpy(pos, board.pos, sizeof(Position))
        if pos.ply + MAX_PLY + 8 >= MAX_STATES:
            # Keep only the recent history the repetition scan can reach.
            keep = pos.states[pos.ply].halfmove + 2
            if keep > pos.ply:
                keep = pos.ply
            drop = pos.ply - keep
            memcpy(&pos.states[0], &pos.states[drop], (keep + 1) * sizeof(StateInfo))
            pos.ply = keep
        self.s.root_side = pos.side
        self.s.ev.engine_side = pos.side
        n = generate_legal(pos, moves)
        memset(scores, 0, sizeof(scores))
        score_moves(self.s, moves, scores, n, 0, 0)
        count = 0
        for i in range(n):
            pick_next(pos, moves, scores, i, n)
            if excluded and move_to_uci(moves[i]) in excluded:
                continue
            self.s.root_moves[count].move = moves[i]
            self.s.root_moves[count].score = -INFINITE
            self.s.root_moves[count].nodes = 0
            count += 1
        self.s.root_count = count
        self.s.root_first = 0
        self.s.root_index = 0
        self.s.nodes = 0
        self.s.nodes_reported = 0
        self.s.tbhits = 0
        self.s.seldepth = 0
        self.s.pv_length[0] = 0
        self.s.stopped = False
        return count

    def set_limits(self, node_limit: int = 0, deadline_ns: int = 0, depth_limit: int = 0) -> None:
        """Node limit (all threads together), CLOCK_MONOTONIC deadline (time.monotonic_ns()) and
        the depth whose completion by a helper ends the search; 0 for none. Call it on the main
        search, before its helpers start.

        A stop requested before this call still stops the next search (see clear_stop)."""
        cdef SearchShared* shared = self.s.shared
        atomic_store_u64(&shared.nodes, 0)
        atomic_store_u64(&shared.node_limit, node_limit)
        atomic_store_i64(&shared.deadline_ns, deadline_ns)
        PONDEROSA_ATOMIC_STORE(&shared.depth_limit, depth_limit)
        self.s.stopped = False

    def clear_stop(self) -> None:
        """Forget an earlier stop request; call before starting a search, not inside it,
        so that a stop sent while a search thread is starting is never lost."""
        PONDEROSA_ATOMIC_STORE(&self.s.shared.stop, 0)

    def set_deadline(self, deadline_ns: int) -> None:
        """Move the deadline while a search runs (a ponder hit turns pondering into the real search)."""
        atomic_store_i64(&self.s.shared.deadline_ns, deadline_ns)

    def stop(self) -> None:
        """Ask a running search (every thread of it) to stop; safe from any thread."""
        PONDEROSA_ATOMIC_STORE(&self.s.shared.stop, 1)

    @property
    def stopped(self) -> bool:
        return self.s.stopped

    def share_with(self, Search main) -> None:
        """Make this a helper of main: the same stop flag, limits and node count (the table
        is shared by constructing both on the same TranspositionTable)."""
        self.main_owner = main
        self.s.shared = main.s.shared

    def copy_settings(self, Search other) -> None:
        """Take other's extensions, draw score and tablebase probing (a helper searches like its
        main thread)."""
        self.s.ext_check = other.s.ext_check
        self.s.ext_one_reply = other.s.ext_one_reply
        self.s.ext_recapture = other.s.ext_recapture
        self.s.ext_passed_push = other.s.ext_passed_push
        self.s.ext_mate = other.s.ext_mate
        self.s.draw_score = other.s.draw_score
        self.s.tb_probing = other.s.tb_probing
        self.s.tb_probe_depth = other.s.tb_probe_depth

    def deepen(self, int helper, int first_depth, int max_depth, int search_id) -> None:
        """A helper's whole iterative deepening, without the GIL, until stopped or max_depth is
        done; helper (1, 2, ...) picks the depths it skips. completed() reads its results."""
        self.s.search_id = search_id
        if self.s.root_count == 0:
            return
        with nogil:
            helper_deepen(self.s, helper, first_depth, max_depth)

    def completed(self, int search_id) -> tuple:
        """(depth, score, pv) of the deepest iteration this search completed in search search_id;
        depth 0 if none. Safe while the helper still runs (it reads a consistent copy or nothing)."""
        cdef int attempt, seq, depth = 0, score = 0, length = 0, done_search = -1
        cdef Move line[MAX_PLY + 2]
        for attempt in range(100):
            seq = PONDEROSA_LOAD_ACQUIRE(&self.s.done_seq)
            if seq & 1:
                continue
            done_search = self.s.done_search
            depth = self.s.done_depth
            score = self.s.done_score
            length = self.s.done_pv_length
            if length < 0 or length > MAX_PLY + 2:
                continue
            memcpy(line, self.s.done_pv, length * sizeof(Move))
            PONDEROSA_FENCE_ACQUIRE()
            if PONDEROSA_ATOMIC_LOAD(&self.s.done_seq) == seq:
                break
        else:
            return (0, 0, [])
        if done_search != search_id or depth == 0:
            return (0, 0, [])
        return (depth, score, [move_to_uci(line[i]) for i in range(length)])

    @property
    def shared_nodes(self) -> int:
        """Nodes of all threads of the search as far as counted (each adds its own at every
        poll), plus this thread's since its last poll: exact for a single thread."""
        return atomic_load_u64(&self.s.shared.nodes) + self.s.nodes - self.s.nodes_reported

    def clear(self) -> None:
        """Forget killers and history (a new game)."""
        memset(self.s.killers, 0, sizeof(self.s.killers))
        memset(&self.s.history, 0, sizeof(History))

    def iterate(self, int depth, int alpha = -INFINITE, int beta = INFINITE) -> int:
        """Search the root to depth plies within (alpha, beta), without the GIL; returns the score.

        If the search was stopped the score is meaningless: read `best_move()` instead."""
        cdef int score
        if self.s.root_count == 0:
            raise ValueError("no legal moves in the root position")
        with nogil:
            score = search_root(self.s, alpha, beta, depth * ONE_PLY)
            if not self.s.stopped:
                order_root_moves(self.s)
        return score

    def best_move(self) -> str:
        return move_to_uci(self.s.root_moves[0].move)

    def set_root_first(self, int first) -> None:
        """MultiPV: the next iterate() searches only root moves from index `first` on (the
        lines before it were found earlier in this iteration); 0 searches them all."""
        if not 0 <= first < self.s.root_count:
            raise ValueError(f"root line {first} out of range 0..{self.s.root_count - 1}")
        self.s.root_first = first

    def current_move(self) -> tuple:
        """(root move being searched, its 1-based number): for progress reports from another
        thread while the search runs; a racy read of two ints, good enough for a display."""
        cdef int index = self.s.root_index
        if not 0 <= index < self.s.root_count:
            return None, 0
        return move_to_uci(self.s.root_moves[index].move), index + 1

    def root_score(self) -> int:
        """The score of the line searched last (root_moves[root_first]): after a stop in the
        middle of an iteration it is a lower bound for the move put first in that iteration."""
        return self.s.root_moves[self.s.root_first].score

    def line_move(self) -> str:
        """The best move of the line searched last (root_moves[root_first])."""
        return move_to_uci(self.s.root_moves[self.s.root_first].move)

    def sort_root_lines(self, int count) -> None:
        """MultiPV: order the first `count` root moves by the exact scores their lines got
        (a later line may score above an earlier one); stable, so ties keep their order."""
        cdef int i, j
        cdef RootMove key
        if count > self.s.root_count:
            count = self.s.root_count
        for i in range(1, count):
            key = self.s.root_moves[i]
            j = i - 1
            while j >= 0 and self.s.root_moves[j].score < key.score:
                self.s.root_moves[j + 1] = self.s.root_moves[j]
                j -= 1
            self.s.root_moves[j + 1] = key

    def pv(self) -> list:
        if self.s.pv_length[0] == 0:
            return [self.line_move()]
        return [move_to_uci(self.s.pv[0][i]) for i in range(self.s.pv_length[0])]

    @property
    def nodes(self) -> int:
        return self.s.nodes

    @property
    def seldepth(self) -> int:
        return self.s.seldepth

    @property
    def tbhits(self) -> int:
        """Tablebase probes that found their table, in this search."""
        return self.s.tbhits

    def set_tablebase_probing(self, bint enabled, int probe_depth = 1) -> None:
        """Probe the Syzygy WDL tables in the tree (after zeroing moves, at remaining depth >= probe_depth plies)."""
        self.s.tb_probing = enabled
        self.s.tb_probe_depth = probe_depth * ONE_PLY

    def root_moves(self) -> list:
        return [move_to_uci(self.s.root_moves[i].move) for i in range(self.s.root_count)]

    def set_extension(self, name: str, plies: float) -> None:
        """Crafty's `extensions` command: incheck, onerep, recapture, pushpp, mate, in plies (0-1)."""
        if name not in EXTENSIONS:
            raise ValueError(f"unknown extension {name!r}; one of {', '.join(EXTENSIONS)}")
        if not 0.0 <= plies <= 1.0:
            raise ValueError("an extension is between 0 and 1 ply")
        units = int(round(plies * ONE_PLY))
        if name == "incheck":
            self.s.ext_check = units
        elif name == "onerep":
            self.s.ext_one_reply = units
        elif name == "recapture":
            self.s.ext_recapture = units
        elif name == "pushpp":
            self.s.ext_passed_push = units
        else:
            self.s.ext_mate = units

    def extensions(self) -> dict:
        cdef double ply = ONE_PLY
        return {"incheck": self.s.ext_check / ply, "onerep": self.s.ext_one_reply / ply,
                "recapture": self.s.ext_recapture / ply, "pushpp": self.s.ext_passed_push / ply,
                "mate": self.s.ext_mate / ply}

    @property
    def draw_score(self) -> int:
        return self.s.draw_score

    @draw_score.setter
    def draw_score(self, int value) -> None:
        self.s.draw_score = value


MATE_SCORE = MATE
MATE_THRESHOLD = MATE_BOUND
TABLEBASE_WIN = TB_WIN_SCORE          # a tablebase win at ply 0 (TABLEBASE_WIN - n: found n plies in)
TABLEBASE_THRESHOLD = TB_WIN_BOUND
INFINITE_SCORE = INFINITE
LEARNED_ENTRY_DEPTH = LEARNED_DEPTH   # tt.store() depth of a position-learning entry
