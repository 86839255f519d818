"""Learning from the games the engine plays: it follows a game, and at the right moments turns
what it saw into learned data (engine/learning/rules.py's rules) and writes it to the learned store
and to the portable `.lrn` files.

- Book learning and position learning happen once the engine has made its first ten searches
  out of book (or at the end of the game if it ends sooner).
- Result learning, Terra's dynamic values and the PostBook happen when the game's result is known.

Everything is computed from the game's moves, the engine's colour, its search samples and the
result, so importing a `.lrn` file replays exactly what the original engine learned."""
from __future__ import annotations

import io
import logging
import os
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import chess

from ponderosa.core_ext.core import Board
from ponderosa.engine.book.opening_book import OpeningBook
from ponderosa.engine.book.select import FLAG_BAD
from ponderosa.engine.errors import EngineError
from ponderosa.engine.input_files import MAX_LEARNED_BYTES, InputFileError, open_lines
from ponderosa.engine.learning.rules import (
    LEARN_BOOK,
    LEARN_DEFAULT,
    LEARN_POSITION,
    LEARN_RESULT,
    SEARCHES_REMEMBERED,
    BookStep,
    SearchSample,
    back_propagate,
    book_learned_value,
    first_approximation,
    is_playable,
    position_learning_candidates,
    postbook_worth_adding,
    result_learning_step,
)
from ponderosa.engine.learning.store import GameLearning, LearnedStore, PositionEntry
from ponderosa.engine.write_errors import WriteErrors, append_whole

if TYPE_CHECKING:   # chess.pgn (and asyncio under it) loads only when a .lrn file is written or read
    import chess.pgn

log = logging.getLogger("ponderosa.learn")

BOOK_LRN = "book.lrn"
POSITION_LRN = "position.lrn"
POSTBOOK_MOVES = 3            # the engine's first moves out of book that the PostBook keeps
TT_BOUND_EXACT = 3            # the transposition table's bound code for an exact score
SAMPLE_COMMENT = re.compile(r"(?:^|\s)(-?\d+)/(\d+)(?=\s|$)")   # a move's comment: the engine's search there
BOOK_COMMENT = re.compile(r"(?:^|\s)book (\d+)(?=\s|$)")        # the engine's book move: playable moves then
POSITION_GAME = re.compile(r'; c1 "([^"]*)";')   # the game id field of a position.lrn line


class LearnFileError(EngineError):
    """A .lrn file that cannot be read; the message names the file and the line."""


@dataclass
class GameRecord:
    """What one game offers to learn from."""

    game_id: str
    start_fen: str
    moves: list[str]                                  # UCI, from start_fen
    engine_white: bool
    samples: dict[int, SearchSample] = field(default_factory=dict)   # ply -> the engine's search there
    # ply -> the playable book moves when the engine chose its book move there: what result
    # learning's "last choice" and back-propagation's shares go by, as they were at the choice,
    # not after the game's own learning has changed them.
    book_choices: dict[int, int] = field(default_factory=dict)
    rating_difference: int = 0                        # engine's rating - opponent's
    result: str | None = None                         # "1-0", "0-1", "1/2-1/2"
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def engine_points(self) -> float | None:
        if self.result == "1/2-1/2":
            return 0.5
        if self.result in ("1-0", "0-1"):
            return 1.0 if (self.result == "1-0") == self.engine_white else 0.0
        return None


