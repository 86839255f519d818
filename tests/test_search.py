"""The search: mates with the right score, draws recognised, stopping from another thread."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

import chess
import pytest

from ponderosa.core_ext.core import INFINITE_SCORE, MATE_THRESHOLD, Board
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import (
    WON_MIN_DEPTH,
    WON_SCORE,
    SearchLimits,
    SearchResult,
    Thinking,
    mate_distance,
    won_position,
)
from ponderosa.engine.testsuite import SuiteError, read_suite

from tests.wall_clock import allowed, bounds


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


# Mates verified with Stockfish 15.1 (score "mate N" at depth 22).
@pytest.mark.parametrize("fen,moves,first_move", [
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, "h5f7"),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2, "d5f6"),
    ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2, "g3g6"),
    ("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 2, "g2g1"),
    ("1k5r/pP3ppp/3p2b1/1BN1n3/1Q2P3/P1B5/KP3P1P/7q w - - 1 1", 3, "c5a6"),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3, "f6a6"),
])
def test_mate_in_n_found_with_the_right_score(engine: Engine, fen: str, moves: int, first_move: str) -> None:
    engine.new_game()
    engine.set_position(fen)
    result = engine.think(SearchLimits(depth=2 * moves + 3))
    assert mate_distance(result.score) == moves
    assert result.best_move == first_move


@pytest.mark.parametrize("fen", [
    "r1bqk2r/ppp1nppp/4p3/n5N1/2BPp3/P1P5/2P2PPP/R1BQK2R w KQkq - 0 1",  # WAC.022
    "8/p1q2pkp/2Pr2p1/8/P3Q3/6P1/5P1P/2R3K1 w - - 0 1",              # WAC.033
    "3rr1k1/pp3pp1/4b3/8/2P1B2R/6QP/P3q1P1/5R1K w - - 0 1",          # WAC.082
])
def test_the_last_thinking_line_names_the_move_played(engine: Engine, fen: str) -> None:
    """A search stopped inside an iteration plays the best move found so far; when that move is
    new in the unfinished iteration, a (lower-bound) line must name it, or a GUI shows one move
    and sees another played. Node limits make the stops land at repeatable places."""
    engine.evaluation.set_mode("classic")   # the node counts were picked for this evaluation's trees
    changed_mid_iteration = 0
    for nodes in range(10000, 50001, 5000):
        engine.new_game()
        engine.set_position(fen)
        reports: list[Thinking] = []
        result = engine.think(SearchLimits(nodes=nodes), on_thinking=reports.append)
        assert reports and reports[-1].pv[0] == result.best_move, f"{nodes} nodes: {reports[-1]} vs {result}"
        exact = [report for report in reports if report.bound == "exact"]
        if exact and exact[-1].pv[0] != result.best_move:
            changed_mid_iteration += 1
            assert reports[-1].bound == "lower" and reports[-1].depth == result.depth + 1
    # These node counts were picked so that the case arises; after a change to the search,
    # pick them anew (tests/data/suites/wac.epd has many more candidates).
    assert changed_mid_iteration > 0


class ScriptedRoot:
    """A stand-in for the core's root search that plays out a script of iterations: each entry
    (score, best move, PV, stopped) is the outcome of one call of iterate()."""

    def __init__(self, script: list[tuple[int, str, list[str], bool]]) -> None:
        self.script = script
        self.calls = 0
        self.stopped = False
        self.nodes = self.shared_nodes = self.seldepth = self.tbhits = 0
        self._best, self._pv, self._score = "", [], 0

    def iterate(self, depth: int, alpha: int, beta: int) -> int:
        self._score, self._best, self._pv, self.stopped = self.script[self.calls]
        self.calls += 1
        self.nodes = self.shared_nodes = 1000 * self.calls
        return self._score

    def best_move(self) -> str:
        return self._best

    def pv(self) -> list[str]:
        return list(self._pv)

    def root_score(self) -> int:
        return self._score


def deepen_scripted(engine: Engine, script: list[tuple[int, str, list[str], bool]],
                    on_thinking: Callable[[Thinking], None] | None) -> SearchResult:
    """The main thread's iterative deepening over a ScriptedRoot in place of the core."""
    searcher = engine.searcher
    real_core = searcher.core
    searcher.core = ScriptedRoot(script)   # type: ignore[assignment]
    searcher._open_ended, searcher._soft_deadline_ns = False, 0
    try:
        return searcher._deepen(20, 10, SearchLimits(nodes=1000 * len(script)), time.monotonic_ns(),
                                on_thinking, None, None)
    finally:
        searcher.core = real_core


