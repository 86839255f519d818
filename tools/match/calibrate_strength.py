"""Calibrate the strength levels: play each level (UCI_LimitStrength with a UCI_Elo) against an
opponent of known rating through the gauntlet runner (tools/match/gauntlet.py), turn each score into the
level's measured rating, and fit the mapping from the UCI_Elo asked for to the level that plays
at it (docs/STRENGTH.md, "Strength levels"; engine/strength.py reads the fitted points).

Usage (after `pip install -e .` and `apt-get install stockfish`, and any other opponent named):

    python -m tools.match.calibrate_strength --plan 1500:stockfish-elo-1500,2000:stockfish-elo-2000 \\
        --games 100 --tc 10+0.1
    python -m tools.match.calibrate_strength --plan 2200:phalanx --rating phalanx=R

An opponent stockfish-elo-N is Stockfish at UCI_Elo N, rated N on Stockfish's own scale (its
documentation: calibrated at 60+0.6, anchored to CCRL 40/4); every other opponent needs --rating.

Each `LEVEL:OPPONENT` of --plan is one match of --games games (openings of tools/match/gauntlet.py, each
played with both colours, books off on both sides); --rating gives each opponent's rating on the
scale UCI_Elo is to mean (say which list in the docs). A score p becomes the rating
R + 400 log10(p / (1 - p)), p kept within half a game of 0 and 1. The table (level, opponent,
games, score, measured Elo with its 95% interval) and the fitted points go to stdout as Markdown.
"""
from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
from dataclasses import dataclass

from tools import tool_command, tool_environment
from tools.match.engines import opponent_spec  # the runner's names for its opponents

MATCH = "tools.match.gauntlet"   # the gauntlet runner, started as a module (tool_command)

# A row of the gauntlet runner's table: | opponent | games | W | D | L | score | ...
ROW = re.compile(r"^\| (?P<name>[^|]+?) \| (?P<games>\d+) \| (?P<wins>\d+) \| (?P<draws>\d+) \| (?P<losses>\d+) \|")


@dataclass(frozen=True)
class Measurement:
    level: int          # the UCI_Elo the engine was set to
    opponent: str
    rating: float       # the opponent's rating
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games

    def elo(self, score: float | None = None) -> float:
        """The level's rating measured by this match (or by another score against the opponent)."""
        p = self.score if score is None else score
        half = 0.5 / self.games
        p = min(max(p, half), 1 - half)
        return self.rating + 400 * math.log10(p / (1 - p))

    def interval(self) -> tuple[float, float]:
        """The rating's 95% interval from the per-game variance of the score (trinomial)."""
        n, p = self.games, self.score
        variance = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + self.losses * p ** 2) / n
        if variance == 0:   # all won, all lost or all drawn: the spread of a score half a game off
            kept = min(max(p, 0.5 / n), 1 - 0.5 / n)
            variance = kept * (1 - kept)
        margin = 1.96 * math.sqrt(variance / n)
        return self.elo(p - margin), self.elo(p + margin)


def parse_plan(text: str) -> list[tuple[int, str]]:
    plan = []
    for item in text.split(","):
        level, _, opponent = item.strip().partition(":")
        if not level.isdigit() or not opponent:
            raise ValueError(f"a plan item is LEVEL:OPPONENT, not {item!r}")
        plan.append((int(level), opponent))
    return plan


def parse_ratings(items: list[str]) -> dict[str, float]:
    ratings = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            ratings[name] = float(value)
        except ValueError:
            raise ValueError(f"a rating is NAME=ELO, not {item!r}") from None
    return ratings


def known_rating(opponent: str) -> int | None:
    """The rating an opponent's name states: stockfish-elo-N plays at N (Stockfish's own UCI_Elo,
    CCRL 40/4); None for the others, whose --rating is needed."""
    spec = opponent_spec(opponent)
    return None if spec is None else dict(spec.options).get("UCI_Elo")


