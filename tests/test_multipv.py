"""MultiPV: the search finds the N best root moves, each with its own line, for UCI, XBoard's
analysis (option MultiPV) and the console's `analyze` (`multipv N`); MultiPV 1 is the plain search."""
from __future__ import annotations

import re
import subprocess
import time

import chess
import pytest

from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits, Thinking

from tests.uci_harness import program
from tests.wall_clock import allowed
from tests.xboard_harness import THINK, XBoardEngine

MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"


def lines_at_depth(reports: list[Thinking], depth: int) -> list[Thinking]:
    return [report for report in reports if report.depth == depth and report.bound == "exact"]


def test_the_lines_are_distinct_ordered_and_the_best_is_played() -> None:
    engine = Engine()
    engine.set_position(MIDGAME)
    engine.options.set("MultiPV", 4)
    reports: list[Thinking] = []
    result = engine.think(SearchLimits(depth=6), reports.append)
    for depth in range(1, 7):
        lines = lines_at_depth(reports, depth)
        assert [line.multipv for line in lines] == [1, 2, 3, 4]
        assert all(line.lines == 4 for line in lines)   # each report says how many lines there are
        assert len({line.pv[0] for line in lines}) == 4
        assert [line.score for line in lines] == sorted((line.score for line in lines), reverse=True)
    best = lines_at_depth(reports, 6)[0]
    assert result.best_move == best.pv[0] and result.pv == best.pv and result.score == best.score
    board = chess.Board(MIDGAME)
    for line in lines_at_depth(reports, 6):
        copy = board.copy()
        for move in line.pv:   # every line is a legal sequence from the root
            assert chess.Move.from_uci(move) in copy.legal_moves
            copy.push_uci(move)


def test_the_second_line_is_the_best_move_once_the_first_is_excluded() -> None:
    """Line 2 at a fixed depth searches the root without line 1's move: its score is no better
    than line 1's, and a mate in one is line 1 alone."""
    engine = Engine()
    engine.set_position(MATE_IN_ONE)
    engine.options.set("MultiPV", 2)
    reports: list[Thinking] = []
    engine.think(SearchLimits(depth=4), reports.append)
    first, second = lines_at_depth(reports, 4)
    assert first.pv[0] == "a1a8" and first.score > 30000 and second.pv[0] != "a1a8" and second.score < 30000


def test_multipv_one_is_the_plain_search_and_more_lines_than_moves_is_all_moves() -> None:
    engine = Engine()
    engine.set_position(MIDGAME)
    plain = engine.think(SearchLimits(depth=6))
    engine.searcher.core.clear()
    engine.tt.wipe()
    engine.evaluator.clear()
    engine.options.set("MultiPV", 1)
    again = engine.think(SearchLimits(depth=6))
    assert (plain.best_move, plain.nodes, plain.score) == (again.best_move, again.nodes, again.score)
    engine.set_position("7k/8/8/8/8/8/8/K7 w - - 0 1")   # three king moves
    engine.options.set("MultiPV", 10)
    reports: list[Thinking] = []
    engine.think(SearchLimits(depth=3), reports.append)
    assert sorted(line.pv[0] for line in lines_at_depth(reports, 3)) == ["a1a2", "a1b1", "a1b2"]
    assert {line.lines for line in reports} == {3}   # no more lines than root moves
    with pytest.raises(ValueError):
        engine.options.set("MultiPV", 0)


def test_bench_ignores_the_multipv_setting() -> None:
    engine = Engine()
    plain = engine.bench(depth=4)
    engine.options.set("MultiPV", 3)
    assert engine.bench(depth=4).nodes == plain.nodes


def test_xboard_analysis_shows_several_lines_per_depth(tmp_path) -> None:
    engine = XBoardEngine(cwd=str(tmp_path))
    try:
        engine.init("X")
        engine.send("option MultiPV=3", "new", "force", f"setboard {MIDGAME}", "post", "analyze")
        lines = engine.collect(1.5)
        deadline = time.monotonic() + allowed(1.5)
        while time.monotonic() < deadline and len([line for line in lines if THINK.match(line.text)]) < 6:
            lines += engine.collect(0.25)   # a loaded machine: the first depths come later
        engine.send("exit")
        engine.sync(1, timeout=3.0, allow=(THINK,))
    finally:
        engine.close()
    thinking = [THINK.match(line.text) for line in lines if THINK.match(line.text)]
    by_depth: dict[int, list[str]] = {}
    for match in thinking:
        by_depth.setdefault(int(match.group(1)), []).append((match.group(5) or "").split()[0])
    complete = [moves for moves in by_depth.values() if len(moves) >= 3]
    assert complete and all(len(set(moves[:3])) == 3 for moves in complete), by_depth


def test_console_analyze_numbers_the_lines(tmp_path) -> None:
    process = subprocess.Popen(program(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=str(tmp_path))
    assert process.stdin is not None
    process.stdin.write(f"multipv 2\nmultipv\nsetboard {MIDGAME}\nanalyze\n")
    process.stdin.flush()
    time.sleep(1.2)
    output, errors = process.communicate("exit\nquit\n", timeout=10)
    assert "multipv 2" in output and "Traceback" not in errors
    assert any(re.match(r"^\s*\d+#2->", line) for line in output.splitlines()), output[-2000:]