def test_a_fail_high_that_does_not_hold_is_followed_by_the_line_of_the_move_played(engine: Engine) -> None:
    """Depth 5 fails high on Ng5 (a lower-bound line names it); its re-search is stopped after
    Ng5 fell back and castling, the best of depth 4, came first again with a better score. The
    move played is castling, so the last line must name it again (python-chess files the last line as the
    move's information: XBoard with pondering showed Ng5 for an O-O played)."""
    castles, knight = ["e1g1", "f6g4", "h2h3"], ["f3g5"]
    script = [(20 + depth, "e1g1", castles, False) for depth in range(1, 5)]
    script += [(400, "f3g5", knight, False),   # far above the aspiration window: a fail high
               (30, "e1g1", castles[:1], True)]   # stopped in the re-search, castling first
    reports: list[Thinking] = []
    result = deepen_scripted(engine, script, reports.append)
    assert result.best_move == "e1g1"
    assert [report.bound for report in reports[4:5]] == ["lower"] and reports[4].pv == knight
    assert reports[-1].pv[0] == "e1g1", reports[-1]
    # At the depth of the unfinished iteration (depths never go down), castling's score there a bound.
    assert reports[-1].bound == "lower" and reports[-1].depth == 5 and reports[-1].score == 30


@pytest.mark.parametrize("listening", [True, False], ids=["with-thinking", "without-thinking"])
def test_a_stop_in_the_first_iteration_on_a_move_that_failed_low_shows_nothing(engine: Engine, listening: bool) -> None:
    """Stopped in depth 1 with a new move first whose score is no bound yet (the root's score is
    still -infinite): there is no line to bound it by, so no line is added and nothing breaks.
    Without a thinking listener (data generation) the same stop must not break either."""
    script = [(-INFINITE_SCORE, "d2d4", ["d2d4"], True)]
    reports: list[Thinking] = []
    result = deepen_scripted(engine, script, reports.append if listening else None)
    assert result.best_move == "d2d4"
    assert reports == []


def test_getting_mated_is_a_negative_mate_score(engine: Engine) -> None:
    engine.new_game()
    # Black's only move is Kb8, and Qd8 mates.
    engine.set_position("k7/8/1K6/8/8/8/8/3Q4 b - - 0 1")
    result = engine.think(SearchLimits(depth=4))
    assert mate_distance(result.score) == -1


def test_stalemate_and_checkmate_roots_have_no_move(engine: Engine) -> None:
    engine.set_position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")   # stalemate
    assert engine.think(SearchLimits(depth=3)).best_move is None


def test_repetition_is_taken_as_a_draw_by_the_losing_side(engine: Engine) -> None:
    engine.new_game()
    # White is a queen down; after Nf3 Nc6 Ng1 Nb8, Nf3 repeats the position: a draw.
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1"
    engine.set_position(fen)
    without_history = engine.think(SearchLimits(depth=5))
    assert without_history.score < -500
    for move in ("g1f3", "b8c6", "f3g1", "c6b8"):
        engine.make_move(move)
    with_history = engine.think(SearchLimits(depth=5))
    assert with_history.score == 0
    assert with_history.best_move == "g1f3"


def test_fifty_move_rule_is_a_draw(engine: Engine) -> None:
    engine.new_game()
    engine.set_position("7k/8/8/8/8/2r5/8/K7 w - - 10 80")
    assert engine.think(SearchLimits(depth=5)).score < -300
    engine.set_position("7k/8/8/8/8/2r5/8/K7 w - - 99 80")
    assert engine.think(SearchLimits(depth=5)).score == 0


def test_draw_score_is_contempt_for_the_root_side(engine: Engine) -> None:
    engine.new_game()
    engine.set_position("7k/8/8/8/8/2r5/8/K7 w - - 99 80")
    engine.options.set("DrawScore", -40)
    try:
        assert engine.think(SearchLimits(depth=5)).score == -40
    finally:
        engine.options.set("DrawScore", 0)


