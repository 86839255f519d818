"""The search thread: one search at a time runs beside the protocol loop, which stays free
to read input, answer pings and stop it."""
from __future__ import annotations

import threading
from collections.abc import Collection
from typing import Callable

from ponderosa.core_ext.board import Board
from ponderosa.engine.search import Searcher, SearchLimits, SearchResult, Thinking


class SearchWorker:
    """Starts searches on a background thread and reports each result through a callback."""

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._serial = 0

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, board: Board, limits: SearchLimits,
              on_thinking: Callable[[Thinking], None] | None,
              on_finished: Callable[[int, SearchResult], None],
              excluded: Collection[str] = (), ponder_move: str | None = None) -> int:
        """Search a copy of board (after ponder_move, when pondering); on_finished(serial, result)
        is called from the search thread.

        Returns the search's serial number, so that a caller can tell a stale report from
        the current one."""
        self.stop()
        with self._lock:
            self._serial += 1
            serial = self._serial
        position = board.copy()
        if ponder_move is not None:
            position.push_uci(ponder_move)
        self.searcher.core.clear_stop()

        def run() -> None:
            result = self.searcher.run(position, limits, on_thinking, excluded=excluded, clear_stop=False)
            on_finished(serial, result)

        self._thread = threading.Thread(target=run, name=f"search-{serial}", daemon=True)
        self._thread.start()
        return serial

    def stop(self) -> None:
        """Stop the running search (if any) and wait for its thread; its result is still reported."""
        thread = self._thread
        if thread is not None:
            self.searcher.stop()
            thread.join()
            self._thread = None

    def set_time_budget(self, soft_seconds: float, hard_seconds: float) -> None:
        """Turn the running open-ended search into a timed one (a ponder hit)."""
        self.searcher.set_time_budget(soft_seconds, hard_seconds)
