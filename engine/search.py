"""Iterative deepening over the core search: aspiration windows, limits and thinking reports."""
from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ponderosa.core_ext.core import (
    INFINITE_SCORE,
    MATE_SCORE,
    MATE_THRESHOLD,
    Board,
    Evaluator,
    Search,
    TranspositionTable,
    search_parameter,
)
from ponderosa.engine.clock import MIN_BUDGET

if TYPE_CHECKING:
    from ponderosa.engine.tablebases import Tablebases
    from ponderosa.engine.worker import HelperPool, HelperResult

MAX_DEPTH = 100
SETTLED_SHARE = 0.6     # no iteration starts past this share of the soft limit (it would overrun)
WON_SCORE = 1000        # centipawns for the side to move: the position is won...
WON_MIN_DEPTH = 8       # ...once an iteration this deep says so
WON_SOFT_FACTOR = 0.25  # then iterations stop at a quarter of the settled share
WON_HARD_SHARE = 0.5    # and the hard limit drops to half the soft limit


def won_position(depth: int, score: int) -> bool:
    """Whether a finished iteration's score (the mover's view, a mate for the mover included)
    says the game is won: more thought would not change the result, so the clock gives the move
    less (a +55 move on a server once took a third of a 2-minute game's base time)."""
    return depth >= WON_MIN_DEPTH and score >= WON_SCORE


@dataclass(frozen=True)
class SearchLimits:
    """What ends a search: a depth (sd), a fixed time (st), a node count (sn), or a clock budget.

    soft_seconds: do not start a new iteration after this; hard_seconds: stop at once.
    A search with no limit at all runs until stopped (analysis, pondering)."""

    depth: int | None = None
    nodes: int | None = None
    soft_seconds: float | None = None
    hard_seconds: float | None = None
    mate: int | None = None    # UCI `go mate N`: stop once a mate in at most N moves is proven

    @property
    def open_ended(self) -> bool:
        """No depth, node or time limit: analysis or pondering, which runs until stopped."""
        return self.soft_seconds is None and self.nodes is None and self.depth is None

    @classmethod
    def fixed_time(cls, seconds: float, depth: int | None = None, nodes: int | None = None) -> SearchLimits:
        """Crafty's `st`: all of the time may be used, none beyond it."""
        return cls(depth=depth, nodes=nodes, soft_seconds=seconds, hard_seconds=seconds)

    def less_waited(self, seconds: float) -> SearchLimits:
        """These limits with time already gone off the move's clock taken off both time limits
        (the command that asked for the move waited while the engine loaded), never below
        MIN_BUDGET (engine/clock.py): the search still completes its first iteration."""
        if seconds <= 0 or self.soft_seconds is None or self.hard_seconds is None:
            return self
        return dataclasses.replace(self, soft_seconds=max(MIN_BUDGET, self.soft_seconds - seconds),
                                   hard_seconds=max(MIN_BUDGET, self.hard_seconds - seconds))


