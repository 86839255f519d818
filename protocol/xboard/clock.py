"""XBoard's clock and search-limit commands (level, st, sd, nps, time, otim), the state they set,
and the time budget of a move that follows from them; the flag claim (Crafty's `flag on`)."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ponderosa.engine.clock import (
    TimeBudget,
    TimeControl,
    allocate,
    deadline_seconds,
    parse_level,
    parse_st,
)
from ponderosa.engine.search import SearchLimits

if TYPE_CHECKING:
    from ponderosa.protocol.xboard.session import XBoardSession

MAX_SECONDS = 1e7               # longer than any game, and still a 64-bit nanosecond deadline
MAX_NODES = 1 << 62
CENTISECONDS = re.compile(r"^-?\d+(\.\d+)?$")


@dataclass
class XBoardClock:
    """The time control, both clocks, the engine's moves so far and the depth and node limits."""

    control: TimeControl = field(default_factory=TimeControl)
    own_seconds: float | None = None
    opponent_seconds: float | None = None
    moves_played: int = 0
    depth_limit: int | None = None
    node_rate: int | None = None        # `nps`: the clock counts nodes at this rate
    usage_percent: int = 0
    operator_seconds: float = 0.0
    move_overhead: float = 0.0   # option MoveOverhead, in seconds (the session sets the table's default)

    def new_game(self) -> None:
        """XBoard's `new`: the limits and clocks go (the time control stays)."""
        self.depth_limit = None
        self.node_rate = None
        self.moves_played = 0
        self.own_seconds = self.opponent_seconds = None

    def _time_budget(self, pondering: bool, lag_seconds: float, waited_seconds: float = 0.0) -> TimeBudget:
        own = None if self.own_seconds is None else max(0.0, self.own_seconds - waited_seconds)
        return allocate(self.control, own, self.opponent_seconds, self.moves_played,
                        usage_percent=self.usage_percent, operator_seconds=self.operator_seconds,
                        pondering=pondering, lag_seconds=lag_seconds, move_overhead=self.move_overhead)

    def budget(self, pondering: bool, lag_seconds: float, waited_seconds: float = 0.0) -> tuple[float, float]:
        """(soft, hard) seconds for the move: the clock module's allocation, as a deadline the
        search can represent (a huge `st` or clock would overflow it)."""
        budget = self._time_budget(pondering, lag_seconds, waited_seconds)
        soft, hard = deadline_seconds(budget.soft_seconds), deadline_seconds(budget.hard_seconds)
        return min(soft, hard), hard

    def think_limits(self, pondering: bool, lag_seconds: float, waited_seconds: float = 0.0) -> SearchLimits:
        """The move's limits. waited_seconds: time gone since the GUI sent the clock (the command
        waited to be read): the budget is allocated from what is left of the clock, or, with no
        clock to allocate from (`st`, or no `time` sent), comes off the move's own time."""
        from_clock = self.own_seconds is not None and self.control.seconds_per_move is None
        soft, hard = self.budget(pondering, lag_seconds, waited_seconds if from_clock else 0.0)
        if self.node_rate:
            # `nps`: the clock is counted in nodes.
            return SearchLimits(depth=self.depth_limit, nodes=min(MAX_NODES, max(1, int(hard * self.node_rate))))
        limits = SearchLimits(depth=self.depth_limit, soft_seconds=soft, hard_seconds=hard)
        return limits if from_clock else limits.less_waited(waited_seconds)


# -- commands ---------------------------------------------------------------------

def level(session: XBoardSession, args: str) -> None:
    try:
        session.clock.control = parse_level(args)
    except (ValueError, OverflowError):
        session.out.line(f"Error (bad level): level {args}")


def st(session: XBoardSession, args: str) -> None:
    try:
        control = parse_st(args)
    except (ValueError, OverflowError):
        session.out.line(f"Error (bad time): st {args}")
        return
    if control.seconds_per_move is not None and control.seconds_per_move > MAX_SECONDS:
        control = dataclasses.replace(control, seconds_per_move=MAX_SECONDS)   # still a deadline
    session.clock.control = control


def sd(session: XBoardSession, args: str) -> None:
    if args.isdigit() and int(args) > 0:
        session.clock.depth_limit = int(args)
    else:
        session.out.line(f"Error (bad depth): sd {args}")


def nps(session: XBoardSession, args: str) -> None:
    if args.isdigit():
        session.clock.node_rate = min(int(args), MAX_NODES) or None
    else:
        session.out.line(f"Error (bad node rate): nps {args}")


def time(session: XBoardSession, args: str) -> None:
    seconds = _clock_seconds(args)
    if seconds is None:
        session.out.line(f"Error (bad time): time {args}")
    else:
        session.clock.own_seconds = seconds


def otim(session: XBoardSession, args: str) -> None:
    seconds = _clock_seconds(args)
    if seconds is None:
        session.out.line(f"Error (bad time): otim {args}")
    else:
        session.clock.opponent_seconds = seconds
        claim_flag_if_fallen(session)


def claim_flag_if_fallen(session: XBoardSession) -> None:
    """With `flag on`, an opponent clock at zero while the engine plays is a win claimed on time."""
    engine, opponent_seconds = session.engine, session.clock.opponent_seconds
    if not engine.options.get("flag") or session.engine_side is None or opponent_seconds is None:
        return
    if opponent_seconds > 0 or engine.outcome() is not None:
        return
    loser = "Black" if session.engine_side else "White"
    result = "1-0" if session.engine_side else "0-1"
    session.abandon()
    session.engine_side = None
    session.out.line(f"{result} {{{loser}'s flag fell}}")
    engine.finish_game(result)


CLOCK_COMMANDS: dict[str, Callable[[XBoardSession, str], None]] = {
    "level": level, "st": st, "sd": sd, "nps": nps, "time": time, "otim": otim,
}


def _clock_seconds(text: str) -> float | None:
    """`time`/`otim` centiseconds as seconds (a negative clock counts as zero), else None."""
    if not CENTISECONDS.match(text):
        return None
    return min(max(0.0, float(text)) / 100, MAX_SECONDS)

