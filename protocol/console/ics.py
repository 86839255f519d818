"""Console commands for chess-server play (Crafty's `list`, `whisper`, `kibitz`, `name`,
`computer`, `rating`), usually put in .ponderosarc so that they hold when xboard starts the
engine in zippy mode. The settings live in the engine (engine.ics), which the XBoard session
reads; the rules are engine/ics.py's."""
from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from ponderosa.engine import ics
from ponderosa.protocol.console.commands import Command, CommandError, set_option

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console

LEVEL_USAGE = "N  (0 off, 1 mates, 2 +time/score/depth/speed, 3 +PV, 4 +book, 5 PV per iteration, 6 everything)"


def _fail(message: str) -> NoReturn:
    raise CommandError(message)


def _level(args: list[str], command: str) -> int:
    if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) <= 6:
        _fail(f"usage: {command} {LEVEL_USAGE}")
    return int(args[0])


def cmd_ics(console: Console, args: list[str]) -> None:
    """ics on|off|HOST, ics resign N [SEARCHES], ics lag SECONDS, ics aklevel N; alone: show."""
    settings = console.engine.ics
    if not args:
        _show(console)
        return
    word = args[0].lower()
    if word in ("on", "off") and len(args) == 1:
        settings.enabled = word == "on"
        settings.host = "console" if settings.enabled else ""
    elif word == "resign" and len(args) in (2, 3) and all(value.isdigit() for value in args[1:]):
        settings.resign_pawns = int(args[1])
        if len(args) == 3:
            settings.resign_searches = max(1, int(args[2]))
    elif word == "lag" and len(args) == 2:
        try:
            lag = float(args[1])
        except ValueError:
            lag = -1.0
        if not 0.0 <= lag <= 10.0:
            _fail("usage: ics lag SECONDS  (0 to 10: network lag allowed for each move)")
        settings.lag_seconds = lag
    elif word == "aklevel" and len(args) == 2:
        settings.auto_kibitz_level = _level(args[1:], "ics aklevel")
    elif len(args) == 1 and word not in ("resign", "lag", "aklevel"):
        settings.enabled, settings.host = True, args[0]
    else:
        _fail("usage: ics on|off|HOST | ics resign N [SEARCHES] | ics lag SECONDS | ics aklevel N")
    _show(console)


def _show(console: Console) -> None:
    settings = console.engine.ics
    console.say(f"server mode {'on (' + settings.host + ')' if settings.enabled else 'off'}; "
                f"whisper {settings.whisper_level}, kibitz {settings.kibitz_level}, AK level "
                f"{settings.auto_kibitz_level}, noise {settings.noise_nodes}; greet "
                f"{'on' if settings.greet else 'off'}; resign {settings.resign_pawns or 'never'} after "
                f"{settings.resign_searches} searches; lag {settings.lag_seconds:g} s")


def cmd_list(console: Console, args: list[str]) -> None:
    """list GM|IM|C|AK|B|S +name -name ... (S: +name=CENTIPAWNS); alone: show the lists."""
    settings = console.engine.ics
    if len(args) > 1:
        try:
            ics.apply_list_command(settings.lists, args)
        except ValueError as error:
            _fail(str(error))
        try:
            settings.save()
        except OSError as error:
            _fail(f"lists not saved to {settings.lists_file}: {error.strerror}")
    names = [args[0].upper()] if args else list(ics.LIST_NAMES)
    for which in names:
        if which not in ics.LIST_NAMES:
            _fail(f"usage: list {'|'.join(ics.LIST_NAMES)} +name -name ...")
        entries = [name if value is None or which != "S" else f"{name}={value}"
                   for name, value in sorted(settings.lists[which].items())]
        console.say(f"{which:<3} {' '.join(entries) or '-'}   ({ics.LIST_MEANINGS[which]})")


def cmd_whisper(console: Console, args: list[str]) -> None:
    set_option(console, "whisper", _level(args, "whisper"))


def cmd_kibitz(console: Console, args: list[str]) -> None:
    set_option(console, "kibitz", _level(args, "kibitz"))


def cmd_greet(console: Console, args: list[str]) -> None:
    """greet on|off, or greet TEXT ({name} is the opponent's name)."""
    settings = console.engine.ics
    if not args:
        console.say(f"greet {'on' if settings.greet else 'off'}: {settings.greeting}")
    elif len(args) == 1 and args[0].lower() in ("on", "off"):
        settings.greet = args[0].lower() == "on"
    else:
        settings.greeting, settings.greet = " ".join(args), True


def cmd_name(console: Console, args: list[str]) -> None:
    """name X: the opponent; looked up in the lists, and the game plan is shown."""
    if len(args) != 1:
        _fail("usage: name OPPONENT")
    handle = ics.clean_handle(args[0])
    if handle is None:
        _fail(f"not a server login name: {args[0][:40]!r}")
    console.engine.name_opponent(handle)
    _plan_summary(console)


def cmd_computer(console: Console, args: list[str]) -> None:
    console.engine.name_opponent(computer=True)
    _plan_summary(console)


def cmd_rating(console: Console, args: list[str]) -> None:
    """rating OWN OPPONENT: book learning trusts results by the difference, and the draw
    score follows it (0 means unknown)."""
    ratings = ics.parse_ratings(" ".join(args))
    if ratings is None:
        _fail("usage: rating OWN OPPONENT")
    console.engine.set_ratings(ratings)
    _plan_summary(console)


def _plan_summary(console: Console) -> None:
    settings = console.engine.ics
    opponent = settings.opponent()
    plan = ics.game_plan(settings, opponent, settings.ratings, console.engine.draw_score)
    lists = ", ".join(sorted(opponent.titles)) or "none"
    console.say(f"opponent {opponent.name or '?'}{' (computer)' if opponent.computer else ''}: lists {lists}; "
                f"draw score {plan.draw_score:+d}; resign {plan.resign_pawns or 'never'} after "
                f"{plan.resign_searches} searches; kibitz {plan.kibitz_level}"
                f"{'; book width 2' if plan.book_width else ''}{'; blocked' if plan.silent else ''}")


ICS_COMMANDS = [
    Command(("ics",), cmd_ics, "ics on|off|HOST | resign N [S] | lag SEC | aklevel N",
            "chess-server mode: on/off, resign N pawns after S searches (9, 4), lag per move (0.3 s), AK level"),
    Command(("list",), cmd_list, "list GM|IM|C|AK|B|S +name -name",
            "opponent lists (kept in .ponderosa-lists beside .ponderosarc); S: +name=CENTIPAWNS draw score"),
    Command(("whisper",), cmd_whisper, "whisper N",
            "whisper (to observers) 0-6: 1 mates, 2 +time/score/depth/speed, 3 +PV, 4 +book, 5 each PV, 6 all"),
    Command(("kibitz",), cmd_kibitz, "kibitz N", "kibitz (to players and observers) at level 0-6, as whisper"),
    Command(("greet",), cmd_greet, "greet on|off|TEXT",
            "kibitz a greeting at each server game's start; TEXT may hold {name}"),
    Command(("name",), cmd_name, "name OPPONENT", "the opponent's login name: looked up in the lists"),
    Command(("computer",), cmd_computer, "computer",
            "the opponent is a computer: draw score 0, equal draws accepted, narrower book"),
    Command(("rating",), cmd_rating, "rating OWN OPPONENT",
            "ratings (0 unknown): book learning trusts results by the difference; the draw score drops 0.10 per "
            "200 points the opponent is weaker beyond the first 100 (at most 0.50) and rises as much when stronger"),
]
