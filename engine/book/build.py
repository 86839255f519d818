"""Building Ponderosa books from PGN: `book create` (large book), `books create` (start book), add, merge, NAGs.

The games are read by engine/book/pgn_reader.py (in worker processes) into the numpy columns of
engine/book/move_counts.py; this module culls them, writes the book files and reports.
"""
from __future__ import annotations

import json
import lzma
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TextIO, cast

import chess
import chess.pgn
import chess.polyglot
import numpy as np

from ponderosa.engine.book.file import (
    BookFileError,
    OpeningBookFile,
    book_row_batches,
    write_book,
)
from ponderosa.engine.book.move_counts import MoveCounts
from ponderosa.engine.book.pgn_reader import (
    NAG_BLUNDER,
    NAG_BRILLIANT,
    NAG_DUBIOUS,
    NAG_GOOD,
    NAG_MISTAKE,
    NAG_SPECULATIVE,
    BookBuildError,
    ParsedGames,
    PgnFileError,
    Progress,
    open_pgn_text,
    parse_pgn_files,
)
from ponderosa.engine.input_files import BoundedLines, InputFileError

# Terra's user-set values per NAG; "?!" has no number in Terra's table: 5 (barely above "?").
NAG_VALUES = {NAG_GOOD: 75, NAG_MISTAKE: 0, NAG_BRILLIANT: 100, NAG_BLUNDER: 0, NAG_SPECULATIVE: 15, NAG_DUBIOUS: 5}


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
