"""SPRT: play a candidate build against a base build until a sequential probability ratio test decides.

Usage (two installed builds, e.g. a worktree's venv for each):

    python -m tools.match.sprt --candidate ponderosa --base /work/venv-base/bin/ponderosa \
        --tc 5+0.05 --elo0 0 --elo1 5 --pgn sprt.pgn

H0: the candidate is elo0 Elo stronger than the base; H1: it is elo1 Elo stronger (logistic Elo).
Each opening of --openings (sampled with --seed) is played twice with colours swapped, and the
pair is the unit of the statistics: its points (0, 1/2, 1, 3/2, 2) make the pentanomial counts,
which keep the correlation between the two games of an opening that a trinomial count (W/D/L)
ignores. After every pair the log-likelihood ratio is updated; the test stops when it leaves
[ln(beta/(1-alpha)), ln((1-beta)/alpha)] (+-2.94 for alpha = beta = 0.05), or after --max-games.

The LLR is the normal (generalised SPRT) approximation used by fishtest and OpenBench:
    LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)
with N pairs, m and v the mean and variance of the per-pair score (points / 2), and s0, s1 the
expected scores of elo0 and elo1. Empty categories get 0.001 of a pair, so a one-sided start
(all wins so far) has a finite variance; still, the first few pairs give a variance near zero
and a meaningless LLR, so no decision is taken (and no LLR printed) before --min-pairs pairs
(default 20). The games are played by the gauntlet runner's machinery (tools/match/gauntlet.py:
clocks, adjudication, fault handling, PGN); a time loss, illegal move or crash loses that game and
is reported.

An SPRT that cannot finish in one sitting goes on with --resume: give it the earlier run's PGN
and the same builds, options and --seed (and --max-games, which fixes the sample). The complete
pairs of that file enter the statistics, the openings they used are not played again, and with
--pgn naming the same file the new games are appended to it. Each game's OpeningLine must be the
opening this seed puts at its pair, so a resume with other settings stops with a message.
"""
from __future__ import annotations

import argparse
import logging
import math
import shlex
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

from tools.match import gauntlet

PAIR_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)     # per-game score of a pair with 0, 1/2, 1, 3/2, 2 points
GAME_VALUES = (0.0, 0.5, 1.0)                  # loss, draw, win
REGULARISE = 1e-3


# ---------------------------------------------------------------- statistics (unit-tested)


def score_from_elo(elo: float) -> float:
    """Expected score of a side elo (logistic) Elo stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 below the lower one, H1 above the upper one."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def mean_and_variance(counts: list[float], values: tuple[float, ...]) -> tuple[float, float, float]:
    """(number, mean, variance) of outcomes with these counts; zero counts regularised."""
    counts = [c if c > 0 else REGULARISE for c in counts]
    n = sum(counts)
    mean = sum(c * v for c, v in zip(counts, values)) / n
    variance = sum(c * (v - mean) ** 2 for c, v in zip(counts, values)) / n
    return n, mean, variance


def llr(counts: list[float], values: tuple[float, ...], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0), normal approximation; 0 with no games."""
    if sum(counts) == 0:
        return 0.0
    n, mean, variance = mean_and_variance(counts, values)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)


MIN_PAIRS = 20   # pairs (40 games) before the test may decide; see decision()


def pentanomial_llr(pairs: list[int], elo0: float, elo1: float) -> float:
    """LLR from pair counts [0, 1/2, 1, 3/2, 2 points]."""
    return llr([float(c) for c in pairs], PAIR_VALUES, elo0, elo1)


def trinomial_llr(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """LLR from game counts, as if the games were independent."""
    return llr([float(losses), float(draws), float(wins)], GAME_VALUES, elo0, elo1)


def elo_estimate(pairs: list[int]) -> tuple[float, float]:
    """Elo of the candidate and its 95% margin from the pentanomial counts (nan without pairs)."""
    if sum(pairs) == 0:
        return math.nan, math.nan
    n, mean, variance = mean_and_variance([float(c) for c in pairs], PAIR_VALUES)
    n = sum(pairs)
    elo = gauntlet.elo_from_score(mean)
    deviation = gauntlet.Z95 * math.sqrt(variance / n)
    low, high = mean - deviation, mean + deviation
    if low <= 0 or high >= 1:
        return elo, math.inf
    return elo, (gauntlet.elo_from_score(high) - gauntlet.elo_from_score(low)) / 2


def decision(value: float, bounds: tuple[float, float], pairs: int = MIN_PAIRS,
             min_pairs: int = MIN_PAIRS) -> str | None:
    """H1, H0 or None (go on). No decision before min_pairs pairs: the normal approximation
    estimates the variance from the pairs themselves, and a handful of them (one won pair, say)
    gives a variance near zero and an LLR far past either bound."""
    if pairs < min_pairs:
        return None
    if value >= bounds[1]:
        return "H1"
    if value <= bounds[0]:
        return "H0"
    return None


def llr_text(value: float, pairs: int, min_pairs: int = MIN_PAIRS) -> str:
    """The LLR for a progress line; before min_pairs pairs it means nothing (see decision), and
    printing it would only mislead (one won pair gives 3.7, past the H1 bound)."""
    if pairs < min_pairs:
        return f"LLR -- (from {min_pairs} pairs)"
    return f"LLR {value:.2f}"


@dataclass
class Tally:
    """The results so far: pentanomial pair counts and per-game W/D/L (candidate's view)."""
    pairs: list[int] = field(default_factory=lambda: [0] * 5)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)   # "candidate time", "base illegal", ...

    def add_pair(self, first: float, second: float) -> None:
        self.pairs[int(round(2 * (first + second)))] += 1
        for points in (first, second):
            self.wins += points == 1
            self.draws += points == 0.5
            self.losses += points == 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


