"""Crafty's parallel-search commands: smpmt=N (mt=N), smpmin N, smpmax N."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ponderosa.engine.worker import MAX_THREADS

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.console_commands import Command


class ConsoleThreads:
    """Mixin of Console: the thread count and how the helpers join a search."""

    engine: Engine
    say: Callable[..., None]

    def _count(self, args: list[str], usage: str, low: int, high: int) -> int | None:
        """The one number argument within low..high; None (after saying the usage) otherwise."""
        if len(args) != 1 or not args[0].isdigit() or not low <= int(args[0]) <= high:
            self.say(f"Error: usage: {usage}")
            return None
        return int(args[0])

    def say_threads(self) -> None:
        helpers = self.engine.helpers
        self.say(f"search threads: {self.engine.threads} ({self.engine.searching_threads} per search; "
                 f"helpers from depth {helpers.min_depth}, at most {helpers.max_helpers} helpers)")

    def cmd_smpmt(self, args: list[str]) -> None:
        if not args:
            self.say_threads()
            return
        count = self._count(args, f"smpmt=N  (threads, 0..{MAX_THREADS}; 0 or 1: one thread)", 0, MAX_THREADS)
        if count is not None:
            self.engine.end_search()   # the ponder search: the count changes now, as the reply says
            self.engine.set_threads(max(1, count))
            self.say_threads()

    def cmd_smpmin(self, args: list[str]) -> None:
        depth = self._count(args, "smpmin N  (the shallowest iteration depth helpers search, 1..100)", 1, 100)
        if depth is not None:
            self.engine.helpers.min_depth = depth
            self.say_threads()

    def cmd_smpmax(self, args: list[str]) -> None:
        helpers = self._count(args, f"smpmax N  (the most helper threads one search uses, 0..{MAX_THREADS - 1})",
                              0, MAX_THREADS - 1)
        if helpers is not None:
            self.engine.helpers.max_helpers = helpers
            self.say_threads()


def thread_commands(command: type[Command]) -> list[Command]:
    """The console's entries for these commands (Command is passed in: console.py imports this module)."""
    return [
        command(("smpmt", "mt"), ConsoleThreads.cmd_smpmt, "smpmt=N | mt=N",
                "search threads (Lazy SMP: each searches its own tree, all share the hash table); "
                "0 or 1 = one; no N: show"),
        command(("smpmin",), ConsoleThreads.cmd_smpmin, "smpmin N",
                "helper threads search only iterations of depth N and deeper (shallower ones are the main "
                "thread's alone)"),
        command(("smpmax",), ConsoleThreads.cmd_smpmax, "smpmax N",
                "at most N helper threads join one search (the rest stay parked)"),
    ]
