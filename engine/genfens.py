"""Opening positions for data generation (OpenBench's `genfens`): from a seed, and optionally an
EPD book, positions reached by random legal plies, each legal, not over, new, and near balance by
a short search of the engine's own searcher. A pure function of its arguments, the network the
search evaluates with among them: the same seed gives the same lines (docs/GENFENS.md)."""
from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import chess

from ponderosa.core_ext.core import Board, Evaluator, Network, TranspositionTable
from ponderosa.engine.errors import EngineError
from ponderosa.engine.input_files import MAX_OPENINGS_BYTES, MIB, PathLike, open_lines
from ponderosa.engine.nnue.choice import EvaluationChoice
from ponderosa.engine.search import Searcher, SearchLimits

START_PLIES = (8, 9)      # from the start position: four or more moves of each side, either side on move
BOOK_PLIES = (2, 3)       # from a book position: the book already varies the opening
DEFAULT_MARGIN = 100      # centipawns: |score| of the check search, side to move's view
DEFAULT_NODES = 10_000    # the check search's node limit: a few milliseconds a position
MAX_PLIES = 200           # extra words asking more are cut to these bounds
MAX_MARGIN = 10_000
MAX_NODES = 10_000_000
TRIES = 64                # attempts outside the margin before the most balanced of them is taken
MAX_ATTEMPTS = 10_000     # attempts without one searched candidate: the book cannot give a new position
TABLE_BYTES = 1 * MIB     # the check search's own tables: small, since each is cleared per position
PAWN_TABLE_BYTES = 256 * 1024
SHIPPED = "shipped"       # opening_fens' network unless told: the one the program starts with


class GenfensError(EngineError):
    """A book that cannot give the positions asked for; str() is one line."""


@dataclass(frozen=True)
class GenfensOptions:
    """The words OpenBench passes after the book ("extra"), as far as they are understood."""

    plies: int | None = None      # random plies; None: 8 or 9 from the start, 2 or 3 from a book
    margin: int = DEFAULT_MARGIN
    nodes: int = DEFAULT_NODES

    @classmethod
    def from_words(cls, words: list[str]) -> GenfensOptions:
        """`plies N`, `margin CP`, `nodes N` (or NAME=VALUE), values cut to their bounds; any other
        word, or a value that is not a whole number, is passed over: OpenBench's extra words are
        free text that an engine takes what it knows from."""
        values: dict[str, int] = {}
        bounds = {"plies": (0, MAX_PLIES), "margin": (0, MAX_MARGIN), "nodes": (1, MAX_NODES)}
        flat = [part for word in words for part in word.split("=", 1)]
        for name, value in zip(flat, flat[1:]):
            low_high = bounds.get(name.lower())
            if low_high is not None and value.lstrip("-").isdigit():
                values[name.lower()] = max(low_high[0], min(low_high[1], int(value)))
        return cls(**values)


@dataclass(frozen=True)
class Opening:
    fen: str
    score: int        # the check search's score, side to move's view
    balanced: bool    # within the margin; False: the most balanced of TRIES attempts, none being within


def read_book(path: PathLike) -> list[str]:
    """The EPD book's position lines (blank lines and # comments left out), read through the input
    door: a device, FIFO, folder, binary or over-large file is refused as InputFileError."""
    with open_lines(path, "an EPD opening book", MAX_OPENINGS_BYTES) as lines:
        return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def book_board(line: str) -> chess.Board | None:
    """The position of an EPD line (4 fields and operations such as hmvc/fmvn, or a whole FEN);
    Chess960 when its castling rights need it; None when it is not a valid position."""
    fields = line.split()
    if len(fields) < 4:
        return None
    board = chess.Board(None, chess960=True)
    try:
        if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
            board.set_fen(" ".join(fields[:6]))
        else:
            board.set_epd(line)
    except ValueError:
        return None
    board.chess960 = board.has_chess960_castling_rights()
    return board if board.is_valid() else None


def random_plies(board: chess.Board, plies: int, rng: random.Random) -> bool:
    """Play `plies` uniformly random legal moves (in UCI order, so the line does not depend on a
    move generator's order); False when the game ends on the way."""
    for _ in range(plies):
        moves = sorted(board.legal_moves, key=chess.Move.uci)
        if not moves:
            return False
        board.push(rng.choice(moves))
    return True


