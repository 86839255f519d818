"""Console commands for game records (Crafty's and GNU Chess's): save and read games and
positions, PGN tags, reset, logs, annotate, search, edit, both/switch/flip, flag, ls, trace.
The engine layer (engine/records.py, engine/annotate.py) does the work; this only parses
arguments and prints."""
from __future__ import annotations

import glob
import re
import select
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import chess

from ponderosa.engine.engine import IllegalMoveError
from ponderosa.engine.errors import EngineError
from ponderosa.engine.fen import FenError
from ponderosa.engine.records import (
    first_game_text,
    read_fen_line,
    read_pgn_text,
    resume_players,
    write_atomically,
)
from ponderosa.protocol.console.commands import Command, CommandError, set_option

if TYPE_CHECKING:
    from ponderosa.engine.records import ReadGame
    from ponderosa.protocol.console.session import Console

# A console line that is a FEN (what `savepos` writes): its first word is the board, eight ranks.
FEN_BOARD = re.compile(r"^([1-8pnbrqkPNBRQK]{1,8}/){7}[1-8pnbrqkPNBRQK]{1,8}$")
EDIT_PIECE = re.compile(r"^([pnbrqkx])([a-h][1-8])$", re.IGNORECASE)
NO_TRACE = ("this build has no search trace: the Cython core is compiled without tracing code "
            "(it would slow every node); see README, \"Search trace\"")


# -- saving and reading -----------------------------------------------------

