"""What every front end's loop needs around its input and output: one locked writer, input that
survives bad bytes, and the protocol log (XBoard's option Log, UCI's `debug on` and option Log)."""
from __future__ import annotations

import logging
import threading
from typing import TextIO


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


def set_logging(enabled: bool, path: str = "ponderosa.log") -> None:
    """Log every protocol line to a file in the working directory (option Log / `debug on`)."""
    logger = logging.getLogger("ponderosa")
    for handler in list(logger.handlers):
        if isinstance(handler, logging.FileHandler):
            logger.removeHandler(handler)
            handler.close()
    if enabled:
        handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
