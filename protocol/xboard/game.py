"""XBoard's game and analysis commands: the handshake, new, force, go, moves, takebacks, set-up
(setboard and edit mode), draw and result, pondering, analysis, pause and resume. Each handler
is given the session; the searches themselves are the session's."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import chess

from ponderosa.engine.book.opening_book import book_table
from ponderosa.engine.fen import FenError
from ponderosa.protocol.xboard.features import EarlyAnswer, feature_lines

if TYPE_CHECKING:
    from ponderosa.protocol.xboard.session import XBoardSession

EDIT_PIECE = re.compile(r"^[PNBRQKX][a-h][1-8]$", re.IGNORECASE)


@dataclass
class EditBoard:
    """Edit mode's position so far: pieces by square, and the colour of the next ones."""

    pieces: dict[int, str] = field(default_factory=dict)
    white: bool = True


# -- the handshake ------------------------------------------------------------------

def protover(session: XBoardSession, args: str) -> None:
    if EarlyAnswer.take():
        return   # the launcher sent these lines before the engine loaded
    for line in feature_lines(session.engine.options.get):
        session.out.line(line)


VARIANTS = {"normal": False, "standard": False, "fischerandom": True}   # name -> Chess960


def variant(session: XBoardSession, args: str) -> None:
    """The game after `new` is of this variant: normal chess or Chess960 (`fischerandom`); the
    GUI then sends the start position with setboard. `new` returns to normal chess."""
    name = args.strip()
    if name not in VARIANTS:
        session.out.line(f"Error (unknown variant): {args}")
        return
    session.abandon()
    session.engine.set_chess960(VARIANTS[name])


def silent(session: XBoardSession, args: str) -> None:
    """Commands that need no reply and change nothing here (random, accepted, ...)."""


def ping(session: XBoardSession, args: str) -> None:
    number = args.split()[0] if args.split() else ""   # echo N itself, never trailing junk
    if session.active is not None and session.active.kind == "think":
        session.pending_pings.append(number)   # answered after the move
    else:
        session.out.line(f"pong {number}".rstrip())


# -- the game -------------------------------------------------------------------------

def new(session: XBoardSession, args: str) -> None:
    session.abandon()
    session.engine.new_game(chess960=False)   # `new` is normal chess until a `variant` says otherwise
    session.engine_side = chess.BLACK
    session.clock.new_game()
    session.excluded.clear()
    session.invalid_position = False
    session.draw_offered = False
    session.last_scores = []
    session.ics.new_game()
    if session.analyzing:
        session.start_analysis()


def force(session: XBoardSession, args: str) -> None:
    session.abandon()
    session.engine_side = None


def go(session: XBoardSession, args: str) -> None:
    if session.active is not None and session.active.kind == "think":
        return   # already thinking: a second `go` must not make a second move
    session.abandon()
    session.analyzing = False
    session.engine_side = session.engine.white_to_move
    session.start_thinking()


def playother(session: XBoardSession, args: str) -> None:
    session.abandon()
    session.engine_side = not session.engine.white_to_move


def _give_move_to(session: XBoardSession, white: bool) -> None:
    session.abandon()
    try:
        session.engine.give_move_to(white)
    except FenError:
        session.invalid_position = True
    session.engine_side = not white


def white(session: XBoardSession, args: str) -> None:
    _give_move_to(session, chess.WHITE)


def black(session: XBoardSession, args: str) -> None:
    _give_move_to(session, chess.BLACK)


def usermove(session: XBoardSession, args: str) -> None:
    session.user_move(args)


def move_now(session: XBoardSession, args: str) -> None:
    if session.active is not None and session.active.kind == "think":
        session.engine.stop()   # the search returns its best move, which is then played


def draw(session: XBoardSession, args: str) -> None:
    session.draw_offered = True
    if session.active is None or session.active.kind != "think":
        score = session.last_scores[-1] if session.last_scores else 0
        if session.engine_side is not None and session.accepts_draw(score):
            session.out.line("offer draw")
            session.draw_offered = False


def result(session: XBoardSession, args: str) -> None:
    session.abandon()
    session.ics.result(args)
    session.engine_side = None
    words = args.split()
    if words:
        session.engine.finish_game(words[0])   # the engine learns from the game (a loss above all)


def setboard(session: XBoardSession, args: str) -> None:
    session.abandon()
    try:
        session.engine.set_position(args)
        session.invalid_position = False
    except FenError:
        session.invalid_position = True
        session.out.line("tellusererror Illegal position")
    session.excluded.clear()
    session.last_scores = []
    if session.analyzing:
        session.start_analysis()


def undo(session: XBoardSession, args: str) -> None:
    _take_back(session, 1)


def remove(session: XBoardSession, args: str) -> None:
    _take_back(session, 2)


