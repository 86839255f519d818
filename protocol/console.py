"""The Crafty-style console: a prompt such as `White(1): `, commands typed one per line."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, TextIO

from ponderosa.engine.engine import Engine
from ponderosa.engine.fen import FenError


class CommandError(Exception):
    """A command that cannot be carried out; its message is shown on one line."""


@dataclass(frozen=True)
class Command:
    """One console command: its handler and its help text."""

    names: tuple[str, ...]
    handler: Callable[[Console, list[str]], None]
    usage: str
    summary: str


def _depth_argument(args: list[str], command: str) -> int:
    if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
        raise CommandError(f"usage: {command} N  (N a depth of 1 or more)")
    return int(args[0])


def _format_rate(per_second: float) -> str:
    return f"{per_second / 1e6:.1f}M" if per_second >= 1e6 else f"{per_second / 1e3:.1f}K"


class Console:
    """Reads console commands and answers on `out`; the engine does the work."""

    def __init__(self, engine: Engine, out: TextIO = sys.stdout) -> None:
        self.engine = engine
        self.out = out
        self.running = True

    # -- output ---------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def prompt(self) -> str:
        side = "White" if self.engine.white_to_move else "Black"
        return f"{side}({self.engine.move_number}): "

    # -- dispatch -------------------------------------------------------------

    def execute(self, line: str) -> None:
        """Run one command line; any failure is reported on one line and the console goes on."""
        words = line.split()
        if not words:
            return
        command = COMMANDS_BY_NAME.get(words[0].lower())
        if command is None:
            self.say(f"Error (unknown command): {words[0]}")
            return
        try:
            command.handler(self, words[1:])
        except CommandError as error:
            self.say(f"Error: {error}")
        except Exception as error:  # a bug must not end the session: report it and go on
            self.say(f"Error ({type(error).__name__}): {error}")

    def run(self, stream: TextIO) -> None:
        """Prompt, read and execute until quit or end of input."""
        while self.running:
            self.out.write(self.prompt())
            self.out.flush()
            line = stream.readline()
            if not line:
                self.say()
                break
            self.execute(line)

    # -- commands -------------------------------------------------------------

    def cmd_setboard(self, args: list[str]) -> None:
        if not args:
            raise CommandError("usage: setboard FEN")
        try:
            self.engine.set_position(" ".join(args))
        except FenError as error:
            raise CommandError(str(error)) from None

    def cmd_display(self, args: list[str]) -> None:
        border = "    +---+---+---+---+---+---+---+---+"
        self.say(border)
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                piece = self.engine.piece_at(rank * 8 + file)
                # Black pieces are marked with '*' as on ICS style boards, so they stand out.
                cells.append(f" {piece.upper()} " if piece.isupper() else
                             f"*{piece.upper()} " if piece else (" . " if (rank + file) % 2 == 0 else "   "))
            self.say(f"  {rank + 1} |" + "|".join(cells) + "|")
            self.say(border)
        self.say("      a   b   c   d   e   f   g   h")
        self.say(f"  {self.engine.fen()}")

    def cmd_perft(self, args: list[str]) -> None:
        result = self.engine.perft(_depth_argument(args, "perft"))
        self.say(f"total moves={result.nodes}  time={result.seconds:.3f}s  "
                 f"({_format_rate(result.nodes_per_second)} nodes/sec)")

    def cmd_divide(self, args: list[str]) -> None:
        depth = _depth_argument(args, "divide")
        total = 0
        for move, nodes in self.engine.divide(depth):
            self.say(f"{self.engine.san(move):<8} {move:<6} {nodes}")
            total += nodes
        self.say(f"total moves={total}")

    def cmd_perf(self, args: list[str]) -> None:
        result = self.engine.perf()
        self.say(f"generated {result.generated} moves, time={result.generate_seconds:.2f}s")
        self.say(f"generated {_format_rate(result.generated_per_second)} moves/sec")
        self.say(f"generated/made/unmade {result.made} moves, time={result.make_seconds:.2f}s")
        self.say(f"generated/made/unmade {_format_rate(result.made_per_second)} moves/sec")

    def cmd_help(self, args: list[str]) -> None:
        if args:
            command = COMMANDS_BY_NAME.get(args[0].lower())
            if command is None:
                raise CommandError(f"no help for unknown command {args[0]!r}")
            self.say(f"{command.usage}: {command.summary}")
            return
        for command in COMMANDS:
            self.say(f"{command.usage:<24} {command.summary}")

    def cmd_quit(self, args: list[str]) -> None:
        self.running = False


COMMANDS: list[Command] = [
    Command(("setboard",), Console.cmd_setboard, "setboard FEN",
            "set up a position (counters may be left out, as in Crafty)"),
    Command(("display", "d"), Console.cmd_display, "display", "show the board"),
    Command(("perft",), Console.cmd_perft, "perft N", "count the leaf nodes N plies deep, with time and speed"),
    Command(("divide",), Console.cmd_divide, "divide N", "perft N split by root move"),
    Command(("perf",), Console.cmd_perf, "perf",
            "move generator speed: generated, and generated+made+unmade, per second"),
    Command(("help",), Console.cmd_help, "help [command]", "list the commands, or explain one"),
    Command(("quit", "end", "exit"), Console.cmd_quit, "quit | end | exit", "leave the program"),
]
COMMANDS_BY_NAME: dict[str, Command] = {name: command for command in COMMANDS for name in command.names}
