"""Training positions for the neural evaluation, taken from packed self-play games or from the PGNs
of an OpenBench DATAGEN workload.

Usage (after `pip install -e .`):

    python -m tools.nnue.data OUT.npz data/nnue/*.pgm.xz [--skip-plies 8] [--max-score 3000] [--jobs 2]
    python -m tools.nnue.data OUT.npz 123.pgn.tar games.pgn.xz ...

A file whose name holds `.pgn` is read as PGN: plain, .gz, .xz or .bz2, or a .tar of such files
(OpenBench's download of a workload's games, `N.pgn.tar`, holds one .pgn.bz2 per upload). Each
move's score is read from its comment as fastchess and cutechess write it, and as OpenBench keeps
it when it uploads: `{+0.35/12 0.123s, n=..., sd=...}` or `{+0.35/12}`, pawns from the side to
move's view, then the depth; `+M5`/`-M5` a mate (kept as the packed files keep mates, so
--max-score leaves it out); `{book}` or `{unknown}` no score (the position is not kept, the move
is played). Games without a result (`*`) or with a move that cannot be read are passed over.
Any other file is a packed games file.

Each game (tools/nnue/packed_games.py, or PGN) is replayed; a position is kept when the game is past
--skip-plies, the side to move is not in check, the move played (the search's best) is neither a
capture nor a promotion, and the search's score is within --max-score (no mate scores): the
network learns quiet positions, where the static evaluation is what the search uses.

OUT holds, per position: the side to move's 32 input indices (768 pads an empty slot; the other
perspective's indices follow from them, see mirror_features), the search score and the game
result both from the side to move's view, the game's number (so validation can hold out whole
games), and whether the position has no castling rights (then its mirror image left to right is
as good a training position: tools/nnue/train.py --mirror). tools/nnue/train.py reads it.
"""
from __future__ import annotations

import argparse
import bz2
import gzip
import io
import lzma
import multiprocessing
import re
import sys
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from pathlib import Path
from typing import IO, NamedTuple

import chess
import chess.pgn
import numpy as np

from ponderosa.engine.nnue.network_file import KingLayout
from ponderosa.engine.nnue.reference import features

from tools.nnue.packed_games import PackedGamesError, read_games

PAD = 768
OWN_KING = 320   # the side's own king's first index: own piece (0) x king (5 x 64)
SLOTS = 32
MATE = 32000   # a mate in the packed files' terms: +-(MATE - plies to it)
RESULTS = ("1-0", "1/2-1/2", "0-1")
# fastchess/cutechess: the comment starts with the score, `+0.35/12` or `-M4/30` (OpenBench's reading too).
SCORE_COMMENT = re.compile(r"^\s*([+-]?)(M?)(\d+(?:\.\d+)?)/\d+")


class GamesFileError(ValueError):
    """A PGN file or archive that cannot be read; the message names the file."""


class PositionsFileError(ValueError):
    """A positions file (this module's output) that cannot be read; the message names the file."""


class ScoredGame(NamedTuple):
    """A game from either kind of file: its start, result, moves and each move's score (side to
    move's view; None when the file gives none)."""

    start: chess.Board
    result: str
    moves: list[chess.Move]
    scores: list[int | None]


def stm_features(board: chess.Board) -> list[int]:
    """Input indices seen from the side to move (the core's, as the reference computes them)."""
    return features(board, board.turn)


def by_chunks(transform: Callable[[np.ndarray], np.ndarray], indices: np.ndarray, chunk: int,
              dtype: type | None = None) -> np.ndarray:
    """transform applied chunk rows at a time into one result array (dtype: the input's unless
    given): the temporaries of a whole array of tens of millions of rows at once do not fit in
    24 GiB beside the training data."""
    out = np.empty(indices.shape, dtype=indices.dtype if dtype is None else dtype)
    for start in range(0, len(indices), chunk):
        out[start:start + chunk] = transform(indices[start:start + chunk])
    return out


def mirror_features(indices: np.ndarray, chunk: int = 1 << 20) -> np.ndarray:
    """The same pieces' indices from the other perspective (padding stays padding), chunk rows at a time."""
    def mirror(rows: np.ndarray) -> np.ndarray:
        relative, rest = np.divmod(rows, 384)
        piece_type, square = np.divmod(rest, 64)
        return np.where(rows == PAD, PAD, (1 - relative) * 384 + piece_type * 64 + (square ^ 56))
    return by_chunks(mirror, indices, chunk)


