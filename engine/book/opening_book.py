"""The opening book as the engine uses it: the large book and the start book merged per
position, the user-set values from the learned store, and the selection rules on top.

Files are opened here and only read; building them is `book_build`'s work, choosing among
the moves is `book_select`'s."""
from __future__ import annotations

import contextlib
import logging
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Union

import chess

from ponderosa.core_ext.core import Board, Evaluator
from ponderosa.engine.book.file import (
    FLAG_BAD,
    FLAG_GOOD,
    BookEntry,
    BookFileError,
    OpeningBookFile,
    PolyglotBookFile,
    open_book_file,
)
from ponderosa.engine.book.select import BookDecision, BookSettings, Candidate, RankedMove, choose, rank
from ponderosa.engine.learning.rules import POSTBOOK_MIN_ADVANTAGE, RESULT_LEARNED_VALUE, is_playable
from ponderosa.engine.learning.store import LearnedMove, LearnedStore
from ponderosa.engine.nnue.choice import EvaluationChoice

log = logging.getLogger("ponderosa.book")

LARGE_BOOK_NAME = "book.bin"     # Crafty's names: the large book and the start book
START_BOOK_NAME = "books.bin"
BOOK_EVAL_PAWN_HASH_BYTES = 64 * 1024

BookSource = Union[OpeningBookFile, PolyglotBookFile]


def packaged_book(name: str) -> Path | None:
    """A book shipped inside the package (read-only), if it is there."""
    try:
        path = resources.files("ponderosa.books").joinpath(name)
    except (ModuleNotFoundError, TypeError):
        return None
    return Path(str(path)) if path.is_file() else None


@dataclass(frozen=True)
class BookProbe:
    """What the book says in one position."""

    decision: BookDecision | None   # None: the position is not in the book
    move: str | None                # the move drawn, if the book plays one
    search_only: list[str] = field(default_factory=list)   # book random 0: search these moves
    seconds: float = 0.0

    @property
    def chance(self) -> float:
        """The chance the rules gave the move that was drawn (0 when none was)."""
        if self.decision is None or self.move is None:
            return 0.0
        return next((ranked.probability for ranked in self.decision.ranked if ranked.candidate.move == self.move), 0.0)

    def search_only_text(self, game: chess.Board | None = None) -> str:
        """The book moves shown when the engine searches among them (book random 0): search_only
        is set only from a book decision (OpeningBook.probe), so there is one to show."""
        assert self.decision is not None, "search_only without a book decision"
        return book_moves_text(self.decision, game)


def merge_entries(move: str, large: BookEntry | None, start: BookEntry | None,
                  user_value: int | None, learned: LearnedMove | None = None, evaluation: int = 0) -> Candidate:
    """One candidate from the two books' entries for a move. The flags are merged (Crafty: one
    entry per move, and a "?" anywhere wins); the counts come from the large book when it has
    the move; the start book's play percentage comes first."""
    counts = large if large is not None else start
    assert counts is not None
    flags = (large.flags if large else 0) | (start.flags if start else 0)
    if flags & FLAG_BAD:
        flags &= ~FLAG_GOOD
    play_percent = (start.play_percent if start and start.play_percent else
                    large.play_percent if large else 0)
    learned = learned or LearnedMove()
    return Candidate(move=move, games=counts.games, wins=counts.wins, draws=counts.draws,
                     losses=counts.losses, has_results=counts.has_results, flags=flags,
                     play_percent=play_percent, user_value=user_value,
                     learn=float(RESULT_LEARNED_VALUE) if learned.never else learned.value,
                     own_games=learned.own_games, own_score=learned.own_score, eval=evaluation)


class _NothingLearned:
    """An empty learned store that ignores writes: the book's reads and aging without one."""

    def user_values(self, key: int) -> dict[str, int]:
        return {}

    def learned_moves(self, key: int) -> dict[str, LearnedMove]:
        return {}

    def postbook_moves(self, key: int) -> list[Any]:
        return []

    def age_skipped(self, key: int, moves: Any) -> None:
        return None


