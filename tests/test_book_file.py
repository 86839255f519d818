"""The book file format: move codes, the SQLite reader's errors, Polyglot reading and writing."""
from __future__ import annotations

import os
import sqlite3
import struct
from pathlib import Path

import chess
import chess.polyglot
import pytest

from ponderosa.engine.book.file import (
    FLAG_BAD,
    FLAG_GOOD,
    BookFileError,
    OpeningBookFile,
    PolyglotBookFile,
    decode_move,
    encode_move,
    export_polyglot,
    open_book_file,
    write_book,
    write_polyglot,
)

from tests.conftest import data_file
from tests.wall_clock import allowed

RUY_LOPEZ_BEFORE_CASTLING = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"]


def board_after(moves: list[str]) -> chess.Board:
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    return board


def key_after(moves: list[str]) -> int:
    return chess.polyglot.zobrist_hash(board_after(moves))


def small_book(path: Path, rows: list[tuple[int, str, int, int, int, int, int, int]], kind: str = "book") -> None:
    """A book written through write_book from (unsigned key, uci, games, wins, draws, losses, flags, play) rows."""
    signed_rows = sorted((key - (1 << 64) if key >= 1 << 63 else key, encode_move(uci), *counts)
                         for key, uci, *counts in rows)
    write_book(str(path), [signed_rows], {"kind": kind, "max_moves": 10, "min_games": 1, "win_percent": "0",
                                          "games_read": 3, "sources": "[]"})


# ---------------------------------------------------------------------------------------------
# Move codes


def test_move_code_layout() -> None:
    assert encode_move("a1a2") == 0 | 8 << 6
    assert encode_move("e2e4") == 12 | 28 << 6
    assert encode_move("h7h8q") == 55 | 63 << 6 | 4 << 12
    assert encode_move("b2a1n") == 9 | 0 << 6 | 1 << 12


def test_every_move_code_round_trips() -> None:
    for from_square in chess.SQUARES:
        for to_square in chess.SQUARES:
            for promotion in ("", "n", "b", "r", "q"):
                uci = chess.SQUARE_NAMES[from_square] + chess.SQUARE_NAMES[to_square] + promotion
                assert decode_move(encode_move(uci)) == uci


@pytest.mark.parametrize("text", ["", "e2", "e2e9", "i2e4", "e7e8k", "e2e4qq"])
def test_bad_uci_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        encode_move(text)


# ---------------------------------------------------------------------------------------------
# The SQLite book


def test_written_book_reads_back(tmp_path: Path) -> None:
    start_key = key_after([])
    high_key = (1 << 64) - 5  # stored as a negative signed integer
    path = tmp_path / "small.book"
    small_book(path, [(start_key, "e2e4", 10, 5, 3, 2, FLAG_GOOD, 0), (start_key, "d2d4", 4, 1, 1, 2, 0, 40),
                      (high_key, "e7e8q", 1, 1, 0, 0, FLAG_BAD, 0)])
    with OpeningBookFile.open(str(path)) as book:
        entries = {entry.move: entry for entry in book.entries(start_key)}
        assert set(entries) == {"e2e4", "d2d4"}
        assert (entries["e2e4"].games, entries["e2e4"].wins, entries["e2e4"].draws, entries["e2e4"].losses) == \
            (10, 5, 3, 2)
        assert entries["e2e4"].flags == FLAG_GOOD and entries["d2d4"].play_percent == 40
        assert [entry.move for entry in book.entries(high_key)] == ["e7e8q"]
        assert book.entries(12345) == []
        assert book.positions() == 2 and book.moves() == 3
        assert book.kind == "book"
        info = book.info()
        assert info["format"] == "ponderosa-book" and info["format_version"] == "1" and info["games_read"] == "3"
        keys = [key for key, _ in book.iter_entries()]
        assert keys == sorted(keys) and keys[-1] == high_key


def test_missing_file(tmp_path: Path) -> None:
    path = str(tmp_path / "nothing.book")
    with pytest.raises(BookFileError, match="missing") as raised:
        open_book_file(path)
    assert path in str(raised.value) and raised.value.path == path


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.book"
    path.write_bytes(b"")
    for opener in (open_book_file, OpeningBookFile.open, PolyglotBookFile.open):
        with pytest.raises(BookFileError, match="empty") as raised:
            opener(str(path))
        assert str(path) in str(raised.value)


def test_truncated_book(tmp_path: Path) -> None:
    path = tmp_path / "whole.book"
    key = key_after([])
    # Enough rows for several pages, so that half the file loses real data.
    small_book(path, [(key + index, "e2e4", index + 1, 1, 0, 0, 0, 0) for index in range(5000)])
    data = path.read_bytes()
    cut = tmp_path / "half.book"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(BookFileError, match="truncated") as raised:
        open_book_file(str(cut))
    assert str(cut) in str(raised.value)


