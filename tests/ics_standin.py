"""A small stand-in for a FICS chess server, for the end-to-end test of Ponderosa as a zippy
bot (xboard -ics -zp). It speaks the part of the FICS protocol that xboard's zippy uses:
login and password prompts, `Challenge:` lines answered by `accept`, `Creating:` and
`{Game N ...}` lines, style 12 boards, moves, draw offers, resignation and game end. The
opponent is a scripted mover with a clock of its own; the bot's clock is charged the wall
time from the board sent to the move received (the real lag of xboard and the pipes) plus an
artificial lag. Everything the bot sends is recorded, so that a test can assert what it said.

It binds 127.0.0.1 only, on a free port, and stops by itself after `lifetime` seconds."""
from __future__ import annotations

import random
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import chess

Mover = Callable[[chess.Board], chess.Move]
PROMPT = "fics% "


@dataclass
class Received:
    at: float
    game: int | None        # the game in progress when the line came, if any
    text: str


@dataclass
class GameRecord:
    number: int
    opponent: str
    bot_white: bool
    start_fen: str
    board: chess.Board
    result: str = ""
    reason: str = ""
    bot_moves: list[str] = field(default_factory=list)
    illegal: list[str] = field(default_factory=list)
    bot_clock_low: float = 1e9          # the lowest the bot's clock went (seconds)
    flagged: bool = False


def rating_text(value: int) -> str:
    """A rating as FICS shows it: ---- when the player has none."""
    return str(value) if value else "----"


def quiet_king_mover(board: chess.Board) -> chess.Move:
    """Move the king without capturing, mating or stalemating: keeps a lost position lost
    (for the bot) without ending the game. Falls back to any legal move."""
    moves = list(board.legal_moves)
    for move in moves:
        if board.piece_type_at(move.from_square) == chess.KING and not board.is_capture(move):
            board.push(move)
            over = board.is_game_over()
            board.pop()
            if not over:
                return move
    return moves[0]


def random_mover(seed: int) -> Mover:
    """A seeded random mover that takes a mate in one when it has one."""
    generator = random.Random(seed)

    def move(board: chess.Board) -> chess.Move:
        moves = list(board.legal_moves)
        for candidate in moves:
            board.push(candidate)
            mate = board.is_checkmate()
            board.pop()
            if mate:
                return candidate
        return generator.choice(moves)
    return move


