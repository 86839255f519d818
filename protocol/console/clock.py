"""The console's time control and clocks (Crafty's level, time, settc, clock, usage, operator,
mode, st, sd, sn, info) and the search limits of the engine's next move that follow from them."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

from ponderosa.engine.clock import TimeControl, allocate, parse_crafty_time, parse_level
from ponderosa.engine.search import SearchLimits
from ponderosa.protocol.console.commands import CommandError, parse_seconds, positive_int, set_option

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.console.session import Console


@dataclass
class ConsoleClock:
    """The time control, the clocks of both sides, and the engine's moves so far."""

    control: TimeControl | None = None         # from level/time/settc; st overrides
    clock_seconds: dict[bool, float] = field(default_factory=dict)   # time left per colour, once a control is set
    moves_to_control: int | None = None         # settc: engine moves to the next control
    turn_started: float = field(default_factory=time.monotonic)
    own_moves: int = 0
    usage_percent: int = 0
    operator_seconds: float = 0.0
    tournament_mode: bool = False

    def reset(self) -> None:
        """Both clocks full again (a new game, a new control)."""
        if self.control is not None:
            self.clock_seconds = {chess.WHITE: self.control.base_seconds, chess.BLACK: self.control.base_seconds}
        self.turn_started = time.monotonic()

    def start_turn(self) -> None:
        self.turn_started = time.monotonic()

    def charge(self, colour: bool) -> None:
        """Take the time since the turn began off colour's clock (and add its increment)."""
        now = time.monotonic()
        if colour in self.clock_seconds and self.control is not None:
            self.clock_seconds[colour] += self.control.increment_seconds - (now - self.turn_started)
        self.turn_started = now

    def set_control(self, control: TimeControl, engine: Engine) -> None:
        self.control = control
        engine.seconds_per_move = None
        self.moves_to_control = None
        self.reset()

    def text(self, colour: bool) -> str:
        """colour's clock as m:ss.s."""
        tenths = round(max(0.0, self.clock_seconds.get(colour, 0.0)) * 10)
        minutes, tenths = divmod(tenths, 600)
        return f"{minutes}:{tenths / 10:04.1f}"

    def both_text(self) -> str:
        return f"White {self.text(chess.WHITE)}  Black {self.text(chess.BLACK)}"

    def limits(self, engine: Engine, pondering: bool) -> SearchLimits:
        """st and sd/sn as set; otherwise the clock's budget from level/time/settc."""
        if engine.seconds_per_move is not None or self.control is None:
            return engine.limits()
        own = self.clock_seconds.get(engine.white_to_move)
        other = self.clock_seconds.get(not engine.white_to_move)
        control = self.control
        if self.moves_to_control is not None:
            control = TimeControl(self.moves_to_control + self.own_moves, control.base_seconds,
                                  control.increment_seconds, None, control.secondary)
        budget = allocate(control, own, other, self.own_moves, usage_percent=self.usage_percent,
                          operator_seconds=self.operator_seconds, pondering=pondering)
        return SearchLimits(depth=engine.max_depth, nodes=engine.max_nodes,
                            soft_seconds=budget.soft_seconds, hard_seconds=budget.hard_seconds)

    def pgn_time_control(self, engine: Engine) -> str:
        """The PGN TimeControl tag: 1/SECONDS for st, MOVES/SECONDS+INCREMENT, or ? for none."""
        control = self.control
        if engine.seconds_per_move is not None:
            return f"1/{engine.seconds_per_move:g}"   # st: one move per so many seconds
        if control is None:
            return "?"
        base, increment = round(control.base_seconds), control.increment_seconds
        return (f"{control.moves_per_session}/" if control.moves_per_session else "") + f"{base}" + \
            (f"+{increment:g}" if increment else "")


# -- commands ---------------------------------------------------------------------

def cmd_level(console: Console, args: list[str]) -> None:
    try:
        console.clock.set_control(parse_level(" ".join(args)), console.engine)
    except ValueError as error:
        raise CommandError(f"usage: level MOVES MINUTES INCREMENT ({error})") from None


