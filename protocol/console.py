"""The Crafty-style console: a prompt such as `White(1): `, commands typed one per line."""
from __future__ import annotations

import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TextIO

import chess

from ponderosa.engine.book_file import BookFileError
from ponderosa.engine.clock import TimeControl, allocate, parse_crafty_time, parse_level
from ponderosa.engine.engine import Engine, IllegalMoveError
from ponderosa.engine.fen import FenError
from ponderosa.engine.learned import LearnedStoreError, parse_bookeval
from ponderosa.engine.learner import LearnFileError
from ponderosa.engine.opening_book import BookProbe, book_moves_text, book_table
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking, mate_distance
from ponderosa.engine.testsuite import SuiteError, TestPosition

if TYPE_CHECKING:
    from ponderosa.engine.book_build import BuildReport

# Words that look like a move (SAN or coordinates) get "Illegal move" rather than "unknown command".
MOVE_PATTERN = re.compile(r"^([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBNqrbn])?|[a-h][1-8][a-h][1-8][qrbn]?|"
                          r"[O0]-[O0](-[O0])?)[+#!?]*$")
SIZE_PATTERN = re.compile(r"^(\d+)([KMG]?)B?$", re.IGNORECASE)


class CommandError(Exception):
    """A command that cannot be carried out; its message is shown on one line."""


@dataclass(frozen=True)
class Command:
    """One console command: its handler and its help text."""

    names: tuple[str, ...]
    handler: Callable[[Console, list[str]], None]
    usage: str
    summary: str


def _positive_int(args: list[str], usage: str, minimum: int = 1) -> int:
    if len(args) != 1 or not args[0].lstrip("-").isdigit() or int(args[0]) < minimum:
        raise CommandError(f"usage: {usage}")
    return int(args[0])


def _depth_argument(args: list[str], command: str) -> int:
    return _positive_int(args, f"{command} N  (N a depth of 1 or more)")


