"""Time controls and time allocation: parse `level`, `st` and Crafty's `time`/`settc`/`clock`,
then split the clock into a soft and a hard limit for one move. Pure functions, no I/O.

All times are seconds (floats). The protocol layer converts XBoard's centiseconds (`time`,
`otim`) and Crafty's minutes before calling in here.

How a budget is made (`allocate`):
- moves to go: a conventional control counts down to the next time addition; sudden death
  always assumes 40 more moves (Crafty's figure). A shorter horizon late in the game was
  tried: worst-case play (every move to its hard limit) then lost on time in a 1-minute game
  before move 120. An increment that pays for each move's latency allowance refills the clock
  on every move, so incremental controls assume 20 (measured at 10+0.1: with 40 the engine
  ended its games with about 4 of its 10 seconds unused and spent 4.8 s on its first 20
  moves, where Ethereal spent 8; docs/STRENGTH.md);
- the per-move latency allowance (option Move Overhead, by default `MOVE_OVERHEAD`), a chess
  server's lag and the operator's time are set aside for every move to go, unless the increment
  pays for them; in sudden death the allowance and the lag (what the increment does not pay of
  them) are set aside for 80 moves (`COST_RESERVE_MOVES`), as every move costs them however
  short its thinking;
- soft = spendable clock / moves to go + the increment left after that allowance;
- hard = 4x soft in conventional controls, 3x in sudden death and incremental ones (the soft
  limit before `usage` and pondering raise it), never more than half the clock and never more
  than the clock minus a safety margin (`safety_margin`), the operator's time and the move
  overhead (Stockfish too takes the overhead off its maximum);
- both are at least `MIN_BUDGET`, and soft never exceeds hard;
- a fixed time per move (`st`, UCI's movetime) gives up the move overhead, at most a tenth of that time.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ponderosa.engine.limits import DEFAULT_MOVE_OVERHEAD_MS, DEFAULT_SECONDS_PER_MOVE

MIN_BUDGET = 0.003           # no budget is smaller: the search always completes its first iteration
MOVE_OVERHEAD = DEFAULT_MOVE_OVERHEAD_MS / 1000   # GUI, pipe and process latency of a move (s)
SAFETY_MIN = 0.05            # the clock always keeps at least this after the hard limit...
SAFETY_FRACTION = 0.05       # ...or this share of what is left...
SAFETY_MAX = 1.0             # ...but no more than this
ST_MARGIN_SHARE = 0.1        # `st` gives up the move overhead, but never more than this share of its time
SD_MOVES_TO_GO = 40          # sudden death: moves assumed still to play, at any point (Crafty: 40)
INCREMENT_MOVES_TO_GO = 20   # the same when the increment pays each move's latency allowance
HARD_RATIO_CONVENTIONAL = 4  # hard/soft when time comes back at the next control
HARD_RATIO_SUDDEN_DEATH = 3  # hard/soft when it never comes back (beyond the increment)
HARD_CLOCK_SHARE = 0.5      # one move never takes more than half the clock (Crafty's TimeSet)
SESSION_AVERAGE_CAP = 3      # conventional soft <= 3x the session's average (Crafty's TimeSet)
PONDER_FACTOR = 1.25         # pondering on: expect ponder hits, spend a quarter more (Stockfish)
USAGE_LIMIT = 50             # `usage` is clamped to +-50 percent, as Crafty's option.c does
BEHIND_FACTOR = 1.5          # opponent has 1.5x our clock: we are behind (Crafty's mildest step)
COST_RESERVE_MOVES = 80      # sudden death: overhead and lag the increment does not pay, held back for this many moves
BEHIND_SCALE = 0.8           # ...and then spend a fifth less (Crafty divides by 3 against humans)


@dataclass(frozen=True)
class TimeControl:
    """A game's time control: `level` (conventional or incremental) or `st` (fixed time per move)."""

    moves_per_session: int = 0          # 0 = whole game in one session (sudden death / incremental)
    base_seconds: float = 300.0         # time for the (first) session
    increment_seconds: float = 0.0      # added after each own move (may be fractional)
    seconds_per_move: float | None = None   # `st`; when set, it replaces the level
    secondary: TimeControl | None = None    # Crafty's second control after the first session (time 60/30/sd/30/5)

    def __post_init__(self) -> None:
        if isinstance(self.moves_per_session, bool) or not isinstance(self.moves_per_session, int):
            raise ValueError(f"moves per session must be a whole number, got {self.moves_per_session!r}")
        if self.moves_per_session < 0:
            raise ValueError(f"moves per session must be 0 or more, got {self.moves_per_session}")
        _check_seconds("base time", self.base_seconds)
        _check_seconds("increment", self.increment_seconds)
        if self.seconds_per_move is not None:
            _check_seconds("time per move", self.seconds_per_move)
        if self.secondary is not None:
            if self.moves_per_session == 0:
                raise ValueError("a sudden-death control never ends, so it cannot have a secondary control")
            if self.secondary.seconds_per_move is not None:
                raise ValueError("a secondary control must be a level, not a fixed time per move")

    @property
    def is_fixed_time(self) -> bool:
        """True for `st`: a fixed time per move, no clock to manage."""
        return self.seconds_per_move is not None

    def session(self, moves_played: int) -> tuple[TimeControl, int | None]:
        """The control in force after `moves_played` own moves, and the moves to go to its next
        time addition (None in sudden death). Sessions repeat; after the first, the secondary
        control (if any) is the one that repeats, as in Crafty."""
        control, played = self._current(moves_played)
        if control.moves_per_session == 0:
            return control, None
        return control, control.moves_per_session - played % control.moves_per_session

    def _current(self, moves_played: int) -> tuple[TimeControl, int]:
        """The control in force, and the own moves played since it took over."""
        if self.secondary is not None and moves_played >= self.moves_per_session:
            return self.secondary._current(moves_played - self.moves_per_session)
        return self, moves_played