def king_bucket_features(indices: np.ndarray, layout: KingLayout, chunk: int = 1 << 20) -> np.ndarray:
    """One perspective's indices (768 pads) as inputs of a network with king buckets: each row
    moved into the set of its own king's bucket, its squares mirrored left to right where the
    layout mirrors (reference.features with the layout); padding becomes 768 x buckets. Rows are
    done chunk at a time, so millions of them need little memory beyond the result."""
    if layout.plain:
        return indices
    table = np.frombuffer(layout.buckets, dtype=np.uint8).astype(np.int16)

    def move(rows: np.ndarray) -> np.ndarray:
        rows = rows.astype(np.int16)
        own_king = (rows >= OWN_KING) & (rows < OWN_KING + 64)
        first = own_king.argmax(axis=1)   # each position has one king of the perspective's side
        king_square = np.where(own_king.any(axis=1), rows[np.arange(len(rows)), first] - OWN_KING, 0)
        flip = np.where(layout.mirror & ((king_square & 7) >= 4), 7, 0).astype(np.int16)
        moved = table[king_square][:, None] * np.int16(PAD) + (rows ^ flip[:, None])
        return np.where(rows == PAD, np.int16(PAD * layout.count), moved)
    return by_chunks(move, indices, chunk, dtype=np.int16)


def factoriser_features(indices: np.ndarray, layout: KingLayout) -> np.ndarray:
    """King-bucket indices (king_bucket_features) followed by the same pieces' indices in the
    shared set after the buckets' (tools/nnue/backends.py's factoriser); padding becomes
    768 x (buckets + 1)."""
    own_pad, pad = PAD * layout.count, PAD * (layout.count + 1)
    shared = np.where(indices == own_pad, pad, indices % PAD + own_pad)
    return np.concatenate([np.where(indices == own_pad, pad, indices), shared], axis=1).astype(np.int16)


def flip_files(indices: np.ndarray, chunk: int = 1 << 20) -> np.ndarray:
    """The same pieces with the board mirrored left to right (a-file <-> h-file), chunk rows at a time."""
    return by_chunks(lambda rows: np.where(rows == PAD, PAD, rows ^ 7), indices, chunk)


def comment_score(comment: str) -> int | None:
    """The centipawns of a fastchess/cutechess move comment (`+0.35/12 0.123s` is 35), a mate as
    +-(MATE - plies), None without a score (`book`, `unknown`)."""
    match = SCORE_COMMENT.match(comment)
    if match is None:
        return None
    sign = -1 if match.group(1) == "-" else 1
    if match.group(2):   # +M5: the side to move mates in 5 moves (9 plies); -M5: it is mated in 10
        moves = int(float(match.group(3)))
        return sign * (MATE - (2 * moves - 1 if sign > 0 else 2 * moves))
    return sign * round(float(match.group(3)) * 100)


class _Builder(chess.pgn.GameBuilder):
    """python-chess's game builder, collecting errors without logging each one."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def _decompressed(raw: IO[bytes], name: str) -> IO[bytes]:
    if name.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw)
    if name.endswith(".xz"):
        return lzma.LZMAFile(raw)
    if name.endswith(".bz2"):
        return bz2.BZ2File(raw)
    return raw


def pgn_texts(path: Path) -> Iterator[IO[str]]:
    """The PGN texts of a file: itself (decompressed by its suffix), or each file of a .tar."""
    if path.name.lower().endswith(".tar"):
        with tarfile.open(path) as archive:
            for member in archive:
                raw = archive.extractfile(member) if member.isfile() else None
                if raw is not None:
                    yield io.TextIOWrapper(_decompressed(raw, member.name.lower()), encoding="utf-8",
                                           errors="replace")
        return
    with open(path, "rb") as raw:
        yield io.TextIOWrapper(_decompressed(raw, path.name.lower()), encoding="utf-8", errors="replace")


def read_pgn_games(path: Path) -> Iterator[ScoredGame]:
    """The finished games of a PGN file with their comments' scores; GamesFileError when a
    compressed file or archive is broken."""
    try:
        for text in pgn_texts(path):
            while True:
                game = chess.pgn.read_game(text, Visitor=_Builder)
                if game is None:
                    break
                if game.headers.get("Result") not in RESULTS or game.errors:
                    continue
                nodes = list(game.mainline())
                yield ScoredGame(game.board(), game.headers["Result"], [node.move for node in nodes],
                                 [comment_score(node.comment) for node in nodes])
    except (OSError, EOFError, lzma.LZMAError, tarfile.TarError) as error:
        raise GamesFileError(f"{path}: {error}") from None


def read_scored_games(path: Path) -> Iterator[ScoredGame]:
    """The games of a PGN file (a name holding `.pgn`) or of a packed games file."""
    if ".pgn" in path.name.lower():
        yield from read_pgn_games(path)
        return
    for game in read_games(path):
        yield ScoredGame(chess.Board(game.start_fen), game.result, game.moves, list(game.scores))


SKIP_PLIES = 8       # the defaults of --skip-plies and --max-score
MAX_SCORE = 3000


def kept(board: chess.Board, ply: int, move: chess.Move, score: int | None, skip_plies: int, max_score: int) -> bool:
    """Whether the position before move (the game's ply-th) is one a static evaluation is trained on."""
    return (ply >= skip_plies and score is not None and abs(score) <= max_score and not board.is_check()
            and not board.is_capture(move) and move.promotion is None)


def extract_file(path: Path, skip_plies: int, max_score: int) -> tuple[dict[str, np.ndarray], int]:
    """One file's kept positions (game numbers from 0 within the file) and how many games it holds."""
    rows: list[list[int]] = []
    flippable: list[bool] = []
    scores: list[int] = []
    results: list[float] = []
    game_ids: list[int] = []
    game_number = 0
    for game in read_scored_games(Path(path)):
        white_result = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}[game.result]
        board = game.start
        for ply, (move, score) in enumerate(zip(game.moves, game.scores)):
            if kept(board, ply, move, score, skip_plies, max_score):
                active = stm_features(board)
                rows.append(active + [PAD] * (SLOTS - len(active)))
                scores.append(score)
                results.append(white_result if board.turn == chess.WHITE else 1.0 - white_result)
                game_ids.append(game_number)
                flippable.append(not board.castling_rights)
            board.push(move)
        game_number += 1
    return position_arrays(rows, scores, results, game_ids, flippable), game_number


