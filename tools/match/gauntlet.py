"""Gauntlet match: one engine (Ponderosa by default) against the Debian chess engines.

Usage (after `pip install -e .` and
`apt-get install fairymax phalanx sjeng hoichess gnuchess`):

    python -m tools.match.gauntlet --games 4 --tc 2+0.02
    python -m tools.match.gauntlet --engine fairymax --opponents phalanx,sjeng,hoichess,gnuchess --games 2
    python -m tools.match.gauntlet --chess960 --engine-protocol uci --opponents stockfish --games 20 --seed 960

Every engine is driven by python-chess (`chess.engine`, XBoard or UCI); the script keeps the
clocks itself. Each opening (a random sample of the EPD file, reproducible with --seed) is
played twice with colours swapped. One line per finished game goes to stderr; at the end a
Markdown table (score, Elo difference with its 95% margin, time losses, illegal moves, crashes
and other engine errors of both sides) and the command line go to stdout. Ctrl-C stops the
games in progress (they are not counted) and prints the table of the finished ones.

Clocks: each side starts with BASE seconds and gets INC after each of its moves. The time an
engine used for a move is the wall time from writing `go` to it to reading its `move`/`bestmove`
line (both stamped in the engine's I/O thread, as cutechess does; the time python-chess spends
around it, such as its `ping` after an XBoard move, is not charged). The engine is given both
clocks (`time`/`otim` or `wtime`/`btime`, with `level 0 BASE INC` once per game for XBoard) and
its increment. A clock below zero (minus --time-margin, default 0 ms) loses on time; an engine
silent for 1 s past its clock is stopped and restarted for the next game. Pondering is always off.

Game ends: checkmate, stalemate, insufficient material, 50-move rule and threefold repetition
are applied by the script as soon as they occur on the board (as cutechess does; an engine may
also claim a draw that python-chess's `can_claim_draw()` confirms, which includes a claim made
with the repeating or fiftieth move). A game reaching --max-plies (default 300, counted from
the start position) is drawn; resign adjudication (--resign MOVES:CP) is off unless asked for.
An illegal move, a crash, an engine error (an `Error`/`Illegal move` line, a false claim, no
move) or a time forfeit loses the game for the engine at fault and is counted for it.

Chess960 (--chess960): the openings are Chess960 start positions, games/2 of the 960 drawn
with --seed (each number at most once; --openings is not read), each played twice with colours
swapped as usual. Every game is played on a Chess960 board: python-chess sets UCI_Chess960 and
sends Shredder-FEN to a UCI engine, and `variant fischerandom` with `setboard` to an XBoard one.
The PGN carries Variant "Chess960", the start position's FEN and its number (Chess960Position).
An opponent that cannot play Chess960 (a UCI engine without UCI_Chess960, an XBoard engine whose
`variants` has no fischerandom or that has no setboard) is named and skipped, not scored.
"""
from __future__ import annotations

import argparse
import datetime
import logging
import queue
import re
import shlex
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Callable

# The engine processes, the games, the openings and the report live in their own modules
# (tools/match/engines.py, games.py, openings.py, report.py); sprt.py, cutechess.py and the tests
# reach the names they share through this one.
from tools.match import engines
from tools.match.engines import (
    OPPONENTS,
    QUIT_TIMEOUT,
    EngineSpec,
    IOLog,
    Player,
    _EngineLogHandler,
    kill_leftovers,
    opponent_spec,
    resolve_command,
)
from tools.match.games import ENGINE_SIDE, GameRecord, Job, Opening, Settings, play_game
from tools.match.games import OPPONENT_SIDE as OPPONENT_SIDE
from tools.match.openings import DEFAULT_OPENINGS as DEFAULT_OPENINGS
from tools.match.openings import build_chess960_openings, build_openings, pairings
from tools.match.openings import line_to as line_to
from tools.match.openings import position_fen as position_fen
from tools.match.openings import read_openings as read_openings
from tools.match.openings import sample_openings as sample_openings
from tools.match.report import Z95 as Z95
from tools.match.report import Tally, table
from tools.match.report import elo_from_score as elo_from_score
from tools.match.report import elo_with_margin as elo_with_margin
from tools.match.report import format_elo as format_elo
from tools.match.report import format_margin as format_margin

DEFAULT_OPPONENTS = "fairymax,phalanx,sjeng,hoichess,gnuchess"


# ----------------------------------------------------------------------------------------------
# Pure helpers (unit-tested in tests/test_match.py)

