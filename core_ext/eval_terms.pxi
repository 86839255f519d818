# Included by evaluation.pxi (part of core.pyx, the core's one C unit: where evaluate_into puts its
# terms); the names are module-level there.
#
# evaluate_into is written once against a TermSink and compiled twice. The breakdown, phase() and
# the tuner want every term per colour (EvalTerms); the search wants only the score (ScoreSums),
# which needs a term per colour only where a scale multiplies it, since a scale rounds each colour's
# term on its own: the unscaled terms are summed together (integer sums, so in any order), and each
# scaled term keeps its own sum per colour, scaled with the same arithmetic. The caller passes a
# NULL ScoreSums* and evaluate_into keeps the sums in a local of its own, where the compiler knows
# no write to them can change the position (the table is written through a pointer that might).

cdef struct ScoreSums:
    int mg[N_SUMS][2]             # [sum][colour], from that colour's view
    int eg[N_SUMS][2]

ctypedef fused TermSink:
    EvalTerms
    ScoreSums


cdef inline int sum_of(int term) noexcept nogil:
    """The ScoreSums sum a term adds to (a constant wherever term is one)."""
    if term == T_PAWNS:
        return S_PAWNS
    if term == T_BLOCKED:
        return S_BLOCKED
    if term == T_PASSED:
        return S_PASSED
    if term == T_TROPISM:
        return S_TROPISM
    if term == T_KING:
        return S_KING
    return S_UNSCALED


cdef inline void add_term(TermSink* t, int term, int c, int mg, int eg) noexcept nogil:
    """Credit colour c's term with (mg, eg)."""
    if TermSink is EvalTerms:
        t.mg[term][c] += mg
        t.eg[term][c] += eg
    else:
        t.mg[sum_of(term)][c] += mg
        t.eg[sum_of(term)][c] += eg


cdef inline void scale_term(TermSink* t, int term, int c, int pct) noexcept nogil:
    """Multiply colour c's term by pct percent (C division: truncated toward zero). Only the
    terms with a ScoreSums sum of their own are scaled."""
    cdef int i
    if TermSink is EvalTerms:
        i = term
    else:
        i = sum_of(term)
    if pct != 100:
        t.mg[i][c] = t.mg[i][c] * pct // 100
        t.eg[i][c] = t.eg[i][c] * pct // 100


cdef inline void net_for_white(TermSink* t, int* mg, int* eg) noexcept nogil:
    """The sum of the terms White minus Black, opening and endgame."""
    cdef int i, n
    if TermSink is EvalTerms:
        n = N_TERMS
    else:
        n = N_SUMS
    mg[0] = eg[0] = 0
    for i in range(n):
        mg[0] += t.mg[i][WHITE] - t.mg[i][BLACK]
        eg[0] += t.eg[i][WHITE] - t.eg[i][BLACK]
