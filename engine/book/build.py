"""Building Ponderosa books from PGN: `book create` (large book), `books create` (start book), add, merge, NAGs.

The parent process reads the (decompressed) PGN text and cuts it into chunks at game boundaries;
worker processes parse the chunks with python-chess and return per-chunk (key, move) counts as
numpy arrays, which the parent sums with a sort and a segmented reduction (a Python dict of
~11 M occurrences would need gigabytes).
"""
from __future__ import annotations

import gzip
import io
import json
import lzma
import multiprocessing
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import IO, TextIO, cast

import chess
import chess.pgn
import chess.polyglot
import numpy as np

from ponderosa.core_ext.board import Board
from ponderosa.engine.book.file import (
    CASTLING_BIT,
    FLAG_BAD,
    FLAG_GOOD,
    BookFileError,
    OpeningBookFile,
    book_row_batches,
    write_book,
)
from ponderosa.engine.input_files import BoundedLines, InputFileError, regular_file

Progress = Callable[[int, int, int, float], None]  # games read, bytes read, total bytes or 0, elapsed seconds

CHUNK_BYTES = 1 << 20  # ~1,700 games of the master collection per worker task
PROGRESS_SECONDS = 0.5
REDUCE_ROWS = 4_000_000  # sum the collected chunk counts whenever this many rows are waiting

SKIP_NO_RESULT = "result *"
SKIP_ILLEGAL = "illegal move"
SKIP_NON_STANDARD = "non-standard start (FEN/variant)"
SKIP_UNREADABLE = "unreadable"
SKIP_NO_MOVES = "no moves"

# NAG numbers (PGN standard) and the flags they set in a start book.
NAG_GOOD, NAG_MISTAKE, NAG_BRILLIANT, NAG_BLUNDER, NAG_SPECULATIVE, NAG_DUBIOUS = 1, 2, 3, 4, 5, 6
NAG_FLAGS = {NAG_GOOD: FLAG_GOOD, NAG_BRILLIANT: FLAG_GOOD, NAG_MISTAKE: FLAG_BAD, NAG_BLUNDER: FLAG_BAD}
# Terra's user-set values per NAG; "?!" has no number in Terra's table: 5 (barely above "?").
NAG_VALUES = {NAG_GOOD: 75, NAG_MISTAKE: 0, NAG_BRILLIANT: 100, NAG_BLUNDER: 0, NAG_SPECULATIVE: 15, NAG_DUBIOUS: 5}

PLAY_PERCENT = re.compile(r"play\s+(\d{1,3})\s*%", re.IGNORECASE)
GAME_BOUNDARY = re.compile(r"\n[ \t\r]*\n(?=\[)")  # a blank line followed by a tag line starts a game
WHITE_RESULTS = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}  # outcome index for White: win, draw, loss
NO_OUTCOME = 3


# ---------------------------------------------------------------------------------------------
# Counts per (key, move) as numpy columns


@dataclass
class MoveCounts:
    """Columns of (key, move) counts; after reduce() each (key, move) appears once, sorted."""

    keys: np.ndarray  # uint64
    moves: np.ndarray  # uint16 move codes
    games: np.ndarray  # uint32 (the four count columns)
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    flags: np.ndarray  # uint8
    play: np.ndarray  # uint8, 0 = not set

    @classmethod
    def empty(cls) -> MoveCounts:
        return cls.concatenate([])

    @classmethod
    def concatenate(cls, parts: Sequence[MoveCounts]) -> MoveCounts:
        dtypes = (np.uint64, np.uint16, np.uint32, np.uint32, np.uint32, np.uint32, np.uint8, np.uint8)
        if not parts:
            return cls(*(np.zeros(0, dtype) for dtype in dtypes))
        return cls(*[np.concatenate([part.columns()[index] for part in parts]).astype(dtype, copy=False)
                     for index, dtype in enumerate(dtypes)])

    def columns(self) -> tuple[np.ndarray, ...]:
        return (self.keys, self.moves, self.games, self.wins, self.draws, self.losses, self.flags, self.play)

    def __len__(self) -> int:
        return len(self.keys)

    def reduce(self) -> MoveCounts:
        """Sums rows with equal (key, move); flags are OR-ed; play percent: the last non-zero in row order."""
        if len(self) == 0:
            return self
        order = np.lexsort((self.moves, self.keys))  # stable: equal rows keep their input order
        keys, moves = self.keys[order], self.moves[order]
        starts = np.flatnonzero(np.concatenate(([True], (keys[1:] != keys[:-1]) | (moves[1:] != moves[:-1]))))
        games, wins, draws, losses = (np.add.reduceat(column[order], starts).astype(np.uint32)
                                      for column in (self.games, self.wins, self.draws, self.losses))
        flags = np.bitwise_or.reduceat(self.flags[order], starts).astype(np.uint8)
        play_sorted = self.play[order]
        last_set = np.maximum.reduceat(np.where(play_sorted > 0, np.arange(len(order)), -1), starts)
        play = np.where(last_set >= 0, play_sorted[np.maximum(last_set, 0)], 0).astype(np.uint8)
        return MoveCounts(keys[starts], moves[starts], games, wins, draws, losses, flags, play)

    def select(self, keep: np.ndarray) -> MoveCounts:
        return MoveCounts(*(column[keep] for column in self.columns()))


