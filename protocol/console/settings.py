"""The console's search and display settings: hash and pawn hash sizes, draw score, extensions,
evaluation scales, the thinking-output threshold (noise), the alarm and ANSI output."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.protocol.console.commands import (
    MEGABYTE,
    CommandError,
    on_off,
    option_value,
    parse_size,
    positive_int,
    set_option,
)

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console


def cmd_hash(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: hash SIZE  (e.g. hash 64M, hash=1G)")
    size = parse_size(args[0])
    if size == option_value(console, "hash") * MEGABYTE:
        return   # the size in use: nothing changes, nothing to say (a script may send it every game)
    console.engine.end_search()   # the silent ponder search ends: the table changes now, as the reply says
    set_option(console, "hash", size / MEGABYTE)
    console.say(f"hash table memory = {console.engine.options.hash_bytes // 1024}K bytes")


def cmd_hashp(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: hashp SIZE  (e.g. hashp 8M)")
    console.engine.end_search()   # likewise
    set_option(console, "hashp", parse_size(args[0]) / MEGABYTE)


def cmd_drawscore(console: Console, args: list[str]) -> None:
    if len(args) != 1 or not args[0].lstrip("+-").isdigit():
        raise CommandError("usage: drawscore N  (centipawns, + to like draws)")
    set_option(console, "drawscore", int(args[0]))


def cmd_extensions(console: Console, args: list[str]) -> None:
    if not args:
        for name, plies in console.engine.options.extensions().items():
            console.say(f"{name:<10} {plies:.2f}")
        return
    if len(args) != 2:
        raise CommandError("usage: extensions incheck|onerep|recapture|pushpp|mate PLIES")
    try:
        console.engine.options.set_extension(args[0].lower(), float(args[1]))
    except ValueError as error:
        raise CommandError(str(error)) from None


def cmd_evaluation(console: Console, args: list[str]) -> None:
    if len(args) != 2 or not args[1].lstrip("+-").isdigit():
        raise CommandError("usage: evaluation asymmetry|bscale|kscale|tropism|pscale|ppscale N")
    if console.engine.options.find(f"evaluation {args[0].lower()}", "console") is None:
        raise CommandError(f"unknown evaluation scale {args[0]!r}; known: asymmetry, bscale, kscale, tropism, "
                           f"pscale, ppscale")
    set_option(console, f"evaluation {args[0].lower()}", int(args[1]))


def cmd_noise(console: Console, args: list[str]) -> None:
    usage = "noise N  (nodes before thinking, whispers and kibitzes are shown)"
    console.noise_nodes = positive_int(args, usage, minimum=0)
    set_option(console, "noise", console.noise_nodes)


def cmd_alarm(console: Console, args: list[str]) -> None:
    console.alarm = on_off(args, "alarm")


def cmd_ansi(console: Console, args: list[str]) -> None:
    console.ansi = on_off(args, "ANSI")


def cmd_eval(console: Console, args: list[str]) -> None:
    """`eval` shows the evaluation in use; `eval nnue|classic` switches; `eval FILE` loads a network."""
    engine = console.engine
    if len(args) > 1:
        raise CommandError("usage: eval [nnue|classic|FILE]")
    if args:
        engine.end_search()   # the network is the process's: no search may read it while it changes
        if args[0].lower() in ("nnue", "classic"):
            try:
                engine.options.set_eval_mode(args[0].lower())
            except ValueError as error:
                raise CommandError(str(error)) from None
        else:
            messages = set_option(console, "eval", args[0])
            if messages:   # the file cannot be used: one line, which says what is kept
                raise CommandError("; ".join(messages))
    console.say(engine.options.evaluation_in_use())


def cmd_skill(console: Console, args: list[str]) -> None:
    """Crafty's `skill N`: 1 (weakest) to 100 (full strength); alone, the level in use."""
    if args:
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 100:
            raise CommandError("usage: skill N  (1-100; 100 is full strength)")
        set_option(console, "skill", int(args[0]))
    console.say(f"skill {option_value(console, 'skill')}: {console.engine.options.describe_strength()}")
