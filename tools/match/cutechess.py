"""A match run by cutechess-cli rather than tools/match/gauntlet.py: cutechess keeps the clocks, starts the
engines, adjudicates nothing unless asked, and writes the PGN. This script only builds its command
line from the names tools/match/gauntlet.py knows, runs it, and reads the PGN back into the same kind of
table (score, Elo with its 95% margin, time losses, illegal moves and crashes of each side).

    python -m tools.match.cutechess --opponent ethereal --games 100 --seed 19001 \\
        --pgn ethereal12-cutechess.pgn

Ponderosa plays through UCI with its own defaults (book and learning on) unless --engine-option
says otherwise; the opponent as tools/match/gauntlet.py starts it (one thread, 64 MB hash, no book). The
openings default to tests/data/openings/noob_3moves_600.epd, a set the other tools never play,
drawn at random by cutechess (`-srand` SEED) and each played twice with colours swapped.

cutechess-cli is not a Python package: build it from github.com/cutechess/cutechess (tag v1.4.0
builds against Debian's Qt 5: `apt-get install qtbase5-dev libqt5svg5-dev`, then
`cmake .. && make cli` in a build folder) and put it on PATH or give --cutechess."""
from __future__ import annotations

import argparse
import math
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

from tools.engine_process import program
from tools.match.engines import opponent_spec, resolve_command
from tools.match.gauntlet import DEFAULT_OPENINGS as MATCH_OPENINGS
from tools.match.gauntlet import elo_with_margin, format_elo, format_margin, option_list, parse_tc

DEFAULT_OPENINGS = MATCH_OPENINGS.with_name("noob_3moves_600.epd")
ENGINE_NAME = "Ponderosa"

# cutechess's Termination tag for a game an engine lost by its own fault, and the column it counts in
# (`abandoned`: the engine disconnected or died; `stalled connection`: it stopped answering).
FAULTS = {"time forfeit": "time", "illegal move": "illegal", "abandoned": "crash", "stalled connection": "crash"}


@dataclass
class Tally:
    points: list[float] = field(default_factory=list)   # the tested engine's points, game by game
    faults: Counter = field(default_factory=Counter)     # ("engine" | "opponent", kind) -> games
    unfinished: int = 0

    @property
    def wins(self) -> int:
        return self.points.count(1.0)

    @property
    def draws(self) -> int:
        return self.points.count(0.5)

    @property
    def losses(self) -> int:
        return self.points.count(0.0)


def cutechess_option(name: str, value: object) -> str:
    """One `option.NAME=VALUE` argument; UCI booleans as cutechess passes them (true/false)."""
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"option.{name}={value}"


def engine_arguments(name: str, command: list[str], protocol: str, options: list[tuple[str, object]]) -> list[str]:
    """`-engine name=... cmd=... arg=... proto=... option.X=Y` for one engine."""
    arguments = ["-engine", f"name={name}", f"cmd={command[0]}", f"proto={protocol}"]
    arguments += [f"arg={extra}" for extra in command[1:]]
    arguments += [cutechess_option(option, value) for option, value in options]
    return arguments


