"""What every console command module shares: the command record, its error, and the parsing of
arguments (counts, sizes, times, on/off) and the formatting of scores and speeds."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ponderosa.engine.errors import EngineError
from ponderosa.engine.search import mate_distance

if TYPE_CHECKING:
    from ponderosa.engine.option_table import Option
    from ponderosa.protocol.console.session import Console

MEGABYTE = 1 << 20   # hash sizes: the console takes bytes, K, M and G; the option table's rows MB
SIZE_PATTERN = re.compile(r"^(\d+)([KMG]?)B?$", re.IGNORECASE)
# Words that look like a move (SAN or coordinates) get "Illegal move" rather than "unknown command".
MOVE_PATTERN = re.compile(r"^([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBNqrbn])?|[a-h][1-8][a-h][1-8][qrbn]?|"
                          r"[O0]-[O0](-[O0])?)[+#!?]*$")


class CommandError(Exception):
    """A command that cannot be carried out; its message is shown on one line."""


def option_row(console: Console, words: str) -> Option:
    """The option table's row of one of the console's own commands (`hash`, `learn threshold`)."""
    row = console.engine.options.find(words, "console")
    assert row is not None, f"no option row for the console's {words!r}"
    return row


def option_value(console: Console, words: str) -> Any:
    """The value in use of the option table's row the console's words name."""
    return console.engine.options.get(option_row(console, words))


def set_option(console: Console, words: str, value: object) -> list[str]:
    """Set the option table's row the console's words name; what the user is told ([] for
    nothing). CommandError for a value the engine refuses."""
    row = console.engine.options.find(words, "console")
    if row is None:
        raise CommandError(f"unknown setting: {words}")
    try:
        return console.engine.options.set(row, value) or []
    except EngineError as error:
        raise CommandError(str(error)) from None


@dataclass(frozen=True)
class Command:
    """One console command: its names, its handler (given the console and the arguments) and
    its help text."""

    names: tuple[str, ...]
    handler: Callable[[Console, list[str]], None]
    usage: str
    summary: str


def positive_int(args: list[str], usage: str, minimum: int = 1) -> int:
    if len(args) != 1 or not args[0].lstrip("-").isdigit() or int(args[0]) < minimum:
        raise CommandError(f"usage: {usage}")
    return int(args[0])


def on_off(args: list[str], usage: str) -> bool:
    if len(args) != 1 or args[0].lower() not in ("on", "off"):
        raise CommandError(f"usage: {usage} on|off")
    return args[0].lower() == "on"


def depth_argument(args: list[str], command: str) -> int:
    return positive_int(args, f"{command} N  (N a depth of 1 or more)")


def number_argument(text: str, usage: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise CommandError(f"usage: {usage}") from None


def parse_size(text: str) -> int:
    """Crafty's hash sizes: 65536, 512K, 64M, 1G (bytes)."""
    match = SIZE_PATTERN.match(text.strip())
    if not match:
        raise CommandError(f"bad size {text!r}: use a number of bytes, or nnnK, nnnM, nnnG")
    return int(match.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match.group(2).upper()]


def parse_seconds(text: str) -> float:
    """A time in seconds, or mm:ss as Crafty's `st` accepts."""
    try:
        if ":" in text:
            minutes, seconds = text.split(":", 1)
            value = int(minutes) * 60 + float(seconds)
        else:
            value = float(text)
    except ValueError:
        raise CommandError(f"bad time {text!r}: use seconds or mm:ss") from None
    if not value > 0:
        raise CommandError("the time must be more than zero")
    return value


def format_rate(per_second: float) -> str:
    return f"{per_second / 1e6:.1f}M" if per_second >= 1e6 else f"{per_second / 1e3:.1f}K"


def format_score(score_for_white: int) -> str:
    """Pawns from White's side, or Crafty's Mat05 / -Mat05 for mates."""
    mate = mate_distance(score_for_white)
    if mate is not None:
        return f"{'' if mate > 0 else '-'}Mat{abs(mate):02d}"
    return f"{score_for_white / 100:+.2f}"