def test_text_file_is_not_a_book(tmp_path: Path) -> None:
    path = tmp_path / "notes.book"
    path.write_text("This is a text file with some words in it, not a book at all.\n" * 4)
    with pytest.raises(BookFileError, match="neither a Ponderosa book nor a Polyglot book") as raised:
        open_book_file(str(path))
    assert str(path) in str(raised.value)
    with pytest.raises(BookFileError, match="not a Ponderosa book") as raised:
        OpeningBookFile.open(str(path))


def test_other_applications_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE people (name TEXT)")
    connection.commit()
    connection.close()
    with pytest.raises(BookFileError, match="not a Ponderosa book") as raised:
        open_book_file(str(path))
    assert str(path) in str(raised.value)


@pytest.mark.parametrize(("name", "value", "message"), [("format", "other-book", "not a Ponderosa book"),
                                                         ("format_version", "99", "unsupported")])
def test_wrong_format_name_or_version(tmp_path: Path, name: str, value: str, message: str) -> None:
    path = tmp_path / "book.book"
    small_book(path, [(key_after([]), "e2e4", 1, 1, 0, 0, 0, 0)])
    connection = sqlite3.connect(path)
    connection.execute("UPDATE meta SET value = ? WHERE name = ?", (value, name))
    connection.commit()
    connection.close()
    with pytest.raises(BookFileError, match=message) as raised:
        OpeningBookFile.open(str(path))
    assert str(path) in str(raised.value)


def test_book_is_opened_read_only(tmp_path: Path) -> None:
    path = tmp_path / "book.book"
    small_book(path, [(key_after([]), "e2e4", 1, 1, 0, 0, 0, 0)])
    book = OpeningBookFile.open(str(path))
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        book._connection.execute("DELETE FROM moves")
    book.close()


# ---------------------------------------------------------------------------------------------
# Polyglot


def test_polyglot_size_not_multiple_of_16(tmp_path: Path) -> None:
    path = tmp_path / "odd.bin"
    path.write_bytes(b"\x00" * 40)
    with pytest.raises(BookFileError, match="multiple of 16") as raised:
        open_book_file(str(path))
    assert str(path) in str(raised.value)


def test_polyglot_unsorted_garbage(tmp_path: Path) -> None:
    path = tmp_path / "garbage.bin"
    path.write_bytes(struct.pack(">QHHI", 9, chess.E4 | chess.E2 << 6, 1, 0) + struct.pack(">QHHI", 3, 0x0208, 1, 0))
    with pytest.raises(BookFileError, match="not sorted") as raised:
        PolyglotBookFile.open(str(path))
    assert str(path) in str(raised.value)


def test_gnuchess_polyglot_book_matches_python_chess() -> None:
    path = str(data_file("books", "gnuchess_book.bin"))
    lines = [[], ["e2e4"], ["d2d4", "g8f6", "c2c4"], RUY_LOPEZ_BEFORE_CASTLING]
    with PolyglotBookFile.open(path) as book, chess.polyglot.open_reader(path) as reader:
        assert book.kind == "polyglot"
        start = {entry.move: entry.games for entry in book.entries(key_after([]))}
        assert start["e2e4"] == 12135 and start["d2d4"] == 11257
        for line in lines:
            board = board_after(line)
            expected = sorted((entry.move.uci(), entry.weight) for entry in reader.find_all(board, minimum_weight=0))
            assert expected, f"the GNU Chess book has no moves after {line}"
            key = chess.polyglot.zobrist_hash(board)
            assert sorted((entry.move, entry.games) for entry in book.entries(key, board)) == expected
            assert sorted((entry.move, entry.games) for entry in book.entries(key)) == expected
            assert all(not entry.has_results for entry in book.entries(key))
        castles = [entry for entry in book.entries(key_after(RUY_LOPEZ_BEFORE_CASTLING))
                   if entry.move == "e1g1"]
        assert castles and castles[0].castling


def test_open_book_file_tells_formats_by_content(tmp_path: Path) -> None:
    polyglot_copy = tmp_path / "really_polyglot.book"
    polyglot_copy.write_bytes(data_file("books", "gnuchess_book.bin").read_bytes())
    sqlite_book = tmp_path / "really_sqlite.bin"
    small_book(sqlite_book, [(key_after([]), "e2e4", 1, 1, 0, 0, 0, 0)])
    assert isinstance(open_book_file(str(polyglot_copy)), PolyglotBookFile)
    assert isinstance(open_book_file(str(sqlite_book)), OpeningBookFile)