def build_command(cutechess: str, opponent: str, games: int, tc: str, concurrency: int, seed: int,
                  openings: Path, pgn: Path, engine_options: list[tuple[str, object]],
                  engine: list[str] | None = None) -> list[str]:
    """The whole cutechess-cli command line; ValueError for an unknown opponent or an odd game count."""
    spec = opponent_spec(opponent)
    if spec is None:
        raise ValueError(f"unknown opponent {opponent!r} (tools/match/gauntlet.py --help lists them)")
    if games <= 0 or games % 2:
        raise ValueError("the number of games must be even and positive (each opening twice)")
    base, increment = parse_tc(tc)
    fmt = "pgn" if openings.suffix.lower() == ".pgn" else "epd"
    return [cutechess,
            *engine_arguments(ENGINE_NAME, engine or program(), "uci", engine_options),
            *engine_arguments(spec.key, resolve_command(spec.command), spec.protocol, list(spec.options)),
            "-each", f"tc={base:g}+{increment:g}",
            "-openings", f"file={openings}", f"format={fmt}", "order=random",
            "-repeat", "-games", "2", "-rounds", str(games // 2),
            "-concurrency", str(concurrency), "-srand", str(seed),
            "-pgnout", str(pgn), "-ratinginterval", "10"]


def tally_games(pgn: Path, engine_name: str = ENGINE_NAME) -> Tally:
    """The tested engine's points and both sides' faults from cutechess's PGN."""
    tally = Tally()
    with pgn.open(encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            headers = game.headers
            engine_white = headers.get("White") == engine_name
            if not engine_white and headers.get("Black") != engine_name:
                players = f"{headers.get('White')} - {headers.get('Black')}"
                raise ValueError(f"{pgn}: a game without {engine_name}: {players}")
            result = headers.get("Result", "*")
            if result not in ("1-0", "0-1", "1/2-1/2"):
                tally.unfinished += 1
                continue
            white_points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
            points = white_points if engine_white else 1.0 - white_points
            tally.points.append(points)
            kind = FAULTS.get(headers.get("Termination", "").lower())
            if kind is not None and points != 0.5:
                tally.faults[("engine" if points == 0.0 else "opponent", kind)] += 1
    return tally


def report(opponent: str, tally: Tally) -> str:
    """A Markdown table like tools/match/gauntlet.py's (E/O: the tested engine's / the opponent's faults)."""
    games = len(tally.points)
    elo, margin = elo_with_margin(tally.points)
    score = 100 * sum(tally.points) / games if games else math.nan
    faults = " | ".join(f"{tally.faults[('engine', kind)]}/{tally.faults[('opponent', kind)]}"
                        for kind in ("time", "illegal", "crash"))
    return ("| opponent | games | wins | draws | losses | score | Elo | time losses E/O | illegal E/O "
            "| crashes or stalls E/O |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
            f"| {opponent} | {games} | {tally.wins} | {tally.draws} | {tally.losses} | {score:.1f}% | "
            f"{format_elo(elo)} {format_margin(margin)} | {faults} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--opponent", required=True, help="a name tools/match/gauntlet.py knows, e.g. ethereal")
    parser.add_argument("--games", type=int, default=100, help="games, even (default 100)")
    parser.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds (default 10+0.1)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="cutechess -srand: which openings (default 1)")
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS, help="EPD or PGN file")
    parser.add_argument("--pgn", type=Path, required=True, help="cutechess writes the games here")
    parser.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option of Ponderosa (repeatable), e.g. Threads=2")
    parser.add_argument("--cutechess", default="cutechess-cli", help="the cutechess-cli program")
    parser.add_argument("--report-only", action="store_true", help="only read --pgn and print the table")
    args = parser.parse_args(argv)
    engine_options = option_list(parser, "--engine-option", args.engine_option)
    if not args.report_only:
        cutechess = shutil.which(args.cutechess)
        if cutechess is None:
            print(f"cutechess-cli not found: {args.cutechess!r} (see --help for how to build it)", file=sys.stderr)
            return 2
        if not args.openings.is_file():
            print(f"{args.openings}: no such openings file", file=sys.stderr)
            return 2
        try:
            command = build_command(cutechess, args.opponent, args.games, args.tc, args.concurrency, args.seed,
                                    args.openings, args.pgn, engine_options)
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
        run_runner(command, "cutechess-cli")
    return report_games(args.pgn, args.opponent, "tools.match.cutechess", argv)


def run_runner(command: list[str], runner: str) -> None:
    """Run a match runner's command line (shown first on stderr, quoted to be pasted); a failure
    is said, not raised, since the games it wrote are still read."""
    print(shlex.join(command), file=sys.stderr)
    done = subprocess.run(command)
    if done.returncode != 0:
        print(f"{runner} exited with {done.returncode}", file=sys.stderr)


def report_games(pgn: Path, opponent: str, module: str, argv: list[str] | None) -> int:
    """Read the runner's PGN and print the table and the command; 1 when no games were written."""
    if not pgn.is_file():
        print(f"{pgn}: no games were written", file=sys.stderr)
        return 1
    tally = tally_games(pgn)
    print(report(opponent, tally))
    if tally.unfinished:
        print(f"{tally.unfinished} unfinished games not counted")
    print(f"\ncommand: python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
