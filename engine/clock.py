"""TEMPORARY stand-in for the time-control module (replaced by the real one)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    moves_per_session: int = 0
    base_seconds: float = 300.0
    increment_seconds: float = 0.0
    seconds_per_move: float | None = None
    secondary: TimeControl | None = None


@dataclass(frozen=True)
class TimeBudget:
    soft_seconds: float
    hard_seconds: float


def parse_level(args: str) -> TimeControl:
    mps, base, inc = args.split()[:3]
    minutes, _, seconds = base.partition(":")
    return TimeControl(int(mps), float(minutes) * 60 + float(seconds or 0), float(inc))


def parse_st(text: str) -> TimeControl:
    return TimeControl(seconds_per_move=float(text))


def allocate(control: TimeControl, own_seconds: float | None, opponent_seconds: float | None,
             moves_played: int, *, usage_percent: int = 0, operator_seconds: float = 0.0,
             pondering: bool = False) -> TimeBudget:
    if control.seconds_per_move is not None:
        t = max(0.01, control.seconds_per_move - 0.02)
        return TimeBudget(t, t)
    left = own_seconds if own_seconds is not None else control.base_seconds
    togo = control.moves_per_session - moves_played % control.moves_per_session if control.moves_per_session else 30
    soft = max(0.01, (left - 0.1) / togo + control.increment_seconds * 0.8)
    hard = max(0.01, min(soft * 4, left * 0.5 + control.increment_seconds * 0.5))
    return TimeBudget(min(soft, hard), hard)


def parse_crafty_time(text: str) -> TimeControl:
    parts = text.replace(";", "").split("/")
    if parts[0] == "sd":
        return TimeControl(0, float(parts[1]) * 60, float(parts[2]) if len(parts) > 2 else 0.0)
    return TimeControl(int(parts[0]), float(parts[1]) * 60, 0.0)
