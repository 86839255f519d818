"""XBoard's `cores N` and option Threads: the number of search threads (during a search the
change waits for its end: the engine's rule)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ponderosa.engine.worker import MAX_THREADS

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine


class XBoardThreads:
    """Mixin of XBoardSession: the thread count, said in a `#` line once it changes."""

    engine: Engine
    _send_debug: Callable[[str], None]   # XBoardSession's `#` line

    def request_threads(self, count: int) -> None:
        """cores N / option Threads=N: at most MAX_THREADS, at least one."""
        if self.engine.set_threads(min(max(1, count), MAX_THREADS)):
            self.report_threads()

    def report_threads(self) -> None:
        self._send_debug(f"search threads: {self.engine.threads}")
