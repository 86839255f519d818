"""The Crafty-style console: a prompt such as `White(1): `, commands typed one per line."""
from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import chess

from ponderosa.engine.bench import BENCH_DEPTH
from ponderosa.engine.book.opening_book import BookProbe, book_moves_text, book_table
from ponderosa.engine.clock import TimeControl, allocate, parse_crafty_time, parse_level
from ponderosa.engine.engine import Engine, IllegalMoveError
from ponderosa.engine.fen import FenError
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking
from ponderosa.engine.testsuite import SuiteError, TestPosition
from ponderosa.engine.worker import MAX_THREADS
from ponderosa.protocol.console_book import BookCommands, book_commands
from ponderosa.protocol.console_commands import (
    Command,
    CommandError,
    depth_argument,
    format_rate,
    format_score,
    parse_seconds,
    parse_size,
    positive_int,
)
from ponderosa.protocol.console_ics import ICS_COMMANDS, ConsoleIcs
from ponderosa.protocol.console_protocols import COMMAND_ENTRIES as PROTOCOL_COMMANDS
from ponderosa.protocol.console_protocols import ProtocolCommands
from ponderosa.protocol.console_records import FEN_BOARD, RECORD_COMMANDS, RecordsCommands
from ponderosa.protocol.console_tablebases import TablebaseCommands, tablebase_commands
from ponderosa.protocol.console_threads import ConsoleThreads, thread_commands

if TYPE_CHECKING:
    pass

# Words that look like a move (SAN or coordinates) get "Illegal move" rather than "unknown command".
MOVE_PATTERN = re.compile(r"^([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBNqrbn])?|[a-h][1-8][a-h][1-8][qrbn]?|"
                          r"[O0]-[O0](-[O0])?)[+#!?]*$")


