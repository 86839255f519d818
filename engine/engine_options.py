"""The engine's settings as the front ends change them (Engine.options): get and set for the rows of
the option table (engine/option_table.py), whose effects act on the parts collected here. The hash
tables, the search threads, the tablebases and the evaluation, which a running search uses, change
at its end (engine/settings.py has the rule); the opening book and learning change at once."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any, Callable, Protocol

from ponderosa.core_ext.core import Evaluator
from ponderosa.engine import tuning
from ponderosa.engine.book.opening_book import OpeningBook
from ponderosa.engine.book.select import BookSettings
from ponderosa.engine.book_learning import BookLearning
from ponderosa.engine.errors import EngineError
from ponderosa.engine.game_state import GameState
from ponderosa.engine.ics import IcsSettings, selective_book
from ponderosa.engine.learning.learner import Learner
from ponderosa.engine.opponent import Opponent
from ponderosa.engine.option_table import OPTIONS, UCI_ROWS, XBOARD_ROWS, Option, OptionError, find
from ponderosa.engine.pending import AppliedSettings
from ponderosa.engine.search import Searcher
from ponderosa.engine.settings import SearchSettings
from ponderosa.engine.strength import StrengthLevel
from ponderosa.engine.tablebases import Tablebases
from ponderosa.engine.worker import HelperPool

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


@dataclass
class OptionParts:
    """The parts of the engine the option table's rows change (engine/option_table.py), and the
    two changes that are the engine's own requests: a new kind of game and a new opponent."""

    settings: SearchSettings
    books: BookLearning
    tablebases: Tablebases
    strength: StrengthLevel
    state: GameState
    ics: IcsSettings
    set_chess960: Callable[[bool], object]
    set_opponent: Callable[[Opponent], object]

    @property
    def searcher(self) -> Searcher:
        return self.settings.searcher

    @property
    def evaluator(self) -> Evaluator:
        return self.settings.evaluator

    @property
    def helpers(self) -> HelperPool:
        return self.settings.helpers

    @property
    def book(self) -> OpeningBook:
        return self.books.book

    @property
    def learner(self) -> Learner:
        return self.books.learner


class FrontEndSettings(Protocol):
    """What a front end keeps of the table's rows marked front_end (each front end has those its
    protocol offers: XBoard has no UCI_ShowWDL, UCI no Resign)."""

    @property
    def ponder(self) -> bool: ...
    @property
    def move_overhead_ms(self) -> int: ...
    @property
    def log(self) -> bool: ...
    def set_ponder(self, on: bool) -> object: ...
    def set_move_overhead(self, milliseconds: int) -> object: ...
    def set_log(self, on: bool) -> object: ...


