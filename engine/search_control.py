"""Search control: the tables, the evaluation, the search threads and the strength level, and the
searches the engine runs on its game, blocking (think) or on the search thread (start, ponder).
Settings a running search uses change at its end (engine/settings.py)."""
from __future__ import annotations

import threading
from collections.abc import Collection
from typing import Callable

from ponderosa.core_ext.core import Board, Evaluator, TranspositionTable
from ponderosa.engine.book.opening_book import BookProbe
from ponderosa.engine.limits import DEFAULT_HASH_BYTES, DEFAULT_PAWN_HASH_BYTES, DEFAULT_SECONDS_PER_MOVE
from ponderosa.engine.nnue.choice import EvaluationChoice
from ponderosa.engine.search import Searcher, SearchLimits, SearchResult, Thinking
from ponderosa.engine.settings import SearchSettings
from ponderosa.engine.strength import LevelSearch, StrengthLevel
from ponderosa.engine.tablebases import Tablebases
from ponderosa.engine.worker import HelperPool, SearchWorker

BOOK_SEARCH_TIME_DIVISOR = 4   # book random 0 searches the book moves in a quarter of the usual time

Finished = Callable[[int, SearchResult], None]
OnThinking = Callable[[Thinking], None]


def _divided(seconds: float | None, divisor: float) -> float | None:
    return None if seconds is None else seconds / divisor


class SearchControl:
    """What searches, and the searches themselves."""

    def __init__(self, end_search: Callable[[], None]) -> None:
        self.tt = TranspositionTable(DEFAULT_HASH_BYTES)
        self.evaluator = Evaluator(DEFAULT_PAWN_HASH_BYTES)
        self.searcher = Searcher(self.tt, self.evaluator)
        self.strength = StrengthLevel()           # UCI_LimitStrength/UCI_Elo, skill: full strength until set
        self.evaluation = EvaluationChoice(self.evaluator)   # the network (EvalFile) or the hand-written evaluation
        self.evaluation_messages = self.evaluation.load_default()   # for the front end to show
        self.tablebases = Tablebases()            # no path until egtb/tbpath/egtpath/SyzygyPath
        self.searcher.tablebases = self.tablebases
        self.worker = SearchWorker(self.searcher)
        self.helpers = HelperPool(self.searcher, self.evaluator)   # threads beside the main search thread
        self.searcher.helpers = self.helpers
        # Fault the hash table's pages in beside start-up rather than in the first search (a
        # resized table is faulted in before the answer: engine/settings.py).
        self._prefault = threading.Thread(target=self.tt.prefault, name="hash-prefault", daemon=True)
        self._prefault.start()
        # Hash, pawn hash, threads, tablebases, the network: asked for during a search, they wait for its end.
        self.settings = SearchSettings(self.searcher, self.evaluator, self.helpers, self.tablebases, self.evaluation,
                                       searching=lambda: self.worker.busy, end_search=end_search,
                                       before_table_change=self._prefault.join)

    @staticmethod
    def limits(depth: int | None, seconds: float | None, nodes: int | None) -> SearchLimits:
        """The limits of sd, st and sn; with none of them, a default time per move."""
        if seconds is None and depth is None and nodes is None:
            seconds = DEFAULT_SECONDS_PER_MOVE
        if seconds is None:
            return SearchLimits(depth=depth, nodes=nodes)
        return SearchLimits.fixed_time(seconds, depth=depth, nodes=nodes)

    def think(self, board: Board, limits: SearchLimits, on_thinking: OnThinking | None,
              should_continue: Callable[[int, str], bool] | None, excluded: Collection[str],
              threads: int | None, at_level: bool) -> SearchResult:
        """Search board (blocking); at_level: a game move, played at the strength level when one is set."""
        self.settings.before_search()
        if at_level and self.strength.limited:
            level = LevelSearch(self.strength, limits, on_thinking)
            return level.choose(self.searcher.run(board, level.limits, level.collector, should_continue,
                                                  excluded=excluded, threads=threads, multi_pv=level.lines))
        return self.searcher.run(board, limits, on_thinking, should_continue, excluded=excluded, threads=threads)

    @staticmethod
    def book_search(probe: BookProbe, limits: SearchLimits, legal: list[str]) -> tuple[SearchLimits, set[str]]:
        """Crafty's book random 0: only the book moves, in a shorter time; (limits, moves left out)."""
        shorter = SearchLimits(depth=limits.depth, nodes=limits.nodes,
                               soft_seconds=_divided(limits.soft_seconds, BOOK_SEARCH_TIME_DIVISOR),
                               hard_seconds=_divided(limits.hard_seconds, BOOK_SEARCH_TIME_DIVISOR))
        return shorter, set(legal) - set(probe.search_only)

    def start(self, board: Board, limits: SearchLimits, on_thinking: OnThinking | None, on_finished: Finished,
              excluded: Collection[str] = (), ponder_move: str | None = None) -> int:
        """Search board on the search thread (a running search is stopped first), at the strength
        level when one is set (analysis stays at full strength; pondering does not make a level
        stronger); returns the search's serial number, which on_finished receives."""
        self.worker.stop()
        self.settings.before_search()
        if self.strength.limited and (ponder_move is not None or not limits.open_ended):
            level = LevelSearch(self.strength, limits, on_thinking)
            return self.worker.start(board, level.limits, level.collector, level.on_finished(on_finished),
                                     excluded, ponder_move=ponder_move, multi_pv=level.lines)
        return self.worker.start(board, limits, on_thinking, on_finished, excluded, ponder_move=ponder_move)

    def end(self) -> None:
        """Stop the search on the search thread and wait for it and for its helper threads."""
        self.worker.stop()
        self.searcher.park_helpers()

    def clear(self) -> None:
        """A new game: the table and the search statistics start afresh (helpers parked first)."""
        self.helpers.clear()
        self.tt.clear()
        self.searcher.core.clear()

    def score_breakdown(self, board: Board) -> tuple[int, list[tuple[str, int, int, int]], int | None]:
        """The hand-written evaluation from White's side and its terms (name, White, Black, net),
        and the network's score from White's side when the searches use one (else None)."""
        white = 1 if board.white_to_move else -1
        total = self.evaluator.classic_evaluate(board) * white
        network = self.evaluator.evaluate(board) * white if self.evaluation.active else None
        return total, self.evaluator.breakdown(board), network
