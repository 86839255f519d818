"""The search threads: one main search thread runs beside the protocol loop, which stays free
to read input, answer pings and stop it; helper threads (Lazy SMP) search beside the main one.
Every thread is created once and parked between searches."""
from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from collections.abc import Collection
from dataclasses import dataclass
from typing import Callable

from ponderosa.core_ext.core import Board, Evaluator, Network, Search, TranspositionTable
from ponderosa.engine.limits import DEFAULT_PAWN_HASH_BYTES, MAX_THREADS
from ponderosa.engine.search import Searcher, SearchLimits, SearchResult, Thinking

log = logging.getLogger(__name__)


HELPER_NICENESS = 5   # helpers yield the CPU to the main search thread when threads outnumber cores


def _lower_this_threads_priority(steps: int) -> None:
    """Make the calling thread `steps` nice levels kinder (Linux sets niceness per thread).

    The main search thread decides the move and the stop; with more threads than free cores the
    scheduler then runs it before the helpers, so it reaches its next stop poll sooner. With a
    core for every thread nothing changes. Elsewhere niceness is per process: left alone."""
    if not sys.platform.startswith("linux"):
        return
    try:
        thread_id = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread_id, os.getpriority(os.PRIO_PROCESS, thread_id) + steps)
    except (OSError, AttributeError):   # a sandbox may forbid it: the helpers still search
        pass


@dataclass(frozen=True)
class HelperResult:
    """What one helper did in a search: its deepest completed iteration (depth 0: none)."""

    depth: int
    score: int
    pv: list[str]


