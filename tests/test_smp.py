"""Parallel search (Lazy SMP): eight threads on this two-core machine through searches, limits,
stops, a table torn by concurrent writes, and an XBoard game with pondering and analysis."""
from __future__ import annotations

import gc
import io
import math
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Iterator

import chess
import pytest

from ponderosa.core_ext.core import breadcrumbs_held, search_parameter, set_search_parameter
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import MATE_THRESHOLD, SearchLimits, mate_distance
from ponderosa.engine.worker import HELPER_NICENESS
from ponderosa.protocol.console import Console

from tests.wall_clock import allowed, bounds
from tests.xboard_harness import MOVE, THINK, fresh_engine

THREADS = 8
MIDDLEGAME = "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    engine = Engine()
    engine.book.enabled = False
    engine.settings.set_threads(THREADS)
    yield engine
    engine.settings.set_threads(1)


def helper_threads() -> set[int | None]:
    return {thread.ident for thread in threading.enumerate() if thread.name.startswith("search-")}


def test_threads_are_created_once_and_parked(engine: Engine) -> None:
    engine.set_position(MIDDLEGAME)
    engine.think(SearchLimits(depth=4))
    before = helper_threads()
    for depth in (5, 6, 7):
        result = engine.think(SearchLimits(depth=depth))
        assert result.best_move in engine.legal_moves()
    assert helper_threads() == before
    assert engine.threads == THREADS and len(engine.helpers._helpers) == THREADS - 1
    engine.settings.set_threads(2)   # fewer: the others end; more: new ones start
    assert sum(thread.name.startswith("search-helper") for thread in threading.enumerate()) >= 1
    assert len(engine.helpers._helpers) == 1
    engine.settings.set_threads(THREADS)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="niceness is per thread only on Linux")
def test_helpers_run_at_a_lower_priority_than_the_main_search_thread(engine: Engine) -> None:
    main_nice = os.getpriority(os.PRIO_PROCESS, 0)   # this thread's, as the main search thread's
    for helper in engine.helpers._helpers:
        assert os.getpriority(os.PRIO_PROCESS, helper.thread.native_id) == min(19, main_nice + HELPER_NICENESS)


def test_depth_limit_is_kept_and_helpers_search(engine: Engine) -> None:
    engine.new_game()
    engine.set_position(KIWIPETE)
    result = engine.think(SearchLimits(depth=8))
    assert result.depth == 8
    assert result.best_move in engine.legal_moves()
    assert result.nodes > engine.searcher.core.nodes   # the helpers' nodes are in the total


def test_node_limit_counts_the_nodes_of_all_threads(engine: Engine) -> None:
    engine.new_game()
    engine.set_position(MIDDLEGAME)
    result = engine.think(SearchLimits(nodes=60000))
    # Each thread adds its count at every poll (1024 nodes) and stops at its next poll.
    assert 60000 <= result.nodes < 60000 + (THREADS + 1) * 1024
    assert engine.searcher.core.nodes < result.nodes


@pytest.mark.parametrize("median_bound", bounds(0.010, 1.0))
def test_stop_with_eight_threads_returns_a_legal_move_quickly(engine: Engine, median_bound: float) -> None:
    engine.new_game()
    engine.set_position(MIDDLEGAME)
    legal = set(engine.legal_moves())
    delays = []
    for _ in range(7):
        box: dict = {}
        thread = threading.Thread(target=lambda box=box: box.update(result=engine.think(SearchLimits())))
        thread.start()
        time.sleep(0.3)
        # The test process holds the objects of every test before it: a full garbage collection
        # there takes about 10 ms, so none may start inside the measured stop (the engine's own
        # process has a small heap).
        gc.collect()
        gc.disable()
        try:
            stopped_at = time.perf_counter()
            engine.stop()
            thread.join(timeout=5)
            delays.append(time.perf_counter() - stopped_at)
        finally:
            gc.enable()
        assert not thread.is_alive()
        assert box["result"].best_move in legal
        parking = time.perf_counter()
        engine.searcher.park_helpers()   # the helpers stop on their own beside the move
        assert time.perf_counter() - parking < allowed(0.5)
        assert all(helper._idle.is_set() for helper in engine.helpers._helpers)
    # The main thread polls the shared flag every 1024 nodes and decides without waiting for
    # the helpers (each of which stops at its own next poll, when the scheduler runs it); the
    # helpers run at a lower priority, so with eight threads on two cores it is scheduled first.
    assert statistics.median(delays) < median_bound, delays