def parse_tc(text: str) -> tuple[float, float]:
    """`BASE+INC` in seconds (`10+0.1`, `1+0.01`; `60` means no increment; BASE may be `M:SS`)."""
    match = re.fullmatch(r"\s*(?:(\d+):)?(\d+(?:\.\d*)?|\.\d+)\s*(?:\+\s*(\d+(?:\.\d*)?|\.\d+))?\s*", text)
    if not match:
        raise ValueError(f"time control {text!r} is not BASE+INC in seconds (e.g. 10+0.1)")
    minutes, seconds, increment = match.groups()
    base = float(seconds) + 60 * int(minutes or 0)
    inc = float(increment or 0)
    if base <= 0:
        raise ValueError(f"time control {text!r}: the base time must be positive")
    return base, inc


# ----------------------------------------------------------------------------------------------
# Running the gauntlet

class Gauntlet:
    def __init__(self, args: argparse.Namespace, engine_spec: EngineSpec, opponents: list[EngineSpec],
                 openings: list[Opening], settings: Settings):
        self.args = args
        self.engine_spec = engine_spec
        self.opponents = opponents
        self.openings = openings
        self.settings = settings
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.tallies: dict[str, Tally] = {spec.key: Tally() for spec in opponents}
        self.expected: dict[str, int] = {}
        self.failed: dict[str, str] = {}         # opponent -> why its games stopped
        self.refused: dict[str, str] = {}        # engine label -> why it cannot play the variant (preflight)
        self.names: dict[str, str] = {}
        self.unexpected: dict[str, Counter] = {}
        self.done = 0
        self.total = 0
        self.pgn_file = open(args.pgn, "w", encoding="utf-8") if args.pgn else None
        self.jobs: queue.Queue[Job] = queue.Queue()

    def say(self, text: str) -> None:
        with self.lock:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def preflight(self, spec: EngineSpec, label: str) -> Player | None:
        """Start and close an engine once: its name, its setboard support, or a clear error."""
        player = Player(spec, label)
        try:
            player.start()
        except Exception as error:
            self.say(f"cannot start {label} ({spec.protocol}: {shlex.join(player.command)}): "
                     f"{type(error).__name__}: {error}")
            player.close()
            return None
        self.names[label] = player.name
        setboard = player.declared_setboard
        refusal = chess960_refusal(player) if self.args.chess960 else None
        player.close()
        if refusal is not None:
            self.refused[label] = f"does not play Chess960: {refusal}; skipped"
            self.say(f"cannot use {label} ({player.name}) for Chess960: {refusal}")
            return None
        if not setboard and any(o.moves is None for o in self.openings):
            self.say(f"cannot use {label}: it has no `setboard` and some openings are not reachable by moves")
            return None
        return player

    def run(self) -> int:
        engine_ok = self.preflight(self.engine_spec, "engine")
        if engine_ok is None:
            return 2
        usable = []
        for spec in self.opponents:
            if self.preflight(spec, spec.key) is not None:
                usable.append(spec)
            else:
                self.failed[spec.key] = self.refused.get(spec.key, "could not be started (see above); skipped")
        plan = pairings(len(self.openings), self.args.games)
        number = 0
        for spec in usable:
            self.expected[spec.key] = len(plan)
            for pairing in plan:
                number += 1
                game_in_pair = 1 if pairing.engine_white else 2
                self.jobs.put(Job(number, spec.key, f"{pairing.opening + 1}.{game_in_pair}",
                                  self.openings[pairing.opening], pairing.engine_white))
        self.total = number
        self.say(f"{self.names['engine']} against {', '.join(s.key for s in usable) or 'nobody'}: "
                 f"{self.total} games, {self.args.concurrency} at a time, tc {self.settings.tc_text}")
        interrupted = run_workers(
            self.worker, max(1, min(self.args.concurrency, self.total or 1)), self.stop,
            lambda: self.say("interrupted: stopping the games in progress (not counted) and closing the engines"))
        kill_leftovers()
        if self.pgn_file:
            self.pgn_file.close()
        self.report(interrupted)
        return 130 if interrupted else 0

    def worker(self) -> None:
        engine = Player(self.engine_spec, "engine")
        opponent: Player | None = None
        try:
            while not self.stop.is_set():
                try:
                    job = self.jobs.get_nowait()
                except queue.Empty:
                    return
                if job.opponent in self.failed:
                    continue
                if opponent is None or opponent.spec.key != job.opponent:
                    if opponent is not None:
                        self.collect_unexpected(opponent)
                        opponent.close()
                    opponent = Player(opponent_spec(job.opponent), job.opponent)
                if not self.ensure(engine, job) or not self.ensure(opponent, job):
                    continue
                record = play_game(job, engine, opponent, self.settings, self.stop)
                if record is None:
                    return
                self.finish(record, engine, opponent)
        except Exception as error:  # a bug here must not leave engines running
            self.say(f"worker failed: {type(error).__name__}: {error}")
            self.stop.set()
        finally:
            for player in (engine, opponent):
                if player is not None:
                    self.collect_unexpected(player)
                    player.close()

    def ensure(self, player: Player, job: Job) -> bool:
        try:
            if player.engine is not None and (player.dirty or not player.alive()):
                self.collect_unexpected(player)
            player.ensure_started()
            return True
        except Exception as error:
            why = f"{player.label} could not be restarted: {type(error).__name__}: {error}"
            self.say(why)
            with self.lock:
                if player.label == "engine":
                    self.failed.update({key: why for key in self.tallies if key not in self.failed})
                    self.stop.set()
                else:
                    self.failed.setdefault(job.opponent, why)
            return False

    def collect_unexpected(self, player: Player) -> None:
        with self.lock:
            counter = self.unexpected.setdefault(player.label, Counter())
            counter.update(player.unexpected)
            player.unexpected.clear()

    def finish(self, record: GameRecord, engine: Player, opponent: Player) -> None:
        with self.lock:
            tally = self.tallies[record.job.opponent]
            tally.add(record)
            self.done += 1
            if self.pgn_file:
                self.pgn_file.write(record.pgn + "\n\n")
                self.pgn_file.flush()
            colour = "W" if record.job.engine_white else "B"
            line = (f"[{self.done}/{self.total}] {record.job.opponent} round {record.job.round}: "
                    f"{record.white} - {record.black} {record.result} ({record.reason}; {record.plies} plies) "
                    f"engine={colour} | vs {record.job.opponent}: {tally.line()}")
            sys.stderr.write(line + "\n")
            if record.fault:
                culprit = engine if record.fault_side == ENGINE_SIDE else opponent
                sys.stderr.write(f"    last I/O of {culprit.label} ({culprit.name}):\n")
                for io in culprit.tail():
                    sys.stderr.write(f"    {io}\n")
            sys.stderr.flush()

    def report(self, interrupted: bool) -> None:
        s = self.settings
        rows = [(f"{key} ({self.names.get(key, key)})", tally) for key, tally in self.tallies.items()
                if key not in self.failed or tally.points]
        if len(rows) > 1:
            total = Tally()
            for _, tally in rows:
                total.merge(tally)
            rows.append(("all", total))
        out = []
        title = f"## Gauntlet: {self.names.get('engine', 'engine')}" + (" (Chess960)" if self.args.chess960 else "")
        out.append(title + (" (interrupted: partial results)" if interrupted else ""))
        out.append("")
        out.append(f"Command: `{shlex.join([sys.executable.split('/')[-1], *sys.argv])}`")
        out.append("")
        engine_command = shlex.join(resolve_command(self.engine_spec.command))
        options = f", options {dict(self.engine_spec.options)}" if self.engine_spec.options else ""
        out.append(f"- Date: {datetime.date.today().isoformat()}; "
                   f"engine `{engine_command}` ({self.engine_spec.protocol}{options})")
        out.append(f"- Time control: {s.base:g} s + {s.inc:g} s per move, clocks kept by this script "
                   f"(tolerance {s.time_margin * 1000:g} ms); pondering off; concurrency {self.args.concurrency}")
        if self.args.chess960:
            numbers = ", ".join(str(o.chess960) for o in self.openings)
            out.append(f"- Openings: Chess960 start positions {numbers} (of 0-959), drawn with seed {self.args.seed}, "
                       "each played twice with colours swapped; games on Chess960 boards")
        else:
            out.append(f"- Openings: `{self.args.openings}`, {len(self.openings)} sampled with seed {self.args.seed}, "
                       "each played twice with colours swapped")
        adjudication = ("rules (checkmate, stalemate, insufficient material, 50-move rule, threefold repetition); "
                        f"maximum length {s.max_plies} plies → draw; resign adjudication ")
        adjudication += (f"on (both engines' scores beyond ±{s.resign_cp} cp for {s.resign_moves} moves each)"
                         if s.resign_moves else "off")
        out.append(f"- Adjudication: {adjudication}")
        out.append("- E/O columns: the tested engine / the opponent. Errors are `Error`/`Illegal move` "
                   "lines from the engine, false claims and missing moves; each one lost a game.")
        for spec in self.opponents:
            out.append(f"- {spec.key}: `{shlex.join(resolve_command(spec.command))}` ({spec.protocol}"
                       + (f", options {dict(spec.options)}" if spec.options else "") + f"); {spec.note}")
        out.append("")
        out.append(table(rows))
        out.append("")
        for key, tally in self.tallies.items():
            if tally.points:
                reasons = ", ".join(f"{r} {c}" for r, c in tally.reasons.most_common())
                missing = self.expected.get(key, 0) - len(tally.points)
                out.append(f"- {key}: {reasons}" + (f"; {missing} games not played" if missing else ""))
        for key, why in self.failed.items():
            out.append(f"- {key}: {why}")
        for label, counter in self.unexpected.items():
            if counter:
                examples = "; ".join(repr(line) for line, _ in counter.most_common(3))
                out.append(f"- {sum(counter.values())} output line(s) of {label} that python-chess did not expect "
                           f"(most common: {examples})")
        sys.stdout.write("\n".join(out) + "\n")
        sys.stdout.flush()


