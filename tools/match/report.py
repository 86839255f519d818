"""The score of a match (tools/match/gauntlet.py, tools/match/sprt.py, tools/match/cutechess.py): Elo from a score
with its 95% margin, the tally of one opponent's games and the Markdown table of the report."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from tools.match.games import ENGINE_SIDE, OPPONENT_SIDE, GameRecord

Z95 = 1.959963984540054

FAULTS = ("time", "illegal", "crash", "error")


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for a score fraction; ±inf at 0 and 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_with_margin(points: list[float]) -> tuple[float, float]:
    """Elo difference and its 95% margin from per-game points (1, 0.5, 0).

    The margin is ±1.96·σ/√n of the mean score converted through the same formula,
    (Elo(mean + d) − Elo(mean − d)) / 2. At 0% or 100% the Elo is ∓/±inf and the margin
    is NaN (undefined); when the interval reaches 0% or 100% the margin is inf.
    No games give (nan, nan).
    """
    n = len(points)
    if n == 0:
        return math.nan, math.nan
    mean = sum(points) / n
    elo = elo_from_score(mean)
    if math.isinf(elo):
        return elo, math.nan
    variance = sum((p - mean) ** 2 for p in points) / n
    deviation = Z95 * math.sqrt(variance / n)
    low, high = mean - deviation, mean + deviation
    if low <= 0 or high >= 1:
        return elo, math.inf
    return elo, (elo_from_score(high) - elo_from_score(low)) / 2


def format_elo(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value):+d}"


def format_margin(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "±inf"
    return f"±{value:.0f}"



@dataclass
class Tally:
    points: list[float] = field(default_factory=list)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: Counter = field(default_factory=Counter)      # (side, kind) -> count
    reasons: Counter = field(default_factory=Counter)

    def add(self, record: GameRecord) -> None:
        points = record.engine_points
        self.points.append(points)
        if points == 1:
            self.wins += 1
        elif points == 0:
            self.losses += 1
        else:
            self.draws += 1
        if record.fault:
            self.faults[(record.fault_side, record.fault)] += 1
        self.reasons[record.termination if record.termination != "normal" else short_reason(record.reason)] += 1

    def merge(self, other: Tally) -> None:
        self.points += other.points
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.faults.update(other.faults)
        self.reasons.update(other.reasons)

    def line(self) -> str:
        return f"+{self.wins} ={self.draws} -{self.losses}"


def short_reason(reason: str) -> str:
    if reason.endswith("mates"):
        return "checkmate"
    if "resigns" in reason:
        return "resignation"
    if "claims a draw" in reason:
        return "draw claim"
    return reason


def table(rows: list[tuple[str, Tally]]) -> str:
    head = ("| opponent | games | W | D | L | score | Elo | ±95% | time losses (E/O) | illegal moves (E/O) "
            "| crashes (E/O) | errors (E/O) |")
    lines = [head, "| " + " | ".join(["---"] * 12) + " |"]
    for name, tally in rows:
        n = len(tally.points)
        elo, margin = elo_with_margin(tally.points)
        score = f"{100 * sum(tally.points) / n:.1f}%" if n else "n/a"
        faults = [f"{tally.faults[(ENGINE_SIDE, k)]}/{tally.faults[(OPPONENT_SIDE, k)]}" for k in FAULTS]
        lines.append(f"| {name} | {n} | {tally.wins} | {tally.draws} | {tally.losses} | {score} | "
                     f"{format_elo(elo)} | {format_margin(margin)} | " + " | ".join(faults) + " |")
    return "\n".join(lines)
