"""The Crafty-style console: a prompt such as `White(1): `, commands typed one per line."""
from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass
from typing import Callable, TextIO

from ponderosa.engine.engine import Engine, IllegalMoveError
from ponderosa.engine.fen import FenError
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking, mate_distance
from ponderosa.engine.testsuite import SuiteError, TestPosition

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

    def show_thinking(self, line: Thinking) -> None:
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
            self.engine.make_move(text)
        except IllegalMoveError:
            self.say(f"Illegal move: {text}")

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
        """Think for the side to move, then play the move."""
        if not self.engine.legal_moves():
            raise CommandError("no legal moves: the game is over")
        self.say("       depth    time   score   variation")
        result = self.engine.think(on_thinking=self.show_thinking)
        self.show_search_summary(result)
        if result.best_move is None:
            raise CommandError("the search found no move")
        side, number = self._side_name(), self.engine.move_number
        san = self.engine.make_move(result.best_move)
        self.say(f"{side}({number}): {san}")

    def cmd_analyze(self, args: list[str]) -> None:
        """Think without end on the side to move; a move is played and thinking restarts; exit leaves."""
        while True:
            thread = self._start_analysis()
            line = self.input.readline()
            self.engine.stop()
            thread.join()
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
            else:
                self._user_move(line.strip())

    def _start_analysis(self) -> threading.Thread:
        self.say("       depth    time   score   variation")
        thread = threading.Thread(target=self.engine.think, daemon=True,
                                  kwargs={"limits": SearchLimits(), "on_thinking": self.show_thinking})
        thread.start()
        return thread

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
        self.engine.seconds_per_move = parse_seconds(args[0])

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
    Command(("quit", "end", "exit"), Console.cmd_quit, "quit | end | exit", "leave the program"),
    Command(("xboard",), Console.cmd_xboard, "xboard", "switch to the XBoard/WinBoard protocol"),
]
COMMANDS_BY_NAME: dict[str, Command] = {name: command for command in COMMANDS for name in command.names}
