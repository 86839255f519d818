"""The engine facade: owns the position and answers the protocol layers' requests."""
from __future__ import annotations

import time
from dataclasses import dataclass

import chess

from ponderosa.core_ext.board import START_FEN, Board
from ponderosa.engine.fen import validate_fen


@dataclass(frozen=True)
class PerftResult:
    """Leaf nodes counted to a depth, and how long it took."""

    depth: int
    nodes: int
    seconds: float

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("inf")


@dataclass(frozen=True)
class PerfResult:
    """Crafty's `perf`: move generation speed alone, and with make/unmake of every move."""

    generated: int
    generate_seconds: float
    made: int
    make_seconds: float

    @property
    def generated_per_second(self) -> float:
        return self.generated / self.generate_seconds if self.generate_seconds > 0 else float("inf")

    @property
    def made_per_second(self) -> float:
        return self.made / self.make_seconds if self.make_seconds > 0 else float("inf")


class Engine:
    """Game state and the services on it; the protocol layers call these and format the results."""

    def __init__(self) -> None:
        self.board = Board(START_FEN)

    def new_game(self) -> None:
        self.board = Board(START_FEN)

    def set_position(self, fen: str) -> None:
        """Set up a position from a FEN; raises FenError (and keeps the old position) if it is bad."""
        self.board = Board(validate_fen(fen))

    def fen(self) -> str:
        return self.board.fen()

    @property
    def white_to_move(self) -> bool:
        return self.board.white_to_move

    @property
    def move_number(self) -> int:
        return int(self.board.fen().split()[5])

    def piece_at(self, square: int) -> str:
        """Piece letter on a square (a1=0 .. h8=63), uppercase for White, '' if empty."""
        return self.board.piece_at(square)

    def legal_moves(self) -> list[str]:
        return self.board.legal_moves()

    def san(self, uci: str) -> str:
        """A legal move of the current position in standard algebraic notation."""
        return chess.Board(self.board.fen()).san(chess.Move.from_uci(uci))

    def perft(self, depth: int) -> PerftResult:
        start = time.perf_counter()
        nodes = self.board.perft(depth)
        return PerftResult(depth, nodes, time.perf_counter() - start)

    def divide(self, depth: int) -> list[tuple[str, int]]:
        """Perft split by root move: (move in UCI, nodes below it)."""
        return self.board.divide(depth)

    def perf(self, seconds: float = 1.0) -> PerfResult:
        """Measure generation, then generation with make/unmake, each for about `seconds`."""
        return PerfResult(*self._timed(self.board.count_generated, seconds),
                          *self._timed(self.board.count_generated_made, seconds))

    @staticmethod
    def _timed(kernel, seconds: float) -> tuple[int, float]:
        """Run kernel(repetitions) with repetitions doubled until it lasts `seconds`."""
        repetitions = 1000
        while True:
            start = time.perf_counter()
            count = kernel(repetitions)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds or repetitions >= 1 << 40:
                return count, elapsed
            repetitions *= 2 if elapsed > seconds / 8 else 8
