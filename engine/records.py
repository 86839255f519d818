"""Game records: PGN tags, saving and reading games and positions through python-chess, and the
numbered `log.NNN` / `game.NNN` files that let an interrupted game be continued."""
from __future__ import annotations

import datetime
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TextIO, cast

import chess

from ponderosa.engine.errors import EngineError
from ponderosa.engine.input_files import InputFileError, open_lines, read_text
from ponderosa.engine.write_errors import WriteErrors, append_whole

if TYPE_CHECKING:   # chess.pgn (and asyncio under it) loads when a game is first written or read
    import chess.pgn

ENGINE_PLAYER = "Ponderosa"
# The tags `pgn` sets (Crafty's list; case sensitive, as PGN tags are).
SETTABLE_TAGS = ("Event", "Site", "Round", "Date", "White", "WhiteElo", "Black", "BlackElo", "Result")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
DATE_PATTERN = re.compile(r"^(\d{4}|\?{4})\.(\d{2}|\?{2})\.(\d{2}|\?{2})$")
SESSION_TAGS = ("Event", "Site")   # kept by `new`: they describe the session, not one game
NUMBERED_FILE = re.compile(r"^(log|game)\.(\d{3,})$")


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()   # read once at import: os.umask is process-wide, not thread-safe


class RecordError(EngineError):
    """A tag, file or game that cannot be used; the message is one line for the user."""


def write_atomically(path: str | Path, text: str | bytes) -> None:
    """Write text (or bytes) to path through a temporary file in the same folder and os.replace,
    so a reader (or a crash) never sees half a file."""
    import tempfile  # loads only when a file is written (start-up time)
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    try:
        os.chmod(temporary, 0o666 & ~_UMASK)   # as open() would create it, not mkstemp's 0600
        # no fsync: this guards against a killed process, and costs no disk wait per move
        if isinstance(text, bytes):
            with os.fdopen(handle, "wb") as binary:
                binary.write(text)
        else:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_tag(name: str, value: str) -> None:
    """Raise RecordError unless `pgn NAME VALUE` is allowed: a known tag, a yyyy.mm.dd date,
    a PGN result, a number for an Elo."""
    if name not in SETTABLE_TAGS:
        raise RecordError(f"unknown tag {name!r}: one of {', '.join(SETTABLE_TAGS)} (case sensitive)")
    if name == "Date":
        match = DATE_PATTERN.match(value)
        valid = match is not None
        if match and "?" not in value:
            try:
                datetime.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            except ValueError:
                valid = False
        if not valid:
            raise RecordError(f"bad date {value!r}: PGN dates are yyyy.mm.dd (?? for unknown parts)")
    if name == "Result" and value not in RESULTS:
        raise RecordError(f"bad result {value!r}: one of {', '.join(RESULTS)}")
    if name.endswith("Elo") and not (value.isdigit() or value in ("", "-", "?")):
        raise RecordError(f"bad {name} {value!r}: a rating is a whole number")


@dataclass
class Players:
    """Who plays the game, for the default White and Black tags and the resumed engine side."""

    engine_side: bool | None = chess.BLACK   # None: the engine plays neither side (force)
    both: bool = False                       # the engine plays both sides
    opponent: str = ""                       # XBoard's `name`, or the console user
    time_control: str = "?"                  # PGN TimeControl tag


def default_player() -> str:
    """The person at the console: the login name, or `?` when there is none."""
    import getpass
    try:
        return getpass.getuser() or "?"
    except (OSError, KeyError):
        return "?"


