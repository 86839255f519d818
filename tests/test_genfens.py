"""Openings for OpenBench's data generation (`genfens`, engine/genfens.py, docs/GENFENS.md): legal,
not over, distinct, within the stated margin by the engine's own search, the same for the same
seed, from the start position or an EPD book; the console command as an OpenBench worker runs it
(one argument, then quit), bad arguments and bad books answered in one line."""
from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

import chess
import pytest

from ponderosa.core_ext.core import Board, Evaluator, TranspositionTable
from ponderosa.engine.genfens import (
    DEFAULT_MARGIN,
    DEFAULT_NODES,
    GenfensError,
    GenfensOptions,
    Opening,
    opening_fens,
    position_key,
)
from ponderosa.engine.input_files import InputFileError
from ponderosa.engine.nnue.choice import EvaluationChoice
from ponderosa.engine.search import Searcher, SearchLimits

from tests.conftest import data_file
from tests.uci_harness import program
from tests.wall_clock import allowed

OPENBENCH_STALL_SECONDS = 15.0   # a worker gives up when no line comes for this long
PREFIX = "info string genfens "


def fresh_search_score(fen: str, chess960: bool = False, shipped: bool = True) -> int:
    """The position's score by a search of its own (new tables, the default node limit), with the
    evaluation the program starts with (the shipped network, if any; else the hand-written one)."""
    evaluator = Evaluator(1 << 18)
    if shipped:
        EvaluationChoice(evaluator).load_default()
    searcher = Searcher(TranspositionTable(1 << 20), evaluator)
    return searcher.run(Board(fen, chess960), SearchLimits(nodes=DEFAULT_NODES)).score


def check_playable(opening: Opening) -> chess.Board:
    board = chess.Board(opening.fen)
    assert board.is_valid(), opening
    assert not board.is_game_over(claim_draw=False) and not board.is_fifty_moves(), opening
    assert len(opening.fen.split()) == 6, opening   # OpenBench turns the counters into hmvc/fmvn
    return board


def test_openings_from_the_start_are_legal_distinct_and_balanced() -> None:
    openings = list(opening_fens(24, seed=1))
    assert len(openings) == 24
    assert len({position_key(opening.fen) for opening in openings}) == 24
    plies = set()
    for opening in openings:
        board = check_playable(opening)
        plies.add(board.ply())
        assert opening.balanced and abs(opening.score) <= DEFAULT_MARGIN, opening
        assert fresh_search_score(opening.fen) == opening.score, opening   # the engine's search agrees
    assert plies == {8, 9}   # both sides varied, and either may be on move


def test_the_check_search_evaluates_with_the_network_given() -> None:
    """An engine's own evaluation (here the hand-written one, None) scores the openings, whatever
    the shipped network, the default, says of them."""
    openings = list(opening_fens(4, seed=1, network=None))
    assert [fresh_search_score(opening.fen, shipped=False) for opening in openings] == \
        [opening.score for opening in openings]
    assert [fresh_search_score(opening.fen) for opening in openings] != [opening.score for opening in openings]


def test_same_seed_same_lines_another_seed_others() -> None:
    first = [opening.fen for opening in opening_fens(8, seed=42)]
    assert first == [opening.fen for opening in opening_fens(8, seed=42)]
    assert set(first).isdisjoint(opening.fen for opening in opening_fens(8, seed=43))
    assert [opening.fen for opening in opening_fens(3, seed=42)] == first[:3]   # a prefix: lines stream


def test_openings_from_an_epd_book() -> None:
    book = data_file("openings", "noob_2moves.epd")
    starts = {position_key(line) for line in book.read_text().splitlines() if line.strip()}
    openings = list(opening_fens(12, seed=5, book=book))
    assert len({position_key(opening.fen) for opening in openings}) == 12
    plies = set()
    for opening in openings:
        board = check_playable(opening)
        assert opening.balanced and abs(opening.score) <= DEFAULT_MARGIN, opening
        plies.add(board.ply())
        assert position_key(board.fen()) not in starts   # random plies were played on the book's
    assert plies <= {6, 7}   # the book's 4 plies and 2 or 3 random ones


def test_book_positions_and_plies_on_them(tmp_path: Path) -> None:
    """With `plies 0` the openings are the book's own positions; with `plies 1` each is one legal
    move from one of them. Operations (hmvc/fmvn) and whole FENs are both read."""
    lines = ["rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;",
             "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2",
             "r1bqkbnr/pppppppp/2n5/8/2P5/8/PP1PPPPP/RNBQKBNR w KQkq - 1 2"]
    book = tmp_path / "three.epd"
    book.write_text("# three openings\n\n" + "\n".join(lines) + "\n")
    fens = [opening.fen for opening in opening_fens(3, seed=9, book=book, options=GenfensOptions(plies=0))]
    assert sorted(position_key(fen) for fen in fens) == sorted(position_key(line) for line in lines)
    children = set()
    for line in lines:
        board = chess.Board(" ".join(line.split()[:4]))
        for move in board.legal_moves:
            board.push(move)
            children.add(position_key(board.fen()))
            board.pop()
    for opening in opening_fens(10, seed=9, book=book, options=GenfensOptions(plies=1)):
        assert position_key(opening.fen) in children, opening


