"""A match run by fastchess, the match runner OpenBench's workers use, with the same command line
and the same table as tools/match/cutechess.py: fastchess keeps the clocks and writes the PGN; this
script builds its command line, runs it and reads the PGN back (score, Elo, time losses, illegal
moves and crashes of each side).

    python -m tools.match.fastchess --opponent ethereal --games 100 --seed 19001 --pgn out.pgn
    python -m tools.match.fastchess --openbench --opponent ethereal --tc 8+0.08 --games 100 --pgn out.pgn
    python -m tools.match.fastchess --openbench --opponent-command /path/Ponderosa-base --sprt 0,5 --pgn out.pgn

--openbench plays as an OpenBench worker does: Ponderosa with the STC preset's options of
openbench/Ponderosa.json (read from it: Threads=1 Hash=8 OwnBook=false Learn=0), the preset's
resign and draw adjudication, timemargin=250, -recover, and the openings of tests/data/openings/noob_2moves.epd.
--opponent-command plays another UCI build (a base commit's `make` file, say) as the opponent;
--sprt ELO0,ELO1 hands the stopping rule to fastchess's own SPRT (normalised Elo, as OpenBench).

fastchess speaks UCI only: an opponent that plays through XBoard is refused. It is not a Python
package: build it from github.com/Disservin/fastchess (or OpenBench's fork, AndyGrant/fastchess)
with `make -j2` and put it on PATH as fastchess or give --fastchess."""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from pathlib import Path

from tools.engine_process import program
from tools.match.cutechess import DEFAULT_OPENINGS, ENGINE_NAME, cutechess_option, report_games, run_runner
from tools.match.engines import opponent_spec, resolve_command
from tools.match.gauntlet import option_list, parse_tc

OPENBENCH_ENTRY = Path(__file__).resolve().parents[2] / "openbench" / "Ponderosa.json"


def openbench_presets() -> tuple[list[tuple[str, object]], list[str]]:
    """The engine entry's STC test preset as an OpenBench worker applies it: the UCI options of
    `both_options` and fastchess's resign and draw adjudication from the default preset."""
    entry = json.loads(OPENBENCH_ENTRY.read_text())
    presets = entry["test_presets"]
    options: list[tuple[str, object]] = []
    for item in presets["STC"]["both_options"].split():
        name, value = item.split("=", 1)
        options.append((name, value))
    default = presets["default"]
    return options, ["-resign", *default["win_adj"].split(), "-draw", *default["draw_adj"].split()]


OPENBENCH_OPTIONS, OPENBENCH_ADJUDICATION = openbench_presets()
OPENBENCH_OPENINGS = DEFAULT_OPENINGS.with_name("noob_2moves.epd")
OPPONENT_NAME = "opponent"


def engine_arguments(name: str, command: list[str], options: list[tuple[str, object]]) -> list[str]:
    """`-engine name=... cmd=... [args=...] proto=uci option.X=Y` for one engine (fastchess takes the
    program's arguments as one string)."""
    arguments = ["-engine", f"name={name}", f"cmd={command[0]}"]
    if command[1:]:
        arguments.append(f"args={shlex.join(command[1:])}")
    return arguments + ["proto=uci"] + [cutechess_option(option, value) for option, value in options]


