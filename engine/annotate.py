"""Crafty's annotate: search the move played and the best move of each chosen move of a game;
where the best is better by the margin, say so in a PGN comment and variation (FILE.can) or on
an HTML page with a board diagram at each such position (FILE.html)."""
from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import chess

from ponderosa.core_ext.core import Board
from ponderosa.engine.errors import EngineError
from ponderosa.engine.input_files import InputFileError, regular_file
from ponderosa.engine.notation import numbered_san
from ponderosa.engine.records import ReadGame, RecordError, pgn_file_games, write_atomically
from ponderosa.engine.score_graph import GraphPoint, score_graph_svg
from ponderosa.engine.search import Searcher, SearchLimits, SearchResult, mate_distance

if TYPE_CHECKING:
    import chess.pgn

RANGE_PATTERN = re.compile(r"^(\d+)(?:-(\d+))?$")
SIDES = {"w": (chess.WHITE,), "b": (chess.BLACK,), "wb": (chess.WHITE, chess.BLACK), "bw": (chess.WHITE, chess.BLACK)}
# Share of TIME for the search of all moves; the move played is then searched to the same depth
# in what is left (its subtree is mostly in the hash table by then), so a move costs at most TIME.
BEST_SOFT_SHARE, BEST_HARD_SHARE, PLAYED_MIN_SHARE = 0.6, 0.8, 0.2
PLAYED_ARROW, BEST_ARROW = "#cc3333", "#22aa44"

Progress = Callable[[int, int, float], None]   # (moves done, moves in all, seconds so far)


class AnnotateError(EngineError):
    """Arguments or a file that annotate cannot use; the message is one line for the user."""


@dataclass(frozen=True)
class AnnotateRequest:
    """annotate FILE COLORS|NAME MOVES MARGIN TIME [N], as parsed."""

    path: Path
    sides: tuple[bool, ...] | None   # None: chosen per game by `player`
    player: str | None
    first_move: int
    last_move: int
    margin: int                      # centipawns; negative: comment on every move
    seconds: float
    best_count: int = 1              # N: also show the N best moves
    html: bool = False

    @property
    def output_path(self) -> Path:
        return Path(f"{self.path}{'.html' if self.html else '.can'}")


def parse_request(args: list[str], html_output: bool) -> AnnotateRequest:
    """The seed's arguments: FILE, w|b|wb|bw or a unique part of a player's name, a move number
    or range (20, 20-33, 1-999), the margin in pawns, seconds per move, and optionally N."""
    usage = f"usage: annotate{'h' if html_output else ''} FILE w|b|wb|bw|NAME MOVES MARGIN TIME [N]"
    if len(args) not in (5, 6):
        raise AnnotateError(usage)
    path, who, moves, margin_text, seconds_text = args[:5]
    match = RANGE_PATTERN.match(moves)
    if not match:
        raise AnnotateError(f"bad move range {moves!r}: a move number (20) or a range (20-33, 1-999)")
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else 10 ** 6
    if first < 1 or last < first:
        raise AnnotateError(f"bad move range {moves!r}: the first move must be 1 or more and not after the last")
    try:
        margin = round(float(margin_text) * 100)
        seconds = float(seconds_text)
    except ValueError:
        raise AnnotateError(f"{usage} (MARGIN in pawns, TIME in seconds)") from None
    if not 0 < seconds < 1e6:
        raise AnnotateError(f"bad time {seconds_text!r}: seconds per move, more than zero")
    best_count = 1
    if len(args) == 6:
        if not args[5].isdigit() or not 1 <= int(args[5]) <= 10:
            raise AnnotateError(f"bad N {args[5]!r}: the number of best moves to show, 1 to 10")
        best_count = int(args[5])
    sides = SIDES.get(who.lower()) if who.lower() in SIDES else None
    try:
        regular_file(path, "a PGN file")
    except InputFileError as error:
        raise AnnotateError(str(error)) from None
    return AnnotateRequest(Path(path), sides, None if sides else who, first, last, margin, seconds, best_count,
                           html_output)


