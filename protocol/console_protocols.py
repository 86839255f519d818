"""Console commands of the protocol work: switch to UCI, MultiPV for `analyze`, and install the
XBoard engine-list entry. A mixin of Console; its COMMAND_ENTRIES join Console's table."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ponderosa.engine.registration import install_xboard
from ponderosa.protocol.console_commands import CommandError

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine

MAX_LINES = 256


class ProtocolCommands:
    """cmd_uci, cmd_multipv and cmd_install for the Crafty-style console."""

    engine: Engine
    running: bool
    uci_requested: bool = False

    def say(self, text: str = "") -> None:   # Console's
        raise NotImplementedError

    def _usage(self, text: str) -> Exception:
        return CommandError(f"usage: {text}")

    def cmd_uci(self, args: list[str]) -> None:
        """Switch to the UCI protocol (the first command a UCI GUI sends)."""
        self.running = False
        self.uci_requested = True

    def cmd_multipv(self, args: list[str]) -> None:
        usage = f"multipv N  (1..{MAX_LINES} lines per iteration)"
        if not args:
            self.say(f"multipv {self.engine.multi_pv}")
            return
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= MAX_LINES:
            raise self._usage(usage)
        self.engine.multi_pv = int(args[0])

    def cmd_install(self, args: list[str]) -> None:
        """install xboard [PLUGIN_DIR [SETTINGS_FILE]]: the engine-list entry and the logo."""
        usage = "install xboard [PLUGIN_DIR [SETTINGS_FILE]]"
        if not args or args[0].lower() != "xboard" or len(args) > 3:
            raise self._usage(usage)
        root = Path(args[1]).expanduser() if len(args) > 1 else None
        settings = Path(args[2]).expanduser() if len(args) > 2 else None
        try:
            installed = install_xboard(root, settings)
        except OSError as error:
            raise CommandError(f"install xboard: {error}") from None
        self.say(f"plugin file: {installed.plugin}")
        self.say(f"logo: {installed.logo}")
        self.say(f"engine list: {installed.settings} (XBoard: Engine > Load New Engine > {installed.plugin.stem})")


# (names, handler, usage, summary): Console wraps each in its Command record.
COMMAND_ENTRIES = [
    (("uci",), ProtocolCommands.cmd_uci, "uci", "switch to the UCI protocol"),
    (("multipv",), ProtocolCommands.cmd_multipv, "multipv [N]",
     "lines searched and shown per iteration (analyze, go); 1 = the plain search"),
    (("install",), ProtocolCommands.cmd_install, "install xboard [DIR [RCFILE]]",
     "list Ponderosa in XBoard's engine list (~/.xboardrc) and write its plugin file and logo"),
]