class OpeningBook:
    """The large book, the start book and the selection settings."""

    def __init__(self, learned: LearnedStore, rng: random.Random | None = None) -> None:
        self.learned = learned
        self.rng = rng or random.Random()
        self.settings = BookSettings()
        self.enabled = True
        self.aging = False            # learning aging (paper 6.4): skipped moves' mild bad values fade
        self.large: BookSource | None = None
        self.start: BookSource | None = None
        # The static evaluation after a book move (bookw eval): the engine's evaluation once
        # follow() is told it, else the one the program starts with (the shipped network).
        self.evaluator = Evaluator(BOOK_EVAL_PAWN_HASH_BYTES)
        self._evaluation_known = False

    @contextlib.contextmanager
    def without_learned_data(self) -> Iterator[None]:
        """The book as if nothing had been learned (learned data that cannot be read now)."""
        learned, self.learned = self.learned, _NothingLearned()   # type: ignore[assignment]
        try:
            yield
        finally:
            self.learned = learned

    # -- files ------------------------------------------------------------------

    def open_defaults(self, folder: Path | None = None) -> list[str]:
        """book.bin and books.bin from the working directory, else the ones shipped with the
        engine. A file that cannot be used is reported and skipped: the engine plays on."""
        messages = []
        folder = folder or Path.cwd()
        for name, attach in ((LARGE_BOOK_NAME, self.use_book), (START_BOOK_NAME, self.use_start_book)):
            local = folder / name
            path = local if local.exists() else packaged_book(name)
            if path is None:
                continue
            try:
                attach(str(path))
            except BookFileError as error:
                messages.append(f"{error}; playing without it")
                log.warning("%s", error)
        return messages

    def use_book(self, path: str) -> None:
        """Use path (a Ponderosa book or a Polyglot .bin) as the large book; the book in use
        named again is kept open as it is (a GUI may send its options before every move)."""
        if not self._in_use("large", path):
            self._replace("large", open_book_file(path))

    def use_polyglot(self, path: str) -> None:
        if not self._in_use("large", path):
            self._replace("large", PolyglotBookFile.open(path))

    def use_start_book(self, path: str) -> None:
        if not self._in_use("start", path):
            self._replace("start", open_book_file(path))

    def _in_use(self, slot: str, path: str) -> bool:
        source = getattr(self, slot)
        if source is None:
            return False
        try:
            return os.path.samefile(source.path, os.path.expanduser(path))
        except OSError:   # either file gone or unreadable: open it anew (and say why if it fails)
            return False

    def _replace(self, slot: str, source: BookSource | None) -> None:
        old = getattr(self, slot)
        setattr(self, slot, source)
        if old is not None:
            old.close()

    def close(self) -> None:
        self._replace("large", None)
        self._replace("start", None)

    def close_slot_if(self, path: str) -> list[str]:
        """Let go of path wherever it is read (before a rebuild replaces the file); returns the
        slots ("large", "start") that had it, to reopen afterwards."""
        slots = []
        for slot in ("large", "start"):
            source = getattr(self, slot)
            if source is not None and Path(source.path).resolve() == Path(path).resolve():
                self._replace(slot, None)
                slots.append(slot)
        return slots

    def describe(self) -> list[str]:
        lines = []
        for title, source in (("book", self.large), ("start book", self.start)):
            if source is None:
                lines.append(f"{title}: none")
            else:
                lines.append(f"{title}: {source.path} ({source.kind})")
        lines.append(f"book {'on' if self.enabled else 'off'}, random {self.settings.random_mode}, "
                     f"width {self.settings.width}")
        return lines

    # -- probing ----------------------------------------------------------------

    def candidates(self, board: Board, evaluate: bool = True) -> list[Candidate]:
        """Every legal move the books know in this position, with its merged statistics and
        what was learned about it, and (evaluate) the static evaluation after it. SAN is left
        for display (book_table, book_moves_text) to fill in."""
        key = board.key
        merged: dict[str, BookEntry] = {}
        from_start: dict[str, BookEntry] = {}
        if self.large is not None:
            merged = {entry.move: entry for entry in self.large.entries(key)}
        if self.start is not None:
            from_start = {entry.move: entry for entry in self.start.entries(key)}
        if not merged and not from_start:
            return []
        user_values = self.learned.user_values(key)
        learned = self.learned.learned_moves(key)
        legal = set(board.legal_moves())
        result = []
        for move in {**merged, **from_start}:
            if move not in legal:
                continue   # a key collision or a damaged book: never offer an illegal move
            after = self._evaluate_after(board, move) if evaluate else 0
            result.append(merge_entries(move, merged.get(move), from_start.get(move), user_values.get(move),
                                        learned.get(move), after))
        return result

    def follow(self, evaluation: EvaluationChoice) -> None:
        """Evaluate book moves as the engine's searches do: with the network of its choice (an
        EvalFile or `eval classic` given later included)."""
        self._evaluation_known = True
        evaluation.share_with(self.evaluator)

    def _evaluate_after(self, board: Board, move: str) -> int:
        """The static evaluation after the move, from the mover's side (bookw eval)."""
        if not self._evaluation_known:   # read once, at the first book move evaluated
            self._evaluation_known = True
            EvaluationChoice(self.evaluator).load_default()
        board.push_uci(move)
        try:
            return -self.evaluator.evaluate(board)
        finally:
            board.pop()

    def decide(self, board: Board) -> BookDecision | None:
        candidates = self.candidates(board, evaluate=self.settings.weight_eval > 0)
        if not candidates:
            return None
        return rank(candidates, self.settings)

    def likely_move(self, board: Board) -> str | None:
        """The book's most played move in the position (the reply a ponder search expects after
        a book move), by the books' game counts alone: nothing is drawn, learned or aged."""
        if not self.enabled:
            return None
        candidates = self.candidates(board, evaluate=False)
        if not candidates:
            return None
        return max(candidates, key=lambda candidate: (candidate.games, candidate.move)).move

    def probe(self, board: Board, game: chess.Board) -> BookProbe:
        """The book's move for the position (or the moves to search, with book random 0); out of
        book, the PostBook's move if it has a good one."""
        started = time.perf_counter()
        if not self.enabled:
            return BookProbe(None, None)
        decision = self.decide(board)
        if decision is None:
            return self._postbook_probe(board, game, started)
        move = choose(decision, self.rng)
        search_only = list(decision.search_only) if move is None else []
        probe = BookProbe(decision, move, search_only, time.perf_counter() - started)
        if self.aging:   # every book move not played here was skipped once more
            skipped = [ranked.candidate.move for ranked in decision.ranked
                       if ranked.candidate.move != move and ranked.candidate.learn < 0]
            self.learned.age_skipped(board.key, skipped)
        if move is not None and log.isEnabledFor(logging.INFO):
            log.info("book move %s in %s from {%s}", move, game.fen(), book_moves_text(decision, game))
        elif search_only and log.isEnabledFor(logging.INFO):
            log.info("book search among {%s} in %s", " ".join(search_only), game.fen())
        return probe

    def _postbook_probe(self, board: Board, game: chess.Board, started: float) -> BookProbe:
        """Terra's PostBook: no random choice; the best of the moves that proved good (a score of
        at least half the points, a good evaluation, and not learned to be bad since)."""
        entries = self.learned.postbook_moves(board.key)
        if not entries:
            return BookProbe(None, None, seconds=time.perf_counter() - started)
        legal = set(board.legal_moves())
        learned = self.learned.learned_moves(board.key)
        good = [entry for entry in entries
                if entry.move in legal and entry.games and entry.points / entry.games >= 0.5
                and entry.eval >= POSTBOOK_MIN_ADVANTAGE
                and is_playable(learned[entry.move].value if entry.move in learned else None,
                                entry.move in learned and learned[entry.move].never, self.settings.learn_threshold)]
        if not good:
            return BookProbe(None, None, seconds=time.perf_counter() - started)
        best = max(good, key=lambda entry: (entry.points / entry.games, entry.eval, entry.move))
        candidate = Candidate(move=best.move, games=best.games,
                              wins=0, draws=0, losses=0, has_results=False, eval=best.eval)
        decision = BookDecision([RankedMove(candidate, 1.0, 1.0, "PostBook")], [])
        log.info("PostBook move %s in %s", best.move, game.fen())
        return BookProbe(decision, best.move, [], time.perf_counter() - started)


