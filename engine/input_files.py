"""The one door for files and folders that input names (a command, an option, a command-line
argument): it refuses what is not a regular file (a device such as /dev/zero, a FIFO, a socket, a
folder where a file is meant), refuses a file too large for its kind before reading it, and reads
text as a stream of bounded lines, so that no name a user or a GUI types can take the machine's
memory or hang the engine. Every refusal is an InputFileError whose message is one line naming
the file and the reason ("PATH: not a regular file (a character device)")."""
from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Union

from ponderosa.engine.errors import EngineError

PathLike = Union[str, "os.PathLike[str]"]

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
# The largest file each kind may be. A network is capped by the largest shape its loader accepts
# (engine/nnue/network_file.py: MAX_FILE_BYTES, checked there); the rest by what such files are.
MAX_BOOK_BYTES = 4 * GIB        # a Ponderosa book (SQLite, read by queries) or a Polyglot .bin (16 bytes a move)
MAX_SUITE_BYTES = 64 * MIB      # an EPD or Crafty-format test suite (the largest public ones are a few MB)
MAX_OPENINGS_BYTES = 256 * MIB  # genfens' EPD opening book, held as its lines (OpenBench's largest are tens of MB)
MAX_LEARNED_BYTES = 64 * MIB    # a .lrn export of learned data (read whole before it is learned)
MAX_SMALL_TEXT_BYTES = 1 * MIB  # rc files, `input` files, one-position files, the server's lists
# Streams (PGN, EPD, .lrn) are read a line at a time: a line or a game longer than these is not text
# of that kind (a binary file, or a file of zeros), and is refused before it fills memory.
MAX_LINE_CHARS = 1 * MIB
MAX_GAME_CHARS = 16 * MIB


class InputFileError(EngineError):
    """A named file or folder that cannot be used; str() is one line: the path and the reason."""

    def __init__(self, path: PathLike, reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def _stat(path: PathLike, missing: str) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise InputFileError(path, missing) from None
    except NotADirectoryError:
        raise InputFileError(path, missing) from None
    except OSError as error:
        raise InputFileError(path, error.strerror or str(error)) from None


def regular_file(path: PathLike, kind: str = "file", max_bytes: int | None = None) -> Path:
    """path, if it names a regular file of at most max_bytes (symbolic links followed); else
    InputFileError saying why: no such file, not a regular file, too large for `kind`."""
    info = _stat(path, "no such file")
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(path, f"not a regular file ({_file_type(info.st_mode)})")
    if max_bytes is not None and info.st_size > max_bytes:
        raise InputFileError(path, f"too large for {kind}: {info.st_size} bytes (at most {max_bytes})")
    return Path(path)


def folder(path: PathLike) -> Path:
    """path, if it names a directory; else InputFileError: no such directory, or not a directory."""
    info = _stat(path, "no such directory")
    if not stat.S_ISDIR(info.st_mode):
        what = "a regular file" if stat.S_ISREG(info.st_mode) else _file_type(info.st_mode)
        raise InputFileError(path, f"not a directory ({what})")
    return Path(path)


def read_bytes(path: PathLike, kind: str, max_bytes: int) -> bytes:
    """The whole file, at most max_bytes (also if it grows while it is read)."""
    regular_file(path, kind, max_bytes)
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise InputFileError(path, error.strerror or str(error)) from None
    if len(data) > max_bytes:
        raise InputFileError(path, f"too large for {kind}: more than {max_bytes} bytes")
    return data


def read_text(path: PathLike, kind: str, max_bytes: int = MAX_SMALL_TEXT_BYTES) -> str:
    """A small text file whole (undecodable bytes replaced); refused if it holds NUL bytes."""
    text = read_bytes(path, kind, max_bytes).decode("utf-8", errors="replace")
    if "\0" in text:
        raise InputFileError(path, f"not a text file (binary data), not {kind}")
    return text


class BoundedLines:
    """A text stream whose lines and games are bounded: readline() raises InputFileError for a line
    over MAX_LINE_CHARS, for NUL bytes (binary data), and for more than max_game_chars read since
    the last start_game(). python-chess's PGN reader (which needs only readline) and the line
    loops read through it."""

    def __init__(self, stream: IO[str], path: PathLike, kind: str, max_game_chars: int = MAX_GAME_CHARS) -> None:
        self._stream = stream
        self.path = os.fspath(path)
        self.kind = kind
        self.max_game_chars = max_game_chars
        self._game_chars = 0
        self.line_number = 0

    def start_game(self) -> None:
        """The next lines are a new game (or record): its bound starts afresh."""
        self._game_chars = 0

    def readline(self, size: int | None = -1) -> str:
        limit = MAX_LINE_CHARS if size is None or size < 0 else min(size, MAX_LINE_CHARS)
        try:
            line = self._stream.readline(limit + 1)
        except (OSError, EOFError, ValueError) as error:   # a broken compressed stream, a read error
            raise InputFileError(self.path, f"cannot be read: {error}") from None
        if len(line) > limit and not line.endswith("\n"):
            raise InputFileError(self.path, f"a line longer than {MAX_LINE_CHARS} characters: not {self.kind}")
        if "\0" in line:
            raise InputFileError(self.path, f"not a text file (binary data), not {self.kind}")
        self._game_chars += len(line)
        if self._game_chars > self.max_game_chars:
            raise InputFileError(self.path,
                                 f"more than {self.max_game_chars} characters in one record: not {self.kind}")
        if line:
            self.line_number += 1
        return line

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> BoundedLines:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_lines(path: PathLike, kind: str, max_bytes: int | None = None,
               max_game_chars: int = MAX_GAME_CHARS) -> BoundedLines:
    """A text file (UTF-8, bad bytes replaced) as BoundedLines; the caller closes it."""
    regular_file(path, kind, max_bytes)
    try:
        stream = open(path, encoding="utf-8", errors="replace", newline=None)
    except OSError as error:
        raise InputFileError(path, error.strerror or str(error)) from None
    return BoundedLines(stream, path, kind, max_game_chars)
