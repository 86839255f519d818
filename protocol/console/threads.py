"""Crafty's parallel-search commands: smpmt=N (mt=N), smpmin N, smpmax N."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.engine.limits import MAX_THREADS
from ponderosa.engine.settings import ResourceError
from ponderosa.protocol.console.commands import Command

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
                f"{engine.options.smp_min_depth}, at most {engine.options.smp_max_helpers} helpers)")


def cmd_smpmt(console: Console, args: list[str]) -> None:
    if not args:
        say_threads(console)
        return
    count = _count(console, args, f"smpmt=N  (threads, 0..{MAX_THREADS}; 0 or 1: one thread)", 0, MAX_THREADS)
    if count is not None and max(1, count) != console.engine.threads:   # the count in use: nothing to do or say
        console.engine.end_search()   # the silent ponder search ends: the count changes now, as the reply says
        try:
            console.engine.options.set_threads(max(1, count))
        except ResourceError as error:
            console.say(f"Error: {error}")
        say_threads(console)


def cmd_smpmin(console: Console, args: list[str]) -> None:
    depth = _count(console, args, "smpmin N  (the shallowest iteration depth helpers search, 1..100)", 1, 100)
    if depth is not None:
        console.engine.options.smp_min_depth = depth
        say_threads(console)


def cmd_smpmax(console: Console, args: list[str]) -> None:
    helpers = _count(console, args, f"smpmax N  (the most helper threads one search uses, 0..{MAX_THREADS - 1})",
                     0, MAX_THREADS - 1)
    if helpers is not None:
        console.engine.options.smp_max_helpers = helpers
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