def _san(candidate: Candidate, game: chess.Board | None) -> str:
    if candidate.san or game is None:
        return candidate.san or candidate.move
    return game.san(chess.Move.from_uci(candidate.move))


def book_moves_text(decision: BookDecision, game: chess.Board | None = None) -> str:
    """Crafty's `book moves {...}` list: the moves that can be played (SAN from game)."""
    return ", ".join(_san(ranked.candidate, game) for ranked in decision.ranked if ranked.probability > 0)


def book_table(decision: BookDecision, game: chess.Board | None = None) -> list[str]:
    """`show book` / XBoard `bk`: every candidate with its statistics and sort value."""
    lines = [f"{'move':<8}{'games':>8}{'score':>7}{'W':>7}{'D':>7}{'L':>7}  flags  {'user':>4}{'learn':>7}"
             f"{'sort':>9}{'prob':>7}  status"]
    for ranked in decision.ranked:
        move = ranked.candidate
        flags = ("!" if move.flags & FLAG_GOOD else "") + ("?" if move.flags & FLAG_BAD else "")
        if move.play_percent:
            flags += f" {move.play_percent}%"
        user = "" if move.user_value is None else str(move.user_value)
        results = (f"{move.score_percent:>6.1f}%{move.wins:>7}{move.draws:>7}{move.losses:>7}"
                   if move.has_results else f"{'':>7}{'':>7}{'':>7}{'':>7}")
        lines.append(f"{_san(move, game):<8}{move.games:>8}{results}  {flags:<5}  {user:>4}{move.learn:>7.0f}"
                     f"{ranked.sort_value:>9.1f}{ranked.probability * 100:>6.1f}%  {ranked.status}")
    return lines
