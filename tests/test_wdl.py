"""UCI_ShowWDL: the win/draw/loss model (engine/wdl.py), its fitting tool (tools/tune/fit_wdl.py) and the
`wdl W D L` field of UCI's info lines; and how UCI declares its check options."""
from __future__ import annotations

import importlib
import io
import math
import re
from types import ModuleType

import chess
import chess.engine
import numpy as np
import pytest

from ponderosa.engine.engine import Engine
from ponderosa.engine.option_table import UCI_ROWS
from ponderosa.engine.search import MATE_SCORE, Thinking
from ponderosa.engine.wdl import (
    A_COEFFICIENTS,
    B_COEFFICIENTS,
    MATERIAL_RANGE,
    material_count,
    model_parameters,
    wdl,
)
from ponderosa.protocol.uci import UciSession
from ponderosa.protocol.xboard.features import feature_lines

from tests.uci_harness import UciEngine
from tests.wall_clock import allowed

MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"
MATE_IN_TWO = "k7/8/2K5/8/8/8/8/7R w - - 0 1"
SCORES = range(-3000, 3001, 7)
MATERIALS = (0, 3, 6, 17, 30, 45, 58, 70, 78, 90)
WDL_FIELD = re.compile(r" score (?:cp -?\d+|mate -?\d+)(?: lowerbound| upperbound)? wdl (\d+) (\d+) (\d+) nodes ")


# -- the model -----------------------------------------------------------------------------------

