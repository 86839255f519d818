"""Playing strength a person can beat: UCI_LimitStrength / UCI_Elo, the same XBoard options, and
the console's `skill N` (Crafty's 1-100).

A level weakens the search the way people notice, not by wasting time: fewer nodes and a
shallower search, and a choice among the best few root moves (a MultiPV search) that grows more
random as the level falls. Two guards keep the upper levels from blunders: from SAFE_ELO up a
mate the search found is played, and no move is chosen that the search scores more than
SAFE_MARGIN worse than the best (a hung queen or a missed mate in one costs far more); below
SAFE_ELO that margin doubles every GUARD_FADE_ELO, so the levels weaken smoothly rather than
in a step at SAFE_ELO. Both go by the design level, the one the calibration measured.

The node and temperature curves below are the design; CALIBRATION maps the Elo asked for to
the design level that measured it (docs/STRENGTH.md, "Strength levels"). A level change during a
game takes effect at the next search.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Callable

from ponderosa.engine.limits import FULL_ELO, MIN_ELO  # UCI_Elo's range; FULL_ELO: no limit at all
from ponderosa.engine.search import MATE_THRESHOLD, SearchLimits, SearchResult, Thinking

SAFE_ELO = 2000          # from here up: mates are played, nothing worse than SAFE_MARGIN is chosen
SAFE_MARGIN = 150        # centipawns
GUARD_FADE_ELO = 100     # below SAFE_ELO the margin doubles every this many Elo of design level
LINES = 4                # root moves the choice is made among

# Measured points (level set, Elo it played at) from python -m tools.match.calibrate_strength with the network
# net-093: 60-80 games a level at 10+0.1 against Stockfish at a set UCI_Elo (CCRL 40/4 scale), each
# against the Stockfish level nearest the ratings the point serves (docs/STRENGTH.md, "Strength
# levels"); (1858, 1336) is the check of UCI_Elo 1500 that the straight line from 1500 to 2000
# missed, played before the guard faded in below SAFE_ELO. Empty: a level plays at its design Elo.
CALIBRATION: tuple[tuple[int, int], ...] = ((1500, 1095), (1858, 1336), (2000, 1661), (2300, 1908), (2417, 1977),
                                            (3000, 2453))


def calibrated_level(elo: int, points: tuple[tuple[int, int], ...] | None = None) -> int:
    """The level to set so that the engine plays at elo: the measured points (CALIBRATION unless
    given) inverted, linear between them and along the end segments beyond them; elo itself
    without two points."""
    points = CALIBRATION if points is None else points
    if len(points) < 2:
        return elo
    ordered = sorted(points, key=lambda point: point[1])
    for (level_a, measured_a), (level_b, measured_b) in zip(ordered, ordered[1:]):
        if elo <= measured_b or (level_b, measured_b) == ordered[-1]:
            if measured_b == measured_a:
                return level_a
            return round(level_a + (elo - measured_a) * (level_b - level_a) / (measured_b - measured_a))
    return elo   # not reached: the loop returns on its last pair


def skill_to_elo(skill: int) -> int:
    """Crafty's `skill N` (1-100; 100 is full strength) on the UCI_Elo scale."""
    if not 1 <= skill <= 100:
        raise ValueError(f"skill must be 1..100, not {skill}")
    return round(MIN_ELO + (FULL_ELO - MIN_ELO) * (skill - 1) / 99)