@dataclass(frozen=True)
class Thinking:
    """One report of the search: after an iteration, or when the root score leaves the window."""

    depth: int
    score: int              # centipawns from the side to move; beyond MATE_THRESHOLD a mate
    seconds: float
    nodes: int
    pv: list[str]           # UCI moves from the root
    bound: str = "exact"    # "exact", "lower" (fail high) or "upper" (fail low)
    seldepth: int = 0
    tbhits: int | None = None   # tablebase probes that found a table; None when no tables are loaded
    multipv: int = 1        # which line (1 = best) of a MultiPV search
    lines: int = 1          # lines the search reports per iteration (multipv counts up to it)

    @property
    def nodes_per_second(self) -> int:
        """The speed the protocols report (0 before any time has passed)."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


@dataclass
class SearchResult:
    best_move: str | None
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[str] = field(default_factory=list)

    @property
    def ponder_move(self) -> str | None:
        return self.pv[1] if len(self.pv) > 1 else None


def mate_distance(score: int) -> int | None:
    """Moves to mate (positive: side to move mates; negative: gets mated), or None."""
    if score >= MATE_THRESHOLD:
        return (MATE_SCORE - score + 1) // 2
    if score <= -MATE_THRESHOLD:
        return -((MATE_SCORE + score) // 2)
    return None


class Searcher:
    """Runs iterative deepening on a Board with a shared hash table and evaluator."""

    def __init__(self, tt: TranspositionTable, evaluator: Evaluator) -> None:
        self.core = Search(tt, evaluator)
        self.tt = tt
        self._start_ns = 0
        self._soft_deadline_ns = 0     # 0: no soft limit
        self._hard_deadline_ns = 0     # 0: no hard limit
        self._open_ended = False       # analysis or pondering: no early exits
        self.before_search: Callable[[], None] | None = None   # run once the table is ready
        self.helpers: HelperPool | None = None   # helper threads; this thread decides the move
        self._budget_lock = threading.Lock()
        self._searching = False                  # run() has set its limits and not yet returned
        self._pending_budget: tuple[float, float] | None = None   # a budget given before that
        self.tablebases: Tablebases | None = None   # Syzygy root filter and probing settings
        self._root_tbhits: int | None = None         # probes of the root filter; None: no tables

        self.multi_pv = 1              # lines reported per iteration (UCI MultiPV); 1 = the plain search
        self._line_pvs: list[list[str]] = []   # the last MultiPV iteration's lines, best first

    def expect_search(self) -> None:
        """A search is about to start on another thread: a time budget given before it has set
        its limits (a ponder hit right after the ponder search was started) is kept for it."""
        with self._budget_lock:
            self._pending_budget = None

    def stop(self) -> None:
        """Stop a running search from any thread; it returns its best move at once."""
        self.core.stop()

    @property
    def hard_limit_seconds(self) -> float | None:
        """The running (or last) search's hard limit in seconds from its start, None without one;
        a won position cuts it during the search."""
        with self._budget_lock:
            return (self._hard_deadline_ns - self._start_ns) / 1e9 if self._hard_deadline_ns else None

    def park_helpers(self) -> None:
        """Wait for the last search's helper threads to stop: before the stop flag is cleared
        for a new search (or they would go on with the old one) or the table is touched."""
        if self.helpers is not None:
            self.helpers.park()

    def progress(self) -> tuple[str | None, int, int, float]:
        """(root move being searched, its number, nodes so far, seconds since the search began),
        read from another thread while a search runs (UCI's currmove and periodic info lines)."""
        move, number = self.core.current_move()
        return move, number, self.core.shared_nodes, (time.monotonic_ns() - self._start_ns) / 1e9

    def set_time_budget(self, soft_seconds: float, hard_seconds: float) -> None:
        """Give a running open-ended search (a ponder search after a ponder hit) a time budget.

        Both limits count from the start of the search, so the time spent pondering counts as
        time already used; a search already past its soft limit stops at once."""
        with self._budget_lock:
            if not self._searching:
                self._pending_budget = (soft_seconds, hard_seconds)
                return
            self._apply_budget(soft_seconds, hard_seconds)

    def _apply_budget(self, soft_seconds: float, hard_seconds: float) -> None:
        now = time.monotonic_ns()
        self._soft_deadline_ns = self._start_ns + int(soft_seconds * 1e9)
        hard = self._hard_deadline_ns = self._start_ns + int(hard_seconds * 1e9)
        self._open_ended = False
        self.core.set_deadline(hard)
        if now >= self._soft_deadline_ns or now >= hard:
            self.core.stop()

    def _next_iteration_would_overrun(self, won: bool) -> bool:
        """An iteration takes about twice the one before it: past SETTLED_SHARE of the soft limit
        the next one would most likely end far beyond it (or be cut off by the hard limit). In a
        won position the share is a quarter of that."""
        share = SETTLED_SHARE * (WON_SOFT_FACTOR if won else 1.0)
        return time.monotonic_ns() - self._start_ns >= share * (self._soft_deadline_ns - self._start_ns)

    def _cut_hard_limit_when_won(self) -> None:
        """A won position: the hard limit drops to WON_HARD_SHARE of the soft limit, so that an
        iteration already running does not take the rest."""
        with self._budget_lock:
            cut = self._start_ns + int((self._soft_deadline_ns - self._start_ns) * WON_HARD_SHARE)
            if not self._hard_deadline_ns or cut < self._hard_deadline_ns:
                self._hard_deadline_ns = cut
                self.core.set_deadline(cut)

    def run(self, board: Board, limits: SearchLimits,
            on_thinking: Callable[[Thinking], None] | None = None,
            should_continue: Callable[[int, str], bool] | None = None,
            excluded: Collection[str] = (), clear_stop: bool = True, threads: int | None = None,
            multi_pv: int | None = None) -> SearchResult:
        """Search until a limit is reached or stop() is called.

        should_continue(depth, best_move) is asked after each iteration (test suites use it
        for early exit); root moves in `excluded` are not searched. A caller that starts the
        search on another thread clears the stop flag itself first and passes clear_stop=False.
        threads caps the threads of this search (bench runs one); None uses all the pool has.
        multi_pv (default: self.multi_pv) lines are searched and reported per iteration: the
        root is searched once per line with the lines already found left out."""
        self.park_helpers()
        if clear_stop:
            self.core.clear_stop()
        start = time.monotonic_ns()
        self._start_ns = start
        root_tbhits = 0
        if self.tablebases is not None:
            excluded, probing, root_tbhits = self.tablebases.prepare_search(board, set(excluded), limits.open_ended)
            self.core.set_tablebase_probing(probing, self.tablebases.probe_depth)
        with_tables = self.tablebases is not None and self.tablebases.largest > 0
        self._root_tbhits = root_tbhits if with_tables else None
        moves = self.core.set_position(board, excluded)
        if moves == 0:
            return SearchResult(None, 0, 0, 0, 0.0)
        deadline = start + int(limits.hard_seconds * 1e9) if limits.hard_seconds is not None else 0
        self._hard_deadline_ns = deadline
        self._soft_deadline_ns = start + int(limits.soft_seconds * 1e9) if limits.soft_seconds is not None else 0
        self._open_ended = limits.open_ended
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        self.core.set_limits(node_limit=limits.nodes or 0, deadline_ns=deadline,
                             depth_limit=max_depth if limits.depth else 0)
        self.tt.new_search()
        if self.before_search is not None:
            self.before_search()   # position learning puts its entries into the table
        with self._budget_lock:
            self._searching = True
            pending, self._pending_budget = self._pending_budget, None
            if pending is not None and not clear_stop:
                self._apply_budget(*pending)
        helpers = self.helpers if self.helpers is not None and self.helpers.searching(threads) > 1 else None
        if helpers is not None:
            helpers.start(board, excluded, max_depth, threads)
        try:
            result = self._deepen(moves, max_depth, limits, start, on_thinking, should_continue, multi_pv)
        finally:
            helper_results = helpers.finish() if helpers is not None else []
            with self._budget_lock:
                self._searching = False
        return self._decide(result, helper_results, start, on_thinking)

    def _decide(self, result: SearchResult, helper_results: list[HelperResult], start: int,
                on_thinking: Callable[[Thinking], None] | None) -> SearchResult:
        """The move of the search: the main thread's, unless a helper completed a deeper iteration
        (its move is checked against the root moves: it must be legal and not excluded).
        Nodes: every thread's as counted at its last poll, the main thread's exactly."""
        deepest = max(helper_results, key=lambda done: done.depth, default=None)
        nodes = self.core.shared_nodes
        seconds = (time.monotonic_ns() - start) / 1e9
        if deepest is not None and deepest.depth > result.depth and deepest.pv \
                and deepest.pv[0] in self.core.root_moves():
            pv = self.core.playable(deepest.pv)   # a PV ends where the game would (as the main thread's)
            result = SearchResult(pv[0], deepest.score, deepest.depth, nodes, seconds, pv)
            if on_thinking is not None:
                on_thinking(Thinking(deepest.depth, deepest.score, seconds, nodes, pv, "exact",
                                     self.core.seldepth, self._tbhits()))
        result.nodes = nodes
        result.seconds = seconds
        return result

    def _tbhits(self) -> int | None:
        """Tablebase hits of this search (the main thread's and the root filter's); None without tables."""
        return None if self._root_tbhits is None else self.core.tbhits + self._root_tbhits

    def _deepen(self, moves: int, max_depth: int, limits: SearchLimits, start: int,
                on_thinking: Callable[[Thinking], None] | None,
                should_continue: Callable[[int, str], bool] | None, multi_pv: int | None) -> SearchResult:
        """The main thread's iterative deepening; the soft limit is applied between iterations."""
        result = SearchResult(self.core.best_move(), 0, 0, 0, 0.0, [self.core.best_move()])
        score = 0
        fixed_time = limits.soft_seconds is not None and limits.soft_seconds == limits.hard_seconds

        def elapsed() -> float:
            return (time.monotonic_ns() - start) / 1e9

        # The last report of line 1, and the last one with a score that is not an upper bound
        # (XBoard shows no fail-low lines, UCI shows all): what a GUI shows as the best move.
        last_line: list[Thinking] = []
        last_shown: list[Thinking] = []

        def report(depth: int, value: int, bound: str, line: int = 1, pv: list[str] | None = None) -> None:
            if on_thinking is not None:
                thinking = Thinking(depth, value, elapsed(), self.core.shared_nodes, pv or self.core.pv(), bound,
                                    self.core.seldepth, self._tbhits(), line, line_count)
                if line == 1:
                    last_line[:] = [thinking]
                    if bound != "upper":
                        last_shown[:] = [thinking]
                on_thinking(thinking)

        def shows_another_move(best: str) -> bool:
            """Whether a last line shown names a move other than best."""
            return any(last and last[0].pv[:1] != [best] for last in (last_line, last_shown))

        def aspirate(depth: int, previous: int, line: int) -> int:
            """One root search to depth, its window widened until the score falls inside it."""
            delta = search_parameter("AspirationWindow")   # the helpers' window too (a tunable)
            if depth >= 5 and abs(previous) < MATE_THRESHOLD:
                alpha, beta = max(previous - delta, -INFINITE_SCORE), min(previous + delta, INFINITE_SCORE)
            else:
                alpha, beta = -INFINITE_SCORE, INFINITE_SCORE
            while True:
                value = self.core.iterate(depth, alpha, beta)
                if self.core.stopped:
                    return value
                if value <= alpha:
                    report(depth, value, "upper", line)
                    alpha = max(value - delta, -INFINITE_SCORE)
                elif value >= beta:
                    report(depth, value, "lower", line)
                    beta = min(value + delta, INFINITE_SCORE)
                else:
                    return value
                delta *= 2

        line_count = max(1, min(self.multi_pv if multi_pv is None else multi_pv, moves))
        line_scores = [0] * line_count
        for depth in range(1, max_depth + 1):
            if line_count == 1:
                value = aspirate(depth, score, 1)
            else:
                value = self._search_lines(depth, line_scores, aspirate, report)
            if self.core.stopped:
                # The root keeps the best move found so far first, even mid-iteration.
                best = self.core.best_move()
                pv = self.core.pv()
                if not pv or pv[0] != best:
                    pv = [best]
                if len(pv) < 2 and len(result.pv) > 1 and result.pv[0] == best:
                    # The last finished iteration's line still holds when it starts with the
                    # same move: keep it, so that the result has a move to ponder on.
                    pv = result.pv
                if line_count == 1 and (best != result.best_move or shows_another_move(best)):
                    # The last line shown does not name the move played: a new best move in the
                    # unfinished iteration, or a fail high there that did not hold. A line for the
                    # move played, at this depth (depths never go down), its score a bound.
                    value = self.core.root_score()
                    if value > -INFINITE_SCORE:   # it raised alpha in this iteration
                        report(depth, value, "lower", 1, pv)
                    elif last_line:   # it failed low in this iteration, below the line shown
                        report(depth, last_line[0].score, "upper", 1, pv)
                result = SearchResult(best, result.score, result.depth, self.core.nodes, elapsed(), pv)
                break
            score = value
            pv = self.core.pv() if line_count == 1 else self._line_pvs[0]
            result = SearchResult(self.core.best_move(), score, depth, self.core.nodes, elapsed(), pv)
            if line_count == 1:
                report(depth, score, "exact")
            if self._open_ended:
                continue
            if moves == 1 and limits.depth is None and self._soft_deadline_ns:
                break  # a forced move needs no thought when playing on a clock
            if self._soft_deadline_ns and not fixed_time:
                won = won_position(depth, score)
                if won:
                    self._cut_hard_limit_when_won()
                if self._next_iteration_would_overrun(won):
                    break
            mate = mate_distance(score)
            if mate is not None and limits.depth is None and depth >= 2 * abs(mate) + 4 \
                    and (self._soft_deadline_ns or limits.nodes is not None):
                break  # a proven mate will not change with more depth
            if limits.mate is not None and mate is not None and 0 < mate <= limits.mate:
                break  # `go mate N` found what it was asked for
            if should_continue is not None and not should_continue(depth, result.best_move or ""):
                break
        return result

    def _search_lines(self, depth: int, scores: list[int], aspirate: Callable[[int, int, int], int],
                      report: Callable[..., None]) -> int:
        """One MultiPV iteration: line k searches the root moves not yet taken by lines 0..k-1;
        then the lines are ordered by score and reported. Returns the best line's score (meaningless
        when the search was stopped; the core's best move is still the best of a finished line)."""
        pvs: list[list[str]] = []
        for line in range(len(scores)):
            self.core.set_root_first(line)
            value = aspirate(depth, scores[line], line + 1)
            if self.core.stopped:
                self.core.set_root_first(0)
                return value
            scores[line] = value
            pvs.append(self.core.pv())
        self.core.set_root_first(0)
        self.core.sort_root_lines(len(scores))
        ranked = sorted(zip(scores, pvs), key=lambda pair: -pair[0])   # stable: ties keep their order
        scores[:] = [value for value, _ in ranked]
        self._line_pvs = [pv for _, pv in ranked]
        for number, (value, pv) in enumerate(ranked, start=1):
            report(depth, value, "exact", number, pv)
        return scores[0]