def cmd_savegame(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: savegame FILE")
    try:
        write_atomically(args[0], console.engine.pgn())
    except OSError as error:
        raise CommandError(f"cannot write {args[0]}: {error.strerror or error}") from None
    console.say(f"saved the game ({len(console.engine.position().move_stack)} plies) to {args[0]}")


def cmd_savepos(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: savepos FILE")
    try:
        write_atomically(args[0], console.engine.fen() + "\n")
    except OSError as error:
        raise CommandError(f"cannot write {args[0]}: {error.strerror or error}") from None
    console.say(f"saved the position to {args[0]} (`input {args[0]}` or `setboard` reads it back)")


def setboard_from_file(console: Console, path: str) -> None:
    """`setboard FILE`: the FEN line that savepos wrote."""
    try:
        fen = read_fen_line(path)
        console.engine.set_position(fen)
    except EngineError as error:
        raise CommandError(str(error)) from None
    except FenError as error:
        raise CommandError(f"{path}: {error}") from None


def cmd_pgn(console: Console, args: list[str]) -> None:
    if len(args) < 2:
        raise CommandError("usage: pgn TAG VALUE  (Event, Site, Round, Date, White, WhiteElo, Black, BlackElo, Result)")
    try:
        console.engine.set_tag(args[0], " ".join(args[1:]))
    except EngineError as error:
        raise CommandError(str(error)) from None
    console.engine.save_record()


def cmd_tags(console: Console, args: list[str]) -> None:
    for name, value in console.engine.record_headers(console.record_players()).items():
        console.say(f'[{name} "{value}"]')


def cmd_read(console: Console, args: list[str]) -> None:
    _read(console, args, append=False)


def cmd_reada(console: Console, args: list[str]) -> None:
    _read(console, args, append=True)


def _read_keyboard(console: Console) -> str:
    """Moves typed at the console: up to `end`, or an empty line once moves have come."""
    console.say("type or paste the moves (PGN), then an empty line or `end`:")
    lines: list[str] = []
    while True:
        line = console.input.readline()
        if not line or line.strip().lower() == "end":
            break
        if not line.strip() and any(text.strip() and not text.startswith("[") for text in lines):
            break
        lines.append(line.rstrip("\n"))
    return "\n".join(lines) + "\n"


def _read(console: Console, args: list[str], append: bool) -> None:
    """read resets to the initial position and takes the file's tags; reada plays the moves on
    from the current position. An illegal move ends the game there, saying which."""
    command = "reada" if append else "read"
    if len(args) > 1:
        raise CommandError(f"usage: {command} [FILE]")
    if args:
        source = args[0]
        try:
            text = first_game_text(source)   # the first game alone, read line by line
        except EngineError as error:
            raise CommandError(str(error)) from None
    else:
        source, text = "keyboard", _read_keyboard(console)
    game = console.engine.position()
    try:
        read = read_pgn_text(text, source, start_fen=game.fen() if append else None)
    except EngineError as error:
        raise CommandError(str(error)) from None
    if not read.moves and not append and not _has_own_tags(read):
        raise CommandError(f"{source}: no moves found")
    start, moves = (game.root().fen(), game.move_stack + read.moves) if append else (read.start_fen, read.moves)
    try:
        console.engine.replace_game(start, moves)
    except (FenError, IllegalMoveError) as error:
        raise CommandError(f"{source}: {error}") from None
    tags = {name: value for name, value in read.tags.items() if name not in ("FEN", "SetUp")}
    record = console.engine.record
    if not append:
        record.tags, record.result = {}, "*"
    for name, value in tags.items():
        if value not in ("?", "????.??.??") and not (append and name == "Result" and value == "*"):
            record.tags[name] = value
    record.result = record.tags.get("Result", "*")
    console.engine.save_record()
    console.reset_line = []
    if read.problem:
        console.say(f"Error: {read.problem}")
    console.say(f"read {len(read.moves)} plies from {source}; {_side_to_move_text(console)}")


def _side_to_move_text(console: Console) -> str:
    return f"{'White' if console.engine.white_to_move else 'Black'}({console.engine.move_number}) to move"


def cmd_reset(console: Console, args: list[str]) -> None:
    """reset N: back (or forward, through moves taken back by reset) to move N, same side on move."""
    if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
        raise CommandError("usage: reset N  (a move number of this game)")
    game = console.engine.position()
    played = list(game.move_stack)
    line = console.reset_line if console.reset_line[:len(played)] == played else played
    root = game.root()
    target = (int(args[0]) - root.fullmove_number) * 2 + (game.turn == chess.BLACK) - (root.turn == chess.BLACK)
    if not 0 <= target <= len(line):
        first, last = root.fullmove_number, root.fullmove_number + (len(line) + (root.turn == chess.BLACK)) // 2
        raise CommandError(f"no move {args[0]} with {'White' if game.turn else 'Black'} to move in this game "
                     f"(moves {first} to {last})")
    console.engine.replace_game(root.fen(), line[:target])
    console.reset_line = line
    console.say(_side_to_move_text(console))


# -- logs and resume ----------------------------------------------------------

def cmd_log(console: Console, args: list[str]) -> None:
    """log on|off: log.NNN and game.NNN for every game; log N [FILE]: the log's last N lines."""
    files = console.engine.game_files
    if not args:
        current = f"; current pair {files.name('log', files.number)}" if files.number else ""
        console.say(f"log {'on' if files.enabled else 'off'}{current}")
        return
    word = args[0].lower()
    if len(args) == 1 and word in ("on", "off"):
        files.enabled = word == "on"
        files.explicit = True
        if files.enabled:
            console.engine.save_record()
        return
    if not word.isdigit() or len(args) > 2:
        raise CommandError("usage: log on|off | log N [FILE]")
    try:
        lines = files.tail(int(word))
    except (EngineError, OSError) as error:
        raise CommandError(str(error)) from None
    if len(args) == 2:
        try:
            write_atomically(args[1], "".join(line + "\n" for line in lines))
        except OSError as error:
            raise CommandError(f"cannot write {args[1]}: {error.strerror or error}") from None
        console.say(f"copied {len(lines)} log lines to {args[1]}")
        return
    for line in lines:
        console.say(line)


def resume_last_game(console: Console) -> None:
    """`ponderosa c`: continue the game of the newest game.NNN (and write on into that pair)."""
    files = console.engine.game_files
    try:
        number, path = files.newest_game()
        text = first_game_text(path)
        read = read_pgn_text(text, str(path))
    except (EngineError, OSError) as error:
        raise CommandError(f"cannot continue: {error}") from None
    files.continue_pair(number)
    console.engine.replace_game(read.start_fen, read.moves)
    console.engine.restore_record(read.tags, read.tags.get("Result", "*"))
    players = resume_players(read.tags)
    console.engine_side, console.plays_both = players.engine_side, players.both
    if read.problem:
        console.say(f"Error: {read.problem}")
    console.say(f"continuing the game of {path.name}: {len(read.moves)} plies; {_side_to_move_text(console)}")
    if console.plays_both:
        cmd_both(console, [])
    else:
        console.reply_if_engine_to_move()


# -- playing ------------------------------------------------------------------

def cmd_both(console: Console, args: list[str]) -> None:
    """The engine plays both sides until a line is typed (or the game ends)."""
    console.plays_both = True
    pending = ""
    try:
        while console.engine.outcome() is None and console.engine.legal_moves():
            console.engine_side = console.engine.white_to_move
            console.engine.end_search()   # the ponder search on the move just played
            console.think_and_play()
            if not console.plays_both or console.engine_side is None:
                break
            pending = _typed_line(console)
            if pending:
                break
    finally:
        console.plays_both = False
        console.engine_side = None   # as after `force`: the user decides what comes next
    if pending.strip() and pending.split()[0].lower() != "force":
        console.execute(pending)


def _typed_line(console: Console) -> str:
    """A line waiting on the console input, without blocking ("" when nothing was typed)."""
    try:
        ready, _, _ = select.select([console.input], [], [], 0)
    except (ValueError, OSError, TypeError):
        return ""   # not a real file (tests, a StringIO): nothing to interrupt with
    # At the end of the input (a pipe run dry, /dev/null) select() is always ready and
    # readline() gives "": nobody can type any more, so that is no interruption either.
    return console.input.readline() if ready else ""


def cmd_switch(console: Console, args: list[str]) -> None:
    """GNU Chess's switch: the engine takes the other side (the side to move if it played none)."""
    console.engine_side = console.engine.white_to_move if console.engine_side is None else not console.engine_side
    console.engine.end_search()   # a ponder search must not run beside the engine's own
    console.engine.save_record()
    console.reply_if_engine_to_move()


def cmd_flip(console: Console, args: list[str]) -> None:
    console.flipped = not console.flipped
    console.say(f"board shown from {'Black' if console.flipped else 'White'}'s side")


def cmd_search(console: Console, args: list[str]) -> None:
    """search MOVE: the next search looks at this root move only (why is it bad?)."""
    if len(args) != 1:
        raise CommandError("usage: search MOVE")
    try:
        console.search_move = console.engine.parse_move(args[0])
    except IllegalMoveError:
        console.say(f"Illegal move: {args[0]}")
        return
    console.say(f"the next search looks at {console.engine.san(console.search_move)} only")


def cmd_flag(console: Console, args: list[str]) -> None:
    if len(args) != 1 or args[0].lower() not in ("on", "off"):
        raise CommandError("usage: flag on|off")
    set_option(console, "flag", args[0].lower() == "on")


# -- analysis -----------------------------------------------------------------

def cmd_annotate(console: Console, args: list[str]) -> None:
    _annotate(console, args, html_output=False)


def cmd_annotateh(console: Console, args: list[str]) -> None:
    _annotate(console, args, html_output=True)


def _annotate(console: Console, args: list[str], html_output: bool) -> None:
    from ponderosa.engine.annotate import parse_request  # only when used
    try:
        request = parse_request(args, html_output)
    except EngineError as error:
        raise CommandError(str(error)) from None
    progress = _annotate_progress(console)
    try:
        report = console.engine.annotate(request, progress)   # a ponder search ends first: they share the table
    except EngineError as error:
        raise CommandError(str(error)) from None
    finally:
        if console.out.isatty():
            console.say()
    for problem in report.problems:
        console.say(f"Error: {problem}")
    console.say(f"annotated {report.moves} moves of {len(report.games)} game(s) in {report.seconds:.1f}s: "
                f"{report.comments} comments, written to {report.output}")


def _annotate_progress(console: Console) -> Callable[[int, int, float], None]:
    """A bar of moves done and the time left; redrawn in place on a terminal, every tenth otherwise."""
    interactive = console.out.isatty()

    def show(done: int, total: int, elapsed: float) -> None:
        if not interactive and done != total and done % max(1, total // 10):
            return
        left = elapsed / done * (total - done) if done else 0.0
        bar = "#" * (done * 30 // max(1, total))
        text = f"[{bar:<30}] {done}/{total} moves  {int(left) // 60}:{int(left) % 60:02d} left"
        if interactive:
            console.out.write("\r" + text)
            console.out.flush()
        else:
            console.say(text)
    return show


def cmd_trace(console: Console, args: list[str]) -> None:
    if len(args) != 1 or not args[0].isdigit():
        raise CommandError("usage: trace N")
    raise CommandError(NO_TRACE)


# -- position editing and files -------------------------------------------------

def cmd_edit(console: Console, args: list[str]) -> None:
    """Crafty's edit: `#` clears, `c` switches colour, `.` ends; pieces as qa3 (x removes)."""
    pieces = {square: piece.symbol() for square, piece in console.engine.position(stack=False).piece_map().items()}
    white = True
    console.say("edit: piece+square (Qa3, xa3 removes), # clears, c switches colour, . ends")
    while True:
        line = console.input.readline()
        if not line:
            console.say("edit: input ended before `.`; the position is unchanged")
            return
        for word in line.split():
            if word == ".":
                _finish_edit(console, pieces)
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
                console.say(f"Error (bad edit entry): {word}")


def _finish_edit(console: Console, pieces: dict[int, str]) -> None:
    try:
        console.engine.set_pieces(pieces, console.engine.white_to_move)
    except (FenError, ValueError) as error:
        raise CommandError(f"edit: {error}; the position is unchanged") from None


def cmd_ls(console: Console, args: list[str]) -> None:
    patterns = args or ["*"]
    names = sorted({name for pattern in patterns for name in glob.glob(pattern)})
    if not names:
        raise CommandError(f"no files match {' '.join(patterns)}")
    for name in names:
        console.say(name + ("/" if Path(name).is_dir() else ""))


def _has_own_tags(read: ReadGame) -> bool:
    return any(value not in ("?", "????.??.??", "*") for value in read.tags.values())


RECORD_COMMANDS = [
    Command(("savegame",), cmd_savegame, "savegame FILE", "save the game as PGN with its tags"),
    Command(("savepos",), cmd_savepos, "savepos FILE",
            "save the position as one FEN line (input FILE or setboard FILE read it back)"),
    Command(("pgn",), cmd_pgn, "pgn TAG VALUE",
            "set a PGN tag: Event, Site, Round, Date (yyyy.mm.dd), White, WhiteElo, Black, BlackElo, Result"),
    Command(("tags",), cmd_tags, "tags", "show the PGN tags savegame will write"),
    Command(("read",), cmd_read, "read [FILE]",
            "read a game (PGN; tags kept, comments and variations skipped) from the initial position; "
            "no FILE: type it, ending with an empty line or `end`"),
    Command(("reada",), cmd_reada, "reada [FILE]", "read moves and play them on from the current position"),
    Command(("reset",), cmd_reset, "reset N",
            "back up (or forward again) to move N of the game, the same side on move"),
    Command(("log",), cmd_log, "log on|off | log N [FILE]",
            "on: every game writes log.NNN (console output) and game.NNN (moves so far; `ponderosa c` continues "
            "it); default on at the console, off in XBoard mode (option Log); N: show (or copy to FILE) the last "
            "N lines"),
    Command(("annotate",), cmd_annotate, "annotate FILE w|b|wb|NAME MOVES MARGIN TIME [N]",
            "comment the moves (e.g. 1-999, 20-33) where the engine's move is better by MARGIN pawns, "
            "TIME s a move; N: also the N best moves; writes FILE.can (PGN)"),
    Command(("annotateh",), cmd_annotateh, "annotateh FILE w|b|wb|NAME MOVES MARGIN TIME [N]",
            "as annotate, written to FILE.html with a board at every commented position"),
    Command(("search",), cmd_search, "search MOVE", "the next search looks at this move only"),
    Command(("both",), cmd_both, "both", "the engine plays both sides until a line is typed (or force)"),
    Command(("switch",), cmd_switch, "switch", "swap sides with the engine"),
    Command(("flip", "reverse"), cmd_flip, "flip | reverse", "show the board from the other side"),
    Command(("edit",), cmd_edit, "edit",
            "set up pieces: Qa3 (x removes), # clears, c switches colour, . ends; free form"),
    Command(("flag",), cmd_flag, "flag on|off",
            "XBoard mode: claim a win when the opponent's clock runs out"),
    Command(("ls",), cmd_ls, "ls [PATTERN]", "list the files matching PATTERN (*, ?)"),
    Command(("trace",), cmd_trace, "trace N",
            "print the search tree to depth N: only in a core built with tracing, which this build is not"),
]
