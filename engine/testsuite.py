"""Test suites: EPD files with bm/am, and Crafty's title/setboard/solution/end format."""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

import chess

from ponderosa.engine.errors import EngineError
from ponderosa.engine.fen import FenError, validate_fen
from ponderosa.engine.input_files import MAX_SUITE_BYTES, InputFileError, open_lines

# What python-chess's Board.from_epd gives for one operation.
EpdOperand = Union[None, str, int, float, chess.Move, list[chess.Move]]


class SuiteError(EngineError):
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


def _read_crafty(lines: Iterable[tuple[int, str]], path: Path) -> list[TestPosition]:
    """The positions of a Crafty-format suite from its (line number, non-empty line) pairs."""
    positions: list[TestPosition] = []
    title = ""
    current: TestPosition | None = None
    for number, raw in lines:
        where = f"{path}:{number}"
        words = raw.split()
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
    """Read either format, telling them apart by the first word of the first line. The file is
    read line by line through the input door (a regular file of at most MAX_SUITE_BYTES)."""
    path = Path(path)
    try:
        with open_lines(path, "a test suite", MAX_SUITE_BYTES) as stream:
            lines = (line.rstrip("\n") for line in stream)
            numbered = ((n, line) for n, line in enumerate(lines, 1) if line.strip())
            first = next(numbered, None)
            if first is None:
                raise SuiteError(f"{path}: the file is empty")
            rest = itertools.chain([first], numbered)
            if first[1].split()[0].lower() in ("title", "setboard"):
                return _read_crafty(rest, path)
            return [_read_epd_line(line, f"{path}:{n}") for n, line in rest]
    except InputFileError as error:
        raise SuiteError(str(error)) from None
    except OSError as error:
        raise SuiteError(f"{path}: cannot be read: {error.strerror or error}") from None
