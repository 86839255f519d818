"""One game of a match (tools/match/gauntlet.py) between two engine processes (tools/match/engines.py): the
clocks, the rules applied on the board, resign adjudication, faults charged to the side that made
them, and the game's PGN with each move's score, depth and time."""
from __future__ import annotations

import datetime
import threading
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

from tools.match.engines import Player

FORFEIT_WAIT = 1.0     # after a flag fall, how long to go on waiting (only to report how late the move was)
ENGINE_SIDE, OPPONENT_SIDE = "engine", "opponent"
# A fault's words in the game's last comment (tools/match/clock_report.py reads them back).
FAULT_WORDS = {"illegal": "plays an illegal move", "crash": "crashed", "error": "engine error"}


def rules_end(board: chess.Board) -> tuple[str, str] | None:
    """(result, reason) when the game is over by the rules on the board as it stands."""
    if board.is_checkmate():
        return ("0-1", "Black mates") if board.turn == chess.WHITE else ("1-0", "White mates")
    if board.is_stalemate():
        return "1/2-1/2", "stalemate"
    if board.is_insufficient_material():
        return "1/2-1/2", "insufficient material"
    if board.is_fifty_moves():
        return "1/2-1/2", "50-move rule"
    if board.is_repetition(3):
        return "1/2-1/2", "threefold repetition"
    return None


@dataclass(frozen=True)
class Opening:
    line: int                    # line number in the openings file
    fen: str
    moves: tuple[chess.Move, ...] | None   # from the start position, or None (setboard needed)
    chess960: int | None = None  # Chess960 start position number (0-959; line unused), None for standard chess


@dataclass(frozen=True)
class Job:
    number: int          # 1-based over the whole run
    opponent: str
    round: str           # "opening.game", e.g. "3.2"
    opening: Opening
    engine_white: bool


