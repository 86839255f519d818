"""The learned-data store: what the engine or its user adds on top of the book's fixed
statistics. It is kept apart from the book, so rebuilding the book never loses it.

It holds Terra's user-set values (`bookeval`, or move NAGs in bulk), book-learning values,
result-learning flags, Terra's dynamic values (the engine's own results per book move), the
PostBook, and position learning. One game's learning is written in one transaction, marked with
the game's id, so several engines can learn into one store at once without losing an update and
a killed process leaves either all of a game's learning or none of it.

The SQL is shared by the SQLite store (the default, one file in the working directory) and the
PostgreSQL store (`learn store postgresql://...`, gang learning): both speak `INSERT ... ON
CONFLICT ... DO UPDATE`, so every update is one atomic statement computed by the database.
"""
from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ponderosa.engine.book.file import decode_move, encode_move
from ponderosa.engine.errors import EngineError
from ponderosa.engine.input_files import InputFileError, regular_file
from ponderosa.engine.learning.rules import AGING_FACTOR, AGING_FLOOR, RESULT_LEARNED_VALUE, LearnedUpdate

DEFAULT_LEARNED_FILE = "ponderosa-learned.db"
FORMAT_NAME = "ponderosa-learned"
FORMAT_VERSION = "2"
BUSY_TIMEOUT_SECONDS = 60.0
# A bot learns from every game for weeks: every table that grows with the games played is capped.
POSITION_TABLE_LIMIT = 65536     # position learning: at most this many, first in first out
GAMES_TABLE_LIMIT = 65536        # learned game ids (what stops a game being learned twice), oldest dropped
POSTBOOK_TABLE_LIMIT = 65536     # PostBook moves; the least played are dropped

# Terra's bookeval words and the values they stand for. Terra's table gives no number for
# "?!" (dubious); 5 keeps it playable but rarer than "!?" (15).
BOOKEVAL_WORDS = {"!!": 100, "!": 75, "!?": 15, "?!": 5, "?": 0, "??": 0}

# One statement per entry; the PostgreSQL store runs the same text with its own placeholders.
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # key: the Polyglot key as a signed 64-bit integer; move: book_file.encode_move
    "CREATE TABLE IF NOT EXISTS user_values (key BIGINT NOT NULL, move INTEGER NOT NULL, "
    "value INTEGER NOT NULL CHECK (value BETWEEN 0 AND 100), PRIMARY KEY (key, move))",
    # value: centipawns for the side playing the move; never: result learning's flag
    "CREATE TABLE IF NOT EXISTS book_learning (key BIGINT NOT NULL, move INTEGER NOT NULL, "
    "value DOUBLE PRECISION NOT NULL, count INTEGER NOT NULL, never INTEGER NOT NULL DEFAULT 0, "
    "PRIMARY KEY (key, move))",
    # Terra's dynamic values: the engine's own games with the move and its points in them
    "CREATE TABLE IF NOT EXISTS own_results (key BIGINT NOT NULL, move INTEGER NOT NULL, "
    "games INTEGER NOT NULL, points DOUBLE PRECISION NOT NULL, PRIMARY KEY (key, move))",
    # Terra's PostBook: the first moves out of book, their evaluation and the engine's results
    "CREATE TABLE IF NOT EXISTS postbook (key BIGINT NOT NULL, move INTEGER NOT NULL, "
    "eval INTEGER NOT NULL, games INTEGER NOT NULL, points DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (key, move))",
    # position learning: seq orders the entries for first-in-first-out replacement
    "CREATE TABLE IF NOT EXISTS positions (seq {serial}, key BIGINT NOT NULL UNIQUE, "
    "score INTEGER NOT NULL, depth INTEGER NOT NULL, bound INTEGER NOT NULL)",
    # one row per learned game: what makes learning idempotent and checkable
    "CREATE TABLE IF NOT EXISTS games (game_id TEXT PRIMARY KEY, updates INTEGER NOT NULL, "
    "summary TEXT NOT NULL)",
    # the order games were learned in, for dropping the oldest ids (a table of its own, so that
    # a store made before it needs no change to its games table)
    "CREATE TABLE IF NOT EXISTS game_order (seq {serial}, game_id TEXT NOT NULL UNIQUE)",
)


class LearnedStoreError(EngineError):
    """The learned data cannot be used; the message names the file or database."""


def signed_key(key: int) -> int:
    """SQL integers are signed 64-bit: store the unsigned Polyglot key in that range."""
    return key - (1 << 64) if key >= 1 << 63 else key


