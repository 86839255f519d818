"""The thinking lines of a ponder search that starts right after the engine's move, held back
until the GUI's next command has been handled, or for HOLD_SECONDS at most.

Why: python-chess (and lichess-bot through it) answers `move X` with `ping N` and counts every
thinking line before `pong N` as the information of the move just played. A ponder search's
lines there would be taken for the move's own, their PV (the predicted reply first) replayed
from the wrong position. `pong N` is answered at once while pondering (the protocol's rule), so
a line held until that ping has been answered reaches such a client after its pong, where it
is ignored; XBoard, which sends nothing after a move, shows the lines HOLD_SECONDS later."""
from __future__ import annotations

import threading
import time

from ponderosa.protocol.streams import Output

HOLD_SECONDS = 1.0   # far beyond a client's answer to the move (milliseconds), short for a viewer


class PonderOutputHold:
    """Lines of one ponder search kept back; written in order when released, or dropped when that
    search is no longer the one pondering. A search is named by any object of the caller's (its
    record, known before the search starts and prints its first line)."""

    def __init__(self, out: Output, seconds: float = HOLD_SECONDS) -> None:
        self._out = out
        self._seconds = seconds
        self._lock = threading.Lock()
        self._search: object | None = None   # the ponder search whose lines are held
        self._deadline = 0.0
        self._lines: list[str] = []
        self.holds = 0   # holds begun so far: a command releases only the holds begun before it

    def hold(self, search: object) -> None:
        """Start holding the lines of this ponder search (about to start after a move)."""
        with self._lock:
            self.holds += 1
            self._search = search
            self._deadline = time.monotonic() + self._seconds
            self._lines = []

    def line(self, search: object, text: str) -> None:
        """A thinking line of this search (on the search thread): held, or written."""
        with self._lock:
            if self._search is search:
                if time.monotonic() < self._deadline:
                    self._lines.append(text)
                    return
                self._write_held()
            self._out.line(text)

    def release(self, pondering: object | None, holds_before: int | None = None) -> None:
        """After a command (on the protocol thread): the held lines go out if their search is
        still the one pondering (pondering: that search, None if none), else they are dropped.
        holds_before: `holds` when the command was read; a hold the command itself began (a book
        move played at once, then pondering) waits for the next one."""
        with self._lock:
            if self._search is None or (holds_before is not None and self.holds > holds_before):
                return
            if self._search is pondering:
                self._write_held()
            self._search, self._lines = None, []

    def expire(self, pondering: object | None) -> None:
        """Release once the hold has run its time (the loop calls this when it wakes)."""
        if self._search is not None and time.monotonic() >= self._deadline:
            self.release(pondering)

    def wait_seconds(self) -> float | None:
        """How long the loop may wait for input before the hold runs out; None: no hold."""
        with self._lock:
            if self._search is None:
                return None
            return max(0.0, self._deadline - time.monotonic())

    def _write_held(self) -> None:
        for text in self._lines:
            self._out.line(text)
        self._search, self._lines = None, []
