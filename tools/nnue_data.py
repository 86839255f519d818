#!/usr/bin/env python3
"""Training positions for the neural evaluation, taken from packed self-play games.

Usage (after `pip install -e .`):

    python tools/nnue_data.py OUT.npz data/nnue/*.pgm.xz [--skip-plies 8] [--max-score 3000]

Each game (tools/packed_games.py) is replayed; a position is kept when the game is past
--skip-plies, the side to move is not in check, the move played (the search's best) is neither a
capture nor a promotion, and the search's score is within --max-score (no mate scores): the
network learns quiet positions, where the static evaluation is what the search uses.

OUT holds, per position: the side to move's 32 input indices (768 pads an empty slot; the other
perspective's indices follow from them, see mirror_features), the search score and the game
result both from the side to move's view, the game's number (so validation can hold out whole
games), and whether the position has no castling rights (then its mirror image left to right is
as good a training position: tools/nnue_train.py --mirror). tools/nnue_train.py reads it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from packed_games import PackedGamesError, read_games  # noqa: E402

from ponderosa.engine.nnue.reference import features  # noqa: E402

PAD = 768
SLOTS = 32


def stm_features(board: chess.Board) -> list[int]:
    """Input indices seen from the side to move (the core's, as the reference computes them)."""
    return features(board, board.turn)


def mirror_features(indices: np.ndarray) -> np.ndarray:
    """The same pieces' indices from the other perspective (padding stays padding)."""
    relative, rest = np.divmod(indices, 384)
    piece_type, square = np.divmod(rest, 64)
    mirrored = (1 - relative) * 384 + piece_type * 64 + (square ^ 56)
    return np.where(indices == PAD, PAD, mirrored)


def flip_files(indices: np.ndarray) -> np.ndarray:
    """The same pieces with the board mirrored left to right (a-file <-> h-file)."""
    return np.where(indices == PAD, PAD, indices ^ 7)


def extract(paths: list[Path], skip_plies: int, max_score: int) -> dict[str, np.ndarray]:
    rows: list[list[int]] = []
    flippable: list[bool] = []
    scores: list[int] = []
    results: list[float] = []
    game_ids: list[int] = []
    game_number = 0
    for path in paths:
        for game in read_games(path):
            white_result = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}[game.result]
            board = chess.Board(game.start_fen)
            for ply, (move, score) in enumerate(zip(game.moves, game.scores)):
                if (ply >= skip_plies and abs(score) <= max_score and not board.is_check()
                        and not board.is_capture(move) and move.promotion is None):
                    active = stm_features(board)
                    rows.append(active + [PAD] * (SLOTS - len(active)))
                    scores.append(score)
                    results.append(white_result if board.turn == chess.WHITE else 1.0 - white_result)
                    game_ids.append(game_number)
                    flippable.append(not board.castling_rights)
                board.push(move)
            game_number += 1
    return {"features": np.array(rows, dtype=np.int16).reshape(-1, SLOTS),
            "scores": np.array(scores, dtype=np.int16),
            "results": np.array(results, dtype=np.float32),
            "games": np.array(game_ids, dtype=np.int32),
            "flippable": np.array(flippable, dtype=bool)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("games", type=Path, nargs="+", help="packed games files (tools/datagen.py --packed)")
    parser.add_argument("--skip-plies", type=int, default=8)
    parser.add_argument("--max-score", type=int, default=3000)
    args = parser.parse_args(argv)
    try:
        data = extract(args.games, args.skip_plies, args.max_score)
    except PackedGamesError as error:
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