def unsigned_key(key: int) -> int:
    return key + (1 << 64) if key < 0 else key


def parse_bookeval(text: str) -> int | None:
    """A bookeval argument as a value 0..100, or None for `clear`; ValueError if neither."""
    word = text.strip().lower()
    if word == "clear":
        return None
    if word in BOOKEVAL_WORDS:
        return BOOKEVAL_WORDS[word]
    value = int(word)
    if not 0 <= value <= 100:
        raise ValueError(f"bookeval value {value} is outside 0..100")
    return value


@dataclass(frozen=True)
class LearnedMove:
    """What has been learned about one book move."""

    value: float = 0.0         # book learning, centipawns for the side playing the move
    count: int = 0             # how many games' learning went into it
    never: bool = False        # result learning: never play it again
    own_games: int = 0         # Terra's dynamic values
    own_points: float = 0.0

    @property
    def own_score(self) -> float:
        return 100.0 * self.own_points / self.own_games if self.own_games else 0.0


@dataclass(frozen=True)
class PositionEntry:
    """A position-learning entry: loaded into the transposition table before every search."""

    key: int
    score: int                 # centipawns for the side to move
    depth: int
    bound: int                 # the transposition table's bound code (exact/lower/upper)


@dataclass(frozen=True)
class PostBookMove:
    key: int
    move: str
    eval: int                  # the engine's evaluation when it played the move (its own view)
    games: int
    points: float


@dataclass
class GameLearning:
    """Everything one game taught, written in one transaction."""

    game_id: str
    book: list[LearnedUpdate] = field(default_factory=list)          # averaged into book_learning
    never: list[tuple[int, str]] = field(default_factory=list)       # result learning
    own_results: list[tuple[int, str, float]] = field(default_factory=list)   # (key, move, points)
    postbook: list[tuple[int, str, int, float]] = field(default_factory=list)  # (key, move, eval, points)
    positions: list[PositionEntry] = field(default_factory=list)
    summary: str = ""

    @property
    def updates(self) -> int:
        return (len(self.book) + len(self.never) + len(self.own_results) + len(self.postbook)
                + len(self.positions))