@dataclass
class GameRecord:
    """The tags of the current game (set by `pgn` or read from a file) and the result; the moves
    themselves are the engine's game board."""

    tags: dict[str, str] = field(default_factory=dict)
    result: str = "*"
    claim_flag: bool = False   # `flag on`: claim the win when the opponent's clock runs out (XBoard)

    def set_tag(self, name: str, value: str) -> None:
        check_tag(name, value)
        self.tags[name] = value
        if name == "Result":
            self.result = value

    def new_game(self) -> None:
        self.tags = {name: value for name, value in self.tags.items() if name in SESSION_TAGS}
        self.result = "*"

    def headers(self, players: Players, board: chess.Board) -> dict[str, str]:
        """All tags: what was set or read, else sensible defaults (today, the players, the result)."""
        opponent = players.opponent or default_player()
        if players.both:
            white = black = ENGINE_PLAYER
        elif players.engine_side is None:
            white = black = opponent
        else:
            white, black = ((ENGINE_PLAYER, opponent) if players.engine_side == chess.WHITE
                            else (opponent, ENGINE_PLAYER))
        result = self.result
        outcome = board.outcome(claim_draw=False)
        if result == "*" and outcome is not None:
            result = outcome.result()
        defaults = {"Event": "Ponderosa game", "Site": "?", "Date": datetime.date.today().strftime("%Y.%m.%d"),
                    "Round": "-", "White": white, "Black": black, "Result": result,
                    "TimeControl": players.time_control}
        # FEN and SetUp come from the board itself (Game.from_board), never from stale tags.
        merged = {**defaults, **{k: v for k, v in self.tags.items() if k not in ("FEN", "SetUp")}}
        if self.result != "*":
            merged["Result"] = self.result
        return merged


def game_pgn(board: chess.Board, headers: dict[str, str]) -> str:
    """The game on board (from its root, with a FEN tag when it did not start from the
    initial position) as PGN text."""
    import chess.pgn
    game = chess.pgn.Game.from_board(board)
    for name, value in headers.items():
        game.headers[name] = value
    game.headers["Result"] = headers.get("Result", "*")
    return game.accept(chess.pgn.StringExporter(headers=True, variations=True, comments=True)) + "\n"


def _quiet_builder() -> type[chess.pgn.GameBuilder]:
    """python-chess's game builder without its log line: errors are reported to the user here."""
    import chess.pgn

    class QuietGameBuilder(chess.pgn.GameBuilder):
        def handle_error(self, error: Exception) -> None:
            self.game.errors.append(error)
    return QuietGameBuilder


@dataclass
class ReadGame:
    """One game read from PGN: its tags, start position and moves, and what could not be read."""

    number: int                 # 1 for the first game of the file
    tags: dict[str, str]
    start_fen: str
    moves: list[chess.Move]
    problem: str | None = None  # e.g. "game 1, move 12 (Black): illegal move Qxh7; ..."
    game: chess.pgn.Game | None = None

    def board(self) -> chess.Board:
        board = chess.Board(self.start_fen)
        for move in self.moves:
            board.push(move)
        return board


def _describe_problem(game: chess.pgn.Game, number: int, source: str) -> str | None:
    if not game.errors:
        return None
    board = game.end().board()
    error = game.errors[0]
    text = str(error)
    san = re.search(r"san: '([^']*)'", text)
    side = "White" if board.turn == chess.WHITE else "Black"
    what = f"illegal move {san.group(1)}" if san else text.split(" in ")[0]
    plies = len(board.move_stack)
    return (f"{source}: game {number}, move {board.fullmove_number} ({side}): {what}; "
            f"kept the {plies} move{'s' if plies != 1 else ''} before it")


def read_games(stream: TextIO, source: str, limit: int | None = None) -> Iterator[ReadGame]:
    """The games of a PGN stream (comments and variations are skipped by taking the main line);
    a game with an illegal move keeps the moves before it and says which move it was."""
    import chess.pgn
    builder = _quiet_builder()
    number = 0
    start_game = getattr(stream, "start_game", None)   # BoundedLines: each game's size is bounded
    while limit is None or number < limit:
        try:
            if start_game is not None:
                start_game()
            game = chess.pgn.read_game(stream, Visitor=builder)
        except InputFileError as error:
            raise RecordError(str(error)) from None
        except (ValueError, UnicodeDecodeError) as error:
            raise RecordError(f"{source}: cannot read game {number + 1}: {error}") from None
        if game is None:
            return
        number += 1
        start = game.board()
        yield ReadGame(number, dict(game.headers), start.fen(), list(game.mainline_moves()),
                       _describe_problem(game, number, source), game)


