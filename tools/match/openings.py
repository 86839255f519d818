"""The openings of a match (tools/match/gauntlet.py, tools/match/sprt.py): read from an EPD/FEN file or drawn from
the 960 Chess960 start positions, sampled reproducibly for a seed, paired for both colours, and
turned into moves from the start position for engines that have no `setboard`."""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import chess

from tools import ROOT as REPO
from tools.match.games import Opening

# The match openings ship with the tests (tests/data/README.md gives their source).
DEFAULT_OPENINGS = REPO / "tests" / "data" / "openings" / "noob_2moves.epd"


def read_openings(path: Path) -> list[tuple[int, str]]:
    """(line number, text) for every position line of an EPD/FEN file; parsed later by position_fen."""
    openings = [(number, line.strip()) for number, line in enumerate(path.read_text().splitlines(), 1)
                if line.strip() and not line.lstrip().startswith("#")]
    if not openings:
        raise ValueError(f"{path}: no positions")
    return openings


def position_fen(text: str) -> str:
    """The FEN of a FEN or EPD line (EPD operations dropped); ValueError if it is no position."""
    fields = text.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        board = chess.Board(" ".join(fields[:6]))
    else:
        board, _ = chess.Board.from_epd(text)
    if not board.is_valid():
        raise ValueError(f"not a legal position: {text!r}")
    return board.fen()


def sample_openings(openings: list, count: int, seed: int | None) -> list:
    """`count` openings chosen at random (reproducible for a seed); repeats only if count > len."""
    rng = random.Random(seed)
    chosen: list = []
    while len(chosen) < count:
        chosen.extend(rng.sample(openings, min(len(openings), count - len(chosen))))
    return chosen


@dataclass(frozen=True)
class Pairing:
    opening: int        # index into the sampled openings
    engine_white: bool  # the tested engine plays White


def pairings(n_openings: int, games: int) -> list[Pairing]:
    """`games` games (even) over the first games/2 openings, each played once with each colour."""
    if games % 2:
        raise ValueError("the number of games per opponent must be even (each opening is played twice)")
    if games // 2 > n_openings:
        raise ValueError(f"{games} games need {games // 2} openings, only {n_openings} given")
    return [Pairing(i, white) for i in range(games // 2) for white in (True, False)]


def _masks(board: chess.Board) -> tuple[int, ...]:
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK])


def _position_key(board: chess.Board) -> str:
    return " ".join(board.fen().split()[:4])


def line_to(fen: str, max_plies: int = 6) -> list[chess.Move] | None:
    """Moves from the standard start position to the FEN's position (placement, side, castling
    and en-passant rights equal), or None if none is found within max_plies. Lets the openings be
    sent to engines as moves, so engines without `setboard` (Fairy-Max) can play them."""
    target = chess.Board(fen)
    plies = 2 * (target.fullmove_number - 1) + (target.turn == chess.BLACK)
    if plies > max_plies:
        return None
    target_key, target_masks = _position_key(target), _masks(target)

    def differing_squares(board: chess.Board) -> int:
        diff = 0
        for mine, theirs in zip(_masks(board), target_masks):
            diff |= mine ^ theirs
        return bin(diff).count("1")

    def search(board: chess.Board, depth: int) -> list[chess.Move] | None:
        if depth == 0:
            return [] if _position_key(board) == target_key else None
        if differing_squares(board) > 4 * depth:   # one ply changes at most 4 squares (castling)
            return None
        # Moves that put a piece where the target has that piece first (pawns before pieces, for
        # the usual move order); the first line found is returned.
        def order(move: chess.Move) -> tuple[bool, bool]:
            piece = board.piece_at(move.from_square)
            lands = target.piece_at(move.to_square) == piece
            return not lands, piece is None or piece.piece_type != chess.PAWN

        for move in sorted(board.legal_moves, key=order):
            board.push(move)
            found = search(board, depth - 1)
            board.pop()
            if found is not None:
                return [move, *found]
        return None

    found = search(chess.Board(), plies)
    if found is None and target.fullmove_number == 1 and target.halfmove_clock == 0:
        # No move counters (EPD): try the short lines with the right side to move.
        for depth in range(plies + 2, min(max_plies, 4) + 1, 2):
            found = search(chess.Board(), depth)
            if found is not None:
                break
    return found


def build_chess960_openings(count: int, seed: int | None) -> list[Opening]:
    """`count` Chess960 start positions (numbers 0-959, Scharnagl's numbering as in python-chess's
    `from_chess960_pos`), drawn at random (reproducible for a seed); repeats only if count > 960."""
    openings = []
    for number in sample_openings(list(range(960)), count, seed):
        board = chess.Board.from_chess960_pos(number)
        openings.append(Opening(0, board.fen(), None, number))
    return openings


def build_openings(path: Path, count: int, seed: int | None) -> list[Opening]:
    openings = []
    for line, text in sample_openings(read_openings(path), count, seed):
        try:
            fen = position_fen(text)
        except ValueError as error:
            raise ValueError(f"{path}:{line}: {error}") from None
        moves = line_to(fen)
        openings.append(Opening(line, fen, tuple(moves) if moves is not None else None))
    return openings