def test_material_count() -> None:
    assert material_count(chess.Board()) == 78
    assert material_count(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == 0
    assert material_count(chess.Board("4k3/p7/8/8/8/8/8/RN2KB1Q w - - 0 1")) == 1 + 5 + 3 + 3 + 9


def test_the_chances_are_per_mille_and_sum_to_1000() -> None:
    for material in MATERIALS:
        for score in SCORES:
            chances = wdl(score, material)
            assert sum(chances) == 1000 and min(chances) >= 0, (score, material, chances)


def test_a_higher_score_gives_more_wins_and_fewer_losses() -> None:
    for material in MATERIALS:
        table = [wdl(score, material) for score in SCORES]
        for (win, _, loss), (next_win, _, next_loss) in zip(table, table[1:]):
            assert next_win >= win and next_loss <= loss, material
        assert wdl(300, material)[0] > wdl(100, material)[0] > wdl(0, material)[0] > wdl(-100, material)[0]
        assert wdl(-300, material)[2] > wdl(-100, material)[2] > wdl(0, material)[2]


def test_the_sides_are_mirrored() -> None:
    for material in MATERIALS:
        for score in (0, 35, 120, 400):
            win, draw, loss = wdl(score, material)
            assert wdl(-score, material) == (loss, draw, win)


def test_a_mate_is_certain() -> None:
    for material in (3, 40, 78):
        assert wdl(MATE_SCORE - 1, material) == (1000, 0, 0)     # mate in 1
        assert wdl(MATE_SCORE - 39, material) == (1000, 0, 0)
        assert wdl(-(MATE_SCORE - 2), material) == (0, 0, 1000)  # mated in 1
    assert wdl(30000, 10)[0] >= 999                              # a tablebase win, beyond the model's range


def test_the_fitted_model_is_sane() -> None:
    """Even material is a likely draw with few pieces and an open game with many; half the games
    are won somewhere between half a pawn and five pawns up."""
    for material in range(MATERIAL_RANGE[0], MATERIAL_RANGE[1] + 1):
        a, b = model_parameters(material)
        assert 50 < a < 500 and 50 < b < 250, (material, a, b)
    assert wdl(0, 10)[1] > 600 and wdl(0, 78)[1] < 500
    assert wdl(0, 0) == wdl(0, MATERIAL_RANGE[0]) and wdl(50, 200) == wdl(50, MATERIAL_RANGE[1])


# -- the fitting tool ----------------------------------------------------------------------------

def fitting_tool() -> ModuleType:
    """tools/tune/fit_wdl.py, which needs scipy (the test extras)."""
    pytest.importorskip("scipy")
    return importlib.import_module("tools.tune.fit_wdl")


def synthetic_counts(a: tuple[float, ...], b: tuple[float, ...], max_score: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Results drawn from the model itself, at every material and score, in fit_wdl's count layout."""
    counts = np.zeros((3, fitting_tool().MAX_MATERIAL + 1, 2 * max_score + 1), np.int64)
    for material in range(10, 79, 4):
        for score in range(-max_score, max_score + 1, 10):
            a_m, b_m = model_parameters(material, a, b)
            win = 1 / (1 + math.exp((a_m - score) / b_m))
            loss = 1 / (1 + math.exp((a_m + score) / b_m))
            losses, draws, wins = rng.multinomial(400, [loss, 1 - win - loss, win])
            counts[:, material, score + max_score] = (losses, draws, wins)
    return counts


def test_the_tool_recovers_a_known_model() -> None:
    fit_wdl = fitting_tool()
    rng = np.random.default_rng(5)
    a, b = (40.0, -60.0, -150.0, 280.0), (30.0, -20.0, -40.0, 120.0)
    samples = fit_wdl.Samples(synthetic_counts(a, b, 600, rng))
    fitted = fit_wdl.fit(samples)
    for material in (14, 30, 46, 58, 74):
        expected, found = model_parameters(material, a, b), model_parameters(material, fitted[:4], fitted[4:])
        assert found[0] == pytest.approx(expected[0], abs=8) and found[1] == pytest.approx(expected[1], abs=8)
    assert samples.log_loss(fitted) < samples.baseline_log_loss()


def test_the_tool_predicts_what_the_engine_says() -> None:
    """tools/tune/fit_wdl.py's rates over arrays are engine/wdl.py's chances (before rounding)."""
    fit_wdl = fitting_tool()
    counts = synthetic_counts(A_COEFFICIENTS, B_COEFFICIENTS, 400, np.random.default_rng(1))
    samples = fit_wdl.Samples(counts)
    win, draw, loss = samples.rates(np.array(A_COEFFICIENTS + B_COEFFICIENTS))
    for index in range(0, len(samples.score), 37):
        engine = wdl(int(samples.score[index]), int(samples.material[index]))
        assert (round(1000 * win[index]), round(1000 * loss[index])) == (engine[0], engine[2])
        assert abs(1000 * draw[index] - engine[1]) <= 1


# -- UCI -----------------------------------------------------------------------------------------

def test_show_wdl_is_a_check_option_off_by_default() -> None:
    out = io.StringIO()
    session = UciSession(Engine(), out)
    session.handle("uci")
    assert "option name UCI_ShowWDL type check default false" in out.getvalue().splitlines()
    report = Thinking(9, 40, 1.5, 3000, ["e2e4"], "lower", 14)
    assert " wdl " not in session.info_line(report)
    session.handle("setoption name UCI_ShowWDL value true")
    line = session.info_line(report, 78)
    assert f" score cp 40 lowerbound wdl {' '.join(map(str, wdl(40, 78)))} nodes " in line
    assert " wdl 1000 0 0 " in session.info_line(Thinking(5, MATE_SCORE - 3, 0.1, 10, ["h1h8"]), 5)
    session.handle("setoption name UCI_ShowWDL value false")
    assert " wdl " not in session.info_line(report, 78)


def test_every_check_option_is_declared_with_lowercase_true_or_false() -> None:
    out = io.StringIO()
    UciSession(Engine(), out).handle("uci")
    declared = [line for line in out.getvalue().splitlines() if " type check " in line]
    assert len(declared) == sum(option.kind == "check" for option in UCI_ROWS) >= 7
    for line in declared:
        assert re.fullmatch(r"option name \S+(?: \S+)* type check default (true|false)", line), line


def test_xboard_has_no_wdl_option() -> None:
    assert not [line for line in feature_lines() if "WDL" in line]


def test_info_lines_carry_wdl_only_when_asked() -> None:
    engine = UciEngine()
    try:
        engine.send("setoption name OwnBook value false", f"position fen {MIDGAME}", "go depth 6")
        _, lines = engine.until(r"^bestmove", allowed(10.0))
        plain = [line.text for line in lines if " score " in line.text]
        assert plain and not [text for text in plain if " wdl " in text]

        engine.send("setoption name UCI_ShowWDL value true", "go depth 6")
        _, lines = engine.until(r"^bestmove", allowed(10.0))
        scored = [line.text for line in lines if " score " in line.text]
        board = chess.Board(MIDGAME)
        for text in scored:
            match = WDL_FIELD.search(text)
            assert match, text
            assert sum(int(number) for number in match.groups()) == 1000
            info = chess.engine._parse_uci_info(text.removeprefix("info "), board)   # as python-chess reads it
            assert info["wdl"].relative.wins == int(match.group(1))
            assert ("lowerbound" in text) == info.get("lowerbound", False)

        engine.send(f"position fen {MATE_IN_TWO}", "go depth 8")
        _, lines = engine.until(r"^bestmove", allowed(10.0))
        mates = [line.text for line in lines if " score mate 2 " in line.text]
        assert mates and all(" wdl 1000 0 0 " in text for text in mates)
        engine.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go depth 4")   # stalemate: a certain draw
        _, lines = engine.until(r"^bestmove", allowed(10.0))
        assert "info depth 0 score cp 0 wdl 0 1000 0" in [line.text for line in lines]
    finally:
        engine.close()
