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
from collections.abc import Iterator

log = logging.getLogger("ponderosa.files")


def describe(error: BaseException) -> str:
    """The reason without a traceback: `File too large`, `database or disk is full`."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def error_line(what: str, error: BaseException) -> str:
    """The one line a failing file gets (here, and from the protocol log's own handler)."""
    return f"Error: cannot write {what} ({describe(error)}); playing on without it"


class WriteErrors:
    """Which files are failing now; each failure is reported once per failing streak."""

    def __init__(self) -> None:
        self._failing: set[str] = set()

    @contextlib.contextmanager
    def guard(self, what: str) -> Iterator[None]:
        """Write `what` in the block: an OSError is reported (once) and dropped, and a write that
        succeeds ends the failing streak, so a later failure is reported again."""
        try:
            yield
        except OSError as error:
            self.failed(what, error)
        else:
            self._failing.discard(what)

    def failed(self, what: str, error: BaseException) -> None:
        if what in self._failing:
            return
        self._failing.add(what)
        line = error_line(what, error)
        log.error("%s", line)
        if logging.getLogger("ponderosa").handlers:
            # The log file takes the line (when it can); standard error gets it as well, since
            # logging only falls back to standard error when no handler is set.
            with contextlib.suppress(OSError, ValueError):
                print(line, file=sys.stderr, flush=True)


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
