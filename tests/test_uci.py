"""UCI transcript tests: every command and every `info` field, over `ponderosa --uci` (or the
first command `uci`), and in-process checks of what the session does to the engine."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest

from ponderosa.engine.clock import budget_from_clocks
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import Thinking
from ponderosa.protocol import cli
from ponderosa.protocol.console import Console
from ponderosa.protocol.uci import UciSession, parse_go

from tests.conftest import data_file
from tests.test_search import BENCH_SIGNATURE  # the bench's node total, pinned in one place
from tests.uci_harness import BESTMOVE, INFO_FIELDS, UciEngine, infos, parse_info, program
from tests.wall_clock import READINGS, allowed

MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"
MATE_IN_TWO = "k7/8/2K5/8/8/8/8/7R w - - 0 1"        # 1.Kb6 or 1.Kc7, then the rook mates
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
STOP_BOUND = 1.0                                        # seconds from stop to bestmove (XBoard's `?` bound)


@pytest.fixture
def uci():
    engines: list[UciEngine] = []

    def start(*arguments: str, book: bool = False) -> UciEngine:
        engine = UciEngine(arguments or ("--uci",))
        engines.append(engine)
        if not book:
            engine.send("setoption name OwnBook value false")
            engine.sync()
        return engine

    yield start
    for engine in engines:
        stderr = engine.stderr
        engine.close()
        assert "Traceback" not in stderr, stderr


def session() -> tuple[UciSession, io.StringIO]:
    out = io.StringIO()
    return UciSession(Engine(), out), out


# -- uci, isready, setoption --------------------------------------------------------------------

def test_first_command_uci_chooses_the_protocol_and_every_option_is_declared() -> None:
    engine = UciEngine(())   # plain `ponderosa`, then `uci`
    try:
        assert {"Hash", "Clear Hash", "Threads", "Ponder", "OwnBook", "BookFile", "BookRandom", "BookWidth",
                "Learn", "BookLearnThreshold", "LearnStore", "Contempt", "MultiPV", "UCI_AnalyseMode",
                "UCI_Opponent"} <= set(engine.options)
        assert engine.options["BookLearnThreshold"].endswith("type spin default -80 min -1000 max 0")
        assert re.match(r"option name MultiPV type spin default 1 min 1 max \d+$", engine.options["MultiPV"])
        assert engine.options["UCI_Opponent"].endswith("type string default <empty>")
        ids = [line for line in engine.transcript if line.startswith("< id ")]
        assert ids[0].startswith("< id name Ponderosa") and ids[1].startswith("< id author ")
    finally:
        engine.close()


@pytest.mark.parametrize("reading", READINGS)
def test_isready_at_any_time_and_stop_within_the_bound(uci, reading: str) -> None:
    engine = uci()
    engine.send(f"position fen {MIDGAME}", "go infinite")
    time.sleep(0.5)
    sent = engine.send("isready")
    match, seen = engine.until(r"^(readyok|bestmove.*)$", 1.0)
    assert match.group(1) == "readyok" and seen[-1].at - sent < allowed(0.5)
    assert not [line for line in engine.quiet(0.5) if line.text.startswith("bestmove")], "bestmove before stop"
    sent = engine.send("stop")
    match, seen = engine.until(BESTMOVE.pattern, STOP_BOUND + 1)
    assert seen[-1].at - sent < allowed(STOP_BOUND)
    assert chess.Move.from_uci(match.group(1)) in chess.Board(MIDGAME).legal_moves


def test_setoption_every_option_and_bad_values(uci) -> None:
    engine = uci()
    good = ["Hash value 16", "Clear Hash", "Threads value 1", "Ponder value false", "OwnBook value true",
            "BookFile value <default>", "BookRandom value 2", "BookWidth value 3", "Learn value 0",
            "BookLearnThreshold value -100", "LearnStore value learned-here.db", "Contempt value 20",
            "MultiPV value 2", "UCI_AnalyseMode value true",
            "UCI_Opponent value IM 2450 human Jane Doe", "Log value false", "KingSafety value 120"]
    engine.send(*[f"setoption name {text}" for text in good], "isready")
    _, seen = engine.until(r"^readyok$", 5.0)
    assert [line.text for line in seen if line.text.startswith("info string")] == []
    bad = ["Hash value lots", "Nonexistent value 3", "Ponder value maybe", "BookFile value /no/such/book.bin",
           "UCI_Opponent value somebody", "MultiPV value 0", "hash"]
    engine.send(*[f"setoption name {text}" for text in bad], "setoption nonsense")
    engine.send("isready")
    _, seen = engine.until(r"^readyok$", 5.0)
    strings = [line.text for line in seen if line.text.startswith("info string")]
    assert len(strings) == len(bad) + 1, strings
    assert any("MultiPV" in text and "1 used" in text for text in strings)   # clamped, and said so


# -- position ------------------------------------------------------------------------------------

def test_position_startpos_fen_moves_and_ucinewgame(uci) -> None:
    engine = uci()
    move, _, _ = engine.search("ucinewgame", "position startpos moves e2e4 e7e5 g1f3", "go depth 2")
    board = chess.Board()
    for uci_move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(uci_move)
    assert chess.Move.from_uci(move) in board.legal_moves
    move, _, _ = engine.search(f"position fen {MIDGAME} moves c6d4", "go depth 2")
    board = chess.Board(MIDGAME)
    board.push_uci("c6d4")
    assert chess.Move.from_uci(move) in board.legal_moves


def test_bad_positions_keep_the_last_legal_position(uci) -> None:
    engine = uci()
    engine.send(f"position fen {MIDGAME}")
    engine.send("position fen rnbqkbnr/pppppppp/8/8 w KQkq - 0 1", "position fen", "position", "position sideways",
                "position startpos moves " + " ".join(["g1f3 g8f6 f3g1 f6g8"] * 1100))   # beyond the core's history
    move, _, seen = engine.search("go depth 1")
    strings = [line.text for line in seen if line.text.startswith("info string")]
    assert len(strings) == 5 and "internal error" not in " ".join(strings), strings
    assert chess.Move.from_uci(move) in chess.Board(MIDGAME).legal_moves
    # An illegal move: the position before it stands, the moves after it are dropped.
    move, _, seen = engine.search("position startpos moves e2e4 e7e5 e1e3 d7d5", "go depth 1")
    assert any("illegal move e1e3" in line.text for line in seen)
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(move) in board.legal_moves


def test_incremental_position_keeps_the_learner_and_book_state(monkeypatch: pytest.MonkeyPatch) -> None:
    uci_session, _ = session()
    engine = uci_session.engine
    restarts = []
    monkeypatch.setattr(engine.learner, "start_game", lambda fen: restarts.append(fen))
    uci_session.handle("position startpos moves e2e4 e7e5")
    assert len(restarts) == 0 and len(engine.game.move_stack) == 2   # same start, moves played on it
    uci_session.handle("position startpos moves e2e4 e7e5 g1f3 b8c6")
    uci_session.handle("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5")
    assert restarts == [] and engine.game.fen() == chess.Board(
        "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3").fen()
    uci_session.handle("position startpos moves e2e4 e7e5 g1f3")   # a takeback: moves undone, no restart
    assert restarts == [] and len(engine.game.move_stack) == 3
    uci_session.handle(f"position fen {MIDGAME}")                   # another game: a restart
    assert len(restarts) == 1


def test_options_take_effect_on_the_engine(tmp_path: Path) -> None:
    uci_session, out = session()
    engine = uci_session.engine
    for text in ("Hash value 8", "MultiPV value 4", "Contempt value 30", "OwnBook value false", "BookRandom value 0",
                 "BookWidth value 2", "Learn value 3", "BookLearnThreshold value -120",
                 f"LearnStore value {tmp_path / 'store.db'}",
                 "UCI_AnalyseMode value true", "Ponder value false", "PassedPawns value 150"):
        uci_session.handle(f"setoption name {text}")
    assert "info string" not in out.getvalue()
    assert engine.tt.size <= 8 * 1024 * 1024 < 64 * 1024 * 1024 and engine.multi_pv == 4 and engine.draw_score == -30
    assert not engine.book.enabled and engine.book.settings.random_mode == 0 and engine.book.settings.width == 2
    assert engine.learner.mask == 3 and str(tmp_path / "store.db") in str(engine.books.learned.location)
    assert engine.books.learn_threshold == -120
    assert uci_session.analyse_mode and not uci_session.ponder_enabled


def test_uci_opponent_reaches_the_engine() -> None:
    uci_session, out = session()
    uci_session.handle("setoption name UCI_Opponent value GM 2800 human Garry Kasparov")
    opponent = uci_session.engine.opponent
    assert (opponent.title, opponent.rating, opponent.computer, opponent.name) == ("GM", 2800, False, "Garry Kasparov")
    assert uci_session.engine.learner.opponent == "Garry Kasparov"
    uci_session.handle("setoption name UCI_Opponent value none none computer Stockfish 16")
    assert uci_session.engine.opponent.title is None and uci_session.engine.opponent.computer
    uci_session.handle("setoption name UCI_Opponent value GM lots human X")
    assert "info string option UCI_Opponent" in out.getvalue()
    assert uci_session.engine.opponent.name == "Stockfish 16"


# -- go and info -----------------------------------------------------------------------------------

def test_info_lines_carry_every_field(uci) -> None:
    engine = uci()
    move, _, seen = engine.search(f"position fen {MIDGAME}", "go depth 7")
    lines = [info for info in infos(seen) if "pv" in info]
    exact = [info for info in lines if info["score"][2] is None]
    assert exact and all(set(INFO_FIELDS) <= set(info) for info in exact), exact[:2]
    assert [info["depth"] for info in exact] == list(range(1, 8))
    assert all(info["seldepth"] >= info["depth"] for info in exact)
    assert [info["time"] for info in exact] == sorted(info["time"] for info in exact)
    assert exact[-1]["pv"][0] == move and 0 <= exact[-1]["hashfull"] <= 1000 and exact[-1]["tbhits"] == 0
    assert exact[-1]["nodes"] > 0 and exact[-1]["nps"] > 0


def test_info_lines_count_the_searchs_tablebase_hits(uci) -> None:
    """With SyzygyPath set, a won ending of four pieces is probed in the tree: tbhits is the
    search's own count, as XBoard's thinking output shows it, not a constant 0."""
    engine = uci()
    engine.send(f"setoption name SyzygyPath value {data_file('syzygy', 'KQvK.rtbw').parent}")
    engine.sync()
    _, _, seen = engine.search("position fen 8/8/4k3/8/3p4/8/3R4/4K3 w - - 0 1", "go depth 8")
    hits = [info["tbhits"] for info in infos(seen) if "pv" in info]
    assert hits and hits[-1] > 0, hits
    assert hits == sorted(hits)   # a count of this search: it only grows


def test_info_line_bounds_and_mate_scores() -> None:
    uci_session, _ = session()
    line = uci_session.info_line(Thinking(9, 40, 1.5, 3000, ["e2e4"], "lower", 14, multipv=2))
    assert parse_info(line)["score"] == ("cp", 40, "lowerbound") and parse_info(line)["multipv"] == 2
    assert parse_info(line)["nps"] == 2000 and parse_info(line)["time"] == 1500
    line = uci_session.info_line(Thinking(9, -40, 1.0, 10, ["e2e4"], "upper"))
    assert parse_info(line)["score"] == ("cp", -40, "upperbound")
    assert parse_info(uci_session.info_line(Thinking(5, 31997, 0.1, 10, ["h1h8"])))["score"] == ("mate", 2, None)
    assert parse_info(uci_session.info_line(Thinking(5, -31996, 0.1, 10, ["a8b8"])))["score"] == ("mate", -2, None)


def test_go_mate_depth_nodes_and_searchmoves(uci) -> None:
    engine = uci()
    move, _, seen = engine.search(f"position fen {MATE_IN_TWO}", "go mate 2")
    assert infos(seen)[-1]["score"][:2] == ("mate", 2) and move in ("c6b6", "c6c7")
    move, _, seen = engine.search(f"position fen {MIDGAME}", "go depth 3")
    assert [info["depth"] for info in infos(seen) if "pv" in info][-1] == 3
    move, _, seen = engine.search("go nodes 5000")
    assert max(info.get("nodes", 0) for info in infos(seen)) <= 5000 + 2048   # polled every 1,024 nodes
    move, _, _ = engine.search("go depth 4 searchmoves a7a6 h7h6")
    assert move in ("a7a6", "h7h6")


@pytest.mark.parametrize("reading", READINGS)
def test_go_clocks_movetime_and_movestogo_keep_the_time(uci, reading: str) -> None:
    engine = uci()
    engine.send(f"position fen {MIDGAME}")
    sent = time.monotonic()
    _, _, seen = engine.search("go movetime 400")
    assert 0.15 < seen[-1].at - sent < allowed(0.9)
    sent = time.monotonic()
    _, _, seen = engine.search("go wtime 60000 btime 2000 winc 0 binc 0")   # Black to move: 2 s on its clock
    assert seen[-1].at - sent < allowed(1.0)
    sent = time.monotonic()
    _, _, seen = engine.search("go wtime 600000 btime 1000 movestogo 1")    # all of 1 s, never over half of it
    assert seen[-1].at - sent < allowed(0.75)
    sent = time.monotonic()
    _, _, seen = engine.search("go btime 30000 wtime 30000 binc 500 winc 500", seconds=10)
    # The promise is the hard limit (three soft limits here, for an unstable best move), not the
    # soft one; latency is what a busy machine stretches.
    budget = budget_from_clocks(30.0, 30.0, 0.5)   # the engine's default Move Overhead, as here
    assert seen[-1].at - sent < budget.hard_seconds + allowed(0.3)


def test_bad_go_lines_still_answer_a_legal_move(uci) -> None:
    engine = uci()
    engine.send(f"position fen {MIDGAME}")
    for line in ("go wtime -500 btime -500", "go depth x movetime 300", "go movetime 200 banana",
                 "go nodes -5 depth 2", "go movetime 300 depth"):
        sent = time.monotonic()
        move, _, seen = engine.search(line, seconds=8)
        assert any(line.text.startswith("info string") for line in seen), line
        assert chess.Move.from_uci(move) in chess.Board(MIDGAME).legal_moves
        assert seen[-1].at - sent < allowed(1.5)


def test_no_legal_move_answers_0000(uci) -> None:
    engine = uci()
    move, _, _ = engine.search(f"position fen {STALEMATE}", "go depth 3")
    assert move == "0000"
    move, _, _ = engine.search("position fen R5k1/5ppp/8/8/8/8/8/7K b - - 0 1", "go infinite")
    assert move == "0000"


def test_currmove_at_most_once_a_second(uci) -> None:
    engine = uci()
    engine.send(f"position fen {MIDGAME}", "go infinite")
    seen = engine.quiet(2.5)
    engine.search("stop")
    current = [line for line in seen if " currmove " in line.text]
    assert 1 <= len(current) <= 3, [line.text for line in current]
    assert all(later.at - earlier.at >= 0.9 for earlier, later in zip(current, current[1:]))
    first = parse_info(current[0].text)
    assert chess.Move.from_uci(first["currmove"]) in chess.Board(MIDGAME).legal_moves and first["currmovenumber"] >= 1


def test_infinite_and_ponder_searches_wait_for_stop_or_ponderhit(uci) -> None:
    engine = uci()
    engine.send("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "go infinite")   # a mate in 1: ends fast
    assert not [line for line in engine.quiet(0.8) if line.text.startswith("bestmove")]
    move, _, _ = engine.search("stop")
    assert move == "a1a8"
    engine.send(f"position fen {MIDGAME}", "go ponder depth 2")
    assert not [line for line in engine.quiet(0.6) if line.text.startswith("bestmove")]
    sent = time.monotonic()
    move, _, seen = engine.search("ponderhit")
    assert seen[-1].at - sent < allowed(0.3) and chess.Move.from_uci(move) in chess.Board(MIDGAME).legal_moves


def test_ponderhit_turns_pondering_into_the_timed_search_and_stop_is_a_miss(uci) -> None:
    engine = uci()
    engine.send(f"position fen {MIDGAME}", "go ponder wtime 4000 btime 4000")
    assert not [line for line in engine.quiet(1.0) if line.text.startswith("bestmove")]
    sent = engine.send("ponderhit")
    move, _, seen = engine.search(seconds=3.0)
    assert seen[-1].at - sent < allowed(2.0)   # hard limit: 3x the soft share of a 4 s clock, pondering counted
    assert chess.Move.from_uci(move) in chess.Board(MIDGAME).legal_moves
    engine.send(f"position fen {MIDGAME}", "go ponder wtime 60000 btime 60000")
    time.sleep(0.5)
    sent = engine.send("stop")
    _, _, seen = engine.search(seconds=STOP_BOUND + 1)
    assert seen[-1].at - sent < allowed(STOP_BOUND)


@pytest.mark.parametrize("go", ["go ponder depth 2", "go ponder wtime 300 btime 300"], ids=["ended", "budget-spent"])
def test_a_ponderhit_answers_with_an_info_line_before_its_bestmove(uci, go: str) -> None:
    """python-chess files only the lines after ponderhit as the move's information: a pondering
    that had ended, or had used the whole budget, still gives the move its PV and score."""
    engine = uci()
    engine.send(f"position fen {MIDGAME}", go)
    engine.quiet(0.6)
    move, _, seen = engine.search("ponderhit")
    lines = [parse_info(line.text) for line in seen if line.text.startswith("info ") and " pv " in line.text]
    assert lines, [line.text for line in seen]
    assert lines[-1]["pv"][0] == move and "score" in lines[-1]


def test_multipv_three_lines_per_iteration(uci) -> None:
    engine = uci()
    engine.send("setoption name MultiPV value 3")
    move, _, seen = engine.search(f"position fen {MIDGAME}", "go depth 6")
    last = [info for info in infos(seen) if info.get("depth") == 6 and "pv" in info and info["score"][2] is None]
    assert [info["multipv"] for info in last] == [1, 2, 3]
    firsts = [info["pv"][0] for info in last]
    assert len(set(firsts)) == 3 and firsts[0] == move
    scores = [info["score"][1] for info in last]
    assert scores == sorted(scores, reverse=True)


def test_book_move_then_unknown_commands(uci) -> None:
    engine = uci(book=True)
    sent = time.monotonic()
    move, _, seen = engine.search("position startpos", "go wtime 60000 btime 60000")
    assert seen[-1].at - sent < allowed(1.0) and any("book move" in line.text for line in seen)
    assert chess.Move.from_uci(move) in chess.Board().legal_moves
    engine.send("xyzzy", "go2 depth 3", "register later")
    engine.send("isready")
    _, seen = engine.until(r"^readyok$", 3.0)
    texts = [line.text for line in seen]
    assert "info string unknown command: xyzzy" in texts and "registration ok" in texts
    engine.send("quit")
    assert engine.process.wait(3) == 0


# -- the program --------------------------------------------------------------------------------

def test_bench_alone_runs_and_exits_with_the_openbench_line(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`ponderosa bench` (in-process, at a small depth): the bench runs, the program ends, and the
    last line is `N nodes N nps` with the same N every run."""
    full_bench = Engine.bench
    # The console passes the default depth explicitly: whatever it asks, search to depth 5.
    monkeypatch.setattr(Engine, "bench", lambda self, depth=None, on_position=None, **options:
                        full_bench(self, 5, on_position, **options))
    monkeypatch.setattr(cli, "Console", lambda engine: Console(engine, sys.stdout))   # the captured stdout
    totals = []
    for _ in range(2):
        assert cli.main(["bench"]) == 0
        last = capsys.readouterr().out.strip().splitlines()[-1]
        match = re.fullmatch(r"(\d+) nodes (\d+) nps", last)
        assert match, last
        totals.append(int(match.group(1)))
    assert totals[0] == totals[1] > 0


