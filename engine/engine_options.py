"""The engine's settings as the front ends change them (Engine.options): the hash tables, the
search threads, the tablebases and the evaluation, which a running search uses and so change at
its end (engine/settings.py has the rule), and the opening book and learning, which change at
once. The front ends name a setting here; how the engine keeps it is its own affair."""
from __future__ import annotations

from dataclasses import dataclass, fields

from ponderosa.engine.book.select import BookSettings
from ponderosa.engine.book_learning import BookLearning
from ponderosa.engine.pending import AppliedSettings
from ponderosa.engine.settings import SearchSettings
from ponderosa.engine.tablebases import Tablebases

# The book selection's knobs by name (`book width`, `bookw freq`, Terra's `booklimit`, BookWidth, ...).
BOOK_SETTINGS = tuple(field.name for field in fields(BookSettings))


@dataclass
class EngineSummary:
    """The engine's working set-up, as the start-up banner shows it."""

    hash_bytes: int
    pawn_hash_bytes: int
    books: dict[str, tuple[str, int]]   # "opening book" / "start book": (file, positions)
    learned_location: str
    threads: int
    tablebases: tuple[str, int] | None = None   # (path, most pieces of a table found), when tables are in use


class EngineOptions:
    def __init__(self, settings: SearchSettings, books: BookLearning, tablebases: Tablebases) -> None:
        self._settings = settings
        self._books = books
        self._book = books.book
        self._learner = books.learner
        self._tablebases = tablebases

    def summary(self) -> EngineSummary:
        """What the engine runs with, for the start-up banner."""
        books = {}
        for name, source in (("opening book", self._book.large), ("start book", self._book.start)):
            if source is not None:
                books[name] = (source.path, source.positions())
        tables = self._tablebases
        in_use = (tables.path, tables.largest) if tables.largest > 0 else None
        return EngineSummary(self.hash_bytes, self.pawn_hash_bytes, books, self._books.learned.location,
                             self._settings.helpers.threads, in_use)

    # -- what a running search uses: asked for during one, applied at its end -------------

    @property
    def hash_bytes(self) -> int:
        return self._settings.tt.size

    @property
    def pawn_hash_bytes(self) -> int:
        return self._settings.pawn_hash_bytes

    @property
    def hash_request(self) -> int:
        """The table size last asked for and had, in bytes (the table in use may be smaller: a
        power of two of buckets); asking it again changes nothing."""
        return self._settings.hash_request

    def set_hash_size(self, size_bytes: int) -> int:
        """The transposition table's size; returns the size in use. ResourceError: memory not had."""
        return self._settings.set_hash_size(size_bytes)

    def set_pawn_hash_size(self, size_bytes: int) -> None:
        self._settings.set_pawn_hash_size(size_bytes)

    def clear_hash(self) -> bool:
        """Empty the table and the search statistics (UCI's Clear Hash); False: at the search's end."""
        return self._settings.clear_tables()

    def set_threads(self, threads: int) -> bool:
        """Search threads; True if changed now. ValueError out of range, ResourceError if not had."""
        return self._settings.set_threads(threads)

    def set_tablebase_path(self, path: str) -> list[str] | None:
        """Syzygy tables in path; what could not be used, or None while the change waits."""
        return self._settings.set_tablebase_path(path)

    def set_tablebase_cache(self, size_bytes: int) -> int:
        return self._settings.set_tablebase_cache(size_bytes)

    def set_eval_file(self, name: str) -> list[str] | None:
        """The network in the file ('<default>': the shipped one); what could not be used (the
        evaluation in use is kept), or None while the change waits."""
        return self._settings.set_eval_file(name)

    def set_eval_mode(self, mode: str) -> str:
        """`nnue` or `classic`; ends a running search first. Returns what evaluates now."""
        return self._settings.set_eval_mode(mode)

    def apply_pending(self) -> AppliedSettings:
        """Apply what waited for the search's end (unless one runs); what was applied since last asked."""
        return self._settings.apply_pending_settings()

    def evaluation_in_use(self) -> str:
        """`evaluation: network NAME (...)` or `evaluation: hand-written (classic)`."""
        return self._settings.evaluation.describe()

    @property
    def tablebase_path(self) -> str:
        return self._tablebases.path

    @property
    def tablebase_cache_bytes(self) -> int:
        return self._tablebases.cache_bytes

    def tablebase_summary(self) -> str:
        """The tables in use in a line: how many, the most pieces, the folders."""
        return self._tablebases.summary()

    def tablebase_problems(self) -> list[str]:
        """Tables found broken since last asked (no longer used), one message each."""
        return self._tablebases.new_problems()

    @property
    def swindle(self) -> bool:
        return self._tablebases.swindle

    @swindle.setter
    def swindle(self, on: bool) -> None:
        self._tablebases.swindle = on

    @property
    def probe_depth(self) -> int:
        return self._tablebases.probe_depth

    def set_probe_depth(self, plies: int) -> None:
        self._tablebases.set_probe_depth(plies)

    # -- the opening book and learning: at once ----------------------------------------

    @property
    def book_enabled(self) -> bool:
        return self._book.enabled

    @book_enabled.setter
    def book_enabled(self, on: bool) -> None:
        self._book.enabled = on

    def book_setting(self, name: str) -> int | float:
        return getattr(self._book.settings, _book_setting_name(name))

    def set_book_setting(self, name: str, value: int | float) -> None:
        setattr(self._book.settings, _book_setting_name(name), value)

    @property
    def book_aging(self) -> bool:
        return self._book.aging

    @book_aging.setter
    def book_aging(self, on: bool) -> None:
        self._book.aging = on

    def use_book(self, path: str) -> None:
        """A Ponderosa book or a Polyglot .bin as the large book; BookFileError keeps the old one."""
        self._book.use_book(path)

    def use_polyglot(self, path: str) -> None:
        self._book.use_polyglot(path)

    def open_default_books(self) -> list[str]:
        """The working directory's books, else the shipped ones; what could not be used."""
        return self._book.open_defaults()

    def describe_books(self) -> list[str]:
        return self._book.describe()

    @property
    def learned_location(self) -> str:
        """Where learned data is kept: a SQLite file or a PostgreSQL database."""
        return self._books.learned.location

    @property
    def smp_min_depth(self) -> int:
        """smpmin: the shallowest iteration depth helper threads search."""
        return self._settings.helpers.min_depth

    @smp_min_depth.setter
    def smp_min_depth(self, depth: int) -> None:
        self._settings.helpers.min_depth = depth

    @property
    def smp_max_helpers(self) -> int:
        """smpmax: the most helper threads one search uses."""
        return self._settings.helpers.max_helpers

    @smp_max_helpers.setter
    def smp_max_helpers(self, helpers: int) -> None:
        self._settings.helpers.max_helpers = helpers

    @property
    def learn_mask(self) -> int:
        """What is learned: 1 book, 2 positions, 4 results."""
        return self._learner.mask

    @learn_mask.setter
    def learn_mask(self, mask: int) -> None:
        self._learner.mask = mask


def _book_setting_name(name: str) -> str:
    if name not in BOOK_SETTINGS:
        raise ValueError(f"no book setting {name!r} (there are {', '.join(BOOK_SETTINGS)})")
    return name
