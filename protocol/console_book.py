"""The console's opening-book and learning commands (Crafty's book, books, bookw, bookeval,
bstat, show book, the Terra limits, learn and import)."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TextIO

from ponderosa.engine.book.file import BookFileError
from ponderosa.engine.book.opening_book import book_table
from ponderosa.engine.learning.learner import LearnFileError
from ponderosa.engine.learning.store import LearnedStoreError, parse_bookeval
from ponderosa.protocol.console_commands import CommandError, number_argument, positive_int

if TYPE_CHECKING:
    from ponderosa.engine.book.build import BuildReport
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.console_commands import Command


class BookCommands:
    """Mixin of Console: the book and the learned data."""

    engine: Engine
    out: TextIO
    show_book: bool
    say: Callable[..., None]
    _write_lock: threading.Lock

    if TYPE_CHECKING:   # provided by Console
        def _on_off(self, args: list[str], usage: str) -> bool: ...

    def cmd_book(self, args: list[str]) -> None:
        """Crafty's book command and its sub-commands (see COMMANDS for the list)."""
        if not args:
            for line in self.engine.book.describe():
                self.say(line)
            return
        action, rest = args[0].lower(), args[1:]
        handler = BOOK_ACTIONS.get(action)
        if handler is None:
            raise CommandError(f"unknown book command: {action} (see `help book`)")
        try:
            handler(self, rest)
        except BookFileError as error:
            raise CommandError(str(error)) from error

    def _book_create(self, args: list[str]) -> None:
        usage = "book create FILE M [N] [WPCT]"
        if not 2 <= len(args) <= 4:
            raise CommandError(f"usage: {usage}")
        max_moves = positive_int(args[1:2], usage)
        min_games = positive_int(args[2:3], usage) if len(args) > 2 else 1
        win_percent = number_argument(args[3], usage) if len(args) > 3 else 0.0
        report = self.engine.create_book([args[0]], max_moves, min_games, win_percent, self._progress())
        self._end_progress()
        self._report(report)

    def _book_add(self, args: list[str]) -> None:
        if not args:
            raise CommandError("usage: book add FILE [FILE...]")
        report = self.engine.add_to_book(args, self._progress())
        self._end_progress()
        self._report(report)

    def _book_merge(self, args: list[str]) -> None:
        if len(args) != 3:
            raise CommandError("usage: book merge BOOK1 BOOK2 OUT")
        self._report(self.engine.merge_books(*args))

    def _book_random(self, args: list[str]) -> None:
        if len(args) != 1 or args[0] not in ("0", "1", "2"):
            raise CommandError("usage: book random 0|1|2 (0 search, 1 Crafty's weighted random, 2 Terra's)")
        self.engine.book.settings.random_mode = int(args[0])

    def _book_width(self, args: list[str]) -> None:
        self.engine.book.settings.width = positive_int(args, "book width N")

    def _book_on(self, args: list[str]) -> None:
        self.engine.book.enabled = True

    def _book_off(self, args: list[str]) -> None:
        self.engine.book.enabled = False

    def _book_use(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: book use FILE")
        self.engine.book.use_book(args[0])
        self.say(f"book: {args[0]}")

    def _book_polyglot(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: book polyglot FILE.bin")
        self.engine.book.use_polyglot(args[0])
        self.say(f"book: {args[0]} (Polyglot)")

    def _book_export(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: book export FILE.bin")
        entries = self.engine.export_polyglot(args[0])
        self.say(f"wrote {entries} Polyglot entries to {args[0]}")

    def cmd_books(self, args: list[str]) -> None:
        usage = "books create FILE M"
        if len(args) != 3 or args[0].lower() != "create":
            raise CommandError(f"usage: {usage}")
        try:
            report = self.engine.create_start_book([args[1]], positive_int(args[2:3], usage))
        except BookFileError as error:
            raise CommandError(str(error)) from error
        self._report(report)

    def cmd_bookw(self, args: list[str]) -> None:
        usage = "bookw freq|ratio|eval|learn WEIGHT (0..1)"
        if len(args) != 2 or args[0].lower() not in ("freq", "ratio", "eval", "learn"):
            raise CommandError(f"usage: {usage}")
        weight = number_argument(args[1], usage)
        if not 0.0 <= weight <= 1.0:
            raise CommandError(f"usage: {usage}")
        setattr(self.engine.book.settings, f"weight_{args[0].lower()}", weight)

    def cmd_terra_setting(self, args: list[str], name: str) -> None:
        setattr(self.engine.book.settings, name, positive_int(args, f"{name} N", minimum=0))

    def cmd_bookeval(self, args: list[str]) -> None:
        """Terra's bookeval on the move just played, or NAG-marked lines from a PGN file."""
        if len(args) != 1:
            raise CommandError("usage: bookeval 0..100|!!|!|!?|?!|?|clear  or  bookeval FILE.pgn")
        try:
            if Path(args[0]).is_file():
                count = self.engine.import_user_values([args[0]])
                self.say(f"{count} user-set values read from {args[0]}")
                return
            value = parse_bookeval(args[0])
            san = self.engine.set_user_value(value)
        except ValueError as error:
            raise CommandError(str(error)) from error
        except IndexError as error:
            raise CommandError("bookeval sets a value on the move just played: make the move first") from error
        except LearnedStoreError as error:
            raise CommandError(str(error)) from error
        self.say(f"{san}: user value {'cleared' if value is None else value}")

    def cmd_bstat(self, args: list[str]) -> None:
        """Terra's bstat/bmoves: every book move of this position, fixed and user-set values."""
        decision = self.engine.book_decision()
        if decision is None:
            self.say("no book moves in this position")
            return
        for line in book_table(decision, self.engine.game):
            self.say(line)

    def cmd_show(self, args: list[str]) -> None:
        if len(args) != 1 or args[0].lower() != "book":
            raise CommandError("usage: show book")
        self.show_book = not self.show_book
        self.say(f"show book {'on' if self.show_book else 'off'}")

    def _progress(self) -> Callable[[int, int, int, float], None]:
        """A progress line for long builds: games read, games per second, share of the file."""
        interactive = self.out.isatty() if hasattr(self.out, "isatty") else False
        shown = [0.0]

        def show(games: int, done: int, total: int, elapsed: float) -> None:
            if elapsed - shown[0] < (0.5 if interactive else 10.0):
                return
            shown[0] = elapsed
            rate = games / elapsed if elapsed > 0 else 0.0
            share = done / total if total else 0.0
            bar = "#" * int(share * 30)
            text = f"[{bar:<30}] {share * 100:5.1f}%  {games} games  {rate:,.0f} games/s"
            with self._write_lock:
                self.out.write(("\r" + text) if interactive else text + "\n")
                self.out.flush()
        self._progress_interactive = interactive
        return show

    def _end_progress(self) -> None:
        if getattr(self, "_progress_interactive", False):
            self.say()

    def _report(self, report: BuildReport) -> None:
        for line in report.summary().splitlines():
            self.say(line)

    # -- learning -------------------------------------------------------------------

    def cmd_learn(self, args: list[str]) -> None:
        """learn N (bitmask: 1 book, 2 position, 4 result), learn store LOCATION, learn aging on|off."""
        learner = self.engine.learner
        if not args:
            self.say(f"learn {learner.mask} (1 book, 2 position, 4 result); store {self.engine.learned.location}; "
                     f"aging {'on' if self.engine.book.aging else 'off'}")
            return
        if args[0].lower() == "store" and len(args) == 2:
            try:
                self.engine.use_learned_store(args[1])
            except LearnedStoreError as error:
                raise CommandError(str(error)) from error
            self.say(f"learned data: {self.engine.learned.location}")
            return
        if args[0].lower() == "aging" and len(args) == 2:
            self.engine.book.aging = self._on_off(args[1:], "learn aging")
            return
        mask = positive_int(args, "learn N (0-7) | learn store PATH|postgresql://... | learn aging on|off", 0)
        if mask > 7:
            raise CommandError("learn N: N is a bitmask 0-7 (1 book, 2 position, 4 result)")
        learner.mask = mask

    def cmd_import(self, args: list[str]) -> None:
        """Crafty's import: learn from a book.lrn or position.lrn file as if the games were played."""
        if not 1 <= len(args) <= 2 or (len(args) == 2 and args[1].lower() != "clear"):
            raise CommandError("usage: import FILE [clear]")
        try:
            count = self.engine.import_learning(args[0], clear=len(args) == 2)
        except (OSError, LearnFileError, LearnedStoreError) as error:
            raise CommandError(str(error)) from error
        for problem in self.engine.learner.import_skipped:
            self.say(f"warning: {problem}")
        self.say(f"imported {count} learning records from {args[0]}")


BOOK_ACTIONS: dict[str, Callable[[BookCommands, list[str]], None]] = {
    "create": BookCommands._book_create, "add": BookCommands._book_add, "merge": BookCommands._book_merge,
    "random": BookCommands._book_random, "width": BookCommands._book_width, "on": BookCommands._book_on,
    "off": BookCommands._book_off, "use": BookCommands._book_use, "polyglot": BookCommands._book_polyglot,
    "export": BookCommands._book_export,
}


def book_commands(command: type[Command]) -> list[Command]:
    """The console's entries for these commands (Command is passed in: console.py imports this module)."""
    return [
        command(("book",), BookCommands.cmd_book,
                "book [create FILE M [N] [WPCT] | add FILE | merge A B OUT | random 0|1|2 | width N | on | off "
                "| use FILE | polyglot FILE | export FILE]",
                "the opening book: build it from PGN, choose how moves are picked, use or write Polyglot"),
        command(("books",), BookCommands.cmd_books, "books create FILE M",
                "the start book: moves marked ! (only these), ? (never) and {play nn%}"),
        command(("bookw",), BookCommands.cmd_bookw, "bookw freq|ratio|eval|learn W",
                "weight 0..1 of each term in book random 1's sort value"),
        command(("bookeval",), BookCommands.cmd_bookeval, "bookeval VALUE|FILE",
                "user value 0..100 (!!=100 !=75 !?=15 ?!=5 ?=0, clear) of the move just played; FILE: from NAGs"),
        command(("bstat", "bmoves"), BookCommands.cmd_bstat, "bstat | bmoves",
                "every book move here: games, score %, flags, user-set value, chance"),
        command(("show",), BookCommands.cmd_show, "show book",
                "toggle listing the book candidates before each book move"),
        command(("booklimit",), lambda console, args: console.cmd_terra_setting(args, "book_limit"), "booklimit N",
                "Terra: minimum score % of a move's book games (book random 2)"),
        command(("terralimit",), lambda console, args: console.cmd_terra_setting(args, "terra_limit"), "terralimit N",
                "Terra: minimum score % of the engine's own games with a move (book random 2)"),
        command(("minbookgames",), lambda console, args: console.cmd_terra_setting(args, "min_book_games"),
                "minbookgames N", "Terra: fewest book games for a move to be played (book random 2)"),
        command(("minterragames",), lambda console, args: console.cmd_terra_setting(args, "min_terra_games"),
                "minterragames N", "Terra: own games needed before they count instead of frequency (book random 2)"),
        command(("learn",), BookCommands.cmd_learn, "learn [N | store LOCATION | aging on|off]",
                "what to learn (bitmask: 1 book, 2 position, 4 result; default 7), where, and learning aging"),
        command(("import",), BookCommands.cmd_import, "import FILE [clear]",
                "learn from a book.lrn or position.lrn file; clear: forget what was learned first"),
    ]
