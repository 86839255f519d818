"""python-chess's XBoard client (`chess.engine.SimpleEngine.popen_xboard`, as lichess-bot uses
it) drives the installed `ponderosa --xboard`: whole games, analysis, every declared option."""
from __future__ import annotations

import random
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from tests.xboard_harness import engine_command

CLOCK, INCREMENT = 3.0, 0.05
MAX_PLIES = 160
CLIENT_SETTINGS = {"random", "computer", "name", "engine_rating", "opponent_rating"}


def open_engine(folder: Path) -> chess.engine.SimpleEngine:
    # The working folder is a temporary one: option Log writes its file there.
    return chess.engine.SimpleEngine.popen_xboard(engine_command(), timeout=10.0, cwd=str(folder))


@pytest.mark.parametrize("ponder", [False, True], ids=["no-ponder", "ponder"])
def test_game_against_a_random_mover(tmp_path: Path, ponder: bool) -> None:
    """Ponderosa (White, 3 s + 0.05 s) against random Black moves: every move legal, in time,
    and the game ends with a result."""
    rng = random.Random(7 + ponder)
    board = chess.Board()
    game = object()
    clocks = {chess.WHITE: CLOCK, chess.BLACK: CLOCK}
    with open_engine(tmp_path) as engine:
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            if board.turn == chess.BLACK:
                board.push(rng.choice(list(board.legal_moves)))
                continue
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=INCREMENT, black_inc=INCREMENT)
            started = time.monotonic()
            result = engine.play(board, limit, ponder=ponder, game=game, info=chess.engine.INFO_ALL)
            used = time.monotonic() - started
            clocks[chess.WHITE] += INCREMENT - used
            assert clocks[chess.WHITE] > 0, f"Ponderosa lost on time at ply {board.ply()}"
            assert result.move is not None and result.move in board.legal_moves, result
            assert not result.resigned
            board.push(result.move)
            if result.draw_offered:
                assert board.can_claim_draw() or board.is_insufficient_material()
        outcome = board.outcome(claim_draw=True)
        assert outcome is not None, f"no result after {board.ply()} plies: {board.fen()}"
        assert outcome.winner is not False, f"Ponderosa lost to a random mover: {outcome}"
        engine.send_game_result(board)
        assert engine.ping() is None


def test_self_play_opening_with_clocks(tmp_path: Path) -> None:
    """Both sides Ponderosa in one process for 20 plies: the same `game`, python-chess's
    force/undo/remove replay, a clock per side."""
    board = chess.Board()
    game = object()
    clocks = {chess.WHITE: CLOCK, chess.BLACK: CLOCK}
    with open_engine(tmp_path) as engine:
        for _ in range(20):
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=INCREMENT, black_inc=INCREMENT)
            started = time.monotonic()
            result = engine.play(board, limit, game=game)
            clocks[board.turn] += INCREMENT - (time.monotonic() - started)
            assert clocks[board.turn] > 0
            assert result.move in board.legal_moves
            board.push(result.move)
            if board.is_game_over(claim_draw=True):
                break
        # A take-back: python-chess rewinds with `remove`/`undo` in force mode.
        board.pop()
        board.pop()
        board.pop()
        result = engine.play(board, chess.engine.Limit(time=0.2), game=game)
        assert result.move in board.legal_moves


def test_analyse_and_root_moves(tmp_path: Path) -> None:
    with open_engine(tmp_path) as engine:
        board = chess.Board()
        info = engine.analyse(board, chess.engine.Limit(time=0.5))
        assert info["depth"] >= 1 and info["pv"] and info["pv"][0] in board.legal_moves
        assert isinstance(info["score"], chess.engine.PovScore)

        root = [chess.Move.from_uci("g2g4"), chess.Move.from_uci("b1a3")]
        info = engine.analyse(board, chess.engine.Limit(depth=6), root_moves=root)
        assert info["pv"][0] in root

        board.push_uci("e2e4")
        with engine.analysis(board, root_moves=[chess.Move.from_uci("c7c5")]) as analysis:
            depths = []
            for info in analysis:
                if "pv" in info:
                    assert info["pv"][0] == chess.Move.from_uci("c7c5"), info
                    depths.append(info.get("depth", 0))
                if depths and depths[-1] >= 6:
                    break
        assert depths

        mate = chess.Board("6k1/5ppp/8/8/8/8/8/R6K w - - 0 1")
        info = engine.analyse(mate, chess.engine.Limit(depth=4))
        assert info["score"].white() == chess.engine.Mate(1)
        assert info["pv"][0] == chess.Move.from_uci("a1a8")


def test_configure_every_option(tmp_path: Path) -> None:
    """Each declared option set to its maximum, its minimum and back to its default; python-chess
    sends them with the next search, which must still work."""
    with open_engine(tmp_path) as engine:
        names = []
        for name, option in engine.options.items():
            if option.is_managed():   # Ponder: python-chess drives it with hard/easy itself
                continue
            if name in CLIENT_SETTINGS:  # python-chess's own entries, sent as commands at `new`
                continue
            names.append(name)
            if option.type == "check":
                values = [not option.default, option.default]
            elif option.type in ("spin", "slider"):
                values = [v for v in (option.max, option.min, option.default) if v is not None]
            elif option.type == "combo":
                values = [*option.var, option.default]
            elif option.type == "button":
                values = [None]
            else:
                values = [option.default]
            if name in ("memory", "Hash"):
                values = [16, 1, 64]   # megabytes: a 4 GB table would be cleared at every `new`
            for value in values:
                engine.configure({name: value})
                result = engine.play(chess.Board(), chess.engine.Limit(time=0.05))
                assert result.move in chess.Board().legal_moves
        assert {"Hash", "Contempt", "Resign", "KingSafety", "memory", "cores"} <= set(names)
        assert engine.ping() is None
