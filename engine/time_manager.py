"""How long one move's search goes on, decided between its iterations. The clock (engine/clock.py)
gives a soft limit, the time a move is meant to take, and a hard one it never passes. What the
search shows scales the soft limit: a best move that stays from iteration to iteration, a score
that holds, and a best move that took most of the root's nodes (little doubt among the others)
each shorten the move; a best move that changes, a score that falls and effort spread over
several moves lengthen it; a position already won is played quickly. No iteration is started
that the hard limit would cut off (it would be time spent for nothing)."""
from __future__ import annotations

from dataclasses import dataclass, field

FIRST_SCALED_DEPTH = 4           # below it the iterations take no time worth managing
# Each factor is 1 for a usual move: the soft limit is what the clock meant a move to take.
STABLE_ITERATIONS_MAX = 10       # the same best move this many iterations running: the shortest
STABILITY_NEW, STABILITY_STEP = 1.3, 0.06      # 1.3 for a new best move, 1.0 after 5, 0.7 after 10
SCORE_TREND_ITERATIONS = 3       # the score is compared with the one this many iterations before
SCORE_FACTOR_PER_CP = 0.01       # a drop of 25 cp: 1.25; a rise: down to 0.8
SCORE_FACTOR_RANGE = (0.8, 1.5)
NODE_FACTOR_BASE, NODE_FACTOR_SLOPE = 0.5, 1.5   # the best move's share of the nodes 0.7: 0.95; 0.9: 0.65
NODE_FACTOR_RANGE = (0.5, 2.0)
WON_SCORE = 800                  # centipawns (or a mate) beyond which the game is decided
WON_FACTOR = 0.4
STOP_SHARE = 0.7                 # an iteration that ends past this share of the target is the last
GROWTH_RANGE = (1.5, 4.0)        # an iteration takes this many times the one before it (clamped)


@dataclass
class MoveTimer:
    """The time plan of one search; times are nanoseconds on the search's monotonic clock."""

    start_ns: int
    soft_ns: int        # deadline the clock allows for this move normally (0: none)
    hard_ns: int        # deadline the search never passes (0: none)
    stable: int = 0
    last_move: str | None = None
    scores: list[int] = field(default_factory=list)
    last_iteration_end_ns: int = 0
    last_iteration_ns: int = 0
    growth: float = 2.0
    factor: float = 1.0   # the product of the factors after the last iteration (for reports and tests)

    def set_limits(self, soft_ns: int, hard_ns: int) -> None:
        """A new budget (a ponder hit gives one counted from the search's start)."""
        self.soft_ns, self.hard_ns = soft_ns, hard_ns

    def iteration_done(self, depth: int, best_move: str | None, score: int, best_share: float | None,
                       now_ns: int) -> bool:
        """Note an iteration that completed; True when the search should start no other.
        best_share: the best move's share of the iteration's root nodes (None: not known)."""
        took = now_ns - (self.last_iteration_end_ns or self.start_ns)
        if self.last_iteration_ns > 0 and depth > FIRST_SCALED_DEPTH:
            self.growth = min(max(took / self.last_iteration_ns, GROWTH_RANGE[0]), GROWTH_RANGE[1])
        self.last_iteration_ns, self.last_iteration_end_ns = max(took, 1), now_ns
        self.stable = min(self.stable + 1, STABLE_ITERATIONS_MAX) if best_move == self.last_move else 0
        self.last_move = best_move
        self.scores.append(score)
        if not self.soft_ns:
            return False
        self.factor = self.scale(depth, score, best_share)
        elapsed = now_ns - self.start_ns
        target = (self.soft_ns - self.start_ns) * self.factor
        if elapsed >= STOP_SHARE * target:
            return True
        # The next iteration would most likely not finish before the hard limit stops it.
        return bool(self.hard_ns) and now_ns + self.growth * self.last_iteration_ns > self.hard_ns

    def scale(self, depth: int, score: int, best_share: float | None) -> float:
        """The product of the factors that scale the soft limit after this iteration."""
        if abs(score) >= WON_SCORE:
            return WON_FACTOR
        if depth < FIRST_SCALED_DEPTH:
            return 1.0
        stability = STABILITY_NEW - STABILITY_STEP * self.stable
        earlier = self.scores[max(0, len(self.scores) - 1 - SCORE_TREND_ITERATIONS)]
        trend = 1.0 + SCORE_FACTOR_PER_CP * (earlier - score)
        trend = min(max(trend, SCORE_FACTOR_RANGE[0]), SCORE_FACTOR_RANGE[1])
        spread = 1.0
        if best_share is not None:
            spread = NODE_FACTOR_BASE + NODE_FACTOR_SLOPE * (1.0 - best_share)
            spread = min(max(spread, NODE_FACTOR_RANGE[0]), NODE_FACTOR_RANGE[1])
        return stability * trend * spread