def counts_from_occurrences(keys: list[int], moves: list[int], outcomes: list[int],
                            flags: list[int], play: list[int]) -> MoveCounts:
    """Counts for one chunk: one row per move played (outcome 0 win, 1 draw, 2 loss, 3 none, mover's view)."""
    outcome = np.array(outcomes, dtype=np.uint8)
    counts = MoveCounts(np.array(keys, dtype=np.uint64), np.array(moves, dtype=np.uint16),
                        np.ones(len(outcome), np.uint32), (outcome == 0).astype(np.uint32),
                        (outcome == 1).astype(np.uint32), (outcome == 2).astype(np.uint32),
                        np.array(flags, dtype=np.uint8), np.array(play, dtype=np.uint8))
    return counts.reduce()


# ---------------------------------------------------------------------------------------------
# Parsing one chunk of PGN text


class BookGameVisitor(chess.pgn.BaseVisitor[bool]):
    """Collects (key, move, outcome, flags, play percent) for the first plies of each game into shared lists.

    Variations are skipped, and after max_plies the rest of the game is only tokenised.
    """

    def __init__(self, max_plies: int, keep_unfinished: bool, collector: ChunkCollector) -> None:
        self.max_plies = max_plies
        self.keep_unfinished = keep_unfinished
        self.collector = collector

    def begin_game(self) -> None:
        self.headers: dict[str, str] = {}
        self.skip_reason: str | None = None
        self.untagged_reason: str | None = None
        self.keys: list[int] = []
        self.moves: list[int] = []
        self.flags: list[int] = []
        self.play: list[int] = []
        self.last_move_taken = False  # NAGs and comments belong to a move only when it was taken
        self.core_board: Board | None = None

    def begin_headers(self) -> None:
        return None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> chess.pgn.SkipType | None:
        headers = self.headers
        if "FEN" in headers or headers.get("SetUp", "0") == "1" or \
                headers.get("Variant", "standard").lower() not in ("standard", "chess", "normal"):
            self.skip_reason = SKIP_NON_STANDARD
        elif headers.get("Result", "*") not in WHITE_RESULTS and not self.keep_unfinished:
            if not headers:
                # No tags at all: read the moves to tell plain movetext ("result *") from junk ("unreadable").
                self.untagged_reason = SKIP_NO_RESULT
            else:
                self.skip_reason = SKIP_NO_RESULT
        if self.skip_reason:
            return chess.pgn.SKIP
        self.core_board = Board()
        return None

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def begin_parse_san(self, board: chess.Board, san: str) -> chess.pgn.SkipType | None:
        if self.skip_reason or len(self.moves) >= self.max_plies:
            self.last_move_taken = False
            return chess.pgn.SKIP
        return None

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        assert self.core_board is not None
        uci = move.uci()
        promotion = move.promotion - 1 if move.promotion else 0
        code = move.from_square | move.to_square << 6 | promotion << 12
        if board.is_castling(move):
            code |= CASTLING_BIT
        self.keys.append(self.core_board.key)
        self.moves.append(code)
        self.flags.append(0)
        self.play.append(0)
        self.last_move_taken = True
        try:
            self.core_board.push_uci(uci)
        except (ValueError, OverflowError):  # the core and python-chess disagree: drop the game, never crash
            self.skip_reason = SKIP_ILLEGAL

    def visit_nag(self, nag: int) -> None:
        # A NAG belongs to the move before it.
        if self.last_move_taken and not self.skip_reason:
            self.flags[-1] |= NAG_FLAGS.get(nag, 0)

    def visit_comment(self, comment: str) -> None:
        match = PLAY_PERCENT.search(comment)
        if match and self.last_move_taken and not self.skip_reason:
            self.play[-1] = min(100, int(match.group(1)))

    def handle_error(self, error: Exception) -> None:
        if self.skip_reason is None:
            self.skip_reason = SKIP_ILLEGAL if self.headers else SKIP_UNREADABLE

    def end_game(self) -> None:
        reason = self.skip_reason
        if reason is None and not self.moves:
            reason = SKIP_UNREADABLE if not self.headers else SKIP_NO_MOVES
        reason = reason or self.untagged_reason
        self.collector.add_game(self, reason)

    def result(self) -> bool:
        return True  # read_game returns None only at the end of the text


