"""The engine facade: the front ends' one door to the game, the books and learning, and the
search. It owns three parts, each in its own module: the game (engine/game_state.py), the books
and learning around it (engine/book_learning.py) and search control with strength levels
(engine/search_control.py); a method here does what one request needs across them. Results
come back as values or through callbacks."""
from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING, Callable

import chess

from ponderosa.core_ext.core import START_FEN, Board
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
from ponderosa.engine.book.opening_book import BookProbe
from ponderosa.engine.book.select import BookDecision
from ponderosa.engine.book_learning import BookLearning
from ponderosa.engine.engine_options import EngineOptions, EngineSummary, OptionParts
from ponderosa.engine.game_state import GameState, IllegalMoveError
from ponderosa.engine.genfens import GenfensOptions, Opening, opening_fens
from ponderosa.engine.ics import IcsSettings
from ponderosa.engine.limits import DEFAULT_SECONDS_PER_MOVE
from ponderosa.engine.opponent import Opponent
from ponderosa.engine.records import Players
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking
from ponderosa.engine.search_control import SearchControl
from ponderosa.engine.testsuite import TestPosition
from ponderosa.engine.write_errors import WriteErrors

if TYPE_CHECKING:
    from ponderosa.engine.annotate import AnnotateRequest, AnnotationReport, Progress
    from ponderosa.engine.book import build

__all__ = ["DEFAULT_SECONDS_PER_MOVE", "Engine", "EngineSummary", "IllegalMoveError"]