def test_written_polyglot_is_read_by_python_chess(tmp_path: Path) -> None:
    lines = [[], ["e2e4", "e7e5"], RUY_LOPEZ_BEFORE_CASTLING,
             ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1", "f8c5", "d2d3"]]
    weighted = [(key_after(lines[0]), "e2e4", 300), (key_after(lines[0]), "d2d4", 200),
                (key_after(lines[1]), "g1f3", 65535), (key_after(lines[2]), "e1g1", 50),
                (key_after(lines[2]), "d2d3", 7), (key_after(lines[3]), "e8g8", 9)]
    path = tmp_path / "out.bin"
    assert write_polyglot(str(path), weighted) == len(weighted)
    assert os.path.getsize(path) == 16 * len(weighted)
    with chess.polyglot.open_reader(path) as reader:
        for line in lines:
            board = board_after(line)
            expected = sorted((uci, weight) for key, uci, weight in weighted if key == key_after(line))
            assert sorted((entry.move.uci(), entry.weight) for entry in reader.find_all(board)) == expected
        raw_castles = [entry.raw_move for entry in reader.find_all(board_after(lines[2]))
                       if entry.move.uci() == "e1g1"]
        assert raw_castles == [chess.H1 | chess.E1 << 6]  # Polyglot writes castling as king takes rook
    with PolyglotBookFile.open(str(path)) as book:
        assert sorted((entry.move, entry.games) for entry in book.entries(key_after(lines[3]))) == [("e8g8", 9)]
    assert [name for name in os.listdir(tmp_path) if name.endswith(".tmp")] == []


def test_explicit_non_castling_move_is_not_rewritten(tmp_path: Path) -> None:
    # A rook on e1 moving to g1 is written as e1g1, not as king-takes-rook.
    path = tmp_path / "rook.bin"
    write_polyglot(str(path), [(77, "e1g1", 5, False), (77, "e1c1", 6, True)])
    with PolyglotBookFile.open(str(path)) as book:
        raw = sorted(struct.unpack(">QHHI", path.read_bytes()[index:index + 16])[1] for index in (0, 16))
        assert raw == sorted([chess.G1 | chess.E1 << 6, chess.A1 | chess.E1 << 6])
        assert book.moves() == 2


@pytest.mark.parametrize("weight", [0, 65536, -1])
def test_polyglot_weight_out_of_range(tmp_path: Path, weight: int) -> None:
    with pytest.raises(ValueError, match="weight"):
        write_polyglot(str(tmp_path / "bad.bin"), [(1, "e2e4", weight)])
    assert not (tmp_path / "bad.bin").exists()


def test_export_of_own_book_keeps_castling_and_weights(tmp_path: Path) -> None:
    castle_key = key_after(RUY_LOPEZ_BEFORE_CASTLING)
    book_path = tmp_path / "own.book"
    small_book(book_path, [(key_after([]), "e2e4", 10, 5, 3, 2, 0, 0), (key_after([]), "a2a3", 3, 0, 0, 3, 0, 0),
                           (key_after([]), "g2g4", 3, 3, 0, 0, FLAG_BAD, 0), (castle_key, "d2d3", 2, 1, 1, 0, 0, 0)])
    # The castling bit comes from the builder; set it here the way the builder does.
    connection = sqlite3.connect(book_path)
    signed = castle_key - (1 << 64) if castle_key >= 1 << 63 else castle_key
    connection.execute("INSERT INTO moves VALUES (?, ?, 40000, 40000, 0, 0, 0, 0)",
                       (signed, encode_move("e1g1", castling=True)))
    connection.commit()
    connection.close()
    out = tmp_path / "own.bin"
    with OpeningBookFile.open(str(book_path)) as book:
        assert export_polyglot(book, str(out)) == 3  # a2a3 never scored, g2g4 is marked bad
    with chess.polyglot.open_reader(out) as reader:
        assert [(entry.move.uci(), entry.weight) for entry in reader.find_all(chess.Board())] == [("e2e4", 13)]
        after = {entry.move.uci(): entry.weight for entry in reader.find_all(board_after(RUY_LOPEZ_BEFORE_CASTLING))}
        # 80,000 and 3 scaled together so the larger fits 16 bits.
        assert after == {"e1g1": 65535, "d2d3": int(3 * 65535 / 80000) or 1}


def test_probe_is_well_under_a_millisecond(tmp_path: Path) -> None:
    import random
    import statistics
    import time

    generator = random.Random(7)
    keys = [generator.getrandbits(64) for _ in range(20_000)]
    path = tmp_path / "probe.book"
    small_book(path, [(key, uci, 5, 2, 2, 1, 0, 0) for key in keys for uci in ("e2e4", "d2d4")])
    with OpeningBookFile.open(str(path)) as book:
        times = []
        for key in keys[::10]:
            start = time.perf_counter()
            assert len(book.entries(key)) == 2
            times.append(time.perf_counter() - start)
    assert statistics.median(times) < allowed(0.001)