def build_command(fastchess: str, opponent: str | None, games: int, tc: str, concurrency: int, seed: int,
                  openings: Path, pgn: Path, engine_options: list[tuple[str, object]],
                  engine: list[str] | None = None, opponent_command: list[str] | None = None,
                  openbench: bool = False, sprt: tuple[float, float] | None = None) -> list[str]:
    """The whole fastchess command line; ValueError for an unknown or XBoard opponent or an odd game count."""
    if opponent_command is not None:
        opponent_name, command, options = opponent or OPPONENT_NAME, opponent_command, list(engine_options)
    else:
        spec = opponent_spec(opponent or "")
        if spec is None:
            raise ValueError(f"unknown opponent {opponent!r} (tools/match/gauntlet.py --help lists them)")
        if spec.protocol != "uci":
            raise ValueError(f"{spec.key} plays through {spec.protocol}; fastchess speaks UCI only "
                             "(play it with tools/match/cutechess.py)")
        opponent_name, command, options = spec.key, resolve_command(spec.command), list(spec.options)
    if games <= 0 or games % 2:
        raise ValueError("the number of games must be even and positive (each opening twice)")
    base, increment = parse_tc(tc)
    fmt = "pgn" if openings.suffix.lower() == ".pgn" else "epd"
    each = ["-each", f"tc={base:g}+{increment:g}"] + (["timemargin=250"] if openbench else [])
    command_line = [fastchess,
                    *engine_arguments(ENGINE_NAME, engine or program(), engine_options),
                    *engine_arguments(opponent_name, command, options),
                    *each,
                    "-openings", f"file={openings}", f"format={fmt}", "order=random",
                    "-repeat", "-games", "2", "-rounds", str(games // 2),
                    "-concurrency", str(concurrency), "-srand", str(seed),
                    "-pgnout", f"file={pgn}", "-ratinginterval", "10", "-recover"]
    if openbench:
        command_line += OPENBENCH_ADJUDICATION
    if sprt is not None:
        command_line += ["-sprt", f"elo0={sprt[0]:g}", f"elo1={sprt[1]:g}", "alpha=0.05", "beta=0.05",
                         "model=normalized"]
    return command_line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--opponent", help="a UCI name tools/match/gauntlet.py knows, e.g. ethereal "
                                           "(with --opponent-command: the opponent's name in the PGN)")
    parser.add_argument("--opponent-command", help="a UCI program to play instead (shell words)")
    parser.add_argument("--engine-command", help="the Ponderosa program (shell words; default: the installed one)")
    parser.add_argument("--games", type=int, default=100, help="games, even (default 100; the most with --sprt)")
    parser.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds (default 10+0.1)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="fastchess -srand: which openings (default 1)")
    parser.add_argument("--openings", type=Path, help="EPD or PGN file (default: cutechess.py's; "
                                                      "with --openbench noob_2moves.epd)")
    parser.add_argument("--pgn", type=Path, required=True, help="fastchess writes the games here")
    parser.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option of Ponderosa (repeatable), e.g. Threads=2")
    parser.add_argument("--openbench", action="store_true", help="as an OpenBench worker plays (see above)")
    parser.add_argument("--sprt", help="ELO0,ELO1: stop by fastchess's SPRT")
    parser.add_argument("--fastchess", default="fastchess", help="the fastchess program")
    parser.add_argument("--report-only", action="store_true", help="only read --pgn and print the table")
    args = parser.parse_args(argv)
    if args.opponent is None and args.opponent_command is None:
        parser.error("give --opponent or --opponent-command")
    engine_options = (list(OPENBENCH_OPTIONS) if args.openbench else []) + option_list(
        parser, "--engine-option", args.engine_option)
    openings = args.openings or (OPENBENCH_OPENINGS if args.openbench else DEFAULT_OPENINGS)
    if not args.report_only:
        fastchess = shutil.which(args.fastchess)
        if fastchess is None:
            print(f"fastchess not found: {args.fastchess!r} (see --help for how to build it)", file=sys.stderr)
            return 2
        if not openings.is_file():
            print(f"{openings}: no such openings file", file=sys.stderr)
            return 2
        try:
            sprt = tuple(float(x) for x in args.sprt.split(",")) if args.sprt else None
            if sprt is not None and len(sprt) != 2:
                raise ValueError("--sprt takes ELO0,ELO1")
            command = build_command(fastchess, args.opponent, args.games, args.tc, args.concurrency, args.seed,
                                    openings, args.pgn, engine_options,
                                    shlex.split(args.engine_command) if args.engine_command else None,
                                    shlex.split(args.opponent_command) if args.opponent_command else None,
                                    args.openbench, sprt)  # type: ignore[arg-type]
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
        run_runner(command, "fastchess")
    return report_games(args.pgn, args.opponent or OPPONENT_NAME, "tools.match.fastchess", argv)


if __name__ == "__main__":
    sys.exit(main())
