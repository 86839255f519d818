"""The `ponderosa` program: a Crafty-style console; command-line arguments run first as commands."""
from __future__ import annotations

import gc
import os
import signal
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Protocol

from ponderosa.engine.engine import Engine
from ponderosa.engine.identity import FULL_NAME
from ponderosa.engine.records import LogTee, Players
from ponderosa.protocol.arrivals import ARRIVALS
from ponderosa.protocol.console import CommandError, Console
from ponderosa.protocol.console.banner import banner_lines
from ponderosa.protocol.streams import tolerate_bad_bytes
from ponderosa.protocol.uci import UciSession
from ponderosa.protocol.xboard import XBoardSession


class Arguments(Protocol):
    xboard: bool
    uci: bool
    commands: list[str]


DESCRIPTION = """\
Ponderosa, a chess engine for XBoard/WinBoard (CECP) and UCI GUIs.

Started by a person it shows a Crafty-style prompt such as `White(1): `;
`help` lists the commands. Each argument is run as a command before the
prompt appears, e.g.:  ponderosa "setboard <fen>" "perft 5" quit

A file .ponderosarc in the working directory (or else the home directory)
is read first: commands one per line, as typed, ending with `exit`.
GUIs start it as  xboard -fcp ponderosa  (the `xboard` command switches to
the XBoard protocol) or with --xboard; a UCI GUI's first command `uci`
switches to UCI, and --uci starts in UCI mode at once.
`ponderosa bench` runs the bench alone and exits; its last line reads
`N nodes N nps` (OpenBench).

  ponderosa c      continue the last game (the newest game.NNN in the working
                   directory, which the console writes after every move)
"""


def parse_arguments(argv: list[str]) -> Arguments:
    if not set(argv) - {"--xboard", "--uci"}:
        # How GUIs start the engine: no argparse to import (start-up time).
        return SimpleNamespace(xboard="--xboard" in argv, uci="--uci" in argv, commands=[])  # type: ignore[return-value]
    import argparse
    parser = argparse.ArgumentParser(prog="ponderosa", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--xboard", action="store_true", help="start in XBoard protocol mode at once")
    parser.add_argument("--uci", action="store_true", help="start in UCI protocol mode at once")
    parser.add_argument("--version", action="version", version=FULL_NAME)
    parser.add_argument("commands", nargs="*", help="console commands to run first, one per argument")
    return parser.parse_args(argv)  # type: ignore[return-value]


def startup_file() -> Path | None:
    """.ponderosarc in the working directory, else in the home directory (as Crafty's .craftyrc)."""
    for folder in (Path.cwd(), Path.home()):
        candidate = folder / ".ponderosarc"
        if candidate.is_file():
            return candidate
    return None


def exit_on_terminate(signal_number: int, frame: object) -> None:
    """SIGTERM (a GUI ending a lingering engine, `kill`) and SIGHUP (its terminal closed) end the
    program the way `quit` does, through main's clean-up, instead of killing it with the learned
    store open."""
    raise SystemExit(128 + signal_number)


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    tolerate_bad_bytes(sys.stdin, sys.stdout)   # before the console's first read
    try:
        signal.signal(signal.SIGTERM, exit_on_terminate)
        if hasattr(signal, "SIGHUP"):   # not on Windows
            signal.signal(signal.SIGHUP, exit_on_terminate)
    except ValueError:
        pass   # not the main thread (main called from a test's thread): no handler there
    engine = Engine()
    # What start-up made (modules, tables, the book's and python-chess's objects) lives as long
    # as the process: out of the collector's sight, a full collection during a game has less
    # to walk, and a short move on a low clock is not held up as long.
    gc.collect()
    gc.freeze()
    try:
        return run(engine, arguments)
    except BrokenPipeError:   # the reader went away (`ponderosa bstat quit | head`): nothing to tell it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    finally:
        engine.shutdown()


def run(engine: Engine, arguments: Arguments) -> int:
    """The console, then the XBoard protocol if asked for, until quit or end of input."""
    # stderr: stdout may already be a GUI's protocol line
    for message in engine.startup_messages():
        print(message, file=sys.stderr)
    console = Console(engine)
    if arguments.commands and all(command.split()[:1] in (["bench"], ["genfens"], ["quit"])
                                  for command in arguments.commands):
        # OpenBench's calls (`bench`, `genfens ... quit`) play no game: no log.NNN / game.NNN
        # left behind in a worker's folder for each of them.
        without_default_game_files(engine)
    if arguments.commands == ["bench"]:
        console.execute("bench")   # OpenBench: `ENGINE bench` alone, then the process must end
        return 0
    startup = startup_file()
    if startup is not None:
        console.execute(f"input {startup}")
    # After .ponderosarc, so the banner shows the hash, threads and tables it set.
    if sys.stdin.isatty() and not (arguments.xboard or arguments.uci):   # a person at a terminal, not a GUI
        for line in banner_lines(engine.options.summary()):
            console.say(line)
    for command in arguments.commands:
        if command == "c":   # Crafty's `crafty c`: continue the last game
            try:
                console.resume_last_game()
            except CommandError as error:
                console.say(f"Error: {error}")
        else:
            console.execute(command)
        if not console.running:
            break
    ARRIVALS.stop_recording()   # the program reads its input from here on
    try:
        if console.running and not (arguments.xboard or arguments.uci):
            console.run(sys.stdin)
        if arguments.uci:
            uci_session(engine).run(sys.stdin)
        elif console.uci_requested:
            uci_session(engine).run(sys.stdin, first_line="uci")   # the `uci` that chose the protocol
        elif arguments.xboard or console.xboard_requested:
            xboard_session(engine).run(sys.stdin)
    except KeyboardInterrupt:
        console.say()
    return 0


def without_default_game_files(engine: Engine) -> None:
    """A GUI keeps the game record itself: game.NNN / log.NNN files are the console's default,
    and stay on under a protocol only when the user turned them on (`log on` before it)."""
    files = engine.game_files
    if not files.explicit:
        files.enabled = False


def uci_session(engine: Engine) -> UciSession:
    """The UCI session over the console's engine: no game files unless the user asked for them."""
    without_default_game_files(engine)
    return UciSession(engine)


def xboard_session(engine: Engine) -> XBoardSession:
    """The XBoard session over the console's engine: game files off unless the user turned them
    on (`log on` before `xboard`, or option Log); its output goes to log.NNN when they are on."""
    without_default_game_files(engine)
    session = XBoardSession(engine, LogTee(sys.stdout, lambda: engine.game_files))  # type: ignore[arg-type]
    server = engine.ics   # the server rules' settings: the opponent's name once zippy has sent it
    engine.players = lambda: Players(session.engine_side, False, server.opponent_name, "?")
    return session


if __name__ == "__main__":
    sys.exit(main())