def _take_back(session: XBoardSession, plies: int) -> None:
    session.abandon()
    for _ in range(plies):
        try:
            session.engine.undo()
        except IndexError:
            break
    session.excluded.clear()
    session.invalid_position = False
    if session.analyzing:
        session.start_analysis()


def hint(session: XBoardSession, args: str) -> None:
    active = session.active
    move = active.ponder_move if active is not None and active.kind == "ponder" else None
    report = session.last_report
    if move is None and report is not None and report.pv:
        candidate = report.pv[0]
        if candidate in session.engine.legal_moves():
            move = candidate
    if move is not None:
        session.out.line(f"Hint: {session.move_text(move)}")


def bk(session: XBoardSession, args: str) -> None:
    """The book's candidates for the position, as a popup text (lines start with a space)."""
    engine = session.engine
    decision = engine.book_decision() if engine.options.book_enabled else None
    if engine.chess960:
        lines = ["no book in Chess960: the book is standard chess's"]
    elif decision is None:
        lines = ["no book moves in this position"]
    else:
        lines = book_table(decision, engine.position(stack=False))
    for line in lines:
        session.out.line(f" {line}")
    session.out.line("")


# -- edit mode --------------------------------------------------------------------------

def edit(session: XBoardSession, args: str) -> None:
    session.abandon()
    pieces = {square: piece.symbol() for square, piece in session.engine.position(stack=False).piece_map().items()}
    session.editing = EditBoard(pieces)


def edit_line(session: XBoardSession, line: str) -> None:
    """One line in edit mode: a piece on a square (x removes), `#` clears, `c` switches colour,
    `.` sets the position up and leaves."""
    board = session.editing
    assert board is not None
    if line == ".":
        session.editing = None
        try:
            session.engine.set_pieces(board.pieces, session.engine.white_to_move)
            session.invalid_position = False
        except (FenError, ValueError):
            session.invalid_position = True
            session.out.line("tellusererror Illegal position")
        session.excluded.clear()
        if session.analyzing:
            session.start_analysis()
    elif line == "#":
        board.pieces.clear()
    elif line == "c":
        board.white = not board.white
    elif EDIT_PIECE.match(line):
        square = chess.parse_square(line[1:3])
        if line[0] in "xX":
            board.pieces.pop(square, None)
        else:
            board.pieces[square] = line[0].upper() if board.white else line[0].lower()
    else:
        session.out.line(f"Error (bad edit command): {line}")


# -- thinking, pondering, analysis ---------------------------------------------------------

def hard(session: XBoardSession, args: str) -> None:
    session.ponder_enabled = True


def easy(session: XBoardSession, args: str) -> None:
    session.ponder_enabled = False
    if session.active is not None and session.active.kind == "ponder":
        session.abandon()


def post(session: XBoardSession, args: str) -> None:
    session.post = True


def nopost(session: XBoardSession, args: str) -> None:
    session.post = False


def analyze(session: XBoardSession, args: str) -> None:
    session.abandon()
    session.analyzing = True
    session.engine_side = None
    session.start_analysis()


def exit_analysis(session: XBoardSession, args: str) -> None:
    if session.analyzing:
        session.abandon()
        session.analyzing = False


def status(session: XBoardSession, args: str) -> None:
    """`.` in analyze mode: a stat01 line from the latest report."""
    report = session.last_report
    if not (session.analyzing and session.active is not None and report is not None):
        return
    total = len(session.engine.legal_moves())
    session.out.line(f"stat01: {int(report.seconds * 100)} {report.nodes} {report.depth} 0 {total}")


def pause(session: XBoardSession, args: str) -> None:
    if session.active is not None:
        session.paused_kind = session.active.kind
        if session.active.kind == "ponder":
            session.paused_kind = None
        session.abandon()


def resume(session: XBoardSession, args: str) -> None:
    kind, session.paused_kind = session.paused_kind, None
    if kind == "think":
        session.start_thinking()
    elif kind == "analyze":
        session.start_analysis()


GAME_COMMANDS: dict[str, Callable[[XBoardSession, str], None]] = {
    "xboard": silent, "protover": protover, "accepted": silent, "rejected": silent, "variant": variant,
    "ping": ping, "random": silent, "hover": silent, "lift": silent, "put": silent,
    "new": new, "force": force, "go": go, "playother": playother, "white": white, "black": black,
    "usermove": usermove, "?": move_now, "draw": draw, "result": result, "setboard": setboard,
    "undo": undo, "remove": remove, "hint": hint, "bk": bk, "edit": edit,
    "hard": hard, "easy": easy, "post": post, "nopost": nopost, "analyze": analyze, "exit": exit_analysis,
    ".": status, "pause": pause, "resume": resume,
}
