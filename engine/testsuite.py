"""Test suites: EPD files with bm/am, and Crafty's title/setboard/solution/end format."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

import chess

from ponderosa.engine.fen import FenError, validate_fen

# What python-chess's Board.from_epd gives for one operation.
EpdOperand = Union[None, str, int, float, chess.Move, list[chess.Move]]


class SuiteError(ValueError):
    """A test-suite file that cannot be read; the message names the file and the line."""


@dataclass
class TestPosition:
    title: str
    fen: str
    solutions: set[str] = field(default_factory=set)     # UCI moves that count as right
    avoid: set[str] = field(default_factory=set)         # UCI moves that count as wrong

    def is_right(self, move: str | None) -> bool:
        if move is None:
            return False
        if self.solutions:
            return move in self.solutions and move not in self.avoid
        return move not in self.avoid


def _san_set(board: chess.Board, words: list[str], where: str) -> set[str]:
    moves = set()
    for word in words:
        try:
            moves.add(board.parse_san(word.rstrip("?")).uci())
        except ValueError:
            raise SuiteError(f"{where}: {word!r} is not a legal move here") from None
    return moves


def _epd_moves(operations: Mapping[str, EpdOperand], opcode: str, where: str) -> set[str]:
    """The UCI moves of a bm or am operation. python-chess parses an unquoted operand as moves;
    a quoted or numeric one (`bm "e4"`, `bm 1`) comes back as a string or a number."""
    operand = operations.get(opcode, [])
    if not isinstance(operand, list):
        raise SuiteError(f"{where}: {opcode} {operand!r} is not a list of moves")
    return {move.uci() for move in operand}


def _read_epd_line(line: str, where: str) -> TestPosition:
    try:
        board, operations = chess.Board.from_epd(line)
    except ValueError as error:
        raise SuiteError(f"{where}: bad EPD: {error}") from None
    title = str(operations.get("id", where))
    best = _epd_moves(operations, "bm", where)
    avoid = _epd_moves(operations, "am", where)
    if not best and not avoid:
        raise SuiteError(f"{where}: the position has neither bm nor am")
    return TestPosition(title, board.fen(), best, avoid)


def _read_crafty(lines: list[str], path: Path) -> list[TestPosition]:
    positions: list[TestPosition] = []
    title = ""
    current: TestPosition | None = None
    for number, raw in enumerate(lines, 1):
        where = f"{path}:{number}"
        words = raw.split()
        if not words:
            continue
        command, args = words[0].lower(), words[1:]
        if command == "title":
            title = " ".join(args)
        elif command == "setboard":
            try:
                current = TestPosition(title or where, validate_fen(" ".join(args)))
            except FenError as error:
                raise SuiteError(f"{where}: {error}") from None
            positions.append(current)
            title = ""
        elif command == "solution":
            if current is None:
                raise SuiteError(f"{where}: solution before any setboard")
            board = chess.Board(current.fen)
            current.solutions |= _san_set(board, [w for w in args if not w.endswith("?")], where)
            current.avoid |= _san_set(board, [w for w in args if w.endswith("?")], where)
        elif command == "end":
            break
        else:
            raise SuiteError(f"{where}: unknown line {raw.strip()!r} in a Crafty-format suite")
    return positions


def read_suite(path: str | Path) -> list[TestPosition]:
    """Read either format, telling them apart by the first word of the first line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as error:
        raise SuiteError(f"cannot read {path}: {error.strerror}") from None
    first = next((line.split()[0].lower() for line in lines if line.strip()), None)
    if first is None:
        raise SuiteError(f"{path}: the file is empty")
    if first in ("title", "setboard"):
        return _read_crafty(lines, path)
    return [_read_epd_line(line, f"{path}:{n}") for n, line in enumerate(lines, 1) if line.strip()]
