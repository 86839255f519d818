# Included by search.pxi: the search's margins, depths and reductions, each a C int the search
# reads directly, and the table that names them for tuning (SPSA through the UCI options of
# engine/engine_options.py). The defaults are the shipped engine's; the tables built from several
# parameters (late-move reductions, futility margins, late-move counts) are rebuilt on each change.

cdef int RAZOR_DEPTH = 2                # razoring up to this many plies from the leaves
cdef int RAZOR_MARGIN = 300             # per ply: how far below alpha the static evaluation must be
cdef int RFP_DEPTH = 8                  # reverse futility up to this many plies from the leaves
cdef int RFP_MARGIN = 85                # per ply (one less when improving) above beta
cdef int PRUNING_DEPTH = 8              # late-move and futility pruning up to this many plies from the leaves
cdef int FUTILITY_SCALE = 100           # percent of FUTILITY_BASE
cdef int LATE_MOVE_SCALE = 100          # percent of LATE_MOVE_BASE
cdef int HISTORY_PRUNE_MARGIN = 3000    # a quiet move this far below zero per ply of depth is not tried near the leaves
cdef int QUIET_SEE_MARGIN = 60          # a quiet move losing more than this per ply by exchange is not tried
cdef int CAPTURE_SEE_MARGIN = 100       # a bad capture losing more than this per ply is not tried
cdef int CAPTURE_SEE_DEPTH = 4          # ... up to this many plies from the leaves
cdef int CONTINUATION_PRUNE_DEPTH = 0   # up to this many plies (after PRUNE_LMR_SHARE), a quiet move both continuation statistics rate below zero is not tried (0: off)
cdef int PRUNE_LMR_SHARE = 0            # percent of a quiet move's late-move reduction taken off the depth its history and SEE pruning use
cdef int LMR_BASE = 75                  # late-move reduction: (LMR_BASE + 100 log d log m / LMR_DIVISOR) / 100 plies
cdef int LMR_DIVISOR = 225
cdef int HISTORY_PER_PLY = 12288        # statistics that change a reduction by a ply
cdef int LMR_CUT_NODE = 0               # quarter plies more for a late quiet move at an expected cut node
cdef int LMR_CAPTURE_HASH_MOVE = 0      # quarter plies more for a late quiet move when the hash move is a capture
cdef int SMP_BREADCRUMB = 0             # quarter plies more for a late quiet move at a node another thread searches
cdef int LMR_TT_PV = 0                  # quarter plies less at a node that is or was on a principal variation (the table's flag)
cdef int NULL_BASE = 3                  # null-move reduction: NULL_BASE plies + depth / NULL_DEPTH_DIVISOR
cdef int NULL_DEPTH_DIVISOR = 6
cdef int NULL_EVAL_DIVISOR = 200        # and a ply more per this many centipawns above beta (at most 3)
cdef int SINGULAR_DEPTH = 8             # least depth (plies) of a singular-extension test
cdef int SINGULAR_MARGIN = 2            # per ply: how far below the hash score the other moves must stay
cdef int IIR_DEPTH = 4                  # least depth (plies) of an internal iterative reduction
cdef int UPCOMING_REPETITION = 0        # 1: a node with a move that repeats an earlier position raises alpha to a draw
cdef int TT_CUTOFF_HISTORY = 0          # 1: a table cut-off by a quiet hash move updates its statistics (killer, counter, history)
cdef int CHECK_EXTENSION_SEE = 0        # 1: a check is extended only when discovered or not losing by exchange
cdef int ASPIRATION_WINDOW = 25         # the first window around the last iteration's score (helpers; the main thread reads it too)

cdef int LMR_TABLE[64][64]              # reduction in plies by depth and move number
cdef int FUTILITY_BASE[9]
FUTILITY_BASE[:] = [0, 120, 220, 330, 440, 550, 660, 770, 880]
cdef int FUTILITY_MARGIN[9]
# Quiet moves tried before the rest are skipped, by plies from the leaves, when the static
# evaluation is not improving [0] and when it is [1] (Ethereal's published counts).
cdef int LATE_MOVE_BASE[2][9]
LATE_MOVE_BASE[0][:] = [0, 3, 4, 7, 12, 16, 21, 28, 34]
LATE_MOVE_BASE[1][:] = [0, 5, 7, 12, 18, 27, 38, 50, 65]
cdef int LATE_MOVE_COUNT[2][9]


cdef void build_parameter_tables() noexcept nogil:
    cdef int d, m, i
    for d in range(64):
        for m in range(64):
            if d == 0 or m == 0:
                LMR_TABLE[d][m] = 0
            else:
                LMR_TABLE[d][m] = <int>(LMR_BASE / 100.0 + log(d) * log(m) / (LMR_DIVISOR / 100.0))
    for i in range(9):
        FUTILITY_MARGIN[i] = FUTILITY_BASE[i] * FUTILITY_SCALE // 100
        LATE_MOVE_COUNT[0][i] = LATE_MOVE_BASE[0][i] * LATE_MOVE_SCALE // 100
        LATE_MOVE_COUNT[1][i] = LATE_MOVE_BASE[1][i] * LATE_MOVE_SCALE // 100

build_parameter_tables()


# name, the C int, its range and SPSA's step at the run's end (c_end: about a twentieth of the range).
cdef enum:
    PARAMETER_COUNT = 30
