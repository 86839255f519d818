"""The opening book inside the engine: probing, the console's book commands, XBoard's `bk`,
Terra's user-set values, Polyglot export, broken files, and the book that ships."""
from __future__ import annotations

import io
import random
from pathlib import Path

import chess
import chess.polyglot
import pytest

from ponderosa.core_ext.core import Board
from ponderosa.engine.book.build import create_book, create_start_book
from ponderosa.engine.book.opening_book import OpeningBook, packaged_book
from ponderosa.engine.book.select import FLAG_BAD
from ponderosa.engine.engine import Engine
from ponderosa.engine.learning.store import SQLiteLearnedStore, parse_bookeval
from ponderosa.protocol.console import Console
from ponderosa.protocol.xboard import XBoardSession

# Small collections with known statistics: after 1. e4, e5 is played in 3 games (W1 D1 L1 for
# Black), c5 in 2 (both won by Black), e6 once (lost by Black).
GAMES = """
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 0-1

[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 1/2-1/2

[Result "1-0"]

1. e4 e5 2. Bc4 Nf6 1-0

[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1

[Result "0-1"]

1. e4 c5 2. Nc3 Nc6 0-1

[Result "1-0"]

1. e4 e6 2. d4 d5 1-0

[Result "1-0"]

1. d4 d5 2. c4 e6 1-0
"""

START = """
[Event "only c5 against 1. e4"]
[Result "*"]

1. e4 c5! *

[Event "never e6"]
[Result "*"]

1. e4 e6? *
"""


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def console_for(engine: Engine) -> tuple[Console, io.StringIO]:
    """A console on an engine without the shipped books: each test builds the books it needs."""
    engine.book.close()
    out = io.StringIO()
    return Console(engine, out), out


def after_e4() -> tuple[Board, chess.Board]:
    board, game = Board(), chess.Board()
    board.push_uci("e2e4")
    game.push_uci("e2e4")
    return board, game


def test_book_create_from_the_console_is_used_at_once(workdir: Path) -> None:
    engine = Engine()
    console, out = console_for(engine)
    pgn = write(workdir / "games.pgn", GAMES)
    console.execute(f"book create {pgn} 10")
    assert (workdir / "book.bin").is_file()
    assert "games" in out.getvalue()
    engine.make_move("e2e4")
    decision = engine.book_decision()
    assert decision is not None
    games = {ranked.candidate.move: ranked.candidate.games for ranked in decision.ranked}
    assert games == {"e7e5": 3, "c7c5": 2, "e7e6": 1}
    scores = {ranked.candidate.move: (ranked.candidate.wins, ranked.candidate.draws, ranked.candidate.losses)
              for ranked in decision.ranked}
    assert scores["e7e5"] == (1, 1, 1) and scores["c7c5"] == (2, 0, 0) and scores["e7e6"] == (0, 0, 1)


def test_engine_plays_a_book_move_in_the_console_and_says_so(workdir: Path) -> None:
    engine = Engine()
    console, out = console_for(engine)
    console.execute(f"book create {write(workdir / 'games.pgn', GAMES)} 10")
    console.execute("e4")   # the engine plays Black: its reply must come from the book
    text = out.getvalue()
    assert "book moves {" in text
    reply = engine.game.peek().uci()
    assert reply in ("e7e5", "c7c5")   # e6 has no win (culled); both others have wins
    assert "depth    time" not in text   # no search was needed


def test_start_book_flags_steer_the_choice(workdir: Path) -> None:
    create_book([write(workdir / "games.pgn", GAMES)], str(workdir / "book.bin"), 10)
    create_start_book([write(workdir / "start.pgn", START)], str(workdir / "books.bin"), 10)
    book = OpeningBook(SQLiteLearnedStore(workdir / "learned.db"), random.Random(1))
    assert book.open_defaults(workdir) == []
    board, game = after_e4()
    decision = book.decide(board)
    assert decision is not None
    chances = {ranked.candidate.move: ranked.probability for ranked in decision.ranked}
    assert chances["c7c5"] == pytest.approx(1.0)   # the only "!" move
    assert chances["e7e5"] == 0.0 and chances["e7e6"] == 0.0
    flags = {ranked.candidate.move: ranked.candidate.flags for ranked in decision.ranked}
    assert flags["e7e6"] & FLAG_BAD
    assert {book.probe(board, game).move for _ in range(200)} == {"c7c5"}