def test_a_table_torn_by_eight_writers_gives_right_moves_and_mates() -> None:
    """One bucket for eight threads: every store overwrites another thread's entries at once.
    Slots are self-checking, so a torn one reads as a miss and scores stay right."""
    engine = Engine()
    engine.book.enabled = False
    engine.settings.set_threads(THREADS)
    engine.settings.set_hash_size(64)   # a single bucket of four entries
    try:
        engine.set_position("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1")
        result = engine.think(SearchLimits(depth=8))
        assert result.best_move == "f6a6"
        assert mate_distance(result.score) == 3
        for fen in (MIDDLEGAME, KIWIPETE, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"):
            engine.set_position(fen)
            result = engine.think(SearchLimits(depth=7))
            assert result.best_move in engine.legal_moves()
            assert abs(result.score) < MATE_THRESHOLD
            board = chess.Board(fen)
            for move in result.pv:   # the whole line is legal: no move from a foreign entry
                assert chess.Move.from_uci(move) in board.legal_moves, (fen, result.pv)
                board.push_uci(move)
    finally:
        engine.settings.set_threads(1)


def test_excluded_root_moves_are_never_played(engine: Engine) -> None:
    engine.new_game()
    engine.set_position(MIDDLEGAME)
    best = engine.think(SearchLimits(depth=6)).best_move
    assert best is not None
    excluded = {best}
    for _ in range(3):
        result = engine.think(SearchLimits(depth=7), excluded=excluded)
        assert result.best_move is not None and result.best_move not in excluded
        excluded.add(result.best_move)


def test_bench_is_one_thread_unless_told(engine: Engine) -> None:
    single = Engine()
    assert engine.bench(depth=6).nodes == single.bench(depth=6).nodes
    assert engine.threads == THREADS
    several = engine.bench(depth=6, threads=2)
    assert several.positions == single.bench(depth=6).positions


def test_console_thread_commands() -> None:
    out = io.StringIO()
    console = Console(Engine(), out)
    for line in ("smpmt=4", "smpmax 2", "smpmin 3", "mt=x", "smpmax 99", "help smpmin"):
        console.execute(line)
    text = out.getvalue()
    assert console.engine.threads == 4 and console.engine.searching_threads == 3
    assert console.engine.helpers.min_depth == 3
    assert text.count("Error: usage") == 2
    assert "smpmin N: helper threads search only iterations of depth N" in text
    console.execute("mt=0")
    assert console.engine.threads == 1 and console.engine.searching_threads == 1


def test_smpmin_keeps_helpers_off_shallow_iterations(engine: Engine) -> None:
    engine.set_position(MIDDLEGAME)
    engine.helpers.min_depth = 9
    try:
        result = engine.think(SearchLimits(depth=4))   # no iteration of depth 9: the main thread alone
        assert result.nodes == engine.searcher.core.nodes
        engine.helpers.min_depth = 3
        result = engine.think(SearchLimits(depth=10))   # long enough for helpers to reach a poll
        assert result.nodes > engine.searcher.core.nodes
    finally:
        engine.helpers.min_depth = 1


def pondered_reply(thinking: list[str], board: chess.Board) -> str | None:
    """The move the engine ponders on: the second move of its last thinking line's PV."""
    for text in reversed(thinking):
        match = THINK.match(text)
        if match and match.group(5):
            words = [word for word in match.group(5).split() if not word[0].isdigit()]
            if len(words) >= 2:
                try:
                    return board.parse_san(words[1]).uci()
                except ValueError:
                    return None
    return None


def test_xboard_game_with_eight_threads_pondering_and_analysis() -> None:
    """A whole fast game: cores 8, pondering (hits and misses), analysis in the middle, `?`."""
    engine = fresh_engine()
    rng = random.Random(14)
    try:
        engine.init("X")
        engine.send("cores 8", "new", "hard", "post", "level 0 0:08 0.05", "time 800", "otim 800")
        engine.sync(1)
        assert "< # search threads: 8" in engine.transcript
        for ply in range(12):
            if engine.board.is_game_over(claim_draw=True):
                break
            hit = pondered_reply(engine.side_lines, engine.board) if ply else None
            move = hit if hit is not None and rng.random() < 0.6 else rng.choice(list(engine.board.legal_moves)).uci()
            engine.move(move)
            if engine.board.is_game_over(claim_draw=True):
                break
            engine.expect_move(8)   # legal, within the clock (the harness checks legality)
            engine.send("time 600", "otim 600")
            if ply == 5:   # analysis for a moment, then back to the game
                engine.send("force", "analyze")
                time.sleep(1.0)
                engine.send(".", "exit")
                engine.sync(2, timeout=2.0)
                engine.send("playother")   # White (us) to move: the engine plays Black again
        engine.send("force", "st 30")
        if engine.board.is_game_over():
            # The game ended within the plies (the engine mated and claimed it): this ping's pong
            # must be read here, or the sync below would meet it first.
            engine.sync(3, timeout=5.0)
        else:
            engine.send("go")
            time.sleep(0.5)
            sent = engine.send("?")
            engine.expect_move(1.0)
            assert engine.last_move_at - sent < allowed(0.5)   # the pipe and the GIL, beside the 10 ms stop
        engine.send("result * {stopped}")
        engine.sync(4, timeout=2.0)
        assert not [text for text in engine.transcript if text.startswith("< Error")]
        assert any(MOVE.match(text[2:]) for text in engine.transcript if text.startswith("< "))
    finally:
        engine.close()
        crash = engine.crash_report()
        assert crash is None, crash


def test_smp_bench_tool_reports_both_sides(capsys: pytest.CaptureFixture[str]) -> None:
    """tools/bench/smp.py (time to depth, N threads against 1) runs and prints its ratios."""
    from tools.bench import smp

    try:
        smp.main(["--depth", "3", "--threads", "2", "--rounds", "1", "--hash", "1", "--set", "SmpBreadcrumb=4"])
        assert search_parameter("SmpBreadcrumb") == 4
    finally:
        set_search_parameter("SmpBreadcrumb", 0)
    out = capsys.readouterr().out
    assert "round 1: time to depth 2T/1T = " in out
    assert "all 1 rounds, depth 3" in out


def test_breadcrumbs_are_all_taken_back_after_searches_and_stops(engine: Engine) -> None:
    """Helper threads leave marks near the root while they search (SmpBreadcrumb reads them); a
    mark left behind would read as another thread's search forever, so none may outlive a search,
    however it ended: depth reached, node limit, or a stop in the middle."""
    set_search_parameter("SmpBreadcrumb", 8)
    try:
        for fen in (MIDDLEGAME, KIWIPETE):
            engine.set_position(fen)
            engine.think(SearchLimits(depth=9))
            engine.searcher.park_helpers()   # the move is decided before the helpers have parked
            assert breadcrumbs_held() == 0
            engine.think(SearchLimits(nodes=30000))
            engine.searcher.park_helpers()
            assert breadcrumbs_held() == 0
        engine.set_position(MIDDLEGAME)
        thread = threading.Thread(target=lambda: engine.think(SearchLimits()))
        thread.start()
        time.sleep(0.2)
        engine.stop()
        thread.join(timeout=5)
        assert not thread.is_alive()
        engine.searcher.park_helpers()
        assert breadcrumbs_held() == 0
    finally:
        set_search_parameter("SmpBreadcrumb", 0)


def test_uci_time_to_depth_tool_times_both_thread_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """tools/bench/smp_uci.py drives a real engine process per thread count through UCI."""
    from tools.bench import smp_uci

    assert smp_uci.main(["--depth", "4", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "round 1: 2T/1T = " in out and "4 positions, depth 4: time to depth 2T/1T = " in out
    assert smp_uci.ratios([1.0, 2.0], [0.5, 2.0]) == (2.5 / 3.0, pytest.approx(math.sqrt(0.5)))
