"""The console's opening-book and learning commands (Crafty's book, books, bookw, bookeval,
bstat, show book, the Terra limits, learn and import)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from ponderosa.engine.book.opening_book import book_table
from ponderosa.engine.errors import EngineError
from ponderosa.engine.learning.store import parse_bookeval
from ponderosa.protocol.console.commands import (
    Command,
    CommandError,
    number_argument,
    on_off,
    option_row,
    option_value,
    positive_int,
    set_option,
)

if TYPE_CHECKING:
    from ponderosa.engine.book.build import BuildReport
    from ponderosa.protocol.console.session import Console

def cmd_book(console: Console, args: list[str]) -> None:
    """Crafty's book command and its sub-commands (see COMMANDS for the list)."""
    if not args:
        for line in console.engine.options.describe_books():
            console.say(line)
        return
    action, rest = args[0].lower(), args[1:]
    handler = BOOK_ACTIONS.get(action)
    if handler is None:
        raise CommandError(f"unknown book command: {action} (see `help book`)")
    try:
        handler(console, rest)
    except EngineError as error:
        raise CommandError(str(error)) from error


def _book_create(console: Console, args: list[str]) -> None:
    usage = "book create FILE M [N] [WPCT]"
    if not 2 <= len(args) <= 4:
        raise CommandError(f"usage: {usage}")
    max_moves = positive_int(args[1:2], usage)
    min_games = positive_int(args[2:3], usage) if len(args) > 2 else 1
    win_percent = number_argument(args[3], usage) if len(args) > 3 else 0.0
    report = console.engine.create_book([args[0]], max_moves, min_games, win_percent, _progress(console))
    _end_progress(console)
    _report(console, report)


def _book_add(console: Console, args: list[str]) -> None:
    if not args:
        raise CommandError("usage: book add FILE [FILE...]")
    report = console.engine.add_to_book(args, _progress(console))
    _end_progress(console)
    _report(console, report)


def _book_merge(console: Console, args: list[str]) -> None:
    if len(args) != 3:
        raise CommandError("usage: book merge BOOK1 BOOK2 OUT")
    _report(console, console.engine.merge_books(*args))


def _book_random(console: Console, args: list[str]) -> None:
    if len(args) != 1 or args[0] not in ("0", "1", "2"):
        raise CommandError("usage: book random 0|1|2 (0 search, 1 Crafty's weighted random, 2 Terra's)")
    set_option(console, "book random", int(args[0]))


def _book_width(console: Console, args: list[str]) -> None:
    set_option(console, "book width", positive_int(args, "book width N"))


def _book_on(console: Console, args: list[str]) -> None:
    set_option(console, "book", True)


def _book_off(console: Console, args: list[str]) -> None:
    set_option(console, "book", False)


