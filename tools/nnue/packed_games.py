"""Self-play games packed for training the neural evaluation: every ply's move and search score.

A file is an xz (lzma) stream of games, each:

    u8  result for White: 0 loss, 1 draw, 2 win
    u8  length of the start FEN, then the FEN in ASCII (the opening after its random plies)
    u16 number of plies, then for each ply:
        u16 move: from square | to square << 6 | promotion << 12 (0 none, 1 N, 2 B, 3 R, 4 Q)
        i16 the search's score for the side to move, centipawns (mates as +-32000 - plies)

little-endian, after a 4-byte magic `PGM1`. A ply takes 4 bytes before compression, about 2.5
after: games as moves and scores, not boards, is what lets tens of millions of positions live in
the repository. The trainer replays each game to get its positions (tools/nnue/data.py).
"""
from __future__ import annotations

import lzma
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import chess

from ponderosa.engine.records import write_atomically

MAGIC = b"PGM1"
RESULT_CODES = {"0-1": 0, "1/2-1/2": 1, "1-0": 2}
RESULT_NAMES = {code: name for name, code in RESULT_CODES.items()}
PROMOTIONS = (None, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
SCORE_LIMIT = 32767


class PackedGamesError(ValueError):
    """A packed games file that cannot be read; the message names the file."""


@dataclass
class PackedGame:
    start_fen: str
    result: str                                 # "1-0", "1/2-1/2" or "0-1"
    moves: list[chess.Move] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)   # side to move's view, one a ply


def encode_move(move: chess.Move) -> int:
    return move.from_square | move.to_square << 6 | PROMOTIONS.index(move.promotion) << 12


def decode_move(code: int) -> chess.Move:
    promotion = (code >> 12) & 7
    if promotion >= len(PROMOTIONS):
        raise ValueError(f"promotion code {promotion}")
    return chess.Move(code & 63, (code >> 6) & 63, PROMOTIONS[promotion])


def pack_game(game: PackedGame) -> bytes:
    fen = game.start_fen.encode("ascii")
    if len(fen) > 255 or len(game.moves) != len(game.scores) or len(game.moves) > 65535:
        raise ValueError("a game too long to pack, or moves and scores of different lengths")
    parts = [struct.pack("<BB", RESULT_CODES[game.result], len(fen)), fen, struct.pack("<H", len(game.moves))]
    for move, score in zip(game.moves, game.scores):
        parts.append(struct.pack("<Hh", encode_move(move), max(-SCORE_LIMIT, min(SCORE_LIMIT, score))))
    return b"".join(parts)


def write_games(path: Path, games: list[PackedGame]) -> None:
    """Write the games to path atomically (a temporary file renamed over it)."""
    packed = MAGIC + b"".join(pack_game(game) for game in games)
    write_atomically(path, lzma.compress(packed, preset=9))


def _read_exact(stream: BinaryIO, size: int, path: Path) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise PackedGamesError(f"{path}: truncated packed games file")
    return data


def read_games(path: Path) -> Iterator[PackedGame]:
    """The games of a packed file, in order; PackedGamesError naming the file when it is broken."""
    path = Path(path)
    try:
        with lzma.open(path, "rb") as stream:
            if stream.read(4) != MAGIC:
                raise PackedGamesError(f"{path}: not a packed games file (magic {MAGIC!r} missing)")
            while True:
                head = stream.read(2)
                if not head:
                    return
                if len(head) != 2:
                    raise PackedGamesError(f"{path}: truncated packed games file")
                result, fen_length = struct.unpack("<BB", head)
                if result not in RESULT_NAMES:
                    raise PackedGamesError(f"{path}: bad result code {result}")
                fen = _read_exact(stream, fen_length, path).decode("ascii")
                (plies,) = struct.unpack("<H", _read_exact(stream, 2, path))
                body = _read_exact(stream, 4 * plies, path)
                game = PackedGame(fen, RESULT_NAMES[result])
                for code, score in struct.iter_unpack("<Hh", body):
                    try:
                        game.moves.append(decode_move(code))
                    except ValueError as error:
                        raise PackedGamesError(f"{path}: {error}") from None
                    game.scores.append(score)
                yield game
    except (lzma.LZMAError, EOFError, UnicodeDecodeError) as error:
        raise PackedGamesError(f"{path}: {error}") from None