class Engine:
    """Game state and the services on it; the protocol layers call these and format the results."""

    def __init__(self) -> None:
        self.write_errors = WriteErrors()   # files that cannot be written (a full disk): told once
        self.state = GameState(self.write_errors)
        self.control = SearchControl(end_search=self.end_search)
        self.books = BookLearning(self.state, self.write_errors)
        # The parts' members the front ends and tools use by name (one object each, shared).
        self.tt, self.evaluator, self.searcher = self.control.tt, self.control.evaluator, self.control.searcher
        self.evaluation, self.tablebases = self.control.evaluation, self.control.tablebases
        self.worker, self.helpers, self.settings = self.control.worker, self.control.helpers, self.control.settings
        self.evaluation_messages = self.control.evaluation_messages
        self.book, self.book_files, self.learner = self.books.book, self.books.book_files, self.books.learner
        self.book_messages = self.books.book_messages
        self.book.follow(self.evaluation)   # bookw eval evaluates with the engine's network (or none)
        self.record, self.game_files = self.state.record, self.state.game_files
        self.ics = IcsSettings.from_lists_file()   # chess-server settings and opponent lists
        # The front ends' settings: the option table's rows act on these parts.
        self.options = EngineOptions(OptionParts(self.settings, self.books, self.tablebases, self.control.strength,
                                                 self.state, self.ics, self.set_chess960, self.set_opponent))
        self.searcher.before_search = lambda: self.books.load_learned_positions(self.tt)
        self.opponent = Opponent()          # who the engine plays (UCI_Opponent; XBoard's name/rating)
        self.max_depth: int | None = None           # sd
        self.seconds_per_move: float | None = None  # st
        self.max_nodes: int | None = None           # sn

    # The game's two boards (replaced by set-ups) and who plays it.
    @property
    def board(self) -> Board:
        return self.state.board

    @property
    def game(self) -> chess.Board:
        return self.state.game

    @property
    def chess960(self) -> bool:
        return self.state.chess960

    @property
    def players(self) -> Callable[[], Players]:
        return self.state.players

    @players.setter
    def players(self, players: Callable[[], Players]) -> None:
        self.state.players = players

    # -- position -------------------------------------------------------------

    def new_game(self, chess960: bool | None = None) -> None:
        """A new game from the start position, of Chess960 or standard chess when chess960 says
        (else of the kind played so far)."""
        self.worker.stop()
        self.state.reset(chess960)
        self.control.clear()
        self.learner.start_game(START_FEN)

    def set_chess960(self, on: bool) -> None:
        """Chess960 or standard chess; a change starts a new game (no book or learning in Chess960)."""
        if on != self.chess960:
            self.new_game(chess960=on)

    def set_position(self, fen: str) -> None:
        """Set up a position from a FEN; raises FenError (and keeps the old position) if it is bad."""
        self.learner.start_game(self.state.set_fen(fen))

    def replace_game(self, start_fen: str, moves: list[chess.Move]) -> None:
        """The game from start_fen with moves (read from PGN, or `reset`); errors keep the game."""
        self.learner.start_game(self.state.replace(start_fen, moves, before_change=self.worker.stop))

    def pgn(self) -> str:
        return self.state.pgn()

    def save_record(self) -> None:
        self.state.save_record()

    def give_move_to(self, white: bool) -> None:
        """The other side on move in the same position (Crafty's and XBoard's white/black)."""
        if self.state.give_move_to(white):
            self.books.last_probe = None

    def set_pieces(self, pieces: dict[int, str], white_to_move: bool) -> None:
        """Set up a position from pieces on squares (XBoard's edit mode)."""
        self.set_position(GameState.fen_of_pieces(pieces, white_to_move))

    def fen(self) -> str:
        return self.board.fen()

    def position(self, stack: bool = True) -> chess.Board:
        """The game as a python-chess board of the front end's own (a copy), with the moves played
        when stack: the side to move, checks, pieces, the start position and the moves."""
        return self.game.copy(stack=stack)

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
        return self.state.parse_move(text)

    def make_move(self, text: str) -> str:
        """Play a move given in SAN or coordinates; returns it in SAN."""
        uci = self.state.parse_move(text)
        self.books.last_probe = None   # it was the last position's
        return self.state.push(uci)

    def play_own_move(self, uci: str, searched: SearchResult | None = None) -> str:
        """Play the engine's own move (searched, or from the book when searched is None); the
        learner notes it. Returns the move in SAN."""
        return self.make_move(self.note_own_move(uci, searched))

    def note_own_move(self, uci: str, searched: SearchResult | None = None) -> str:
        """Tell the learner the engine chose this move here, without playing it (UCI: the GUI's
        next `position` plays it). Returns the move in UCI."""
        uci = self.parse_move(uci)
        self.books.note_own_move(uci, searched)
        return uci

    def finish_game(self, result: str) -> None:
        """The game is over ("1-0", "0-1" or "1/2-1/2"): learn from it (once)."""
        if result in ("1-0", "0-1", "1/2-1/2"):
            self.record.result = result
            self.save_record()
            self.books.game_over(result)

    def shutdown(self) -> None:
        """Before the process exits, on every path: stop the search, close the learned store
        and the books (nothing learned is left in a write-ahead log beside the database)."""
        self.end_search()
        self.books.learned.close()
        self.book.close()

    def set_opponent(self, opponent: Opponent) -> None:
        """Who the engine plays (UCI_Opponent): the name to the learner, all of it to the server rules."""
        self.opponent = opponent
        self.learner.opponent = opponent.name or "?"
        self.ics.opponent_name = opponent.name if opponent.name != "?" else ""
        self.ics.opponent_computer = bool(opponent.computer)
        self.ics.opponent_title = opponent.title
        self.ics.ratings = (self.ics.ratings[0], opponent.rating)

    def name_opponent(self, handle: str | None = None, learned_as: str = "", computer: bool = False) -> None:
        """What a server says of the opponent (`name`, `computer`): the server rules take the handle,
        the learner learned_as (else the handle); computer marks it a program."""
        if handle is not None:
            self.ics.opponent_name, self.learner.opponent = handle, learned_as or handle or "?"
        self.ics.opponent_computer = self.ics.opponent_computer or computer

    def set_ratings(self, ratings: tuple[int | None, int | None]) -> None:
        """Own and opponent's ratings (None unknown): server rules and book learning's trust."""
        self.ics.ratings = ratings
        own, opponent = ratings
        if own is not None and opponent is not None:
            self.learner.rating_difference = own - opponent

    def import_learning(self, path: str, clear: bool = False) -> int:
        """Learn from a book.lrn or position.lrn file (Crafty's import)."""
        return self.learner.import_file(path, clear)

    def startup_messages(self) -> list[str]:
        """What could not be used at start-up: books, the network, the server lists."""
        return self.book_messages + self.evaluation_messages + self.ics.messages

    def set_tag(self, name: str, value: str) -> None:
        """A PGN tag of the game's record (Crafty's `pgn TAG VALUE`); RecordError for one it cannot take."""
        self.record.set_tag(name, value)

    def record_headers(self, players: Players) -> dict[str, str]:
        """The PGN tags the game's record would be written with."""
        return self.record.headers(players, self.position())

    def restore_record(self, tags: dict[str, str], result: str) -> None:
        """The tags and result of a game read back (`ponderosa c`), for its record."""
        self.record.tags = {name: value for name, value in tags.items() if name not in ("FEN", "SetUp", "TimeControl")}
        self.record.result = result

    def create_book(self, pgn_paths: list[str], max_moves: int, min_games: int = 1, win_percent: float = 0.0,
                    progress: build.Progress | None = None) -> build.BuildReport:
        return self.book_files.create_book(pgn_paths, max_moves, min_games, win_percent, progress)

    def add_to_book(self, paths: list[str], progress: build.Progress | None = None) -> build.BuildReport:
        return self.book_files.add_to_book(paths, progress)

    def create_start_book(self, pgn_paths: list[str], max_moves: int) -> build.BuildReport:
        return self.book_files.create_start_book(pgn_paths, max_moves)

    def merge_books(self, first: str, second: str, out_path: str) -> build.BuildReport:
        return self.book_files.merge_books(first, second, out_path)

    def export_polyglot(self, path: str) -> int:
        return self.book_files.export_polyglot(path)

    def import_user_values(self, pgn_paths: list[str]) -> int:
        return self.book_files.import_user_values(pgn_paths)

    def undo(self) -> str:
        return self.state.undo()

    # -- opening book -----------------------------------------------------------

    def book_probe(self) -> BookProbe:
        return self.books.probe()

    def book_reply(self, after: str | None = None) -> str | None:
        return self.books.reply(after)

    def book_decision(self) -> BookDecision | None:
        return self.books.decision()

    def last_move_key(self) -> tuple[int, str]:
        return self.state.last_move_key()

    def set_user_value(self, value: int | None) -> str:
        return self.books.set_user_value(value)

    def outcome(self) -> tuple[str, str] | None:
        return self.state.outcome()

    def san(self, uci: str) -> str:
        return self.state.san(uci)

    def san_line(self, pv: list[str]) -> str:
        return self.state.san_line(pv)

    # -- search ---------------------------------------------------------------

    def limits(self) -> SearchLimits:
        """The limits set by sd, st and sn; with none of them, a default time per move."""
        return self.control.limits(self.max_depth, self.seconds_per_move, self.max_nodes)

    def think(self, limits: SearchLimits | None = None, on_thinking: Callable[[Thinking], None] | None = None,
              should_continue: Callable[[int, str], bool] | None = None,
              excluded: Collection[str] = (), threads: int | None = None, at_level: bool = False) -> SearchResult:
        """Search the current position (blocking; stop() from another thread ends it); root
        moves in excluded are left out; threads caps the search threads (None: all). at_level: a
        game move, played at the strength level when one is set (the console's)."""
        return self.control.think(self.board, limits or self.limits(), on_thinking, should_continue, excluded,
                                  threads, at_level)

    def book_search(self, probe: BookProbe, limits: SearchLimits) -> tuple[SearchLimits, set[str]]:
        return self.control.book_search(probe, limits, self.legal_moves())

    def stop(self) -> None:
        """Ask the running search to stop (it still reports its result); does not wait."""
        self.searcher.stop()

    def progress(self) -> tuple[str | None, int, int, float]:
        """The running search's root move now, its number, the nodes and the seconds so far."""
        return self.searcher.progress()

    def hashfull(self) -> int:
        """Permille of the transposition table in use."""
        return self.tt.hashfull()

    @property
    def multi_pv(self) -> int:
        """Lines searched and reported per iteration (option MultiPV)."""
        return self.searcher.multi_pv

    # -- searches on the search thread (non-blocking) ---------------------------

    def start_search(self, limits: SearchLimits, on_thinking: Callable[[Thinking], None] | None,
                     on_finished: Callable[[int, SearchResult], None], excluded: Collection[str] = ()) -> int:
        """Search the current position on the search thread (a running search is stopped first);
        returns the search's serial number, which on_finished receives with the result."""
        return self.control.start(self.board, limits, on_thinking, on_finished, excluded)

    def can_ponder(self, expected: str | None) -> bool:
        """Whether there is something to ponder: the expected reply is legal and the game goes on."""
        return expected is not None and expected in self.legal_moves() and self.outcome() is None

    def ponder(self, expected: str | None, limits: SearchLimits, on_thinking: Callable[[Thinking], None] | None,
               on_finished: Callable[[int, SearchResult], None]) -> int | None:
        """Think on the opponent's time after the expected reply, left unplayed (a ponder hit
        plays it); None, and no search, when there is nothing to ponder. Every protocol's ponder."""
        if not self.can_ponder(expected):
            return None
        return self.control.start(self.board, limits, on_thinking, on_finished, ponder_move=expected)

    def end_search(self) -> None:
        """Stop the search on the search thread, if any, and wait for it and its helper threads."""
        self.control.end()

    @property
    def searching(self) -> bool:
        return self.worker.busy

    def set_time_budget(self, soft_seconds: float, hard_seconds: float) -> None:
        """Give the running open-ended search a time budget counted from its start (a ponder hit)."""
        self.worker.set_time_budget(soft_seconds, hard_seconds)

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
        """What a draw is worth to the engine (centipawns; options Contempt and DrawScore set it)."""
        return self.searcher.core.draw_score

    def score_breakdown(self) -> tuple[int, list[tuple[str, int, int, int]], int | None]:
        return self.control.score_breakdown(self.board)

    # -- tools (engine/bench.py) -------------------------------------------------

    def perft(self, depth: int) -> PerftResult:
        return perft(self.board, depth)

    def divide(self, depth: int) -> list[tuple[str, int]]:
        """Perft split by root move: (move in UCI, nodes below it)."""
        return self.board.divide(depth)

    def perf(self, seconds: float = 1.0) -> PerfResult:
        return perf(self.board, seconds)

    def bench(self, depth: int | None = None, on_position: Callable[[int, str, SearchResult], None] | None = None,
              threads: int = 1) -> BenchResult:
        return run_bench(self.state, self.control, depth or BENCH_DEPTH, on_position, threads)

    def annotate(self, request: AnnotateRequest, progress: Progress | None = None) -> AnnotationReport:
        """Annotate the games of a PGN file (Crafty's annotate) on the engine's tables; ends a running search."""
        from ponderosa.engine.annotate import annotate_file  # only when used
        self.end_search()
        return annotate_file(self.searcher, request, progress)

    def genfens(self, count: int, seed: int, book: str | None, options: GenfensOptions) -> Iterator[Opening]:
        """OpenBench's openings (engine/genfens.py), checked with the engine's evaluation."""
        self.end_search()   # a silent ponder search would share the processor
        return opening_fens(count, seed, book, options, network=self.evaluator.network)

    def run_suite(self, path: str, early_exit: int | None = None,
                  on_result: Callable[[TestPosition, SearchResult, bool], None] | None = None,
                  on_thinking: Callable[[Thinking], None] | None = None) -> SuiteReport:
        return run_suite(self.state, self.think, self.limits(), path, early_exit, on_result, on_thinking)