class Console(ConsoleIcs, RecordsCommands, ConsoleThreads, TablebaseCommands, ProtocolCommands, BookCommands):
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
        self.reading = ""   # "FILE:LINE: " while a command file runs, to say where an error is
        self.init_records()

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
        tbhits = "" if line.tbhits is None else f"  (tbhits {line.tbhits})"
        depth = f"{line.depth}#{line.multipv}" if line.lines > 1 else str(line.depth)   # MultiPV line
        self.say(f"{depth:>7}{'->' if line.bound == 'exact' else '  '} {line.seconds:>7.2f} "
                 f"{format_score(score):>7}{marker} {self.engine.san_line(line.pv)}{tbhits}")

    def _threads_text(self) -> str:
        threads = self.engine.searching_threads
        return f"{threads} thread{'s' if threads > 1 else ''}"

    def show_search_summary(self, result: SearchResult) -> None:
        nps = result.nodes / result.seconds if result.seconds > 0 else 0.0
        self.say(f"              time={result.seconds:.2f}  n={result.nodes}  nps={format_rate(nps)}  "
                 f"depth={result.depth}  threads={self.engine.searching_threads}")
        self.report_tablebase_problems()

    # -- dispatch -------------------------------------------------------------

    def execute(self, line: str) -> None:
        """Run one command line; any failure is reported on one line and the console goes on."""
        words = line.split()
        if not words:
            return
        if "=" in words[0] and not words[0].startswith("="):
            words = words[0].split("=", 1) + words[1:]   # Crafty's hash=64M form
        command = COMMANDS_BY_NAME.get(words[0].lower())
        if command is None and FEN_BOARD.match(words[0]):   # a FEN line, as savepos writes it
            command, words = COMMANDS_BY_NAME["setboard"], ["setboard", *words]
        if command is None:
            self._user_move(words[0] if len(words) == 1 else line.strip())
            return
        try:
            command.handler(self, words[1:])
        except CommandError as error:
            self.say(f"Error: {self.reading}{error}")
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
        if len(args) == 1 and Path(args[0]).is_file():
            self.setboard_from_file(args[0])
            return
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
        self.resign_pawns = positive_int(args, "resign N  (pawns behind; 0 = never)", minimum=0)

    def cmd_noise(self, args: list[str]) -> None:
        usage = "noise N  (nodes before thinking, whispers and kibitzes are shown)"
        self.noise_nodes = self.engine.ics.noise_nodes = positive_int(args, usage, minimum=0)

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
        outer = self.reading
        try:
            for number, line in enumerate(lines, 1):
                if line.strip().lower() == "exit":
                    break
                self.reading = f"{path}:{number}: "
                self.execute(line)
                if not self.running:
                    break
        finally:
            self.input_depth -= 1
            self.reading = outer

    def cmd_display(self, args: list[str]) -> None:
        border = "    +---+---+---+---+---+---+---+---+"
        self.say(border)
        for rank in (range(8) if self.flipped else range(7, -1, -1)):
            cells = []
            for file in (range(7, -1, -1) if self.flipped else range(8)):
                piece = self.engine.piece_at(rank * 8 + file)
                # Black pieces are marked with '*' as on ICS style boards, so they stand out.
                cells.append(f" {piece.upper()} " if piece.isupper() else
                             f"*{piece.upper()} " if piece else (" . " if (rank + file) % 2 == 0 else "   "))
            self.say(f"  {rank + 1} |" + "|".join(cells) + "|")
            self.say(border)
        self.say("      h   g   f   e   d   c   b   a" if self.flipped else "      a   b   c   d   e   f   g   h")
        self.say(f"  {self.engine.fen()}")

    def cmd_undo(self, args: list[str]) -> None:
        try:
            self.engine.undo()
        except IndexError:
            raise CommandError("no move to take back") from None

    # -- perft ----------------------------------------------------------------

    def cmd_perft(self, args: list[str]) -> None:
        result = self.engine.perft(depth_argument(args, "perft"))
        self.say(f"total moves={result.nodes}  time={result.seconds:.3f}s  "
                 f"({format_rate(result.nodes_per_second)} nodes/sec)")

    def cmd_divide(self, args: list[str]) -> None:
        depth = depth_argument(args, "divide")
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
        self.engine.end_search()   # a ponder search shares the searcher: two at once crash the core
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
        probe = self.engine.book_probe() if self.search_move is None else BookProbe(None, None)   # `search MOVE`
        if probe.decision is not None and self.show_book:
            for line in book_table(probe.decision, self.engine.game):
                self.say(f"    {line}")
        if probe.move is not None:
            self._play_book_move(probe)
            return
        limits, excluded = self._limits(), self.root_exclusions()
        if probe.search_only:
            self.say(f"    book moves {{{probe.search_only_text(self.engine.game)}}} (searching them)")
            limits, excluded = self.engine.book_search(probe, limits)
        self.say(f"       depth    time   score   variation ({self._threads_text()})")
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
        self.say(f"       depth    time   score   variation ({self._threads_text()})")
        self.engine.start_search(SearchLimits(), self.show_thinking, lambda serial, result: None)

    def cmd_bench(self, args: list[str]) -> None:
        usage = "bench [DEPTH [THREADS]]"
        depth = positive_int(args[:1], usage) if args else BENCH_DEPTH
        threads = positive_int(args[1:], usage) if len(args) > 1 else 1   # one: the signature
        if len(args) > 2 or threads > MAX_THREADS:
            raise CommandError(f"usage: {usage}")
        result = self.engine.bench(depth, threads=threads)
        self.say(f"positions={result.positions}  depth={result.depth}  threads={threads}")
        self.say(f"Total nodes: {result.nodes}")
        self.say(f"Time: {result.seconds:.2f}s")
        self.say(f"Nodes/second: {int(result.nodes_per_second)}")
        self.say(f"{result.nodes} nodes {int(result.nodes_per_second)} nps")   # OpenBench reads this line

    def cmd_test(self, args: list[str]) -> None:
        if not args or len(args) > 2:
            raise CommandError("usage: test FILE [N]")
        early_exit = positive_int(args[1:], "test FILE [N]") if len(args) == 2 else None

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
        self.engine.max_depth = positive_int(args, "sd N  (search depth in plies)")

    def cmd_st(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: st SECONDS  (or mm:ss)")
        self.engine.seconds_per_move = parse_seconds(args[0])   # st and level replace each other

    def cmd_sn(self, args: list[str]) -> None:
        self.engine.max_nodes = positive_int(args, "sn N  (nodes per search)")

    def cmd_hash(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: hash SIZE  (e.g. hash 64M, hash=1G)")
        self.engine.end_search()   # the ponder search: the table changes now, as the reply says
        used = self.engine.set_hash_size(parse_size(args[0]))
        self.say(f"hash table memory = {used // 1024}K bytes")

    def cmd_hashp(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError("usage: hashp SIZE  (e.g. hashp 8M)")
        self.engine.end_search()
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
    *book_commands(Command),
    Command(("analyze",), Console.cmd_analyze, "analyze",
            "think on the side to move until a move (played, thinking restarts) or exit"),
    Command(("bench",), Console.cmd_bench, "bench [DEPTH [THREADS]]",
            "search the fixed bench positions; prints total nodes (with one thread, the default: "
            "a signature) and speed"),
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
    Command(("quit", "end", "exit"), Console.cmd_quit, "quit | end | exit", "leave the program"),
    Command(("xboard",), Console.cmd_xboard, "xboard", "switch to the XBoard/WinBoard protocol"),
    *[Command(*entry) for entry in ICS_COMMANDS],
    *[Command(*entry) for entry in RECORD_COMMANDS],
    *thread_commands(Command),
    *tablebase_commands(Command),
    *[Command(*entry) for entry in PROTOCOL_COMMANDS],   # type: ignore[arg-type]
]
COMMANDS_BY_NAME: dict[str, Command] = {name: command for command in COMMANDS for name in command.names}