@pytest.mark.slow
def test_bench_program_within_openbench_limit() -> None:
    """The installed program, full depth: OpenBench's 60 s limit and the pinned node total."""
    started = time.monotonic()
    done = subprocess.run(program() + ["bench"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and time.monotonic() - started < 60
    match = re.fullmatch(r"(\d+) nodes (\d+) nps", done.stdout.strip().splitlines()[-1])
    assert match and int(match.group(1)) == BENCH_SIGNATURE and int(match.group(2)) > 0


def test_parse_go_reports_problems() -> None:
    go = parse_go("wtime 100 btime -5 infinite searchmoves e2e4 d2d4 ponder depth x nodes 7 bogus mate")
    assert go.numbers == {"wtime": 100, "btime": 0, "nodes": 7} and go.infinite and go.ponder
    assert go.searchmoves == ["e2e4", "d2d4"] and len(go.problems) == 4


def test_clock_budgets_come_from_the_one_allocation() -> None:
    """UCI's clocks go through engine/clock.py's allocate, as XBoard's level/time/otim do."""
    from ponderosa.engine.clock import (
        MIN_BUDGET,
        MOVE_OVERHEAD,
        TimeControl,
        allocate,
        budget_for_move_time,
        deadline_seconds,
    )
    assert budget_from_clocks(60.0, 60.0, 1.0) == allocate(TimeControl(0, 60.0, 1.0), 60.0, 60.0, 0)
    assert budget_from_clocks(60.0, None, 0.0, 20) == allocate(TimeControl(20, 60.0, 0.0), 60.0, None, 0)
    last_move = budget_from_clocks(1.0, None, 0.0, 1)
    assert last_move.hard_seconds <= 0.5 and last_move.soft_seconds <= last_move.hard_seconds
    assert budget_from_clocks(-3.0, None).hard_seconds == MIN_BUDGET        # a clock below zero: move at once
    assert budget_for_move_time(1.0).hard_seconds == pytest.approx(1.0 - MOVE_OVERHEAD)   # `st` gives up the overhead
    assert budget_from_clocks(10.0, None, pondering=True).soft_seconds > budget_from_clocks(10.0, None).soft_seconds
    assert deadline_seconds(float("nan")) == MIN_BUDGET and deadline_seconds(1e30) == 1e7