class ChunkCollector:
    """Occurrences of every used game of one chunk, and the skip counts."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.moves: list[int] = []
        self.outcomes: list[int] = []
        self.flags: list[int] = []
        self.play: list[int] = []
        self.games_read = 0
        self.games_used = 0
        self.skipped: Counter[str] = Counter()
        self.game_line = 1  # line (in the chunk) where the game being read starts
        self.first_skip_lines: dict[str, int] = {}  # reason -> line of its first game, to name in the report

    def add_game(self, game: BookGameVisitor, skip_reason: str | None) -> None:
        self.games_read += 1
        if skip_reason:
            self.skipped[skip_reason] += 1
            self.first_skip_lines.setdefault(skip_reason, self.game_line)
            return
        self.games_used += 1
        white_outcome = WHITE_RESULTS.get(game.headers.get("Result", "*"), NO_OUTCOME)
        # Black's outcome is White's mirrored: win <-> loss.
        black_outcome = white_outcome if white_outcome in (1, NO_OUTCOME) else 2 - white_outcome
        self.keys.extend(game.keys)
        self.moves.extend(game.moves)
        self.outcomes.extend(white_outcome if ply % 2 == 0 else black_outcome for ply in range(len(game.moves)))
        self.flags.extend(game.flags)
        self.play.extend(game.play)


@dataclass
class ChunkResult:
    counts: MoveCounts
    games_read: int
    games_used: int
    skipped: dict[str, int]
    first_skip_lines: dict[str, int]  # line numbers within the chunk, from 1


def parse_chunk(text: str, max_plies: int, keep_unfinished: bool) -> ChunkResult:
    """Parses the games of one chunk of PGN text (runs in a worker process)."""
    collector = ChunkCollector()
    handle = io.StringIO(text)
    counted_to = 0
    while True:
        offset = handle.tell()  # StringIO: a character index
        offset += len(text[offset:offset + 256]) - len(text[offset:offset + 256].lstrip())  # blank lines
        collector.game_line += text.count("\n", counted_to, offset)
        counted_to = offset
        if not chess.pgn.read_game(handle, Visitor=lambda: BookGameVisitor(max_plies, keep_unfinished, collector)):
            break
    counts = counts_from_occurrences(collector.keys, collector.moves, collector.outcomes,
                                     collector.flags, collector.play)
    return ChunkResult(counts, collector.games_read, collector.games_used, dict(collector.skipped),
                       collector.first_skip_lines)


def watch_parent(parent_pid: int) -> None:
    """Worker start: exit when the parent is gone (a killed build would otherwise leave idle workers behind)."""

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


# ---------------------------------------------------------------------------------------------
# Reading PGN files


class BookBuildError(Exception):
    """The build itself failed (not a problem of one file)."""


class PgnFileError(BookFileError):
    """A PGN input file that cannot be read (missing, or a broken compressed stream)."""


def open_pgn_text(path: str) -> tuple[IO[str], IO[bytes]]:
    """(text stream, raw compressed stream) for a .pgn, .pgn.gz or .pgn.xz, told apart by content."""
    try:
        regular_file(path, "a PGN file")   # any size: the games are read as a stream
    except InputFileError as error:
        raise PgnFileError(path, error.reason) from None
    raw = open(path, "rb")
    magic = raw.read(6)
    raw.seek(0)
    decompressed: IO[bytes]
    if magic.startswith(b"\x1f\x8b"):
        decompressed = gzip.GzipFile(fileobj=raw)  # type: ignore[assignment]
    elif magic.startswith(b"\xfd7zXZ\x00"):
        decompressed = lzma.LZMAFile(raw)  # type: ignore[assignment]
    else:
        decompressed = raw
    # The master collection has bytes that are not UTF-8: they become U+FFFD, only in names and comments.
    text = io.TextIOWrapper(decompressed, encoding="utf-8", errors="replace", newline=None)
    return text, raw


@dataclass
class PgnChunk:
    path: str
    first_line: int  # line number of the chunk's first line in its file
    text: str


def pgn_chunks(paths: Sequence[str], on_bytes: Callable[[int], None]) -> Iterator[PgnChunk]:
    """Chunks of about CHUNK_BYTES of PGN text, each ending at a game boundary."""
    done_bytes = 0
    for path in paths:
        text, raw = open_pgn_text(path)
        pending = ""
        line = 1

        def cut_at(end: int, path: str = path) -> PgnChunk:
            nonlocal pending, line
            chunk = PgnChunk(path, line, pending[:end])
            line += chunk.text.count("\n")
            pending = pending[end:]
            return chunk

        try:
            while True:
                try:
                    block = text.read(CHUNK_BYTES)
                except (EOFError, OSError, lzma.LZMAError) as error:
                    raise PgnFileError(path, f"PGN file is damaged (compressed data broken: {error})") from None
                on_bytes(done_bytes + raw.tell())
                if not block:
                    break
                if "\0" in block:   # a file of zeros or another binary file: no PGN in it
                    raise PgnFileError(path, "not a text file (binary data), not a PGN file")
                pending += block
                boundaries = list(GAME_BOUNDARY.finditer(pending))
                if boundaries and boundaries[-1].start() > 0:
                    yield cut_at(boundaries[-1].start() + 1)
                elif len(pending) > 16 * CHUNK_BYTES:  # no boundary at all: not real PGN; cut at a line end
                    yield cut_at(pending.rfind("\n") + 1 or len(pending))
            if pending.strip():
                yield cut_at(len(pending))
            done_bytes += raw.tell()
        finally:
            text.close()
            raw.close()


def _total_bytes(paths: Sequence[str]) -> int:
    return sum(os.path.getsize(path) for path in paths if os.path.isfile(path))


@dataclass
class ParsedGames:
    counts: MoveCounts
    games_read: int = 0
    games_used: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    first_skips: dict[str, str] = field(default_factory=dict)  # reason -> "file:line" of its first game


def parse_pgn_files(paths: Sequence[str], max_plies: int, keep_unfinished: bool,
                    progress: Progress | None, workers: int | None) -> ParsedGames:
    """All (key, move) counts of the games in the files, parsed by `workers` processes."""
    for path in paths:
        try:
            regular_file(path, "a PGN file")
        except InputFileError as error:
            raise PgnFileError(path, error.reason) from None
    start = time.monotonic()
    total = _total_bytes(paths)
    bytes_read = [0]
    parsed = ParsedGames(MoveCounts.empty())
    waiting: list[MoveCounts] = []
    waiting_rows = [0]
    last_report = [start]

    def take(chunk: PgnChunk, result: ChunkResult) -> None:
        for reason, line in result.first_skip_lines.items():
            parsed.first_skips.setdefault(reason, f"{chunk.path}:{chunk.first_line + line - 1}")
        parsed.games_read += result.games_read
        parsed.games_used += result.games_used
        parsed.skipped.update(result.skipped)
        waiting.append(result.counts)
        waiting_rows[0] += len(result.counts)
        if waiting_rows[0] > REDUCE_ROWS:
            merged = MoveCounts.concatenate([parsed.counts, *waiting]).reduce()
            parsed.counts = merged
            waiting.clear()
            waiting_rows[0] = 0
        now = time.monotonic()
        if progress and now - last_report[0] >= PROGRESS_SECONDS:
            last_report[0] = now
            progress(parsed.games_read, bytes_read[0], total, now - start)

    def note_bytes(count: int) -> None:
        bytes_read[0] = count

    chunks = pgn_chunks(paths, note_bytes)
    workers = (os.cpu_count() or 1) if workers is None else max(1, workers)
    if workers == 1:
        for chunk in chunks:
            take(chunk, parse_chunk(chunk.text, max_plies, keep_unfinished))
    else:
        # spawn, not fork: the engine that calls this has threads, and forking them is unsafe.
        # An executor (not multiprocessing.Pool) reports a worker that died instead of waiting forever.
        context = multiprocessing.get_context("spawn")
        try:
            with ProcessPoolExecutor(workers, mp_context=context, initializer=watch_parent,
                                     initargs=(os.getpid(),)) as executor:
                pending: list[tuple[PgnChunk, Future[ChunkResult]]] = []
                for chunk in chunks:
                    pending.append((chunk, executor.submit(parse_chunk, chunk.text, max_plies, keep_unfinished)))
                    # Only a few chunks in flight, so the text of a huge file is never all in memory.
                    while len(pending) > 2 * workers:
                        done_chunk, future = pending.pop(0)
                        take(done_chunk, future.result())
                for done_chunk, future in pending:
                    take(done_chunk, future.result())
        except BrokenProcessPool as error:
            raise BookBuildError(f"a worker process of the book build stopped: {error}") from None
    parsed.counts = MoveCounts.concatenate([parsed.counts, *waiting]).reduce()
    if progress:
        progress(parsed.games_read, bytes_read[0], total, time.monotonic() - start)
    return parsed


# ---------------------------------------------------------------------------------------------
# Reports and book parameters


@dataclass
class BuildReport:
    games_read: int
    games_used: int
    games_skipped: dict[str, int]
    positions: int
    moves: int
    moves_dropped: dict[str, int]
    seconds: float
    path: str = ""
    first_skips: dict[str, str] = field(default_factory=dict)  # reason -> "file:line" of the first such game

    def summary(self) -> str:
        lines = [f"{self.path}: {self.positions:,} positions, {self.moves:,} moves",
                 f"games read {self.games_read:,}, used {self.games_used:,}"]
        for reason, count in sorted(self.games_skipped.items()):
            where = f" (first at {self.first_skips[reason]})" if reason in self.first_skips else ""
            lines.append(f"  skipped ({reason}): {count:,}{where}")
        for reason, count in sorted(self.moves_dropped.items()):
            lines.append(f"  moves dropped ({reason}): {count:,}")
        rate = self.games_read / self.seconds if self.seconds > 0 else 0.0
        lines.append(f"time {self.seconds:.1f} s ({rate:,.0f} games/s)")
        return "\n".join(lines)


def cull(counts: MoveCounts, min_games: int, win_percent: float) -> tuple[MoveCounts, dict[str, int]]:
    """Crafty's rules: drop moves played in fewer than N games, then those that won less than WPCT% of their losses."""
    too_rare = counts.games < min_games
    losing = ~too_rare & (counts.wins.astype(np.float64) < win_percent / 100.0 * counts.losses)
    dropped = {}
    if too_rare.any():
        dropped[f"fewer than {min_games} games"] = int(too_rare.sum())
    if losing.any():
        dropped[f"wins below {win_percent:g}% of losses"] = int(losing.sum())
    return counts.select(~(too_rare | losing)), dropped