class Learner:
    """Follows the current game and learns from it (the `learn N` bitmask says what)."""

    def __init__(self, store: LearnedStore, book: OpeningBook, folder: Path | None = None,
                 errors: WriteErrors | None = None) -> None:
        self.store = store
        self.errors = errors or WriteErrors()   # a .lrn file that cannot be appended to: told once
        self.book = book
        self.folder = folder          # where book.lrn / position.lrn are appended; None: working directory
        self.mask = LEARN_DEFAULT
        self.aging = False
        self.rating_difference = 0
        self.opponent = "?"
        self.record: GameRecord | None = None
        self.import_skipped: list[str] = []   # what the last import skipped (a torn last record)
        self._book_learned = False
        self._result_learned = False
        self.start_game(chess.STARTING_FEN)

    # -- following the game ----------------------------------------------------

    def start_game(self, start_fen: str) -> None:
        self.record = GameRecord(uuid.uuid4().hex, start_fen, [], True)
        self._engine_colours: set[bool] = set()
        self._book_learned = False
        self._result_learned = False

    def engine_moved(self, moves_before: Sequence[str], move: str, white: bool, searched: SearchSample | None,
                     book_playable: int | None = None) -> None:
        """The engine played move (after moves_before); searched is its search, None for a book move;
        book_playable, for a move chosen from the book, how many of the book moves there were
        playable when it was chosen."""
        record = self.record
        assert record is not None
        self._engine_colours.add(white)
        record.engine_white = white
        if searched is not None and len(record.samples) < SEARCHES_REMEMBERED:
            record.samples[len(moves_before)] = searched
        if book_playable is not None:
            record.book_choices[len(moves_before)] = book_playable
        record.moves = [*moves_before, move]
        if len(record.samples) >= SEARCHES_REMEMBERED and not self._book_learned:
            self._learn_book()

    def game_over(self, moves: Sequence[str], result: str) -> None:
        """The game ended with result ("1-0", "0-1", "1/2-1/2"); learn what is left to learn."""
        record = self.record
        if record is None or self._result_learned or len(self._engine_colours) != 1:
            return   # the engine played no side, or both (analysis, force-mode study)
        record.moves = list(moves)
        record.result = result
        if not self._book_learned:
            self._learn_book()
        self._learn_result()

    def _stamp(self) -> None:
        record = self.record
        assert record is not None
        record.rating_difference = self.rating_difference
        record.tags = {"Date": datetime.now(timezone.utc).strftime("%Y.%m.%d"),
                       "White": "Ponderosa" if record.engine_white else self.opponent,
                       "Black": self.opponent if record.engine_white else "Ponderosa"}

    def _learn_book(self) -> None:
        self._book_learned = True
        if not self.mask & (LEARN_BOOK | LEARN_POSITION) or self.record is None:
            return
        self._stamp()
        learning = self.book_learning(self.record, self.mask)
        if learning is not None and self.store.record_game(learning):
            self._append_book_lrn(self.record, "book")
            self._append_positions(self.record, learning.positions)
            log.info("learned from game %s: %s", self.record.game_id, learning.summary)

    def _learn_result(self) -> None:
        self._result_learned = True
        if self.record is None or not self.mask:   # learn 0 (Learn=0): nothing is learned or written
            return
        self._stamp()
        learning = self.result_learning(self.record, self.mask)
        if learning is not None and self.store.record_game(learning):
            self._append_book_lrn(self.record, "result")
            log.info("learned from the result of game %s: %s", self.record.game_id, learning.summary)

    # -- what a game teaches (also used by import) ----------------------------------

    def book_line(self, record: GameRecord) -> tuple[list[BookStep], int]:
        """The game's book moves from the start (both sides, and the PostBook's moves), with the
        playable moves at each; returns (line, ply where the game left the book). Where the engine
        chose a book move, the count is the one noted when it chose (record.book_choices); elsewhere
        (the opponent's moves, records of files that do not carry the counts) it is counted now."""
        board = Board(record.start_fen)
        line: list[BookStep] = []
        if not self.book.enabled:
            return line, 0   # the engine played no book moves
        threshold = self.book.settings.learn_threshold
        for ply, move in enumerate(record.moves):
            candidates = self.book.candidates(board, evaluate=False)
            known = {candidate.move: candidate for candidate in candidates}
            if move in known:
                chosen = record.book_choices.get(ply)
                playable = chosen if chosen is not None else sum(
                    1 for candidate in candidates
                    if is_playable(candidate.learn, bool(candidate.flags & FLAG_BAD) or candidate.user_value == 0,
                                   threshold))
            else:
                postbook = [entry.move for entry in self.store.postbook_moves(board.key)]
                if move not in postbook:
                    break
                playable = len(postbook)
            line.append(BookStep(board.key, move, board.white_to_move, max(1, playable)))
            board.push_uci(move)
        return line, len(line)

    def _out_of_book_samples(self, record: GameRecord, left_book: int) -> list[tuple[int, int, SearchSample]]:
        """(ply, key, sample) of the engine's first searches after the book line."""
        board = Board(record.start_fen)
        samples: list[tuple[int, int, SearchSample]] = []
        for ply, move in enumerate(record.moves):
            if ply >= left_book and ply in record.samples and len(samples) < SEARCHES_REMEMBERED:
                samples.append((ply, board.key, record.samples[ply]))
            board.push_uci(move)
        return samples

    def book_learning(self, record: GameRecord, mask: int) -> GameLearning | None:
        line, left_book = self.book_line(record)
        samples = self._out_of_book_samples(record, left_book)
        if not samples:
            return None
        learning = GameLearning(f"{record.game_id}:book")
        value = book_learned_value([sample for _, _, sample in samples], record.engine_white,
                                   record.rating_difference)
        if mask & LEARN_BOOK and line:
            learning.book = back_propagate(line, value)
        if mask & LEARN_POSITION:
            sign = 1 if record.engine_white else -1
            for index in position_learning_candidates([(key, sample) for _, key, sample in samples],
                                                      engine_is_white=record.engine_white):
                _, key, sample = samples[index]
                learning.positions.append(PositionEntry(key, sign * sample.score_for_white, sample.depth,
                                                        TT_BOUND_EXACT))
        learning.summary = (f"book line {len(line)} plies, learned value {value} (White's view), "
                            f"{len(learning.book)} book updates, {len(learning.positions)} positions")
        return learning

    def result_learning(self, record: GameRecord, mask: int) -> GameLearning | None:
        points = record.engine_points
        if points is None:
            return None
        line, left_book = self.book_line(record)
        learning = GameLearning(f"{record.game_id}:result")
        if mask & LEARN_RESULT and points == 0.0:
            step = result_learning_step(line, record.engine_white)
            if step is not None:
                learning.never.append((step.key, step.move))
        own_steps = [step for step in line if step.white_to_move == record.engine_white]
        for step in own_steps:
            user_values = self.store.user_values(step.key)
            if step.move not in user_values:   # Terra: with a user-set value, own results are not kept
                learning.own_results.append((step.key, step.move, points))
        samples = self._out_of_book_samples(record, left_book)
        # The PostBook extends the book where a game left it (Terra): a game that was never in
        # the book (a set-up position, an opening the book lacks) has no book line to extend.
        if samples and line and mask & LEARN_BOOK:
            value = book_learned_value([sample for _, _, sample in samples], record.engine_white,
                                       record.rating_difference)
            sign = 1 if record.engine_white else -1
            if postbook_worth_adding([sample for _, _, sample in samples], sign * value, points == 0.0,
                                     engine_is_white=record.engine_white):
                for ply, key, sample in samples[:POSTBOOK_MOVES]:
                    learning.postbook.append((key, record.moves[ply], sign * sample.score_for_white, points))
        learning.summary = (f"result {record.result}: {len(learning.never)} moves never to play again, "
                            f"{len(learning.own_results)} own results, {len(learning.postbook)} PostBook moves")
        return learning

    # -- the portable files ------------------------------------------------------

    def import_file(self, path: str | Path, clear: bool = False) -> int:
        """Crafty's import: learn from a book.lrn (PGN) or position.lrn (EPD) file as if its games
        had been played; with clear, forget what was learned first. The file is read whole before
        anything changes, so a broken file changes nothing. Returns the records learned (a game
        already learned, by its id, is not learned twice)."""
        path = Path(path)
        try:   # the input door: a regular file of bounded size, text with bounded lines
            with open_lines(path, "learned data (.lrn)", MAX_LEARNED_BYTES) as handle:
                first = next((line for line in handle if line.strip()), "")
        except InputFileError as error:
            raise LearnFileError(str(error)) from None
        positions: list[tuple[str, PositionEntry]] = []
        records: list[tuple[GameRecord, str]] = []
        if first.startswith("["):
            records, self.import_skipped = read_book_lrn(path)
        else:
            positions, self.import_skipped = read_position_lrn(path)
        if clear:
            self.store.clear()
        own_file = path.resolve() in (self._lrn_path(BOOK_LRN).resolve(), self._lrn_path(POSITION_LRN).resolve())
        learned = 0
        for record, kind in records:
            learning = (self.book_learning(record, self.mask & LEARN_BOOK) if kind == "book"
                        else self.result_learning(record, self.mask))
            if learning is None:
                continue
            learning.game_id = f"{record.game_id}:{kind}"
            if self.store.record_game(learning):
                learned += 1
                if not own_file:
                    self._append_book_lrn(record, kind)
        by_game: dict[str, list[PositionEntry]] = {}
        for game_id, entry in positions:
            by_game.setdefault(game_id, []).append(entry)
        # The file's lines by game, read once, to copy the games newly learned into our own file.
        lines_by_game: dict[str, list[str]] = {}
        if by_game and not own_file:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines(True):
                match = POSITION_GAME.search(line)
                if match:
                    lines_by_game.setdefault(match.group(1), []).append(line)
        for game_id, entries in by_game.items():
            if self.store.record_game(GameLearning(f"{game_id}:positions", positions=entries,
                                                   summary=f"imported from {path}")):
                learned += 1
                if not own_file:
                    append_text(self._lrn_path(POSITION_LRN), "".join(lines_by_game.get(game_id, [])))
        return learned

    def _lrn_path(self, name: str) -> Path:
        return (self.folder or Path.cwd()) / name

    def _append_book_lrn(self, record: GameRecord, kind: str) -> None:
        path = self._lrn_path(BOOK_LRN)
        with self.errors.guard(str(path)):
            append_text(path, format_book_lrn(record, kind))

    def _append_positions(self, record: GameRecord, positions: Sequence[PositionEntry]) -> None:
        if not positions:
            return
        board = Board(record.start_fen)
        fens = {}
        for move in record.moves:
            fens[board.key] = board.fen()
            board.push_uci(move)
        lines = [format_position_lrn(fens[entry.key], entry, record) for entry in positions if entry.key in fens]
        path = self._lrn_path(POSITION_LRN)
        with self.errors.guard(str(path)):
            append_text(path, "".join(lines))