def run_workers(target: Callable[[], None], count: int, stop: threading.Event,
                on_interrupt: Callable[[], None] | None = None) -> bool:
    """Run count threads of target until they all end; Ctrl-C sets stop, calls on_interrupt and
    waits for the games in progress to be abandoned. True when interrupted."""
    workers = [threading.Thread(target=target, name=f"worker-{i}", daemon=True) for i in range(count)]
    for worker in workers:
        worker.start()
    try:
        while any(w.is_alive() for w in workers):
            for worker in workers:
                worker.join(0.2)
        return False
    except KeyboardInterrupt:
        stop.set()
        if on_interrupt is not None:
            on_interrupt()
        try:
            for worker in workers:
                worker.join(QUIT_TIMEOUT + 5)
        except KeyboardInterrupt:
            pass
        return True


def chess960_refusal(player: Player) -> str | None:
    """Why a started engine cannot play Chess960 through python-chess, or None when it can."""
    engine = player.engine
    assert engine is not None
    if player.spec.protocol == "uci":
        return None if "UCI_Chess960" in engine.options else "it has no UCI_Chess960 option"
    features = engine.protocol.features  # type: ignore[attr-defined]
    declared = [name.strip() for name in str(features.get("variants", "")).split(",") if name.strip()]
    if "fischerandom" not in declared:
        if not declared:
            return "it declares no variants feature (so no fischerandom)"
        listed = ",".join(declared[:4]) + (f",… ({len(declared)} in all)" if len(declared) > 4 else "")
        return f"its variants feature (variants=\"{listed}\") has no fischerandom"
    if not player.declared_setboard:
        return "it has no `setboard`, which a Chess960 start position needs"
    return None


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="ponderosa",
                        help="command of the tested engine (default: ponderosa); a name from --opponents "
                             "uses that engine's command line and protocol")
    parser.add_argument("--engine-protocol", choices=("xboard", "uci"),
                        help="protocol of --engine (default xboard, or the known engine's)")
    parser.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE",
                        help="set an option of the tested engine (repeatable), e.g. OwnBook=false")
    parser.add_argument("--opponents", default=DEFAULT_OPPONENTS,
                        help=f"comma-separated, from: {', '.join(OPPONENTS)} (default: all), or stockfish-elo-N "
                             "(Stockfish at UCI_Elo N)")
    parser.add_argument("--games", type=int, default=2, help="games per opponent, even (default 2)")
    parser.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds (default 10+0.1)")
    parser.add_argument("--concurrency", type=int, default=2, help="games played at once (default 2)")
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS,
                        help="EPD/FEN file (default tests/data/openings/noob_2moves.epd)")
    parser.add_argument("--chess960", action="store_true",
                        help="play Chess960: the openings are start positions drawn from the 960 with --seed "
                             "(--openings is not read); opponents that cannot play it are skipped")
    parser.add_argument("--seed", type=int, default=1, help="seed for sampling the openings (default 1)")
    parser.add_argument("--pgn", type=Path, help="write all games to this PGN file")
    parser.add_argument("--max-plies", type=int, default=300, help="draw after this many plies (default 300)")
    parser.add_argument("--resign", default="",
                        help="resign adjudication MOVES:CP, e.g. 4:1000 (both engines' scores beyond ±CP "
                             "for MOVES moves each); default off")
    parser.add_argument("--time-margin", type=float, default=0.0,
                        help="milliseconds a clock may go below zero before the flag falls (default 0)")
    parser.add_argument("--log", type=Path, help="write every line to and from every engine to this file")
    parser.add_argument("--verbose", action="store_true", help="show python-chess's own warnings")
    args = parser.parse_args(argv)
    try:
        args.base, args.inc = parse_tc(args.tc)
    except ValueError as error:
        parser.error(str(error))
    if args.games <= 0 or args.games % 2:
        parser.error("--games must be a positive even number (each opening is played with both colours)")
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")
    args.opponent_keys = [key.strip() for key in args.opponents.split(",") if key.strip()]
    unknown = [key for key in args.opponent_keys if opponent_spec(key) is None]
    if unknown:
        parser.error(f"unknown opponents {', '.join(unknown)}; known: {', '.join(OPPONENTS)}, stockfish-elo-N")
    args.resign_moves, args.resign_cp = 0, 0
    if args.resign:
        match = re.fullmatch(r"(\d+):(\d+)", args.resign)
        if not match or int(match.group(1)) < 1:
            parser.error("--resign takes MOVES:CP, e.g. 4:1000")
        args.resign_moves, args.resign_cp = int(match.group(1)), int(match.group(2))
    args.engine_options = option_list(parser, "--engine-option", args.engine_option)
    if not args.chess960 and not args.openings.is_file():
        parser.error(f"openings file {args.openings} not found")
    return args


