# Included by evaluation.pxi (part of core.pyx, the core's one C unit): the Evaluator class, the
# Python-facing side of the static and neural evaluation, and its timing loop; the names are
# module-level there.


cdef long long bench_loop(Position** positions, int count, long repetitions, EvalState* ev,
                          bint cached) noexcept nogil:
    """Evaluate every position repetitions times, through the evaluation cache or computing every
    score afresh; returns a checksum so nothing is optimised away."""
    cdef long r
    cdef int i
    cdef long long total = 0
    for r in range(repetitions):
        for i in range(count):
            if cached:
                total += evaluate(positions[i], ev)
            else:
                total += evaluate_uncached(positions[i], ev)
    return total


SCALE_LIMITS = {"asymmetry": (-100, 500), "bscale": (0, 1000), "kscale": (0, 1000),
                "tropism": (0, 1000), "pscale": (0, 1000), "ppscale": (0, 1000)}


cdef class Evaluator:
    """Static evaluator with its own pawn hash table and Crafty-style term scales, and the network
    it evaluates with (none at first: the hand-written evaluation)."""

    def __cinit__(self, *args, **kwargs):
        memset(&self.state, 0, sizeof(EvalState))
        set_defaults(&self.state)
        self.used_networks = []

    def __init__(self, pawn_hash_bytes: int = 4 * 1024 * 1024):
        self.set_pawn_hash(pawn_hash_bytes)

    def __dealloc__(self):
        eval_state_free(&self.state)

    def set_pawn_hash(self, bytes: int) -> None:
        """Resize the pawn table to the largest power of two of entries that fits in bytes
        (at least one entry) and clear it; the scales are kept."""
        if bytes < 0:
            raise ValueError(f"pawn hash size {bytes} is negative")
        if resize_pawn_table(&self.state, <size_t>bytes) != 0:
            raise MemoryError(f"cannot allocate a pawn hash of {bytes} bytes")

    def clear(self) -> None:
        """Empty the pawn hash table."""
        eval_state_clear(&self.state)

    @property
    def pawn_hash_entries(self) -> int:
        return self.state.pawn_mask + 1

    @property
    def pawn_hash_stats(self) -> tuple:
        """(probes, hits) since the last clear."""
        return (self.state.pawn_probes, self.state.pawn_hits)

    @property
    def engine_side(self) -> int:
        """Colour the engine plays (0 White, 1 Black): asymmetry scales the other side's king safety."""
        return self.state.engine_side

    @engine_side.setter
    def engine_side(self, int colour) -> None:
        if colour not in (WHITE, BLACK):
            raise ValueError(f"engine side must be 0 (White) or 1 (Black), not {colour}")
        self.state.engine_side = colour

    @property
    def network(self):
        """The Network this evaluator evaluates with, or None: the hand-written evaluation."""
        return self.network_owner

    @network.setter
    def network(self, Network network) -> None:
        # Give it between searches of this evaluator. One that does run on meanwhile (without the
        # GIL) finishes each evaluation with the network it began it with: a network once given
        # is kept as long as the evaluator (a replaced one costs its 400 KB, and networks are
        # replaced by a person, not in a loop).
        if network is not None and not any(used is network for used in self.used_networks):
            self.used_networks.append(network)
        self.network_owner = network
        self.state.net = network.net if network is not None else NULL

    @property
    def network_active(self) -> bool:
        """Whether this evaluator evaluates with a network."""
        return self.state.net != NULL

    def set_scale(self, name, value) -> None:
        """Set one of Crafty's evaluation scales (percent; asymmetry is a signed percent)."""
        if name not in SCALE_LIMITS:
            raise ValueError(f"unknown evaluation scale {name!r}; known: {', '.join(SCALE_NAMES)}")
        low, high = SCALE_LIMITS[name]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{name} must be an integer from {low} to {high}, not {value!r}")
        if name == "asymmetry":
            self.state.asymmetry = value
        elif name == "bscale":
            self.state.bscale = value
        elif name == "kscale":
            self.state.kscale = value
        elif name == "tropism":
            self.state.tropism = value
        elif name == "pscale":
            self.state.pscale = value
        else:
            self.state.ppscale = value

    def scales(self) -> dict:
        return {"asymmetry": self.state.asymmetry, "bscale": self.state.bscale, "kscale": self.state.kscale,
                "tropism": self.state.tropism, "pscale": self.state.pscale, "ppscale": self.state.ppscale}

    def evaluate(self, Board board not None) -> int:
        """Centipawns from the side to move's point of view."""
        return evaluate(board.pos, &self.state)

    def network_evaluate(self, Board board not None) -> int:
        """The network's own output (side to move's view), before the material facts that
        evaluate() applies; the hand-written evaluation's score when it has no network."""
        cdef NNUENetwork* net = self.state.net
        if net == NULL:
            return self.classic_evaluate(board)
        if not nnue_state_ready(&self.state):
            raise MemoryError()
        return nnue_evaluate(net, board.pos, self.state.accumulators, self.state.refresh_cache)

    def classic_evaluate(self, Board board not None) -> int:
        """The hand-written evaluation's score (side to move's view), whether or not it has a network."""
        cdef int score = evaluate_uncached(board.pos, &self.state)
        return score if board.pos.side == WHITE else -score

    def network_accumulator(self, Board board not None, bint fresh = False) -> tuple:
        """The network's first-layer sums for the board, (White's perspective, Black's) as lists:
        through this evaluator's incremental stack, or with fresh computed from scratch."""
        cdef NNUEAccumulator* scratch
        cdef NNUEAccumulator* acc
        cdef NNUENetwork* net = self.state.net
        if net == NULL:
            raise RuntimeError("the evaluator has no network")
        if fresh:
            scratch = <NNUEAccumulator*>malloc(sizeof(NNUEAccumulator))
            if scratch == NULL:
                raise MemoryError()
            nnue_refresh(net, board.pos, scratch)
            result = ([scratch.values[0][i] for i in range(NNUE_HIDDEN)],
                      [scratch.values[1][i] for i in range(NNUE_HIDDEN)])
            free(scratch)
            return result
        evaluate(board.pos, &self.state)
        if self.state.accumulators == NULL:
            raise MemoryError()
        acc = &self.state.accumulators[board.pos.ply]
        return ([acc.values[0][i] for i in range(NNUE_HIDDEN)], [acc.values[1][i] for i in range(NNUE_HIDDEN)])

    def breakdown(self, Board board not None) -> list:
        """(term, White's part, Black's part, net for White) per term, after tapering and scaling.

        Each colour's part is that colour's own score (positive = good for it). The net column is
        cumulative: each row is the change of the tapered running total White minus Black when the
        term is added, so the nets add up exactly to the White-view score; a row's net can differ by
        1 from White's part minus Black's part through rounding. The last row, "draw scaling", is the
        change made by the endgame scale factor (dead draws, opposite bishops ...) and the clamp.
        """
        cdef EvalTerms t
        cdef int i, mg = 0, eg = 0, running, previous = 0
        cdef int total = evaluate_terms(board.pos, &self.state, &t)
        rows = []
        for i in range(N_TERMS):
            mg += t.mg[i][WHITE] - t.mg[i][BLACK]
            eg += t.eg[i][WHITE] - t.eg[i][BLACK]
            running = taper(mg, eg, t.phase)
            rows.append((TERM_NAMES[i], taper(t.mg[i][WHITE], t.eg[i][WHITE], t.phase),
                         taper(t.mg[i][BLACK], t.eg[i][BLACK], t.phase), running - previous))
            previous = running
        rows.append(("draw scaling", 0, 0, total - previous))
        return rows

    def phase(self, Board board not None) -> int:
        """Game phase, PHASE_MAX (24) with all pieces on the board down to 0 with none."""
        cdef EvalTerms t
        evaluate_terms(board.pos, &self.state, &t)
        return t.phase

    def benchmark(self, boards: list, long repetitions = 1000, bint cached = True) -> float:
        """Average nanoseconds per evaluate() call over the boards, timed in C without the GIL.
        With cached false every score is computed afresh, bypassing the evaluation cache (which
        otherwise answers every pass after the first)."""
        cdef int count = len(boards)
        cdef Position** positions
        cdef clock_t start, stop
        cdef long long checksum
        if count == 0 or repetitions <= 0:
            raise ValueError("need at least one board and one repetition")
        positions = <Position**>calloc(count, sizeof(Position*))
        if positions == NULL:
            raise MemoryError()
        try:
            for i, board in enumerate(boards):
                positions[i] = (<Board?>board).pos
            with nogil:
                start = clock()
                checksum = bench_loop(positions, count, repetitions, &self.state, cached)
                stop = clock()
        finally:
            free(positions)
        return (stop - start) * 1e9 / CLOCKS_PER_SEC / (count * repetitions)