def position_arrays(rows: list[list[int]], scores: list[int], results: list[float], game_ids: list[int],
                    flippable: list[bool]) -> dict[str, np.ndarray]:
    """The output's arrays, in their dtypes, from per-position lists (all empty: no positions)."""
    return {"features": np.array(rows, dtype=np.int16).reshape(-1, SLOTS),
            "scores": np.array(scores, dtype=np.int16),
            "results": np.array(results, dtype=np.float32),
            "games": np.array(game_ids, dtype=np.int32),
            "flippable": np.array(flippable, dtype=bool)}


POSITION_ARRAYS = ("features", "scores", "results", "games", "flippable")


def _read_array_prefix(member: IO[bytes], limit: int) -> np.ndarray:
    """The first `limit` rows (all when 0) of one .npy member, read from its stream: a learning
    curve's run on the first rows of a large file then reads only those."""
    version = np.lib.format.read_magic(member)
    read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if read_header is None:
        raise ValueError(f"array format {version[0]}.{version[1]} is not read here")
    shape, fortran_order, dtype = read_header(member)
    if fortran_order or dtype.hasobject or not shape:
        raise ValueError("not a C-ordered array of rows")
    rows = shape[0] if limit <= 0 else min(limit, shape[0])
    row_items = int(np.prod(shape[1:], dtype=np.int64))
    wanted = rows * row_items * dtype.itemsize
    raw = member.read(wanted)
    if len(raw) != wanted:
        raise ValueError(f"truncated: {len(raw)} of {wanted} bytes")
    return np.frombuffer(raw, dtype=dtype).reshape((rows, *shape[1:])).copy()


def load_positions(path: Path, limit: int = 0) -> dict[str, np.ndarray]:
    """The arrays of a positions file written by main(); with a limit, only the first `limit`
    positions of each are read. PositionsFileError names the file when it cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = {}
            for name in POSITION_ARRAYS:
                with archive.open(f"{name}.npy") as member:
                    data[name] = _read_array_prefix(member, limit)
    except KeyError as error:
        raise PositionsFileError(f"{path}: no array {error} (not a file of tools/nnue/data.py)") from None
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as error:
        raise PositionsFileError(f"{path}: {error}") from None
    counts = {len(values) for values in data.values()}
    if len(counts) != 1:
        raise PositionsFileError(f"{path}: its arrays have different numbers of positions")
    return data


def extract(paths: list[Path], skip_plies: int, max_score: int, jobs: int = 1) -> dict[str, np.ndarray]:
    """The kept positions of all files, in the files' order, game numbers going on across files.
    With jobs > 1 the files are read in that many processes; the result is the same."""
    if jobs > 1 and len(paths) > 1:
        # Spawned, not forked: a fork copies the locks of the caller's other threads (a test
        # runner's, an engine's), and a child that finds one held waits for ever.
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            parts = list(pool.map(extract_file, paths, repeat(skip_plies), repeat(max_score)))
    else:
        parts = [extract_file(path, skip_plies, max_score) for path in paths]
    offset = 0
    for data, game_count in parts:
        data["games"] += offset
        offset += game_count
    if not parts:   # no files: empty arrays of the right shapes
        return position_arrays([], [], [], [], [])
    return {name: np.concatenate([data[name] for data, _ in parts]) for name in parts[0][0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("games", type=Path, nargs="+",
                        help="packed games files (tools.nnue.datagen --packed), or PGNs with scored moves (OpenBench)")
    parser.add_argument("--skip-plies", type=int, default=SKIP_PLIES)
    parser.add_argument("--max-score", type=int, default=MAX_SCORE)
    parser.add_argument("--jobs", type=int, default=1, help="read the files in this many processes (default 1)")
    args = parser.parse_args(argv)
    try:
        data = extract(args.games, args.skip_plies, args.max_score, max(args.jobs, 1))
    except (PackedGamesError, GamesFileError) as error:
        print(error, file=sys.stderr)
        return 1
    except OSError as error:
        print(f"{error.filename}: {error.strerror}", file=sys.stderr)
        return 1
    temporary = args.out.with_name(args.out.name + ".tmp.npz")
    np.savez(temporary, **data)
    temporary.replace(args.out)
    print(f"{args.out}: {len(data['scores'])} positions from {int(data['games'].max(initial=-1)) + 1} games",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
