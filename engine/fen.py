"""FEN checking: python-chess decides whether a FEN is a legal chess position."""
from __future__ import annotations

import chess

from ponderosa.engine.errors import EngineError

# Problems that make a position unplayable, with the message the user sees.
_FATAL_STATUS = [
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "Black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "White has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "Black has more than 16 pieces"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_INVALID_EP_SQUARE, "the en-passant square is impossible"),
]


# The core keeps the move counters in C ints; no real game comes near this.
MAX_COUNTER = 1 << 20


class FenError(EngineError):
    """A FEN that is malformed or describes an impossible position."""


def validate_fen(text: str, chess960: bool = False) -> str:
    """Return the FEN with missing counters filled in, or raise FenError saying what is wrong.

    Crafty's short form (board, side, castling, en passant; no counters) is accepted.
    Castling rights that the king and rook placement no longer allow are dropped. In Chess960
    the rights may be X-FEN (KQkq) or Shredder-FEN (HAha); they come back as X-FEN.
    """
    text = " ".join(text.split())
    if not text:
        raise FenError("no FEN given")
    fields = text.split(" ")
    if len(fields) < 2:
        raise FenError(f"FEN needs at least the board and the side to move: {text!r}")
    try:
        board = chess.Board(text, chess960=chess960)
    except ValueError as error:
        raise FenError(f"bad FEN {text!r}: {error}") from None
    if board.halfmove_clock > MAX_COUNTER or board.fullmove_number > MAX_COUNTER:
        raise FenError(f"move counters out of range (at most {MAX_COUNTER}): {text!r}")
    status = board.status()
    for flag, message in _FATAL_STATUS:
        if status & flag:
            raise FenError(f"illegal position: {message}")
    board.castling_rights = board.clean_castling_rights()
    # Keep the e.p. square as given when it is possible; python-chess prints only legal ones.
    return board.fen(en_passant="fen")
