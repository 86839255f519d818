"""The game the engine plays: the core's position (what the search reads) and the same game as
python-chess's record (SAN, draw claims, PGN), its tags and its files. Moves and set-ups go to
both at once; the Engine facade adds what other services (the learner, the search thread) do
around them."""
from __future__ import annotations

from typing import Callable

import chess

from ponderosa.core_ext.core import START_FEN, Board
from ponderosa.engine.fen import FenError, validate_fen
from ponderosa.engine.notation import numbered_san
from ponderosa.engine.records import GameFiles, GameRecord, Players, game_pgn
from ponderosa.engine.write_errors import WriteErrors

# Why a game is over, as the protocols say it.
TERMINATION_REASONS = {
    chess.Termination.STALEMATE: "Stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "Insufficient material",
    chess.Termination.SEVENTYFIVE_MOVES: "Draw by seventy-five-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "Draw by repetition",
}


class IllegalMoveError(ValueError):
    """A move that is not legal (or not understood) in the current position."""


class GameState:
    """The position and its game record, kept move for move alike."""

    def __init__(self, write_errors: WriteErrors) -> None:
        self.chess960 = False                # Chess960 (XBoard variant fischerandom, UCI_Chess960)
        self.board = Board(START_FEN)        # the core's position, searched
        self.game = chess.Board()            # the same game as a record: SAN, claims, PGN
        self.record = GameRecord()           # tags and result of the current game (engine/records.py)
        self.game_files = GameFiles(errors=write_errors)   # log.NNN / game.NNN, when logging is on
        self.players: Callable[[], Players] = Players       # the protocol layer says who plays which side

    def reset(self, chess960: bool | None = None) -> None:
        """The start position, of Chess960 or standard chess when chess960 says (else as before)."""
        if chess960 is not None:
            self.chess960 = chess960
        self.board = Board(START_FEN, chess960=self.chess960)
        self.game = chess.Board(chess960=self.chess960)
        self.record.new_game()
        self.game_files.close()

    def set_fen(self, fen: str) -> str:
        """Set up a position; returns the FEN as checked. FenError (the old position kept) if bad."""
        checked = validate_fen(fen, self.chess960)
        self.board = Board(checked, chess960=self.chess960)
        self.game = chess.Board(checked, chess960=self.chess960)
        self.save_record()
        return checked

    def replace(self, start_fen: str, moves: list[chess.Move], before_change: Callable[[], None]) -> str:
        """The game from start_fen with moves; returns the start as checked. FenError for a bad
        start, IllegalMoveError for a bad move: the game is kept as it was (and before_change,
        which ends a running search, is not called)."""
        checked = validate_fen(start_fen, self.chess960)
        record, board = chess.Board(checked, chess960=self.chess960), Board(checked, chess960=self.chess960)
        for move in moves:
            # a null move is a side switch (white/black) kept in the game's history
            if not (record.is_legal(move) if move else not record.is_check()):
                raise IllegalMoveError(move.uci())
            record.push(move)
            board.push_uci(move.uci())
        before_change()
        self.board, self.game = board, record
        self.save_record()
        return checked

    def pgn(self) -> str:
        """The game so far as PGN, with its tags."""
        return game_pgn(self.game, self.record.headers(self.players(), self.game))

    def save_record(self) -> None:
        """Rewrite game.NNN after every change, so that a killed engine loses nothing (log on);
        a game not yet begun (the initial position, no moves) opens no file."""
        if self.game_files.enabled and (self.game.move_stack or self.game.root().fen() != chess.STARTING_FEN):
            self.game_files.write_game(self.pgn())

    def give_move_to(self, white: bool) -> bool:
        """The other side on move in the same position: a null move in the game's history (so
        that `reset` and `undo` go back across it). False if white already moves; FenError when
        the side on move is in check."""
        if self.game.turn == white:
            return False
        if self.game.is_check():
            raise FenError("the side on move is in check: the other side cannot be on move")
        self.board.push_uci(chess.Move.null().uci())
        self.game.push(chess.Move.null())
        self.save_record()
        return True

    @staticmethod
    def fen_of_pieces(pieces: dict[int, str], white_to_move: bool) -> str:
        """The FEN of pieces on squares (XBoard's edit mode): castling allowed where king and rook
        stand on their home squares, no e.p., move counters reset."""
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
        return board.fen()

    def parse_move(self, text: str) -> str:
        """A move in coordinates (g1f3, e7e8q, also e7e8Q and a7a8=Q) or SAN (Nf3, O-O, e8=Q)
        as UCI; raises IllegalMoveError."""
        text = text.strip()
        coordinate = text.replace("=", "").lower()
        if coordinate in self.board.legal_moves():
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

    def push(self, uci: str) -> str:
        """Play a legal move given in UCI on both boards; returns it in SAN."""
        move = chess.Move.from_uci(uci)
        san = self.game.san(move)
        self.board.push_uci(uci)
        self.game.push(move)
        self.save_record()
        return san

    def undo(self) -> str:
        """Take back the last move (UCI); raises IndexError when there is none."""
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

    def history(self) -> list[str]:
        """The moves of the game so far, in SAN."""
        return self.game.root().variation_san(self.game.move_stack).split() if self.game.move_stack else []

    def outcome(self) -> tuple[str, str] | None:
        """(result, reason) when the game is over by rule, or a draw can be claimed now (the
        position stands for the third time, or fifty moves passed); else None. Cheap enough to
        ask after every move: it does not look ahead for draws a move could still claim."""
        outcome = self.game.outcome(claim_draw=False)
        if outcome is not None:
            if outcome.termination == chess.Termination.CHECKMATE:
                return outcome.result(), "White mates" if outcome.winner else "Black mates"
            return outcome.result(), TERMINATION_REASONS.get(outcome.termination, "Game over")
        if self.game.halfmove_clock >= 100:
            return "1/2-1/2", "Draw by fifty-move rule"
        if self.game.is_repetition(3):
            return "1/2-1/2", "Draw by repetition"
        return None

    def san(self, uci: str) -> str:
        """A legal move of the current position in standard algebraic notation."""
        return self.game.san(chess.Move.from_uci(uci))

    def san_line(self, pv: list[str]) -> str:
        """A line of UCI moves from the current position in SAN with move numbers (1. e4 e5 2. Nf3)."""
        return numbered_san(chess.Board(self.board.fen(), chess960=self.chess960), pv, "{}. ...")

    def last_move_key(self) -> tuple[int, str]:
        """(key of the position before the last move, that move): what bookeval sets a value on."""
        if not self.game.move_stack:
            raise IndexError("no move has been played")
        before = self.board.copy()
        move = before.pop()
        return before.key, move
