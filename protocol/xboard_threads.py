"""XBoard's `cores N` and option Threads: the number of search threads, changed between searches."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ponderosa.engine.worker import MAX_THREADS

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine


class XBoardThreads:
    """Mixin of XBoardSession: a thread count asked for while a search runs waits for its end."""

    engine: Engine
    pending_threads: int | None = None
    _send_debug: Callable[[str], None]   # XBoardSession's `#` line

    def request_threads(self, count: int) -> None:
        """cores N / option Threads=N: at most MAX_THREADS, at least one."""
        self.pending_threads = min(max(1, count), MAX_THREADS)
        self.apply_pending_threads()

    def apply_pending_threads(self) -> None:
        """Start or end helper threads only while no search runs (pondering included)."""
        if self.pending_threads is not None and not self.engine.searching:
            self.engine.set_threads(self.pending_threads)
            self.pending_threads = None
            self._send_debug(f"search threads: {self.engine.threads}")
