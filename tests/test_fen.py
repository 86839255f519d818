"""FEN checking in the engine layer and structural checks in the core."""
from __future__ import annotations

import pytest

from ponderosa.core_ext.core import START_FEN, Board
from ponderosa.engine.fen import FenError, validate_fen


@pytest.mark.parametrize("fen,message", [
    ("4k3/8/8/8/8/8/8/KK6 w - - 0 1", "more than one king"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "White has no king"),
    ("4k3/8/8/8/8/8/8/r3K3 b - - 0 1", "not to move is in check"),
    ("rnbqkbnr/pppppppp/8/8", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "bad FEN"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "bad FEN"),
    ("4k3/8/8/8/8/8/8/4K2P w - - 0 1", "first or last rank"),
    ("", "no FEN"),
])
def test_bad_fens_are_refused_with_a_reason(fen: str, message: str) -> None:
    with pytest.raises(FenError, match=message):
        validate_fen(fen)


def test_crafty_short_form_gets_counters() -> None:
    assert validate_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -") == START_FEN


def test_impossible_castling_rights_are_dropped() -> None:
    assert validate_fen("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1") == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


@pytest.mark.parametrize("fen", [
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "kk6/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
    "4k3/8/8/8/8/8/8/4K3 w - - x 1",
    "4k3/9/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3",
])
def test_core_refuses_what_it_cannot_hold_and_keeps_the_old_position(fen: str) -> None:
    board = Board()
    with pytest.raises(ValueError):
        board.set_fen(fen)
    assert board.fen() == START_FEN
