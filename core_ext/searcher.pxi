# Included by search.pxi (part of core.pyx, the core's one C unit: the Search class, the Python-facing side of the core search); the names are module-level there.

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
            if excluded and move_to_uci(&self.s.pos, moves[i]) in excluded:
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
        return (depth, score, [move_to_uci(&self.s.pos, line[i]) for i in range(length)])

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
        return move_to_uci(&self.s.pos, self.s.root_moves[0].move)

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
        return move_to_uci(&self.s.pos, self.s.root_moves[index].move), index + 1

    def root_score(self) -> int:
        """The score of the line searched last (root_moves[root_first]): after a stop in the
        middle of an iteration it is a lower bound for the move put first in that iteration."""
        return self.s.root_moves[self.s.root_first].score

    def line_move(self) -> str:
        """The best move of the line searched last (root_moves[root_first])."""
        return move_to_uci(&self.s.pos, self.s.root_moves[self.s.root_first].move)

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
        """The principal variation from the root (UCI), as far as a game could play it: no move
        after a mate, stalemate, threefold repetition or fiftieth move (match runners check)."""
        cdef int length
        if self.s.pv_length[0] == 0:
            return [self.line_move()]
        length = playable_length(&self.s.pos, self.s.pv[0], self.s.pv_length[0])
        return [move_to_uci(&self.s.pos, self.s.pv[0][i]) for i in range(max(length, 1))]

    def playable(self, list line) -> list:
        """line (UCI moves from the root set by set_position: a helper's PV) cut where pv() cuts."""
        cdef Move moves[MAX_PLY + 2]
        cdef Move legal[MAX_MOVES]
        cdef Position* pos = &self.s.pos
        cdef int count = 0, i, n, length
        for text in line[:MAX_PLY + 2]:
            n = generate_legal(pos, legal)
            for i in range(n):
                if move_to_uci(pos, legal[i]) == text:
                    break
            else:
                break
            moves[count] = legal[i]
            count += 1
            do_move(pos, legal[i])
        for i in range(count):
            undo_move(pos)
        length = playable_length(pos, moves, count)
        return list(line[:length])

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
        return [move_to_uci(&self.s.pos, self.s.root_moves[i].move) for i in range(self.s.root_count)]

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
