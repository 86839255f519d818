"""`book export` in bulk writes exactly what ranking every position one by one writes."""
from __future__ import annotations

from pathlib import Path

import chess
import chess.polyglot
import pytest

from ponderosa.engine.book.build import create_book
from ponderosa.engine.book.export import _export_in_bulk, export_polyglot, export_weights
from ponderosa.engine.book.file import OpeningBookFile, write_polyglot_in_key_order
from ponderosa.engine.engine import Engine
from ponderosa.engine.learning.store import GameLearning

from tests.conftest import data_file

RUY_LOPEZ = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"]


def key_after(moves: list[str]) -> int:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return chess.polyglot.zobrist_hash(board)


def add_learning(engine: Engine) -> Engine:
    """User-set values and learned moves in a few positions: those positions must go the long way."""
    engine.books.learned.set_user_values([(key_after([]), "d2d4", 100), (key_after(["e2e4"]), "c7c5", 0),
                                    (key_after(RUY_LOPEZ[:4]), "f1c4", 60)])
    learning = GameLearning(game_id="test-1", never=[(key_after(["e2e4", "e7e5"]), "g1f3")],
                            own_results=[(key_after(["d2d4"]), "g8f6", 1.0)])
    assert engine.books.learned.record_game(learning)
    return engine


@pytest.fixture
def engine_with_learning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """The shipped books (the large book is SQLite, so the bulk path is taken), plus learning."""
    monkeypatch.chdir(tmp_path)
    engine = Engine()
    assert isinstance(engine.book.large, OpeningBookFile)
    return add_learning(engine)


@pytest.fixture
def engine_with_a_master_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """A book of the first 12 moves of the 2,000 master games (about 24,000 moves; the shipped
    book's 104,000 take the position-by-position export half a minute), read as book.bin from
    the working folder, plus learning."""
    monkeypatch.chdir(tmp_path)
    report = create_book([str(data_file("games", "master_sample_2000.pgn.xz"))], str(tmp_path / "book.bin"),
                         max_moves=12, workers=1)
    assert report.games_read == 2000
    engine = Engine()
    assert isinstance(engine.book.large, OpeningBookFile)
    assert Path(engine.book.large.path).resolve() == (tmp_path / "book.bin").resolve()
    return add_learning(engine)


def test_bulk_export_equals_the_position_by_position_export(engine_with_a_master_book: Engine,
                                                           tmp_path: Path) -> None:
    engine = engine_with_a_master_book
    bulk, one_by_one = tmp_path / "bulk.bin", tmp_path / "one_by_one.bin"
    assert engine.book.large is not None
    count = _export_in_bulk(engine.book, engine.book.large, str(bulk))
    assert write_polyglot_in_key_order(str(one_by_one), export_weights(engine.book)) == count
    assert count > 5_000   # entries of the master book with a chance above zero
    assert bulk.read_bytes() == one_by_one.read_bytes()


def test_exported_book_reads_in_python_chess_with_the_engines_chances(engine_with_learning: Engine,
                                                                       tmp_path: Path) -> None:
    engine = engine_with_learning
    engine.book.settings.weight_eval = 0.0   # an export has keys, not boards: it leaves the eval term out
    out = tmp_path / "out.bin"
    export_polyglot(engine.book, str(out))
    for line in ([], ["e2e4"], RUY_LOPEZ[:4], RUY_LOPEZ):
        board = chess.Board()
        for move in line:
            board.push_uci(move)
            engine.make_move(move)
        decision = engine.book_decision()
        engine.new_game()
        ours = {} if decision is None else \
            {ranked.candidate.move: ranked.probability for ranked in decision.ranked if ranked.probability > 0}
        with chess.polyglot.open_reader(out) as reader:
            theirs = {entry.move.uci(): entry.weight / 10000 for entry in reader.find_all(board)}
        assert set(theirs) == set(ours), line
        for move, chance in theirs.items():
            assert chance == pytest.approx(ours[move], abs=0.0001), (line, move)
    with chess.polyglot.open_reader(out) as reader:
        assert "d2d4" in {entry.move.uci() for entry in reader.find_all(chess.Board())}
