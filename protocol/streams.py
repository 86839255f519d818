"""What the protocol loops need around their input and output: one locked writer, a reader thread
feeding the loop's event queue, streams that survive bad bytes, and the protocol log (XBoard's
option Log, UCI's `debug on` and option Log)."""
from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from ponderosa.engine.write_errors import error_line
from ponderosa.protocol.arrivals import ARRIVALS


class Output:
    """One locked writer: whole lines, flushed at once, each one logged (the search thread's
    reports and the protocol thread's answers never interleave).

    When the reader of the output is gone (the GUI closed its end of the pipe or died), the
    output is closed: later lines are dropped, and `when_closed` (set by start_reader) ends the
    session as the end of its input would, so the engine saves what it keeps and exits without
    a traceback for every line it can no longer send."""

    def __init__(self, stream: TextIO, log: logging.Logger) -> None:
        self.stream = stream
        self.lock = threading.Lock()
        self.log = log
        self.closed = False
        self.when_closed: Callable[[], None] | None = None

    def line(self, text: str) -> None:
        with self.lock:
            if self.closed:
                return
            try:
                self.stream.write(text + "\n")
                self.stream.flush()
            except (BrokenPipeError, ConnectionResetError):
                self._close()
                return
        self.log.debug("> %s", text)

    def _close(self) -> None:
        """The reader is gone: point the stream's file at the null device, so that the flush at
        interpreter exit of what is still buffered does not fail again, and end the session."""
        self.closed = True
        self.log.debug("output closed by its reader")
        with contextlib.suppress(OSError, ValueError, AttributeError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.stream.fileno())
            os.close(null)
        if self.when_closed is not None:
            self.when_closed()


def start_reader(stream: TextIO, out: Output, events: queue.Queue, name: str) -> None:
    """Read stream on a thread of its own: each line becomes a ("line", text, arrived) event
    (arrived: time.monotonic() when the line reached the program), the end of the input an
    ("eof",) event. SIGINT is ignored (xboard may send it; the features say it
    is not needed)."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        pass   # not in the main thread (tests)
    tolerate_bad_bytes(stream, out.stream)
    out.when_closed = lambda: events.put(("eof",))
    threading.Thread(target=_read_lines, args=(stream, events), name=name, daemon=True).start()


def _read_lines(stream: TextIO, events: queue.Queue) -> None:
    for raw in stream:
        arrived = ARRIVALS.arrival(raw)   # a line that waited while the engine loaded
        events.put(("line", raw, time.monotonic() if arrived is None else arrived))
    events.put(("eof",))


def tolerate_bad_bytes(*streams: TextIO) -> None:
    """Undecodable input bytes (a GUI may send Latin-1) become U+FFFD instead of killing the
    reader thread; unencodable output characters become `?`. Only possible before the first read
    of a stream, so the program calls this at start-up too (the console reads first)."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass   # already read from: keep the stream as it is


LOG_FILE_LIMIT = 16 << 20   # bytes of ponderosa.log before it becomes ponderosa.log.1


def file_size(stream: TextIO) -> int:
    """Bytes in stream's file (not tell(): that would flush, and a flush that fails belongs to
    the write's own error handling); 0 when it cannot be told."""
    try:
        return os.fstat(stream.fileno()).st_size
    except (OSError, ValueError):
        return 0


class _LogFile(logging.FileHandler):
    """The protocol log: a write that fails (a full disk) is told once on standard error rather
    than as a traceback for every line, and the engine plays on. Past LOG_FILE_LIMIT the file
    is renamed to FILE.1 (replacing the one before) and a new one begun, so an engine left
    running for weeks with the log on keeps at most twice the limit (a game writes about 25 KB)."""

    failing = False
    limit = LOG_FILE_LIMIT

    def emit(self, record: logging.LogRecord) -> None:
        self.failing_now = False
        if self.stream is not None and file_size(self.stream) >= self.limit:
            self._start_afresh()
        super().emit(record)
        if not self.failing_now:
            self.failing = False

    def _start_afresh(self) -> None:
        """Keep the full file as FILE.1 (one rename, so nothing is half written) and open a new one."""
        self.acquire()
        try:
            stream, self.stream = self.stream, None   # emit opens the file again, empty now
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
            with contextlib.suppress(OSError):   # if the rename fails the log goes on in the same file
                os.replace(self.baseFilename, self.baseFilename + ".1")
        finally:
            self.release()

    def handleError(self, record: logging.LogRecord) -> None:
        self.failing_now = True
        if self.failing:
            return
        self.failing = True
        error = sys.exc_info()[1] or OSError("unknown error")
        with contextlib.suppress(OSError, ValueError):
            print(error_line(self.baseFilename, error), file=sys.stderr, flush=True)


def logging_enabled() -> bool:
    """Whether the protocol is being logged to a file (option Log)."""
    return any(isinstance(handler, _LogFile) for handler in logging.getLogger("ponderosa").handlers)


def set_logging(enabled: bool, path: str = "ponderosa.log") -> None:
    """Log every protocol line to a file in the working directory (option Log / `debug on`); the
    state it is in asked again changes nothing (the file is not reopened)."""
    logger = logging.getLogger("ponderosa")
    logging_now = [handler for handler in logger.handlers if isinstance(handler, _LogFile)]
    if enabled == bool(logging_now) and all(handler.baseFilename == os.path.abspath(path) for handler in logging_now):
        return
    for handler in list(logger.handlers):
        if isinstance(handler, logging.FileHandler):
            logger.removeHandler(handler)
            handler.close()
    if enabled:
        handler = _LogFile(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
