"""Crafty's tablebase commands for the console: egtb, tbpath, cache, swindle.

A mixin of Console; COMMANDS below are added to the console's command table."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.protocol.console_commands import CommandError, parse_size

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine


class TablebaseCommands:
    """The handlers; `say`, `engine` and the size parser come from Console."""

    engine: Engine

    def say(self, text: str = "") -> None:   # provided by Console
        raise NotImplementedError

    def _tablebase_path(self, path: str) -> None:
        self.engine.end_search()   # the ponder search: the tables change now, as the reply says
        for message in self.engine.set_tablebase_path(path) or []:
            self.say(f"Syzygy: {message}")
        self.say(self.engine.tablebases.summary())

    def cmd_egtb(self, args: list[str]) -> None:
        """egtb: report the tables found; egtb PATH: use the tables in PATH first."""
        if args:
            self._tablebase_path(" ".join(args))
            return
        self.say(self.engine.tablebases.summary())

    def cmd_tbpath(self, args: list[str]) -> None:
        if not args:
            raise CommandError("usage: tbpath PATH  (folders separated by ':' or ';')")
        self._tablebase_path(" ".join(args))

    def cmd_cache(self, args: list[str]) -> None:
        if not args:
            self.say(f"tablebase cache = {self.engine.tablebases.cache_bytes // 1024}K bytes")
            return
        if len(args) != 1:
            raise CommandError("usage: cache SIZE  (e.g. cache 32M; 0 turns the cache off)")
        self.engine.end_search()
        used = self.engine.set_tablebase_cache(parse_size(args[0]))
        self.say(f"tablebase cache = {used // 1024}K bytes")

    def cmd_swindle(self, args: list[str]) -> None:
        if len(args) != 1 or args[0].lower() not in ("on", "off"):
            raise CommandError("usage: swindle on|off")
        self.engine.tablebases.swindle = args[0].lower() == "on"
        self.say(f"swindle mode {'on' if self.engine.tablebases.swindle else 'off'}")

    def report_tablebase_problems(self) -> None:
        """Tables found broken during a search (they are no longer used)."""
        for message in self.engine.tablebases.new_problems():
            self.say(f"Syzygy: {message}")


def tablebase_commands(command_type: type) -> list:
    """The Command entries, built with the console's Command class (no import cycle)."""
    return [
        command_type(("egtb",), TablebaseCommands.cmd_egtb, "egtb [PATH]",
                     "Syzygy tablebases: report the largest class found; PATH: use the tables there"),
        command_type(("tbpath",), TablebaseCommands.cmd_tbpath, "tbpath PATH",
                     "folders of Syzygy tables (.rtbw/.rtbz), separated by ':' or ';'"),
        command_type(("cache",), TablebaseCommands.cmd_cache, "cache [SIZE]",
                     "tablebase cache of decoded values (K, M or G; 0 = off; default 4M)"),
        command_type(("swindle",), TablebaseCommands.cmd_swindle, "swindle on|off",
                     "in a tablebase draw with more material, play on for the win (game moves only)"),
    ]