def _write(out_path: str, counts: MoveCounts, meta: dict[str, object]) -> tuple[int, int]:
    """Writes the book; positions and moves go into the meta so `book info` need not count 7 M rows."""
    positions = int(np.count_nonzero(np.diff(counts.keys))) + 1 if len(counts) else 0  # keys are sorted
    meta = {**meta, "positions": positions, "moves": len(counts)}
    write_book(out_path, book_row_batches(counts.columns()), meta)
    return positions, len(counts)


def _check_max_moves(max_moves: int) -> None:
    if max_moves < 1:
        raise ValueError(f"the number of moves must be at least 1, got {max_moves}")


def _report(parsed: ParsedGames, positions: int, moves: int, dropped: dict[str, int], start: float,
            path: str) -> BuildReport:
    return BuildReport(parsed.games_read, parsed.games_used, dict(parsed.skipped), positions, moves, dropped,
                       time.monotonic() - start, path, dict(parsed.first_skips))


# ---------------------------------------------------------------------------------------------
# Commands


def create_book(pgn_paths: Sequence[str], out_path: str, max_moves: int, min_games: int = 1,
                win_percent: float = 0.0, progress: Progress | None = None,
                workers: int | None = None) -> BuildReport:
    """Crafty's `book create`: the first max_moves moves of every finished standard game, culled by N and WPCT."""
    _check_max_moves(max_moves)
    start = time.monotonic()
    parsed = parse_pgn_files(pgn_paths, 2 * max_moves, False, progress, workers)
    kept, dropped = cull(parsed.counts, min_games, win_percent)
    meta = {"kind": "book", "sources": json.dumps(list(pgn_paths)), "max_moves": max_moves,
            "min_games": min_games, "win_percent": f"{win_percent:g}", "games_read": parsed.games_read,
            "games_used": parsed.games_used}
    positions, moves = _write(out_path, kept, meta)
    return _report(parsed, positions, moves, dropped, start, out_path)


