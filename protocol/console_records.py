"""Console commands for game records (Crafty's and GNU Chess's): save and read games and
positions, PGN tags, reset, logs, annotate, search, edit, both/switch/flip, flag, ls, trace.
The engine layer (engine/records.py, engine/annotate.py) does the work; this only parses
arguments and prints."""
from __future__ import annotations

import glob
import re
import select
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TextIO

import chess

from ponderosa.engine.engine import IllegalMoveError
from ponderosa.engine.fen import FenError
from ponderosa.engine.records import (
    LogTee,
    Players,
    RecordError,
    read_fen_line,
    read_pgn_text,
    resume_players,
    write_atomically,
)

# console imports this module for its mixin: CommandError is looked up at call time.
from ponderosa.protocol import console as _console

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.engine.records import ReadGame

# A console line that is a FEN (what `savepos` writes): its first word is the board, eight ranks.
FEN_BOARD = re.compile(r"^([1-8pnbrqkPNBRQK]{1,8}/){7}[1-8pnbrqkPNBRQK]{1,8}$")
EDIT_PIECE = re.compile(r"^([pnbrqkx])([a-h][1-8])$", re.IGNORECASE)
NO_TRACE = ("this build has no search trace: the Cython core is compiled without tracing code "
            "(it would slow every node); see README, \"Search trace\"")


def _error(text: str) -> Exception:
    return _console.CommandError(text)