def option_value(text: str) -> object:
    """An engine option value from the command line: true/false, an integer, or the text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def option_list(parser: argparse.ArgumentParser, flag: str, texts: list[str]) -> list[tuple[str, object]]:
    """(name, value) for each NAME=VALUE given to flag; a parser error for anything else."""
    options = []
    for text in texts:
        name, equals, value = text.partition("=")
        if not equals or not name.strip():
            parser.error(f"{flag} takes NAME=VALUE, not {text!r}")
        options.append((name.strip(), option_value(value.strip())))
    return options


def merged_options(common: Sequence[tuple[str, object]], own: Sequence[tuple[str, object]]) -> list[tuple[str, object]]:
    """The options of one engine: the common ones, each replaced by the engine's own of the same name."""
    names = {name for name, _ in own}
    return [(name, value) for name, value in common if name not in names] + list(own)


def engine_spec_from(args: argparse.Namespace) -> EngineSpec:
    words = shlex.split(args.engine)
    extra = tuple(getattr(args, "engine_options", ()))
    known = opponent_spec(words[0]) if len(words) == 1 else None
    if known is not None:
        options = tuple(merged_options(known.options, extra))
        return EngineSpec("engine", args.engine_protocol or known.protocol, known.command, options, known.note)
    return EngineSpec("engine", args.engine_protocol or "xboard", tuple(words), extra)