def create_start_book(pgn_paths: Sequence[str], out_path: str, max_moves: int) -> BuildReport:
    """Crafty's `books create`: every move up to max_moves, with ! / ? flags and {play nn%} comments."""
    _check_max_moves(max_moves)
    start = time.monotonic()
    parsed = parse_pgn_files(pgn_paths, 2 * max_moves, True, None, 1)
    meta = {"kind": "start", "sources": json.dumps(list(pgn_paths)), "max_moves": max_moves, "min_games": 1,
            "win_percent": "0", "games_read": parsed.games_read, "games_used": parsed.games_used}
    positions, moves = _write(out_path, parsed.counts, meta)
    return _report(parsed, positions, moves, {}, start, out_path)


def read_book_counts(path: str) -> tuple[MoveCounts, dict[str, str]]:
    """All rows of a Ponderosa book as counts, and its meta."""
    book = OpeningBookFile.open(path)
    try:
        parts = []
        cursor = book._connection.execute(
            "SELECT key, move, games, wins, draws, losses, flags, play_percent FROM moves")
        while True:
            rows = cursor.fetchmany(200_000)
            if not rows:
                break
            table = np.array(rows, dtype=np.int64)
            parts.append(MoveCounts(table[:, 0].view(np.uint64), *[table[:, index] for index in range(1, 8)]))
        return MoveCounts.concatenate(parts), book.info()
    finally:
        book.close()