@dataclass
class GameRecord:
    job: Job
    white: str
    black: str
    result: str
    termination: str                 # PGN Termination tag value
    reason: str                      # what happened, in words
    fault: str | None = None      # time / illegal / crash / error
    fault_side: str | None = None  # ENGINE_SIDE / OPPONENT_SIDE
    plies: int = 0
    pgn: str = ""

    @property
    def engine_points(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == self.job.engine_white else 0.0


@dataclass
class Settings:
    base: float
    inc: float
    max_plies: int
    resign_moves: int      # 0 = off
    resign_cp: int
    time_margin: float
    tc_text: str
    event: str


def score_comment(info: dict, elapsed: float) -> str:
    parts = []
    score = info.get("score")
    if score is not None:
        pov = score.relative
        if pov.is_mate():
            mate = pov.mate()
            parts.append(f"{'+' if mate > 0 else '-'}M{abs(mate)}")
        else:
            parts.append(f"{pov.score() / 100:+.2f}")
        if "depth" in info:
            parts[-1] += f"/{info['depth']}"
    parts.append(f"{elapsed:.3f}s")
    return " ".join(parts)


def white_cp(info: dict) -> int | None:
    score = info.get("score")
    if score is None:
        return None
    return score.white().score(mate_score=100000)


def play_game(job: Job, engine: Player, opponent: Player, settings: Settings,
              stop: threading.Event) -> GameRecord | None:
    """Plays one game; None if it was aborted (Ctrl-C)."""
    white, black = (engine, opponent) if job.engine_white else (opponent, engine)
    side_of = {chess.WHITE: ENGINE_SIDE if job.engine_white else OPPONENT_SIDE,
               chess.BLACK: OPPONENT_SIDE if job.engine_white else ENGINE_SIDE}
    if job.opening.moves is not None:
        board = chess.Board()
        for move in job.opening.moves:
            board.push(move)
    else:
        board = chess.Board(job.opening.fen, chess960=job.opening.chess960 is not None)
    opening_board = board.copy(stack=False)
    opening_plies = len(board.move_stack)
    clocks = {chess.WHITE: settings.base, chess.BLACK: settings.base}
    token = object()
    comments: list[str] = []
    white_scores: list[int | None] = []
    result = termination = reason = ""
    fault = fault_side = None
    names = {chess.WHITE: white.name, chess.BLACK: black.name}

    def lose(color: bool, kind: str | None, why: str, pgn_termination: str) -> None:
        nonlocal result, termination, reason, fault, fault_side
        result = "0-1" if color == chess.WHITE else "1-0"
        termination, reason = pgn_termination, why
        if kind is not None:
            fault, fault_side = kind, side_of[color]

    while True:
        ended = rules_end(board)
        if ended:
            result, reason = ended
            termination = "normal"
            break
        if board.ply() >= settings.max_plies:
            result, termination = "1/2-1/2", "adjudication"
            reason = f"draw by adjudication: maximum length of {settings.max_plies} plies"
            break
        if settings.resign_moves:
            recent = white_scores[-2 * settings.resign_moves:]
            if len(recent) == 2 * settings.resign_moves and all(s is not None for s in recent):
                if all(s >= settings.resign_cp for s in recent):  # type: ignore[operator]
                    lose(chess.BLACK, None, "White wins by resign adjudication", "adjudication")
                    break
                if all(s <= -settings.resign_cp for s in recent):  # type: ignore[operator]
                    lose(chess.WHITE, None, "Black wins by resign adjudication", "adjudication")
                    break
        color = board.turn
        player = white if color == chess.WHITE else black
        who = f"{'White' if color == chess.WHITE else 'Black'} ({names[color]})"
        limit = chess.engine.Limit(white_clock=max(clocks[chess.WHITE], 0.001),
                                   black_clock=max(clocks[chess.BLACK], 0.001),
                                   white_inc=settings.inc, black_inc=settings.inc, clock_id=token)
        outcome = player.play(board, limit, token, clocks[color] + settings.time_margin + FORFEIT_WAIT, stop)
        if outcome.fault == "aborted":
            return None
        clocks[color] -= outcome.elapsed
        if outcome.fault == "time" or (outcome.fault is None and clocks[color] < -settings.time_margin):
            lose(color, "time", f"{who} loses on time (used {outcome.elapsed:.3f} s, had "
                 f"{clocks[color] + outcome.elapsed:.3f} s{'; no move yet' if outcome.result is None else ''})",
                 "time forfeit")
            break
        if outcome.fault is not None:
            lose(color, outcome.fault, f"{who} {FAULT_WORDS[outcome.fault]}: {outcome.detail}", "rules infraction")
            break
        assert outcome.result is not None
        play = outcome.result
        move = play.move
        if move is None:
            if play.resigned:
                lose(color, None, f"{who} resigns", "normal")
            elif board.can_claim_draw():
                result, termination = "1/2-1/2", "normal"
                reason = f"{who} claims a draw ({'50-move rule' if board.can_claim_fifty_moves() else 'repetition'})"
            else:
                lose(color, "error", f"{who} made no move (a false claim or a null best move)", "rules infraction")
            break
        if move not in board.legal_moves:
            lose(color, "illegal", f"{who} {FAULT_WORDS['illegal']}: {move.uci()}", "rules infraction")
            break
        board.push(move)
        clocks[color] += settings.inc
        comments.append(score_comment(play.info, outcome.elapsed))
        white_scores.append(white_cp(play.info))
        if play.resigned and not rules_end(board):
            lose(color, None, f"{who} resigns after its move", "normal")
            break

    record = GameRecord(job, white.name, black.name, result, termination, reason, fault, fault_side,
                        board.ply())
    record.pgn = game_pgn(record, settings, opening_board, board.move_stack[opening_plies:], comments)
    for player in (white, black):
        player.send_result(board, result, reason)
    return record


def game_pgn(record: GameRecord, settings: Settings, opening_board: chess.Board,
             moves: list[chess.Move], comments: list[str]) -> str:
    game = chess.pgn.Game()
    game.headers["Event"] = settings.event
    game.headers["Site"] = "?"
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = record.job.round
    game.headers["White"] = record.white
    game.headers["Black"] = record.black
    game.headers["Result"] = record.result
    game.setup(opening_board)   # SetUp "1" and FEN of the opening position (and Variant "Chess960")
    game.headers["TimeControl"] = settings.tc_text
    game.headers["Termination"] = record.termination
    game.headers["TerminationDetails"] = record.reason
    opening = record.job.opening
    if opening.moves is not None:
        game.headers["Opening"] = chess.Board().variation_san(list(opening.moves))
    if opening.chess960 is not None:
        game.headers["Chess960Position"] = str(opening.chess960)
    else:
        game.headers["OpeningLine"] = str(opening.line)
    game.headers["PlyCount"] = str(len(moves))
    node: chess.pgn.GameNode = game
    for move, comment in zip(moves, comments):
        node = node.add_variation(move, comment=comment)
    node.comment = (node.comment + " " if node.comment else "") + record.reason
    return str(game)
