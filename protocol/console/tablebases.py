"""Crafty's tablebase commands for the console: egtb, tbpath, cache, swindle; and the report of
tables a search found broken."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.protocol.console.commands import Command, CommandError, on_off, parse_size, set_option

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console


def _use_tables(console: Console, path: str) -> None:
    console.engine.end_search()   # the silent ponder search ends: the tables change now, as the reply says
    for message in set_option(console, "egtb", path):
        console.say(f"Syzygy: {message}")
    console.say(console.engine.options.tablebase_summary())


def cmd_egtb(console: Console, args: list[str]) -> None:
    """egtb: report the tables found; egtb PATH: use the tables in PATH first."""
    if args:
        _use_tables(console, " ".join(args))
        return
    console.say(console.engine.options.tablebase_summary())


def cmd_tbpath(console: Console, args: list[str]) -> None:
    if not args:
        raise CommandError("usage: tbpath PATH  (folders separated by ':' or ';')")
    _use_tables(console, " ".join(args))


def cmd_cache(console: Console, args: list[str]) -> None:
    if not args:
        console.say(f"tablebase cache = {console.engine.options.tablebase_cache_bytes // 1024}K bytes")
        return
    if len(args) != 1:
        raise CommandError("usage: cache SIZE  (e.g. cache 32M; 0 turns the cache off)")
    console.engine.end_search()   # likewise
    used = console.engine.options.set_tablebase_cache(parse_size(args[0]))
    console.say(f"tablebase cache = {used // 1024}K bytes")


def cmd_swindle(console: Console, args: list[str]) -> None:
    options = console.engine.options
    options.swindle = on_off(args, "swindle")
    console.say(f"swindle mode {'on' if options.swindle else 'off'}")


def report_problems(console: Console) -> None:
    """Tables found broken during a search (they are no longer used)."""
    for message in console.engine.options.tablebase_problems():
        console.say(f"Syzygy: {message}")


TABLEBASE_COMMANDS = [
    Command(("egtb",), cmd_egtb, "egtb [PATH]",
            "Syzygy tablebases: report the largest class found; PATH: use the tables there"),
    Command(("tbpath",), cmd_tbpath, "tbpath PATH",
            "folders of Syzygy tables (.rtbw/.rtbz), separated by ':' or ';'"),
    Command(("cache",), cmd_cache, "cache [SIZE]",
            "tablebase cache of decoded values (K, M or G; 0 = off; default 4M)"),
    Command(("swindle",), cmd_swindle, "swindle on|off",
            "in a tablebase draw with more material, play on for the win (game moves only)"),
]