def position_key(fen: str) -> str:
    """The position without its move counters: the same position twice is no new opening."""
    return " ".join(fen.split()[:4])


def is_over(board: chess.Board) -> bool:
    """Mate, stalemate, a draw by material, or a draw the fifty-move rule lets either side claim."""
    return board.is_game_over(claim_draw=False) or board.is_fifty_moves()


class _CheckSearch:
    """The engine's searcher on its own small tables, single-threaded, cleared before each
    position: the same position always gets the same score."""

    def __init__(self, nodes: int, network: Network | None | str) -> None:
        self.tt = TranspositionTable(TABLE_BYTES)
        self.evaluator = Evaluator(PAWN_TABLE_BYTES)
        if isinstance(network, str):   # SHIPPED: the shipped network, if the package has one
            EvaluationChoice(self.evaluator).load_default()
        else:
            self.evaluator.network = network
        self.searcher = Searcher(self.tt, self.evaluator)
        self.limits = SearchLimits(nodes=nodes)

    def score(self, board: chess.Board) -> int:
        self.tt.wipe()
        self.evaluator.clear()
        self.searcher.core.clear()
        return self.searcher.run(Board(board.fen(), board.chess960), self.limits).score


def opening_fens(count: int, seed: int, book: PathLike | None = None,
                 options: GenfensOptions = GenfensOptions(),
                 network: Network | None | str = SHIPPED) -> Iterator[Opening]:
    """`count` openings, each yielded as soon as found: from the start position (or a random
    position of the EPD book) after random plies, legal, not over, not given before, and searched
    to within the margin. Should TRIES attempts in a row all fall outside it, the most balanced of
    them is taken, so that the lines keep coming from a lopsided book. Raises InputFileError for a
    book the input door refuses and GenfensError for one that cannot give a position.

    The check search evaluates with network: an engine's (its Evaluator.network; None: the
    hand-written evaluation), by default the shipped one, the evaluation the program starts with."""
    lines = read_book(book) if book is not None else None
    if lines is not None and not any(book_board(line) is not None for line in lines):
        raise GenfensError(f"{book}: no valid position in the EPD book")
    rng = random.Random(seed)
    check = _CheckSearch(options.nodes, network)
    seen: set[str] = set()
    for _ in range(count):
        opening = _one_opening(rng, lines, options, check, seen)
        if opening is None:
            raise GenfensError(f"{book or 'the start position'}: no new playable position after "
                               f"{MAX_ATTEMPTS} attempts ({len(seen)} given)")
        seen.add(position_key(opening.fen))
        yield opening


def _one_opening(rng: random.Random, lines: list[str] | None, options: GenfensOptions, check: _CheckSearch,
                 seen: set[str]) -> Opening | None:
    """The first new candidate within the margin, else the most balanced of TRIES searched ones;
    None when MAX_ATTEMPTS give no new playable position at all."""
    best: Opening | None = None
    searched = 0
    for _ in range(MAX_ATTEMPTS):
        board = _candidate(rng, lines, options)
        if board is None or position_key(board.fen()) in seen:
            continue
        score = check.score(board)
        opening = Opening(board.fen(), score, abs(score) <= options.margin)
        if opening.balanced:
            return opening
        if best is None or abs(score) < abs(best.score):
            best = opening
        searched += 1
        if searched >= TRIES:
            return best
    return best


def _candidate(rng: random.Random, lines: list[str] | None, options: GenfensOptions) -> chess.Board | None:
    """A start (the initial position, or a random book line) after its random plies; None when
    the book line is not a position or the game is over."""
    if lines is None:
        board = chess.Board()
        plies = options.plies if options.plies is not None else rng.choice(START_PLIES)
    else:
        start = book_board(rng.choice(lines))
        if start is None:
            return None
        board = start
        plies = options.plies if options.plies is not None else rng.choice(BOOK_PLIES)
    if not random_plies(board, plies, rng) or is_over(board):
        return None
    return board