class LearnedStore:
    """The learned data behind one database connection; subclasses say which database. Every
    method is one transaction; a store may be shared by the engine's threads."""

    location: str
    placeholder = "?"
    serial_column = "INTEGER PRIMARY KEY AUTOINCREMENT"

    def __init__(self, location: str) -> None:
        self.location = location
        self._connection: Any = None
        self._lock = threading.RLock()

    # -- connection (the subclass opens it) ------------------------------------------

    def _open(self, create: bool) -> Any:
        raise NotImplementedError

    def _begin(self, connection: Any) -> None:
        """Start a write transaction that holds the database until commit."""
        raise NotImplementedError

    def _connect(self, create: bool) -> Any:
        if self._connection is None:
            connection = self._open(create)
            if connection is None:
                return None
            self._connection = connection
            try:
                self._initialise()
            except BaseException:
                self._drop_connection()   # not a usable store: the next call tries afresh
                raise
        return self._connection

    def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception:   # closing a connection the server already dropped may complain
                pass

    def _abandon(self, connection: Any) -> None:
        """Roll back a failed transaction. A connection that cannot even do that (the server
        went away) is dropped, so the next call connects again."""
        try:
            connection.rollback()
        except Exception:
            self._drop_connection()

    def _initialise(self) -> None:
        def create(cursor: Any) -> None:
            for statement in SCHEMA:
                cursor.execute(statement.format(serial=self.serial_column))
            cursor.execute(self._sql("SELECT value FROM meta WHERE name = 'format'"))
            row = cursor.fetchone()
            if row is None:
                cursor.execute(self._sql("INSERT INTO meta VALUES ('format', ?), ('version', ?)"),
                               (FORMAT_NAME, FORMAT_VERSION))
            elif row[0] != FORMAT_NAME:
                raise LearnedStoreError(f"{self.location}: not a Ponderosa learned-data store")
        self._write(create, connect=False)

    def _sql(self, text: str) -> str:
        return text if self.placeholder == "?" else text.replace("?", self.placeholder)

    def _error(self, error: Exception) -> LearnedStoreError:
        return LearnedStoreError(f"{self.location}: learned data cannot be used ({error})")

    def _read(self, query: str, parameters: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            try:
                connection = self._connect(create=False)
                if connection is None:
                    return []
            except LearnedStoreError:
                raise
            except Exception as error:   # sqlite3 / psycopg errors alike
                raise self._error(error) from error
            try:
                cursor = connection.cursor()
                cursor.execute(self._sql(query), tuple(parameters))
                rows = cursor.fetchall()
                connection.commit()   # end the read transaction (PostgreSQL opens one)
                return rows
            except Exception as error:
                self._abandon(connection)
                raise self._error(error) from error

    def _write(self, work: Any, connect: bool = True) -> Any:
        """Run work(cursor) in one write transaction; rolled back whole on any error."""
        with self._lock:
            try:
                connection = self._connect(create=True) if connect else self._connection
            except LearnedStoreError:
                raise
            except Exception as error:
                raise self._error(error) from error
            try:
                cursor = connection.cursor()
                self._begin(connection)
                result = work(cursor)
                connection.commit()
                return result
            except LearnedStoreError:
                self._abandon(connection)
                raise
            except Exception as error:
                self._abandon(connection)
                raise self._error(error) from error

    def close(self) -> None:
        with self._lock:
            self._drop_connection()

    # -- Terra's user-set values --------------------------------------------------

    def user_values(self, key: int) -> dict[str, int]:
        """The user-set value of each move of the position that has one."""
        rows = self._read("SELECT move, value FROM user_values WHERE key = ?", (signed_key(key),))
        return {decode_move(move): value for move, value in rows}

    def learned_keys(self) -> set[int]:
        """Every position the store holds something for (a user-set value, book learning or the
        engine's own results): the rest need no look-up when a whole book is walked."""
        rows = self._read("SELECT key FROM user_values UNION SELECT key FROM book_learning "
                          "UNION SELECT key FROM own_results")
        return {unsigned_key(key) for (key,) in rows}

    def set_user_value(self, key: int, uci: str, value: int | None) -> None:
        """Set (0..100) or clear (None) the user-set value of a move in a position."""
        self.set_user_values([(key, uci, value)])

    def set_user_values(self, values: Iterable[tuple[int, str, int | None]]) -> int:
        """Set or clear many values in one transaction; returns how many were written."""
        rows = [(signed_key(key), encode_move(uci), value) for key, uci, value in values]

        def work(cursor: Any) -> None:
            for key, move, value in rows:
                if value is None:
                    cursor.execute(self._sql("DELETE FROM user_values WHERE key = ? AND move = ?"), (key, move))
                else:
                    cursor.execute(self._sql("INSERT INTO user_values VALUES (?, ?, ?) ON CONFLICT (key, move) "
                                             "DO UPDATE SET value = excluded.value"), (key, move, value))
        self._write(work)
        return len(rows)

    # -- book learning, result learning, Terra's dynamic values -----------------------

    def learned_moves(self, key: int) -> dict[str, LearnedMove]:
        """What was learned about each move of the position."""
        signed = signed_key(key)
        learned = self._read("SELECT move, value, count, never FROM book_learning WHERE key = ?", (signed,))
        own = self._read("SELECT move, games, points FROM own_results WHERE key = ?", (signed,))
        moves: dict[str, LearnedMove] = {}
        for move, value, count, never in learned:
            moves[decode_move(move)] = LearnedMove(float(value), int(count), bool(never))
        for move, games, points in own:
            uci = decode_move(move)
            old = moves.get(uci, LearnedMove())
            moves[uci] = LearnedMove(old.value, old.count, old.never, int(games), float(points))
        return moves

    def record_game(self, learning: GameLearning) -> bool:
        """Apply one game's learning in one transaction. A game id already learned is not
        learned twice (returns False)."""
        def work(cursor: Any) -> bool:
            # The game's row first, as a claim: if another engine is learning the same game at
            # this moment, the database makes this statement wait for it and then do nothing,
            # so the check and the claim cannot be split by a race (no SELECT-then-INSERT).
            cursor.execute(self._sql("INSERT INTO games VALUES (?, ?, ?) ON CONFLICT (game_id) DO NOTHING"),
                           (learning.game_id, learning.updates, learning.summary))
            if cursor.rowcount == 0:
                return False
            for update in learning.book:
                # Averaged with what was learned before (paper, section 5.1); a "never" stays put.
                cursor.execute(self._sql(
                    "INSERT INTO book_learning (key, move, value, count, never) VALUES (?, ?, ?, 1, 0) "
                    "ON CONFLICT (key, move) DO UPDATE SET "
                    "value = CASE WHEN book_learning.never = 1 THEN book_learning.value "
                    "ELSE (book_learning.value + excluded.value) / 2 END, "
                    "count = book_learning.count + 1"),
                    (signed_key(update.key), encode_move(update.move), float(update.value)))
            for key, move in learning.never:
                cursor.execute(self._sql(
                    "INSERT INTO book_learning (key, move, value, count, never) VALUES (?, ?, ?, 1, 1) "
                    "ON CONFLICT (key, move) DO UPDATE SET value = excluded.value, never = 1, "
                    "count = book_learning.count + 1"),
                    (signed_key(key), encode_move(move), float(RESULT_LEARNED_VALUE)))
            for key, move, points in learning.own_results:
                cursor.execute(self._sql(
                    "INSERT INTO own_results VALUES (?, ?, 1, ?) ON CONFLICT (key, move) DO UPDATE SET "
                    "games = own_results.games + 1, points = own_results.points + excluded.points"),
                    (signed_key(key), encode_move(move), float(points)))
            for key, move, evaluation, points in learning.postbook:
                cursor.execute(self._sql(
                    "INSERT INTO postbook VALUES (?, ?, ?, 1, ?) ON CONFLICT (key, move) DO UPDATE SET "
                    "eval = excluded.eval, games = postbook.games + 1, points = postbook.points + excluded.points"),
                    (signed_key(key), encode_move(move), int(evaluation), float(points)))
            for entry in learning.positions:
                self._store_position(cursor, entry)
            self._trim_games(cursor, learning.game_id)
            if learning.postbook:
                self._trim_postbook(cursor)
            return True
        return bool(self._write(work))

    def _trim_games(self, cursor: Any, game_id: str) -> None:
        """Note the game's place in the order; drop the oldest ids beyond the limit (a game that
        old, imported again from a .lrn file, would be learned again)."""
        cursor.execute(self._sql("INSERT INTO game_order (game_id) VALUES (?)"), (game_id,))
        cursor.execute(self._sql(
            "DELETE FROM games WHERE game_id IN (SELECT game_id FROM game_order "
            "WHERE seq <= (SELECT MAX(seq) FROM game_order) - ?)"), (GAMES_TABLE_LIMIT,))
        cursor.execute(self._sql(
            "DELETE FROM game_order WHERE seq <= (SELECT MAX(seq) FROM game_order) - ?"), (GAMES_TABLE_LIMIT,))

    def _trim_postbook(self, cursor: Any) -> None:
        """Keep the PostBook at its limit by dropping the moves played least, then the worst scoring."""
        cursor.execute("SELECT COUNT(*) FROM postbook")
        excess = cursor.fetchone()[0] - POSTBOOK_TABLE_LIMIT
        if excess > 0:
            cursor.execute(self._sql(
                "DELETE FROM postbook WHERE (key, move) IN (SELECT key, move FROM postbook "
                "ORDER BY games, points, key, move LIMIT ?)"), (excess,))

    def _store_position(self, cursor: Any, entry: PositionEntry) -> None:
        """Newest last: a position learned again moves to the back of the queue; the oldest
        entries beyond the limit are dropped."""
        key = signed_key(entry.key)
        cursor.execute(self._sql("DELETE FROM positions WHERE key = ?"), (key,))
        cursor.execute(self._sql("INSERT INTO positions (key, score, depth, bound) VALUES (?, ?, ?, ?)"),
                       (key, entry.score, entry.depth, entry.bound))
        cursor.execute(self._sql(
            "DELETE FROM positions WHERE seq <= (SELECT MAX(seq) FROM positions) - ?"), (POSITION_TABLE_LIMIT,))

    def age_skipped(self, key: int, moves: Iterable[str]) -> None:
        """Learning aging (paper 6.4): mildly bad values of moves not chosen drift toward 0."""
        rows = [(signed_key(key), encode_move(move)) for move in moves]
        if not rows:
            return

        def work(cursor: Any) -> None:
            for key_value, move in rows:
                cursor.execute(self._sql(
                    "UPDATE book_learning SET value = value * ? WHERE key = ? AND move = ? AND never = 0 "
                    "AND value < 0 AND value >= ?"), (AGING_FACTOR, key_value, move, float(AGING_FLOOR)))
        self._write(work)

    # -- PostBook and position learning ---------------------------------------------

    def postbook_moves(self, key: int) -> list[PostBookMove]:
        rows = self._read("SELECT move, eval, games, points FROM postbook WHERE key = ?", (signed_key(key),))
        return [PostBookMove(key, decode_move(move), int(evaluation), int(games), float(points))
                for move, evaluation, games, points in rows]

    def learned_positions(self) -> list[PositionEntry]:
        rows = self._read("SELECT key, score, depth, bound FROM positions ORDER BY seq")
        return [PositionEntry(unsigned_key(key), score, depth, bound) for key, score, depth, bound in rows]

    # -- the store as a whole ---------------------------------------------------------

    def learned_games(self) -> dict[str, int]:
        """game id -> number of updates it made."""
        return {game_id: updates for game_id, updates in self._read("SELECT game_id, updates FROM games")}

    def clear(self, keep_user_values: bool = True) -> None:
        """Forget everything learned (import ... clear); user-set values are the user's, kept."""
        tables = ["book_learning", "own_results", "postbook", "positions", "games", "game_order"]
        if not keep_user_values:
            tables.append("user_values")

        def work(cursor: Any) -> None:
            for table in tables:
                cursor.execute(f"DELETE FROM {table}")
        self._write(work)

    def dump(self) -> dict[str, list[tuple]]:
        """Every learned row, sorted: for comparing two stores (export/import round trips)."""
        return {
            "book_learning": sorted(self._read("SELECT key, move, value, count, never FROM book_learning")),
            "own_results": sorted(self._read("SELECT key, move, games, points FROM own_results")),
            "postbook": sorted(self._read("SELECT key, move, eval, games, points FROM postbook")),
            "positions": self._read("SELECT key, score, depth, bound FROM positions ORDER BY seq"),
            "user_values": sorted(self._read("SELECT key, move, value FROM user_values")),
        }


class SQLiteLearnedStore(LearnedStore):
    """One SQLite file (write-ahead log; writers wait for each other). The file is created on the
    first write, so an engine that learns nothing leaves nothing behind."""

    def __init__(self, path: str | os.PathLike = DEFAULT_LEARNED_FILE) -> None:
        # Absolute now: the file is opened on first use, by which time the working directory
        # may have changed.
        super().__init__(os.path.abspath(path))
        self.path = self.location

    def _open(self, create: bool) -> Any:
        if not create and not Path(self.path).is_file():
            return None
        try:
            connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False,
                                         isolation_level=None)
        except sqlite3.DatabaseError as error:
            raise self._error(error) from error
        try:
            _use_write_ahead_log(connection)
            connection.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as error:
            connection.close()
            raise self._error(error) from error
        return _SQLiteConnection(connection)

    def _begin(self, connection: Any) -> None:
        # IMMEDIATE takes the write lock at once, so two engines never both read-then-write.
        connection.raw.execute("BEGIN IMMEDIATE")

    def close(self) -> None:
        """Fold the write-ahead log into the database file, then close: SQLite removes the -wal
        and -shm files when the last connection closes cleanly, so a finished engine leaves only
        the database behind (another engine still using the file keeps them, rightly)."""
        with self._lock:
            connection = self._connection
            if connection is not None:
                try:
                    connection.raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error:   # busy with another engine's write: closing still checkpoints
                    pass
            self._drop_connection()


