"""The opening books and the three kinds of learning around the game: which book move to play,
what the engine learns from its moves and results, and the learned store they share. Learned data
that cannot be read or written (a full disk, a database gone away) is told once and the game
goes on without it."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from ponderosa.core_ext.core import LEARNED_ENTRY_DEPTH, TranspositionTable
from ponderosa.engine.book.maintenance import BookMaintenance
from ponderosa.engine.book.opening_book import BookProbe, OpeningBook
from ponderosa.engine.book.select import BookDecision
from ponderosa.engine.game_state import GameState
from ponderosa.engine.learning.learner import Learner
from ponderosa.engine.learning.rules import LEARN_POSITION, SearchSample
from ponderosa.engine.learning.store import LearnedStoreError, open_learned_store
from ponderosa.engine.limits import DEMOTE_THRESHOLD_RANGE
from ponderosa.engine.search import SearchResult
from ponderosa.engine.write_errors import WriteErrors

LEARN_SCORE_CAP = 2000   # learning keeps mate scores as a plain "won" (figure 2.1 caps at 600 anyway)


class BookLearning:
    """The book, the learner and the learned store, on the engine's game. Nothing of either is
    used in Chess960: their positions and moves are standard chess's."""

    def __init__(self, state: GameState, write_errors: WriteErrors) -> None:
        self.state = state
        self.write_errors = write_errors
        self.learned = open_learned_store()
        self.book = OpeningBook(self.learned)
        self.book_files = BookMaintenance(self.book)     # book create, merge, export, user values
        self.book_messages = self.book.open_defaults()   # files that could not be used, for the user
        self.learner = Learner(self.learned, self.book, Path.cwd(), self.write_errors)   # .lrn files beside it
        # The last book probe and the position it was made in: when the engine plays a move it
        # offered, the learner notes how many book moves were playable at that choice.
        self.last_probe: tuple[int, BookProbe] | None = None

    @contextlib.contextmanager
    def learning_may_fail(self) -> Iterator[None]:
        """Learned data that cannot be read or written is told once for the process; the store
        keeps what it had, since every write is one transaction."""
        try:
            yield
        except LearnedStoreError as error:
            self.write_errors.failed(f"the learned data {self.learned.location}", error.__cause__ or error)

    def note_own_move(self, uci: str, searched: SearchResult | None) -> None:
        """The engine chose uci here (searched, or from the book when searched is None)."""
        white = self.state.game.turn
        sample = None
        if searched is not None:
            score = max(-LEARN_SCORE_CAP, min(LEARN_SCORE_CAP, searched.score))
            sample = SearchSample(score if white else -score, searched.depth)
        playable = self._book_playable(uci)
        if self.state.chess960:
            return
        with self.learning_may_fail():
            self.learner.engine_moved([move.uci() for move in self.state.game.move_stack], uci, white, sample,
                                      playable)

    def _book_playable(self, uci: str) -> int | None:
        """How many book moves were playable when the book offered uci here (its move, or one of
        those book random 0 searched); None when the move was not the book's choice."""
        last, self.last_probe = self.last_probe, None
        if last is None:
            return None
        key, probe = last
        if key != self.state.board.key or probe.decision is None or uci not in (probe.move, *probe.search_only):
            return None
        return probe.decision.playable

    def game_over(self, result: str) -> None:
        """Learn from the finished game (once)."""
        if self.state.chess960:
            return
        with self.learning_may_fail():
            self.learner.game_over([move.uci() for move in self.state.game.move_stack], result)

    def use_learned_store(self, location: str) -> None:
        """Keep learned data in another SQLite file or a PostgreSQL database (gang learning); the
        store in use named again is kept as it is."""
        if location == self.learned.location:
            return
        store = open_learned_store(location)
        store.learned_moves(0)   # fails now, not in the middle of a game, if it cannot be used
        old, self.learned = self.learned, store
        self.book.learned = store
        self.learner.store = store
        old.close()

    def load_learned_positions(self, tt: TranspositionTable) -> None:
        """Position learning: the learned entries go into the hash table before every search,
        marked so that they cut even on the principal variation."""
        if not self.learner.mask & LEARN_POSITION or self.state.chess960:
            return
        try:
            entries = self.learned.learned_positions()
        except LearnedStoreError:
            return
        for entry in entries:
            tt.store(entry.key, 0, entry.score, LEARNED_ENTRY_DEPTH, entry.bound)

    def probe(self) -> BookProbe:
        """The book's move for the side to move (nothing when the book is off or has none)."""
        if self.state.chess960:
            return BookProbe(None, None)
        probe = None
        with self.learning_may_fail():
            probe = self.book.probe(self.state.board, self.state.game)
        if probe is None:   # the book alone, as if nothing had been learned
            with self.book.without_learned_data():
                probe = self.book.probe(self.state.board, self.state.game)
        self.last_probe = (self.state.board.key, probe)
        return probe

    def reply(self, after: str | None = None) -> str | None:
        """The book's most likely move here, or after the move `after`: the move to ponder on."""
        if self.state.chess960:
            return None
        board = self.state.board
        if after is not None:
            board = board.copy()
            board.push_uci(after)
        with self.learning_may_fail():
            return self.book.likely_move(board)
        return None

    @property
    def learn_threshold(self) -> int:
        """The learned value (centipawns) below which a book move is not playable (the paper's -80)."""
        return self.book.settings.learn_threshold

    @learn_threshold.setter
    def learn_threshold(self, centipawns: int) -> None:
        low, high = DEMOTE_THRESHOLD_RANGE
        if not low <= centipawns <= high:
            raise ValueError(f"the learning threshold must be {low}..{high} centipawns, got {centipawns}")
        self.book.settings.learn_threshold = centipawns

    def decision(self) -> BookDecision | None:
        """Every book move of the position with its statistics and chances (show book, bk, bstat)."""
        return None if self.state.chess960 else self.book.decide(self.state.board)

    def set_user_value(self, value: int | None) -> str:
        """Terra's bookeval on the move just played: 0..100, or None to clear; returns its SAN."""
        key, move = self.state.last_move_key()
        self.learned.set_user_value(key, move, value)
        board = self.state.game.copy()
        return board.san(board.pop())
