"""UCI's game commands: `ucinewgame` and `position startpos|fen FEN [moves ...]`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import chess

from ponderosa.engine.fen import FenError, validate_fen

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.uci.session import UciSession

MAX_GAME_PLIES = 3500        # the core's history holds 4,096 plies, game and search together


def ucinewgame(session: UciSession, args: str) -> None:
    session.finish_active()
    _learn_from_game(session)
    session.engine.new_game()


def position(session: UciSession, args: str) -> None:
    """`position startpos|fen FEN [moves ...]`. The same game plus moves only plays the new
    moves (the learner and the book keep their state); a bad FEN keeps the last position;
    an illegal move keeps the position before it and drops the rest."""
    session.finish_active()
    words = args.split()
    if not words or words[0] not in ("startpos", "fen"):
        session.info_string(f"position needs 'startpos' or 'fen FEN', got {args!r}: position unchanged")
        return
    moves_at = words.index("moves") if "moves" in words else len(words)
    if words[0] == "startpos":
        if moves_at != 1:
            session.info_string(f"position startpos: unexpected {' '.join(words[1:moves_at])!r} ignored")
        fen = chess.STARTING_FEN
    else:
        try:
            fen = validate_fen(" ".join(words[1:moves_at]), session.engine.chess960)
        except FenError as error:
            session.info_string(f"bad FEN: {error}: position unchanged")
            return
    if len(words) - moves_at - 1 > MAX_GAME_PLIES:
        session.info_string(f"position: {len(words) - moves_at - 1} moves is more than the {MAX_GAME_PLIES} "
                            "plies of history the engine keeps: position unchanged")
        return
    board = chess.Board(fen, chess960=session.engine.chess960)
    moves: list[str] = []
    for text in words[moves_at + 1:]:
        try:
            move = board.parse_uci(text.lower())
        except ValueError:
            session.info_string(f"illegal move {text} in position: the moves from it on are ignored")
            break
        board.push(move)
        moves.append(move.uci())
    _set_game(session.engine, fen, moves)


def _set_game(engine: Engine, fen: str, moves: list[str]) -> None:
    """Bring the engine's game to fen + moves, playing or taking back as few moves as possible."""
    game = engine.position()
    current = [move.uci() for move in game.move_stack]
    if game.root().fen() == chess.Board(fen, chess960=engine.chess960).fen():
        common = 0
        while common < min(len(current), len(moves)) and current[common] == moves[common]:
            common += 1
        for _ in range(len(current) - common):
            engine.undo()
        for move in moves[common:]:
            engine.make_move(move)
        return
    engine.set_position(fen)
    for move in moves:
        engine.make_move(move)


def _learn_from_game(session: UciSession) -> None:
    """UCI sends no result: a game that ended on the board by rule is learned from."""
    engine = session.engine
    if session.analyse_mode or not engine.position().move_stack:
        return
    outcome = engine.outcome()
    if outcome is not None:
        engine.finish_game(outcome[0])


POSITION_COMMANDS: dict[str, Callable[[UciSession, str], None]] = {"ucinewgame": ucinewgame, "position": position}
