"""One game of lichess-bot's own code against a scripted opponent, as a bot owner runs it: the
template config (`config.yml.default`) pointed at Ponderosa and read by lichess-bot's config check,
its engine wrapper and its `play_game` loop; only lichess.org is replaced, by `StandIn` below,
whose opponent is a second Ponderosa at a fixed depth. A process of its own (lichess-bot sets up
the process's logging), with lichess-bot's source on the import path; tests/test_lichess_bot.py
runs it so:

    PYTHONPATH=LICHESS_BOT_SOURCE python -m tools.match.lichess_bot_game LICHESS_BOT_SOURCE ENGINE WORKDIR RUN

RUN is uci, xboard-ponder, xboard-options, chess960-uci or chess960-xboard. The last line printed
is a JSON summary: moves, the longest move, illegal moves, errors logged, the result."""
from __future__ import annotations

import json
import logging
import logging.handlers
import os
import queue
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine

INITIAL_MS, INCREMENT_MS = 10_000, 100   # 10+0.1, lichess's clock in milliseconds
MAX_PLIES = 160                          # the opponent resigns then: the run has seen enough
OPPONENT_DEPTH = 3
CHESS960_START = 518 - 1                 # a Chess960 start other than the normal one (517: BBNNQRKR)


def run_config(source: Path, engine: Path, workdir: Path, run: str) -> Path:
    """The template config with what a bot owner sets: the engine's folder, name and protocol, a
    working folder for the learned files; xboard-options uncomments the template's
    xboard_options block as it stands."""
    import yaml
    config = yaml.safe_load((source / "config.yml.default").read_text())
    config["token"] = "stand-in"
    config["engine"]["dir"] = str(engine.parent)
    config["engine"]["name"] = engine.name
    config["engine"]["working_dir"] = str(workdir)
    config["engine"]["protocol"] = "xboard" if "xboard" in run else "uci"
    config["engine"]["ponder"] = True
    if run == "xboard-options":
        config["engine"]["xboard_options"] = {
            "cores": "4", "memory": "4096",
            "egtpath": {"gaviota": "Gaviota path", "nalimov": "Nalimov Path", "scorpio": "Scorpio Path",
                        "syzygy": "Syzygy Path"},
            "go_commands": {"depth": 5}}
    config["pgn_directory"] = str(workdir / "games")
    path = workdir / "config.yml"
    path.write_text(yaml.safe_dump(config))
    return path


