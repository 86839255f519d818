"""Opening book files: Ponderosa's SQLite book (read side and atomic writer) and Polyglot .bin books.

The format is described in docs/BOOK_FORMAT.md. Keys are Polyglot Zobrist keys everywhere;
SQLite stores them as signed 64-bit integers because that is its only integer type.
"""
from __future__ import annotations

import json
import os
import sqlite3
import struct
import tempfile
import time
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

import chess
import chess.polyglot

from ponderosa.engine.errors import EngineError
from ponderosa.engine.input_files import MAX_BOOK_BYTES, InputFileError, regular_file

if TYPE_CHECKING:
    import numpy as np

FLAG_GOOD = 1  # "!": the move was marked good
FLAG_BAD = 2  # "?": the move was marked bad

FORMAT_NAME = "ponderosa-book"
FORMAT_VERSION = 1
KINDS = ("book", "start")

CASTLING_BIT = 1 << 15  # set in a stored move code when the move is castling (exact Polyglot export)
SQLITE_MAGIC = b"SQLite format 3\x00"
POLYGLOT_ENTRY_SIZE = 16
POLYGLOT_FIELDS = [("key", ">u8"), ("move", ">u2"), ("weight", ">u2"), ("learn", ">u4")]
POLYGLOT_ENTRY = struct.Struct(">QHHI")

PROMOTION_LETTERS = "nbrq"  # promotion code 1..4, as in Polyglot
# Castling written as the king's two-square move (UCI) and as king-takes-rook (Polyglot).
KING_TWO_SQUARE_TO_TAKES_ROOK = {"e1g1": "e1h1", "e1c1": "e1a1", "e8g8": "e8h8", "e8c8": "e8a8"}
KING_TAKES_ROOK_TO_TWO_SQUARE = {rook: king for king, rook in KING_TWO_SQUARE_TO_TAKES_ROOK.items()}

SCHEMA = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE moves (
    key INTEGER NOT NULL,           -- Polyglot Zobrist key as signed 64-bit
    move INTEGER NOT NULL,          -- from | to << 6 | promotion << 12 | castling << 15
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,          -- from the point of view of the side that plays the move
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    flags INTEGER NOT NULL,         -- FLAG_GOOD | FLAG_BAD
    play_percent INTEGER NOT NULL,  -- 0 = not set
    PRIMARY KEY (key, move)
) WITHOUT ROWID;
"""


class BookFileError(EngineError):
    """A book or game file that cannot be used; the message names the file and what is wrong."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def signed_key(key: int) -> int:
    """The unsigned Polyglot key as SQLite's signed 64-bit integer."""
    return key - (1 << 64) if key >= 1 << 63 else key


def unsigned_key(key: int) -> int:
    return key + (1 << 64) if key < 0 else key


def encode_move(uci: str, castling: bool = False) -> int:
    """from | to << 6 | promotion << 12 (1 n, 2 b, 3 r, 4 q); castling marks the king's two-square move."""
    if len(uci) not in (4, 5):
        raise ValueError(f"not a UCI move: {uci!r}")
    try:
        from_square = chess.SQUARE_NAMES.index(uci[0:2])
        to_square = chess.SQUARE_NAMES.index(uci[2:4])
    except ValueError:
        raise ValueError(f"not a UCI move: {uci!r}") from None
    promotion = 0
    if len(uci) == 5:
        if uci[4] not in PROMOTION_LETTERS:
            raise ValueError(f"not a UCI move: {uci!r}")
        promotion = PROMOTION_LETTERS.index(uci[4]) + 1
    return from_square | to_square << 6 | promotion << 12 | (CASTLING_BIT if castling else 0)


def decode_move(code: int) -> str:
    """The UCI text of a move code (the castling bit does not change the text)."""
    from_square, to_square, promotion = code & 63, (code >> 6) & 63, (code >> 12) & 7
    if promotion > 4:
        raise ValueError(f"not a move code: {code}")
    suffix = PROMOTION_LETTERS[promotion - 1] if promotion else ""
    return chess.SQUARE_NAMES[from_square] + chess.SQUARE_NAMES[to_square] + suffix