# ---------------------------------------------------------------- resuming an earlier run


def candidate_side(round_number: str) -> tuple[int, bool]:
    """(pair index, whether the candidate has White) of a game's Round: "7.1" is pair 7 with the
    candidate White, "7.2" the same opening with colours swapped (the order worker() plays them)."""
    pair, dot, game = round_number.partition(".")
    if not (dot and pair.isdigit() and int(pair) > 0 and game in ("1", "2")):
        raise ValueError(f"Round {round_number!r} is not PAIR.1 or PAIR.2")
    return int(pair) - 1, game == "1"


def candidate_points(round_number: str, result: str) -> tuple[int, float] | None:
    """(pair index, the candidate's points) of a game's Round (candidate_side) and Result; None
    for an unfinished game ("*")."""
    pair, candidate_white = candidate_side(round_number)
    white_points = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}.get(result)
    if white_points is None:
        if result == "*":
            return None
        raise ValueError(f"Result {result!r} is not a game result")
    return pair, white_points if candidate_white else 1.0 - white_points


def resumed_pairs(path: Path, openings: list[tuple[int, str]]) -> dict[int, tuple[float, float]]:
    """The complete pairs of an earlier run's PGN: pair index -> (candidate's points as White, as
    Black). A pair with one game only (the run stopped between its games) is left out; it is
    played again in full. ValueError, naming the file and the game, on anything else amiss."""
    halves: dict[int, dict[str, float]] = {}
    with open(path, encoding="utf-8") as handle:
        number = 0
        while (headers := chess.pgn.read_headers(handle)) is not None:
            number += 1
            where = f"{path}, game {number}"
            try:
                points = candidate_points(headers.get("Round", "?"), headers.get("Result", "*"))
            except ValueError as error:
                raise ValueError(f"{where}: {error}") from None
            if points is None:
                continue
            index, value = points
            if index >= len(openings) or headers.get("OpeningLine") != str(openings[index][0]):
                raise ValueError(f"{where}: OpeningLine {headers.get('OpeningLine')!r} is not the opening "
                                 f"this seed plays in pair {index + 1}; resume with the earlier run's --seed "
                                 "and --max-games")
            halves.setdefault(index, {})[headers["Round"].partition(".")[2]] = value
    return {index: (games["1"], games["2"]) for index, games in halves.items() if len(games) == 2}


# ---------------------------------------------------------------- running the test


