"""Syzygy figures for docs/BENCHMARKS.md: WDL probes per second from the core (no GIL) beside
python-chess's prober on the same random 3-4 piece positions, and the search speed on a
5-piece endgame with and without the tables (same run, so the ratio is what counts).

    python -m tools.bench.syzygy [--positions 20000] [--seconds 5]
"""
from __future__ import annotations

import argparse
import random
import time

import chess
import chess.syzygy

from ponderosa.core_ext import core as syzygy  # the core's Syzygy probes
from ponderosa.core_ext.core import Board
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits

from tools import ROOT

TABLES = ROOT / "tests" / "data" / "syzygy"
ENDGAME = "8/8/8/4k3/8/4PK2/7r/R7 w - - 0 1"   # KRP v KR: 5 men, captures lead into the tables


def random_position(rng: random.Random, extra: int) -> chess.Board:
    """Two kings and `extra` random pieces, side to move at random, legal (side not to move not in check)."""
    while True:
        board = chess.Board(None)
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        squares = rng.sample(range(64), 2)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for _ in range(extra):
            piece = chess.Piece.from_symbol(rng.choice("QRBNPqrbnp"))
            free = [sq for sq in chess.SQUARES if board.piece_at(sq) is None
                    and not (piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7))]
            board.set_piece_at(rng.choice(free), piece)
        if board.is_valid():
            return board


def probe_rates(count: int) -> None:
    rng = random.Random(1)
    boards = [random_position(rng, rng.choice([1, 2])) for _ in range(count)]
    ours = [Board(board.fen()) for board in boards]
    syzygy.set_paths(str(TABLES))
    syzygy.bench_wdl(ours, 1)   # map the files and fill the cache once, as python-chess below
    probes, hits, seconds = syzygy.bench_wdl(ours, 5)
    core_rate = probes / seconds
    with chess.syzygy.open_tablebase(str(TABLES)) as tablebase:
        for board in boards:
            tablebase.probe_wdl(board)
        start = time.perf_counter()
        for board in boards:
            tablebase.probe_wdl(board)
        pc_rate = len(boards) / (time.perf_counter() - start)
    print(f"positions {count}, core hits {hits}/{probes}")
    print(f"core (nogil, cache {syzygy.cache_bytes() >> 20}M): {core_rate:,.0f} WDL probes/s")
    syzygy.set_cache(0)
    probes, hits, seconds = syzygy.bench_wdl(ours, 5)
    print(f"core (nogil, no cache): {probes / seconds:,.0f} WDL probes/s")
    syzygy.set_cache(4 << 20)
    print(f"python-chess {chess.__version__}: {pc_rate:,.0f} WDL probes/s "
          f"(core/python-chess = {core_rate / pc_rate:.0f}x)")


def search_speed(seconds: float) -> None:
    engine = Engine()
    engine.book.enabled = False
    for label, path in (("without tables", ""), ("with tables", str(TABLES)), ("without tables", "")):
        engine.settings.set_tablebase_path(path)
        engine.set_position(ENDGAME)
        engine.tt.clear()
        result = engine.think(SearchLimits.fixed_time(seconds))
        print(f"{ENDGAME} {label}: depth {result.depth}, {result.nodes / result.seconds:,.0f} nodes/s, "
              f"tbhits {engine.searcher.core.tbhits}, move {result.best_move}, score {result.score}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20000)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    probe_rates(args.positions)
    search_speed(args.seconds)


if __name__ == "__main__":
    main()
