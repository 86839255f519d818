"""When a timed search stops deepening: the soft limit, scaled after each iteration by how settled
the search is.

The clock (engine/clock.py) gives a move a soft and a hard limit. Between iterations the main
thread asks `IterationClock.should_stop`: no iteration starts past BASE_SHARE of the soft limit
times a scale, and none that would most likely not finish before the hard limit. The scale is
the product of four factors, each 1.0 for an ordinary settled search:

- best-move instability: every change of the best move adds one, halved at each iteration;
- score trend: a score falling since the previous move's search, or over the last iterations,
  buys time (the position is worse than it looked), a rising one gives some back;
- the best move's share of the root's nodes: when the other moves were refuted cheaply the
  best one is settled, when they took much of the effort it is not;
- a won position (+10.00 or more at depth 8, no mate yet) takes a quarter: more thought would
  not change the result (a +55 move once took a third of a 2-minute game's base time).

Stockfish's and Ethereal's time managers scale their ideal time by the same kinds of factors;
the constants here are Ponderosa's own.
"""
from __future__ import annotations

from dataclasses import dataclass, field

BASE_SHARE = 0.5            # settled search: no iteration starts past half the soft limit
MIN_SCALED_DEPTH = 4        # the factors apply from this depth on (shallower results are noise)

CHANGE_DECAY = 0.5          # best-move changes count half as much after each iteration
INSTABILITY_MAX = 2.5       # 1 + decayed changes, at most this

TREND_PER_CP = 0.004        # each centipawn of fall adds this to the trend factor
TREND_ITERATIONS = 3        # the iteration trend compares with the score this many iterations ago
TREND_MIN, TREND_MAX = 0.8, 1.6
SCORE_CLIP = 1000           # scores (and mates) beyond +-10.00 count as 10.00 in the trend

NODE_SHARE_CENTRE = 0.72    # the median share at 10+0.1 budgets (depths 9-13): factor 1.0
NODE_SHARE_SLOPE = 2.0      # each 0.1 of share below the centre adds 0.2
NODE_FACTOR_MIN, NODE_FACTOR_MAX = 0.7, 1.8   # 0.7: a share of 1

WON_SCORE = 1000            # centipawns for the side to move: the position is won...
WON_MIN_DEPTH = 8           # ...once an iteration this deep says so
WON_FACTOR = 0.25
WON_HARD_SHARE = 0.5        # and the hard limit drops to half the soft limit

SCALE_MAX = 3.0             # the product never asks for more than 3x the settled time

GROWTH_DEFAULT = 2.0        # an iteration takes about twice the one before it...
GROWTH_MIN, GROWTH_MAX = 1.3, 4.0   # ...measured from the last two, within these bounds


def _clip(score: int) -> int:
    return max(-SCORE_CLIP, min(SCORE_CLIP, score))


def _bounded(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


@dataclass
class IterationClock:
    """The main thread's record of one timed search's iterations, and its stop rule.

    previous_score: the score of the engine's previous timed search in this game (the same
    side to move), None at the start of a game."""

    previous_score: int | None = None
    best_changes: float = 0.0
    won: bool = False
    scores: list[int] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)   # seconds from the start at each iteration's end
    best_move: str | None = None
    node_share: float = NODE_SHARE_CENTRE
    depth: int = 0

    def iteration_done(self, depth: int, best_move: str, score: int, node_share: float,
                       elapsed: float, mate: bool) -> None:
        """Record a finished iteration: its depth, best move, score (the mover's view; `mate`
        when it is a mate score), the best move's share of the root's nodes, and its end time."""
        self.best_changes *= CHANGE_DECAY
        if self.best_move is not None and best_move != self.best_move and depth >= MIN_SCALED_DEPTH:
            self.best_changes += 1.0
        self.best_move = best_move
        self.depth = depth
        self.scores.append(score)
        self.ends.append(elapsed)
        self.node_share = node_share
        if depth >= WON_MIN_DEPTH and score >= WON_SCORE and not mate:
            self.won = True

    def instability(self) -> float:
        return min(INSTABILITY_MAX, 1.0 + self.best_changes)

    def trend(self) -> float:
        """Above 1 when the score fell, against the previous move's search and against the
        iteration TREND_ITERATIONS back; below 1 when it rose."""
        if not self.scores:
            return 1.0
        now = _clip(self.scores[-1])
        fall = 0
        if self.previous_score is not None:
            fall += _clip(self.previous_score) - now
        if len(self.scores) > TREND_ITERATIONS:
            fall += _clip(self.scores[-1 - TREND_ITERATIONS]) - now
        return _bounded(1.0 + TREND_PER_CP * fall, TREND_MIN, TREND_MAX)

    def node_factor(self) -> float:
        return _bounded(1.0 + NODE_SHARE_SLOPE * (NODE_SHARE_CENTRE - self.node_share),
                        NODE_FACTOR_MIN, NODE_FACTOR_MAX)

    def scale(self) -> float:
        """The settled time's multiplier after the last iteration (1.0 below MIN_SCALED_DEPTH)."""
        if self.depth < MIN_SCALED_DEPTH:
            return 1.0
        scale = min(SCALE_MAX, self.instability() * self.trend() * self.node_factor())
        return scale * WON_FACTOR if self.won else scale

    def next_iteration_seconds(self) -> float:
        """The expected length of the next iteration: the last one's, times the growth of the
        last two (GROWTH_DEFAULT with fewer)."""
        if not self.ends:
            return 0.0
        last = self.ends[-1] - (self.ends[-2] if len(self.ends) > 1 else 0.0)
        growth = GROWTH_DEFAULT
        if len(self.ends) > 2:
            before = self.ends[-2] - self.ends[-3]
            if before > 0.001:
                growth = _bounded(last / before, GROWTH_MIN, GROWTH_MAX)
        return last * growth

    def should_stop(self, elapsed: float, soft_seconds: float, hard_seconds: float | None) -> bool:
        """Start no new iteration: past the scaled share of the soft limit, or when the next
        iteration would most likely be cut off by the hard limit (its work would be lost)."""
        if elapsed >= BASE_SHARE * soft_seconds * self.scale():
            return True
        if hard_seconds is not None and self.depth >= MIN_SCALED_DEPTH:
            return elapsed + self.next_iteration_seconds() > hard_seconds
        return False
