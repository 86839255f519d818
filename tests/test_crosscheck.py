"""Random games checked move by move against python-chess: moves, move counts, checks, FEN and
Polyglot keys."""
from __future__ import annotations

import random

import chess
import chess.polyglot
import pytest

from ponderosa.core_ext.core import START_FEN, Board

from tests.conftest import data_file


def _start_positions() -> list[str]:
    fens = [START_FEN]
    for line in data_file("suites", "perftsuite.epd").read_text().splitlines():
        if line.strip():
            fens.append(chess.Board(line.split(";")[0].strip()).fen())
    return fens


def _noisy(board: chess.Board) -> list[str]:
    """What the quiescence generator must give: captures, e.p., queen promotions; all moves in check."""
    if board.is_check():
        return sorted(m.uci() for m in board.legal_moves)
    return sorted(m.uci() for m in board.legal_moves
                  if board.is_capture(m) and m.promotion in (None, chess.QUEEN)
                  or m.promotion == chess.QUEEN)


def _check_same(ours: Board, theirs: chess.Board) -> None:
    assert sorted(ours.legal_moves()) == sorted(m.uci() for m in theirs.legal_moves)
    # perft's last ply counts the moves with a generator of its own (count_legal), which lists none.
    assert ours.perft(1) == theirs.legal_moves.count()
    assert sorted(ours.noisy_moves()) == _noisy(theirs)
    assert ours.fen() == theirs.fen()
    assert ours.key == chess.polyglot.zobrist_hash(theirs)
    assert ours.in_check() == theirs.is_check()
    # The search prunes on this before making the move: every kind of check must be seen.
    checking = sorted(m.uci() for m in theirs.legal_moves if theirs.gives_check(m))
    assert sorted(m for m in ours.legal_moves() if ours.gives_check(m)) == checking


def _play_random_game(fen: str, rng: random.Random, max_plies: int) -> int:
    """Play random moves from fen on both boards, checking after every make and unmake."""
    ours, theirs = Board(fen), chess.Board(fen)
    history: list[tuple[str, int]] = []
    for _ in range(max_plies):
        _check_same(ours, theirs)
        moves = list(theirs.legal_moves)
        if not moves:
            break
        # Prefer captures and promotions now and then, so games reach the rarer cases.
        sharp = [m for m in moves if m.promotion or theirs.is_capture(m)]
        move = rng.choice(sharp if sharp and rng.random() < 0.3 else moves)
        history.append((ours.fen(), ours.key))
        ours.push_uci(move.uci())
        theirs.push(move)
    plies = len(history)
    while history:
        fen_before, key_before = history.pop()
        ours.pop()
        theirs.pop()
        assert (ours.fen(), ours.key) == (fen_before, key_before)
    return plies


@pytest.mark.parametrize("seed", range(8))
def test_random_games_match_python_chess(seed: int) -> None:
    rng = random.Random(seed)
    starts = _start_positions()
    plies = sum(_play_random_game(rng.choice(starts), rng, 300) for _ in range(25))
    assert plies > 1000


@pytest.mark.parametrize("fen", _start_positions()[:40])
def test_fen_round_trip(fen: str) -> None:
    assert Board(fen).fen() == fen


def test_key_of_start_position_is_the_polyglot_key() -> None:
    # The published Polyglot key of the initial position.
    assert Board().key == 0x463B96181691FC9C


def test_en_passant_key_only_when_a_pawn_can_capture() -> None:
    board = Board()
    board.push_uci("e2e4")
    assert board.key == 0x823C9B50FD114196  # Polyglot's published key after 1.e4
    for move in ("d7d5", "e4e5", "f7f5"):
        board.push_uci(move)
    assert board.key == 0x22A48B5A8E47FF78  # after 1.e4 d5 2.e5 f5: e.p. file hashed


def test_illegal_moves_are_refused_and_change_nothing() -> None:
    board = Board()
    for bad in ("e2e5", "e1g1", "a7a6", "zz", ""):
        with pytest.raises(ValueError):
            board.push_uci(bad)
    assert board.fen() == START_FEN
    with pytest.raises(IndexError):
        board.pop()