def pgn_file_games(path: str | Path, limit: int | None = None) -> Iterator[ReadGame]:
    """The games of a PGN file, read one at a time (never the whole file at once); RecordError
    names the file when it cannot be read, holds no game, or is not PGN."""
    try:
        stream = open_lines(path, "a PGN file")
    except InputFileError as error:
        raise RecordError(str(error)) from None
    found = False
    try:
        for game in read_games(cast(TextIO, stream), str(path), limit):   # read_game needs only readline
            found = True
            yield game
    except OSError as error:
        raise RecordError(f"{path}: cannot be read: {error.strerror or error}") from None
    finally:
        stream.close()
    if not found:
        raise RecordError(f"{path}: no game found")


def read_pgn_file(path: str | Path, limit: int | None = None) -> list[ReadGame]:
    """The games of a PGN file (a few: pgn_file_games streams many); RecordError names the file
    when it cannot be read."""
    return list(pgn_file_games(path, limit))


def first_game_text(path: str | Path) -> str:
    """The text of the first game of a PGN file (its tags and moves), read line by line up to the
    next game's tags: `read FILE` and `reada FILE` take one game from files of any size."""
    try:
        stream = open_lines(path, "a PGN file")
    except InputFileError as error:
        raise RecordError(str(error)) from None
    lines: list[str] = []
    in_moves = False
    try:
        with stream:
            for line in stream:
                stripped = line.strip()
                if stripped.startswith("[") and in_moves:
                    break   # the second game's tags
                if stripped and not stripped.startswith("[") and not stripped.startswith("%"):
                    in_moves = True
                lines.append(line)
    except InputFileError as error:
        raise RecordError(str(error)) from None
    except OSError as error:
        raise RecordError(f"{path}: cannot be read: {error.strerror or error}") from None
    return "".join(lines)


def read_pgn_text(text: str, source: str, start_fen: str | None = None) -> ReadGame:
    """The first game of PGN text typed at the keyboard; with start_fen the moves continue from
    that position (reada) and only the tags of the text are kept."""
    if start_fen is not None:
        lines = text.splitlines()
        tags = [line for line in lines if line.startswith("[")]
        moves = [line for line in lines if not line.startswith("[")]
        text = f'[FEN "{start_fen}"]\n[SetUp "1"]\n\n' + "\n".join(moves) + "\n"
        tag_text = "\n".join(tags) + "\n\n" if tags else ""
    import chess.pgn
    games = list(read_games(io.StringIO(text), source, limit=1))
    if not games:
        raise RecordError(f"{source}: no moves found")
    game = games[0]
    if start_fen is not None:
        own = chess.pgn.read_headers(io.StringIO(tag_text)) if tag_text else None
        game.tags = {name: value for name, value in (own or {}).items()}
    return game


def read_fen_line(path: str | Path) -> str:
    """The FEN that `savepos` wrote (the first non-empty line of the file)."""
    try:
        lines = read_text(path, "a position file").splitlines()
    except InputFileError as error:
        raise RecordError(str(error)) from None
    for line in lines:
        if line.strip():
            return line.strip()
    raise RecordError(f"{path}: empty file, no position")


