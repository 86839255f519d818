"""The engine facade: owns the position, the hash tables and the search, and answers the
protocol layers' requests; results come back as values or through callbacks."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import chess

from ponderosa.core_ext.board import START_FEN, Board
from ponderosa.core_ext.evaluate import Evaluator
from ponderosa.core_ext.search import LEARNED_ENTRY_DEPTH
from ponderosa.core_ext.tt import TranspositionTable
from ponderosa.engine.bench import (
    BENCH_DEPTH,
    BenchResult,
    PerfResult,
    PerftResult,
    SuiteReport,
    perf,
    perft,
    run_bench,
    run_suite,
)
from ponderosa.engine.book.maintenance import BookMaintenance
from ponderosa.engine.book.opening_book import BookProbe, OpeningBook
from ponderosa.engine.book.select import BookDecision
from ponderosa.engine.fen import FenError, validate_fen
from ponderosa.engine.ics import IcsSettings
from ponderosa.engine.learning.learner import Learner
from ponderosa.engine.learning.rules import LEARN_POSITION, SearchSample
from ponderosa.engine.learning.store import LearnedStoreError, open_learned_store
from ponderosa.engine.limits import DEMOTE_THRESHOLD_RANGE
from ponderosa.engine.nnue.choice import EvaluationChoice
from ponderosa.engine.notation import numbered_san
from ponderosa.engine.opponent import Opponent
from ponderosa.engine.records import GameFiles, GameRecord, Players, game_pgn
from ponderosa.engine.search import Searcher, SearchLimits, SearchResult, Thinking
from ponderosa.engine.settings import DEFAULT_PAWN_HASH_BYTES, SearchSettings
from ponderosa.engine.strength import LevelSearch, StrengthLevel
from ponderosa.engine.tablebases import Tablebases
from ponderosa.engine.testsuite import TestPosition
from ponderosa.engine.worker import HelperPool, SearchWorker
from ponderosa.engine.write_errors import WriteErrors

DEFAULT_HASH_BYTES = 64 * 1024 * 1024
DEFAULT_SECONDS_PER_MOVE = 5.0
BOOK_SEARCH_TIME_DIVISOR = 4   # book random 0 searches the book moves in a quarter of the usual time
LEARN_SCORE_CAP = 2000         # learning keeps mate scores as a plain "won" (figure 2.1 caps at 600 anyway)


class IllegalMoveError(ValueError):
    """A move that is not legal (or not understood) in the current position."""


def _divided(seconds: float | None, divisor: float) -> float | None:
    return None if seconds is None else seconds / divisor


@dataclass
class EngineSummary:
    """The engine's working set-up, as the start-up banner shows it."""

    hash_bytes: int
    pawn_hash_bytes: int
    books: dict[str, tuple[str, int]]   # "opening book" / "start book": (file, positions)
    learned_location: str
    threads: int
    tablebases: tuple[str, int] | None = None   # (path, most pieces of a table found), when tables are in use


