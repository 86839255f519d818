"""Principal variations as people read them: UCI moves from a position written in SAN."""
from __future__ import annotations

import chess


def san_moves(start: chess.Board, pv: list[str]) -> list[str]:
    """The moves of pv in SAN, as far as they are legal from start (a stale line is cut short)."""
    board = start.copy(stack=False)
    words = []
    for uci in pv:
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            break
        words.append(board.san(move))
        board.push(move)
    return words


def numbered_san(start: chess.Board, pv: list[str], black_first: str = "{}...") -> str:
    """pv in SAN with move numbers (3... Nf6 4. Qxf7#); black_first writes the number before a
    line that starts with Black's move."""
    words: list[str] = []
    number, white = start.fullmove_number, start.turn == chess.WHITE
    for index, san in enumerate(san_moves(start, pv)):
        if white:
            words.append(f"{number}.")
        elif index == 0:
            words.append(black_first.format(number))
        words.append(san)
        if not white:
            number += 1
        white = not white
    return " ".join(words)