def parse_table(report: str, opponent: str) -> tuple[int, int, int]:
    """(wins, draws, losses) of the engine against opponent from the gauntlet runner's report."""
    for line in report.splitlines():
        match = ROW.match(line)
        if match and match.group("name").split(" ")[0] == opponent:
            return int(match.group("wins")), int(match.group("draws")), int(match.group("losses"))
    raise ValueError(f"no row for {opponent} in the match report:\n{report[-2000:]}")


def fit(measurements: list[Measurement]) -> tuple[float, float]:
    """Least squares of measured Elo on level, weighted by games: (intercept, slope)."""
    weights = [m.games for m in measurements]
    total = sum(weights)
    mean_x = sum(w * m.level for w, m in zip(weights, measurements)) / total
    mean_y = sum(w * m.elo() for w, m in zip(weights, measurements)) / total
    sxx = sum(w * (m.level - mean_x) ** 2 for w, m in zip(weights, measurements))
    sxy = sum(w * (m.level - mean_x) * (m.elo() - mean_y) for w, m in zip(weights, measurements))
    slope = sxy / sxx if sxx else 1.0
    return mean_y - slope * mean_x, slope


def report(measurements: list[Measurement]) -> str:
    lines = ["| UCI_Elo set | opponent (rating) | games | score | measured Elo (95%) |",
             "| ---: | --- | ---: | ---: | ---: |"]
    for m in measurements:
        low, high = m.interval()
        lines.append(f"| {m.level} | {m.opponent} ({m.rating:.0f}) | {m.games} | "
                     f"{m.wins + 0.5 * m.draws:g}/{m.games} ({100 * m.score:.1f}%) | "
                     f"{m.elo():.0f} ({low:.0f} .. {high:.0f}) |")
    if len(measurements) >= 2:
        intercept, slope = fit(measurements)
        lines += ["", f"Fit: measured = {intercept:.0f} + {slope:.3f} x level. The points for "
                  "engine/strength.py's CALIBRATION (level set, Elo measured):",
                  "", "    " + ", ".join(f"({m.level}, {m.elo():.0f})" for m in measurements)]
    return "\n".join(lines)


def run_match(level: int, opponent: str, args: argparse.Namespace) -> str:
    command = [*tool_command(MATCH), "--engine", args.engine, "--opponents", opponent,
               "--games", str(args.games), "--tc", args.tc, "--concurrency", str(args.concurrency),
               "--seed", str(args.seed), "--engine-option", "UCI_LimitStrength=true",
               "--engine-option", f"UCI_Elo={level}", "--engine-option", "OwnBook=false"]
    print(f"# {' '.join(command)}", file=sys.stderr, flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False, env=tool_environment())
    if done.returncode != 0:
        raise RuntimeError(f"the gauntlet runner ended with {done.returncode}:\n{done.stdout[-2000:]}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--plan", required=True,
                        help="LEVEL:OPPONENT,... (opponents as tools/match/gauntlet.py names them)")
    parser.add_argument("--rating", action="append", default=[], metavar="OPPONENT=ELO",
                        help="an opponent's rating (one for every opponent of the plan but stockfish-elo-N)")
    parser.add_argument("--games", type=int, default=100, help="games per plan item (default 100)")
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="ponderosa", help="the engine's command (default ponderosa)")
    args = parser.parse_args(argv)
    try:
        plan, ratings = parse_plan(args.plan), parse_ratings(args.rating)
    except ValueError as error:
        parser.error(str(error))
    ratings = {**{opponent: float(rating) for _, opponent in plan
                  if (rating := known_rating(opponent)) is not None}, **ratings}
    unrated = sorted({opponent for _, opponent in plan} - set(ratings))
    if unrated:
        parser.error(f"no --rating for {', '.join(unrated)}")
    measurements = []
    for level, opponent in plan:
        wins, draws, losses = parse_table(run_match(level, opponent, args), opponent)
        measurements.append(Measurement(level, opponent, ratings[opponent], wins, draws, losses))
        print(report(measurements[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(report(measurements))
    return 0


if __name__ == "__main__":
    sys.exit(main())
