"""The console's commands about itself: help, echo, input (a command file), and leaving it
(quit, or a switch to the XBoard protocol)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ponderosa.protocol.console.commands import CommandError

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console


def cmd_help(console: Console, args: list[str]) -> None:
    if args:
        command = next((command for command in console.commands if args[0].lower() in command.names), None)
        if command is None:
            raise CommandError(f"no help for unknown command {args[0]!r}")
        console.say(f"{command.usage}: {command.summary}")
        return
    for command in console.commands:
        console.say(f"{command.usage:<28} {command.summary}")
    console.say("Moves may be typed in SAN (Nf3, O-O, e8=Q) or coordinates (g1f3, e7e8q).")


def cmd_echo(console: Console, args: list[str]) -> None:
    console.say(" ".join(args))


def cmd_input(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: input FILE")
    console.run_file(Path(args[0]))


def cmd_quit(console: Console, args: list[str]) -> None:
    console.running = False


def cmd_xboard(console: Console, args: list[str]) -> None:
    """Switch to the XBoard protocol, as Crafty and GNU Chess do."""
    console.running = False
    console.xboard_requested = True