def append_text(path: Path, text: str) -> None:
    """Append whole records and force them to disk. A write that fails part way (a full disk)
    is cut back to where it began, so the file keeps its earlier records whole and the next
    append starts on a clean line; a reader also skips a torn last record (a killed process)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        append_whole(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def format_book_lrn(record: GameRecord, kind: str) -> str:
    """One PGN game: the moves, the engine's searches as `{score/depth}` comments (White's view),
    its book moves as `{book N}` (N playable book moves when it chose), and after the last move, as
    Crafty ends each line of its book.lrn, `{value depth rating_difference}`: the key search of the
    first ten out of book (White's view), its depth, and the rating difference."""
    import chess.pgn
    game = chess.pgn.Game()
    game.headers["Event"] = "Ponderosa learning"
    game.headers["Site"] = "?"
    for name, value in record.tags.items():
        game.headers[name] = value
    game.headers["Result"] = record.result or "*"
    if record.start_fen != chess.STARTING_FEN:
        game.setup(record.start_fen)
    game.headers["PonderosaLearn"] = kind
    game.headers["PonderosaGame"] = record.game_id
    game.headers["PonderosaColor"] = "white" if record.engine_white else "black"
    game.headers["RatingDifference"] = str(record.rating_difference)
    node: chess.pgn.GameNode = game
    for ply, move in enumerate(record.moves):
        node = node.add_variation(chess.Move.from_uci(move))
        notes = []
        if ply in record.samples:
            sample = record.samples[ply]
            notes.append(f"{sample.score_for_white}/{sample.depth}")
        if ply in record.book_choices:
            notes.append(f"book {record.book_choices[ply]}")
        node.comment = " ".join(notes)
    text = str(game)
    samples = [record.samples[ply] for ply in sorted(record.samples)]
    if samples and record.moves:
        key_search = first_approximation(samples[:SEARCHES_REMEMBERED])
        trailer = f"{{{key_search.score_for_white} {key_search.depth} {record.rating_difference}}}"
        result = game.headers["Result"]
        moves, _, _ = text.rpartition(result)   # the result is the last word of the movetext
        text = f"{moves.rstrip()} {trailer} {result}"
    return text + "\n\n"


def format_position_lrn(fen: str, entry: PositionEntry, record: GameRecord) -> str:
    """One EPD line: the position, ce (score for the side to move), acd (depth), the bound and
    the game's tags."""
    epd = " ".join(fen.split()[:4])
    tags = "; ".join(f"{name}={value}" for name, value in record.tags.items())
    return (f'{epd} ce {entry.score}; acd {entry.depth}; c0 "bound {entry.bound}"; '
            f'c1 "{record.game_id}"; c2 "{tags}";\n')


def read_book_lrn(path: Path) -> tuple[list[tuple[GameRecord, str]], list[str]]:
    """The records of a book.lrn file, (game record, kind), and what was skipped: only a torn
    last record (an engine killed while appending it) is skipped; any other broken record is an
    error naming the file and the line. The `{value depth rating_difference}` of a record (after
    its last move; before the first in files written before that) is for the reader's eyes: the
    moves' own comments carry what learning replays, so it is not read."""
    records = []
    skipped: list[str] = []
    chunks = _pgn_chunks(path)
    for index, (first_line, text) in enumerate(chunks):
        try:
            records.append(_book_record(path, first_line, text))
        except LearnFileError as error:
            if index < len(chunks) - 1:
                raise
            skipped.append(f"{error} (an incomplete last record, skipped)")
    return records, skipped


def _book_record(path: Path, first_line: int, text: str) -> tuple[GameRecord, str]:
    import chess.pgn
    game = chess.pgn.read_game(io.StringIO(text))
    if game is None:
        raise LearnFileError(f"{path}:{first_line}: empty learning record")
    headers = game.headers
    if game.errors or "PonderosaGame" not in headers or "PonderosaColor" not in headers:
        problem = f" ({game.errors[0]})" if game.errors else ""
        raise LearnFileError(f"{path}:{first_line}: not a Ponderosa learning record{problem}")
    try:
        rating_difference = int(headers.get("RatingDifference", "0"))
    except ValueError:
        raise LearnFileError(f"{path}:{first_line}: bad RatingDifference tag") from None
    result = headers.get("Result", "*")
    record = GameRecord(headers["PonderosaGame"], game.board().fen(), [], headers["PonderosaColor"] == "white",
                        rating_difference=rating_difference, result=None if result == "*" else result,
                        tags={name: headers[name] for name in ("Date", "White", "Black") if name in headers})
    for ply, node in enumerate(game.mainline()):
        record.moves.append(node.move.uci())
        match = SAMPLE_COMMENT.search(node.comment)
        if match:
            record.samples[ply] = SearchSample(int(match.group(1)), int(match.group(2)))
        match = BOOK_COMMENT.search(node.comment)
        if match:
            record.book_choices[ply] = int(match.group(1))
    if not text.rstrip().endswith(("1-0", "0-1", "1/2-1/2", "*")):
        raise LearnFileError(f"{path}:{first_line}: learning record without its end (result)")
    return record, headers.get("PonderosaLearn", "book")


def _pgn_chunks(path: Path) -> list[tuple[int, str]]:
    """The file cut into games (first line number, text): a tag line after movetext starts a game."""
    chunks: list[tuple[int, list[str]]] = []
    in_movetext = True
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            is_tag = line.startswith("[")
            if is_tag and in_movetext:
                chunks.append((number, []))
            if line.strip():
                in_movetext = not is_tag
            if not chunks:
                if line.strip():
                    raise LearnFileError(f"{path}:{number}: not a learning file (expected a PGN tag)")
                continue
            chunks[-1][1].append(line)
    return [(number, "".join(lines)) for number, lines in chunks]


def read_position_lrn(path: Path) -> tuple[list[tuple[str, PositionEntry]], list[str]]:
    """(game id, entry) for every line of a position.lrn file, and what was skipped (only a torn
    last line)."""
    entries = []
    skipped: list[str] = []
    pattern = re.compile(r'^(?P<epd>\S+ [wb] \S+ \S+) ce (?P<ce>-?\d+); acd (?P<acd>\d+); '
                         r'c0 "bound (?P<bound>[123])"; c1 "(?P<game>[^"]*)";')
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().split("\n")
    last = max((number for number, line in enumerate(lines, 1) if line.strip()), default=0)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        match = pattern.match(line)
        problem = None
        if match is None or (number == last and not line.rstrip().endswith(";")):
            problem = f"{path}:{number}: not a position-learning line"
        else:
            try:
                board = Board(match.group("epd") + " 0 1")
            except ValueError as error:
                problem = f"{path}:{number}: bad position ({error})"
        if problem is not None:
            if number == last:
                skipped.append(f"{problem} (an incomplete last line, skipped)")
                continue
            raise LearnFileError(problem)
        assert match is not None   # a line that does not match has a problem: skipped or raised above
        entries.append((match.group("game"), PositionEntry(board.key, int(match.group("ce")),
                                                           int(match.group("acd")), int(match.group("bound")))))
    return entries, skipped
