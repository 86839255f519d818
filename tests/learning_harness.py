"""The book-learning paper's experiment for the learning tests: its book (section 5), the engine and
its opponent as the paper sets them up, and games played in-process until the engine has learned
from its first searches out of book."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess

from ponderosa.core_ext.core import Board
from ponderosa.engine.book.build import create_book
from ponderosa.engine.engine import Engine
from ponderosa.engine.learning.rules import (
    SEARCHES_REMEMBERED,
    is_playable,
)
from ponderosa.engine.learning.store import LearnedMove
from ponderosa.engine.search import SearchLimits, SearchResult

# The paper's section 5 book: three "bad line" games (4. Nc3 drops the bishop) with three
# different sixth moves, and the normal line.
PAPER_BOOK = """
[Event "this is a bad line"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Nc3 axb5 5. Nxb5 Nf6 6. Nc3 Bb4 7. d3 O-O 8. O-O 1-0

[Event "this is a bad line"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Nc3 axb5 5. Nxb5 Nf6 6. d3 1-0

[Event "this is a bad line"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Nc3 axb5 5. Nxb5 Nf6 6. O-O 1-0

[Event "this is the normal line"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 1-0
"""
AFTER_3_A6 = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
AFTER_5_NF6 = AFTER_3_A6 + ["b1c3", "a6b5", "c3b5", "g8f6"]
SIXTH_MOVES = ["b5c3", "d2d3", "e1g1"]   # 6. Nc3, 6. d3, 6. O-O: one game each, so tried in book order
ENGINE_DEPTH = 12     # figure 2.1 calls ten plies "normal"; twelve trust the value 1.2 times
# The paper's "very shallow" search: figure 2.1 keeps 40% of what four plies saw. (At five plies,
# since razoring, the first two games' values take 4. Nc3 below -80 after game 2, not game 3.)
SHALLOW_DEPTH = 4
OPPONENT_DEPTH = 8    # a weaker opponent would hand material back and blur what the book line cost


def board_after(moves: list[str]) -> Board:
    board = Board()
    for move in moves:
        board.push_uci(move)
    return board


def first_playable_settings(engine: Engine) -> None:
    """The paper's 5.1 setting: the most frequent playable book move (ties in book order)."""
    settings = engine.book.settings
    settings.random_mode, settings.width = 1, 1
    settings.weight_freq, settings.weight_ratio, settings.weight_eval, settings.weight_learn = 1.0, 0.0, 0.0, 0.0


def learned_value_first_settings(engine: Engine) -> None:
    """The paper's 5.2 setting: the playable move with the highest learned value; where the learned
    values do not differ (nothing learned yet), the most frequent. Book random 1 maps each term onto
    0..1000 and a term that does not differ adds nothing, so a frequency weight below the learn
    weight breaks ties only."""
    settings = engine.book.settings
    settings.random_mode, settings.width = 1, 1
    settings.weight_freq, settings.weight_ratio, settings.weight_eval, settings.weight_learn = 0.5, 0.0, 0.0, 1.0


def paper_engine(folder: Path) -> Engine:
    create_book([str(write(folder / "paper.pgn", PAPER_BOOK))], str(folder / "book.bin"), 60)
    engine = Engine()
    engine.book.close()
    engine.book.use_book(str(folder / "book.bin"))
    first_playable_settings(engine)
    return engine


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def paper_opponent() -> Engine:
    """The opponent of the experiments: no book of its own, learns nothing."""
    opponent = Engine()
    opponent.book.enabled = False
    opponent.learner.mask = 0
    return opponent


Search = Callable[[Engine], SearchResult]


def searching(depth: int) -> Search:
    """The engine's own search to the depth."""
    return lambda engine: engine.think(SearchLimits(depth=depth))


ENGINE_SEARCH = searching(ENGINE_DEPTH)


def scripted(score: int, depth: int) -> Search:
    """A stand-in for the engine's search: a one-ply search picks the move, and the result says it
    scored `score` (the engine's view) at `depth`, so learning sees exactly these values."""
    def search(engine: Engine) -> SearchResult:
        found = engine.think(SearchLimits(depth=1))
        return SearchResult(found.best_move, score, depth, found.nodes, found.seconds, found.pv)
    return search


def play_learning_game(engine: Engine, opponent: Engine, engine_white: bool = True,
                       max_plies: int = 80, search: Search = ENGINE_SEARCH,
                       opponent_depth: int = OPPONENT_DEPTH) -> list[str]:
    """Play one game: the engine from its book and then by search; the opponent follows the book's
    only move where there is one, and searches otherwise. Stops once the engine has learned from
    its first ten searches out of book. Returns the moves."""
    engine.new_game()
    opponent.new_game()
    opponent_limits = SearchLimits(depth=opponent_depth)
    searches = 0
    while len(engine.game.move_stack) < max_plies and searches < SEARCHES_REMEMBERED:
        if engine.outcome() is not None:
            break
        if (engine.game.turn == chess.WHITE) == engine_white:
            probe = engine.book_probe()
            if probe.move is not None:
                engine.play_own_move(probe.move)
            else:
                result = search(engine)
                assert result.best_move is not None
                engine.play_own_move(result.best_move, result)
                searches += 1
            move = engine.game.peek().uci()
        else:
            book_moves = [candidate.move for candidate in engine.book.candidates(engine.board, evaluate=False)]
            move = book_moves[0] if len(book_moves) == 1 else opponent.think(opponent_limits).best_move
            assert move is not None
            engine.make_move(move)
        opponent.make_move(move)
    return [move.uci() for move in engine.game.move_stack]


def learned_value(engine: Engine, moves: list[str], move: str) -> float:
    learned = engine.books.learned.learned_moves(board_after(moves).key)
    return learned[move].value if move in learned else 0.0


@dataclass
class PaperGame:
    """One game of the experiment as the engine (White) played it, and what was learned at its two
    choices of move once the game was over."""

    moves: list[str]
    at_4: dict[str, LearnedMove]   # White's 4th move (after 3...a6)
    at_6: dict[str, LearnedMove]   # White's 6th move (after 5...Nf6)

    @property
    def fourth(self) -> str:
        return self.moves[6]

    @property
    def sixth(self) -> str | None:
        """The 6th move of a game through 4. Nc3, while the book has one."""
        return self.moves[10] if self.moves[:10] == AFTER_5_NF6 and len(self.moves) > 10 else None

    def value(self, at: dict[str, LearnedMove], move: str) -> float:
        return at[move].value if move in at else 0.0

    def playable(self, at: dict[str, LearnedMove], move: str, threshold: float) -> bool:
        learned = at.get(move)
        return learned is None or (not learned.never and is_playable(learned.value, threshold=threshold))


def play_paper_games(engine: Engine, opponent: Engine, games: int, *, lost: bool = False,
                     search: Search = ENGINE_SEARCH, opponent_depth: int = OPPONENT_DEPTH) -> list[PaperGame]:
    """The experiment's games, one after the other, each stopped once the engine has learned from
    its first ten searches out of book; lost: the engine is then told it lost (resigned or mated)."""
    played = []
    for _ in range(games):
        moves = play_learning_game(engine, opponent, search=search, opponent_depth=opponent_depth)
        if lost:
            engine.finish_game("0-1")
        played.append(PaperGame(moves, engine.books.learned.learned_moves(board_after(AFTER_3_A6).key),
                                engine.books.learned.learned_moves(board_after(AFTER_5_NF6).key)))
    return played