@pytest.mark.parametrize("median_bound", bounds(0.010, 1.0))
def test_stop_from_another_thread_returns_a_legal_move_quickly(engine: Engine, median_bound: float) -> None:
    engine.new_game()
    engine.set_position("r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1")
    legal = set(engine.legal_moves())
    delays = []
    for _ in range(5):
        box: dict = {}
        thread = threading.Thread(target=lambda box=box: box.update(result=engine.think(SearchLimits())))
        thread.start()
        time.sleep(0.3)
        stopped_at = time.perf_counter()
        engine.stop()
        thread.join(timeout=5)
        delays.append(time.perf_counter() - stopped_at)
        assert not thread.is_alive()
        assert box["result"].best_move in legal
    # The C search polls its flag every 1024 nodes; on a quiet machine the median delay stays within 10 ms.
    assert sorted(delays)[2] < median_bound, delays


def test_fixed_time_search_keeps_to_its_time(engine: Engine) -> None:
    engine.new_game()
    start = time.perf_counter()
    result = engine.think(SearchLimits.fixed_time(0.3))
    assert time.perf_counter() - start < allowed(0.6)
    assert result.best_move in Board().legal_moves()


def test_node_limit(engine: Engine) -> None:
    engine.new_game()
    result = engine.think(SearchLimits(nodes=20000))
    assert 20000 <= result.nodes < 22000


def test_search_is_deterministic(engine: Engine) -> None:
    counts = []
    for _ in range(2):
        engine.new_game()
        engine.set_position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        counts.append(engine.think(SearchLimits(depth=7)).nodes)
    assert counts[0] == counts[1]


def test_suite_formats(tmp_path) -> None:
    crafty = tmp_path / "suite.txt"
    crafty.write_text("title wac299\nsetboard 1n2rr2/1pk3pp/pNn2p2/2N1p3/8/6P1/PP2PPKP/2RR4 w\n"
                      "solution Nca4\ntitle x\nsetboard 4k3/8/8/8/8/8/8/4K2R w K -\nsolution Rh8+ O-O?\nend\n")
    positions = read_suite(crafty)
    assert [p.title for p in positions] == ["wac299", "x"]
    assert positions[0].solutions == {"c5a4"}
    assert positions[1].avoid == {"e1g1"} and positions[1].solutions == {"h1h8"}
    epd = tmp_path / "suite.epd"
    epd.write_text('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";\n'
                   '4k3/8/8/8/8/8/8/4K2R w K - am Kd1; id "t2";\n')
    positions = read_suite(epd)
    assert positions[0].is_right("g3g6") and not positions[0].is_right("g3g5")
    assert positions[1].is_right("h1h8") and not positions[1].is_right("e1d1")


@pytest.mark.parametrize("text,where", [
    ("title a\nsetboard 8/8/8 w\n", ":2"),
    ("title a\nsetboard 4k3/8/8/8/8/8/8/4K2R w K -\nsolution Qh5\n", ":3"),
    ("4k3/8/8/8/8/8/8/4K2R w K - bm Qh5;\n", ":1"),
    ("4k3/8/8/8/8/8/8/4K2R w K - id \"x\";\n", ":1"),
])
def test_bad_suite_files_name_file_and_line(tmp_path, text: str, where: str) -> None:
    path = tmp_path / "bad.epd"
    path.write_text(text)
    with pytest.raises(SuiteError, match=f"bad.epd{where}"):
        read_suite(path)


def test_score_is_symmetric_under_colour_flip(engine: Engine) -> None:
    engine.options.set("evaluation asymmetry", 0)
    for fen in ("r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
                "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"):
        engine.set_position(fen)
        white_view, _, _ = engine.score_breakdown()
        engine.set_position(chess.Board(fen).mirror().fen())
        mirrored, _, _ = engine.score_breakdown()
        assert white_view == -mirrored


