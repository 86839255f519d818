"""What the protocol loops need around their input and output: one locked writer, a reader thread
feeding the loop's event queue, streams that survive bad bytes, and the protocol log (XBoard's
option Log, UCI's `debug on` and option Log)."""
from __future__ import annotations

import contextlib
import logging
import queue
import signal
import sys
import threading
from typing import TextIO

from ponderosa.engine.write_errors import error_line


class Output:
    """One locked writer: whole lines, flushed at once, each one logged (the search thread's
    reports and the protocol thread's answers never interleave)."""

    def __init__(self, stream: TextIO, log: logging.Logger) -> None:
        self.stream = stream
        self.lock = threading.Lock()
        self.log = log

    def line(self, text: str) -> None:
        with self.lock:
            self.stream.write(text + "\n")
            self.stream.flush()
        self.log.debug("> %s", text)


def start_reader(stream: TextIO, out: Output, events: queue.Queue, name: str) -> None:
    """Read stream on a thread of its own: each line becomes a ("line", text) event, the end of
    the input an ("eof",) event. SIGINT is ignored (xboard may send it; the features say it
    is not needed)."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        pass   # not in the main thread (tests)
    tolerate_bad_bytes(stream, out.stream)
    threading.Thread(target=_read_lines, args=(stream, events), name=name, daemon=True).start()


def _read_lines(stream: TextIO, events: queue.Queue) -> None:
    for raw in stream:
        events.put(("line", raw))
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


class _LogFile(logging.FileHandler):
    """The protocol log: a write that fails (a full disk) is told once on standard error rather
    than as a traceback for every line, and the engine plays on."""

    failing = False

    def emit(self, record: logging.LogRecord) -> None:
        self.failing_now = False
        super().emit(record)
        if not self.failing_now:
            self.failing = False

    def handleError(self, record: logging.LogRecord) -> None:
        self.failing_now = True
        if self.failing:
            return
        self.failing = True
        error = sys.exc_info()[1] or OSError("unknown error")
        with contextlib.suppress(OSError, ValueError):
            print(error_line(self.baseFilename, error), file=sys.stderr, flush=True)


def set_logging(enabled: bool, path: str = "ponderosa.log") -> None:
    """Log every protocol line to a file in the working directory (option Log / `debug on`)."""
    logger = logging.getLogger("ponderosa")
    for handler in list(logger.handlers):
        if isinstance(handler, logging.FileHandler):
            logger.removeHandler(handler)
            handler.close()
    if enabled:
        handler = _LogFile(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
