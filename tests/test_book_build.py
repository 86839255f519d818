"""Building books from PGN: counts checked against plain python-chess, culling, start books, NAGs, add, merge."""
from __future__ import annotations

import gzip
import io
import lzma
import os
import re
import resource
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from ponderosa.engine.book import file as book_file
from ponderosa.engine.book import pgn_reader
from ponderosa.engine.book.build import (
    PgnFileError,
    add_to_book,
    create_book,
    create_start_book,
    merge_books,
    read_nag_values,
)
from ponderosa.engine.book.file import FLAG_BAD, FLAG_GOOD, BookFileError, OpeningBookFile

from tests.conftest import data_file, large_data_file

MASTER_GAMES = 1000   # the first half of the master sample, to keep the default run short

SMALL_PGN = """[Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Bc5 1-0

[Event "b"]
[Result "0-1"]

1. e4 e5 2. Nf3 (2. f4 exf4) Nf6 3. Nxe5 d6 0-1

[Event "c"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 {a comment} e6 1/2-1/2

[Event "unfinished"]
[Result "*"]

1. e4 c5 *

[Event "from a FEN"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
[Result "1-0"]

1. e4 Kd7 1-0

[Event "chess960"]
[Variant "Chess960"]
[Result "1-0"]

1. e4 e5 1-0

[Event "illegal"]
[Result "1-0"]

1. e4 e5 2. Ke3 Nc6 1-0

"""