def format_score(score_for_white: int) -> str:
    """Pawns from White's side, or Mat05 / -Mat05 for a mate (Crafty's notation)."""
    mate = mate_distance(score_for_white)
    if mate is not None:
        return f"{'' if mate > 0 else '-'}Mat{abs(mate):02d}"
    return f"{score_for_white / 100:+.2f}"


def san_line(board: chess.Board, pv: list[str]) -> str:
    """UCI moves from board in SAN with move numbers (3... Nf6 4. Qxf7#)."""
    return numbered_san(board, pv)


@dataclass
class Line:
    """One searched move: its score (from White's side), depth and principal variation (UCI)."""

    move: str
    score: int
    depth: int
    pv: list[str]


@dataclass
class MoveNote:
    """What the engine had to say about one move of a game."""

    fen: str                   # the position before the move
    ply: int                   # index of the move in the game
    played: Line
    best: list[Line]           # the best move first, then the next best (N)
    commented: bool            # the best was better by the margin (or the margin is negative)

    @property
    def board(self) -> chess.Board:
        return chess.Board(self.fen)

    def move_text(self) -> str:
        board = self.board
        return san_line(board, [self.played.move])

    def comment(self) -> str:
        """The PGN comment on the move played: its score and the line that refutes it, then the
        engine's choice."""
        board = self.board
        best = self.best[0]
        return (f"{format_score(self.played.score)} ({self.played.depth}: {san_line(board, self.played.pv)}); "
                f"Ponderosa: {san_line(board, [best.move])} {format_score(best.score)} "
                f"(depth {best.depth})")


@dataclass
class AnnotatedGame:
    number: int
    tags: dict[str, str]
    start_fen: str
    moves: list[chess.Move]
    notes: list[MoveNote] = field(default_factory=list)
    problem: str | None = None


@dataclass
class AnnotationReport:
    games: list[AnnotatedGame]
    output: Path
    moves: int          # moves searched
    comments: int       # moves commented
    seconds: float
    problems: list[str]


def _white_score(score: int, white_to_move: bool) -> int:
    return score if white_to_move else -score


def _sides_for(game: ReadGame, request: AnnotateRequest) -> tuple[bool, ...]:
    """The colours to annotate in this game: as asked, or the side whose name holds the string."""
    if request.sides is not None:
        return request.sides
    assert request.player is not None
    white = request.player in game.tags.get("White", "")
    black = request.player in game.tags.get("Black", "")
    if white and black:
        raise AnnotateError(f"game {game.number}: {request.player!r} is part of both players' names; "
                            "give more of the name")
    return (chess.WHITE,) if white else (chess.BLACK,) if black else ()


def _chosen_plies(game: ReadGame, sides: tuple[bool, ...], request: AnnotateRequest) -> list[int]:
    board = chess.Board(game.start_fen)
    plies = []
    for ply, move in enumerate(game.moves):
        if board.turn in sides and request.first_move <= board.fullmove_number <= request.last_move:
            plies.append(ply)
        board.push(move)
    return plies


def _line(result: SearchResult, white_to_move: bool) -> Line:
    return Line(result.best_move or "", _white_score(result.score, white_to_move), result.depth, list(result.pv))


def analyse_move(searcher: Searcher, board: chess.Board, played: chess.Move, seconds: float,
                 best_count: int = 1) -> tuple[Line, list[Line]]:
    """Search all moves, then the move played alone (`search MOVE`) to the same depth; with
    best_count > 1 the next best moves too, each with the ones before it and the move played left
    out, until N moves other than the one played are in the list."""
    start = time.monotonic()
    white = board.turn == chess.WHITE
    position = Board(board.fen())
    legal = {move.uci() for move in board.legal_moves}
    best_result = searcher.run(position, SearchLimits(soft_seconds=BEST_SOFT_SHARE * seconds,
                                                      hard_seconds=BEST_HARD_SHARE * seconds))
    best = [_line(best_result, white)]
    depth = max(1, best_result.depth)
    if best_result.best_move == played.uci():
        played_line = best[0]
    else:
        left = max(PLAYED_MIN_SHARE * seconds, seconds - (time.monotonic() - start))
        result = searcher.run(position, SearchLimits(depth=depth, hard_seconds=left),
                              excluded=legal - {played.uci()})
        played_line = _line(result, white)
    # The played move is the game's own line, so the N best are looked for among the others.
    for _ in range(len(legal) if best_count > 1 else 0):
        if sum(line.move != played.uci() for line in best) >= best_count:
            break
        excluded = {line.move for line in best} | {played.uci()}
        if excluded >= legal:
            break
        result = searcher.run(position, SearchLimits(depth=depth, hard_seconds=seconds), excluded=excluded)
        if not result.best_move:
            break
        best.append(_line(result, white))
    return played_line, best