def test_a_position_whose_only_book_move_is_bad_falls_back_to_a_search(workdir: Path) -> None:
    create_start_book([write(workdir / "start.pgn", "[Result \"*\"]\n\n1. e4 e6? *\n")],
                      str(workdir / "books.bin"), 10)
    engine = Engine()
    console, out = console_for(engine)
    engine.book.use_start_book(str(workdir / "books.bin"))
    engine.make_move("e2e4")
    probe = engine.book_probe()
    assert probe.decision is not None and probe.move is None and not probe.search_only
    engine.seconds_per_move = 0.2
    console.engine_side = chess.BLACK
    console.execute("go")
    assert "depth    time" in out.getvalue()   # it searched


def test_book_random_0_searches_only_the_book_moves(workdir: Path) -> None:
    engine = Engine()
    console, out = console_for(engine)
    console.execute(f"book create {write(workdir / 'games.pgn', GAMES)} 10")
    console.execute("book random 0")
    engine.max_depth = 6
    engine.make_move("e2e4")
    probe = engine.book_probe()
    assert probe.move is None and set(probe.search_only) <= {"e7e5", "c7c5", "e7e6"}
    limits, excluded = engine.book_search(probe, engine.limits())
    assert set(engine.legal_moves()) - excluded == set(probe.search_only)
    console.execute("go")
    assert engine.game.peek().uci() in probe.search_only
    assert "(searching them)" in out.getvalue()


def test_bookeval_sets_and_clears_the_value_of_the_move_just_played(workdir: Path) -> None:
    engine = Engine()
    console, out = console_for(engine)
    console.execute(f"book create {write(workdir / 'games.pgn', GAMES)} 10")
    console.execute("force")
    console.execute("e4")
    console.execute("e6")
    console.execute("bookeval !!")
    assert "e6: user value 100" in out.getvalue()
    console.execute("undo")
    decision = engine.book_decision()
    assert decision is not None
    chances = {ranked.candidate.move: ranked.probability for ranked in decision.ranked}
    assert chances["e7e6"] == pytest.approx(1.0)   # 100 = always played
    console.execute("bstat")
    assert "100" in out.getvalue().splitlines()[-1] + out.getvalue()
    console.execute("e6")
    console.execute("bookeval clear")
    console.execute("undo")
    decision = engine.book_decision()
    assert decision is not None
    assert all(ranked.candidate.user_value is None for ranked in decision.ranked)
    console.execute("bookeval 101")
    assert "Error" in out.getvalue().splitlines()[-1]


def test_bookeval_words_follow_terras_table() -> None:
    assert [parse_bookeval(word) for word in ("!!", "!", "!?", "?", "clear", "42")] == [100, 75, 15, 0, None, 42]
    with pytest.raises(ValueError):
        parse_bookeval("-1")
    with pytest.raises(ValueError):
        parse_bookeval("great")


def test_user_values_from_move_nags_last_one_wins(workdir: Path) -> None:
    engine = Engine()
    lines = write(workdir / "lines.pgn", '[Event "Line 1"]\n\n1. e4!! c6!? 2. d4!! *\n\n'
                                         '[Event "Line 2"]\n\n1. e4? e5! *\n\n'
                                         '[Event "Line 3"]\n\n1. e4! *\n')
    console, out = console_for(engine)
    console.execute(f"bookeval {lines}")
    board = Board()
    values = engine.books.learned.user_values(board.key)
    assert values == {"e2e4": 75}   # !!, then ?, then ! : the last one found
    board.push_uci("e2e4")
    assert engine.books.learned.user_values(board.key) == {"c7c6": 15, "e7e5": 75}


def test_user_values_survive_a_book_rebuild(workdir: Path) -> None:
    engine = Engine()
    console, _ = console_for(engine)
    pgn = write(workdir / "games.pgn", GAMES)
    console.execute(f"book create {pgn} 10")
    console.execute("force")
    console.execute("e4")
    console.execute("bookeval 60")
    console.execute(f"book create {pgn} 10")
    assert engine.books.learned.user_values(Board().key) == {"e2e4": 60}