@dataclass(frozen=True)
class BookEntry:
    move: str  # UCI
    games: int
    wins: int  # from the point of view of the side that plays the move
    draws: int
    losses: int
    flags: int = 0  # FLAG_GOOD | FLAG_BAD
    play_percent: int = 0
    has_results: bool = True  # False for Polyglot entries: games holds the weight
    castling: bool = False  # the move is castling (kept so a Polyglot export can write king-takes-rook)


def _entry_from_row(row: tuple[int, int, int, int, int, int, int]) -> BookEntry:
    code, games, wins, draws, losses, flags, play_percent = row
    return BookEntry(decode_move(code), games, wins, draws, losses, flags, play_percent,
                     castling=bool(code & CASTLING_BIT))


def _check_readable_file(path: str) -> int:
    """The file's size; BookFileError when it is missing, not a regular file, too large or empty."""
    try:
        regular_file(path, "a book", MAX_BOOK_BYTES)
    except InputFileError as error:
        raise BookFileError(path, error.reason) from None
    size = os.path.getsize(path)
    if size == 0:
        raise BookFileError(path, "book file is empty (0 bytes)")
    return size


def _check_sqlite_size(path: str, size: int) -> None:
    """A truncated SQLite file is recognised from the page size and page count in its header."""
    with open(path, "rb") as handle:
        header = handle.read(100)
    if len(header) < 100:
        raise BookFileError(path, "book file is truncated (SQLite header incomplete)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    page_count = int.from_bytes(header[28:32], "big")
    if page_count and size < page_size * page_count:
        raise BookFileError(path, f"book file is truncated ({size} bytes, the header says {page_size * page_count})")


class OpeningBookFile:
    """Read side of a Ponderosa book; read-only, usable from one thread at a time."""

    def __init__(self, path: str, connection: sqlite3.Connection, meta: dict[str, str]) -> None:
        self.path = path
        self._connection = connection
        self._meta = meta
        self.kind = meta["kind"]

    @classmethod
    def open(cls, path: str) -> OpeningBookFile:
        path = os.fspath(path)
        size = _check_readable_file(path)
        with open(path, "rb") as handle:
            if handle.read(16) != SQLITE_MAGIC:
                raise BookFileError(path, "is not a Ponderosa book (not an SQLite file)")
        _check_sqlite_size(path, size)
        uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
        try:
            connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as error:
            raise BookFileError(path, f"cannot open book file: {error}") from None
        try:
            tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "meta" not in tables or "moves" not in tables:
                raise BookFileError(path, "is not a Ponderosa book (an SQLite file without its tables)")
            meta = dict(connection.execute("SELECT name, value FROM meta"))
            if meta.get("format") != FORMAT_NAME:
                raise BookFileError(path, f"is not a Ponderosa book (format {meta.get('format')!r})")
            if meta.get("format_version") != str(FORMAT_VERSION):
                raise BookFileError(path, f"unsupported book format version {meta.get('format_version')!r} "
                                          f"(this Ponderosa reads version {FORMAT_VERSION})")
            if meta.get("kind") not in KINDS:
                raise BookFileError(path, f"unknown book kind {meta.get('kind')!r}")
            connection.execute("SELECT key, move, games, wins, draws, losses, flags, play_percent "
                               "FROM moves LIMIT 1").fetchall()
        except sqlite3.Error as error:
            connection.close()
            raise BookFileError(path, f"book file is corrupt: {error}") from None
        except BookFileError:
            connection.close()
            raise
        return cls(path, connection, meta)

    def entries(self, key: int) -> list[BookEntry]:
        """All moves stored for the position with this Polyglot key."""
        try:
            rows = self._connection.execute(
                "SELECT move, games, wins, draws, losses, flags, play_percent FROM moves WHERE key = ?",
                (signed_key(key),)).fetchall()
        except sqlite3.Error as error:
            raise BookFileError(self.path, f"book file is corrupt: {error}") from None
        return [_entry_from_row(row) for row in rows]

    def info(self) -> dict[str, str]:
        return dict(self._meta)

    def positions(self) -> int:
        if self._meta.get("positions", "").isdigit():  # written by the builder; counting takes seconds
            return int(self._meta["positions"])
        return int(self._connection.execute("SELECT COUNT(DISTINCT key) FROM moves").fetchone()[0])

    def moves(self) -> int:
        if self._meta.get("moves", "").isdigit():
            return int(self._meta["moves"])
        return int(self._connection.execute("SELECT COUNT(*) FROM moves").fetchone()[0])

    def packed_rows(self, chunk: int = 1 << 20) -> Iterator[list[tuple[int, int, int, int]]]:
        """Every row in unsigned key order, in chunks, packed by SQLite into four integers (signed
        key, move | flags << 16 | play percent << 24, games | wins << 21, draws | losses << 21) so
        that a pass over millions of rows creates few Python objects. Counts must be below 2**21
        (ValueError otherwise: use iter_entries)."""
        largest = self._connection.execute("SELECT MAX(MAX(games), MAX(wins), MAX(draws), MAX(losses)) FROM moves")
        if (largest.fetchone()[0] or 0) >= 1 << 21:
            raise ValueError(f"{self.path}: a count does not fit 21 bits")
        try:
            for condition in ("key >= 0", "key < 0"):   # the primary key's order: signed, so in two halves
                cursor = self._connection.execute(
                    # SQLite gives | and << the same precedence: every shift is bracketed.
                    "SELECT key, move | (flags << 16) | (play_percent << 24), games | (wins << 21), "
                    "draws | (losses << 21) "
                    f"FROM moves WHERE {condition} ORDER BY key")
                while rows := cursor.fetchmany(chunk):
                    yield rows
        except sqlite3.Error as error:
            raise BookFileError(self.path, f"book file is corrupt: {error}") from None

    def iter_entries(self) -> Iterator[tuple[int, BookEntry]]:
        """(unsigned key, entry) in unsigned key order: the non-negative signed keys come first."""
        columns = "key, move, games, wins, draws, losses, flags, play_percent"
        for condition in ("key >= 0", "key < 0"):
            cursor = self._connection.execute(f"SELECT {columns} FROM moves WHERE {condition} ORDER BY key, move")
            for row in cursor:
                yield unsigned_key(row[0]), _entry_from_row(row[1:])

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> OpeningBookFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def polyglot_move_to_uci(raw_move: int, king_on_from_square: bool | None = None) -> tuple[str, bool]:
    """(UCI, is castling) for a Polyglot move; king-takes-rook becomes the king's two-square move.

    Without a board (king_on_from_square None) e1h1, e1a1, e8h8, e8a8 are taken as castling.
    """
    # Polyglot puts the to-square in the low bits, the opposite of Ponderosa's move code.
    uci = decode_move((raw_move >> 6) & 63 | (raw_move & 63) << 6 | (raw_move >> 12 & 7) << 12)
    if uci in KING_TAKES_ROOK_TO_TWO_SQUARE and king_on_from_square is not False:
        return KING_TAKES_ROOK_TO_TWO_SQUARE[uci], True
    return uci, False


POLYGLOT_CHECK_CHUNK = 1 << 16      # entries read at a time while checking (1 MB)
POLYGLOT_CHECK_CHUNKS = 64          # at most this many chunks read: the first, the last, and spread between


def _check_polyglot_entries(path: str, size: int) -> None:
    """Garbage is recognised by unsorted keys or move fields no Polyglot writer produces. A large
    book is checked on chunks spread over it (keys must rise from chunk to chunk too), read one at
    a time, so that checking takes bounded memory and time whatever the file's size."""
    import numpy as np  # here, not at start-up: numpy takes a tenth of a second to import
    entries = size // POLYGLOT_ENTRY_SIZE
    chunks = -(-entries // POLYGLOT_CHECK_CHUNK)
    picked = sorted({round(i * (chunks - 1) / max(1, POLYGLOT_CHECK_CHUNKS - 1))
                     for i in range(min(chunks, POLYGLOT_CHECK_CHUNKS))})
    last_key = 0
    with open(path, "rb") as handle:
        for chunk in picked:
            handle.seek(chunk * POLYGLOT_CHECK_CHUNK * POLYGLOT_ENTRY_SIZE)
            table = np.fromfile(handle, dtype=np.dtype(POLYGLOT_FIELDS), count=POLYGLOT_CHECK_CHUNK)
            keys, moves = table["key"], table["move"]
            if len(keys) and (keys[0] < last_key or np.any(keys[1:] < keys[:-1])):
                raise BookFileError(path, "is not a Polyglot book (keys are not sorted)")
            if np.any(moves & 0x8000) or np.any((moves >> 12) > 4) or np.any((moves & 63) == ((moves >> 6) & 63)):
                raise BookFileError(path, "is not a Polyglot book (invalid move fields)")
            if len(keys):
                last_key = int(keys[-1])


class PolyglotBookFile:
    """The read interface of OpeningBookFile over a Polyglot .bin book (games = weight, no results)."""

    kind = "polyglot"

    def __init__(self, path: str, reader: chess.polyglot.MemoryMappedReader, size: int) -> None:
        self.path = path
        self._reader = reader
        self._size = size

    @classmethod
    def open(cls, path: str) -> PolyglotBookFile:
        path = os.fspath(path)
        size = _check_readable_file(path)
        if size % POLYGLOT_ENTRY_SIZE:
            raise BookFileError(path, f"is not a Polyglot book (size {size} is not a multiple of 16 bytes)")
        _check_polyglot_entries(path, size)
        try:
            reader = chess.polyglot.open_reader(path)
        except OSError as error:
            raise BookFileError(path, f"cannot open Polyglot book: {error}") from None
        return cls(path, reader, size)

    def entries(self, key: int, board: chess.Board | None = None) -> list[BookEntry]:
        """The moves for this key; with a board, castling is recognised exactly (king on the from-square)."""
        result = []
        for entry in self._reader.find_all(key, minimum_weight=0):
            king_here = None
            if board is not None:
                king_here = board.piece_type_at((entry.raw_move >> 6) & 63) == chess.KING
            uci, castling = polyglot_move_to_uci(entry.raw_move, king_here)
            result.append(BookEntry(uci, entry.weight, 0, 0, 0, has_results=False, castling=castling))
        return result

    def info(self) -> dict[str, str]:
        return {"format": "polyglot", "kind": self.kind, "entries": str(len(self._reader)),
                "sources": json.dumps([self.path])}

    def positions(self) -> int:
        return len({entry.key for entry in self._reader})

    def moves(self) -> int:
        return len(self._reader)

    def iter_entries(self) -> Iterator[tuple[int, BookEntry]]:
        for entry in self._reader:
            uci, castling = polyglot_move_to_uci(entry.raw_move)
            yield entry.key, BookEntry(uci, entry.weight, 0, 0, 0, has_results=False, castling=castling)

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> PolyglotBookFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_book_file(path: str) -> OpeningBookFile | PolyglotBookFile:
    """Opens either kind of book, told apart by content (SQLite magic header or 16-byte entries)."""
    path = os.fspath(path)
    _check_readable_file(path)
    with open(path, "rb") as handle:
        magic = handle.read(16)
    if magic == SQLITE_MAGIC:
        return OpeningBookFile.open(path)
    try:
        return PolyglotBookFile.open(path)
    except BookFileError as error:
        # Not SQLite, so Polyglot was the only chance: say both were tried.
        raise BookFileError(path, f"is neither a Ponderosa book nor a Polyglot book ({error.problem})") from None


# ---------------------------------------------------------------------------------------------
# Writing


def _fsync_directory(directory: str) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems cannot sync a directory; the rename itself is still atomic
    finally:
        os.close(descriptor)


class AtomicOutput:
    """A temporary file beside the destination that replaces it only when complete (else is removed)."""

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        self.directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(self.directory):
            raise BookFileError(self.path, "the folder for this file does not exist")
        descriptor, self.temp_path = tempfile.mkstemp(prefix="." + os.path.basename(self.path) + ".",
                                                      suffix=".tmp", dir=self.directory)
        os.close(descriptor)
        # mkstemp makes the file private (0600); a book is an ordinary file: keep the old mode, else rw-r--r--.
        mode = os.stat(self.path).st_mode & 0o777 if os.path.exists(self.path) else 0o644
        os.chmod(self.temp_path, mode)

    def commit(self) -> None:
        with open(self.temp_path, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(self.temp_path, self.path)
        _fsync_directory(self.directory)

    def discard(self) -> None:
        for suffix in ("", "-journal"):
            try:
                os.remove(self.temp_path + suffix)
            except FileNotFoundError:
                pass

    def __enter__(self) -> AtomicOutput:
        return self

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


# signed key, move code, games, wins, draws, losses, flags, play percent
BookRow = tuple[int, int, int, int, int, int, int, int]


def _insert_rows(connection: sqlite3.Connection, rows: list[BookRow]) -> None:
    connection.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def write_book(path: str, row_batches: Iterable[list[BookRow]], meta: Mapping[str, Any]) -> None:
    """Writes a Ponderosa book atomically; the batches must come in (signed key, move) order."""
    if meta.get("kind") not in KINDS:
        raise ValueError(f"unknown book kind {meta.get('kind')!r}")
    full_meta = {"format": FORMAT_NAME, "format_version": str(FORMAT_VERSION),
                 "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    full_meta.update({name: str(value) for name, value in meta.items()})
    with AtomicOutput(path) as output:
        connection = sqlite3.connect(output.temp_path)
        try:
            connection.execute("PRAGMA journal_mode = OFF")  # the temp file is thrown away on failure anyway
            connection.execute("PRAGMA synchronous = OFF")  # AtomicOutput fsyncs once at the end
            connection.executescript(SCHEMA)
            connection.executemany("INSERT INTO meta VALUES (?, ?)", sorted(full_meta.items()))
            for rows in row_batches:
                _insert_rows(connection, rows)
            connection.commit()
            connection.execute("VACUUM")
        finally:
            connection.close()


def book_row_batches(counts_columns: tuple[np.ndarray, ...], batch_size: int = 200_000) -> Iterator[list[BookRow]]:
    """Row batches for write_book from the columns (unsigned keys, moves, games, wins, draws, losses, flags, play)."""
    import numpy as np
    keys, *others = counts_columns
    signed = keys.astype(np.uint64).view(np.int64)
    order = np.lexsort((others[0], signed))  # SQLite's primary key order: signed key, then move
    for start in range(0, len(order), batch_size):
        part = order[start:start + batch_size]
        columns = [signed[part].tolist()] + [column[part].tolist() for column in others]
        yield list(zip(*columns))


# ---------------------------------------------------------------------------------------------
# Polyglot writing


WeightedMove = Union[tuple[int, str, int], tuple[int, str, int, bool]]


def _polyglot_raw_move(uci: str, castling: bool | None) -> int:
    """Polyglot's move field; castling (given, or guessed from the squares when None) as king-takes-rook."""
    if castling is None:
        castling = uci in KING_TWO_SQUARE_TO_TAKES_ROOK
    if castling:
        if uci not in KING_TWO_SQUARE_TO_TAKES_ROOK:
            raise ValueError(f"{uci} cannot be a castling move")
        uci = KING_TWO_SQUARE_TO_TAKES_ROOK[uci]
    return polyglot_raw_move(uci)


def polyglot_raw_move(uci: str) -> int:
    """Polyglot's move field for a UCI text: to | from << 6 | promotion << 12 (no castling rewrite)."""
    code = encode_move(uci)
    return (code >> 6) & 63 | (code & 63) << 6 | (code >> 12) << 12


def _polyglot_record(item: WeightedMove) -> tuple[int, int, int, int]:
    """(key, -weight, raw move, weight): sorting these gives Polyglot's order (by key, then by
    weight from high to low, as Polyglot's own book maker writes it)."""
    key, uci, weight = item[0], item[1], item[2]
    castling = item[3] if len(item) > 3 else None  # type: ignore[misc]
    if not 0 <= key < 1 << 64:
        raise ValueError(f"Polyglot key out of range: {key}")
    if not 1 <= weight <= 0xFFFF:
        raise ValueError(f"Polyglot weight must be 1..65535, got {weight} for {uci}")
    return key, -weight, _polyglot_raw_move(uci, castling), weight


def write_polyglot(path: str, weighted: Iterable[WeightedMove]) -> int:
    """Writes (key, uci, weight[, is castling]) as a sorted Polyglot book, atomically; returns the entry count.

    Without the fourth element, e1g1/e1c1/e8g8/e8c8 are taken as castling (the usual case in a book).
    """
    records = sorted(_polyglot_record(item) for item in weighted)
    with AtomicOutput(path) as output, open(output.temp_path, "wb", buffering=1 << 20) as handle:
        handle.writelines(POLYGLOT_ENTRY.pack(key, raw_move, weight, 0) for key, _, raw_move, weight in records)
        handle.flush()
    return len(records)


def write_polyglot_in_key_order(path: str, weighted: Iterable[WeightedMove]) -> int:
    """write_polyglot for moves that arrive grouped by ascending key (a book's own order):
    only one position's moves are held at a time, so a book of millions of moves streams
    straight to the file. Raises ValueError (and leaves any old file as it was) if a key
    arrives out of order."""
    count = 0
    with AtomicOutput(path) as output, open(output.temp_path, "wb", buffering=1 << 20) as handle:
        position: list[tuple[int, int, int, int]] = []

        def flush() -> None:
            position.sort()
            handle.writelines(POLYGLOT_ENTRY.pack(key, raw_move, weight, 0) for key, _, raw_move, weight in position)
            position.clear()

        for item in weighted:
            record = _polyglot_record(item)
            if position and record[0] != position[0][0]:
                if record[0] < position[0][0]:
                    raise ValueError(f"Polyglot key {record[0]:016x} arrives after {position[0][0]:016x}")
                flush()
            position.append(record)
            count += 1
        flush()
        handle.flush()
    return count


def polyglot_weight(entry: BookEntry) -> int:
    """Export weight: Polyglot's own scoring (2 per win, 1 per draw) or the games when no results are known.

    0 means leave the move out (never won nor drawn, or marked bad).
    """
    if entry.flags & FLAG_BAD:
        return 0
    if not entry.has_results or entry.wins + entry.draws + entry.losses == 0:
        return entry.games
    return 2 * entry.wins + entry.draws


def export_polyglot(book: OpeningBookFile | PolyglotBookFile, path: str) -> int:
    """Writes a book as Polyglot; weights above 65535 are scaled down per position so their ratios stay."""

    def weighted() -> Iterator[tuple[int, str, int, bool]]:
        current_key: int | None = None
        position: list[tuple[BookEntry, int]] = []

        def flush() -> Iterator[tuple[int, str, int, bool]]:
            largest = max((weight for _, weight in position), default=0)
            scale = min(1.0, 0xFFFF / largest) if largest else 1.0
            for entry, weight in position:
                yield current_key, entry.move, max(1, int(weight * scale)), entry.castling  # type: ignore[misc]

        for key, entry in book.iter_entries():
            if key != current_key:
                yield from flush()
                current_key, position = key, []
            weight = polyglot_weight(entry)
            if weight > 0:
                position.append((entry, weight))
        yield from flush()

    return write_polyglot(path, weighted())