def stand_in_class(lichess_module):
    """A Lichess of lichess-bot's own class with the network replaced by a scripted game."""

    class StandIn(lichess_module.Lichess):
        def __init__(self, board: chess.Board, opponent: chess.engine.SimpleEngine, variant: str) -> None:
            self.baseUrl = "http://127.0.0.1/"   # never contacted: every method that would is replaced
            self.board = board
            self.start = board.copy()
            self.opponent = opponent
            self.variant = variant
            self.bot_move: chess.Move | None = None
            self.asked = 0.0   # when the bot was last put on move
            self.illegal: list[str] = []
            self.move_seconds: list[float] = []
            self.clock = {chess.WHITE: INITIAL_MS, chess.BLACK: INITIAL_MS}
            self.result: str | None = None

        # -- what play_game asks of lichess.org
        def get_profile(self) -> dict:
            return {"id": "ponderosa", "username": "ponderosa", "title": "BOT", "online": True, "perfs": {}}

        def make_move(self, game_id: str, move: chess.engine.PlayResult) -> None:
            used = time.monotonic() - self.asked
            self.move_seconds.append(used)
            if len(self.move_seconds) > 1:   # lichess starts a clock after the side's first move
                self.clock[chess.WHITE] += INCREMENT_MS - int(used * 1000)
            self.bot_move = move.move

        def chat(self, game_id: str, room: str, text: str) -> None:
            pass

        def abort(self, game_id: str) -> None:
            self.result = self.result or "aborted"

        def resign(self, game_id: str) -> None:
            self.result = "bot resigned"

        def accept_takeback(self, game_id: str, accept: bool) -> bool:
            return False

        def get_ongoing_games(self) -> list:
            return []

        def is_online(self, user_id: str) -> bool:
            return True

        def get_public_data(self, user_name: str) -> dict:
            return {}

        def online_book_get(self, path: str, params: dict | None = None, *, stream: bool = False,
                            authenticated: bool = False) -> dict:
            return {}

        def get_game_pgn(self, game_id: str) -> str:
            return ""

        def get_game_stream(self, game_id: str) -> _Stream:
            return _Stream(self.events())

        # -- the scripted game
        def state(self, status: str = "started", winner: str | None = None) -> dict:
            moves = " ".join(move.uci() for move in self.board.move_stack)
            upd = {"type": "gameState", "moves": moves, "wtime": self.clock[chess.WHITE],
                   "btime": self.clock[chess.BLACK], "winc": INCREMENT_MS, "binc": INCREMENT_MS, "status": status}
            if winner:
                upd["winner"] = winner
            return upd

        def events(self) -> Iterator[bytes]:
            chess960 = self.variant == "chess960"
            full = {"id": "standin1", "type": "gameFull", "rated": False, "speed": "blitz",
                    "variant": {"key": self.variant, "name": "Chess960" if chess960 else "Standard"},
                    "clock": {"initial": INITIAL_MS, "increment": INCREMENT_MS}, "perf": {"name": "Blitz"},
                    "createdAt": int(time.time() * 1000),
                    "white": {"id": "ponderosa", "name": "ponderosa", "title": "BOT", "rating": 2500},
                    "black": {"id": "opponent", "name": "opponent", "title": "BOT", "rating": 1500},
                    "initialFen": self.start.fen() if chess960 else "startpos", "state": self.state()}
            self.asked = time.monotonic()
            yield json.dumps(full).encode()   # its state has the bot (White) on move
            while True:
                while self.bot_move is None:   # lichess-bot answers through make_move
                    yield b""                  # a keep-alive line, as lichess sends
                move, self.bot_move = self.bot_move, None
                if move not in self.board.legal_moves:
                    self.illegal.append(f"{move} in {self.board.fen()}")
                    self.result = "illegal move"
                    yield json.dumps(self.state("cheat", "black")).encode()
                    return
                self.board.push(move)
                if self.board.is_game_over(claim_draw=True) or self.clock[chess.WHITE] < 0:
                    yield json.dumps(self.finished()).encode()
                    return
                yield json.dumps(self.state()).encode()   # the bot's own move, as lichess sends it
                if self.board.ply() >= MAX_PLIES:
                    self.result = "opponent resigned"
                    yield json.dumps(self.state("resign", "white")).encode()
                    return
                reply = self.opponent.play(self.board, chess.engine.Limit(depth=OPPONENT_DEPTH)).move
                assert reply is not None
                self.board.push(reply)
                if self.board.is_game_over(claim_draw=True):
                    yield json.dumps(self.finished()).encode()
                    return
                self.asked = time.monotonic()
                yield json.dumps(self.state()).encode()

        def finished(self) -> dict:
            if self.clock[chess.WHITE] < 0:
                self.result = "bot lost on time"
                return self.state("outoftime", "black")
            outcome = self.board.outcome(claim_draw=True)
            assert outcome is not None
            self.result = outcome.result()
            winner = None if outcome.winner is None else ("white" if outcome.winner else "black")
            return self.state("mate" if outcome.termination == chess.Termination.CHECKMATE else "draw", winner)

    return StandIn


class _Stream:
    """The game stream play_game reads (a requests Response's iter_lines and context)."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self._lines = lines

    def iter_lines(self) -> Iterator[bytes]:
        return self._lines

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *args: object) -> None:
        pass


class ErrorRecords(logging.Handler):
    """Every record of level ERROR or above, and every exception logged."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def main(argv: list[str]) -> int:
    source, engine, workdir, run = Path(argv[0]), Path(argv[1]), Path(argv[2]), argv[3]
    os.chdir(source)   # lichess-bot reads lib/versioning.yml relative to its folder
    from lib import config as lichess_config
    from lib import lichess, lichess_bot

    configuration = lichess_config.load_config(str(run_config(source, engine, workdir, run)))
    logs: queue.Queue = queue.Queue()
    errors = ErrorRecords()
    listener = logging.handlers.QueueListener(logs, errors, respect_handler_level=True)
    listener.start()
    variant = "chess960" if run.startswith("chess960") else "standard"
    start = chess.Board.from_chess960_pos(CHESS960_START) if variant == "chess960" else chess.Board()
    opponent = chess.engine.SimpleEngine.popen_uci([str(engine), "--uci"], cwd=str(workdir))
    opponent.configure({"OwnBook": False, "Learn": 0})   # python-chess sets UCI_Chess960 from the board
    stand_in = stand_in_class(lichess)(start, opponent, variant)
    failure = ""
    try:
        lichess_bot.play_game(stand_in, "standin1", queue.Queue(), stand_in.get_profile(), configuration, [],
                              queue.Queue(), logs, queue.Queue())
    except Exception as error:   # what makes the real bot abandon the game and start it again
        failure = f"{type(error).__name__}: {error}"
    finally:
        opponent.quit()
        listener.stop()
    summary = {"run": run, "result": stand_in.result, "plies": stand_in.board.ply(),
               # The first move's time holds the engine's start (lichess gives it ten seconds or more).
               "bot_moves": len(stand_in.move_seconds),
               "first_move": stand_in.move_seconds[0] if stand_in.move_seconds else None,
               "longest_move": max(stand_in.move_seconds[1:], default=0.0),
               "illegal": stand_in.illegal, "errors": errors.messages, "exception": failure}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
