"""Files the engine writes while it plays (the learned store, the .lrn files, log.NNN and
game.NNN) that cannot be written, most often because the disk is full.

A bot must play on when that happens: the write is dropped (each writer keeps what it wrote
before intact), and the failure is reported once, as one error line on standard error and in the
log, not at every move. When the same file can be written again, a later failure is reported
again."""
from __future__ import annotations

import contextlib
import logging
import os
import sys

log = logging.getLogger("ponderosa.files")


def describe(error: BaseException) -> str:
    """The reason without a traceback: `File too large`, `database or disk is full`."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


class WriteErrors:
    """Which files are failing now; each failure is reported once per failing streak."""

    def __init__(self) -> None:
        self._failing: set[str] = set()
        self.reported: list[str] = []   # every line reported, for the tests and `show` commands

    def failed(self, what: str, error: BaseException) -> None:
        if what in self._failing:
            return
        self._failing.add(what)
        line = f"Error: cannot write {what} ({describe(error)}); playing on without it"
        self.reported.append(line)
        log.error("%s", line)
        if logging.getLogger("ponderosa").handlers:
            # The log file takes the line (when it can); standard error gets it as well, since
            # logging only falls back to standard error when no handler is set.
            try:
                print(line, file=sys.stderr, flush=True)
            except (OSError, ValueError):
                pass

    def succeeded(self, what: str) -> None:
        self._failing.discard(what)

    def failing(self, what: str) -> bool:
        return what in self._failing


def append_whole(fd: int, data: bytes) -> None:
    """Append data to the file open on fd (O_APPEND) whole or not at all: a write that fails part
    way (a full disk, a file-size limit) is cut back to where it began, so the file keeps its
    earlier records whole and the next append starts on a clean line."""
    size = os.lseek(fd, 0, os.SEEK_END)
    view = memoryview(data)
    try:
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)   # shrinking a file needs no space
        raise
