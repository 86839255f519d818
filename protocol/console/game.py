"""The console's game commands: set-up (setboard, new, white, black), moves and takebacks (force,
undo, remove), go and analyze, pondering, hint, history, display, draw, resign and result."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import chess

from ponderosa.engine.engine import IllegalMoveError
from ponderosa.engine.fen import FenError
from ponderosa.engine.search import SearchLimits
from ponderosa.protocol.console.commands import MOVE_PATTERN, CommandError, positive_int
from ponderosa.protocol.console.records import setboard_from_file

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console

HINT_SECONDS = 0.5


def cmd_setboard(console: Console, args: list[str]) -> None:
    if not args:
        raise CommandError("usage: setboard FEN")
    if len(args) == 1 and os.path.lexists(args[0]):   # a file (savepos's), whatever kind: the door says what it is
        setboard_from_file(console, args[0])
        return
    try:
        console.engine.set_position(" ".join(args))
    except FenError as error:
        raise CommandError(str(error)) from None


def cmd_new(console: Console, args: list[str]) -> None:
    console.engine.new_game()
    console.engine_side = chess.BLACK
    console.clock.own_moves = 0
    console.ponder_move = None
    console.low_scores = 0
    console.clock.reset()


def _give_move_to(console: Console, white: bool) -> None:
    """Crafty's white/black: the other side is on move, in the same position."""
    try:
        console.engine.give_move_to(white)
    except FenError as error:
        raise CommandError(f"cannot give the move to that side here: {error}") from None


def cmd_white(console: Console, args: list[str]) -> None:
    _give_move_to(console, chess.WHITE)


def cmd_black(console: Console, args: list[str]) -> None:
    _give_move_to(console, chess.BLACK)


def cmd_force(console: Console, args: list[str]) -> None:
    """force MOVE: take back the engine's last move and play MOVE instead (Crafty);
    force alone: the engine stops playing either side until `go`."""
    engine = console.engine
    engine.end_search()
    if not args:
        console.engine_side = None
        return
    try:
        engine.undo()
    except IndexError:
        raise CommandError("no move to replace") from None
    try:
        engine.make_move(args[0])
    except IllegalMoveError:
        console.say(f"Illegal move: {args[0]}")


def cmd_undo(console: Console, args: list[str]) -> None:
    try:
        console.engine.undo()
    except IndexError:
        raise CommandError("no move to take back") from None


def cmd_remove(console: Console, args: list[str]) -> None:
    console.engine.end_search()
    for _ in range(2):
        try:
            console.engine.undo()
        except IndexError:
            raise CommandError("no move to take back") from None


def cmd_go(console: Console, args: list[str]) -> None:
    """Play the side to move from now on, and move now."""
    engine = console.engine
    if not engine.legal_moves():
        raise CommandError("no legal moves: the game is over")
    if engine.position().is_game_over():   # ended by rule (75 moves, fivefold repetition, no mating material)
        outcome = engine.outcome()
        raise CommandError(f"the game is over: {outcome[1] if outcome else 'by rule'}")
    engine.end_search()   # a ponder search shares the searcher: two at once crash the core
    console.engine_side = engine.white_to_move
    console.think_and_play()


def cmd_analyze(console: Console, args: list[str]) -> None:
    """Think without end on the side to move; a move is played and thinking restarts; exit leaves."""
    engine = console.engine
    while True:
        console.thinking_header()
        engine.start_search(SearchLimits(), console.show_thinking, lambda serial, result: None)
        line = console.input.readline()
        engine.end_search()
        words = line.split()
        if not line or (words and words[0].lower() in ("exit", "quit", "end")):
            if words and words[0].lower() in ("quit", "end"):
                console.running = False
            return
        if not words:
            continue
        if words[0].lower() in ("undo", "back"):
            cmd_undo(console, [])
        elif words[0].lower() == "setboard":
            cmd_setboard(console, words[1:])
        elif MOVE_PATTERN.match(line.strip()):
            try:
                engine.make_move(line.strip())
            except IllegalMoveError:
                console.say(f"Illegal move: {line.strip()}")
        else:
            console.say(f"Error (not in analyze mode): {words[0]}")


def cmd_ponder(console: Console, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: ponder on|off|MOVE")
    word = args[0].lower()
    if word in ("on", "off"):
        console.ponder_enabled = word == "on"
        if not console.ponder_enabled:
            console.engine.end_search()
        return
    try:
        console.ponder_move = console.engine.parse_move(args[0])
    except IllegalMoveError:
        console.say(f"Illegal move: {args[0]}")


def cmd_hint(console: Console, args: list[str]) -> None:
    engine = console.engine
    if console.ponder_move and console.ponder_move in engine.legal_moves():
        console.say(f"Hint: {engine.san(console.ponder_move)}")
        return
    result = engine.think(SearchLimits.fixed_time(HINT_SECONDS))
    if result.best_move is None:
        raise CommandError("no legal moves")
    console.say(f"Hint: {engine.san(result.best_move)}")


def cmd_history(console: Console, args: list[str]) -> None:
    game = console.engine.position()
    board = game.root()
    lines: list[str] = []
    for move in game.move_stack:
        san = board.san(move)
        if board.turn == chess.WHITE or not lines:
            prefix = f"{board.fullmove_number:>3}. " + ("" if board.turn == chess.WHITE else "...      ")
            lines.append(f"{prefix}{san:<9}")
        else:
            lines[-1] += san
        board.push(move)
    console.say("      White    Black")
    for line in lines:
        console.say(line)


def cmd_display(console: Console, args: list[str]) -> None:
    flipped = console.flipped
    border = "    +---+---+---+---+---+---+---+---+"
    console.say(border)
    for rank in (range(8) if flipped else range(7, -1, -1)):
        cells = []
        for file in (range(7, -1, -1) if flipped else range(8)):
            piece = console.engine.piece_at(rank * 8 + file)
            # Black pieces are marked with '*' as on ICS style boards, so they stand out.
            cells.append(f" {piece.upper()} " if piece.isupper() else
                         f"*{piece.upper()} " if piece else (" . " if (rank + file) % 2 == 0 else "   "))
        console.say(f"  {rank + 1} |" + "|".join(cells) + "|")
        console.say(border)
    console.say("      h   g   f   e   d   c   b   a" if flipped else "      a   b   c   d   e   f   g   h")
    console.say(f"  {console.engine.fen()}")


def cmd_draw(console: Console, args: list[str]) -> None:
    """The user offers a draw: accepted when the last search was not above the draw score."""
    engine = console.engine
    if engine.position(stack=False).is_insufficient_material() or console.last_score <= engine.draw_score:
        console.say("Draw accepted.")
        console.say("1/2-1/2 {Drawn by mutual agreement}")
        console.engine_side = None
    else:
        console.say("Draw declined.")


def cmd_resign(console: Console, args: list[str]) -> None:
    console.resign_pawns = positive_int(args, "resign N  (pawns behind; 0 = never)", minimum=0)


def cmd_result(console: Console, args: list[str]) -> None:
    """result 1-0|0-1|1/2-1/2: the game is over (the engine learns from it)."""
    if len(args) < 1 or args[0] not in ("1-0", "0-1", "1/2-1/2"):
        raise CommandError("usage: result 1-0|0-1|1/2-1/2")
    console.engine.end_search()
    console.engine.finish_game(args[0])
    console.engine_side = None