# The node count of `bench` at its default depth: a signature of the search and evaluation.
# Any change to either changes it; update it deliberately in the same commit (and say why).
# 8,089,164 until the search gained continuation/capture history, singular extensions and the
# evaluation's correction history (2026-11-25, docs/STRENGTH.md); 12,395,178 until the evaluation
# weights tuned on self-play positions were accepted (bd39a90, 2026-11-25); 11,893,265 until the
# threat terms and the weights retuned with them (ae557b4); 11,882,241 until pruning near the leaves
# (23fbb91, 2026-11-26); 7,381,636 until internal iterative reduction (68be058); 4,600,056 until
# late quiet checks were reduced too (93b3e90, 2026-11-27); 4,107,383 until the neural network
# became the default evaluation (net-031, 2026-11-28); 3,929,230 until net-046 replaced it
# (2026-11-28; the hand-written evaluation's bench is still 4,107,383: `ponderosa "eval classic" bench`);
# 3,632,557 until net-093 replaced it (2026-11-29); 4,181,841 until razoring; 3,591,394 until
# net-130 replaced net-093 (2026-12-02); 3,783,416 until net-189 replaced net-130 (2026-12-03).
BENCH_SIGNATURE = 3575383


# With the hand-written evaluation (`ponderosa "eval classic" bench`), the search's own signature
# when the network is left out: 4,107,383 from 93b3e90 (2026-11-27) until razoring.
CLASSIC_BENCH_SIGNATURE = 3813673


def test_bench_signature() -> None:
    result = Engine().bench()
    assert result.positions >= 30
    assert result.nodes == BENCH_SIGNATURE


def test_bench_signature_with_the_hand_written_evaluation() -> None:
    engine = Engine()
    try:
        engine.settings.set_eval_mode("classic")
        assert engine.bench().nodes == CLASSIC_BENCH_SIGNATURE
    finally:
        engine.settings.set_eval_mode("nnue")
        engine.shutdown()


def test_a_mate_search_stops_once_the_mate_is_proven(engine: Engine) -> None:
    """UCI `go mate N`: the search ends at the first iteration that proves a mate in at most N
    moves, not at its depth cap; a mate that is too long does not end it."""
    engine.new_game()
    engine.set_position("k7/8/2K5/8/8/8/8/7R w - - 0 1")   # 1.Kb6 (or Kc7) and the rook mates
    result = engine.think(SearchLimits(depth=30, mate=2))
    assert mate_distance(result.score) == 2 and result.depth < 30
    result = engine.think(SearchLimits(depth=12, mate=1))
    assert mate_distance(result.score) == 2 and result.depth == 12


def test_won_position_is_a_deep_enough_score_for_the_mover() -> None:
    assert won_position(WON_MIN_DEPTH, WON_SCORE)
    assert not won_position(WON_MIN_DEPTH - 1, WON_SCORE)
    assert not won_position(WON_MIN_DEPTH, WON_SCORE - 1)
    assert not won_position(WON_MIN_DEPTH, -WON_SCORE)
    assert won_position(WON_MIN_DEPTH, MATE_THRESHOLD)   # a mate for the mover
    assert not won_position(40, -MATE_THRESHOLD)


WON_FEN = "r5k1/5ppp/8/8/8/2N5/PPQ2PPP/1R2R1K1 w - - 0 1"   # a queen, a rook and a knight up


def test_a_won_position_cuts_the_moves_time(engine: Engine) -> None:
    """A position already won does not take long: once an iteration of depth WON_MIN_DEPTH says
    so, the hard limit drops to half the soft limit and no iteration starts past 15% of it."""
    engine.new_game()
    engine.set_position(WON_FEN)
    result = engine.think(SearchLimits(soft_seconds=2.0, hard_seconds=6.0))
    assert result.depth >= WON_MIN_DEPTH and result.score >= WON_SCORE
    assert engine.searcher.hard_limit_seconds == pytest.approx(1.0)
    assert result.seconds < allowed(1.1)


def test_an_open_position_keeps_its_hard_limit(engine: Engine) -> None:
    engine.new_game()
    engine.set_position("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    result = engine.think(SearchLimits(soft_seconds=0.5, hard_seconds=1.5))
    assert abs(result.score) < WON_SCORE
    assert engine.searcher.hard_limit_seconds == pytest.approx(1.5)
