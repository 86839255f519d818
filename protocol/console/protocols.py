"""Console commands of the protocols: switch to UCI, MultiPV (for `analyze` and `go`), and
install the XBoard engine-list entry."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ponderosa.protocol.console.commands import Command, CommandError, option_row, option_value, set_option
from ponderosa.protocol.xboard.registration import install_xboard

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console


def cmd_uci(console: Console, args: list[str]) -> None:
    """Switch to the UCI protocol (the first command a UCI GUI sends)."""
    console.running = False
    console.uci_requested = True


def cmd_multipv(console: Console, args: list[str]) -> None:
    row = option_row(console, "multipv")
    usage = f"multipv N  ({row.low}..{row.high} lines per iteration)"
    if not args:
        console.say(f"multipv {option_value(console, 'multipv')}")
        return
    if len(args) != 1 or not args[0].isdigit() or not row.low <= int(args[0]) <= row.high:
        raise CommandError(f"usage: {usage}")
    set_option(console, "multipv", int(args[0]))


def cmd_install(console: Console, args: list[str]) -> None:
    """install xboard [PLUGIN_DIR [SETTINGS_FILE]]: the engine-list entry and the logo."""
    usage = "install xboard [PLUGIN_DIR [SETTINGS_FILE]]"
    if not args or args[0].lower() != "xboard" or len(args) > 3:
        raise CommandError(f"usage: {usage}")
    root = Path(args[1]).expanduser() if len(args) > 1 else None
    settings = Path(args[2]).expanduser() if len(args) > 2 else None
    try:
        installed = install_xboard(root, settings)
    except OSError as error:
        raise CommandError(f"install xboard: {error}") from None
    console.say(f"plugin file: {installed.plugin}")
    console.say(f"logo: {installed.logo}")
    console.say(f"engine list: {installed.settings} (XBoard: Engine > Load New Engine > {installed.plugin.stem})")


PROTOCOL_COMMANDS = [
    Command(("uci",), cmd_uci, "uci", "switch to the UCI protocol"),
    Command(("multipv",), cmd_multipv, "multipv [N]",
            "lines searched and shown per iteration (analyze, go); 1 = the plain search"),
    Command(("install",), cmd_install, "install xboard [DIR [RCFILE]]",
            "list Ponderosa in XBoard's engine list (~/.xboardrc) and write its plugin file and logo"),
]
