"""Pondering after a book move: the engine offers the book's most played reply as its ponder move
(UCI `bestmove X ponder Y`; XBoard ponders on it), and a ponder hit into the book plays the
book's move at once, as a search request there would have."""
from __future__ import annotations

import re
import time

import chess

from ponderosa.core_ext.core import Board
from ponderosa.engine.engine import Engine

from tests.uci_harness import UciEngine
from tests.wall_clock import allowed
from tests.xboard_harness import XBoardEngine


def book_reply(moves: list[str]) -> str | None:
    """The shipped books' most played move after moves (what the engine should ponder on)."""
    board = Board()
    for move in moves:
        board.push_uci(move)
    return Engine().book.likely_move(board)


def book_moves(moves: list[str]) -> set[str]:
    board = Board()
    for move in moves:
        board.push_uci(move)
    return {candidate.move for candidate in Engine().book.candidates(board, evaluate=False)}


def test_uci_book_move_comes_with_a_ponder_move_and_a_ponder_hit_is_a_book_hit() -> None:
    engine = UciEngine(("--uci",))
    try:
        move, ponder, lines = engine.search("position startpos", "go wtime 60000 btime 60000")
        assert any(line.text.startswith("info string book move") for line in lines)
        assert ponder is not None and ponder == book_reply([move])
        engine.send(f"position startpos moves {move} {ponder}", "go ponder wtime 60000 btime 60000")
        time.sleep(0.3)
        sent = time.monotonic()
        reply, _, lines = engine.search("ponderhit", seconds=5.0)
        assert lines[-1].at - sent < allowed(0.5)
        assert any(line.text.startswith("info string book move") for line in lines)
        assert reply in book_moves([move, ponder])
    finally:
        engine.close()


def test_xboard_ponders_on_the_book_reply_and_a_hit_plays_the_book() -> None:
    engine = XBoardEngine()
    try:
        engine.init()
        engine.send("new", "hard", "post", "level 0 1 0", "go")
        first = engine.expect_move(5.0)
        expected = book_reply([first])
        assert expected is not None
        # Pondering on the book's reply: its thinking lines come before any move of the opponent's.
        # (The wait is stretched on a busy machine: a ponder search's first line may take a second there.)
        engine.expect_line(re.compile(r"^\s*\d+\s+-?\d+\s+\d+\s+\d+"), 1.0, keep_thinking=True)
        sent = time.monotonic()
        before = len(engine.transcript)
        engine.move(expected)
        answer = engine.expect_move(5.0)
        assert time.monotonic() - sent < allowed(0.5)
        assert answer in book_moves([first, expected])
        told = [line for line in engine.transcript[before:] if line.startswith("< # book move")]
        assert told and told[0].split()[4] == chess.Board().variation_san(
            [chess.Move.from_uci(first), chess.Move.from_uci(expected), chess.Move.from_uci(answer)]).split()[-1]
    finally:
        engine.close()