class IcsStandIn:
    """The server: one client (xboard) at a time; games are started by the test thread."""

    def __init__(self, handle: str = "PonderosaBot", lifetime: float = 300.0, lag: float = 0.05) -> None:
        self.handle = handle
        self.lag = lag
        self.received: list[Received] = []
        self.games: list[GameRecord] = []
        self.logged_in = threading.Event()
        self.game_over = threading.Event()
        self._accepted = threading.Event()
        self._lock = threading.Lock()
        self._conn: socket.socket | None = None
        self._game: GameRecord | None = None
        self._mover: Mover = quiet_king_mover
        self._opponent_delay = 0.02
        self._bot_clock = 0.0
        self._opponent_clock = 0.0
        self._sent_at = 0.0
        self._max_bot_moves: int | None = None
        self._draw_after: int | None = None
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(1)
        self.port = self._listener.getsockname()[1]
        self._deadline = time.monotonic() + lifetime
        self._running = True
        threading.Thread(target=self._serve, name="ics-standin", daemon=True).start()

    # -- the connection ---------------------------------------------------------------

    def _serve(self) -> None:
        self._listener.settimeout(0.5)
        while self._running and time.monotonic() < self._deadline:
            try:
                conn, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            self._conn = conn
            try:
                self._session(conn)
            finally:
                conn.close()
                self._conn = None
        self.stop()

    def _send(self, text: str) -> None:
        conn = self._conn
        if conn is not None:
            try:
                conn.sendall(text.encode("utf-8"))
            except OSError:
                pass

    def _session(self, conn: socket.socket) -> None:
        conn.settimeout(0.5)
        self._send("Welcome to the Ponderosa test server (a FICS stand-in).\n\nlogin: ")
        stage = "login"
        pending = b""
        while self._running and time.monotonic() < self._deadline:
            try:
                chunk = conn.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            if not chunk:
                return
            pending += chunk
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                line = raw.decode("utf-8", errors="replace").strip("\r ")
                if stage == "login":
                    stage = "password"
                    self._send("password: ")
                elif stage == "password":
                    stage = "playing"
                    self._send(f"\n**** Starting FICS session as {self.handle} ****\n\n{PROMPT}")
                    self.logged_in.set()
                else:
                    self._command(line)

    def _command(self, line: str) -> None:
        with self._lock:
            game = self._game
            self.received.append(Received(time.monotonic(), game.number if game else None, line))
        line = line.lstrip("$")   # xboard's own commands come with FICS's no-alias prefix
        word = line.split()[0].lower() if line.split() else ""
        if word == "accept":
            self._accepted.set()
        elif game is not None and not game.result:
            if word == "resign":
                self._end(game, "0-1" if game.bot_white else "1-0", f"{self.handle} resigns")
            elif word == "draw" and self._draw_after is not None:
                self._end(game, "1/2-1/2", "Game drawn by mutual agreement")
            elif word == "abort":
                self._end(game, "*", "Game aborted by mutual agreement")
            elif self._looks_like_move(line):
                self._bot_move(game, line)
        self._send(f"{PROMPT}")

    @staticmethod
    def _looks_like_move(line: str) -> bool:
        return bool(re.fullmatch(r"[a-h][1-8]-?[a-h][1-8](=?[qrbnQRBN])?|[KQRBNP]?[a-h]?[1-8]?x?[a-h][1-8]"
                                 r"(=?[QRBN])?[+#]?|[Oo0]-[Oo0](-[Oo0])?", line.strip()))

    # -- games ------------------------------------------------------------------------

    def play(self, opponent: str, fen: str = chess.STARTING_FEN, bot_white: bool = True, *,
             minutes: int = 1, increment: int = 0, bot_seconds: float | None = None,
             opponent_seconds: float | None = None, computer: bool = False, ratings: tuple[int, int] = (0, 0),
             mover: Mover = quiet_king_mover, max_bot_moves: int | None = None,
             offer_draw_after: int | None = None, timeout: float = 60.0) -> GameRecord:
        """Challenge the bot, wait for `accept`, play one game and return its record. The game
        ends by the rules, by the bot's resignation, an accepted draw, a flag, or after
        max_bot_moves (adjudicated a draw)."""
        number = len(self.games) + 1
        board = chess.Board(fen)
        game = GameRecord(number, opponent, bot_white, fen, board)
        own_rating, opponent_rating = ratings
        for _ in range(50):
            self._accepted.clear()
            if computer:
                self._send(f"\n{opponent} is in the computer list.\n{PROMPT}")
            self._send(f"\nChallenge: {opponent} ({rating_text(opponent_rating)}) {self.handle} "
                       f"({rating_text(own_rating)}) unrated lightning {minutes} {increment}.\n"
                       f"You can \"accept\" or \"decline\", or propose different parameters.\n{PROMPT}")
            if self._accepted.wait(1.0):
                break
        else:
            raise TimeoutError("the bot never accepted the challenge")
        white, black = (self.handle, opponent) if bot_white else (opponent, self.handle)
        white_rating, black_rating = (own_rating, opponent_rating) if bot_white else (opponent_rating, own_rating)
        self._mover = mover
        self._max_bot_moves = max_bot_moves
        self._draw_after = offer_draw_after
        self._bot_clock = float(bot_seconds if bot_seconds is not None else minutes * 60)
        self._opponent_clock = float(opponent_seconds if opponent_seconds is not None else minutes * 60)
        self.game_over.clear()
        with self._lock:
            self._game = game
            self.games.append(game)
        self._send(f"\nCreating: {white} ({rating_text(white_rating)}) {black} ({rating_text(black_rating)}) "
                   f"unrated lightning {minutes} {increment}\n"
                   f"{{Game {number} ({white} vs. {black}) Creating unrated lightning match.}}\n")
        self._board(game, "none", "none", 0.0)
        if board.turn != bot_white:
            self._opponent_move(game)
        if not self.game_over.wait(timeout):
            self._end(game, "*", "Game aborted by the test server (time out)")
        return game

    def _board(self, game: GameRecord, verbose: str, pretty: str, taken: float) -> None:
        """A style 12 line for the current position; the bot's clock starts with it."""
        board = game.board
        rows = []
        for rank in range(7, -1, -1):
            row = ""
            for file in range(8):
                piece = board.piece_at(chess.square(file, rank))
                row += piece.symbol() if piece else "-"
            rows.append(row)
        to_move = "W" if board.turn == chess.WHITE else "B"
        ep = chess.square_file(board.ep_square) if board.ep_square is not None else -1
        castles = [int(board.has_kingside_castling_rights(chess.WHITE)),
                   int(board.has_queenside_castling_rights(chess.WHITE)),
                   int(board.has_kingside_castling_rights(chess.BLACK)),
                   int(board.has_queenside_castling_rights(chess.BLACK))]
        white, black = (self.handle, game.opponent) if game.bot_white else (game.opponent, self.handle)
        bot_to_move = board.turn == game.bot_white
        white_time = self._bot_clock if game.bot_white else self._opponent_clock
        black_time = self._opponent_clock if game.bot_white else self._bot_clock
        strength = [sum(len(board.pieces(kind, colour)) * value for kind, value in
                        ((chess.PAWN, 1), (chess.KNIGHT, 3), (chess.BISHOP, 3), (chess.ROOK, 5), (chess.QUEEN, 9)))
                    for colour in (chess.WHITE, chess.BLACK)]
        minutes, seconds = divmod(int(taken), 60)
        line = (f"<12> {' '.join(rows)} {to_move} {ep} {' '.join(map(str, castles))} {board.halfmove_clock} "
                f"{game.number} {white} {black} {1 if bot_to_move else -1} 1 0 {strength[0]} {strength[1]} "
                f"{max(0, int(white_time))} {max(0, int(black_time))} {board.fullmove_number} {verbose} "
                f"({minutes}:{seconds:02d}) {pretty} 0 1 0")
        self._send(f"\n{line}\n{PROMPT}")
        self._sent_at = time.monotonic()

    def _bot_move(self, game: GameRecord, text: str) -> None:
        board = game.board
        if board.turn != game.bot_white:
            game.illegal.append(f"{text} (not the bot's turn)")
            self._send("It is not your move.\n")
            return
        move = self._parse_move(board, text)
        if move is None:
            game.illegal.append(text)
            self._send(f"Illegal move ({text}).\n")
            return
        taken = time.monotonic() - self._sent_at + self.lag
        self._bot_clock -= taken
        game.bot_clock_low = min(game.bot_clock_low, self._bot_clock)
        if self._bot_clock < 0:
            game.flagged = True
            self._end(game, "0-1" if game.bot_white else "1-0", f"{self.handle} forfeits on time")
            return
        self._push(game, move, taken)
        game.bot_moves.append(move.uci())
        if self._finished(game):
            return
        if self._draw_after is not None and len(game.bot_moves) >= self._draw_after:
            self._send(f"\n{game.opponent} offers you a draw.\n{PROMPT}")
        if self._max_bot_moves is not None and len(game.bot_moves) >= self._max_bot_moves:
            self._end(game, "1/2-1/2", "Game drawn by adjudication")
            return
        threading.Thread(target=self._opponent_move, args=(game,), daemon=True).start()

    def _opponent_move(self, game: GameRecord) -> None:
        time.sleep(self._opponent_delay)
        with self._lock:
            if game.result:
                return
            move = self._mover(game.board.copy())
            self._opponent_clock -= self._opponent_delay
            self._push(game, move, self._opponent_delay)
            self._finished(game)

    def _push(self, game: GameRecord, move: chess.Move, taken: float) -> None:
        board = game.board
        pretty = board.san(move)
        piece = board.piece_at(move.from_square)
        letter = piece.symbol().upper() if piece else "P"
        verbose = f"{letter}/{chess.square_name(move.from_square)}-{chess.square_name(move.to_square)}"
        if board.is_castling(move):
            verbose = "o-o" if chess.square_file(move.to_square) > chess.square_file(move.from_square) else "o-o-o"
        elif move.promotion:
            verbose += "=" + chess.piece_symbol(move.promotion).upper()
        board.push(move)
        self._board(game, verbose, pretty, taken)

    def _finished(self, game: GameRecord) -> bool:
        outcome = game.board.outcome(claim_draw=True)
        if outcome is None:
            return False
        reasons = {chess.Termination.CHECKMATE: "checkmated", chess.Termination.STALEMATE: "drawn by stalemate",
                   chess.Termination.INSUFFICIENT_MATERIAL: "Neither player has mating material",
                   chess.Termination.THREEFOLD_REPETITION: "Game drawn by repetition",
                   chess.Termination.FIFTY_MOVES: "Game drawn by the 50 move rule"}
        reason = reasons.get(outcome.termination, "Game over")
        if outcome.termination == chess.Termination.CHECKMATE:
            loser = game.opponent if outcome.winner == game.bot_white else self.handle
            reason = f"{loser} checkmated"
        self._end(game, outcome.result(), reason)
        return True

    @staticmethod
    def _parse_move(board: chess.Board, text: str) -> chess.Move | None:
        token = text.strip().replace("-", "") if re.fullmatch(r"[a-h][1-8]-?[a-h][1-8].*", text.strip()) \
            else text.strip()
        token = token.replace("=", "").replace("o", "O").replace("0", "O")
        try:
            if re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbnQRBN]?", token):
                move = chess.Move.from_uci(token.lower())
                return move if move in board.legal_moves else None
            return board.parse_san(token.replace("OO", "O-O").replace("O-O-O", "O-O-O"))
        except ValueError:
            return None

    def _end(self, game: GameRecord, result: str, reason: str) -> None:
        if game.result:
            return
        game.result, game.reason = result, reason
        white, black = (self.handle, game.opponent) if game.bot_white else (game.opponent, self.handle)
        self._send(f"\n{{Game {game.number} ({white} vs. {black}) {reason}}} {result}\n{PROMPT}")
        self._game = None
        self.game_over.set()

    # -- what the bot said ------------------------------------------------------------

    def said(self, game: int | None = None, prefix: str = "") -> list[str]:
        """Lines the bot sent (during game `game`, if given) starting with prefix."""
        with self._lock:
            return [line.text for line in self.received
                    if (game is None or line.game == game) and line.text.startswith(prefix)]

    def stop(self) -> None:
        self._running = False
        try:
            self._listener.close()
        except OSError:
            pass