class _Helper:
    """One parked helper thread with its own search state and pawn hash; the table is shared."""

    def __init__(self, index: int, main: Search, tt: TranspositionTable, pawn_hash_bytes: int,
                 network: Network | None) -> None:
        self.index = index
        self.evaluator = Evaluator(pawn_hash_bytes)
        self.evaluator.network = network   # the main thread's (copied again before each search)
        self.core = Search(tt, self.evaluator)
        self.core.share_with(main)     # the main search's stop flag, limits and node count
        self._job: tuple[Board, Collection[str], int, int, int] | None = None
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._quit = False
        self.thread = threading.Thread(target=self._run, name=f"search-helper-{index}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        _lower_this_threads_priority(HELPER_NICENESS)
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._quit:
                return
            job = self._job
            try:
                if job is not None:
                    board, excluded, first_depth, max_depth, search_id = job
                    self.core.set_position(board, excluded)
                    self.core.deepen(self.index, first_depth, max_depth, search_id)   # without the GIL
            except Exception:   # the thread must stay to park again: the main thread waits for it
                log.exception("search helper %d failed", self.index)
            finally:
                self._idle.set()

    def start(self, board: Board, excluded: Collection[str], first_depth: int, max_depth: int,
              search_id: int) -> None:
        self._job = (board, excluded, first_depth, max_depth, search_id)
        self._idle.clear()
        self._wake.set()

    def wait(self) -> None:
        self._idle.wait()

    def quit(self) -> None:
        self._quit = True
        self._wake.set()
        self.thread.join()


class HelperPool:
    """The helper threads of a Searcher (threads - 1 of them). The main thread starts them once
    its table is ready, decides the move and the stop, and reads their results without waiting
    for them: they park on their own within a few polls, and the next search (or anything that
    touches the table or the thread count) waits for that first."""

    def __init__(self, searcher: Searcher, evaluator: Evaluator) -> None:
        self.searcher = searcher
        self.evaluator = evaluator     # the main thread's: helpers copy its settings and its network
        self.min_depth = 1             # smpmin: helpers search iterations from this depth on
        self.max_helpers = MAX_THREADS - 1   # smpmax: the most helpers one search uses
        self.pawn_hash_bytes = DEFAULT_PAWN_HASH_BYTES
        self._helpers: list[_Helper] = []
        self._running: list[_Helper] = []
        self._search_id = 0            # tells a helper's result of this search from an older one

    @property
    def threads(self) -> int:
        """Threads that search (the main one and its helpers)."""
        return 1 + len(self._helpers)

    def resize(self, threads: int) -> None:
        """Have threads - 1 helpers; call between searches only."""
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be between 1 and {MAX_THREADS}")
        self.park()
        while len(self._helpers) > threads - 1:
            self._helpers.pop().quit()
        while len(self._helpers) < threads - 1:
            self._helpers.append(_Helper(len(self._helpers) + 1, self.searcher.core, self.searcher.tt,
                                         self.pawn_hash_bytes, self.evaluator.network))

    def set_pawn_hash(self, size_bytes: int) -> None:
        self.park()
        self.pawn_hash_bytes = size_bytes
        for helper in self._helpers:
            helper.evaluator.set_pawn_hash(size_bytes)

    def searching(self, limit: int | None = None) -> int:
        """Threads one search uses: all of them, within smpmax helpers and the caller's limit."""
        helpers = min(len(self._helpers), self.max_helpers)
        return 1 + helpers if limit is None else min(1 + helpers, max(1, limit))

    def start(self, board: Board, excluded: Collection[str], max_depth: int, threads: int | None = None) -> None:
        """Wake the helpers on board (the main thread has set the limits and cleared the stop)."""
        self.park()
        self._search_id = (self._search_id + 1) & 0x3FFFFFFF
        # Iterations shallower than smpmin are the main thread's alone: a search that stops
        # before it is not worth waking anyone.
        self._running = self._helpers[:self.searching(threads) - 1] if self.min_depth <= max_depth else []
        if self._running:
            board = board.copy()   # theirs alone: the caller's board may change once the move is decided
        scales = self.evaluator.scales()
        network = self.evaluator.network   # the engine's evaluation, which may have changed since the last search
        for helper in self._running:
            for name, value in scales.items():
                helper.evaluator.set_scale(name, value)
            helper.evaluator.engine_side = self.evaluator.engine_side
            if helper.evaluator.network is not network:
                helper.evaluator.network = network
            helper.core.copy_settings(self.searcher.core)
            helper.start(board, excluded, self.min_depth, max_depth, self._search_id)

    def finish(self) -> list[HelperResult]:
        """Stop the helpers and return what each completed (they park on their own)."""
        self.searcher.core.stop()
        results = []
        for helper in self._running:
            depth, score, pv = helper.core.completed(self._search_id)
            results.append(HelperResult(depth, score, pv))
        return results

    def park(self) -> None:
        """Wait until every helper of the last search has stopped (a stop was sent by finish)."""
        for helper in self._running:
            helper.wait()
        self._running = []

    def clear(self) -> None:
        """Forget killers, history and pawn hashes (a new game)."""
        self.park()
        for helper in self._helpers:
            helper.core.clear()
            helper.evaluator.clear()


class SearchWorker:
    """Runs searches on the main search thread and reports each result through a callback."""

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._serial = 0

    @property
    def busy(self) -> bool:
        return not self._idle.is_set()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                job()
            except Exception:   # the thread stays for the next search
                log.exception("search failed")
            finally:
                self._idle.set()

    def start(self, board: Board, limits: SearchLimits,
              on_thinking: Callable[[Thinking], None] | None,
              on_finished: Callable[[int, SearchResult], None],
              excluded: Collection[str] = (), ponder_move: str | None = None,
              multi_pv: int | None = None) -> int:
        """Search a copy of board (after ponder_move, when pondering); on_finished(serial, result)
        is called from the search thread. multi_pv: root lines searched (None: the searcher's setting).

        Returns the search's serial number, so that a caller can tell a stale report from
        the current one."""
        self.stop()
        with self._lock:
            self._serial += 1
            serial = self._serial
        position = board.copy()
        if ponder_move is not None:
            position.push_uci(ponder_move)
        self.searcher.park_helpers()   # before the stop flag is cleared: they stop on it
        self.searcher.core.clear_stop()
        self.searcher.expect_search()

        def run() -> None:
            result = self.searcher.run(position, limits, on_thinking, excluded=excluded, clear_stop=False,
                                       multi_pv=multi_pv)
            on_finished(serial, result)

        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="search-main", daemon=True)
            self._thread.start()
        self._idle.clear()
        self._jobs.put(run)
        return serial

    def stop(self) -> None:
        """Stop the running search (if any) and wait until it is done; its result is still reported."""
        if self.busy:
            self.searcher.stop()
            self._idle.wait()

    def set_time_budget(self, soft_seconds: float, hard_seconds: float) -> None:
        """Turn the running open-ended search into a timed one (a ponder hit)."""
        self.searcher.set_time_budget(soft_seconds, hard_seconds)