def write_text(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def occurrences(pgn_text: str, max_plies: int, keep_unfinished: bool = False) -> dict[tuple[int, str], list[int]]:
    """Independent count with plain python-chess: (key, uci) -> [games, wins, draws, losses] for the mover."""
    table: dict[tuple[int, str], list[int]] = {}
    handle = io.StringIO(pgn_text)
    while (game := chess.pgn.read_game(handle)) is not None:
        result = game.headers.get("Result", "*")
        if game.errors or "FEN" in game.headers or "Variant" in game.headers:
            continue
        if result == "*" and not keep_unfinished:
            continue
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            if ply >= max_plies:
                break
            row = table.setdefault((chess.polyglot.zobrist_hash(board), move.uci()), [0, 0, 0, 0])
            row[0] += 1
            white_score = {"1-0": 1, "1/2-1/2": 0, "0-1": -1}.get(result)
            if white_score is not None:
                mover_score = white_score if board.turn == chess.WHITE else -white_score
                row[{1: 1, 0: 2, -1: 3}[mover_score]] += 1
            board.push(move)
    return table


def book_table(path: str) -> dict[tuple[int, str], list[int]]:
    with OpeningBookFile.open(path) as book:
        return {(key, entry.move): [entry.games, entry.wins, entry.draws, entry.losses]
                for key, entry in book.iter_entries()}


@pytest.fixture(scope="module")
def master_sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(path, text) of the first MASTER_GAMES games of the master collection."""
    lines: list[str] = []
    games = 0
    with lzma.open(data_file("games", "master_sample_2000.pgn.xz"), "rt", errors="replace") as handle:
        for line in handle:
            if line.startswith("[Event "):
                games += 1
                if games > MASTER_GAMES:
                    break
            lines.append(line)
    text = "".join(lines)
    path = tmp_path_factory.mktemp("master") / "sample.pgn"
    path.write_text(text)
    return str(path), text


# ---------------------------------------------------------------------------------------------
# book create


def test_small_book_counts_and_skips(tmp_path: Path) -> None:
    pgn = write_text(tmp_path / "small.pgn", SMALL_PGN)
    report = create_book([pgn], str(tmp_path / "small.book"), max_moves=3, workers=1)
    assert report.games_read == 7 and report.games_used == 3
    assert report.games_skipped == {"result *": 1, "non-standard start (FEN/variant)": 2, "illegal move": 1}
    table = book_table(str(tmp_path / "small.book"))
    assert table == occurrences(SMALL_PGN, 6)
    start = chess.polyglot.zobrist_hash(chess.Board())
    assert table[(start, "e2e4")] == [2, 1, 0, 1]
    assert table[(start, "d2d4")] == [1, 0, 1, 0]
    # Black's reply in game b won for Black: a win from the mover's view.
    after_e4_e5_nf3 = chess.Board()
    for san in ("e4", "e5", "Nf3"):
        after_e4_e5_nf3.push_san(san)
    assert table[(chess.polyglot.zobrist_hash(after_e4_e5_nf3), "g8f6")] == [1, 1, 0, 0]
    assert report.positions == len({key for key, _ in table}) and report.moves == len(table)
    with OpeningBookFile.open(str(tmp_path / "small.book")) as book:
        assert (book.positions(), book.moves()) == (report.positions, report.moves)
        assert book._connection.execute("SELECT COUNT(DISTINCT key), COUNT(*) FROM moves").fetchone() == \
            (report.positions, report.moves)
    # The first game of each skip reason is named by file and line (the illegal game's tags start on line 34).
    assert report.first_skips == {"result *": f"{pgn}:16", "non-standard start (FEN/variant)": f"{pgn}:21",
                                  "illegal move": f"{pgn}:34"}
    assert f"skipped (illegal move): 1 (first at {pgn}:34)" in report.summary()


def test_castling_is_stored_as_king_move_with_castling_bit(tmp_path: Path) -> None:
    pgn = write_text(tmp_path / "small.pgn", SMALL_PGN)
    create_book([pgn], str(tmp_path / "castle.book"), max_moves=4, workers=1)
    with OpeningBookFile.open(str(tmp_path / "castle.book")) as book:
        castles = [entry for _, entry in book.iter_entries() if entry.castling]
    assert [entry.move for entry in castles] == ["e1g1"]


def test_master_sample_matches_python_chess(tmp_path: Path, master_sample: tuple[str, str]) -> None:
    path, text = master_sample
    report = create_book([path], str(tmp_path / "sample.book"), max_moves=5, workers=1)
    assert report.games_read == MASTER_GAMES
    expected = occurrences(text, 10)
    assert book_table(str(tmp_path / "sample.book")) == expected
    assert report.games_used + sum(report.games_skipped.values()) == MASTER_GAMES


def test_two_workers_give_the_same_book(tmp_path: Path, master_sample: tuple[str, str]) -> None:
    path, _ = master_sample
    calls: list[tuple[int, int, int, float]] = []
    create_book([path], str(tmp_path / "one.book"), max_moves=8, workers=1)
    monkey_chunk = pgn_reader.CHUNK_BYTES
    pgn_reader.CHUNK_BYTES = 100_000  # many chunks from the small sample: cutting must not lose or split games
    try:
        create_book([path], str(tmp_path / "two.book"), max_moves=8, workers=2,
                    progress=lambda *values: calls.append(values))
    finally:
        pgn_reader.CHUNK_BYTES = monkey_chunk
    assert book_table(str(tmp_path / "one.book")) == book_table(str(tmp_path / "two.book"))
    assert calls and calls[-1][0] == MASTER_GAMES and calls[-1][1] == calls[-1][2] == os.path.getsize(path)


def test_compressed_inputs_read_like_plain(tmp_path: Path) -> None:
    plain = write_text(tmp_path / "small.pgn", SMALL_PGN)
    (tmp_path / "small.pgn.gz").write_bytes(gzip.compress(SMALL_PGN.encode()))
    (tmp_path / "small.pgn.xz").write_bytes(lzma.compress(SMALL_PGN.encode()))
    tables = []
    for name in (plain, str(tmp_path / "small.pgn.gz"), str(tmp_path / "small.pgn.xz")):
        create_book([name], name + ".book", max_moves=4, workers=1)
        tables.append(book_table(name + ".book"))
    assert tables[0] == tables[1] == tables[2] and tables[0]


def test_min_games_and_win_percent_culling(tmp_path: Path) -> None:
    # 1.e4 in 4 games: White wins 1, loses 3.  1.d4 in 2 games: wins 1, loses 1.  1.c4 once, won.
    games = ["1. e4 e5 1-0"] + ["1. e4 c5 0-1"] * 3 + ["1. d4 d5 1-0", "1. d4 Nf6 0-1", "1. c4 e5 1-0"]
    text = "".join(f'[Event "{index}"]\n[Result "{game.split()[-1]}"]\n\n{game}\n\n'
                   for index, game in enumerate(games))
    pgn = write_text(tmp_path / "cull.pgn", text)
    start = chess.polyglot.zobrist_hash(chess.Board())
    report = create_book([pgn], str(tmp_path / "cull.book"), max_moves=1, min_games=2, win_percent=50, workers=1)
    with OpeningBookFile.open(str(tmp_path / "cull.book")) as book:
        kept = {entry.move for entry in book.entries(start)}
        info = book.info()
    # e4: 1 win < 50% of 3 losses -> culled; d4: 1 win >= 0.5 -> kept; c4 and four black replies: one game each;
    # 1...c5 (3 games, 3 wins for Black) stays.
    assert kept == {"d2d4"}
    assert report.moves_dropped == {"fewer than 2 games": 5, "wins below 50% of losses": 1}
    assert report.moves == 2
    assert (info["min_games"], info["win_percent"], info["max_moves"]) == ("2", "50", "1")
    report = create_book([pgn], str(tmp_path / "loose.book"), max_moves=1, min_games=2, win_percent=33, workers=1)
    assert report.moves == 3  # 1 win >= 0.33 x 3 losses keeps e4


def test_max_moves_means_full_moves(tmp_path: Path) -> None:
    pgn = write_text(tmp_path / "small.pgn", SMALL_PGN)
    create_book([pgn], str(tmp_path / "two.book"), max_moves=2, workers=1)
    moves = {entry.move for _, entry in OpeningBookFile.open(str(tmp_path / "two.book")).iter_entries()}
    assert "g1f3" in moves and "b8c6" in moves  # ply 4 is Black's second move
    assert "f1c4" not in moves and "c1g5" not in moves


def test_binary_file_and_garbage_do_not_crash(tmp_path: Path) -> None:
    binary = tmp_path / "binary.pgn"   # NUL bytes: no PGN, said at once (a file of zeros is not read to its end)
    binary.write_bytes(bytes(range(256)) * 64 + b"\n\n\x00\xff[[[ 1. e4 {")
    with pytest.raises(PgnFileError, match=re.escape(f"{binary}: not a text file (binary data)")):
        create_book([str(binary)], str(tmp_path / "binary.book"), max_moves=10, workers=1)
    assert not (tmp_path / "binary.book").exists()
    garbage = tmp_path / "garbage.pgn"   # text, but no game in it: read, skipped, no book moves
    garbage.write_bytes(bytes(range(1, 256)) * 64 + b"\n\n\xff[[[ 1. e4 {")
    report = create_book([str(garbage)], str(tmp_path / "garbage.book"), max_moves=10, workers=1)
    assert report.games_used == 0 and report.moves == 0
    assert sum(report.games_skipped.values()) == report.games_read
    broken = write_text(tmp_path / "broken.pgn", '[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 2. Qxf7 zz 1-0\n\n'
                                                  'no tags 1. xx\n\n' + SMALL_PGN)
    report = create_book([broken], str(tmp_path / "broken.book"), max_moves=3, workers=1)
    assert report.games_used == 3 and report.games_skipped["illegal move"] == 2
    assert report.games_skipped["unreadable"] == 1 and report.first_skips["unreadable"] == f"{broken}:6"


def test_missing_and_damaged_pgn_files(tmp_path: Path) -> None:
    missing = str(tmp_path / "none.pgn")
    with pytest.raises(PgnFileError, match="missing") as raised:
        create_book([missing], str(tmp_path / "out.book"), max_moves=5, workers=1)
    assert missing in str(raised.value)
    data = lzma.compress((SMALL_PGN * 200).encode())
    cut = tmp_path / "cut.pgn.xz"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(BookFileError) as raised:
        create_book([str(cut)], str(tmp_path / "out.book"), max_moves=5, workers=1)
    assert str(cut) in str(raised.value)
    assert not (tmp_path / "out.book").exists()


# ---------------------------------------------------------------------------------------------
# Atomic writes, add, merge


def test_failed_rewrite_leaves_old_book_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               master_sample: tuple[str, str]) -> None:
    path, _ = master_sample
    book = str(tmp_path / "kept.book")
    create_book([write_text(tmp_path / "small.pgn", SMALL_PGN)], book, max_moves=3, workers=1)
    before = Path(book).read_bytes()
    real_insert = book_file._insert_rows

    def insert_then_fail(connection: object, rows: list) -> None:
        real_insert(connection, rows)  # type: ignore[arg-type]
        raise RuntimeError("simulated crash while writing")

    monkeypatch.setattr(book_file, "_insert_rows", insert_then_fail)
    with pytest.raises(RuntimeError, match="simulated"):
        add_to_book(book, [path], workers=1)
    assert Path(book).read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["kept.book", "small.pgn"]


def test_add_to_book_equals_one_build(tmp_path: Path, master_sample: tuple[str, str]) -> None:
    _, text = master_sample
    half = text.index("[Event ", len(text) // 2)
    first = write_text(tmp_path / "first.pgn", text[:half])
    second = write_text(tmp_path / "second.pgn", text[half:])
    create_book([first], str(tmp_path / "added.book"), max_moves=4, workers=1)
    report = add_to_book(str(tmp_path / "added.book"), [second], workers=1)
    create_book([first, second], str(tmp_path / "whole.book"), max_moves=4, workers=1)
    assert book_table(str(tmp_path / "added.book")) == book_table(str(tmp_path / "whole.book"))
    with OpeningBookFile.open(str(tmp_path / "added.book")) as book:
        assert book.info()["games_read"] == str(MASTER_GAMES)
        assert book.info()["max_moves"] == "4"
    assert report.games_read == MASTER_GAMES - text[:half].count("[Event ")


def test_add_to_book_reapplies_min_games(tmp_path: Path) -> None:
    game = '[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
    first = write_text(tmp_path / "one.pgn", game * 2)
    create_book([first], str(tmp_path / "n.book"), max_moves=1, min_games=3, workers=1)
    assert book_table(str(tmp_path / "n.book")) == {}
    add_to_book(str(tmp_path / "n.book"), [write_text(tmp_path / "more.pgn", game * 3)], workers=1)
    # The first two games were culled before they could be stored: only the three new ones count.
    start = chess.polyglot.zobrist_hash(chess.Board())
    assert book_table(str(tmp_path / "n.book"))[(start, "e2e4")] == [3, 3, 0, 0]


def test_merge_sums_counts(tmp_path: Path, master_sample: tuple[str, str]) -> None:
    _, text = master_sample
    half = text.index("[Event ", len(text) // 3)
    first = write_text(tmp_path / "first.pgn", text[:half])
    second = write_text(tmp_path / "second.pgn", text[half:])
    create_book([first], str(tmp_path / "a.book"), max_moves=3, workers=1)
    create_book([second], str(tmp_path / "b.book"), max_moves=3, workers=1)
    report = merge_books(str(tmp_path / "a.book"), str(tmp_path / "b.book"), str(tmp_path / "ab.book"))
    create_book([first, second], str(tmp_path / "whole.book"), max_moves=3, workers=1)
    assert book_table(str(tmp_path / "ab.book")) == book_table(str(tmp_path / "whole.book"))
    assert report.games_read == MASTER_GAMES


START_PGN = """[Event "lines"]
[Result "*"]

1. e4! e5 2. Nf3 {play 70%} Nc6? 3. Bb5 *

[Event "more"]
[Result "1-0"]

1. e4 e5 2. Nf3 {play 30%} Nf6!! 3. Nxe5 1-0

[Event "bad"]
[Result "*"]

1. d4? $6 d5 *
"""


def test_start_book_flags_play_percent_and_unfinished_games(tmp_path: Path) -> None:
    report = create_start_book([write_text(tmp_path / "start.pgn", START_PGN)], str(tmp_path / "start.book"), 2)
    assert report.games_used == 3 and report.games_skipped == {}
    board = chess.Board()
    with OpeningBookFile.open(str(tmp_path / "start.book")) as book:
        assert book.kind == "start"
        start = {entry.move: entry for entry in book.entries(chess.polyglot.zobrist_hash(board))}
        assert start["e2e4"].flags == FLAG_GOOD and start["d2d4"].flags == FLAG_BAD
        assert (start["e2e4"].games, start["e2e4"].wins, start["e2e4"].draws, start["e2e4"].losses) == (2, 1, 0, 0)
        for san in ("e4", "e5"):
            board.push_san(san)
        nf3 = {entry.move: entry for entry in book.entries(chess.polyglot.zobrist_hash(board))}["g1f3"]
        assert nf3.play_percent == 30 and nf3.flags == 0  # the later game's comment wins
        board.push_san("Nf3")
        replies = {entry.move: entry.flags for entry in book.entries(chess.polyglot.zobrist_hash(board))}
        assert replies == {"b8c6": FLAG_BAD, "g8f6": FLAG_GOOD}
        # Max 2 moves: 3. Bb5 and 3. Nxe5 are not stored.
        assert all(entry.move not in ("f1b5", "f3e5") for _, entry in book.iter_entries())
    assert occurrences(START_PGN, 4, keep_unfinished=True) == book_table(str(tmp_path / "start.book"))


def test_merge_start_books_or_flags_and_prefer_second_play_percent(tmp_path: Path) -> None:
    first = write_text(tmp_path / "a.pgn",
                       '[Result "*"]\n\n1. e4! {play 20%} e5 *\n\n[Result "*"]\n\n1. d4 {play 10%} *\n')
    second = write_text(tmp_path / "b.pgn", '[Result "*"]\n\n1. e4? {play 60%} c5 *\n\n[Result "*"]\n\n1. d4 *\n')
    create_start_book([first], str(tmp_path / "a.book"), 5)
    create_start_book([second], str(tmp_path / "b.book"), 5)
    merge_books(str(tmp_path / "a.book"), str(tmp_path / "b.book"), str(tmp_path / "ab.book"))
    with OpeningBookFile.open(str(tmp_path / "ab.book")) as book:
        start = {entry.move: entry for entry in book.entries(chess.polyglot.zobrist_hash(chess.Board()))}
    assert start["e2e4"].flags == FLAG_GOOD | FLAG_BAD and start["e2e4"].play_percent == 60
    assert start["d2d4"].play_percent == 10 and start["d2d4"].games == 2


def test_merge_refuses_different_kinds(tmp_path: Path) -> None:
    pgn = write_text(tmp_path / "small.pgn", SMALL_PGN)
    create_book([pgn], str(tmp_path / "big.book"), max_moves=3, workers=1)
    create_start_book([pgn], str(tmp_path / "start.book"), 3)
    with pytest.raises(BookFileError, match="same kind") as raised:
        merge_books(str(tmp_path / "big.book"), str(tmp_path / "start.book"), str(tmp_path / "out.book"))
    assert str(tmp_path / "start.book") in str(raised.value)
    assert not (tmp_path / "out.book").exists()


# ---------------------------------------------------------------------------------------------
# NAG values


def test_nag_values_last_one_wins(tmp_path: Path) -> None:
    first = write_text(tmp_path / "a.pgn", '[Event "a"]\n\n1. e4! e5?! 2. Nf3!? (2. f4!! exf4??) Nc6 3. Bb5? *\n')
    second = write_text(tmp_path / "b.pgn", '[Event "b"]\n\n1. e4?? e5 $2 *\n\n[Event "c"]\n\n1. d4 d5 *\n')
    values = read_nag_values([first, second])
    board = chess.Board()
    key_start = chess.polyglot.zobrist_hash(board)
    board.push_san("e4")
    key_e4 = chess.polyglot.zobrist_hash(board)
    board.push_san("e5")
    key_e4_e5 = chess.polyglot.zobrist_hash(board)
    table = {(key, uci): value for key, uci, value in values}
    assert len(table) == len(values)
    assert table[(key_start, "e2e4")] == 0  # "!" (75) in the first file, then "??" in the second
    assert table[(key_e4, "e7e5")] == 0  # "?!" (5), then "$2" = "?"
    assert table[(key_e4_e5, "g1f3")] == 15
    assert table[(key_e4_e5, "f2f4")] == 100
    board.push_san("f4")
    assert table[(chess.polyglot.zobrist_hash(board), "e5f4")] == 0
    assert len(table) == 6  # Nc6 and the whole third game carry no NAG
    assert read_nag_values([write_text(tmp_path / "plain.pgn", "1. e4 e5 *\n")]) == []


def test_dubious_move_value(tmp_path: Path) -> None:
    values = read_nag_values([write_text(tmp_path / "d.pgn", "1. e4?! *\n")])
    assert values == [(chess.polyglot.zobrist_hash(chess.Board()), "e2e4", 5)]


# ---------------------------------------------------------------------------------------------
# The whole master collection


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the build's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.mark.slow
def test_full_collection_build(tmp_path: Path) -> None:
    source = str(large_data_file("games", "gnuchess_book_1.02.pgn.xz"))
    before = cpu_seconds()
    report = create_book([source], str(tmp_path / "full.book"), max_moves=60, workers=2)
    # Under 5 minutes on 2 cores, as CPU time: wall time depends on whatever else the machine runs.
    assert cpu_seconds() - before < 2 * 300
    assert report.games_read >= 145_000
    assert Counter(report.games_skipped)["result *"] > 0
    with OpeningBookFile.open(str(tmp_path / "full.book")) as book:
        start_moves = {entry.move: entry.games for entry in book.entries(chess.polyglot.zobrist_hash(chess.Board()))}
        assert sum(start_moves.values()) == report.games_used
        assert book.moves() == report.moves