def _use_write_ahead_log(connection: sqlite3.Connection) -> None:
    """Write-ahead logging lets engines read while another writes. Switching a file to it needs
    the file to itself, and SQLite then answers "locked" at once instead of waiting (the busy
    timeout does not apply), so engines opening one new file together retry until it is done."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class _SQLiteConnection:
    """sqlite3 in autocommit mode with explicit BEGIN/COMMIT, behind the DB-API calls the store
    uses (sqlite3's own implicit transactions would not start with BEGIN IMMEDIATE)."""

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    def cursor(self) -> sqlite3.Cursor:
        return self.raw.cursor()

    def commit(self) -> None:
        if self.raw.in_transaction:
            self.raw.execute("COMMIT")

    def rollback(self) -> None:
        if self.raw.in_transaction:
            self.raw.execute("ROLLBACK")

    def close(self) -> None:
        self.raw.close()


def open_learned_store(location: str | None = None) -> LearnedStore:
    """A PostgreSQL URL (postgresql://...) or a SQLite file path (default: in the working directory)."""
    if location and location.startswith(("postgresql://", "postgres://")):
        from ponderosa.engine.learning.store_pg import PostgresLearnedStore
        return PostgresLearnedStore(location)
    path = location or DEFAULT_LEARNED_FILE
    if os.path.lexists(path):   # a file made on the first write may be missing; anything else must be a file
        try:
            regular_file(path, "a learned-data store")
        except InputFileError as error:
            raise LearnedStoreError(str(error)) from None
    return SQLiteLearnedStore(path)
