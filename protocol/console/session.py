"""The Crafty-style console: a prompt such as `White(1): `, commands typed one per line, run
through one flat command table (table.py); the console's own part is the game it plays with
the user: moves, the engine's thinking and reply, pondering, and its output."""
from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TextIO

import chess

from ponderosa.engine.book.opening_book import BookProbe, book_moves_text, book_table
from ponderosa.engine.engine import Engine, IllegalMoveError
from ponderosa.engine.errors import EngineError
from ponderosa.engine.input_files import read_text
from ponderosa.engine.records import LogTee, Players
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking
from ponderosa.protocol.console import records
from ponderosa.protocol.console.clock import ConsoleClock
from ponderosa.protocol.console.commands import MOVE_PATTERN, CommandError, format_rate, format_score
from ponderosa.protocol.console.records import FEN_BOARD
from ponderosa.protocol.console.table import COMMANDS, COMMANDS_BY_NAME
from ponderosa.protocol.console.tablebases import report_problems

MAX_FILE_NESTING = 8      # `input` inside `input` ...: deeper than this is a loop
RESIGN_SEARCHES = 3       # searches in a row below the resign threshold


class Console:
    """Reads console commands and answers on `out`; the engine does the work."""

    def __init__(self, engine: Engine, out: TextIO = sys.stdout) -> None:
        self.engine = engine
        self.input: TextIO = sys.stdin
        self.running = True
        self.xboard_requested = False
        self.uci_requested = False
        self.engine_side: bool | None = chess.BLACK   # None: force mode, the engine plays no side
        self.ponder_enabled = True
        self.ponder_move: str | None = None
        self.clock = ConsoleClock()
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
        self.flipped = False                     # `flip`: the board shown from Black's side
        self.plays_both = False                  # `both`: the engine plays both sides
        self.search_move: str | None = None      # `search MOVE`: the next search's only root move
        self.reset_line: list[chess.Move] = []   # the moves `reset` can go forward through
        self.commands = COMMANDS
        # Logging on at the console (log.NNN and game.NNN, Crafty's default): the log shows what the user saw.
        self.out: TextIO = LogTee(out, lambda: self.engine.game_files)   # type: ignore[assignment]
        self.engine.options.set_game_files(True, save=False)
        self.engine.players = self.record_players

    # -- output ---------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.write(text + "\n")

    def write(self, text: str) -> None:
        """Text as it is (a prompt, a progress bar redrawn with \\r), flushed at once."""
        with self._write_lock:
            self.out.write(text)
            self.out.flush()

    def prompt(self) -> str:
        return f"{self.side_name()}({self.engine.move_number}): "

    def side_name(self) -> str:
        return "White" if self.engine.white_to_move else "Black"

    def _print_thinking(self, line: Thinking) -> None:
        score = line.score if self.engine.white_to_move else -line.score
        marker = {"exact": "  ", "lower": "++", "upper": "--"}[line.bound]
        tbhits = "" if line.tbhits is None else f"  (tbhits {line.tbhits})"
        depth = f"{line.depth}#{line.multipv}" if line.lines > 1 else str(line.depth)   # MultiPV line
        self.say(f"{depth:>7}{'->' if line.bound == 'exact' else '  '} {line.seconds:>7.2f} "
                 f"{format_score(score):>7}{marker} {self.engine.san_line(line.pv)}{tbhits}")

    def show_thinking(self, line: Thinking) -> None:
        """Thinking lines, once the search has passed the `noise` node count."""
        if line.nodes < self.noise_nodes:
            return
        self._print_thinking(line)

    def thinking_header(self) -> None:
        threads = self.engine.searching_threads
        self.say(f"       depth    time   score   variation ({threads} thread{'s' if threads > 1 else ''})")

    def show_search_summary(self, result: SearchResult) -> None:
        nps = result.nodes / result.seconds if result.seconds > 0 else 0.0
        self.say(f"              time={result.seconds:.2f}  n={result.nodes}  nps={format_rate(nps)}  "
                 f"depth={result.depth}  threads={self.engine.searching_threads}")
        report_problems(self)

    # -- the loop -------------------------------------------------------------

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
            self.user_move(words[0] if len(words) == 1 else line.strip())
            return
        try:
            command.handler(self, words[1:])
        except CommandError as error:
            self.say(f"Error: {self.reading}{error}")
        except Exception as error:  # a bug must not end the program: report it and go on
            self.say(f"Error ({type(error).__name__}): {error}")

    def run(self, stream: TextIO) -> None:
        """Prompt, read and execute until quit or end of input."""
        self.input = stream
        while self.running:
            if self.show_prompt:
                self.write(self.prompt())
            line = stream.readline()
            if not line:
                if self.show_prompt:
                    self.say()
                break
            self.execute(line)

    def run_file(self, path: Path) -> None:
        """Execute the commands of a file (a .ponderosarc or `input FILE`) until `exit` or its end."""
        if self.input_depth >= MAX_FILE_NESTING:
            raise CommandError(f"{path}: command files nested too deep")
        try:
            lines = read_text(path, "a command file").splitlines()
        except EngineError as error:
            raise CommandError(str(error)) from None
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

    def resume_last_game(self) -> None:
        """`ponderosa c`: continue the game of the newest game.NNN."""
        records.resume_last_game(self)

    # -- the game with the user -----------------------------------------------

    def user_move(self, text: str) -> None:
        if not MOVE_PATTERN.match(text):
            self.say(f"Error (unknown command): {text.split()[0]}")
            return
        try:
            uci = self.engine.parse_move(text)
        except IllegalMoveError:
            self.say(f"Illegal move: {text}")
            return
        self.engine.end_search()   # a ponder search, if any, is of no further use
        self.clock.charge(self.engine.white_to_move)
        self.engine.make_move(uci)
        self.reply_if_engine_to_move()

    def reply_if_engine_to_move(self) -> None:
        outcome = self.engine.outcome()
        if outcome is not None:
            self.say(f"{outcome[0]} {{{outcome[1]}}}")
            self.engine.finish_game(outcome[0])
            return
        if self.engine_side is not None and self.engine_side == self.engine.white_to_move:
            self.think_and_play()

    def think_and_play(self) -> None:
        """The engine's move: from the book, or searched (the thinking shown), then played."""
        self.clock.start_turn()
        probe = self.engine.book_probe() if self.search_move is None else BookProbe(None, None)   # `search MOVE`
        if probe.decision is not None and self.show_book:
            for line in book_table(probe.decision, self.engine.position(stack=False)):
                self.say(f"    {line}")
        if probe.move is not None:
            self._play_book_move(probe)
            return
        limits, excluded = self.clock.limits(self.engine, self.ponder_enabled), self.root_exclusions()
        if probe.search_only:
            self.say(f"    book moves {{{probe.search_only_text(self.engine.position(stack=False))}}} (searching them)")
            limits, excluded = self.engine.book_search(probe, limits)
        self.thinking_header()
        result = self.engine.think(limits, on_thinking=self.show_thinking, excluded=excluded, at_level=True)
        self.show_search_summary(result)
        if result.best_move is None:
            raise CommandError("the search found no move")
        self.last_score = result.score
        self.low_scores = self.low_scores + 1 if self.resign_pawns and result.score <= -100 * self.resign_pawns else 0
        if self.low_scores >= RESIGN_SEARCHES:
            self.say(f"{'White' if self.engine.white_to_move else 'Black'} resigns")
            self.engine.finish_game("0-1" if self.engine.white_to_move else "1-0")
            self.engine_side = None
            return
        self._play_move(result.best_move, result.ponder_move, result)

    def root_exclusions(self) -> set[str]:
        """Root moves the next search leaves out: all but the `search` move, once."""
        move, self.search_move = self.search_move, None
        legal = set(self.engine.legal_moves())
        return legal - {move} if move in legal else set()

    def _play_book_move(self, probe: BookProbe) -> None:
        """Crafty's book output: the moves that made the cut, then the move and its chance."""
        assert probe.decision is not None and probe.move is not None
        chance = probe.chance
        self.say(f"    book moves {{{book_moves_text(probe.decision, self.engine.position(stack=False))}}}")
        self.say(f"    book {probe.seconds:>6.1f}s {chance * 100:>6.0f}%    {self.engine.san(probe.move)}")
        self._play_move(probe.move, None, None)

    def _play_move(self, move: str, ponder_move: str | None, searched: SearchResult | None) -> None:
        side, number = self.side_name(), self.engine.move_number
        self.clock.charge(self.engine.white_to_move)
        san = self.engine.play_own_move(move, searched)
        self.clock.own_moves += 1
        self.say(f"{side}({number}): {san}{chr(7) if self.alarm else ''}")
        if self.clock.tournament_mode and self.clock.clock_seconds:
            self.say(f"clock: White {self.clock.text(chess.WHITE)}  Black {self.clock.text(chess.BLACK)}"
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

    def record_players(self) -> Players:
        """Who plays which side, and the time control, for the PGN tags and a resumed game."""
        return Players(self.engine_side, self.plays_both, "", self.clock.pgn_time_control(self.engine))
