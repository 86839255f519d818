"""Perft speed of Ponderosa beside Stockfish's `go perft` and python-chess, in one run.

Usage:  python -m tools.bench.perft [--stockfish PATH] [--quick]
Prints a Markdown table for docs/BENCHMARKS.md. All three count leaves with bulk
counting (the last ply's legal moves are counted, not made). --quick uses one ply
less everywhere, for a check that the script works.
"""
from __future__ import annotations

import argparse
import platform
import shutil
import subprocess
import time

import chess

from ponderosa.core_ext.core import Board

POSITIONS = [
    ("start position", chess.STARTING_FEN, 6),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
]


def ponderosa_perft(fen: str, depth: int) -> tuple[int, float]:
    board = Board(fen)
    start = time.perf_counter()
    nodes = board.perft(depth)
    return nodes, time.perf_counter() - start


def python_chess_count(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_count(board, depth - 1)
        board.pop()
    return nodes


def python_chess_perft(fen: str, depth: int) -> tuple[int, float]:
    board = chess.Board(fen)
    start = time.perf_counter()
    nodes = python_chess_count(board, depth)
    return nodes, time.perf_counter() - start


def stockfish_perft(path: str, fen: str, depth: int) -> tuple[int, float]:
    """Time `go perft` alone: the engine is started and ready before the clock starts."""
    engine = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None

    def send(line: str) -> None:
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def wait_for(prefix: str) -> str:
        for line in engine.stdout:
            if line.startswith(prefix):
                return line
        raise RuntimeError(f"stockfish ended before {prefix!r}")

    send("uci")
    wait_for("uciok")
    send("setoption name Threads value 1")
    send(f"position fen {fen}")
    send("isready")
    wait_for("readyok")
    start = time.perf_counter()
    send(f"go perft {depth}")
    line = wait_for("Nodes searched")
    elapsed = time.perf_counter() - start
    send("quit")
    engine.wait(timeout=10)
    return int(line.split(":")[1]), elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    print(f"Machine: {platform.machine()}, Python {platform.python_version()}, python-chess {chess.__version__}")
    print()
    print("| position | depth | engine | nodes | seconds | Mnodes/s | Ponderosa's speed ÷ this |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, fen, depth in POSITIONS:
        depth -= 1 if args.quick else 0
        results = {
            "Ponderosa": ponderosa_perft(fen, depth),
            "Stockfish `go perft`": stockfish_perft(args.stockfish, fen, depth),
            "python-chess": python_chess_perft(fen, depth),
        }
        counts = {nodes for nodes, _ in results.values()}
        if len(counts) != 1:
            raise SystemExit(f"node counts differ for {name}: {results}")
        ours = results["Ponderosa"][0] / results["Ponderosa"][1]
        for engine, (nodes, seconds) in results.items():
            speed = nodes / seconds
            print(f"| {name} | {depth} | {engine} | {nodes:,} | {seconds:.3f} | {speed / 1e6:.2f} | "
                  f"{ours / speed:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
