"""Strength levels: UCI_LimitStrength/UCI_Elo, the XBoard options and the console's `skill`.
Low levels vary their choice, the top of UCI_Elo is full strength, and the levels from SAFE_ELO up
never throw away a mate in one or a queen."""
from __future__ import annotations

import io
import random

import chess
import pytest

from ponderosa.engine.engine import Engine
from ponderosa.engine.limits import FULL_ELO, MIN_ELO
from ponderosa.engine.search import SearchLimits, SearchResult
from ponderosa.engine.strength import LINES, SAFE_ELO, SAFE_MARGIN, LevelSearch, StrengthLevel, skill_to_elo
from ponderosa.protocol.console.session import Console
from ponderosa.protocol.xboard.session import XBoardSession

from tests.uci_harness import UciEngine

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"                     # Ra8#
QUEEN_ATTACKED = "r1b1kbnr/pppp1ppp/2n5/4p1q1/4P3/3P1N2/PPP2PPP/RNBQKB1R b KQkq - 0 4"   # Nf3 hits the queen


def test_skill_and_elo_scales(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ponderosa.engine.strength.CALIBRATION", ())   # the designed levels' caps
    assert skill_to_elo(1) == MIN_ELO and skill_to_elo(100) == FULL_ELO
    level = StrengthLevel()
    assert not level.limited and level.skill == 100
    level.set_skill(50)
    assert level.limited and level.elo == skill_to_elo(50) and level.skill == 50
    level.set_skill(100)
    assert not level.limited
    level.limit = True
    level.set_target(FULL_ELO)
    assert not level.limited   # the top of the range is full strength
    level.set_target(1500)
    shaped = level.shape(SearchLimits(depth=30, soft_seconds=5.0, hard_seconds=10.0))
    assert shaped.nodes == level.node_cap() < 2000 and shaped.depth == level.depth_cap() < 30
    assert shaped.soft_seconds == 5.0
    with pytest.raises(ValueError):
        level.set_target(MIN_ELO - 1)
    with pytest.raises(ValueError):
        level.set_skill(0)


def test_choice_guards_from_safe_elo_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ponderosa.engine.strength.CALIBRATION", ())   # the designed levels' temperatures
    lines = {"a1a8": 31999, "a1b1": 40, "g2g3": 30, "h2h3": 20}
    result = SearchResult("a1a8", 31999, 5, 1000, 0.1, ["a1a8"])
    level = StrengthLevel(limit=True, target=SAFE_ELO, rng=random.Random(1))
    assert {level.choose(result, lines).best_move for _ in range(50)} == {"a1a8"}   # the mate is played
    queen = {"g5g6": 50, "g5f6": 20, "g5h4": -10, "d7d6": -850}   # d7d6 leaves the queen to be taken
    result = SearchResult("g5g6", 50, 5, 1000, 0.1, ["g5g6"])
    chosen = {level.choose(result, queen).best_move for _ in range(300)}
    assert "d7d6" not in chosen and len(chosen) >= 2
    weakest = StrengthLevel(limit=True, target=MIN_ELO, rng=random.Random(1))
    assert "d7d6" in {weakest.choose(result, queen).best_move for _ in range(300)}


def uci_engine() -> UciEngine:
    engine = UciEngine(("--uci",))
    engine.send("setoption name OwnBook value false")
    engine.sync()
    return engine


def test_low_level_varies_its_move_and_top_level_is_full_strength() -> None:
    engine = uci_engine()
    try:
        engine.send("setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1000")
        moves = set()
        for _ in range(12):
            move, _, _ = engine.search("position startpos moves e2e4 e7e5", "go movetime 300")
            moves.add(move)
        assert len(moves) >= 2, moves
        after_e5 = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
        assert all(chess.Move.from_uci(move) in after_e5.legal_moves for move in moves)

        def full_search(*options: str) -> tuple[str, str]:
            engine.send(*options, "ucinewgame", "setoption name Clear Hash")
            move, _, lines = engine.search("position startpos moves e2e4 e7e5", "go depth 7")
            final = [line.text for line in lines if line.text.startswith("info depth 7 ")][-1]
            return move, final.split(" nodes ")[1].split()[0]

        at_top = full_search("setoption name UCI_Elo value 3100")
        unlimited = full_search("setoption name UCI_LimitStrength value false")
        assert at_top == unlimited   # same move, same node count: no limit at all
    finally:
        engine.close()


def test_upper_level_plays_mate_in_one_and_keeps_its_queen() -> None:
    engine = uci_engine()
    try:
        engine.send("setoption name UCI_LimitStrength value true", f"setoption name UCI_Elo value {SAFE_ELO}")
        for _ in range(6):
            move, _, _ = engine.search(f"position fen {MATE_IN_ONE}", "go movetime 200")
            assert move == "a1a8"
        board = chess.Board(QUEEN_ATTACKED)
        for _ in range(6):
            move, _, _ = engine.search(f"position fen {QUEEN_ATTACKED}", "go movetime 200")
            after = board.copy()
            after.push_uci(move)
            assert not any(after.piece_at(capture.to_square) == chess.Piece(chess.QUEEN, chess.BLACK)
                           for capture in after.legal_moves if after.is_capture(capture)), move
    finally:
        engine.close()


def test_xboard_options_and_console_skill() -> None:
    out = io.StringIO()
    xboard = XBoardSession(Engine(), out)
    for line in ("xboard", "protover 2", "option UCI_LimitStrength=1", "option UCI_Elo=1800"):
        xboard.handle(line)
    text = out.getvalue()
    assert 'option="UCI_LimitStrength -check 0"' in text and 'option="UCI_Elo -spin 3100 1000 3100"' in text
    assert xboard.engine.control.strength.elo == 1800
    console_out = io.StringIO()
    console = Console(Engine(), console_out)
    for line in ("skill", "skill 40", "skill 100", "skill 0"):
        console.execute(line)
    lines = console_out.getvalue().splitlines()
    assert lines[0] == "skill 100: full strength"
    assert lines[1] == f"skill 40: strength level {skill_to_elo(40)} Elo (skill 40)"
    assert lines[2] == "skill 100: full strength"
    assert lines[3].startswith("Error: usage: skill N")


def test_uci_declares_the_options() -> None:
    engine = UciEngine(("--uci",))
    try:
        assert "option name UCI_LimitStrength type check default false" in engine.options.values()
        assert "option name UCI_Elo type spin default 3100 min 1000 max 3100" in engine.options.values()
    finally:
        engine.close()



def test_console_game_moves_are_played_at_the_level() -> None:
    """The console's own moves go through Engine.think at the level (`skill`), capped and varied."""
    engine = Engine()
    engine.book.enabled = False
    engine.control.strength.set_skill(1)
    moves = set()
    for _ in range(12):
        result = engine.think(SearchLimits(depth=6), at_level=True)
        assert result.nodes <= 2 * engine.control.strength.node_cap()
        moves.add(result.best_move)
    assert len(moves) >= 2
    engine.control.strength.set_skill(100)
    full = engine.think(SearchLimits(depth=6), at_level=True)
    assert full.nodes > 2 * StrengthLevel(limit=True, target=MIN_ELO).node_cap()


# The shipped mapping from UCI_Elo to the level played (engine/strength.py), measured against
# Stockfish's rated levels (docs/STRENGTH.md, "Strength levels"). A recalibration changes it
# deliberately, with the new measurements, in the same commit.
SHIPPED_CALIBRATION = ((1500, 1095), (1858, 1336), (2000, 1661), (2300, 1908), (2417, 1977), (3000, 2453))


def test_the_shipped_calibration_is_pinned() -> None:
    from ponderosa.engine import strength
    assert strength.CALIBRATION == SHIPPED_CALIBRATION


def test_a_level_without_temperature_searches_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ponderosa.engine.strength.CALIBRATION", ())   # the designed levels
    limits = SearchLimits(soft_seconds=1.0, hard_seconds=2.0)
    warm = LevelSearch(StrengthLevel(limit=True, target=2400), limits, None)
    cold = LevelSearch(StrengthLevel(limit=True, target=2500), limits, None)
    assert (warm.lines, cold.lines) == (LINES, 1)   # the choice among lines ends with the temperature
    result = SearchResult("e2e4", 30, 9, 50_000, 0.5, ["e2e4"])
    assert cold.choose(result) is result


def test_the_guard_fades_in_below_safe_elo_and_goes_by_the_design_level(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ponderosa.engine.strength.CALIBRATION", ())
    margins = [StrengthLevel(limit=True, target=elo).guard_margin() for elo in (2400, SAFE_ELO, 1900, 1800)]
    assert margins == [SAFE_MARGIN, SAFE_MARGIN, 2 * SAFE_MARGIN, 4 * SAFE_MARGIN]
    lines = {"g5g6": 50, "g5f6": 20, "g5h4": -200, "d7d6": -850}
    result = SearchResult("g5g6", 50, 5, 1000, 0.1, ["g5g6"])
    below = StrengthLevel(limit=True, target=1900, rng=random.Random(2))   # margin 300: g5h4 in, d7d6 out
    assert {below.choose(result, lines).best_move for _ in range(400)} == {"g5g6", "g5f6", "g5h4"}
    # A UCI_Elo under SAFE_ELO that the calibration plays at a design level above it has the guard.
    monkeypatch.setattr("ponderosa.engine.strength.CALIBRATION", ((1500, 1000), (2500, 2000)))
    mapped = StrengthLevel(limit=True, target=1800, rng=random.Random(3))
    assert mapped.design_elo() == 2300 and mapped.guard_margin() == SAFE_MARGIN
    assert "g5h4" not in {mapped.choose(result, lines).best_move for _ in range(400)}