@dataclass(frozen=True)
class TimeBudget:
    soft_seconds: float   # do not start another iteration after this
    hard_seconds: float   # stop the search at once


@dataclass(frozen=True)
class ClockSetting:
    """Crafty's `settc`/`clock`: the clocks as the operator reads them off a real chess clock."""

    own_seconds: float
    opponent_seconds: float | None = None
    moves_to_go: int | None = None       # `settc` only: own moves still to play to the next control


def _check_seconds(what: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number of seconds, 0 or more, got {value!r}")


# ----------------------------------------------------------------------------- parsing

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_LEVEL_BASE = re.compile(rf"({_NUMBER})(?::({_NUMBER}))?")
_MINUTES_SECONDS = re.compile(rf"(\d+):({_NUMBER})")


def _number(text: str, what: str, command: str) -> float:
    """A finite, non-negative decimal number (no signs, no exponents, no nan/inf)."""
    if not re.fullmatch(_NUMBER, text):
        raise ValueError(f"{command}: {what} must be a number 0 or more, got {text!r}")
    return float(text)


def _whole_number(text: str, what: str, command: str) -> int:
    if not text.isdigit():
        raise ValueError(f"{command}: {what} must be a whole number 0 or more, got {text!r}")
    return int(text)


def parse_level(args: str) -> TimeControl:
    """XBoard `level MPS BASE INC`: MPS moves per session (0 = the whole game), BASE in minutes
    or MIN:SEC, INC seconds added after each own move (fractional allowed).

    Accepts "40 5 0", "0 2 12", "40 0:30 0", "0 0:23 2.0", "0 1 0.1", "0 0.5 0". Characters
    after BASE's number are ignored ("25+5" reads as 25 minutes), as CECP asks of engines."""
    fields = args.split()
    if len(fields) != 3:
        raise ValueError(f"level needs three fields MPS BASE INC (e.g. 'level 40 5 0'), got {args.strip()!r}")
    mps_text, base_text, inc_text = fields
    moves = _whole_number(mps_text, "moves per session (MPS)", "level")
    match = _LEVEL_BASE.match(base_text)
    if match is None:
        raise ValueError(f"level: base time must be minutes or MIN:SEC (e.g. 5 or 0:30), got {base_text!r}")
    minutes, seconds = match.group(1), match.group(2)
    base = float(minutes) * 60 + (float(seconds) if seconds is not None else 0.0)
    increment = _number(inc_text, "increment (seconds)", "level")
    return TimeControl(moves_per_session=moves, base_seconds=base, increment_seconds=increment)


def parse_seconds(text: str, command: str = "st") -> float:
    """Seconds (fractional allowed) or mm:ss, as Crafty's `st` accepts."""
    text = text.strip()
    match = _MINUTES_SECONDS.fullmatch(text)
    if match is not None:
        return int(match.group(1)) * 60 + float(match.group(2))
    if not re.fullmatch(_NUMBER, text):
        raise ValueError(f"{command}: time must be seconds (e.g. 5 or 1.5) or mm:ss (e.g. 1:30), got {text!r}")
    return float(text)


def parse_st(text: str) -> TimeControl:
    """`st T`: at most T seconds for every move. T may be fractional (python-chess sends `st 1.5`,
    `st 0.01`) or mm:ss (Crafty); `st 0` (cutechess' sub-second limit) means move almost at once."""
    return TimeControl(seconds_per_move=parse_seconds(text, "st"))


def parse_crafty_time(text: str) -> TimeControl:
    """Crafty's `time` controls: `nmoves/ntime[/nmoves/ntime][/increment]`.

    ntime is minutes (decimals allowed), increment seconds. nmoves is a number of moves, or
    `sd` for sudden death (the rest of the game in ntime). The second nmoves/ntime pair is the
    control that follows the first session and then repeats; without it the first one repeats.
    Fields may be separated by `/` or blanks, and a trailing `;` is ignored (Crafty's parser
    does both). Accepted forms:

        sd/15              game in 15 minutes
        sd/2/12            game in 2 minutes + 12 s increment (ICS 2 12)
        60/30              60 moves in 30 minutes, repeating
        60/30/5            the same + 5 s increment
        40/120/20/60       40 moves in 120 minutes, then 20 moves in 60 minutes, repeating
        40/120/20/60/5     the same + 5 s increment
        60/30/sd/30        60 moves in 30 minutes, then game in 30 more minutes
        60/30/sd/30/5      the same + 5 s increment

    In XBoard mode `time N` is the engine's clock in centiseconds, and `time cpu|elapsed`
    chooses the kind of clock: both are the protocol layer's to handle, not this parser's."""
    fields = [field for field in re.split(r"[/\s]+", text.strip().rstrip(";").strip()) if field]
    if not fields:
        raise ValueError("time: no time control given (e.g. 'time 40/120', 'time sd/15', 'time 60/30/sd/30/5')")
    if len(fields) == 1 and fields[0].lower() in ("cpu", "elapsed"):
        raise ValueError(f"time {fields[0]} chooses the kind of clock, it is not a time control")
    if len(fields) not in (2, 3, 4, 5):
        raise ValueError(f"time: expected nmoves/ntime[/nmoves/ntime][/increment], got {text.strip()!r}")
    if len(fields) == 3 and fields[2].lower() == "sd":
        raise ValueError(f"time: the second control needs its time too (e.g. 60/30/sd/30), got {text.strip()!r}")
    increment = _number(fields[-1], "increment (seconds)", "time") if len(fields) in (3, 5) else 0.0
    first_moves = _crafty_moves(fields[0])
    first_seconds = _number(fields[1], "time (minutes)", "time") * 60
    secondary = None
    if len(fields) >= 4:
        if first_moves == 0:
            raise ValueError("time: sudden death (sd) never ends, so no control can follow it")
        secondary = TimeControl(moves_per_session=_crafty_moves(fields[2]),
                                base_seconds=_number(fields[3], "time (minutes)", "time") * 60,
                                increment_seconds=increment)
    return TimeControl(moves_per_session=first_moves, base_seconds=first_seconds,
                       increment_seconds=increment, secondary=secondary)


def _crafty_moves(text: str) -> int:
    if text.lower() == "sd":
        return 0
    moves = _whole_number(text, "nmoves (a number of moves or 'sd')", "time")
    if moves == 0:
        raise ValueError("time: nmoves must be at least 1 (use 'sd' for sudden death)")
    return moves


def parse_clock_time(text: str, command: str = "clock") -> float:
    """Minutes (decimals allowed) or hh:mm, as Crafty's `clock` and `settc` read a chess clock."""
    text = text.strip()
    match = re.fullmatch(r"(\d+):(\d+)", text)
    if match is not None:
        return (int(match.group(1)) * 60 + int(match.group(2))) * 60.0
    return _number(text, "time (minutes or hh:mm)", command) * 60


def parse_clock(text: str) -> ClockSetting:
    """Crafty's `clock CTIME [OTIME]`: own (and opponent's) time left, in minutes or hh:mm."""
    fields = text.split()
    if len(fields) not in (1, 2):
        raise ValueError(f"clock needs CTIME [OTIME] in minutes or hh:mm, got {text.strip()!r}")
    own = parse_clock_time(fields[0])
    opponent = parse_clock_time(fields[1]) if len(fields) == 2 else None
    return ClockSetting(own_seconds=own, opponent_seconds=opponent)


def parse_settc(text: str) -> ClockSetting:
    """Crafty's `settc MOVES CTIME OTIME`: own moves to the next control, and both clocks in
    minutes (or hh:mm). To allocate from it, pass `moves_played_for(control, moves_to_go)`."""
    fields = text.split()
    if len(fields) != 3:
        raise ValueError(f"settc needs MOVES CTIME OTIME (e.g. 'settc 12 25 31'), got {text.strip()!r}")
    moves = _whole_number(fields[0], "moves to the next control", "settc")
    return ClockSetting(own_seconds=parse_clock_time(fields[1], "settc"),
                        opponent_seconds=parse_clock_time(fields[2], "settc"), moves_to_go=moves)


def moves_played_for(control: TimeControl, moves_to_go: int) -> int:
    """A `moves_played` count for `allocate` that leaves `moves_to_go` in the first session
    (what `settc` restores after a crash, when the game history is lost). Sudden death: 0."""
    if control.moves_per_session == 0:
        return 0
    if not 1 <= moves_to_go <= control.moves_per_session:
        raise ValueError(f"moves to go must be between 1 and {control.moves_per_session}, got {moves_to_go}")
    return control.moves_per_session - moves_to_go


# ----------------------------------------------------------------------------- allocation

def safety_margin(clock_seconds: float) -> float:
    """What the hard limit always leaves on the clock for GUI and process latency."""
    return max(SAFETY_MIN, min(SAFETY_MAX, SAFETY_FRACTION * clock_seconds))


def estimated_clock(control: TimeControl, moves_played: int) -> float:
    """The clock when the GUI sends none: on schedule, as if every move had used its share."""
    session, played = control._current(moves_played)
    if session.moves_per_session:
        moves_to_go = session.moves_per_session - played % session.moves_per_session
        return session.base_seconds * moves_to_go / session.moves_per_session
    return session.base_seconds * (1 - 1 / SD_MOVES_TO_GO) ** played


def allocate(control: TimeControl, own_seconds: float | None, opponent_seconds: float | None,
             moves_played: int, *, usage_percent: int = 0, operator_seconds: float = 0.0,
             pondering: bool = False, lag_seconds: float = 0.0, move_overhead: float = MOVE_OVERHEAD) -> TimeBudget:
    """The soft and hard limits for the engine's next move.

    own_seconds/opponent_seconds: the clocks from `time`/`otim` (None when the GUI sent none:
    the clock is then estimated from the control). moves_played: own moves already made in the
    game (for a `level` re-sent mid-game, the moves since it). usage_percent: Crafty's `usage`.
    operator_seconds: Crafty's `operator`, held back for every move to go. pondering: ponder on.
    lag_seconds: network lag a chess server charges to the clock for every move (server mode):
    held back for every move to go, like the latency allowance, and off the hard limit.
    move_overhead: seconds each move costs on the clock besides the search (option Move Overhead):
    held back for every move to go unless the increment pays it, and off the hard limit."""
    if moves_played < 0:
        raise ValueError(f"moves played must be 0 or more, got {moves_played}")
    _check_seconds("operator time", operator_seconds)
    _check_seconds("lag allowance", lag_seconds)
    _check_seconds("move overhead", move_overhead)
    if control.seconds_per_move is not None:
        return _fixed_time_budget(control.seconds_per_move, own_seconds, move_overhead)

    session, moves_to_go = control.session(moves_played)
    conventional = moves_to_go is not None
    clock = estimated_clock(control, moves_played) if own_seconds is None else own_seconds
    clock = max(0.0, clock)   # cutechess clamps at 0; an ICS clock may even be negative
    safety = safety_margin(clock)

    # Each move costs latency and operator time; the increment pays for it if it can, else the clock does.
    per_move_cost = move_overhead + lag_seconds + operator_seconds
    increment_left = session.increment_seconds - per_move_cost
    if moves_to_go is not None:
        horizon = moves_to_go
    elif session.increment_seconds > 0 and increment_left >= 0:
        horizon = INCREMENT_MOVES_TO_GO
    else:
        horizon = SD_MOVES_TO_GO
    spendable = clock - safety - horizon * max(0.0, -increment_left)
    if not conventional and increment_left < 0:
        # Overhead and lag are paid on every move however short the thinking: a long sudden-death
        # game must still have them when the clock is nearly gone, so they are kept for more moves.
        spendable -= (COST_RESERVE_MOVES - horizon) * min(move_overhead + lag_seconds, -increment_left)
    soft = max(0.0, spendable) / horizon + max(0.0, increment_left)
    if conventional:
        # Crafty caps the target at 3x the session's average, so saved time is spread, not dumped.
        average = session.base_seconds / session.moves_per_session + session.increment_seconds
        soft = min(soft, SESSION_AVERAGE_CAP * average)

    plain = soft
    if opponent_seconds is not None and opponent_seconds > BEHIND_FACTOR * clock:
        soft *= BEHIND_SCALE   # Crafty: behind on the clock, play faster to catch up
    soft *= 1 + max(-USAGE_LIMIT, min(USAGE_LIMIT, usage_percent)) / 100
    if pondering:
        soft *= PONDER_FACTOR

    # Preferences (usage, pondering) may lower the hard limit but never raise it: the worst case stays
    # as safe as the plain allocation (Crafty too sets its absolute limit before `usage`).
    ratio = HARD_RATIO_CONVENTIONAL if conventional else HARD_RATIO_SUDDEN_DEATH
    # The overhead is spent after the search stops (the move still has to reach the clock).
    usable = clock - operator_seconds - lag_seconds - move_overhead
    ceiling = min(HARD_CLOCK_SHARE * usable, usable - safety)
    hard = max(MIN_BUDGET, min(ratio * min(plain, soft), ceiling))
    soft = max(MIN_BUDGET, min(soft, hard))
    return TimeBudget(soft_seconds=soft, hard_seconds=hard)


def _fixed_time_budget(seconds_per_move: float, own_seconds: float | None, move_overhead: float) -> TimeBudget:
    """`st`: soft == hard == the time less the move overhead (at most a tenth of a short `st`,
    so that some thinking is left); a real clock, if sent, still wins."""
    budget = seconds_per_move - min(move_overhead, ST_MARGIN_SHARE * seconds_per_move)
    if own_seconds is not None:
        clock = max(0.0, own_seconds)
        budget = min(budget, clock - safety_margin(clock))
    budget = max(MIN_BUDGET, budget)
    return TimeBudget(soft_seconds=budget, hard_seconds=budget)


MAX_DEADLINE_SECONDS = 1e7   # longer than any game, and still a 64-bit nanosecond deadline


def budget_from_clocks(own_seconds: float, opponent_seconds: float | None = None, increment_seconds: float = 0.0,
                       moves_to_go: int | None = None, *, usage_percent: int = 0,
                       pondering: bool = False, move_overhead: float = MOVE_OVERHEAD) -> TimeBudget:
    """The budget for a move when the GUI sends the clocks as they stand (UCI's go wtime/btime/
    winc/binc/movestogo): the clock is a session of moves_to_go moves (sudden death without
    it) that starts now, allocated by the same `allocate` as XBoard's level/time/otim."""
    own = max(0.0, own_seconds)
    control = TimeControl(moves_per_session=max(0, moves_to_go or 0), base_seconds=own,
                          increment_seconds=max(0.0, increment_seconds))
    return allocate(control, own, opponent_seconds, 0, usage_percent=usage_percent, pondering=pondering,
                    move_overhead=move_overhead)


def budget_for_move_time(seconds: float | None, move_overhead: float = MOVE_OVERHEAD) -> TimeBudget:
    """A fixed time for this move (UCI's go movetime, XBoard's st; None: the engine's default for a
    search with no limit given), less the move overhead."""
    seconds = DEFAULT_SECONDS_PER_MOVE if seconds is None else seconds
    return allocate(TimeControl(seconds_per_move=max(0.0, seconds)), None, None, 0, move_overhead=move_overhead)


def deadline_seconds(seconds: float) -> float:
    """A limit the search can turn into a nanosecond deadline (no NaN, none absurdly long)."""
    if math.isnan(seconds):
        return MIN_BUDGET
    return min(max(seconds, MIN_BUDGET), MAX_DEADLINE_SECONDS)
