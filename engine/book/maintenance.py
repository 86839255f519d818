"""The book files the engine plays from, built and kept up: Crafty's `book create` and `books
create`, Terra's "add more games" and merge, the Polyglot export, and user values read in bulk
from PGN. The builder (and numpy under it) is imported only when a book is built."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.engine.book.export import export_polyglot
from ponderosa.engine.book.opening_book import LARGE_BOOK_NAME, START_BOOK_NAME, OpeningBook

if TYPE_CHECKING:
    from ponderosa.engine.book.build import BuildReport, Progress


class BookMaintenance:
    """Builds, merges and exports the books of one OpeningBook, and reopens what it rewrote."""

    def __init__(self, book: OpeningBook) -> None:
        self.book = book

    def create_book(self, pgn_paths: list[str], max_moves: int, min_games: int = 1, win_percent: float = 0.0,
                    progress: Progress | None = None, out_path: str = LARGE_BOOK_NAME) -> BuildReport:
        """Crafty's `book create`: build the large book from PGN into out_path and use it."""
        from ponderosa.engine.book.build import create_book
        report = create_book(pgn_paths, out_path, max_moves, min_games, win_percent, progress)
        self.book.use_book(out_path)
        return report

    def add_to_book(self, pgn_paths: list[str], progress: Progress | None = None,
                    book_path: str = LARGE_BOOK_NAME) -> BuildReport:
        """Terra's "add more games": the games' counts are added to the book, which is reopened."""
        slots = self.book.close_slot_if(book_path)
        try:
            from ponderosa.engine.book.build import add_to_book
            return add_to_book(book_path, pgn_paths, progress)
        finally:
            if slots or book_path == LARGE_BOOK_NAME:
                self.book.use_book(book_path)

    def create_start_book(self, pgn_paths: list[str], max_moves: int,
                          out_path: str = START_BOOK_NAME) -> BuildReport:
        """Crafty's `books create`: the start book with its !, ? and {play nn%} marks."""
        from ponderosa.engine.book.build import create_start_book
        report = create_start_book(pgn_paths, out_path, max_moves)
        self.book.use_start_book(out_path)
        return report

    def merge_books(self, first: str, second: str, out_path: str) -> BuildReport:
        """Terra's book merge: counts summed into out_path (used at once if it is a current book)."""
        slots = self.book.close_slot_if(out_path)
        try:
            from ponderosa.engine.book.build import merge_books
            return merge_books(first, second, out_path)
        finally:
            for slot in slots:
                (self.book.use_book if slot == "large" else self.book.use_start_book)(out_path)

    def export_polyglot(self, path: str) -> int:
        """The book as a Polyglot file, weighted by the current selection settings."""
        return export_polyglot(self.book, path)

    def import_user_values(self, pgn_paths: list[str]) -> int:
        """Terra's user-set values in bulk from move NAGs (the last NAG for a move wins)."""
        from ponderosa.engine.book.build import read_nag_values
        return self.book.learned.set_user_values(read_nag_values(pgn_paths))
