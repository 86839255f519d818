"""When input lines reached the program, for the lines that came while it was still loading.

The launcher (protocol/launch.py) answers an XBoard GUI's handshake before the engine has loaded,
so a GUI may send `new`, the clocks and `go` at once, and its clock runs from then; the session
reads those lines only once the engine is up (a few tenths of a second later on a busy machine).
The relay notes each line's arrival here until the program starts reading; a session's reader
takes a line's arrival back by its text, so that the time spent waiting is charged to the move
it asked for. Lines that come once the program reads need no note: they are read as they come.

Matching by text, not by count, keeps a miscount harmless: lines the console read before a
session started (the `xboard` that chose the protocol) are passed over, and a line the reader
splits differently from the relay (a lone carriage return) finds no note and is charged nothing.
Standard library only: the launcher imports this before anything heavy."""
from __future__ import annotations

import threading
import time
from collections import deque

MAX_NOTES = 256   # the lines a GUI sends while the engine loads are a handful


class ArrivalNotes:
    """Arrival times of the lines handed on while the program had not started reading."""

    def __init__(self, recording: bool = False) -> None:
        self._notes: deque[tuple[str, float]] = deque(maxlen=MAX_NOTES)
        self._lock = threading.Lock()
        self._recording = recording   # only while a relay hands lines on to a program not yet reading

    def note(self, line: bytes) -> None:
        """The relay hands line on (before writing it): remember that it came now."""
        with self._lock:
            if self._recording:
                self._notes.append((line.decode("utf-8", "replace").strip(), time.monotonic()))

    def start_recording(self) -> None:
        """A relay starts handing lines on (protocol/launch.py)."""
        with self._lock:
            self._recording = True

    def stop_recording(self) -> None:
        """The program reads its input now: later lines are read as they come."""
        with self._lock:
            self._recording = False

    def arrival(self, text: str) -> float | None:
        """When the line with this text came, if it waited for the program to load; notes of
        lines before it that nobody took back (read by another reader) are dropped."""
        key = text.strip()
        with self._lock:
            while self._notes:
                noted, arrived = self._notes.popleft()
                if noted == key:
                    return arrived
        return None

    def waiting(self) -> int:
        """Notes not yet taken back (for tests)."""
        with self._lock:
            return len(self._notes)


def seconds_since(arrived: float | None) -> float:
    """Seconds since a line arrived (time.monotonic()); 0 for none (no line being handled)."""
    return 0.0 if arrived is None else max(0.0, time.monotonic() - arrived)


ARRIVALS = ArrivalNotes()   # the program's one input relay writes here, once started