def test_exported_polyglot_book_gives_the_same_start_moves(workdir: Path) -> None:
    engine = Engine()
    console, out = console_for(engine)
    console.execute(f"book create {write(workdir / 'games.pgn', GAMES)} 10")
    console.execute("bookw eval 0")   # an export has keys, not boards: it leaves the eval term out
    console.execute("book export out.bin")
    assert "Polyglot entries" in out.getvalue()
    decision = engine.book_decision()
    assert decision is not None
    ours = {ranked.candidate.move: ranked.probability for ranked in decision.ranked if ranked.probability > 0}
    with chess.polyglot.open_reader(workdir / "out.bin") as reader:
        theirs = {entry.move.uci(): entry.weight for entry in reader.find_all(chess.Board())}
    assert set(theirs) == set(ours)
    total = sum(theirs.values())
    for move, weight in theirs.items():
        assert weight / total == pytest.approx(ours[move], abs=0.01)


def test_polyglot_book_can_be_used(workdir: Path) -> None:
    from tests.conftest import data_file
    engine = Engine()
    console, out = console_for(engine)
    console.execute(f"book polyglot {data_file('books', 'gnuchess_book.bin')}")
    decision = engine.book_decision()
    assert decision is not None
    games = {ranked.candidate.move: ranked.candidate.games for ranked in decision.ranked}
    assert games["e2e4"] == 12135 and games["d2d4"] == 11257


@pytest.mark.parametrize("content", [b"", b"not a book at all, just text\n", b"SQLite format 3\x00" + b"\x00" * 40])
def test_a_broken_book_file_is_named_and_the_engine_plays_on(workdir: Path, content: bytes) -> None:
    (workdir / "book.bin").write_bytes(content)
    engine = Engine()
    assert any("book.bin" in message for message in engine.book_messages)
    console, out = console_for(engine)
    console.execute("book use book.bin")
    assert "book.bin" in out.getvalue().splitlines()[-1]
    engine.seconds_per_move = 0.1
    console.execute("go")
    assert len(engine.game.move_stack) == 1   # it played anyway


def test_missing_book_file_is_named(workdir: Path) -> None:
    engine = Engine()
    console, out = console_for(engine)
    console.execute("book use nowhere.bin")
    assert "nowhere.bin" in out.getvalue()


def test_bk_lists_the_book_moves_for_the_gui(workdir: Path) -> None:
    engine = Engine()
    console, _ = console_for(engine)
    console.execute(f"book create {write(workdir / 'games.pgn', GAMES)} 10")
    out = io.StringIO()
    session = XBoardSession(engine, out)
    session.handle("force")
    session.handle("usermove e2e4")
    session.handle("bk")
    lines = out.getvalue().splitlines()
    assert lines[-1] == ""
    assert all(line.startswith((" ", "\t")) for line in lines[:-1])
    assert any("c5" in line for line in lines) or any("e5" in line for line in lines)


def test_ownbook_option_turns_the_book_off(workdir: Path) -> None:
    engine = Engine()
    session = XBoardSession(engine, io.StringIO())
    session.handle("option OwnBook=0")
    assert not engine.book.enabled
    assert engine.book_probe().move is None
    session.handle("option OwnBook=1")
    assert engine.book.enabled


def test_the_shipped_book_plays_the_first_moves(workdir: Path) -> None:
    assert packaged_book("book.bin") is not None, "books/book.bin is not installed with the package"
    assert packaged_book("books.bin") is not None, "books/books.bin is not installed with the package"
    engine = Engine()
    assert engine.book_messages == []
    first_moves = {engine.book_probe().move for _ in range(200)}
    assert None not in first_moves
    assert len(first_moves) >= 2 and first_moves <= {"e2e4", "d2d4", "c2c4", "g1f3"}
    engine.make_move("e2e4")
    assert engine.book_probe().move in {"c7c5", "e7e5", "e7e6", "c7c6"}


def test_book_probe_is_fast(workdir: Path) -> None:
    """Not a speed test (BENCHMARKS.md has those): a probe that took a whole second would mean
    something is scanning the file instead of looking the key up."""
    engine = Engine()
    probes = [engine.book_probe() for _ in range(20)]
    assert max(probe.seconds for probe in probes) < 1.0