def _meta_int(meta: dict[str, str], name: str, path: str) -> int:
    try:
        return int(meta[name])
    except (KeyError, ValueError):
        raise BookFileError(path, f"book meta {name!r} is missing or not a number") from None


def add_to_book(book_path: str, pgn_paths: Sequence[str], progress: Progress | None = None,
                workers: int | None = None) -> BuildReport:
    """Adds the counts of more games to a book, re-applying its stored N and WPCT; replaces it atomically."""
    start = time.monotonic()
    existing, meta = read_book_counts(book_path)
    max_moves = _meta_int(meta, "max_moves", book_path)
    min_games = _meta_int(meta, "min_games", book_path)
    try:
        win_percent = float(meta.get("win_percent", "0"))
    except ValueError:
        raise BookFileError(book_path, "book meta 'win_percent' is not a number") from None
    is_start = meta["kind"] == "start"
    parsed = parse_pgn_files(pgn_paths, 2 * max_moves, is_start, progress, 1 if is_start else workers)
    combined = MoveCounts.concatenate([existing, parsed.counts]).reduce()
    kept, dropped = (combined, {}) if is_start else cull(combined, min_games, win_percent)
    sources = json.loads(meta.get("sources", "[]")) + list(pgn_paths)
    new_meta: dict[str, object] = {name: value for name, value in meta.items()
                                   if name not in ("format", "format_version", "created")}
    new_meta.update(sources=json.dumps(sources),
                    games_read=_meta_int(meta, "games_read", book_path) + parsed.games_read,
                    games_used=int(meta.get("games_used", "0")) + parsed.games_used)
    positions, moves = _write(book_path, kept, new_meta)
    return _report(parsed, positions, moves, dropped, start, book_path)