class Engine:
    """Game state and the services on it; the protocol layers call these and format the results."""

    def __init__(self) -> None:
        self.chess960 = False                # Chess960 (XBoard variant fischerandom, UCI_Chess960)
        self.board = Board(START_FEN)        # the core's position, searched
        self.game = chess.Board()            # the same game as a record: SAN, claims, PGN
        self.tt = TranspositionTable(DEFAULT_HASH_BYTES)
        self.evaluator = Evaluator(DEFAULT_PAWN_HASH_BYTES)
        self.searcher = Searcher(self.tt, self.evaluator)
        self.strength = StrengthLevel()           # UCI_LimitStrength/UCI_Elo, skill: full strength until set
        self.evaluation = EvaluationChoice()      # the network (EvalFile) or the hand-written evaluation
        self.evaluation_messages = self.evaluation.load_default()   # for the front end to show
        self.tablebases = Tablebases()            # no path until egtb/tbpath/egtpath/SyzygyPath
        self.searcher.tablebases = self.tablebases
        self.worker = SearchWorker(self.searcher)
        self.helpers = HelperPool(self.searcher, self.evaluator)   # threads beside the main search thread
        self.helpers.pawn_hash_bytes = DEFAULT_PAWN_HASH_BYTES
        self.searcher.helpers = self.helpers
        self.max_depth: int | None = None          # sd
        self.seconds_per_move: float | None = None  # st
        self.max_nodes: int | None = None          # sn
        self.write_errors = WriteErrors()   # files that cannot be written (a full disk): told once
        self.learned = open_learned_store()
        self.book = OpeningBook(self.learned)
        self.book_files = BookMaintenance(self.book)   # book create, merge, export, user values
        self.book_messages = self.book.open_defaults()   # files that could not be used, for the user
        # .lrn files beside the learned data
        self.learner = Learner(self.learned, self.book, Path.cwd(), self.write_errors)
        # The last book probe and the position it was made in: when the engine plays a move it
        # offered, the learner notes how many book moves were playable at that choice.
        self._last_probe: tuple[int, BookProbe] | None = None
        self.searcher.before_search = self._load_learned_positions
        self.ics = IcsSettings.from_lists_file()   # chess-server settings and opponent lists
        self.record = GameRecord()          # tags and result of the current game (engine/records.py)
        self.game_files = GameFiles(errors=self.write_errors)   # log.NNN / game.NNN, when logging is on
        self.players: Callable[[], Players] = Players   # the protocol layer says who plays which side
        self.opponent = Opponent()          # who the engine plays (UCI_Opponent; XBoard's name/rating)
        # Fault the hash table's pages in beside start-up rather than in the first search.
        self._prefault = threading.Thread(target=self.tt.prefault, name="hash-prefault", daemon=True)
        self._prefault.start()
        # Hash, pawn hash, threads, tablebases, the network: asked for during a search, they wait for its end.
        self.settings = SearchSettings(self.searcher, self.evaluator, self.helpers, self.tablebases, self.evaluation,
                                       searching=lambda: self.worker.busy, end_search=self.end_search,
                                       before_table_change=self._prefault.join)

    # -- position -------------------------------------------------------------

    def new_game(self, chess960: bool | None = None) -> None:
        """A new game from the start position, of Chess960 or standard chess when chess960 says
        (else of the kind played so far)."""
        if chess960 is not None:
            self.chess960 = chess960
        self.worker.stop()
        self.board = Board(START_FEN, chess960=self.chess960)
        self.game = chess.Board(chess960=self.chess960)
        self.helpers.clear()   # (the helpers are parked first: they may still store entries)
        self.tt.clear()
        self.searcher.core.clear()
        self.learner.start_game(START_FEN)
        self.record.new_game()
        self.game_files.close()

    def set_chess960(self, on: bool) -> None:
        """Play Chess960 (castling rooks anywhere on the back rank; castling written king takes
        rook, FENs in X-FEN or Shredder-FEN) or standard chess; a change starts a new game from
        the standard start position, which a FEN or the GUI's `position` then replaces. The
        book and learning are off in Chess960: their positions and moves are standard chess's."""
        if on != self.chess960:
            self.new_game(chess960=on)

    def set_position(self, fen: str) -> None:
        """Set up a position from a FEN; raises FenError (and keeps the old position) if it is bad."""
        checked = validate_fen(fen, self.chess960)
        self.board = Board(checked, chess960=self.chess960)
        self.game = chess.Board(checked, chess960=self.chess960)
        self.learner.start_game(checked)
        self.save_record()

    def replace_game(self, start_fen: str, moves: list[chess.Move]) -> None:
        """The game from start_fen with moves (a game read from PGN, or `reset`); raises FenError
        for a bad start and IllegalMoveError for a bad move, keeping the game as it was."""
        checked = validate_fen(start_fen, self.chess960)
        record, board = chess.Board(checked, chess960=self.chess960), Board(checked, chess960=self.chess960)
        for move in moves:
            # a null move is a side switch (white/black) kept in the game's history
            if not (record.is_legal(move) if move else not record.is_check()):
                raise IllegalMoveError(move.uci())
            record.push(move)
            board.push_uci(move.uci())
        self.worker.stop()
        self.board, self.game = board, record
        self.learner.start_game(checked)
        self.save_record()

    def pgn(self) -> str:
        """The game so far as PGN, with its tags."""
        return game_pgn(self.game, self.record.headers(self.players(), self.game))

    def save_record(self) -> None:
        """Rewrite game.NNN after every change, so that a killed engine loses nothing (log on);
        a game not yet begun (the initial position, no moves) opens no file."""
        if self.game_files.enabled and (self.game.move_stack or self.game.root().fen() != chess.STARTING_FEN):
            self.game_files.write_game(self.pgn())

    def give_move_to(self, white: bool) -> None:
        """The other side is on move in the same position (Crafty's and XBoard's white/black):
        a null move in the game's history, so that `reset` and `undo` can go back across it;
        the e.p. square is gone. Raises FenError when the side on move is in check."""
        if self.game.turn == white:
            return
        if self.game.is_check():
            raise FenError("the side on move is in check: the other side cannot be on move")
        self.board.push_uci(chess.Move.null().uci())
        self.game.push(chess.Move.null())
        self._last_probe = None
        self.save_record()

    def set_pieces(self, pieces: dict[int, str], white_to_move: bool) -> None:
        """Set up a position from pieces on squares (XBoard's edit mode): castling allowed where
        king and rook stand on their home squares, no e.p., move counters reset."""
        board = chess.Board(None)
        for square, letter in pieces.items():
            board.set_piece_at(square, chess.Piece.from_symbol(letter))
        board.turn = chess.WHITE if white_to_move else chess.BLACK
        rights = ""
        for letter, king, rook in (("K", "e1", "h1"), ("Q", "e1", "a1"), ("k", "e8", "h8"), ("q", "e8", "a8")):
            colour = chess.WHITE if letter.isupper() else chess.BLACK
            if board.piece_at(chess.parse_square(king)) == chess.Piece(chess.KING, colour) \
                    and board.piece_at(chess.parse_square(rook)) == chess.Piece(chess.ROOK, colour):
                rights += letter
        board.set_castling_fen(rights or "-")
        self.set_position(board.fen())

    def fen(self) -> str:
        return self.board.fen()

    @property
    def white_to_move(self) -> bool:
        return self.board.white_to_move

    @property
    def move_number(self) -> int:
        return int(self.board.fen().split()[5])

    def piece_at(self, square: int) -> str:
        """Piece letter on a square (a1=0 .. h8=63), uppercase for White, '' if empty."""
        return self.board.piece_at(square)

    def legal_moves(self) -> list[str]:
        return self.board.legal_moves()

    def parse_move(self, text: str) -> str:
        """A move in coordinates (g1f3, e7e8q, also e7e8Q and a7a8=Q) or SAN (Nf3, O-O, e8=Q)
        as UCI; raises IllegalMoveError."""
        text = text.strip()
        coordinate = text.replace("=", "").lower()
        legal = self.board.legal_moves()
        if coordinate in legal:
            return coordinate
        if len(coordinate) == 4 and coordinate[:2] != coordinate[2:]:
            # castling the other way round: king takes rook in standard chess (e1h1), the
            # king's two-square move (e1g1) in Chess960 where king and rook stand as in chess
            try:
                move = self.game.parse_uci(coordinate)
                if self.game.is_castling(move):
                    return move.uci()
            except ValueError:
                pass
        try:
            move = self.game.parse_san(text.replace("0-0-0", "O-O-O").replace("0-0", "O-O"))
        except ValueError:
            raise IllegalMoveError(text) from None
        if not move:   # python-chess reads `--`, `0000`, `Z0` and `@@@@` as a null move
            raise IllegalMoveError(text)
        return move.uci()

    def make_move(self, text: str) -> str:
        """Play a move given in SAN or coordinates; returns it in SAN."""
        uci = self.parse_move(text)
        move = chess.Move.from_uci(uci)
        san = self.game.san(move)
        self.board.push_uci(uci)
        self.game.push(move)
        self._last_probe = None   # it was the last position's
        self.save_record()
        return san

    def play_own_move(self, uci: str, searched: SearchResult | None = None) -> str:
        """Play the engine's own move (searched, or from the book when searched is None); the
        learner notes it. Returns the move in SAN."""
        uci = self.note_own_move(uci, searched)
        return self.make_move(uci)

    def note_own_move(self, uci: str, searched: SearchResult | None = None) -> str:
        """Tell the learner the engine chose this move here, without playing it (UCI: the GUI's
        next `position` plays it). Returns the move in UCI."""
        uci = self.parse_move(uci)
        white = self.game.turn == chess.WHITE
        sample = None
        if searched is not None:
            score = max(-LEARN_SCORE_CAP, min(LEARN_SCORE_CAP, searched.score))
            sample = SearchSample(score if white else -score, searched.depth)
        playable = self._book_playable(uci)
        if self.chess960:
            return uci   # nothing is learned from Chess960 games: the learned data is standard chess's
        with self._learning_may_fail():
            self.learner.engine_moved([move.uci() for move in self.game.move_stack], uci, white, sample, playable)
        return uci

    @contextlib.contextmanager
    def _learning_may_fail(self) -> Iterator[None]:
        """Learned data that cannot be read or written during a game (a full disk, a database
        gone away) is told once for the process and the game goes on without it; the store
        keeps what it had, since every write is one transaction."""
        try:
            yield
        except LearnedStoreError as error:
            self.write_errors.failed(f"the learned data {self.learned.location}", error.__cause__ or error)

    def _book_playable(self, uci: str) -> int | None:
        """How many book moves were playable when the book offered uci here (its move, or one of
        those book random 0 searched); None when the move was not the book's choice."""
        last, self._last_probe = self._last_probe, None
        if last is None:
            return None
        key, probe = last
        if key != self.board.key or probe.decision is None or uci not in (probe.move, *probe.search_only):
            return None
        return probe.decision.playable

    def finish_game(self, result: str) -> None:
        """The game is over ("1-0", "0-1" or "1/2-1/2"): learn from it (once)."""
        if result in ("1-0", "0-1", "1/2-1/2"):
            self.record.result = result
            self.save_record()
            if self.chess960:
                return
            with self._learning_may_fail():
                self.learner.game_over([move.uci() for move in self.game.move_stack], result)

    def shutdown(self) -> None:
        """End the engine's work before the process exits, on every path (quit, end of input,
        a signal): stop the search, and close the learned store and the books so that nothing
        learned is left in a write-ahead log beside the database."""
        self.end_search()
        self.learned.close()
        self.book.close()

    def use_learned_store(self, location: str) -> None:
        """Keep learned data in another SQLite file or a PostgreSQL database (gang learning)."""
        store = open_learned_store(location)
        store.learned_moves(0)   # fails now, not in the middle of a game, if it cannot be used
        old, self.learned = self.learned, store
        self.book.learned = store
        self.learner.store = store
        old.close()

    def set_opponent(self, opponent: Opponent) -> None:
        """Who the engine plays (UCI_Opponent): the learner records the name, the server rules
        (engine/ics.py) take the name, title, rating and whether it is a computer."""
        self.opponent = opponent
        self.learner.opponent = opponent.name or "?"
        self.ics.opponent_name = opponent.name if opponent.name != "?" else ""
        self.ics.opponent_computer = bool(opponent.computer)
        self.ics.opponent_title = opponent.title
        self.ics.ratings = (self.ics.ratings[0], opponent.rating)

    def set_ratings(self, ratings: tuple[int | None, int | None]) -> None:
        """Own and opponent's ratings (XBoard's and the console's `rating`; None unknown): the
        server rules take both, book learning trusts a result by their difference."""
        self.ics.ratings = ratings
        own, opponent = ratings
        if own is not None and opponent is not None:
            self.learner.rating_difference = own - opponent

    def import_learning(self, path: str, clear: bool = False) -> int:
        """Learn from a book.lrn or position.lrn file (Crafty's import)."""
        return self.learner.import_file(path, clear)

    def _load_learned_positions(self) -> None:
        """Position learning: the learned entries go into the hash table before every search,
        marked so that they cut even on the principal variation."""
        if not self.learner.mask & LEARN_POSITION or self.chess960:
            return
        try:
            entries = self.learned.learned_positions()
        except LearnedStoreError:
            return
        for entry in entries:
            self.tt.store(entry.key, 0, entry.score, LEARNED_ENTRY_DEPTH, entry.bound)

    def undo(self) -> str:
        """Take back the last move; raises IndexError when there is none."""
        if not self.game.move_stack:
            raise IndexError("no move to take back")
        undone = self.game.pop().uci()
        try:
            self.board.pop()
        except IndexError:
            # The core keeps only the recent history of a game thousands of plies long: start
            # it again from the record's position (repetitions before it are not seen).
            self.board = Board(self.game.fen(), chess960=self.chess960)
        self.save_record()
        return undone

    # -- opening book -----------------------------------------------------------

    def book_probe(self) -> BookProbe:
        """The book's move for the side to move (nothing when the book is off or has none)."""
        if self.chess960:
            return BookProbe(None, None)   # the book holds standard chess's positions
        probe = None
        with self._learning_may_fail():
            probe = self.book.probe(self.board, self.game)
        if probe is None:   # the book alone, as if nothing had been learned
            with self.book.without_learned_data():
                probe = self.book.probe(self.board, self.game)
        self._last_probe = (self.board.key, probe)
        return probe

    def book_reply(self, after: str | None = None) -> str | None:
        """The book's most likely move in the current position, or in the one after the move
        `after` (the engine's own book move, not yet played on the board): the move to ponder on."""
        if self.chess960:
            return None
        board = self.board
        if after is not None:
            board = self.board.copy()
            board.push_uci(after)
        with self._learning_may_fail():
            return self.book.likely_move(board)
        return None

    @property
    def learn_threshold(self) -> int:
        """The learned value (centipawns) below which a book move is not playable: the book does not
        choose it and learning does not count it as an alternative (console `learn threshold`,
        option BookLearnThreshold; the paper's -80 unless changed)."""
        return self.book.settings.learn_threshold

    @learn_threshold.setter
    def learn_threshold(self, centipawns: int) -> None:
        low, high = DEMOTE_THRESHOLD_RANGE
        if not low <= centipawns <= high:
            raise ValueError(f"the learning threshold must be {low}..{high} centipawns, got {centipawns}")
        self.book.settings.learn_threshold = centipawns

    def book_decision(self) -> BookDecision | None:
        """Every book move of the position with its statistics and chances (show book, bk, bstat)."""
        return None if self.chess960 else self.book.decide(self.board)

    def last_move_key(self) -> tuple[int, str]:
        """(key of the position before the last move, that move): what bookeval sets a value on."""
        if not self.game.move_stack:
            raise IndexError("no move has been played")
        before = self.board.copy()
        move = before.pop()
        return before.key, move

    def set_user_value(self, value: int | None) -> str:
        """Terra's bookeval on the move just played: 0..100, or None to clear; returns its SAN."""
        key, move = self.last_move_key()
        self.learned.set_user_value(key, move, value)
        board = self.game.copy()
        return board.san(board.pop())

    def history(self) -> list[str]:
        """The moves of the game so far, in SAN."""
        return self.game.root().variation_san(self.game.move_stack).split() \
            if self.game.move_stack else []

    def outcome(self) -> tuple[str, str] | None:
        """(result, reason) when the game is over by rule, or a draw can be claimed now (the
        position stands for the third time, or fifty moves passed); else None.

        Cheap enough to ask after every move: it does not look ahead for draws that a move
        could still claim, as python-chess's claim_draw=True would."""
        board = self.game
        outcome = board.outcome(claim_draw=False)
        if outcome is not None:
            reasons = {
                chess.Termination.CHECKMATE: "White mates" if outcome.winner else "Black mates",
                chess.Termination.STALEMATE: "Stalemate",
                chess.Termination.INSUFFICIENT_MATERIAL: "Insufficient material",
                chess.Termination.SEVENTYFIVE_MOVES: "Draw by seventy-five-move rule",
                chess.Termination.FIVEFOLD_REPETITION: "Draw by repetition",
            }
            return outcome.result(), reasons.get(outcome.termination, "Game over")
        if board.halfmove_clock >= 100:
            return "1/2-1/2", "Draw by fifty-move rule"
        if board.is_repetition(3):
            return "1/2-1/2", "Draw by repetition"
        return None

    def san(self, uci: str) -> str:
        """A legal move of the current position in standard algebraic notation."""
        return self.game.san(chess.Move.from_uci(uci))

    def san_line(self, pv: list[str]) -> str:
        """A line of UCI moves from the current position in SAN with move numbers (1. e4 e5 2. Nf3)."""
        return numbered_san(chess.Board(self.board.fen(), chess960=self.chess960), pv, "{}. ...")

    # -- search ---------------------------------------------------------------

    def limits(self) -> SearchLimits:
        """The limits set by sd, st and sn; with none of them, a default time per move."""
        seconds = self.seconds_per_move
        if seconds is None and self.max_depth is None and self.max_nodes is None:
            seconds = DEFAULT_SECONDS_PER_MOVE
        if seconds is None:
            return SearchLimits(depth=self.max_depth, nodes=self.max_nodes)
        return SearchLimits.fixed_time(seconds, depth=self.max_depth, nodes=self.max_nodes)

    def think(self, limits: SearchLimits | None = None,
              on_thinking: Callable[[Thinking], None] | None = None,
              should_continue: Callable[[int, str], bool] | None = None,
              excluded: Collection[str] = (), threads: int | None = None, at_level: bool = False) -> SearchResult:
        """Search the current position (blocking; stop() from another thread ends it); root
        moves in excluded are left out; threads caps the search threads (None: all). at_level: a
        game move, played at the strength level when one is set (the console's)."""
        self.settings.before_search()
        limits = limits or self.limits()
        if at_level and self.strength.limited:
            level = LevelSearch(self.strength, limits, on_thinking)
            return level.choose(self.searcher.run(self.board, level.limits, level.collector, should_continue,
                                                  excluded=excluded, threads=threads, multi_pv=level.lines))
        return self.searcher.run(self.board, limits, on_thinking, should_continue, excluded=excluded, threads=threads)

    def book_search(self, probe: BookProbe, limits: SearchLimits) -> tuple[SearchLimits, set[str]]:
        """Crafty's book random 0: search only the book moves, with a shorter time than usual.
        Returns the limits and the root moves to leave out."""
        shorter = SearchLimits(depth=limits.depth, nodes=limits.nodes,
                               soft_seconds=_divided(limits.soft_seconds, BOOK_SEARCH_TIME_DIVISOR),
                               hard_seconds=_divided(limits.hard_seconds, BOOK_SEARCH_TIME_DIVISOR))
        return shorter, set(self.legal_moves()) - set(probe.search_only)

    def stop(self) -> None:
        """Ask the running search to stop (it still reports its result); does not wait."""
        self.searcher.stop()

    @property
    def multi_pv(self) -> int:
        """Lines searched and reported per iteration (UCI MultiPV, XBoard option, console `multipv`)."""
        return self.searcher.multi_pv

    @multi_pv.setter
    def multi_pv(self, lines: int) -> None:
        if lines < 1:
            raise ValueError(f"MultiPV must be 1 or more, got {lines}")
        self.searcher.multi_pv = lines

    # -- searches on the search thread (non-blocking) ---------------------------

    def start_search(self, limits: SearchLimits, on_thinking: Callable[[Thinking], None] | None,
                     on_finished: Callable[[int, SearchResult], None], excluded: Collection[str] = ()) -> int:
        """Search the current position on the search thread (a running search is stopped first);
        returns the search's serial number, which on_finished receives with the result."""
        self.worker.stop()   # a running search is stopped first (worker.start would do it too)
        self.settings.before_search()
        if self.strength.limited and not limits.open_ended:   # analysis stays at full strength
            level = LevelSearch(self.strength, limits, on_thinking)
            return self.worker.start(self.board, level.limits, level.collector, level.on_finished(on_finished),
                                     excluded, multi_pv=level.lines)
        return self.worker.start(self.board, limits, on_thinking, on_finished, excluded)

    def can_ponder(self, expected: str | None) -> bool:
        """Whether there is something to ponder: the expected reply is legal and the game goes on."""
        return expected is not None and expected in self.legal_moves() and self.outcome() is None

    def ponder(self, expected: str | None, limits: SearchLimits, on_thinking: Callable[[Thinking], None] | None,
               on_finished: Callable[[int, SearchResult], None]) -> int | None:
        """Think on the opponent's time about the position after the expected reply, which stays
        unplayed in the game (a ponder hit plays it); None, and no search, when there is nothing
        to ponder. Every protocol starts its ponder search here."""
        if not self.can_ponder(expected):
            return None
        self.worker.stop()   # a running search is stopped first (worker.start would do it too)
        self.settings.before_search()
        if self.strength.limited:   # pondering must not make a level stronger
            level = LevelSearch(self.strength, limits, on_thinking)
            return self.worker.start(self.board, level.limits, level.collector, level.on_finished(on_finished),
                                     ponder_move=expected, multi_pv=level.lines)
        return self.worker.start(self.board, limits, on_thinking, on_finished, ponder_move=expected)

    def end_search(self) -> None:
        """Stop the search on the search thread, if any, and wait for it (its result is reported)
        and for its helper threads (nothing may touch the table once the engine shuts down)."""
        self.worker.stop()
        self.searcher.park_helpers()

    @property
    def searching(self) -> bool:
        return self.worker.busy

    def set_time_budget(self, soft_seconds: float, hard_seconds: float) -> None:
        """Give the running open-ended search a time budget counted from its start (a ponder hit)."""
        self.worker.set_time_budget(soft_seconds, hard_seconds)

    def summary(self) -> EngineSummary:
        """What the engine runs with, for the start-up banner."""
        books = {}
        for name, source in (("opening book", self.book.large), ("start book", self.book.start)):
            if source is not None:
                books[name] = (source.path, source.positions())
        tables = (self.tablebases.path, self.tablebases.largest) if self.tablebases.largest > 0 else None
        return EngineSummary(self.tt.size, self.settings.pawn_hash_bytes, books, self.learned.location,
                             self.threads, tables)

    @property
    def threads(self) -> int:
        """Search threads (XBoard's cores, Crafty's smpmt): the main one and its helpers."""
        return self.helpers.threads

    @property
    def searching_threads(self) -> int:
        """Threads a search uses now: the pool within smpmax."""
        return self.helpers.searching()

    @property
    def draw_score(self) -> int:
        return self.searcher.core.draw_score

    @draw_score.setter
    def draw_score(self, centipawns: int) -> None:
        self.searcher.core.draw_score = centipawns

    def set_extension(self, name: str, plies: float) -> None:
        self.searcher.core.set_extension(name, plies)

    def extensions(self) -> dict[str, float]:
        return self.searcher.core.extensions()

    def set_eval_scale(self, name: str, percent: int) -> None:
        self.evaluator.set_scale(name, percent)

    def score_breakdown(self) -> tuple[int, list[tuple[str, int, int, int]], int | None]:
        """The hand-written evaluation from White's side and its terms (name, White, Black, net),
        and the network's score from White's side when the searches use one (else None)."""
        white = 1 if self.board.white_to_move else -1
        total = self.evaluator.classic_evaluate(self.board) * white
        network = self.evaluator.evaluate(self.board) * white if self.evaluation.active else None
        return total, self.evaluator.breakdown(self.board), network

    # -- tools (engine/bench.py) -------------------------------------------------

    def perft(self, depth: int) -> PerftResult:
        return perft(self.board, depth)

    def divide(self, depth: int) -> list[tuple[str, int]]:
        """Perft split by root move: (move in UCI, nodes below it)."""
        return self.board.divide(depth)

    def perf(self, seconds: float = 1.0) -> PerfResult:
        """Measure generation, then generation with make/unmake, each for about `seconds`."""
        return perf(self.board, seconds)

    def bench(self, depth: int = BENCH_DEPTH,
              on_position: Callable[[int, str, SearchResult], None] | None = None,
              threads: int = 1) -> BenchResult:
        """Search the bench positions to a fixed depth from cleared tables: same nodes every run
        with one thread (the signature); with more, the threads' race makes the count vary."""
        return run_bench(self, depth, on_position, threads)

    def run_suite(self, path: str, early_exit: int | None = None,
                  on_result: Callable[[TestPosition, SearchResult, bool], None] | None = None,
                  on_thinking: Callable[[Thinking], None] | None = None) -> SuiteReport:
        """Run a test suite with the current limits; early_exit ends a search once the right
        move has been held for that many iterations. Raises SuiteError for a bad file."""
        return run_suite(self, path, early_exit, on_result, on_thinking)
