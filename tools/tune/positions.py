"""The tuner's positions (tools/tune/texel.py): quiet positions drawn from PGN games, the `FEN;result`
files of --positions and --save-positions (tools/nnue/datagen.py and tools/tune/label.py write them too),
and the split that holds whole games out."""
from __future__ import annotations

import argparse
import lzma
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn

from ponderosa.core_ext.core import Board
from ponderosa.core_ext.position_set import is_quiet
from ponderosa.engine.records import write_atomically

RESULTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}


def open_text(path: Path):  # type: ignore[no-untyped-def]
    """A text file, read through xz when its name ends in .xz."""
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def positions_from_pgn(path: Path, max_games: int, per_game: int, skip_plies: int,
                       rng: random.Random) -> Iterator[tuple[str, float, int]]:
    """(FEN, White's result, game number) of up to per_game quiet positions of each decided or
    drawn game."""
    board = Board()
    games = 0
    with open_text(path) as handle:
        while games < max_games:
            try:
                game = chess.pgn.read_game(handle)
            except (ValueError, UnicodeDecodeError) as error:   # a broken game is skipped, named
                print(f"{path}: game {games + 1} skipped: {error}", file=sys.stderr)
                continue
            if game is None:
                return
            result = RESULTS.get(game.headers.get("Result", "*"))
            if result is None or game.errors:
                continue
            games += 1
            position = game.board()
            fens = []
            for ply, move in enumerate(game.mainline_moves()):
                position.push(move)
                if ply + 1 >= skip_plies:
                    fens.append(position.fen())
            rng.shuffle(fens)
            taken = 0
            for fen in fens:
                if taken == per_game:
                    break
                board.set_fen(fen)
                if is_quiet(board):
                    taken += 1
                    yield fen, result, games


def parse_position(path: Path, number: int, line: str) -> tuple[str, float]:
    """The FEN and White's result of a `FEN;result` line (number `number` of path); the result is
    1, 0.5, 0 or a label of tools/tune/label.py between them. A broken line stops with file and line."""
    fen, _, result = line.rpartition(";")
    try:
        value = float(result)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"result {result.strip()!r} is not between 0 and 1")
        chess.Board(fen.strip())
    except ValueError as error:
        raise SystemExit(f"{path}:{number}: {error}") from None
    return fen.strip(), value


def read_position_file(path: Path) -> Iterator[tuple[str, float, int]]:
    """`FEN;result` lines (result 1, 0.5 or 0 for White, or an expected score between them from
    tools/tune/label.py) with the number of the game each comes
    from: a line `# game` starts the next game (tools/nnue/datagen.py and --save-positions write one
    before each game's positions); in a file without such lines every position is a game of its
    own. A broken line stops with file and line."""
    game = 0
    marked = False   # whether the file has `# game` lines (then positions share their game's number)
    with open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.startswith("# game"):
                game += 1
                marked = True
                continue
            if not line.strip() or line.startswith("#"):
                continue
            fen, value = parse_position(path, number, line)
            yield fen, value, game
            if not marked:
                game += 1


def has_equal_material(fen: str) -> bool:
    """Both sides have the same number of pawns, knights, bishops, rooks and queens."""
    placement = fen.split()[0]
    return all(placement.count(piece) == placement.count(piece.upper()) for piece in "pnbrq")


Sample = tuple[str, float, int]   # FEN, White's result, number of its game


def collect(args: argparse.Namespace) -> list[Sample]:
    """The positions of every --positions file and --pgn, each game numbered apart."""
    rng = random.Random(args.seed)
    samples: list[Sample] = []

    def add(found: Iterator[Sample]) -> None:
        offset = samples[-1][2] + 1 if samples else 0
        samples.extend((fen, result, offset + game) for fen, result, game in found)

    for path in args.positions:
        add(read_position_file(path))
    for path in args.pgn:
        before = len(samples)
        add(positions_from_pgn(path, args.max_games, args.per_game, args.skip_plies, rng))
        print(f"{path}: {len(samples) - before} quiet positions", file=sys.stderr)
    if args.equal_material:
        samples = [sample for sample in samples if has_equal_material(sample[0])]
        print(f"{len(samples)} of them with equal material", file=sys.stderr)
    if args.save_positions:
        write_atomically(args.save_positions, positions_text(samples))
    return samples


def positions_text(samples: list[Sample]) -> str:
    """The `FEN;result` lines of --save-positions, a `# game` line before each game's positions."""
    lines: list[str] = []
    last = None
    for fen, result, game in samples:
        if game != last:
            lines.append("# game")
            last = game
        lines.append(f"{fen};{result:g}")
    return "".join(line + "\n" for line in lines)


def hold_out_games(samples: list[Sample], seed: int, share: float = 0.1) -> tuple[list[tuple[str, float]], int]:
    """The positions with the held-out ones first, and how many those are: whole games are held
    out (about `share` of the positions), so no game has positions on both sides of the split.
    (Positions of one game share its result; split one by one, the held-out error would reward
    learning the training games' results and choose too light a ridge.)"""
    by_game: dict[int, list[tuple[str, float]]] = {}
    for fen, result, game in samples:
        by_game.setdefault(game, []).append((fen, result))
    games = list(by_game.values())
    random.Random(seed).shuffle(games)
    ordered = [position for positions in games for position in positions]
    held = 0
    for positions in games[:-1]:   # the last game always trains
        held += len(positions)
        if held >= share * len(ordered):
            break
    return ordered, max(1, held)