class Sprt:
    def __init__(self, args: argparse.Namespace, candidate: gauntlet.EngineSpec, base: gauntlet.EngineSpec,
                 openings: list[tuple[int, str]], resumed: dict[int, tuple[float, float]] | None = None):
        resumed = resumed or {}
        self.args = args
        self.candidate = candidate
        self.base = base
        self.openings = openings           # (line, text), indexed by pair
        self.tally = Tally()
        for first, second in resumed.values():
            self.tally.add_pair(first, second)
        self.resumed = len(resumed)
        self.queue = [index for index in range(len(openings)) if index not in resumed]   # pairs still to play
        self.next_pair = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.bounds = sprt_bounds(args.alpha, args.beta)
        self.result: str | None = None
        self.settings = gauntlet.Settings(args.base_time, args.inc, args.max_plies, args.resign_moves, args.resign_cp,
                                          args.time_margin / 1000, args.tc, "Ponderosa SPRT")
        appending = args.resume is not None and args.pgn is not None and args.pgn.resolve() == args.resume.resolve()
        self.pgn = open(args.pgn, "a" if appending else "w", encoding="utf-8") if args.pgn else None
        if self.resumed:
            self.decide()
            if self.result is not None:   # the resumed games already decide
                self.stop.set()

    def decide(self) -> float:
        """The LLR of the pairs so far; sets self.result when it decides (caller holds the lock)."""
        value = pentanomial_llr(self.tally.pairs, self.args.elo0, self.args.elo1)
        self.result = decision(value, self.bounds, sum(self.tally.pairs), self.args.min_pairs)
        return value

    def take_pair(self) -> int | None:
        with self.lock:
            if self.stop.is_set() or self.next_pair >= len(self.queue):
                return None
            self.next_pair += 1
            return self.queue[self.next_pair - 1]

    def worker(self) -> None:
        players = (gauntlet.Player(self.candidate, "candidate"), gauntlet.Player(self.base, "base"))
        try:
            while (index := self.take_pair()) is not None:
                line, text = self.openings[index]
                fen = gauntlet.position_fen(text)
                moves = gauntlet.line_to(fen)
                opening = gauntlet.Opening(line, fen, tuple(moves) if moves is not None else None)
                points = []
                for number, candidate_white in ((1, True), (2, False)):
                    job = gauntlet.Job(2 * index + number, "base", f"{index + 1}.{number}", opening, candidate_white)
                    for player in players:
                        player.ensure_started()
                    record = gauntlet.play_game(job, players[0], players[1], self.settings, self.stop)
                    if record is None:
                        return
                    points.append(record.engine_points)
                    self.record_game(record)
                self.finish_pair(points[0], points[1])
        except Exception as error:  # a bug here must not leave engines running
            sys.stderr.write(f"worker failed: {type(error).__name__}: {error}\n")
            self.stop.set()
        finally:
            for player in players:
                player.close()

    def record_game(self, record: gauntlet.GameRecord) -> None:
        with self.lock:
            if self.pgn:
                self.pgn.write(record.pgn + "\n\n")
                self.pgn.flush()
            if record.fault:
                side = "candidate" if record.fault_side == gauntlet.ENGINE_SIDE else "base"
                key = f"{side} {record.fault}"
                self.tally.faults[key] = self.tally.faults.get(key, 0) + 1

    def finish_pair(self, first: float, second: float) -> None:
        with self.lock:
            t = self.tally
            t.add_pair(first, second)
            value = self.decide()
            elo, margin = elo_estimate(t.pairs)
            sys.stderr.write(f"[{t.games} games] +{t.wins} ={t.draws} -{t.losses} pairs {t.pairs} "
                             f"Elo {gauntlet.format_elo(elo)} {gauntlet.format_margin(margin)} "
                             f"{llr_text(value, sum(t.pairs), self.args.min_pairs)} "
                             f"[{self.bounds[0]:.2f}, {self.bounds[1]:.2f}]\n")
            if self.result is not None or t.games >= self.args.max_games:
                self.stop.set()

    def run(self) -> int:
        interrupted = gauntlet.run_workers(self.worker, self.args.concurrency, self.stop)
        gauntlet.kill_leftovers()
        if self.pgn:
            self.pgn.close()
        sys.stdout.write(self.report(interrupted) + "\n")
        return 130 if interrupted else 0

    def report(self, interrupted: bool) -> str:
        t, a = self.tally, self.args
        value = pentanomial_llr(t.pairs, a.elo0, a.elo1)
        trinomial = trinomial_llr(t.losses, t.draws, t.wins, a.elo0, a.elo1)
        elo, margin = elo_estimate(t.pairs)
        verdict = {"H1": "H1 accepted (the candidate gains)", "H0": "H0 accepted (no gain shown)"}.get(
            self.result or "", "no decision" + (" (interrupted)" if interrupted else f" after {t.games} games"))
        faults = ", ".join(f"{k} {v}" for k, v in sorted(t.faults.items())) or "none"
        return "\n".join([
            "## SPRT: candidate against base", "",
            f"Command: `{shlex.join([sys.executable.split('/')[-1], *sys.argv])}`", "",
            f"- candidate `{shlex.join(gauntlet.resolve_command(self.candidate.command))}`, "
            f"base `{shlex.join(gauntlet.resolve_command(self.base.command))}`; tc {a.tc}; concurrency {a.concurrency}",
            f"- openings `{a.openings}` (seed {a.seed}), each played twice with colours swapped"
            + (f"; resumed from `{a.resume}` with {self.resumed} complete pair{'s' * (self.resumed != 1)}"
               if a.resume else ""),
            f"- bounds [{a.elo0:g}, {a.elo1:g}] Elo, alpha {a.alpha:g}, beta {a.beta:g}: "
            f"LLR limits [{self.bounds[0]:.2f}, {self.bounds[1]:.2f}]",
            f"- games {t.games}: +{t.wins} ={t.draws} -{t.losses}; pairs (0, 1/2, 1, 3/2, 2 points) {t.pairs}",
            f"- Elo {gauntlet.format_elo(elo)} {gauntlet.format_margin(margin)} (95%, pentanomial)",
            f"- LLR {value:.3f} (pentanomial; trinomial {trinomial:.3f})",
            f"- result: {verdict}; faults: {faults}",
        ])


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidate", required=True, help="command of the candidate build")
    parser.add_argument("--base", required=True, help="command of the base build")
    parser.add_argument("--protocol", choices=("xboard", "uci"), default="xboard", help="of both (default xboard)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="engine option set in both builds (repeatable), e.g. OwnBook=false")
    parser.add_argument("--candidate-option", action="append", default=[], metavar="NAME=VALUE",
                        help="option of the candidate only, over --option (repeatable; OpenBench's dev options): "
                             "a change of an option's value is tested with one build, e.g. 'Move Overhead=30'")
    parser.add_argument("--base-option", action="append", default=[], metavar="NAME=VALUE",
                        help="option of the base only, over --option (repeatable; OpenBench's base options)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--max-games", type=int, default=20000, help="stop undecided after this many (default 20000)")
    parser.add_argument("--min-pairs", type=int, default=MIN_PAIRS,
                        help=f"no decision before this many pairs of games (default {MIN_PAIRS})")
    parser.add_argument("--tc", default="5+0.05", help="BASE+INC in seconds (default 5+0.05)")
    parser.add_argument("--concurrency", type=int, default=1, help="pairs played at once (default 1)")
    parser.add_argument("--openings", type=Path, default=gauntlet.DEFAULT_OPENINGS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pgn", type=Path, help="write every game here")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--resign", default="", help="resign adjudication MOVES:CP (default off)")
    parser.add_argument("--time-margin", type=float, default=0.0, help="milliseconds below zero allowed")
    parser.add_argument("--resume", type=Path, metavar="PGN",
                        help="go on from an earlier run's games (same builds, options, --seed and --max-games)")
    args = parser.parse_args(argv)
    try:
        args.base_time, args.inc = gauntlet.parse_tc(args.tc)
    except ValueError as error:
        parser.error(str(error))
    if not 0 < args.alpha < 1 or not 0 < args.beta < 1 or args.elo1 <= args.elo0:
        parser.error("need 0 < alpha, beta < 1 and elo0 < elo1")
    if args.max_games < 2 or args.concurrency < 1:
        parser.error("--max-games must be at least 2 and --concurrency at least 1")
    args.resign_moves = args.resign_cp = 0
    if args.resign:
        moves, _, cp = args.resign.partition(":")
        if not (moves.isdigit() and cp.isdigit() and int(moves) > 0):
            parser.error("--resign takes MOVES:CP, e.g. 4:1000")
        args.resign_moves, args.resign_cp = int(moves), int(cp)
    args.options = gauntlet.option_list(parser, "--option", args.option)
    candidate_own = gauntlet.option_list(parser, "--candidate-option", args.candidate_option)
    base_own = gauntlet.option_list(parser, "--base-option", args.base_option)
    args.candidate_options = gauntlet.merged_options(args.options, candidate_own)
    args.base_options = gauntlet.merged_options(args.options, base_own)
    if not args.openings.is_file():
        parser.error(f"openings file {args.openings} not found")
    if args.resume is not None and not args.resume.is_file():
        parser.error(f"--resume: {args.resume} not found")
    return args


def main(argv: list[str] | None = None) -> int:
    sys.setswitchinterval(0.0005)
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    logger = logging.getLogger("chess.engine")      # python-chess's notes on engine features, as gauntlet.py
    logger.handlers[:] = [gauntlet._EngineLogHandler(False)]
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    try:
        openings = gauntlet.sample_openings(gauntlet.read_openings(args.openings), (args.max_games + 1) // 2, args.seed)
    except (OSError, ValueError) as error:
        sys.stderr.write(f"openings: {error}\n")
        return 2
    try:
        resumed = resumed_pairs(args.resume, openings) if args.resume else {}
    except (OSError, UnicodeDecodeError, ValueError) as error:
        sys.stderr.write(f"resume: {error}\n")
        return 2
    candidate = gauntlet.EngineSpec("candidate", args.protocol, tuple(shlex.split(args.candidate)),
                                    tuple(args.candidate_options))
    base = gauntlet.EngineSpec("base", args.protocol, tuple(shlex.split(args.base)), tuple(args.base_options))
    try:
        return Sprt(args, candidate, base, openings, resumed).run()
    finally:
        gauntlet.kill_leftovers()


if __name__ == "__main__":
    sys.exit(main())
