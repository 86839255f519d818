"""Label tuning positions with a stronger engine's judgement, for tools/tune/texel.py.

Reads `FEN;result` files (tools/nnue/datagen.py, the tuner's --save-positions), has a UCI engine
(Stockfish by default) search each position to a node limit, turns its score into White's
expected score with Stockfish 15.1's win-draw-loss model at the position's ply (python-chess's
`sf15.1` model) and writes `FEN;label` with

    label = mix * game result + (1 - mix) * expected score

so the tuner's --positions fits the evaluation to the engine's view of each position as well as to
how its game ended. A game result says who won, not where the game turned, so every position of a
long game carries the same 1 or 0; a searched score says something about that position alone.
`# game` lines are kept, so the tuner still holds out whole games.

    python -m tools.tune.label positions.txt labelled.txt --nodes 4000 --mix 0.3 --workers 2

The output is written atomically once every position is labelled (a stopped run leaves no half file).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine

from ponderosa.engine.records import write_atomically

from tools.tune import positions as tune_positions  # the position files' reader

DEFAULT_ENGINE = "/usr/games/stockfish"
CHUNK = 200   # positions per task handed to a worker

_engine: chess.engine.SimpleEngine | None = None
_limit: chess.engine.Limit | None = None


def read_lines(path: Path) -> Iterator[tuple[str, str | None, float | None]]:
    """(line, FEN, result) for each line; FEN and result are None on `#` and blank lines, which
    are copied as they are. A broken line stops with file and line (tools/tune/positions.py's reader)."""
    with tune_positions.open_text(path) as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                yield line, None, None
                continue
            fen, value = tune_positions.parse_position(path, number, line)
            yield line, fen, value


def ply_of(board: chess.Board) -> int:
    return 2 * (board.fullmove_number - 1) + (board.turn == chess.BLACK)


def start_worker(engine_command: str, nodes: int, hash_mb: int) -> None:
    global _engine, _limit
    _engine = chess.engine.SimpleEngine.popen_uci(shlex.split(engine_command))
    _engine.configure({"Threads": 1, "Hash": hash_mb})
    _limit = chess.engine.Limit(nodes=nodes)


def expected_scores(fens: list[str]) -> list[float]:
    """White's expected score in each position by the engine's search."""
    assert _engine is not None and _limit is not None
    values = []
    for fen in fens:
        board = chess.Board(fen)
        # A new game for each position: the table of the last one must not colour this score.
        info = _engine.analyse(board, _limit, game=object())
        score = info["score"].white()
        values.append(score.wdl(model="sf15.1", ply=ply_of(board)).expectation())
    return values


def chunks(fens: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(fens), CHUNK):
        yield fens[start:start + CHUNK]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("positions", type=Path, help="`FEN;result` file to label")
    parser.add_argument("output", type=Path, help="`FEN;label` file to write")
    parser.add_argument("--engine", default=DEFAULT_ENGINE,
                        help=f"UCI engine's command line (default {DEFAULT_ENGINE})")
    parser.add_argument("--nodes", type=int, default=4000, help="nodes searched per position (default 4000)")
    parser.add_argument("--mix", type=float, default=0.3,
                        help="share of the game result in the label, the rest is the engine's (default 0.3)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                        help="engine processes side by side (default 2)")
    parser.add_argument("--hash", type=int, default=16, help="hash table of each engine in MB (default 16)")
    args = parser.parse_args(argv)
    if not args.positions.is_file():
        parser.error(f"{args.positions}: no such file")
    if not 0.0 <= args.mix <= 1.0:
        parser.error("--mix must lie between 0 and 1")
    if args.nodes < 1 or args.workers < 1:
        parser.error("--nodes and --workers must be positive")

    lines = list(read_lines(args.positions))
    try:   # started once here: a pool whose workers fail to start would restart them for ever
        chess.engine.SimpleEngine.popen_uci(shlex.split(args.engine)).quit()
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError) as error:
        raise SystemExit(f"{args.engine}: the engine did not start: {error}") from None
    fens = [fen for _, fen, _ in lines if fen is not None]
    print(f"{args.positions}: {len(fens)} positions, {args.nodes} nodes each, {args.workers} workers",
          file=sys.stderr)
    started = time.monotonic()
    labels: list[float] = []
    try:
        # Spawned, not forked: a fork copies the caller's threads' locks (python-chess's engine thread,
        # a test runner's), and a child that finds one held waits for ever.
        spawn = multiprocessing.get_context("spawn")
        with spawn.Pool(args.workers, start_worker, (args.engine, args.nodes, args.hash)) as pool:
            for values in pool.imap(expected_scores, chunks(fens)):
                labels.extend(values)
                if len(labels) % (CHUNK * 50) == 0:
                    rate = len(labels) / (time.monotonic() - started)
                    print(f"  {len(labels)} labelled, {rate:.0f} a second", file=sys.stderr)
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError) as error:
        raise SystemExit(f"{args.engine}: {error}") from None

    out = [f"# tools/tune/label.py: {args.engine}, {args.nodes} nodes, mix {args.mix:g}"]
    given = iter(labels)
    for line, fen, result in lines:
        if fen is None or result is None:
            out.append(line)
        else:
            out.append(f"{fen};{args.mix * result + (1.0 - args.mix) * next(given):.4f}")
    write_atomically(args.output, "\n".join(out) + "\n")
    minutes = (time.monotonic() - started) / 60
    print(f"{len(labels)} positions labelled in {minutes:.1f} min: {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
