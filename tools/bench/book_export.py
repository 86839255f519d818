"""Time `book export` of a large book: the bulk export against ranking every position one by one
(the same rules, the way the export worked before), in the same run.

    python -m tools.bench.book_export BOOK.bin [--one-by-one]

BOOK.bin is a Ponderosa (SQLite) book, e.g. the full one from the master games:
    ponderosa "book create $PONDEROSA_DATA/games/gnuchess_book_1.02.pgn.xz 60" quit
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ponderosa.engine.book.export import export_polyglot, export_weights
from ponderosa.engine.book.file import OpeningBookFile, write_polyglot_in_key_order
from ponderosa.engine.book.opening_book import OpeningBook
from ponderosa.engine.learning.store import SQLiteLearnedStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book")
    parser.add_argument("--one-by-one", action="store_true", help="also time the position-by-position export")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        book = OpeningBook(SQLiteLearnedStore(Path(folder) / "learned.db"))
        book.use_book(arguments.book)
        large = book.large
        assert isinstance(large, OpeningBookFile)
        print(f"{arguments.book}: {large.positions():,} positions, {large.moves():,} moves")
        started = time.perf_counter()
        entries = export_polyglot(book, str(Path(folder) / "bulk.bin"))
        bulk = time.perf_counter() - started
        print(f"bulk export: {entries:,} Polyglot entries in {bulk:.1f} s")
        if arguments.one_by_one:
            started = time.perf_counter()
            entries = write_polyglot_in_key_order(str(Path(folder) / "one.bin"), export_weights(book))
            one_by_one = time.perf_counter() - started
            same = (Path(folder) / "bulk.bin").read_bytes() == (Path(folder) / "one.bin").read_bytes()
            print(f"one by one:  {entries:,} Polyglot entries in {one_by_one:.1f} s "
                  f"({one_by_one / bulk:.1f}x the bulk time; files {'identical' if same else 'DIFFER'})")


if __name__ == "__main__":
    main()