class EngineOptions:
    """The front ends' one door to the engine's settings: get(option) and set(option, value) for
    the option table's rows, and what the start-up banner and the settings' reports show."""

    def __init__(self, parts: OptionParts) -> None:
        self.parts = parts
        self._settings = parts.settings
        self._books = parts.books
        self._book = parts.books.book
        self._tablebases = parts.tablebases
        self._front_end: FrontEndSettings | None = None

    def attach(self, front_end: FrontEndSettings, protocol: str) -> None:
        """The front end whose own settings (Ponder, Log, Move Overhead, ...) the rows marked
        front_end read and change; each such row its protocol ("uci", "xboard") offers starts at
        the table's default, unless the row keeps the value it has (the log)."""
        self._front_end = front_end
        for option in self.rows(protocol):
            if option.front_end and not option.keeps_value:
                option.apply(front_end, option.default)

    @staticmethod
    def rows(front_end: str) -> tuple[Option, ...]:
        """The rows a front end offers, in its order ("uci", "xboard"; "console": those with words)."""
        if front_end == "uci":
            return UCI_ROWS + tuning.ROWS if tuning.listed() else UCI_ROWS
        if front_end == "xboard":
            return XBOARD_ROWS
        return tuple(option for option in OPTIONS if option.console)

    @staticmethod
    def find(name: str, front_end: str = "uci") -> Option | None:
        """The row a front end's name stands for (option_table.find; for UCI also the search's
        tunable parameters, listed or not: engine/tuning.py)."""
        option = find(name, front_end)
        return tuning.find(name) if option is None and front_end == "uci" else option

    def get(self, option: Option | str) -> Any:
        """The value in use (for a front end's own setting without that front end: the default)."""
        option = self._row(option)
        return option.value(self._front_end if option.front_end else self.parts)

    def set(self, option: Option | str, value: Any) -> list[str] | None:
        """Set an option to a value of its kind (within its range: Option.parse makes one). Returns
        what the user is told (what could not be used, a note; [] for nothing), or None when
        nothing changed now: the value in use asked for again, or a setting a running search
        uses, which waits for its end (the engine's rule; apply_pending reports it). Raises
        OptionError for a value the engine refuses; ResourceError (an OptionError) for memory or
        threads not had."""
        option = self._row(option)
        target = self._front_end if option.front_end else self.parts
        if target is None:
            raise OptionError(f"option {option.name} belongs to a front end")
        try:
            outcome = option.apply(target, value)
        except EngineError:   # the book's, the store's, a setting's own: said as they are
            raise
        except (ValueError, OSError) as error:
            raise OptionError(str(error)) from None
        if isinstance(outcome, list):
            return outcome
        # A setting with a report (tables, threads, evaluation) says None or False for "not now".
        return None if option.report and outcome in (None, False) else []

    @staticmethod
    def _row(option: Option | str) -> Option:
        if isinstance(option, Option):
            return option
        row = find(option, "uci") or find(option, "xboard") or find(option, "console") or tuning.find(option)
        if row is None:
            raise OptionError(f"unknown option: {option}")
        return row

    def describe_strength(self) -> str:
        """The strength level in use, in words (`skill`, UCI_LimitStrength and UCI_Elo set it)."""
        return self.parts.strength.describe()

    def set_game_files(self, enabled: bool, save: bool = True) -> None:
        """Write the game's log.NNN and game.NNN (XBoard's option Log, the console's `log`); save:
        write the record now when they are turned on."""
        state = self.parts.state
        if state.game_files.enabled == enabled:
            return   # as it is: nothing written again
        state.game_files.enabled = enabled
        if enabled and save:
            state.save_record()

    def set_extension(self, name: str, plies: float) -> None:
        """Crafty's `extensions NAME PLIES` (incheck, onerep, recapture, pushpp, mate)."""
        self.parts.searcher.core.set_extension(name, plies)

    def extensions(self) -> dict[str, float]:
        return self.parts.searcher.core.extensions()

    @property
    def import_skipped(self) -> list[str]:
        """What the last learning import skipped (a torn last record), one message each."""
        return self.parts.learner.import_skipped

    def summary(self) -> EngineSummary:
        """What the engine runs with, for the start-up banner."""
        books = {}
        for name, source in (("opening book", self._book.large), ("start book", self._book.start)):
            if source is not None:
                books[name] = (source.path, source.positions())
        tables = self._tablebases
        in_use = (tables.path, tables.largest) if tables.largest > 0 else None
        return EngineSummary(self.hash_bytes, self._settings.pawn_hash_bytes, books, self._books.learned.location,
                             self._settings.helpers.threads, in_use)

    @property
    def book_enabled(self) -> bool:
        """Whether book moves are played (option OwnBook)."""
        return self._book.enabled

    @property
    def hash_bytes(self) -> int:
        """The table's size in bytes (a power of two of buckets: at most the size asked for)."""
        return self._settings.tt.size

    def apply_pending(self) -> AppliedSettings:
        """Apply what waited for the search's end (unless one runs); what was applied since last asked."""
        return self._settings.apply_pending_settings()

    def evaluation_in_use(self) -> str:
        """`evaluation: network NAME (...)` or `evaluation: hand-written (classic)`."""
        return self._settings.evaluation.describe()

    def set_eval_mode(self, mode: str) -> str:
        """`nnue` or `classic` (the console's `eval`); ends a running search first. What evaluates now."""
        return self._settings.set_eval_mode(mode)

    def tablebase_summary(self) -> str:
        """The tables in use in a line: how many, the most pieces, the folders."""
        return self._tablebases.summary()

    def tablebase_problems(self) -> list[str]:
        """Tables found broken since last asked (no longer used), one message each."""
        return self._tablebases.new_problems()

    @property
    def tablebase_cache_bytes(self) -> int:
        return self._tablebases.cache_bytes

    def set_tablebase_cache(self, size_bytes: int) -> int:
        return self._settings.set_tablebase_cache(size_bytes)

    @property
    def swindle(self) -> bool:
        return self._tablebases.swindle

    @swindle.setter
    def swindle(self, on: bool) -> None:
        self._tablebases.swindle = on

    # -- the book's selection knobs (Crafty's `book`, `bookw`, Terra's limits) -------------

    def book_selection(self) -> object:
        """The book selection's settings as they are, to be put back by restore_book_selection."""
        return dataclasses.replace(self._book.settings)

    def restore_book_selection(self, saved: object) -> None:
        assert isinstance(saved, BookSettings)
        self._book.settings = dataclasses.replace(saved)

    def narrow_book_selection(self) -> None:
        """The book against computers (engine/ics.py selective_book): fewer moves, results weigh more."""
        self._book.settings = selective_book(self._book.settings)

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

    def use_polyglot(self, path: str) -> None:
        self._book.use_polyglot(path)

    def describe_books(self) -> list[str]:
        return self._book.describe()

    @property
    def learned_location(self) -> str:
        """Where learned data is kept: a SQLite file or a PostgreSQL database."""
        return self._books.learned.location


def _book_setting_name(name: str) -> str:
    if name not in BOOK_SETTINGS:
        raise ValueError(f"no book setting {name!r} (there are {', '.join(BOOK_SETTINGS)})")
    return name