def main(argv: list[str] | None = None) -> int:
    sys.setswitchinterval(0.0005)   # engine I/O threads get the GIL sooner (default 5 ms)
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    logger = logging.getLogger("chess.engine")
    logger.handlers[:] = [_EngineLogHandler(args.verbose)]
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    if not args.verbose:   # e.g. "Loop ... that handles pid N is closed" when an engine is killed
        logging.getLogger("asyncio").setLevel(logging.ERROR)
    try:
        openings = (build_chess960_openings(args.games // 2, args.seed) if args.chess960
                    else build_openings(args.openings, args.games // 2, args.seed))
    except ValueError as error:
        sys.stderr.write(f"openings: {error}\n")
        return 2
    engines.IO_LOG = IOLog(args.log)
    settings = Settings(args.base, args.inc, args.max_plies, args.resign_moves, args.resign_cp,
                        args.time_margin / 1000, args.tc, "Ponderosa gauntlet")
    gauntlet = Gauntlet(args, engine_spec_from(args), [opponent_spec(key) for key in args.opponent_keys],
                        openings, settings)
    try:
        return gauntlet.run()
    except KeyboardInterrupt:   # during the engines' start-up check, before any game
        sys.stderr.write("interrupted before the games started\n")
        return 130
    finally:
        kill_leftovers()
        engines.IO_LOG.close()


if __name__ == "__main__":
    sys.exit(main())