def _is_worth_a_comment(played: Line, best: Line, white: bool, margin: int) -> bool:
    if margin < 0:
        return True
    if best.move == played.move:
        return False
    gain = (best.score - played.score) if white else (played.score - best.score)
    return gain >= margin


def _games_again(path: Path) -> Iterator[ReadGame]:
    """The file's games once more (the file may have changed since the first pass)."""
    try:
        yield from pgn_file_games(path)
    except RecordError as error:
        raise AnnotateError(str(error)) from None


def annotate_file(searcher: Searcher, request: AnnotateRequest, progress: Progress | None = None) -> AnnotationReport:
    """Annotate every game of the file and write FILE.can or FILE.html; raises AnnotateError
    when the file cannot be read or a player name is ambiguous."""
    # Two passes over the file, a game at a time (never the whole file in memory): the first
    # counts the moves to annotate (the progress bar's total) and finds an ambiguous name before
    # any search, the second annotates.
    try:
        total = sum(len(_chosen_plies(game, _sides_for(game, request), request))
                    for game in pgn_file_games(request.path))
    except RecordError as error:
        raise AnnotateError(str(error)) from None
    started = time.monotonic()
    done = comments = 0
    annotated: list[AnnotatedGame] = []
    problems: list[str] = []
    for game in _games_again(request.path):
        plies = _chosen_plies(game, _sides_for(game, request), request)
        if game.problem:
            problems.append(game.problem)
        entry = AnnotatedGame(game.number, game.tags, game.start_fen, game.moves, problem=game.problem)
        board = chess.Board(game.start_fen)
        chosen = set(plies)
        for ply, move in enumerate(game.moves):
            if ply in chosen:
                played, best = analyse_move(searcher, board, move, request.seconds, request.best_count)
                commented = _is_worth_a_comment(played, best[0], board.turn == chess.WHITE, request.margin)
                entry.notes.append(MoveNote(board.fen(), ply, played, best, commented))
                comments += commented
                done += 1
                if progress is not None:
                    progress(done, total, time.monotonic() - started)
            board.push(move)
        annotated.append(entry)
    text = html_page(annotated, request) if request.html else can_text(annotated)
    try:
        write_atomically(request.output_path, text)
    except OSError as error:
        raise AnnotateError(f"cannot write {request.output_path}: {error.strerror or error}") from None
    return AnnotationReport(annotated, request.output_path, done, comments, time.monotonic() - started, problems)


def pgn_game(game: AnnotatedGame) -> chess.pgn.Game:
    """The game with the engine's comments on the moves it disagrees with and its lines as variations."""
    import chess.pgn
    record = chess.pgn.Game()
    for name, value in game.tags.items():
        record.headers[name] = value
    record.headers["Annotator"] = "Ponderosa"
    record.setup(chess.Board(game.start_fen))
    notes = {note.ply: note for note in game.notes if note.commented}
    node: chess.pgn.GameNode = record
    for ply, move in enumerate(game.moves):
        parent = node
        node = parent.add_main_variation(move)
        note = notes.get(ply)
        if note is None:
            continue
        node.comment = note.comment()
        for line in note.best:
            if line.move == move.uci() or not line.pv:
                continue
            branch = parent.add_variation(chess.Move.from_uci(line.pv[0]))
            branch.comment = f"{format_score(line.score)} (depth {line.depth})"
            for uci in line.pv[1:]:
                following = chess.Move.from_uci(uci)
                if following not in branch.board().legal_moves:
                    break
                branch = branch.add_main_variation(following)
    return record


def can_text(games: list[AnnotatedGame]) -> str:
    """The .can file: the games as PGN with the annotations, one blank line between games."""
    import chess.pgn
    return "\n\n".join(pgn_game(game).accept(chess.pgn.StringExporter(headers=True, variations=True, comments=True))
                       for game in games) + "\n"