def merge_books(first: str, second: str, out_path: str) -> BuildReport:
    """Sums two books of the same kind: counts added, flags OR-ed, the second's play percent where both set one."""
    start = time.monotonic()
    first_counts, first_meta = read_book_counts(first)
    second_counts, second_meta = read_book_counts(second)
    if first_meta["kind"] != second_meta["kind"]:
        raise BookFileError(second, f"is a {second_meta['kind']!r} book and {first} a {first_meta['kind']!r} "
                                    "book: only books of the same kind can be merged")
    merged = MoveCounts.concatenate([first_counts, second_counts]).reduce()  # row order: the second's last

    def number(meta: dict[str, str], name: str, path: str) -> int:
        return _meta_int(meta, name, path)

    games_read = number(first_meta, "games_read", first) + number(second_meta, "games_read", second)
    games_used = int(first_meta.get("games_used", "0")) + int(second_meta.get("games_used", "0"))
    meta = {"kind": first_meta["kind"],
            "sources": json.dumps(json.loads(first_meta.get("sources", "[]"))
                                  + json.loads(second_meta.get("sources", "[]"))),
            "merged_from": json.dumps([first, second]),
            # The merged book holds whatever both kept: the longer move limit, the looser culling.
            "max_moves": max(number(first_meta, "max_moves", first), number(second_meta, "max_moves", second)),
            "min_games": min(number(first_meta, "min_games", first), number(second_meta, "min_games", second)),
            "win_percent": f"{min(float(first_meta['win_percent']), float(second_meta['win_percent'])):g}",
            "games_read": games_read, "games_used": games_used}
    positions, moves = _write(out_path, merged, meta)
    parsed = ParsedGames(merged, games_read, games_used)
    return _report(parsed, positions, moves, {}, start, out_path)


class NagVisitor(chess.pgn.GameBuilder):
    """A GameBuilder that records read errors instead of logging them."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def read_nag_values(pgn_paths: Sequence[str]) -> list[tuple[int, str, int]]:
    """(key, uci, value) for every move carrying a NAG with a value, in all lines; the last one found wins."""
    values: dict[tuple[int, str], int] = {}
    for path in pgn_paths:
        text, raw = open_pgn_text(path)
        lines = BoundedLines(text, path, "a PGN file")   # a game at a time, each of bounded size
        try:
            while True:
                try:
                    lines.start_game()
                    game = chess.pgn.read_game(cast(TextIO, lines), Visitor=NagVisitor)
                except (EOFError, OSError, lzma.LZMAError) as error:
                    raise PgnFileError(path, f"PGN file is damaged: {error}") from None
                except InputFileError as error:
                    raise PgnFileError(path, error.reason) from None
                if game is None:
                    break
                if "Variant" in game.headers and game.headers["Variant"].lower() not in ("standard", "chess"):
                    continue  # keys of variant positions mean nothing to a standard book
                for node in _all_nodes(game):
                    value = None
                    for nag in sorted(node.nags):  # several NAGs on one move: the highest numbered wins
                        value = NAG_VALUES.get(nag, value)
                    if value is not None:
                        key = chess.polyglot.zobrist_hash(node.parent.board())
                        values.pop((key, node.move.uci()), None)  # so the last one found is also last in order
                        values[(key, node.move.uci())] = value
        finally:
            text.close()
            raw.close()
    return [(key, uci, value) for (key, uci), value in values.items()]


def _all_nodes(node: chess.pgn.GameNode) -> Iterator[chess.pgn.ChildNode]:
    """Every move node after this one, main line and variations, in the order they appear in the text."""
    while node.variations:
        main, *sidelines = node.variations
        yield main  # "1. e4 (1. d4 d5) e5": e4, then the sideline d4 d5, then e5
        for sideline in sidelines:
            yield sideline
            yield from _all_nodes(sideline)
        node = main


__all__ = ["BuildReport", "Progress", "create_book", "add_to_book", "merge_books", "create_start_book",
           "read_nag_values", "PgnFileError", "BookBuildError"]
