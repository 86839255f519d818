"""Crafty's parallel-search commands: smpmt=N (mt=N), smpmin N, smpmax N."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.protocol.console.commands import Command, CommandError, option_row, option_value, set_option

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console


def _count(console: Console, args: list[str], usage: str, low: int, high: int) -> int | None:
    """The one number argument within low..high; None (after saying the usage) otherwise."""
    if len(args) != 1 or not args[0].isdigit() or not low <= int(args[0]) <= high:
        console.say(f"Error: usage: {usage}")
        return None
    return int(args[0])


def say_threads(console: Console) -> None:
    engine = console.engine
    console.say(f"search threads: {engine.threads} ({engine.searching_threads} per search; helpers from depth "
                f"{option_value(console, 'smpmin')}, at most {option_value(console, 'smpmax')} helpers)")


def cmd_smpmt(console: Console, args: list[str]) -> None:
    if not args:
        say_threads(console)
        return
    most = option_row(console, "smpmt").high
    count = _count(console, args, f"smpmt=N  (threads, 0..{most}; 0 or 1: one thread)", 0, most)
    if count is not None and max(1, count) != console.engine.threads:   # the count in use: nothing to do or say
        console.engine.end_search()   # the silent ponder search ends: the count changes now, as the reply says
        try:
            set_option(console, "smpmt", max(1, count))
        except CommandError as error:
            console.say(f"Error: {error}")
        say_threads(console)


def cmd_smpmin(console: Console, args: list[str]) -> None:
    depth = _count(console, args, "smpmin N  (the shallowest iteration depth helpers search, 1..100)", 1, 100)
    if depth is not None:
        set_option(console, "smpmin", depth)
        say_threads(console)


def cmd_smpmax(console: Console, args: list[str]) -> None:
    most = option_row(console, "smpmax").high
    helpers = _count(console, args, f"smpmax N  (the most helper threads one search uses, 0..{most})", 0, most)
    if helpers is not None:
        set_option(console, "smpmax", helpers)
        say_threads(console)


THREAD_COMMANDS = [
    Command(("smpmt", "mt"), cmd_smpmt, "smpmt=N | mt=N",
            "search threads (Lazy SMP: each searches its own tree, all share the hash table); "
            "0 or 1 = one; no N: show"),
    Command(("smpmin",), cmd_smpmin, "smpmin N",
            "helper threads search only iterations of depth N and deeper (shallower ones are the main "
            "thread's alone)"),
    Command(("smpmax",), cmd_smpmax, "smpmax N",
            "at most N helper threads join one search (the rest stay parked)"),
]