def cmd_time(console: Console, args: list[str]) -> None:
    if len(args) == 1 and args[0].lower() in ("cpu", "elapsed"):
        if args[0].lower() == "cpu":
            console.say("timing uses elapsed (wall-clock) time: the safe choice for games")
        return
    try:
        console.clock.set_control(parse_crafty_time(" ".join(args)), console.engine)
    except ValueError as error:
        raise CommandError(f"usage: time MOVES/MINUTES[/MOVES/MINUTES][/INCREMENT], e.g. time sd/15 ({error})") \
            from None


def cmd_settc(console: Console, args: list[str]) -> None:
    """settc MOVES OWN-MINUTES OPPONENT-MINUTES: restore the clocks after a restart."""
    if len(args) != 3:
        raise CommandError("usage: settc MOVES OWN-MINUTES OPPONENT-MINUTES")
    try:
        moves, own, other = int(args[0]), float(args[1]), float(args[2])
    except ValueError:
        raise CommandError("usage: settc MOVES OWN-MINUTES OPPONENT-MINUTES") from None
    clock = console.clock
    if clock.control is None:
        clock.control = TimeControl(moves, own * 60, 0.0)
    side = _own_side(console)
    clock.clock_seconds = {side: own * 60, not side: other * 60}
    clock.moves_to_control = moves
    console.engine.seconds_per_move = None


def cmd_clock(console: Console, args: list[str]) -> None:
    """clock OWN [OPPONENT]: correct the clocks (minutes or mm:ss)."""
    if not args:
        console.say(f"clocks: {console.clock.both_text()}")
        return
    side = _own_side(console)
    values = [parse_seconds(a) if ":" in a else float(a) * 60 for a in args[:2]]
    console.clock.clock_seconds[side] = values[0]
    if len(values) > 1:
        console.clock.clock_seconds[not side] = values[1]


def _own_side(console: Console) -> bool:
    """The engine's side, or the side to move in force mode."""
    return console.engine_side if console.engine_side is not None else console.engine.white_to_move


def cmd_usage(console: Console, args: list[str]) -> None:
    if len(args) != 1 or not args[0].lstrip("+-").isdigit():
        raise CommandError("usage: usage N  (percent more (+) or less (-) time than normal)")
    console.clock.usage_percent = max(-90, min(500, int(args[0])))


def cmd_operator(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: operator MINUTES")
    try:
        console.clock.operator_seconds = max(0.0, float(args[0])) * 60
    except ValueError:
        raise CommandError("usage: operator MINUTES") from None


def cmd_mode(console: Console, args: list[str]) -> None:
    if len(args) != 1 or args[0].lower() not in ("tournament", "normal"):
        raise CommandError("usage: mode tournament|normal")
    console.clock.tournament_mode = args[0].lower() == "tournament"
    if console.clock.tournament_mode:
        set_option(console, "drawscore", 0)


def cmd_sd(console: Console, args: list[str]) -> None:
    console.engine.max_depth = positive_int(args, "sd N  (search depth in plies)")


def cmd_st(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: st SECONDS  (or mm:ss)")
    console.engine.seconds_per_move = parse_seconds(args[0])   # st and level replace each other


def cmd_sn(console: Console, args: list[str]) -> None:
    console.engine.max_nodes = positive_int(args, "sn N  (nodes per search)")


def cmd_info(console: Console, args: list[str]) -> None:
    engine, clock = console.engine, console.clock
    side = "no side (force mode)" if console.engine_side is None else ("White" if console.engine_side else "Black")
    console.say(f"Ponderosa, playing {side}")
    if engine.seconds_per_move is not None:
        console.say(f"time control: {engine.seconds_per_move:g} seconds per move (st)")
    elif clock.control is not None:
        control = clock.control
        moves = f"{control.moves_per_session} moves" if control.moves_per_session else "the game"
        console.say(f"time control: {moves} in {control.base_seconds / 60:g} minutes"
                    f" + {control.increment_seconds:g} s increment")
        console.say(f"clocks: {clock.both_text()}")
    else:
        console.say("time control: none set (default time per move)")
    console.say(f"search limits: depth {engine.max_depth or '-'}  nodes {engine.max_nodes or '-'}")
    console.say(f"hash table {engine.options.hash_bytes // 1024}K bytes;"
                f" pondering {'on' if console.ponder_enabled else 'off'};"
                f" draw score {engine.draw_score}; resign {console.resign_pawns or 'off'};"
                f" usage {clock.usage_percent:+d}%; operator {clock.operator_seconds / 60:g} min")
    console.say(f"position: {engine.fen()}")