class RecordsCommands:
    """Mixin of Console: the game-record commands and the state they keep."""

    if TYPE_CHECKING:
        engine: Engine
        out: TextIO
        input: TextIO
        engine_side: bool | None

        def say(self, text: str = "") -> None: ...
        def execute(self, line: str) -> None: ...
        def _think_and_play(self) -> None: ...
        def _reply_if_engine_to_move(self) -> None: ...

    def init_records(self) -> None:
        """Console start: logging on (log.NNN and game.NNN, Crafty's default at the console)."""
        self.flipped = False
        self.plays_both = False
        self.search_move: str | None = None
        self.reset_line: list[chess.Move] = []   # the moves `reset` can go forward through
        self.out = LogTee(self.out, lambda: self.engine.game_files)   # type: ignore[assignment]
        self.engine.game_files.enabled = True
        self.engine.players = self.record_players

    def record_players(self) -> Players:
        """Who plays which side, and the time control, for the PGN tags and a resumed game."""
        control = getattr(self, "control", None)
        if self.engine.seconds_per_move is not None:
            time_control = f"1/{self.engine.seconds_per_move:g}"   # st: one move per so many seconds
        elif control is not None:
            base, increment = round(control.base_seconds), control.increment_seconds
            time_control = (f"{control.moves_per_session}/" if control.moves_per_session else "") + f"{base}" + \
                (f"+{increment:g}" if increment else "")
        else:
            time_control = "?"
        return Players(self.engine_side, self.plays_both, "", time_control)

    # -- saving and reading -----------------------------------------------------

    def cmd_savegame(self, args: list[str]) -> None:
        if len(args) != 1:
            raise _error("usage: savegame FILE")
        try:
            write_atomically(args[0], self.engine.pgn())
        except OSError as error:
            raise _error(f"cannot write {args[0]}: {error.strerror or error}") from None
        self.say(f"saved the game ({len(self.engine.game.move_stack)} plies) to {args[0]}")

    def cmd_savepos(self, args: list[str]) -> None:
        if len(args) != 1:
            raise _error("usage: savepos FILE")
        try:
            write_atomically(args[0], self.engine.fen() + "\n")
        except OSError as error:
            raise _error(f"cannot write {args[0]}: {error.strerror or error}") from None
        self.say(f"saved the position to {args[0]} (`input {args[0]}` or `setboard` reads it back)")

    def setboard_from_file(self, path: str) -> None:
        """`setboard FILE`: the FEN line that savepos wrote."""
        try:
            fen = read_fen_line(path)
            self.engine.set_position(fen)
        except RecordError as error:
            raise _error(str(error)) from None
        except FenError as error:
            raise _error(f"{path}: {error}") from None

    def cmd_pgn(self, args: list[str]) -> None:
        if len(args) < 2:
            raise _error("usage: pgn TAG VALUE  (Event, Site, Round, Date, White, WhiteElo, Black, BlackElo, Result)")
        try:
            self.engine.record.set_tag(args[0], " ".join(args[1:]))
        except RecordError as error:
            raise _error(str(error)) from None
        self.engine.save_record()

    def cmd_tags(self, args: list[str]) -> None:
        for name, value in self.engine.record.headers(self.record_players(), self.engine.game).items():
            self.say(f'[{name} "{value}"]')

    def cmd_read(self, args: list[str]) -> None:
        self._read(args, append=False)

    def cmd_reada(self, args: list[str]) -> None:
        self._read(args, append=True)

    def _read_keyboard(self) -> str:
        """Moves typed at the console: up to `end`, or an empty line once moves have come."""
        self.say("type or paste the moves (PGN), then an empty line or `end`:")
        lines: list[str] = []
        while True:
            line = self.input.readline()
            if not line or line.strip().lower() == "end":
                break
            if not line.strip() and any(text.strip() and not text.startswith("[") for text in lines):
                break
            lines.append(line.rstrip("\n"))
        return "\n".join(lines) + "\n"

    def _read(self, args: list[str], append: bool) -> None:
        """read resets to the initial position and takes the file's tags; reada plays the moves on
        from the current position. An illegal move ends the game there, saying which."""
        command = "reada" if append else "read"
        if len(args) > 1:
            raise _error(f"usage: {command} [FILE]")
        if args:
            source = args[0]
            try:
                text = Path(source).read_text(encoding="utf-8", errors="replace")
            except OSError as error:
                raise _error(f"cannot read {source}: {error.strerror or error}") from None
        else:
            source, text = "keyboard", self._read_keyboard()
        game = self.engine.game
        try:
            read = read_pgn_text(text, source, start_fen=game.fen() if append else None)
        except RecordError as error:
            raise _error(str(error)) from None
        if not read.moves and not append and not _has_own_tags(read):
            raise _error(f"{source}: no moves found")
        start, moves = (game.root().fen(), game.move_stack + read.moves) if append else (read.start_fen, read.moves)
        try:
            self.engine.replace_game(start, moves)
        except (FenError, IllegalMoveError) as error:
            raise _error(f"{source}: {error}") from None
        tags = {name: value for name, value in read.tags.items() if name not in ("FEN", "SetUp")}
        record = self.engine.record
        if not append:
            record.tags, record.result = {}, "*"
        for name, value in tags.items():
            if value not in ("?", "????.??.??") and not (append and name == "Result" and value == "*"):
                record.tags[name] = value
        record.result = record.tags.get("Result", "*")
        self.engine.save_record()
        self.reset_line = []
        if read.problem:
            self.say(f"Error: {read.problem}")
        self.say(f"read {len(read.moves)} plies from {source}; {self._side_to_move_text()}")

    def _side_to_move_text(self) -> str:
        return f"{'White' if self.engine.white_to_move else 'Black'}({self.engine.move_number}) to move"

    def cmd_reset(self, args: list[str]) -> None:
        """reset N: back (or forward, through moves taken back by reset) to move N, same side on move."""
        if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
            raise _error("usage: reset N  (a move number of this game)")
        game = self.engine.game
        played = list(game.move_stack)
        line = self.reset_line if self.reset_line[:len(played)] == played else played
        root = game.root()
        target = (int(args[0]) - root.fullmove_number) * 2 + (game.turn == chess.BLACK) - (root.turn == chess.BLACK)
        if not 0 <= target <= len(line):
            first, last = root.fullmove_number, root.fullmove_number + (len(line) + (root.turn == chess.BLACK)) // 2
            raise _error(f"no move {args[0]} with {'White' if game.turn else 'Black'} to move in this game "
                         f"(moves {first} to {last})")
        self.engine.replace_game(root.fen(), line[:target])
        self.reset_line = line
        self.say(self._side_to_move_text())

    # -- logs and resume ----------------------------------------------------------

    def cmd_log(self, args: list[str]) -> None:
        """log on|off: log.NNN and game.NNN for every game; log N [FILE]: the log's last N lines."""
        files = self.engine.game_files
        if not args:
            current = f"; current pair {files.name('log', files.number)}" if files.number else ""
            self.say(f"log {'on' if files.enabled else 'off'}{current}")
            return
        word = args[0].lower()
        if len(args) == 1 and word in ("on", "off"):
            files.enabled = word == "on"
            files.explicit = True
            if files.enabled:
                self.engine.save_record()
            return
        if not word.isdigit() or len(args) > 2:
            raise _error("usage: log on|off | log N [FILE]")
        try:
            lines = files.tail(int(word))
        except (RecordError, OSError) as error:
            raise _error(str(error)) from None
        if len(args) == 2:
            try:
                write_atomically(args[1], "".join(line + "\n" for line in lines))
            except OSError as error:
                raise _error(f"cannot write {args[1]}: {error.strerror or error}") from None
            self.say(f"copied {len(lines)} log lines to {args[1]}")
            return
        for line in lines:
            self.say(line)

    def resume_last_game(self) -> None:
        """`ponderosa c`: continue the game of the newest game.NNN (and write on into that pair)."""
        files = self.engine.game_files
        try:
            number, path = files.newest_game()
            text = path.read_text(encoding="utf-8", errors="replace")
            read = read_pgn_text(text, str(path))
        except (RecordError, OSError) as error:
            raise _error(f"cannot continue: {error}") from None
        files.continue_pair(number)
        self.engine.replace_game(read.start_fen, read.moves)
        self.engine.record.tags = {k: v for k, v in read.tags.items() if k not in ("FEN", "SetUp", "TimeControl")}
        self.engine.record.result = read.tags.get("Result", "*")
        players = resume_players(read.tags)
        self.engine_side, self.plays_both = players.engine_side, players.both
        if read.problem:
            self.say(f"Error: {read.problem}")
        self.say(f"continuing the game of {path.name}: {len(read.moves)} plies; {self._side_to_move_text()}")
        if self.plays_both:
            self.cmd_both([])
        else:
            self._reply_if_engine_to_move()

    # -- playing ------------------------------------------------------------------

    def cmd_both(self, args: list[str]) -> None:
        """The engine plays both sides until a line is typed (or the game ends)."""
        self.plays_both = True
        pending = ""
        try:
            while self.engine.outcome() is None and self.engine.legal_moves():
                self.engine_side = self.engine.game.turn
                self.engine.end_search()   # the ponder search on the move just played
                self._think_and_play()
                if not self.plays_both or self.engine_side is None:
                    break
                pending = self._typed_line()
                if pending:
                    break
        finally:
            self.plays_both = False
            self.engine_side = None   # as after `force`: the user decides what comes next
        if pending.strip() and pending.split()[0].lower() != "force":
            self.execute(pending)

    def _typed_line(self) -> str:
        """A line waiting on the console input, without blocking ("" when nothing was typed)."""
        try:
            ready, _, _ = select.select([self.input], [], [], 0)
        except (ValueError, OSError, TypeError):
            return ""   # not a real file (tests, a StringIO): nothing to interrupt with
        # At the end of the input (a pipe run dry, /dev/null) select() is always ready and
        # readline() gives "": nobody can type any more, so that is no interruption either.
        return self.input.readline() if ready else ""

    def cmd_switch(self, args: list[str]) -> None:
        """GNU Chess's switch: the engine takes the other side (the side to move if it played none)."""
        self.engine_side = self.engine.game.turn if self.engine_side is None else not self.engine_side
        self.engine.end_search()   # a ponder search must not run beside the engine's own
        self.engine.save_record()
        self._reply_if_engine_to_move()

    def cmd_flip(self, args: list[str]) -> None:
        self.flipped = not self.flipped
        self.say(f"board shown from {'Black' if self.flipped else 'White'}'s side")

    def cmd_search(self, args: list[str]) -> None:
        """search MOVE: the next search looks at this root move only (why is it bad?)."""
        if len(args) != 1:
            raise _error("usage: search MOVE")
        try:
            self.search_move = self.engine.parse_move(args[0])
        except IllegalMoveError:
            self.say(f"Illegal move: {args[0]}")
            return
        self.say(f"the next search looks at {self.engine.san(self.search_move)} only")

    def root_exclusions(self) -> set[str]:
        """Root moves the next search leaves out: all but the `search` move, once."""
        move, self.search_move = self.search_move, None
        legal = set(self.engine.legal_moves())
        return legal - {move} if move in legal else set()

    def cmd_flag(self, args: list[str]) -> None:
        if len(args) != 1 or args[0].lower() not in ("on", "off"):
            raise _error("usage: flag on|off")
        self.engine.record.claim_flag = args[0].lower() == "on"

    # -- analysis -----------------------------------------------------------------

    def cmd_annotate(self, args: list[str]) -> None:
        self._annotate(args, html_output=False)

    def cmd_annotateh(self, args: list[str]) -> None:
        self._annotate(args, html_output=True)

    def _annotate(self, args: list[str], html_output: bool) -> None:
        from ponderosa.engine.annotate import AnnotateError, annotate_file, parse_request  # only when used
        try:
            request = parse_request(args, html_output)
        except AnnotateError as error:
            raise _error(str(error)) from None
        self.engine.end_search()   # a ponder search must not share the hash table with it
        progress = self._annotate_progress()
        try:
            report = annotate_file(self.engine.searcher, request, progress)
        except AnnotateError as error:
            raise _error(str(error)) from None
        finally:
            if self.out.isatty():
                self.say()
        for problem in report.problems:
            self.say(f"Error: {problem}")
        self.say(f"annotated {report.moves} moves of {len(report.games)} game(s) in {report.seconds:.1f}s: "
                 f"{report.comments} comments, written to {report.output}")

    def _annotate_progress(self) -> Callable[[int, int, float], None]:
        """A bar of moves done and the time left; redrawn in place on a terminal, every tenth otherwise."""
        interactive = self.out.isatty()

        def show(done: int, total: int, elapsed: float) -> None:
            if not interactive and done != total and done % max(1, total // 10):
                return
            left = elapsed / done * (total - done) if done else 0.0
            bar = "#" * (done * 30 // max(1, total))
            text = f"[{bar:<30}] {done}/{total} moves  {int(left) // 60}:{int(left) % 60:02d} left"
            if interactive:
                self.out.write("\r" + text)
                self.out.flush()
            else:
                self.say(text)
        return show

    def cmd_trace(self, args: list[str]) -> None:
        if len(args) != 1 or not args[0].isdigit():
            raise _error("usage: trace N")
        raise _error(NO_TRACE)

    # -- position editing and files -------------------------------------------------

    def cmd_edit(self, args: list[str]) -> None:
        """Crafty's edit: `#` clears, `c` switches colour, `.` ends; pieces as qa3 (x removes)."""
        pieces = {square: piece.symbol() for square, piece in self.engine.game.piece_map().items()}
        white = True
        self.say("edit: piece+square (Qa3, xa3 removes), # clears, c switches colour, . ends")
        while True:
            line = self.input.readline()
            if not line:
                self.say("edit: input ended before `.`; the position is unchanged")
                return
            for word in line.split():
                if word == ".":
                    self._finish_edit(pieces)
                    return
                if word == "#":
                    pieces.clear()
                elif word.lower() == "c":
                    white = not white
                elif EDIT_PIECE.match(word):
                    square = chess.parse_square(word[1:3].lower())
                    if word[0] in "xX":
                        pieces.pop(square, None)
                    else:
                        pieces[square] = word[0].upper() if white else word[0].lower()
                else:
                    self.say(f"Error (bad edit entry): {word}")

    def _finish_edit(self, pieces: dict[int, str]) -> None:
        try:
            self.engine.set_pieces(pieces, self.engine.white_to_move)
        except (FenError, ValueError) as error:
            raise _error(f"edit: {error}; the position is unchanged") from None

    def cmd_ls(self, args: list[str]) -> None:
        patterns = args or ["*"]
        names = sorted({name for pattern in patterns for name in glob.glob(pattern)})
        if not names:
            raise _error(f"no files match {' '.join(patterns)}")
        for name in names:
            self.say(name + ("/" if Path(name).is_dir() else ""))


def _has_own_tags(read: ReadGame) -> bool:
    return any(value not in ("?", "????.??.??", "*") for value in read.tags.values())


Entry = tuple[tuple[str, ...], Callable[..., None], str, str]
RECORD_COMMANDS: list[Entry] = [
    (("savegame",), RecordsCommands.cmd_savegame, "savegame FILE", "save the game as PGN with its tags"),
    (("savepos",), RecordsCommands.cmd_savepos, "savepos FILE",
     "save the position as one FEN line (input FILE or setboard FILE read it back)"),
    (("pgn",), RecordsCommands.cmd_pgn, "pgn TAG VALUE",
     "set a PGN tag: Event, Site, Round, Date (yyyy.mm.dd), White, WhiteElo, Black, BlackElo, Result"),
    (("tags",), RecordsCommands.cmd_tags, "tags", "show the PGN tags savegame will write"),
    (("read",), RecordsCommands.cmd_read, "read [FILE]",
     "read a game (PGN; tags kept, comments and variations skipped) from the initial position; "
     "no FILE: type it, ending with an empty line or `end`"),
    (("reada",), RecordsCommands.cmd_reada, "reada [FILE]", "read moves and play them on from the current position"),
    (("reset",), RecordsCommands.cmd_reset, "reset N",
     "back up (or forward again) to move N of the game, the same side on move"),
    (("log",), RecordsCommands.cmd_log, "log on|off | log N [FILE]",
     "on: every game writes log.NNN (console output) and game.NNN (moves so far; `ponderosa c` continues "
     "it); default on at the console, off in XBoard mode (option Log); N: show (or copy to FILE) the last N lines"),
    (("annotate",), RecordsCommands.cmd_annotate, "annotate FILE w|b|wb|NAME MOVES MARGIN TIME [N]",
     "comment the moves (e.g. 1-999, 20-33) where the engine's move is better by MARGIN pawns, TIME s a move;"
     " N: also the N best moves; writes FILE.can (PGN)"),
    (("annotateh",), RecordsCommands.cmd_annotateh, "annotateh FILE w|b|wb|NAME MOVES MARGIN TIME [N]",
     "as annotate, written to FILE.html with a board at every commented position"),
    (("search",), RecordsCommands.cmd_search, "search MOVE", "the next search looks at this move only"),
    (("both",), RecordsCommands.cmd_both, "both", "the engine plays both sides until a line is typed (or force)"),
    (("switch",), RecordsCommands.cmd_switch, "switch", "swap sides with the engine"),
    (("flip", "reverse"), RecordsCommands.cmd_flip, "flip | reverse", "show the board from the other side"),
    (("edit",), RecordsCommands.cmd_edit, "edit",
     "set up pieces: Qa3 (x removes), # clears, c switches colour, . ends; free form"),
    (("flag",), RecordsCommands.cmd_flag, "flag on|off", "XBoard mode: claim a win when the opponent's clock runs out"),
    (("ls",), RecordsCommands.cmd_ls, "ls [PATTERN]", "list the files matching PATTERN (*, ?)"),
    (("trace",), RecordsCommands.cmd_trace, "trace N",
     "print the search tree to depth N: only in a core built with tracing, which this build is not"),
]