def _book_use(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: book use FILE")
    set_option(console, "book use", args[0])
    console.say(f"book: {args[0]}")


def _book_polyglot(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: book polyglot FILE.bin")
    console.engine.options.use_polyglot(args[0])
    console.say(f"book: {args[0]} (Polyglot)")


def _book_export(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: book export FILE.bin")
    entries = console.engine.export_polyglot(args[0])
    console.say(f"wrote {entries} Polyglot entries to {args[0]}")


def cmd_books(console: Console, args: list[str]) -> None:
    usage = "books create FILE M"
    if len(args) != 3 or args[0].lower() != "create":
        raise CommandError(f"usage: {usage}")
    try:
        report = console.engine.create_start_book([args[1]], positive_int(args[2:3], usage))
    except EngineError as error:
        raise CommandError(str(error)) from error
    _report(console, report)


def cmd_bookw(console: Console, args: list[str]) -> None:
    usage = "bookw freq|ratio|eval|learn WEIGHT (0..1)"
    if len(args) != 2 or args[0].lower() not in ("freq", "ratio", "eval", "learn"):
        raise CommandError(f"usage: {usage}")
    weight = number_argument(args[1], usage)
    if not 0.0 <= weight <= 1.0:
        raise CommandError(f"usage: {usage}")
    console.engine.options.set_book_setting(f"weight_{args[0].lower()}", weight)


def _terra_setting(name: str) -> Callable[[Console, list[str]], None]:
    """The handler of one of Terra's limits (booklimit N, ...): the book setting of that name."""
    def handler(console: Console, args: list[str]) -> None:
        console.engine.options.set_book_setting(name, positive_int(args, f"{name} N", minimum=0))
    return handler


def cmd_bookeval(console: Console, args: list[str]) -> None:
    """Terra's bookeval on the move just played, or NAG-marked lines from a PGN file."""
    if len(args) != 1:
        raise CommandError("usage: bookeval 0..100|!!|!|!?|?!|?|clear  or  bookeval FILE.pgn")
    try:
        if os.path.lexists(args[0]):   # a file of NAG-marked lines (refused clearly if it is no regular file)
            count = console.engine.import_user_values([args[0]])
            console.say(f"{count} user-set values read from {args[0]}")
            return
        value = parse_bookeval(args[0])
        san = console.engine.set_user_value(value)
    except ValueError as error:
        raise CommandError(str(error)) from error
    except IndexError as error:
        raise CommandError("bookeval sets a value on the move just played: make the move first") from error
    except EngineError as error:   # BookFileError: the PGN file cannot be read
        raise CommandError(str(error)) from error
    console.say(f"{san}: user value {'cleared' if value is None else value}")


def cmd_bstat(console: Console, args: list[str]) -> None:
    """Terra's bstat/bmoves: every book move of this position, fixed and user-set values."""
    decision = console.engine.book_decision()
    if decision is None:
        console.say("no book moves in this position")
        return
    for line in book_table(decision, console.engine.position(stack=False)):
        console.say(line)


def cmd_show(console: Console, args: list[str]) -> None:
    if len(args) != 1 or args[0].lower() != "book":
        raise CommandError("usage: show book")
    console.show_book = not console.show_book
    console.say(f"show book {'on' if console.show_book else 'off'}")


def _interactive(console: Console) -> bool:
    """A terminal: the progress line is redrawn in place (elsewhere, one line every ten seconds)."""
    return console.out.isatty() if hasattr(console.out, "isatty") else False


def _progress(console: Console) -> Callable[[int, int, int, float], None]:
    """A progress line for long builds: games read, games per second, share of the file."""
    interactive = _interactive(console)
    shown = [0.0]

    def show(games: int, done: int, total: int, elapsed: float) -> None:
        if elapsed - shown[0] < (0.5 if interactive else 10.0):
            return
        shown[0] = elapsed
        rate = games / elapsed if elapsed > 0 else 0.0
        share = done / total if total else 0.0
        bar = "#" * int(share * 30)
        text = f"[{bar:<30}] {share * 100:5.1f}%  {games} games  {rate:,.0f} games/s"
        console.write(("\r" + text) if interactive else text + "\n")
    return show


def _end_progress(console: Console) -> None:
    if _interactive(console):
        console.say()


def _report(console: Console, report: BuildReport) -> None:
    for line in report.summary().splitlines():
        console.say(line)


# -- learning -------------------------------------------------------------------

def cmd_learn(console: Console, args: list[str]) -> None:
    """learn N (bitmask: 1 book, 2 position, 4 result), learn store LOCATION, learn aging on|off,
    learn threshold CENTIPAWNS."""
    engine = console.engine
    if not args:
        console.say(f"learn {option_value(console, 'learn')} (1 book, 2 position, 4 result); "
                    f"store {engine.options.learned_location}; aging {'on' if engine.options.book_aging else 'off'}; "
                    f"threshold {option_value(console, 'learn threshold')}")
        return
    if args[0].lower() == "store" and len(args) == 2:
        set_option(console, "learn store", args[1])
        console.say(f"learned data: {engine.options.learned_location}")
        return
    if args[0].lower() == "aging" and len(args) == 2:
        engine.options.book_aging = on_off(args[1:], "learn aging")
        return
    if args[0].lower() == "threshold" and len(args) <= 2:
        _learn_threshold(console, args[1:])
        return
    mask = positive_int(args, "learn N (0-7) | learn store PATH|postgresql://... | learn aging on|off "
                        "| learn threshold CENTIPAWNS", 0)
    if mask > 7:
        raise CommandError("learn N: N is a bitmask 0-7 (1 book, 2 position, 4 result)")
    set_option(console, "learn", mask)


def _learn_threshold(console: Console, args: list[str]) -> None:
    """learn threshold [CENTIPAWNS]: show or set the learned value below which a book move is not
    playable (the paper's -80 by default)."""
    row = option_row(console, "learn threshold")
    usage = f"learn threshold CENTIPAWNS ({row.low}..{row.high}; the paper's {row.default} by default)"
    if args:
        try:
            value = int(args[0])
        except ValueError:
            raise CommandError(f"usage: {usage}") from None
        set_option(console, "learn threshold", value)
    console.say(f"learn threshold {option_value(console, 'learn threshold')}: book moves learned below it are not "
                f"played")


def cmd_import(console: Console, args: list[str]) -> None:
    """Crafty's import: learn from a book.lrn or position.lrn file as if the games were played."""
    if not 1 <= len(args) <= 2 or (len(args) == 2 and args[1].lower() != "clear"):
        raise CommandError("usage: import FILE [clear]")
    try:
        count = console.engine.import_learning(args[0], clear=len(args) == 2)
    except (OSError, EngineError) as error:
        raise CommandError(str(error)) from error
    for problem in console.engine.options.import_skipped:
        console.say(f"warning: {problem}")
    console.say(f"imported {count} learning records from {args[0]}")


BOOK_ACTIONS: dict[str, Callable[[Console, list[str]], None]] = {
    "create": _book_create, "add": _book_add, "merge": _book_merge, "random": _book_random, "width": _book_width,
    "on": _book_on, "off": _book_off, "use": _book_use, "polyglot": _book_polyglot, "export": _book_export,
}


BOOK_COMMANDS = [
    Command(("book",), cmd_book,
            "book [create FILE M [N] [WPCT] | add FILE | merge A B OUT | random 0|1|2 | width N | on | off "
            "| use FILE | polyglot FILE | export FILE]",
            "the opening book: build it from PGN, choose how moves are picked, use or write Polyglot"),
    Command(("books",), cmd_books, "books create FILE M",
            "the start book: moves marked ! (only these), ? (never) and {play nn%}"),
    Command(("bookw",), cmd_bookw, "bookw freq|ratio|eval|learn W",
            "weight 0..1 of each term in book random 1's sort value"),
    Command(("bookeval",), cmd_bookeval, "bookeval VALUE|FILE",
            "user value 0..100 (!!=100 !=75 !?=15 ?!=5 ?=0, clear) of the move just played; FILE: from NAGs"),
    Command(("bstat", "bmoves"), cmd_bstat, "bstat | bmoves",
            "every book move here: games, score %, flags, user-set value, chance"),
    Command(("show",), cmd_show, "show book",
            "toggle listing the book candidates before each book move"),
    Command(("booklimit",), _terra_setting("book_limit"), "booklimit N",
            "Terra: minimum score % of a move's book games (book random 2)"),
    Command(("terralimit",), _terra_setting("terra_limit"), "terralimit N",
            "Terra: minimum score % of the engine's own games with a move (book random 2)"),
    Command(("minbookgames",), _terra_setting("min_book_games"),
            "minbookgames N", "Terra: fewest book games for a move to be played (book random 2)"),
    Command(("minterragames",), _terra_setting("min_terra_games"),
            "minterragames N", "Terra: own games needed before they count instead of frequency (book random 2)"),
    Command(("learn",), cmd_learn, "learn [N | store LOCATION | aging on|off | threshold CP]",
            "what to learn (bitmask: 1 book, 2 position, 4 result; default 7), where, learning aging, and "
            "the learned value below which a book move is not played (centipawns, default -80)"),
    Command(("import",), cmd_import, "import FILE [clear]",
            "learn from a book.lrn or position.lrn file; clear: forget what was learned first"),
]