class GameFiles:
    """Crafty's log.NNN (what the console shows) and game.NNN (the moves so far, rewritten after
    every move) in a folder, numbered in sequence; a pair is opened when first written to."""

    def __init__(self, folder: Path | None = None, errors: WriteErrors | None = None) -> None:
        self.chosen_folder = folder      # None: the working directory at the time of writing
        self.errors = errors or WriteErrors()   # a full disk: reported once, the game goes on
        self.enabled = False
        self.explicit = False            # set by `log on|off`: XBoard mode keeps the user's choice
        self.number: int | None = None   # the open pair's number
        self._log: int | None = None   # the open log.NNN's descriptor

    @property
    def folder(self) -> Path:
        return self.chosen_folder or Path.cwd()

    @staticmethod
    def numbers(folder: Path) -> list[int]:
        found = []
        for path in folder.iterdir() if folder.is_dir() else []:
            match = NUMBERED_FILE.match(path.name)
            if match:
                found.append(int(match.group(2)))
        return sorted(set(found))

    @staticmethod
    def name(kind: str, number: int) -> str:
        return f"{kind}.{number:03d}"

    def _open(self) -> int:
        if self.number is None:
            existing = self.numbers(self.folder)
            self.number = (existing[-1] + 1) if existing else 1
        return self.number

    @property
    def log_path(self) -> Path | None:
        return None if self.number is None else self.folder / self.name("log", self.number)

    @property
    def game_path(self) -> Path | None:
        return None if self.number is None else self.folder / self.name("game", self.number)

    def continue_pair(self, number: int) -> None:
        """Write on into an existing pair (a resumed game); what the console wrote before (a
        banner, a start-up file's output) moves from its fresh log into the continued one."""
        earlier = ""
        fresh = self.log_path
        if fresh is not None and self._log is not None and self.game_path is not None \
                and not self.game_path.exists() and self.number != number:
            os.close(self._log)
            self._log = None
            earlier = fresh.read_text(encoding="utf-8", errors="replace")
            fresh.unlink()
        self.close()
        self.number = number
        self.write_log(earlier)

    def write_log(self, text: str) -> None:
        """Append console output to log.NNN; flushed at once so nothing is lost to a kill. A
        write that fails (a full disk) is reported once and dropped; the log keeps what it had."""
        if not self.enabled or not text:
            return
        with self.errors.guard(f"log.NNN in {self.folder}"):
            if self._log is None:
                self._open()
                assert self.log_path is not None
                self._log = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            append_whole(self._log, text.encode("utf-8"))   # unbuffered: nothing is lost to a kill

    def write_game(self, pgn: str) -> None:
        """Rewrite game.NNN with the game so far; when that fails (a full disk) the file keeps the
        game as it last wrote it, and the failure is reported once."""
        if not self.enabled:
            return
        self._open()
        assert self.game_path is not None
        with self.errors.guard(f"game.NNN in {self.folder}"):
            write_atomically(self.game_path, pgn)

    def close(self) -> None:
        """End the pair (`new`): the next write opens the next number."""
        if self._log is not None:
            os.close(self._log)
            self._log = None
        self.number = None

    def tail(self, count: int) -> list[str]:
        """The last count lines of the current log (or of the newest one)."""
        path = self.log_path
        if path is None or not path.exists():
            numbers = [n for n in self.numbers(self.folder) if (self.folder / self.name("log", n)).exists()]
            if not numbers:
                raise RecordError("no log file yet (logging is `log on`; the log starts with the first output)")
            path = self.folder / self.name("log", numbers[-1])
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        return lines[-count:] if count > 0 else []

    def newest_game(self) -> tuple[int, Path]:
        """The newest game.NNN (for `ponderosa c`); RecordError when there is none."""
        numbers = [n for n in self.numbers(self.folder) if (self.folder / self.name("game", n)).is_file()]
        if not numbers:
            raise RecordError(f"no game.NNN file in {self.folder} to continue")
        return numbers[-1], self.folder / self.name("game", numbers[-1])


class LogTee:
    """A text stream that also copies what is written to the current log.NNN: the console and
    the XBoard session write through it, so the log shows what the user saw."""

    def __init__(self, stream: TextIO, files: Callable[[], GameFiles]) -> None:
        self.stream = stream
        self._files = files

    def write(self, text: str) -> int:
        written = self.stream.write(text)
        self._files().write_log(text)   # a full disk is reported there, once; the output still goes out
        return written

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def resume_players(tags: dict[str, str]) -> Players:
    """Which side the engine played in a game.NNN file, from its White and Black tags."""
    white, black = tags.get("White") == ENGINE_PLAYER, tags.get("Black") == ENGINE_PLAYER
    if white and black:
        return Players(engine_side=None, both=True)
    if white or black:
        opponent = tags.get("Black" if white else "White", "")
        return Players(engine_side=chess.WHITE if white else chess.BLACK, opponent=opponent)
    return Players(engine_side=None)