def _number(text: str, usage: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise CommandError(f"usage: {usage}") from None


def parse_size(text: str) -> int:
    """Crafty's hash sizes: 65536, 512K, 64M, 1G (bytes)."""
    match = SIZE_PATTERN.match(text.strip())
    if not match:
        raise CommandError(f"bad size {text!r}: use a number of bytes, or nnnK, nnnM, nnnG")
    return int(match.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match.group(2).upper()]


def parse_seconds(text: str) -> float:
    """A time in seconds, or mm:ss as Crafty's `st` accepts."""
    try:
        if ":" in text:
            minutes, seconds = text.split(":", 1)
            value = int(minutes) * 60 + float(seconds)
        else:
            value = float(text)
    except ValueError:
        raise CommandError(f"bad time {text!r}: use seconds or mm:ss") from None
    if not value > 0:
        raise CommandError("the time must be more than zero")
    return value


def format_rate(per_second: float) -> str:
    return f"{per_second / 1e6:.1f}M" if per_second >= 1e6 else f"{per_second / 1e3:.1f}K"


def format_score(score_for_white: int) -> str:
    """Pawns from White's side, or Crafty's Mat05 / -Mat05 for mates."""
    mate = mate_distance(score_for_white)
    if mate is not None:
        return f"{'' if mate > 0 else '-'}Mat{abs(mate):02d}"
    return f"{score_for_white / 100:+.2f}"


class Console:
    """Reads console commands and answers on `out`; the engine does the work."""

    def __init__(self, engine: Engine, out: TextIO = sys.stdout) -> None:
        self.engine = engine
        self.out = out
        self.input: TextIO = sys.stdin
        self.running = True
        self.xboard_requested = False
        self.engine_side: bool | None = chess.BLACK   # None: force mode, the engine plays no side
        self.ponder_enabled = True
        self.ponder_move: str | None = None
        self.control: TimeControl | None = None        # from level/time/settc; st overrides
        self.clock_seconds: dict[bool, float] = {}     # time left per colour, once a control is set
        self.moves_to_control: int | None = None       # settc: engine moves to the next control
        self.turn_started = time.monotonic()
        self.own_moves = 0
        self.usage_percent = 0
        self.operator_seconds = 0.0
        self.tournament_mode = False
        self.noise_nodes = 0
        self.alarm = False
        self.ansi = False
        self.resign_pawns = 0
        self.low_scores = 0
        self.last_score = 0
        self.input_depth = 0
        self.show_book = False                  # `show book`: the candidates before each book move
        self.show_prompt = sys.stdin.isatty()   # a prompt on a pipe would glue itself to the next line
        self._write_lock = threading.Lock()

    # -- output ---------------------------------------------------------------

    def say(self, text: str = "") -> None:
        with self._write_lock:
            self.out.write(text + "\n")
            self.out.flush()

    def prompt(self) -> str:
        return f"{self._side_name()}({self.engine.move_number}): "

    def _side_name(self) -> str:
        return "White" if self.engine.white_to_move else "Black"

    def _print_thinking(self, line: Thinking) -> None:
        score = line.score if self.engine.white_to_move else -line.score
        marker = {"exact": "  ", "lower": "++", "upper": "--"}[line.bound]
        self.say(f"{line.depth:>7}{'->' if line.bound == 'exact' else '  '} {line.seconds:>7.2f} "
                 f"{format_score(score):>7}{marker} {self.engine.san_line(line.pv)}")

    def show_search_summary(self, result: SearchResult) -> None:
        nps = result.nodes / result.seconds if result.seconds > 0 else 0.0
        self.say(f"              time={result.seconds:.2f}  n={result.nodes}  nps={format_rate(nps)}  "
                 f"depth={result.depth}")

    # -- dispatch -------------------------------------------------------------

    def execute(self, line: str) -> None:
        """Run one command line; any failure is reported on one line and the console goes on."""
        words = line.split()
        if not words:
            return
        if "=" in words[0] and not words[0].startswith("="):
            words = words[0].split("=", 1) + words[1:]   # Crafty's hash=64M form
        command = COMMANDS_BY_NAME.get(words[0].lower())
        if command is None:
            self._user_move(words[0] if len(words) == 1 else line.strip())
            return
        try:
            command.handler(self, words[1:])
        except CommandError as error:
            self.say(f"Error: {error}")
        except Exception as error:  # a bug must not end the session: report it and go on
            self.say(f"Error ({type(error).__name__}): {error}")

    def _user_move(self, text: str) -> None:
        if not MOVE_PATTERN.match(text):
            self.say(f"Error (unknown command): {text.split()[0]}")
            return
        try:
            uci = self.engine.parse_move(text)
        except IllegalMoveError:
            self.say(f"Illegal move: {text}")
            return
        self.engine.end_search()   # a ponder search, if any, is of no further use
        self._charge_clock(self.engine.game.turn)
        self.engine.make_move(uci)
        self._reply_if_engine_to_move()

    def _reply_if_engine_to_move(self) -> None:
        outcome = self.engine.outcome()
        if outcome is not None:
            self.say(f"{outcome[0]} {{{outcome[1]}}}")
            self.engine.finish_game(outcome[0])
            return
        if self.engine_side is not None and self.engine_side == self.engine.game.turn:
            self._think_and_play()

    def _charge_clock(self, colour: bool) -> None:
        """Take the time since the turn began off colour's clock (and add its increment)."""
        now = time.monotonic()
        if colour in self.clock_seconds and self.control is not None:
            self.clock_seconds[colour] += self.control.increment_seconds - (now - self.turn_started)
        self.turn_started = now

    def run(self, stream: TextIO) -> None:
        """Prompt, read and execute until quit or end of input."""
        self.input = stream
        while self.running:
            if self.show_prompt:
                with self._write_lock:
                    self.out.write(self.prompt())
                    self.out.flush()
            line = stream.readline()
            if not line:
                if self.show_prompt:
                    self.say()
                break
            self.execute(line)

    # -- position commands ----------------------------------------------------

    def cmd_setboard(self, args: list[str]) -> None:
        if not args:
            raise CommandError("usage: setboard FEN")
        try:
            self.engine.set_position(" ".join(args))
        except FenError as error:
            raise CommandError(str(error)) from None

    def cmd_new(self, args: list[str]) -> None:
        self.engine.new_game()
        self.engine_side = chess.BLACK
        self.own_moves = 0
        self.ponder_move = None
        self.low_scores = 0
        self._reset_clocks()

    def _reset_clocks(self) -> None:
        if self.control is not None:
            self.clock_seconds = {chess.WHITE: self.control.base_seconds, chess.BLACK: self.control.base_seconds}
        self.turn_started = time.monotonic()

    def _set_side_to_move(self, white: bool) -> None:
        """Crafty's white/black: the other side is on move, in the same position."""
        try:
            self.engine.give_move_to(white)
        except FenError as error:
            raise CommandError(f"cannot give the move to that side here: {error}") from None

    def cmd_white(self, args: list[str]) -> None:
        self._set_side_to_move(chess.WHITE)

    def cmd_black(self, args: list[str]) -> None:
        self._set_side_to_move(chess.BLACK)

    def cmd_force(self, args: list[str]) -> None:
        """force MOVE: take back the engine's last move and play MOVE instead (Crafty);
        force alone: the engine stops playing either side until `go`."""
        self.engine.end_search()
        if not args:
            self.engine_side = None
            return
        try:
            self.engine.undo()
        except IndexError:
            raise CommandError("no move to replace") from None
        try:
            self.engine.make_move(args[0])
        except IllegalMoveError:
            self.say(f"Illegal move: {args[0]}")

    def cmd_remove(self, args: list[str]) -> None:
        self.engine.end_search()
        for _ in range(2):
            try:
                self.engine.undo()
            except IndexError:
                raise CommandError("no move to take back") from None

    def cmd_hint(self, args: list[str]) -> None:
        if self.ponder_move and self.ponder_move in self.engine.legal_moves():
            self.say(f"Hint: {self.engine.san(self.ponder_move)}")
            return
        result = self.engine.think(SearchLimits.fixed_time(0.5))
        if result.best_move is None:
            raise CommandError("no legal moves")
        self.say(f"Hint: {self.engine.san(result.best_move)}")

    def cmd_history(self, args: list[str]) -> None:
        board = chess.Board(self.engine.game.root().fen())
        lines: list[str] = []
        for move in self.engine.game.move_stack:
            san = board.san(move)
            if board.turn == chess.WHITE or not lines:
                prefix = f"{board.fullmove_number:>3}. " + ("" if board.turn == chess.WHITE else "...      ")
                lines.append(f"{prefix}{san:<9}")
            else:
                lines[-1] += san
            board.push(move)
        self.say("      White    Black")
        for line in lines:
            self.say(line)

    def cmd_info(self, args: list[str]) -> None:
        engine = self.engine
        side = "no side (force mode)" if self.engine_side is None else ("White" if self.engine_side else "Black")
        self.say(f"Ponderosa, playing {side}")
        if engine.seconds_per_move is not None:
            self.say(f"time control: {engine.seconds_per_move:g} seconds per move (st)")
        elif self.control is not None:
            control = self.control
            moves = f"{control.moves_per_session} moves" if control.moves_per_session else "the game"
            self.say(f"time control: {moves} in {control.base_seconds / 60:g} minutes"
                     f" + {control.increment_seconds:g} s increment")
            self.say(f"clocks: White {self._clock_text(chess.WHITE)}  Black {self._clock_text(chess.BLACK)}")
        else:
            self.say("time control: none set (default time per move)")
        self.say(f"search limits: depth {engine.max_depth or '-'}  nodes {engine.max_nodes or '-'}")
        self.say(f"hash table {engine.tt.size // 1024}K bytes; pondering {'on' if self.ponder_enabled else 'off'};"
                 f" draw score {engine.draw_score}; resign {self.resign_pawns or 'off'};"
                 f" usage {self.usage_percent:+d}%; operator {self.operator_seconds / 60:g} min")
        self.say(f"position: {engine.fen()}")

    def _set_control(self, control: TimeControl) -> None:
        self.control = control
        self.engine.seconds_per_move = None
        self.moves_to_control = None
        self._reset_clocks()

    def cmd_level(self, args: list[str]) -> None:
        try:
            self._set_control(parse_level(" ".join(args)))
        except ValueError as error:
            raise CommandError(f"usage: level MOVES MINUTES INCREMENT ({error})") from None

    def cmd_time(self, args: list[str]) -> None:
        if len(args) == 1 and args[0].lower() in ("cpu", "elapsed"):
            if args[0].lower() == "cpu":
                self.say("timing uses elapsed (wall-clock) time: the safe choice for games")
            return
        try:
            self._set_control(parse_crafty_time(" ".join(args)))
        except ValueError as error:
            raise CommandError(f"usage: time MOVES/MINUTES[/MOVES/MINUTES][/INCREMENT], e.g. time sd/15 ({error})") \
                from None

    def cmd_settc(self, args: list[str]) -> None:
        """settc MOVES OWN-MINUTES OPPONENT-MINUTES: restore the clocks after a restart."""
        if len(args) != 3:
            raise CommandError("usage: settc MOVES OWN-MINUTES OPPONENT-MINUTES")
        try:
            moves, own, other = int(args[0]), float(args[1]), float(args[2])
        except ValueError:
            raise CommandError("usage: settc MOVES OWN-MINUTES OPPONENT-MINUTES") from None
        if self.control is None:
            self.control = TimeControl(moves, own * 60, 0.0)
        side = self.engine_side if self.engine_side is not None else self.engine.game.turn
        self.clock_seconds = {side: own * 60, not side: other * 60}
        self.moves_to_control = moves
        self.engine.seconds_per_move = None

    def cmd_clock(self, args: list[str]) -> None:
        """clock OWN [OPPONENT]: correct the clocks (minutes or mm:ss)."""
        if not args:
            self.say(f"clocks: White {self._clock_text(chess.WHITE)}  Black {self._clock_text(chess.BLACK)}")
            return
        side = self.engine_side if self.engine_side is not None else self.engine.game.turn
        values = [parse_seconds(a) if ":" in a else float(a) * 60 for a in args[:2]]
        self.clock_seconds[side] = values[0]
        if len(values) > 1:
            self.clock_seconds[not side] = values[1]

    def cmd_usage(self, args: list[str]) -> None:
        if len(args) != 1 or not args[0].lstrip("+-").isdigit():
            raise CommandError("usage: usage N  (percent more (+) or less (-) time than normal)")
        self.usage_percent = max(-90, min(500, int(args[0])))

    def cmd_operator(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: operator MINUTES")
        try:
            self.operator_seconds = max(0.0, float(args[0])) * 60
        except ValueError:
            raise CommandError("usage: operator MINUTES") from None

    def cmd_mode(self, args: list[str]) -> None:
        if len(args) != 1 or args[0].lower() not in ("tournament", "normal"):
            raise CommandError("usage: mode tournament|normal")
        self.tournament_mode = args[0].lower() == "tournament"
        if self.tournament_mode:
            self.engine.draw_score = 0

    def cmd_ponder(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: ponder on|off|MOVE")
        word = args[0].lower()
        if word in ("on", "off"):
            self.ponder_enabled = word == "on"
            if not self.ponder_enabled:
                self.engine.end_search()
            return
        try:
            self.ponder_move = self.engine.parse_move(args[0])
        except IllegalMoveError:
            self.say(f"Illegal move: {args[0]}")

    def cmd_draw(self, args: list[str]) -> None:
        """The user offers a draw: accepted when the last search was not above the draw score."""
        if self.engine.game.is_insufficient_material() or self.last_score <= self.engine.draw_score:
            self.say("Draw accepted.")
            self.say("1/2-1/2 {Drawn by mutual agreement}")
            self.engine_side = None
        else:
            self.say("Draw declined.")

    def cmd_resign(self, args: list[str]) -> None:
        self.resign_pawns = _positive_int(args, "resign N  (pawns behind; 0 = never)", minimum=0)

    def cmd_noise(self, args: list[str]) -> None:
        self.noise_nodes = _positive_int(args, "noise N  (nodes before thinking is shown)", minimum=0)

    def _on_off(self, args: list[str], usage: str) -> bool:
        if len(args) != 1 or args[0].lower() not in ("on", "off"):
            raise CommandError(f"usage: {usage} on|off")
        return args[0].lower() == "on"

    def cmd_alarm(self, args: list[str]) -> None:
        self.alarm = self._on_off(args, "alarm")

    def cmd_ansi(self, args: list[str]) -> None:
        self.ansi = self._on_off(args, "ANSI")

    def cmd_echo(self, args: list[str]) -> None:
        self.say(" ".join(args))

    def cmd_input(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: input FILE")
        self.run_file(Path(args[0]))

    def run_file(self, path: Path) -> None:
        """Execute the commands of a file (a .ponderosarc or `input FILE`) until `exit` or its end."""
        if self.input_depth >= 8:
            raise CommandError(f"{path}: command files nested too deep")
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        self.input_depth += 1
        try:
            for line in lines:
                if line.strip().lower() == "exit":
                    break
                self.execute(line)
                if not self.running:
                    break
        finally:
            self.input_depth -= 1

    def cmd_log(self, args: list[str]) -> None:
        from ponderosa.protocol.xboard import set_logging
        if len(args) == 1 and args[0].lower() in ("on", "off"):
            set_logging(args[0].lower() == "on")
            return
        if len(args) == 1 and args[0].isdigit():
            path = Path("ponderosa.log")
            if not path.exists():
                raise CommandError("no log file (use `log on` first)")
            for line in path.read_text(errors="replace").splitlines()[-int(args[0]):]:
                self.say(line)
            return
        raise CommandError("usage: log on|off|N")

    def cmd_display(self, args: list[str]) -> None:
        border = "    +---+---+---+---+---+---+---+---+"
        self.say(border)
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                piece = self.engine.piece_at(rank * 8 + file)
                # Black pieces are marked with '*' as on ICS style boards, so they stand out.
                cells.append(f" {piece.upper()} " if piece.isupper() else
                             f"*{piece.upper()} " if piece else (" . " if (rank + file) % 2 == 0 else "   "))
            self.say(f"  {rank + 1} |" + "|".join(cells) + "|")
            self.say(border)
        self.say("      a   b   c   d   e   f   g   h")
        self.say(f"  {self.engine.fen()}")

    def cmd_undo(self, args: list[str]) -> None:
        try:
            self.engine.undo()
        except IndexError:
            raise CommandError("no move to take back") from None

    # -- perft ----------------------------------------------------------------

    def cmd_perft(self, args: list[str]) -> None:
        result = self.engine.perft(_depth_argument(args, "perft"))
        self.say(f"total moves={result.nodes}  time={result.seconds:.3f}s  "
                 f"({format_rate(result.nodes_per_second)} nodes/sec)")

    def cmd_divide(self, args: list[str]) -> None:
        depth = _depth_argument(args, "divide")
        total = 0
        for move, nodes in self.engine.divide(depth):
            self.say(f"{self.engine.san(move):<8} {move:<6} {nodes}")
            total += nodes
        self.say(f"total moves={total}")

    def cmd_perf(self, args: list[str]) -> None:
        result = self.engine.perf()
        self.say(f"generated {result.generated} moves, time={result.generate_seconds:.2f}s")
        self.say(f"generated {format_rate(result.generated_per_second)} moves/sec")
        self.say(f"generated/made/unmade {result.made} moves, time={result.make_seconds:.2f}s")
        self.say(f"generated/made/unmade {format_rate(result.made_per_second)} moves/sec")

    # -- search ---------------------------------------------------------------

    def cmd_go(self, args: list[str]) -> None:
        """Play the side to move from now on, and move now."""
        if not self.engine.legal_moves():
            raise CommandError("no legal moves: the game is over")
        self.engine_side = self.engine.game.turn
        self._think_and_play()

    def _limits(self) -> SearchLimits:
        """st and sd/sn as set; otherwise the clock's budget from level/time/settc."""
        if self.engine.seconds_per_move is not None or self.control is None:
            return self.engine.limits()
        own = self.clock_seconds.get(self.engine.game.turn)
        other = self.clock_seconds.get(not self.engine.game.turn)
        control = self.control
        if self.moves_to_control is not None:
            control = TimeControl(self.moves_to_control + self.own_moves, control.base_seconds,
                                  control.increment_seconds, None, control.secondary)
        budget = allocate(control, own, other, self.own_moves, usage_percent=self.usage_percent,
                          operator_seconds=self.operator_seconds, pondering=self.ponder_enabled)
        return SearchLimits(depth=self.engine.max_depth, nodes=self.engine.max_nodes,
                            soft_seconds=budget.soft_seconds, hard_seconds=budget.hard_seconds)

    def _think_and_play(self) -> None:
        self.turn_started = time.monotonic()
        probe = self.engine.book_probe()
        if probe.decision is not None and self.show_book:
            for line in book_table(probe.decision, self.engine.game):
                self.say(f"    {line}")
        if probe.move is not None:
            self._play_book_move(probe)
            return
        limits, excluded = self._limits(), set()
        if probe.search_only:
            self.say(f"    book moves {{{book_moves_text(probe.decision, self.engine.game)}}} (searching them)")
            limits, excluded = self.engine.book_search(probe, limits)
        self.say("       depth    time   score   variation")
        result = self.engine.think(limits, on_thinking=self.show_thinking, excluded=excluded)
        self.show_search_summary(result)
        if result.best_move is None:
            raise CommandError("the search found no move")
        self.last_score = result.score
        self.low_scores = self.low_scores + 1 if self.resign_pawns and result.score <= -100 * self.resign_pawns else 0
        if self.low_scores >= 3:
            self.say(f"{'White' if self.engine.game.turn else 'Black'} resigns")
            self.engine.finish_game("0-1" if self.engine.white_to_move else "1-0")
            self.engine_side = None
            return
        self._play_move(result.best_move, result.ponder_move, result)

    def _play_book_move(self, probe: BookProbe) -> None:
        """Crafty's book output: the moves that made the cut, then the move and its chance."""
        assert probe.decision is not None and probe.move is not None
        chance = probe.chance
        self.say(f"    book moves {{{book_moves_text(probe.decision, self.engine.game)}}}")
        self.say(f"    book {probe.seconds:>6.1f}s {chance * 100:>6.0f}%    {self.engine.san(probe.move)}")
        self._play_move(probe.move, None, None)

    def _play_move(self, move: str, ponder_move: str | None, searched: SearchResult | None) -> None:
        side, number = self._side_name(), self.engine.move_number
        self._charge_clock(self.engine.game.turn)
        san = self.engine.play_own_move(move, searched)
        self.own_moves += 1
        self.say(f"{side}({number}): {san}{chr(7) if self.alarm else ''}")
        if self.tournament_mode and self.clock_seconds:
            self.say(f"clock: White {self._clock_text(chess.WHITE)}  Black {self._clock_text(chess.BLACK)}"
                     " (check, and correct with `clock`)")
        outcome = self.engine.outcome()
        if outcome is not None:
            self.say(f"{outcome[0]} {{{outcome[1]}}}")
            self.engine.finish_game(outcome[0])
            return
        self.ponder_move = ponder_move
        self._start_pondering()

    def _start_pondering(self) -> None:
        """Think on the expected reply while the user thinks (silently); the next move stops it."""
        if self.ponder_enabled:
            self.engine.ponder(self.ponder_move, SearchLimits(), None, lambda serial, result: None)

    def _clock_text(self, colour: bool) -> str:
        tenths = round(max(0.0, self.clock_seconds.get(colour, 0.0)) * 10)
        minutes, tenths = divmod(tenths, 600)
        return f"{minutes}:{tenths / 10:04.1f}"

    def show_thinking(self, line: Thinking) -> None:
        """Thinking lines, once the search has passed the `noise` node count."""
        if line.nodes < self.noise_nodes:
            return
        self._print_thinking(line)

    def cmd_analyze(self, args: list[str]) -> None:
        """Think without end on the side to move; a move is played and thinking restarts; exit leaves."""
        while True:
            self._start_analysis()
            line = self.input.readline()
            self.engine.end_search()
            words = line.split()
            if not line or (words and words[0].lower() in ("exit", "quit", "end")):
                if words and words[0].lower() in ("quit", "end"):
                    self.running = False
                return
            if not words:
                continue
            if words[0].lower() in ("undo", "back"):
                self.cmd_undo([])
            elif words[0].lower() == "setboard":
                self.cmd_setboard(words[1:])
            elif MOVE_PATTERN.match(line.strip()):
                try:
                    self.engine.make_move(line.strip())
                except IllegalMoveError:
                    self.say(f"Illegal move: {line.strip()}")
            else:
                self.say(f"Error (not in analyze mode): {words[0]}")

    def _start_analysis(self) -> None:
        self.say("       depth    time   score   variation")
        self.engine.start_search(SearchLimits(), self.show_thinking, lambda serial, result: None)

    def cmd_bench(self, args: list[str]) -> None:
        depth = _positive_int(args, "bench [DEPTH]") if args else None
        result = self.engine.bench() if depth is None else self.engine.bench(depth)
        self.say(f"positions={result.positions}  depth={result.depth}")
        self.say(f"Total nodes: {result.nodes}")
        self.say(f"Time: {result.seconds:.2f}s")
        self.say(f"Nodes/second: {int(result.nodes_per_second)}")

    def cmd_test(self, args: list[str]) -> None:
        if not args or len(args) > 2:
            raise CommandError("usage: test FILE [N]")
        early_exit = _positive_int(args[1:], "test FILE [N]") if len(args) == 2 else None

        def on_result(position: TestPosition, result: SearchResult, right: bool) -> None:
            self.say(f"{position.title:<12} {'right' if right else 'wrong':<6} {result.best_move or '-':<6} "
                     f"depth={result.depth:<3} time={result.seconds:.2f}  n={result.nodes}")

        try:
            report = self.engine.run_suite(args[0], early_exit, on_result)
        except SuiteError as error:
            raise CommandError(str(error)) from None
        self.say(f"test results summary: {report.right} of {report.total} right, "
                 f"{report.total - report.right} wrong, time={report.seconds:.1f}s, n={report.nodes}")
        if report.failures:
            self.say("failed: " + " ".join(position.title for position, _ in report.failures))

    def cmd_sd(self, args: list[str]) -> None:
        self.engine.max_depth = _positive_int(args, "sd N  (search depth in plies)")

    def cmd_st(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: st SECONDS  (or mm:ss)")
        self.engine.seconds_per_move = parse_seconds(args[0])   # st and level replace each other

    def cmd_sn(self, args: list[str]) -> None:
        self.engine.max_nodes = _positive_int(args, "sn N  (nodes per search)")

    def cmd_hash(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: hash SIZE  (e.g. hash 64M, hash=1G)")
        used = self.engine.set_hash_size(parse_size(args[0]))
        self.say(f"hash table memory = {used // 1024}K bytes")

    def cmd_hashp(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: hashp SIZE  (e.g. hashp 8M)")
        self.engine.set_pawn_hash_size(parse_size(args[0]))

    def cmd_drawscore(self, args: list[str]) -> None:
        if len(args) != 1 or not args[0].lstrip("+-").isdigit():
            raise CommandError("usage: drawscore N  (centipawns, + to like draws)")
        self.engine.draw_score = int(args[0])

    def cmd_extensions(self, args: list[str]) -> None:
        if not args:
            for name, plies in self.engine.extensions().items():
                self.say(f"{name:<10} {plies:.2f}")
            return
        if len(args) != 2:
            raise CommandError("usage: extensions incheck|onerep|recapture|pushpp|mate PLIES")
        try:
            self.engine.set_extension(args[0].lower(), float(args[1]))
        except ValueError as error:
            raise CommandError(str(error)) from None

    def cmd_score(self, args: list[str]) -> None:
        total, terms = self.engine.score_breakdown()
        self.say(f"{'term':<18} {'white':>8} {'black':>8} {'total':>8}")
        for name, white, black, net in terms:
            self.say(f"{name:<18} {white / 100:>8.2f} {black / 100:>8.2f} {net / 100:>8.2f}")
        self.say(f"{'total':<18} {'':>8} {'':>8} {total / 100:>8.2f}")

    def cmd_evaluation(self, args: list[str]) -> None:
        if len(args) != 2 or not args[1].lstrip("+-").isdigit():
            raise CommandError("usage: evaluation asymmetry|bscale|kscale|tropism|pscale|ppscale N")
        try:
            self.engine.set_eval_scale(args[0].lower(), int(args[1]))
        except ValueError as error:
            raise CommandError(str(error)) from None

    # -- help and leaving -----------------------------------------------------

    # -- opening book -------------------------------------------------------------

    def cmd_book(self, args: list[str]) -> None:
        """Crafty's book command and its sub-commands (see COMMANDS for the list)."""
        if not args:
            for line in self.engine.book.describe():
                self.say(line)
            return
        action, rest = args[0].lower(), args[1:]
        handler = BOOK_ACTIONS.get(action)
        if handler is None:
            raise CommandError(f"unknown book command: {action} (see `help book`)")
        try:
            handler(self, rest)
        except BookFileError as error:
            raise CommandError(str(error)) from error

    def _book_create(self, args: list[str]) -> None:
        usage = "book create FILE M [N] [WPCT]"
        if not 2 <= len(args) <= 4:
            raise CommandError(f"usage: {usage}")
        max_moves = _positive_int(args[1:2], usage)
        min_games = _positive_int(args[2:3], usage) if len(args) > 2 else 1
        win_percent = _number(args[3], usage) if len(args) > 3 else 0.0
        report = self.engine.create_book([args[0]], max_moves, min_games, win_percent, self._progress())
        self._end_progress()
        self._report(report)

    def _book_add(self, args: list[str]) -> None:
        if not args:
            raise CommandError("usage: book add FILE [FILE...]")
        report = self.engine.add_to_book(args, self._progress())
        self._end_progress()
        self._report(report)

    def _book_merge(self, args: list[str]) -> None:
        if len(args) != 3:
            raise CommandError("usage: book merge BOOK1 BOOK2 OUT")
        self._report(self.engine.merge_books(*args))

    def _book_random(self, args: list[str]) -> None:
        if len(args) != 1 or args[0] not in ("0", "1", "2"):
            raise CommandError("usage: book random 0|1|2 (0 search, 1 Crafty's weighted random, 2 Terra's)")
        self.engine.book.settings.random_mode = int(args[0])

    def _book_width(self, args: list[str]) -> None:
        self.engine.book.settings.width = _positive_int(args, "book width N")

    def _book_on(self, args: list[str]) -> None:
        self.engine.book.enabled = True

    def _book_off(self, args: list[str]) -> None:
        self.engine.book.enabled = False

    def _book_use(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: book use FILE")
        self.engine.book.use_book(args[0])
        self.say(f"book: {args[0]}")

    def _book_polyglot(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: book polyglot FILE.bin")
        self.engine.book.use_polyglot(args[0])
        self.say(f"book: {args[0]} (Polyglot)")

    def _book_export(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: book export FILE.bin")
        entries = self.engine.export_polyglot(args[0])
        self.say(f"wrote {entries} Polyglot entries to {args[0]}")

    def cmd_books(self, args: list[str]) -> None:
        usage = "books create FILE M"
        if len(args) != 3 or args[0].lower() != "create":
            raise CommandError(f"usage: {usage}")
        try:
            report = self.engine.create_start_book([args[1]], _positive_int(args[2:3], usage))
        except BookFileError as error:
            raise CommandError(str(error)) from error
        self._report(report)

    def cmd_bookw(self, args: list[str]) -> None:
        usage = "bookw freq|ratio|eval|learn WEIGHT (0..1)"
        if len(args) != 2 or args[0].lower() not in ("freq", "ratio", "eval", "learn"):
            raise CommandError(f"usage: {usage}")
        weight = _number(args[1], usage)
        if not 0.0 <= weight <= 1.0:
            raise CommandError(f"usage: {usage}")
        setattr(self.engine.book.settings, f"weight_{args[0].lower()}", weight)

    def cmd_terra_setting(self, args: list[str], name: str) -> None:
        setattr(self.engine.book.settings, name, _positive_int(args, f"{name} N", minimum=0))

    def cmd_bookeval(self, args: list[str]) -> None:
        """Terra's bookeval on the move just played, or NAG-marked lines from a PGN file."""
        if len(args) != 1:
            raise CommandError("usage: bookeval 0..100|!!|!|!?|?!|?|clear  or  bookeval FILE.pgn")
        try:
            if Path(args[0]).is_file():
                count = self.engine.import_user_values([args[0]])
                self.say(f"{count} user-set values read from {args[0]}")
                return
            value = parse_bookeval(args[0])
            san = self.engine.set_user_value(value)
        except ValueError as error:
            raise CommandError(str(error)) from error
        except IndexError as error:
            raise CommandError("bookeval sets a value on the move just played: make the move first") from error
        except LearnedStoreError as error:
            raise CommandError(str(error)) from error
        self.say(f"{san}: user value {'cleared' if value is None else value}")

    def cmd_bstat(self, args: list[str]) -> None:
        """Terra's bstat/bmoves: every book move of this position, fixed and user-set values."""
        decision = self.engine.book_decision()
        if decision is None:
            self.say("no book moves in this position")
            return
        for line in book_table(decision, self.engine.game):
            self.say(line)

    def cmd_show(self, args: list[str]) -> None:
        if len(args) != 1 or args[0].lower() != "book":
            raise CommandError("usage: show book")
        self.show_book = not self.show_book
        self.say(f"show book {'on' if self.show_book else 'off'}")

    def _progress(self) -> Callable[[int, int, int, float], None]:
        """A progress line for long builds: games read, games per second, share of the file."""
        interactive = self.out.isatty() if hasattr(self.out, "isatty") else False
        shown = [0.0]

        def show(games: int, done: int, total: int, elapsed: float) -> None:
            if elapsed - shown[0] < (0.5 if interactive else 10.0):
                return
            shown[0] = elapsed
            rate = games / elapsed if elapsed > 0 else 0.0
            share = done / total if total else 0.0
            bar = "#" * int(share * 30)
            text = f"[{bar:<30}] {share * 100:5.1f}%  {games} games  {rate:,.0f} games/s"
            with self._write_lock:
                self.out.write(("\r" + text) if interactive else text + "\n")
                self.out.flush()
        self._progress_interactive = interactive
        return show

    def _end_progress(self) -> None:
        if getattr(self, "_progress_interactive", False):
            self.say()

    def _report(self, report: BuildReport) -> None:
        for line in report.summary().splitlines():
            self.say(line)

    # -- learning -------------------------------------------------------------------

    def cmd_learn(self, args: list[str]) -> None:
        """learn N (bitmask: 1 book, 2 position, 4 result), learn store LOCATION, learn aging on|off."""
        learner = self.engine.learner
        if not args:
            self.say(f"learn {learner.mask} (1 book, 2 position, 4 result); store {self.engine.learned.location}; "
                     f"aging {'on' if self.engine.book.aging else 'off'}")
            return
        if args[0].lower() == "store" and len(args) == 2:
            try:
                self.engine.use_learned_store(args[1])
            except LearnedStoreError as error:
                raise CommandError(str(error)) from error
            self.say(f"learned data: {self.engine.learned.location}")
            return
        if args[0].lower() == "aging" and len(args) == 2:
            self.engine.book.aging = self._on_off(args[1:], "learn aging")
            return
        mask = _positive_int(args, "learn N (0-7) | learn store PATH|postgresql://... | learn aging on|off", 0)
        if mask > 7:
            raise CommandError("learn N: N is a bitmask 0-7 (1 book, 2 position, 4 result)")
        learner.mask = mask

    def cmd_import(self, args: list[str]) -> None:
        """Crafty's import: learn from a book.lrn or position.lrn file as if the games were played."""
        if not 1 <= len(args) <= 2 or (len(args) == 2 and args[1].lower() != "clear"):
            raise CommandError("usage: import FILE [clear]")
        try:
            count = self.engine.import_learning(args[0], clear=len(args) == 2)
        except (OSError, LearnFileError, LearnedStoreError) as error:
            raise CommandError(str(error)) from error
        for problem in self.engine.learner.import_skipped:
            self.say(f"warning: {problem}")
        self.say(f"imported {count} learning records from {args[0]}")

    def cmd_rating(self, args: list[str]) -> None:
        """rating OWN OPPONENT: book learning trusts a score by the rating difference."""
        if len(args) != 2 or not all(word.lstrip("-").isdigit() for word in args):
            raise CommandError("usage: rating OWN OPPONENT")
        self.engine.learner.rating_difference = int(args[0]) - int(args[1])

    def cmd_result(self, args: list[str]) -> None:
        """result 1-0|0-1|1/2-1/2: the game is over (the engine learns from it)."""
        if len(args) < 1 or args[0] not in ("1-0", "0-1", "1/2-1/2"):
            raise CommandError("usage: result 1-0|0-1|1/2-1/2")
        self.engine.end_search()
        self.engine.finish_game(args[0])
        self.engine_side = None

    def cmd_help(self, args: list[str]) -> None:
        if args:
            command = COMMANDS_BY_NAME.get(args[0].lower())
            if command is None:
                raise CommandError(f"no help for unknown command {args[0]!r}")
            self.say(f"{command.usage}: {command.summary}")
            return
        for command in COMMANDS:
            self.say(f"{command.usage:<28} {command.summary}")
        self.say("Moves may be typed in SAN (Nf3, O-O, e8=Q) or coordinates (g1f3, e7e8q).")

    def cmd_quit(self, args: list[str]) -> None:
        self.running = False

    def cmd_xboard(self, args: list[str]) -> None:
        """Switch to the XBoard protocol, as Crafty and GNU Chess do."""
        self.running = False
        self.xboard_requested = True


COMMANDS: list[Command] = [
    Command(("analyze",), Console.cmd_analyze, "analyze",
            "think on the side to move until a move (played, thinking restarts) or exit"),
    Command(("bench",), Console.cmd_bench, "bench [DEPTH]",
            "search the fixed bench positions; prints total nodes (a signature) and speed"),
    Command(("book",), Console.cmd_book, "book [create FILE M [N] [WPCT] | add FILE | merge A B OUT | random 0|1|2 "
            "| width N | on | off | use FILE | polyglot FILE | export FILE]",
            "the opening book: build it from PGN, choose how moves are picked, use or write Polyglot"),
    Command(("books",), Console.cmd_books, "books create FILE M",
            "the start book: moves marked ! (only these), ? (never) and {play nn%}"),
    Command(("bookw",), Console.cmd_bookw, "bookw freq|ratio|eval|learn W",
            "weight 0..1 of each term in book random 1's sort value"),
    Command(("bookeval",), Console.cmd_bookeval, "bookeval VALUE|FILE",
            "user value 0..100 (!!=100 !=75 !?=15 ?!=5 ?=0, clear) of the move just played; FILE: from NAGs"),
    Command(("bstat", "bmoves"), Console.cmd_bstat, "bstat | bmoves",
            "every book move here: games, score %, flags, user-set value, chance"),
    Command(("show",), Console.cmd_show, "show book", "toggle listing the book candidates before each book move"),
    Command(("booklimit",), lambda console, args: console.cmd_terra_setting(args, "book_limit"), "booklimit N",
            "Terra: minimum score % of a move's book games (book random 2)"),
    Command(("terralimit",), lambda console, args: console.cmd_terra_setting(args, "terra_limit"), "terralimit N",
            "Terra: minimum score % of the engine's own games with a move (book random 2)"),
    Command(("minbookgames",), lambda console, args: console.cmd_terra_setting(args, "min_book_games"),
            "minbookgames N", "Terra: fewest book games for a move to be played (book random 2)"),
    Command(("minterragames",), lambda console, args: console.cmd_terra_setting(args, "min_terra_games"),
            "minterragames N", "Terra: own games needed before they count instead of frequency (book random 2)"),
    Command(("learn",), Console.cmd_learn, "learn [N | store LOCATION | aging on|off]",
            "what to learn (bitmask: 1 book, 2 position, 4 result; default 7), where, and learning aging"),
    Command(("import",), Console.cmd_import, "import FILE [clear]",
            "learn from a book.lrn or position.lrn file; clear: forget what was learned first"),
    Command(("rating",), Console.cmd_rating, "rating OWN OPPONENT", "ratings, for book learning's trust"),
    Command(("result",), Console.cmd_result, "result 1-0|0-1|1/2-1/2", "the game is over: learn from it"),
    Command(("display", "d"), Console.cmd_display, "display", "show the board"),
    Command(("divide",), Console.cmd_divide, "divide N", "perft N split by root move"),
    Command(("drawscore",), Console.cmd_drawscore, "drawscore N", "score of a draw in centipawns (contempt)"),
    Command(("evaluation",), Console.cmd_evaluation, "evaluation TERM N",
            "scale an evaluation term: asymmetry, bscale, kscale, tropism, pscale, ppscale"),
    Command(("extensions",), Console.cmd_extensions, "extensions [TYPE PLIES]",
            "show or set incheck, onerep, recapture, pushpp, mate (0-1 ply)"),
    Command(("go", "move"), Console.cmd_go, "go | move", "think and play a move for the side to move"),
    Command(("hash",), Console.cmd_hash, "hash SIZE", "transposition table size (K, M or G)"),
    Command(("hashp",), Console.cmd_hashp, "hashp SIZE", "pawn hash table size (K, M or G)"),
    Command(("help",), Console.cmd_help, "help [command]", "list the commands, or explain one"),
    Command(("new",), Console.cmd_new, "new", "start a new game from the initial position"),
    Command(("perf",), Console.cmd_perf, "perf",
            "move generator speed: generated, and generated+made+unmade, per second"),
    Command(("perft",), Console.cmd_perft, "perft N", "count the leaf nodes N plies deep, with time and speed"),
    Command(("score",), Console.cmd_score, "score", "static evaluation from White's side, term by term"),
    Command(("sd",), Console.cmd_sd, "sd N", "search depth limit in plies"),
    Command(("setboard",), Console.cmd_setboard, "setboard FEN",
            "set up a position (counters may be left out, as in Crafty)"),
    Command(("sn",), Console.cmd_sn, "sn N", "node limit per search"),
    Command(("st",), Console.cmd_st, "st SECONDS", "time per move in seconds (or mm:ss)"),
    Command(("test",), Console.cmd_test, "test FILE [N]",
            "run an EPD or Crafty-format suite with the st time; N = early exit after N iterations held"),
    Command(("undo", "back"), Console.cmd_undo, "undo", "take back the last move"),
    Command(("white",), Console.cmd_white, "white", "give the move to White (same position)"),
    Command(("black",), Console.cmd_black, "black", "give the move to Black (same position)"),
    Command(("force",), Console.cmd_force, "force [MOVE]",
            "replace the engine's last move by MOVE; alone: the engine stops playing until go"),
    Command(("remove",), Console.cmd_remove, "remove", "take back the last two moves"),
    Command(("hint",), Console.cmd_hint, "hint", "suggest a move"),
    Command(("history",), Console.cmd_history, "history", "the moves of the game, two columns"),
    Command(("info",), Console.cmd_info, "info", "time control, clocks and settings"),
    Command(("level",), Console.cmd_level, "level MOVES MINUTES INC", "time control as XBoard's level"),
    Command(("time",), Console.cmd_time, "time CONTROL|cpu|elapsed",
            "Crafty's time control: time sd/15, time 60/30/sd/30/5, time 40/120/20/60"),
    Command(("settc",), Console.cmd_settc, "settc MOVES OWN OPP", "restore moves to control and clocks (minutes)"),
    Command(("clock",), Console.cmd_clock, "clock [OWN [OPP]]", "show or correct the clocks (minutes or mm:ss)"),
    Command(("usage",), Console.cmd_usage, "usage N", "use N percent more (or less, -N) time than normal"),
    Command(("operator",), Console.cmd_operator, "operator N", "keep N minutes in reserve for the operator"),
    Command(("mode",), Console.cmd_mode, "mode tournament|normal",
            "tournament: draws score 0 and the clocks are shown after each move"),
    Command(("ponder",), Console.cmd_ponder, "ponder on|off|MOVE", "think on the opponent's time; MOVE to ponder"),
    Command(("draw",), Console.cmd_draw, "draw", "offer the engine a draw"),
    Command(("resign",), Console.cmd_resign, "resign N", "resign when N pawns behind (0 = never)"),
    Command(("noise",), Console.cmd_noise, "noise N", "show thinking only after N nodes"),
    Command(("alarm",), Console.cmd_alarm, "alarm on|off", "beep after each engine move"),
    Command(("ansi",), Console.cmd_ansi, "ANSI on|off", "ANSI terminal control codes"),
    Command(("echo",), Console.cmd_echo, "echo TEXT", "print TEXT (for command files)"),
    Command(("input",), Console.cmd_input, "input FILE", "read commands from FILE until `exit`"),
    Command(("log",), Console.cmd_log, "log on|off|N", "log to ponderosa.log; N: show its last N lines"),
    Command(("quit", "end", "exit"), Console.cmd_quit, "quit | end | exit", "leave the program"),
    Command(("xboard",), Console.cmd_xboard, "xboard", "switch to the XBoard/WinBoard protocol"),
]
BOOK_ACTIONS: dict[str, Callable[[Console, list[str]], None]] = {
    "create": Console._book_create, "add": Console._book_add, "merge": Console._book_merge,
    "random": Console._book_random, "width": Console._book_width, "on": Console._book_on,
    "off": Console._book_off, "use": Console._book_use, "polyglot": Console._book_polyglot,
    "export": Console._book_export,
}
COMMANDS_BY_NAME: dict[str, Command] = {name: command for command in COMMANDS for name in command.names}