def test_chess960_book_positions_stay_chess960(tmp_path: Path) -> None:
    book = tmp_path / "frc.epd"
    book.write_text("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n")
    for opening in opening_fens(4, seed=3, book=book):
        board = chess.Board(opening.fen, chess960=True)
        assert board.is_valid() and board.has_chess960_castling_rights(), opening
        assert opening.score == fresh_search_score(opening.fen, chess960=True), opening


def test_a_lopsided_book_still_gives_lines(tmp_path: Path) -> None:
    """No position within the margin: after its tries the most balanced one is given (marked)."""
    book = tmp_path / "queen-up.epd"
    book.write_text("rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3\n")
    start = time.monotonic()
    openings = list(opening_fens(2, seed=4, book=book, options=GenfensOptions(plies=1)))
    assert time.monotonic() - start < allowed(OPENBENCH_STALL_SECONDS)
    assert len(openings) == 2
    for opening in openings:
        check_playable(opening)
        assert not opening.balanced and abs(opening.score) > DEFAULT_MARGIN, opening


def test_extra_words_are_taken_or_passed_over() -> None:
    assert GenfensOptions.from_words([]) == GenfensOptions()
    options = GenfensOptions.from_words(["plies", "4", "foo", "margin=20", "nodes", "x", "bar", "-v"])
    assert options == GenfensOptions(plies=4, margin=20, nodes=DEFAULT_NODES)
    assert GenfensOptions.from_words(["PLIES", "999", "margin", "-5", "nodes", "0"]) == \
        GenfensOptions(plies=200, margin=0, nodes=1)
    for opening in opening_fens(3, seed=2, options=GenfensOptions(plies=4, margin=30)):
        assert chess.Board(opening.fen).ply() == 4 and abs(opening.score) <= 30, opening


def test_bad_books_are_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.epd"
    garbage.write_text("not a position\nxx yy zz ww\n")
    with pytest.raises(GenfensError, match="garbage.epd: no valid position"):
        next(opening_fens(1, seed=1, book=garbage))
    checkmated = tmp_path / "mate.epd"
    checkmated.write_text("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n")
    with pytest.raises(GenfensError, match="mate.epd: no new playable position"):
        next(opening_fens(1, seed=1, book=checkmated, options=GenfensOptions(plies=0)))
    with pytest.raises(InputFileError, match="no such file"):
        next(opening_fens(1, seed=1, book=tmp_path / "missing.epd"))


# -- the command line, as an OpenBench worker runs it ----------------------------------------------

def run_program(*commands: str, cwd: Path | None = None) -> tuple[list[str], float]:
    """The program's output lines and run time, in cwd or a folder of its own, where it must leave
    nothing behind (a worker runs genfens many times: no log.NNN or game.NNN files may pile up)."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as own:
        folder = cwd or Path(own)
        before = sorted(os.listdir(folder))
        result = subprocess.run([*program(), *commands, "quit"], capture_output=True, text=True, cwd=folder,
                                timeout=allowed(4 * OPENBENCH_STALL_SECONDS), stdin=subprocess.DEVNULL)
        assert sorted(os.listdir(folder)) == before
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines(), time.monotonic() - start


def test_command_line_as_openbench_runs_it() -> None:
    # OpenBench's form: one argument, the extra words (here none) after a space, then quit.
    lines, seconds = run_program("genfens 16 seed 1 book None ")
    assert seconds < allowed(OPENBENCH_STALL_SECONDS), seconds
    assert len(lines) == 16 and all(line.startswith(PREFIX) for line in lines), lines   # and nothing else
    assert [line[len(PREFIX):] for line in lines] == [opening.fen for opening in opening_fens(16, seed=1)]
    again, _ = run_program("genfens 16 seed 1 book None ")
    assert again == lines


def test_command_line_with_an_epd_book_and_extra_words() -> None:
    book = data_file("openings", "noob_2moves.epd")
    lines, _ = run_program(f"genfens 16 seed 2 book {book} plies 3 unknown words")
    assert len(lines) == 16 and all(line.startswith(PREFIX) for line in lines), lines
    fens = [line[len(PREFIX):] for line in lines]
    assert fens == [opening.fen for opening in opening_fens(16, seed=2, book=book,
                                                            options=GenfensOptions(plies=3))]
    assert all(chess.Board(fen).ply() == 7 for fen in fens)


def test_command_line_bad_arguments_and_books_get_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.epd"
    os.mkfifo(fifo)
    (tmp_path / "folder.epd").mkdir()
    usage = "Error: usage: genfens N seed S book None|FILE [plies N] [margin CP] [nodes N]"
    bad_arguments = ["genfens", "genfens x seed 1 book None", "genfens 0 seed 1 book None",
                     "genfens 4 sed 1 book None", "genfens 4 seed one book None", "genfens 4 seed 1 bok None",
                     "genfens 4 seed 1 book"]
    books = {"missing.epd": "no such file", str(fifo): "not a regular file (a FIFO)",
             "folder.epd": "not a regular file (a folder)", "/dev/zero": "not a regular file (a character device)"}
    lines, _ = run_program(*bad_arguments, *(f"genfens 4 seed 1 book {path}" for path in books), cwd=tmp_path)
    assert lines == [usage] * len(bad_arguments) + [f"Error: {path}: {reason}" for path, reason in books.items()]
