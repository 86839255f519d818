"""XBoard's clock and search-limit commands (level, st, sd, nps, time, otim) and the time
budget of a move that follows from them."""
from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING

from ponderosa.engine.clock import MIN_BUDGET, TimeControl, allocate, parse_level, parse_st
from ponderosa.engine.search import SearchLimits
from ponderosa.protocol.xboard_records import claim_flag_if_fallen

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.xboard import Output

MAX_SECONDS = 1e7               # longer than any game, and still a 64-bit nanosecond deadline
MAX_NODES = 1 << 62
CENTISECONDS = re.compile(r"^-?\d+(\.\d+)?$")


class XBoardClock:
    """Mixin of XBoardSession: the time control, both clocks and the depth and node limits."""

    engine: Engine
    out: Output
    control: TimeControl
    own_seconds: float | None
    opponent_seconds: float | None
    moves_played: int
    depth_limit: int | None
    node_rate: int | None
    usage_percent: int
    operator_seconds: float
    ponder_enabled: bool
    ics_on: bool
    engine_side: bool | None

    if TYPE_CHECKING:   # provided by XBoardSession
        def _abandon(self) -> None: ...

    def _time_budget(self):
        return allocate(self.control, self.own_seconds, self.opponent_seconds, self.moves_played,
                        usage_percent=self.usage_percent, operator_seconds=self.operator_seconds,
                        pondering=self.ponder_enabled, lag_seconds=self.engine.ics.lag_seconds * self.ics_on)

    def _budget(self) -> tuple[float, float]:
        """(soft, hard) seconds for the move: the clock module's allocation, as a deadline the
        search can represent (a huge `st` or clock would overflow it)."""
        budget = self._time_budget()
        soft, hard = _bounded_seconds(budget.soft_seconds), _bounded_seconds(budget.hard_seconds)
        return min(soft, hard), hard

    def _think_limits(self) -> SearchLimits:
        soft, hard = self._budget()
        if self.node_rate:
            # `nps`: the clock is counted in nodes.
            return SearchLimits(depth=self.depth_limit, nodes=min(MAX_NODES, max(1, int(hard * self.node_rate))))
        return SearchLimits(depth=self.depth_limit, soft_seconds=soft, hard_seconds=hard)

    def cmd_level(self, args: str) -> None:
        try:
            self.control = parse_level(args)
        except (ValueError, OverflowError):
            self.out.line(f"Error (bad level): level {args}")

    def cmd_st(self, args: str) -> None:
        try:
            control = parse_st(args)
        except (ValueError, OverflowError):
            self.out.line(f"Error (bad time): st {args}")
            return
        if control.seconds_per_move is not None and control.seconds_per_move > MAX_SECONDS:
            control = dataclasses.replace(control, seconds_per_move=MAX_SECONDS)   # still a deadline
        self.control = control

    def cmd_sd(self, args: str) -> None:
        if args.isdigit() and int(args) > 0:
            self.depth_limit = int(args)
        else:
            self.out.line(f"Error (bad depth): sd {args}")

    def cmd_nps(self, args: str) -> None:
        if args.isdigit():
            self.node_rate = min(int(args), MAX_NODES) or None
        else:
            self.out.line(f"Error (bad node rate): nps {args}")

    def cmd_time(self, args: str) -> None:
        seconds = _clock_seconds(args)
        if seconds is None:
            self.out.line(f"Error (bad time): time {args}")
        else:
            self.own_seconds = seconds

    def cmd_otim(self, args: str) -> None:
        seconds = _clock_seconds(args)
        if seconds is None:
            self.out.line(f"Error (bad time): otim {args}")
        else:
            self.opponent_seconds = seconds
            claim_flag_if_fallen(self)


def _clock_seconds(text: str) -> float | None:
    """`time`/`otim` centiseconds as seconds (a negative clock counts as zero), else None."""
    if not CENTISECONDS.match(text):
        return None
    return min(max(0.0, float(text)) / 100, MAX_SECONDS)


def _bounded_seconds(seconds: float) -> float:
    """A time limit the search can turn into a nanosecond deadline."""
    if math.isnan(seconds):
        return MIN_BUDGET
    return min(max(seconds, MIN_BUDGET), MAX_SECONDS)
