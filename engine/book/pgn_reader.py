"""Reading PGN files into book move counts, for `book create`, `books create` and `book add`.

The parent process reads the (decompressed) PGN text and cuts it into chunks at game boundaries;
worker processes parse the chunks with python-chess and return per-chunk (key, move) counts as
numpy arrays (engine/book/move_counts.py), which the parent sums.
"""
from __future__ import annotations

import gzip
import io
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
from typing import IO

import chess
import chess.pgn
import chess.polyglot

from ponderosa.core_ext.core import Board
from ponderosa.engine.book.file import (
    CASTLING_BIT,
    FLAG_BAD,
    FLAG_GOOD,
    BookFileError,
)
from ponderosa.engine.book.move_counts import MoveCounts, counts_from_occurrences
from ponderosa.engine.input_files import InputFileError, regular_file

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

PLAY_PERCENT = re.compile(r"play\s+(\d{1,3})\s*%", re.IGNORECASE)
GAME_BOUNDARY = re.compile(r"\n[ \t\r]*\n(?=\[)")  # a blank line followed by a tag line starts a game
WHITE_RESULTS = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}  # outcome index for White: win, draw, loss
NO_OUTCOME = 3


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