cdef int* PARAMETER_ADDRESS[PARAMETER_COUNT]
PARAMETER_RANGES = (
    ("RazorDepth", 1, 4, 0.5),
    ("RazorMargin", 100, 700, 30),
    ("ReverseFutilityDepth", 4, 12, 0.5),
    ("ReverseFutilityMargin", 40, 160, 8),
    ("PruningDepth", 4, 8, 0.5),
    ("FutilityScale", 50, 200, 8),
    ("LateMoveScale", 50, 200, 8),
    ("HistoryPruneMargin", 1000, 8000, 300),
    ("QuietSeeMargin", 20, 150, 6),
    ("CaptureSeeMargin", 40, 200, 8),
    ("LmrBase", 25, 150, 8),
    ("LmrDivisor", 150, 350, 12),
    ("LmrHistoryDivisor", 4096, 32768, 1024),
    ("NullMoveBase", 2, 5, 0.5),
    ("NullMoveDepthDivisor", 3, 10, 0.5),
    ("NullMoveEvalDivisor", 100, 400, 16),
    ("SingularDepth", 5, 12, 0.5),
    ("SingularMargin", 1, 4, 0.5),
    ("IirDepth", 2, 8, 0.5),
    ("AspirationWindow", 10, 60, 3),
    ("LmrCutNode", 0, 16, 1),
    ("LmrCaptureHashMove", 0, 12, 1),
    ("LmrTtPv", 0, 12, 1),
    ("SmpBreadcrumb", 0, 12, 1),
    ("CaptureSeeDepth", 2, 12, 0.5),
    ("PruneLmrShare", 0, 100, 5),
    ("ContinuationPruneDepth", 0, 6, 0.5),
    ("UpcomingRepetition", 0, 1, 0.25),
    ("TtCutoffHistory", 0, 1, 0.25),
    ("CheckExtensionSee", 0, 1, 0.25),
)
PARAMETER_ADDRESS[0] = &RAZOR_DEPTH
PARAMETER_ADDRESS[1] = &RAZOR_MARGIN
PARAMETER_ADDRESS[2] = &RFP_DEPTH
PARAMETER_ADDRESS[3] = &RFP_MARGIN
PARAMETER_ADDRESS[4] = &PRUNING_DEPTH
PARAMETER_ADDRESS[5] = &FUTILITY_SCALE
PARAMETER_ADDRESS[6] = &LATE_MOVE_SCALE
PARAMETER_ADDRESS[7] = &HISTORY_PRUNE_MARGIN
PARAMETER_ADDRESS[8] = &QUIET_SEE_MARGIN
PARAMETER_ADDRESS[9] = &CAPTURE_SEE_MARGIN
PARAMETER_ADDRESS[10] = &LMR_BASE
PARAMETER_ADDRESS[11] = &LMR_DIVISOR
PARAMETER_ADDRESS[12] = &HISTORY_PER_PLY
PARAMETER_ADDRESS[13] = &NULL_BASE
PARAMETER_ADDRESS[14] = &NULL_DEPTH_DIVISOR
PARAMETER_ADDRESS[15] = &NULL_EVAL_DIVISOR
PARAMETER_ADDRESS[16] = &SINGULAR_DEPTH
PARAMETER_ADDRESS[17] = &SINGULAR_MARGIN
PARAMETER_ADDRESS[18] = &IIR_DEPTH
PARAMETER_ADDRESS[19] = &ASPIRATION_WINDOW
PARAMETER_ADDRESS[20] = &LMR_CUT_NODE
PARAMETER_ADDRESS[21] = &LMR_CAPTURE_HASH_MOVE
PARAMETER_ADDRESS[22] = &LMR_TT_PV
PARAMETER_ADDRESS[23] = &SMP_BREADCRUMB
PARAMETER_ADDRESS[24] = &CAPTURE_SEE_DEPTH
PARAMETER_ADDRESS[25] = &PRUNE_LMR_SHARE
PARAMETER_ADDRESS[26] = &CONTINUATION_PRUNE_DEPTH
PARAMETER_ADDRESS[27] = &UPCOMING_REPETITION
PARAMETER_ADDRESS[28] = &TT_CUTOFF_HISTORY
PARAMETER_ADDRESS[29] = &CHECK_EXTENSION_SEE
if len(PARAMETER_RANGES) != PARAMETER_COUNT:   # a row without its address (or one too many) reads a wild pointer
    raise ImportError(f"search_parameters.pxi: {len(PARAMETER_RANGES)} ranges for {PARAMETER_COUNT} parameters")
PARAMETER_DEFAULTS = tuple(PARAMETER_ADDRESS[i][0] for i in range(len(PARAMETER_RANGES)))
PARAMETER_INDEX = {row[0].lower(): i for i, row in enumerate(PARAMETER_RANGES)}


def search_parameters():
    """(name, value, default, low, high, step) of each tunable search parameter, in the table's
    order; step is SPSA's perturbation at a run's end (OpenBench's c_end)."""
    return [(name, PARAMETER_ADDRESS[i][0], PARAMETER_DEFAULTS[i], low, high, step)
            for i, (name, low, high, step) in enumerate(PARAMETER_RANGES)]


def search_parameter(str name):
    """The value in use of one parameter (names are case-insensitive); KeyError for an unknown one."""
    return PARAMETER_ADDRESS[PARAMETER_INDEX[name.lower()]][0]


def set_search_parameter(str name, int value):
    """Set one parameter for every search that starts from now on, in every thread (KeyError for an
    unknown name, ValueError outside its range)."""
    cdef int i = PARAMETER_INDEX[name.lower()]
    low, high = PARAMETER_RANGES[i][1], PARAMETER_RANGES[i][2]
    if not low <= value <= high:
        raise ValueError(f"{PARAMETER_RANGES[i][0]} takes {low} to {high}, not {value}")
    PARAMETER_ADDRESS[i][0] = value
    build_parameter_tables()