@dataclass
class StrengthLevel:
    """The engine's level: UCI_LimitStrength (limit) and UCI_Elo (target); full strength unless
    limit is on and the target is below FULL_ELO."""

    limit: bool = False
    target: int = FULL_ELO
    rng: random.Random = field(default_factory=random.Random)

    @property
    def elo(self) -> int | None:
        return self.target if self.limit and self.target < FULL_ELO else None

    def set_target(self, elo: int) -> None:
        if not MIN_ELO <= elo <= FULL_ELO:
            raise ValueError(f"UCI_Elo must be {MIN_ELO}..{FULL_ELO}, not {elo}")
        self.target = elo

    def set_skill(self, skill: int) -> None:
        """Crafty's `skill N`: 100 is full strength, lower values a level."""
        self.target = skill_to_elo(skill)
        self.limit = skill < 100

    @property
    def skill(self) -> int:
        """The level as Crafty's skill (100: full strength)."""
        if self.elo is None:
            return 100
        return max(1, min(99, round(1 + 99 * (self.elo - MIN_ELO) / (FULL_ELO - MIN_ELO))))

    @property
    def limited(self) -> bool:
        return self.elo is not None

    def describe(self) -> str:
        return "full strength" if self.elo is None else f"strength level {self.elo} Elo (skill {self.skill})"

    def design_elo(self) -> int:
        """The level the curves below are set to: the Elo asked for, through the calibration."""
        assert self.elo is not None
        return max(MIN_ELO, min(FULL_ELO, calibrated_level(self.elo)))

    def node_cap(self) -> int:
        """Nodes a move: 100 at the bottom, doubling every 150 Elo (about 10,000 at 2000)."""
        return int(100 * 2 ** ((self.design_elo() - MIN_ELO) / 150))

    def depth_cap(self) -> int:
        return 1 + (self.design_elo() - MIN_ELO) // 150

    def guard_margin(self) -> float:
        """Centipawns below the best beyond which no move is drawn: SAFE_MARGIN from SAFE_ELO up,
        doubling every GUARD_FADE_ELO below (600 at 1800, far more than any choice at 1500)."""
        return SAFE_MARGIN * 2 ** (max(0, SAFE_ELO - self.design_elo()) / GUARD_FADE_ELO)

    def temperature(self) -> float:
        """Centipawns of score difference that make a move e times less likely to be chosen:
        300 at the bottom, none from 2500 up."""
        return max(0.0, (2500 - self.design_elo()) / 5)

    def shape(self, limits: SearchLimits) -> SearchLimits:
        """The limits of a search at this level: the caller's, with the node and depth caps."""
        nodes = min(limits.nodes, self.node_cap()) if limits.nodes else self.node_cap()
        depth = min(limits.depth, self.depth_cap()) if limits.depth else self.depth_cap()
        return replace(limits, nodes=nodes, depth=depth)

    def choose(self, result: SearchResult, lines: dict[str, int]) -> SearchResult:
        """The move played: one of the root lines (move -> score, side to move's view) drawn by
        the level's temperature, within the guards; the search's result when there is no choice."""
        if result.best_move is None or len(lines) < 2 or self.elo is None:
            return result
        best = max(lines.values())
        if self.design_elo() >= SAFE_ELO and best >= MATE_THRESHOLD:
            return result
        temperature, margin = self.temperature(), self.guard_margin()
        allowed = {move: score for move, score in lines.items() if best - score <= margin}
        if temperature <= 0 or len(allowed) < 2:
            return result
        moves = sorted(allowed)
        weights = [math.exp(-(best - allowed[move]) / temperature) for move in moves]
        move = self.rng.choices(moves, weights)[0]
        if move == result.best_move:
            return result
        return SearchResult(move, allowed[move], result.depth, result.nodes, result.seconds, [move])


class LineCollector:
    """Keeps the root lines of the last finished iteration of a MultiPV search and passes the
    first line's reports on (a person playing at a level sees one line, as at full strength)."""

    def __init__(self, forward: Callable[[Thinking], None] | None) -> None:
        self.forward = forward
        self.depth = 0
        self.current: dict[str, int] = {}
        self.finished: dict[str, int] = {}

    def __call__(self, report: Thinking) -> None:
        if report.bound == "exact" and report.pv:
            if report.depth != self.depth:
                self.depth, self.current = report.depth, {}
            self.current[report.pv[0]] = report.score
            if len(self.current) >= report.lines:   # every line of this iteration is in
                self.finished = dict(self.current)
        if report.multipv == 1 and self.forward is not None:
            self.forward(report)

    def lines(self) -> dict[str, int]:
        """The last whole iteration's lines (the unfinished one's when none was whole)."""
        return self.finished or self.current


class LevelSearch:
    """One search at a strength level: the capped limits, the collector of its root lines (pass
    it as the search's thinking callback, with multi_pv=lines), and the move chosen at its end."""

    def __init__(self, level: StrengthLevel, limits: SearchLimits,
                 on_thinking: Callable[[Thinking], None] | None) -> None:
        self.level = level
        self.limits = level.shape(limits)
        # Without a temperature the best line is always played: the other lines would only cost
        # depth (about two plies at 10+0.1), so from 2500 up the search keeps one.
        self.lines = LINES if level.temperature() > 0 else 1
        self.collector = LineCollector(on_thinking)

    def choose(self, result: SearchResult) -> SearchResult:
        return self.level.choose(result, self.collector.lines())

    def on_finished(self, forward: Callable[[int, SearchResult], None]) -> Callable[[int, SearchResult], None]:
        """forward, given the chosen move instead of the search's own."""
        return lambda serial, result: forward(serial, self.choose(result))
