"""python-chess's UCI client (`chess.engine.SimpleEngine.popen_uci`, as the lichess bot client and
most tools use it) drives `ponderosa --uci`: a game on the clock, MultiPV analysis, pondering with
a ponder hit and a ponder miss, and every declared option set."""
from __future__ import annotations

import random
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from tests.uci_harness import program
from tests.wall_clock import READINGS, allowed

CLOCK, INCREMENT = 3.0, 0.05
MAX_PLIES = 80
MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"


def open_engine(folder: Path) -> chess.engine.SimpleEngine:
    return chess.engine.SimpleEngine.popen_uci(program() + ["--uci"], timeout=10.0, cwd=str(folder))


@pytest.mark.parametrize("reading", READINGS)
def test_game_on_the_clock_with_ponder_hits_and_misses(tmp_path: Path, reading: str) -> None:
    """Ponderosa (White, 3 s + 0.05 s, pondering) against a mover that plays the predicted move
    every other time (python-chess sends ponderhit) and a random one otherwise (stop, then a new
    go): every move legal and in time; the protocol log shows both kinds. On a busy machine the
    engine may overstep its clock by allowed(CLOCK) - CLOCK in all, and is then given 0.05 s."""
    rng = random.Random(5)
    board = chess.Board()
    clocks = {chess.WHITE: CLOCK, chess.BLACK: CLOCK}
    predicted: chess.Move | None = None
    with open_engine(tmp_path) as engine:
        engine.configure({"Log": True})
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            if board.turn == chess.BLACK:
                hit = predicted is not None and predicted in board.legal_moves and board.ply() % 4 == 1
                board.push(predicted if hit else rng.choice(list(board.legal_moves)))
                continue
            limit = chess.engine.Limit(white_clock=max(0.05, clocks[chess.WHITE]), black_clock=clocks[chess.BLACK],
                                       white_inc=INCREMENT, black_inc=INCREMENT)
            started = time.monotonic()
            result = engine.play(board, limit, ponder=True, info=chess.engine.INFO_ALL)
            clocks[chess.WHITE] += INCREMENT - (time.monotonic() - started)
            assert clocks[chess.WHITE] > CLOCK - allowed(CLOCK), f"Ponderosa lost on time at ply {board.ply()}"
            assert result.move is not None and result.move in board.legal_moves, result
            board.push(result.move)
            predicted = result.ponder
        engine.configure({"Log": False})
    log = (tmp_path / "ponderosa.log").read_text()
    assert "< ponderhit" in log and "< stop" in log and "< go ponder" in log


def test_analysis_with_multipv_3(tmp_path: Path) -> None:
    with open_engine(tmp_path) as engine:
        board = chess.Board(MIDGAME)
        lines = engine.analyse(board, chess.engine.Limit(depth=7), multipv=3)
        assert [info["multipv"] for info in lines] == [1, 2, 3]
        firsts = [info["pv"][0] for info in lines]
        assert len(set(firsts)) == 3 and all(move in board.legal_moves for move in firsts)
        scores = [info["score"].relative.score(mate_score=100000) for info in lines]
        assert scores == sorted(scores, reverse=True)
        assert all(info["depth"] == 7 for info in lines)
        # An open-ended analysis stopped by the client still ends with a legal best move.
        with engine.analysis(board, multipv=2) as analysis:
            time.sleep(0.5)
        assert analysis.wait().move in board.legal_moves
        assert {info.get("multipv") for info in analysis.multipv} == {1, 2}


def test_every_declared_option_can_be_set(tmp_path: Path) -> None:
    with open_engine(tmp_path) as engine:
        declared = dict(engine.options)
        assert {"Hash", "Threads", "Ponder", "OwnBook", "MultiPV", "UCI_AnalyseMode", "UCI_Opponent"} <= set(declared)
        for name, option in declared.items():
            if option.is_managed():          # python-chess sets these itself (MultiPV, Ponder, UCI_*)
                continue
            if option.type == "button":
                engine.configure({name: None})
            elif option.type == "check":
                engine.configure({name: not option.default})
            elif option.type == "spin":
                engine.configure({name: option.max if name != "Hash" else 16})
            elif option.type == "string":
                value = str(tmp_path / "learned.db") if name == "LearnStore" else option.default
                engine.configure({name: value})
        engine.configure({"Log": False})
        result = engine.play(chess.Board(MIDGAME), chess.engine.Limit(depth=3),
                             opponent=chess.engine.Opponent("Anna", "FM", 2300, False))
        assert result.move in chess.Board(MIDGAME).legal_moves
        engine.ping()
