"""Settings a running search uses: the hash and pawn hash sizes, the search threads, the
tablebases and the evaluation (a network file). The rule for every front end: asked for during a
search, pondering included, a change waits for its end and is applied before anything else
searches (apply_pending_settings reports what was applied)."""
from __future__ import annotations

from typing import Callable, TypeVar

from ponderosa.core_ext.core import Evaluator
from ponderosa.engine.limits import DEFAULT_PAWN_HASH_BYTES, MAX_THREADS, MEGABYTE
from ponderosa.engine.nnue.choice import EvaluationChoice
from ponderosa.engine.option_table import OptionError
from ponderosa.engine.pending import AppliedSettings, PendingSettings
from ponderosa.engine.search import Searcher
from ponderosa.engine.tablebases import Tablebases
from ponderosa.engine.worker import HelperPool

T = TypeVar("T")


class ResourceError(OptionError):
    """Memory or threads the machine would not give; what the engine had is kept, and the message
    (one line) says what was asked for and what is kept."""


def _megabytes(size_bytes: int) -> str:
    return f"{size_bytes // MEGABYTE} MB" if size_bytes >= MEGABYTE else f"{size_bytes} bytes"


class SearchSettings:
    def __init__(self, searcher: Searcher, evaluator: Evaluator, helpers: HelperPool, tablebases: Tablebases,
                 evaluation: EvaluationChoice, searching: Callable[[], bool], end_search: Callable[[], None],
                 before_table_change: Callable[[], None]) -> None:
        self.searcher = searcher
        self.tt = searcher.tt
        self.evaluator = evaluator
        self.helpers = helpers
        self.tablebases = tablebases
        self.evaluation = evaluation
        self._searching = searching
        self._end_search = end_search
        self._before_table_change = before_table_change
        self.pawn_hash_bytes = DEFAULT_PAWN_HASH_BYTES
        self.hash_request = self.tt.size     # the size last asked for and had (the table rounds it down)
        self.pending = PendingSettings()     # asked for during a search: applied at its end
        self._applied = AppliedSettings()    # applied since the front end last asked

    def set_hash_size(self, size_bytes: int) -> int:
        """Resize the transposition table; returns its size in bytes (the old one while the
        change waits for a running search's end). ResourceError when the memory cannot be had:
        the old table is kept. The size in use asked for again changes nothing (a GUI may send it
        before every move) and drops a different size that waited."""
        if size_bytes == self.hash_request:
            self.pending.hash_bytes = None   # a different size that waited is asked back
            return self.tt.size
        if self._searching():
            self.pending.hash_bytes = size_bytes
        else:
            self.pending.hash_bytes = None   # an older request that waited is replaced
            self._resize_hash(size_bytes)
        return self.tt.size

    def set_pawn_hash_size(self, size_bytes: int) -> None:
        """Size the pawn hash tables (the main thread's and every helper's); during a search, at its
        end. ResourceError when the memory cannot be had: the old tables are kept. The size in use
        again changes nothing."""
        if size_bytes == self.pawn_hash_bytes:
            self.pending.pawn_hash_bytes = None
            return
        if self._searching():
            self.pending.pawn_hash_bytes = size_bytes
        else:
            self.pending.pawn_hash_bytes = None
            self._resize_pawn_hash(size_bytes)

    def set_threads(self, threads: int) -> bool:
        """Start or end helper threads; True if done now, False if it waits for a running search's
        end or is the count in use already (nothing to do, nothing to report). Raises ValueError
        for a count out of range (at once, also during a search)."""
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be between 1 and {MAX_THREADS}")
        if threads == self.helpers.threads:
            self.pending.threads = None   # a different count that waited is asked back
            return False
        if self._searching():
            self.pending.threads = threads
            return False
        self.pending.threads = None
        self._resize_threads(threads)
        return True

    def set_tablebase_path(self, path: str) -> list[str] | None:
        """Use the Syzygy tables in path; returns messages about what could not be used, or None
        while the change waits for a running search's end (apply_pending_settings reports them)
        or the path is the one in use (nothing is reopened)."""
        if path.strip() == self.tablebases.path:
            self.pending.tablebase_path = None
            return None
        if self._searching():
            self.pending.tablebase_path = path
            return None
        self.pending.tablebase_path = None
        return self.tablebases.set_path(path)

    def set_eval_file(self, name: str) -> list[str] | None:
        """Evaluate with the network in the file ('<default>': the shipped one); returns messages
        about what could not be used, or None while the change waits for a running search's end
        or the file is the network in use (nothing is read again, the table is kept)."""
        if self.evaluation.in_use_from(name):
            self.pending.eval_file = None
            return None
        if self._searching():
            self.pending.eval_file = name
            return None
        self.pending.eval_file = None
        return self._change_evaluation(self.evaluation.set_file, name)

    def clear_tables(self) -> bool:
        """Empty the transposition table and the search statistics; True if done now, False if it
        waits for a running search's end."""
        if self._searching():
            self.pending.clear_tables = True
            return False
        self.pending.clear_tables = False
        self._clear_tables()
        return True

    def _clear_tables(self) -> None:
        self.tt.clear()
        self.searcher.core.clear()

    def set_eval_mode(self, mode: str) -> str:
        """`nnue` or `classic` (the console's `eval`); stops a running search first."""
        self._end_search()
        return self._change_evaluation(self.evaluation.set_mode, mode)

    def _change_evaluation(self, change: Callable[[str], T], argument: str) -> T:
        # Stored static evaluations belong to the old evaluation: the table starts afresh.
        self.searcher.park_helpers()
        result = change(argument)
        self._clear_tables()
        return result

    def set_tablebase_cache(self, size_bytes: int) -> int:
        """Size the tablebase value cache; returns its size in bytes (the old one while the change
        waits for a running search's end); the size in use again changes nothing."""
        if size_bytes == self.tablebases.cache_bytes:
            self.pending.tablebase_cache_bytes = None
            return size_bytes
        if self._searching():
            self.pending.tablebase_cache_bytes = size_bytes
            return self.tablebases.cache_bytes
        self.pending.tablebase_cache_bytes = None
        return self.tablebases.set_cache(size_bytes)

    def apply_pending_settings(self) -> AppliedSettings:
        """Apply what waited for the search's end, unless a search runs (then it waits on); returns
        what was applied since the last call, this one's or a search start's, for the front end."""
        if not self._searching():
            self._apply_pending()
        applied, self._applied = self._applied, AppliedSettings()
        return applied

    def before_search(self) -> None:
        """No search starts with a change still waiting (the front end's next
        apply_pending_settings reports it)."""
        if not self._searching():
            self._apply_pending()

    def _apply_pending(self) -> None:
        """The waiting changes, in order: tables first, then threads, then the tablebases."""
        pending, self.pending = self.pending, PendingSettings()
        for size, resize in ((pending.hash_bytes, self._resize_hash), (pending.pawn_hash_bytes, self._resize_pawn_hash),
                             (pending.threads, self._resize_threads)):
            if size is not None:
                try:
                    resize(size)
                except ResourceError as error:   # said by the front end; the old table or threads are kept
                    self._applied.resource_messages.append(str(error))
        if pending.threads is not None:
            self._applied.threads = True
        if pending.clear_tables:
            self._clear_tables()
        if pending.tablebase_cache_bytes is not None:
            self.tablebases.set_cache(pending.tablebase_cache_bytes)
        if pending.eval_file is not None:
            self._applied.evaluation_messages = self._change_evaluation(self.evaluation.set_file, pending.eval_file)
        if pending.tablebase_path is not None:
            # Problems the old tables showed in the search are reported before set_path forgets them.
            messages = self.tablebases.new_problems() + self.tablebases.set_path(pending.tablebase_path)
            self._applied.tablebase_messages = (self._applied.tablebase_messages or []) + messages

    def _resize_hash(self, size_bytes: int) -> None:
        self._before_table_change()   # the start-up prefault must not touch the old table after resize unmaps it
        self.searcher.park_helpers()   # nor may a helper still stopping
        try:
            self.tt.resize(size_bytes)   # maps the new table before it lets the old one go
        except MemoryError:
            raise ResourceError(f"cannot allocate a hash table of {_megabytes(size_bytes)}; "
                                f"keeping the {_megabytes(self.tt.size)} table") from None
        self.hash_request = size_bytes
        # Fault the new pages in now, before the answer (UCI's readyok, XBoard's pong), as
        # Stockfish clears its table: else the first searches after a resize pay for them, and a
        # prefault beside a search stalls it on the kernel's work for huge pages (measured: 689
        # nodes a second in the first search after Hash 1024 with the prefault on another thread).
        self.tt.prefault()

    def _resize_pawn_hash(self, size_bytes: int) -> None:
        old = self.pawn_hash_bytes
        try:
            self.evaluator.set_pawn_hash(size_bytes)   # each table is allocated anew, the old one kept on failure
            self.helpers.set_pawn_hash(size_bytes)
        except MemoryError:
            self.evaluator.set_pawn_hash(old)          # all alike again, at the size they had
            self.helpers.set_pawn_hash(old)
            raise ResourceError(f"cannot allocate a pawn hash of {_megabytes(size_bytes)}; "
                                f"keeping the {_megabytes(old)} one") from None
        self.pawn_hash_bytes = size_bytes

    def _resize_threads(self, threads: int) -> None:
        old = self.helpers.threads
        try:
            self.helpers.resize(threads)
        except (MemoryError, RuntimeError):   # RuntimeError: "can't start new thread"
            started = self.helpers.threads
            # Back to the count it had: threads that filled the memory would leave none for the
            # thread each search starts.
            self.helpers.resize(min(old, started))
            raise ResourceError(f"could start only {started} of {threads} search threads; "
                                f"keeping {self.helpers.threads}") from None