def _board_svg(note: MoveNote) -> str:
    import chess.svg
    board = note.board
    played = chess.Move.from_uci(note.played.move)
    arrows = [chess.svg.Arrow(played.from_square, played.to_square, color=PLAYED_ARROW)]
    best = note.best[0].move
    if best and best != note.played.move:
        move = chess.Move.from_uci(best)
        arrows.append(chess.svg.Arrow(move.from_square, move.to_square, color=BEST_ARROW))
    return chess.svg.board(board, arrows=arrows, size=320, orientation=board.turn)


def html_page(games: list[AnnotatedGame], request: AnnotateRequest) -> str:
    """A page a person opens in a browser: each game's moves, and a board at every position where
    the engine had something to say, with both moves' scores and lines."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(request.path.name)}: Ponderosa's annotations</title>",
             "<style>body{font-family:sans-serif;max-width:60em;margin:1em auto}"
             ".note{display:flex;gap:1.5em;align-items:flex-start;margin:1.5em 0;border-top:1px solid #ccc;"
             "padding-top:1em}.moves{line-height:1.6}.commented{font-weight:bold;color:#a00}"
             ".played{color:#c33}.best{color:#194}</style></head><body>",
             f"<h1>{html.escape(request.path.name)}</h1>",
             f"<p>Annotated by Ponderosa: {request.seconds:g} s per move, margin {request.margin / 100:.2f} pawns."
             f" The graph: the engine's score from White's side after each annotated move, clipped at five pawns"
             f" (a mate on the edge); a red dot is a commented move, linked to its board."
             f" Red arrow: the move played; green: the engine's choice.</p>"]
    for game in games:
        tags = game.tags
        title = f"{tags.get('White', '?')} – {tags.get('Black', '?')}"
        parts.append(f"<h2>Game {game.number}: {html.escape(title)} {html.escape(tags.get('Result', '*'))}</h2>")
        parts.append(f"<p>{html.escape(tags.get('Event', '?'))}, {html.escape(tags.get('Site', '?'))}, "
                     f"{html.escape(tags.get('Date', '?'))}</p>")
        if game.problem:
            parts.append(f"<p><em>{html.escape(game.problem)}</em></p>")
        notes = {note.ply: note for note in game.notes if note.commented}
        anchor = f"g{game.number}p{{}}"
        points = [GraphPoint(note.ply, note.played.score, note.move_text(),
                             anchor.format(note.ply) if note.commented else None) for note in game.notes]
        parts.append(score_graph_svg(points, len(game.moves), f"Game {game.number}: Ponderosa's score from "
                                     "White's side after each annotated move (clipped at 5 pawns; red: commented)"))
        board = chess.Board(game.start_fen)
        words = []
        for ply, move in enumerate(game.moves):
            number = f"{board.fullmove_number}. " if board.turn == chess.WHITE else \
                f"{board.fullmove_number}... " if ply == 0 else ""
            text = number + board.san(move)
            if ply in notes:
                words.append(f'<a class="commented" href="#g{game.number}p{ply}">{html.escape(text)}</a>')
            else:
                words.append(html.escape(text))
            board.push(move)
        parts.append(f'<p class="moves">{" ".join(words)} {html.escape(tags.get("Result", "*"))}</p>')
        for note in game.notes:
            if not note.commented:
                continue
            before = note.board
            rows = [f'<p id="g{game.number}p{note.ply}"><b>{html.escape(note.move_text())}</b></p>',
                    f'<p class="played">played: {format_score(note.played.score)} at depth {note.played.depth}: '
                    f"{html.escape(san_line(before, note.played.pv))}</p>"]
            for rank, line in enumerate(note.best, 1):
                label = "Ponderosa" if rank == 1 else f"choice {rank}"
                rows.append(f'<p class="best">{label}: {format_score(line.score)} at depth {line.depth}: '
                            f"{html.escape(san_line(before, line.pv))}</p>")
            parts.append(f'<div class="note"><div>{_board_svg(note)}</div><div>{"".join(rows)}</div></div>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
