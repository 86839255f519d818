"""Tests of the gauntlet script tools/match/gauntlet.py: Elo and margin, --tc parsing, opening sampling and
colours, openings as moves, game-end rules, and one short game between two tiny fake UCI engines
(Python scripts written here; no chess engine needs to be installed)."""
from __future__ import annotations

import math
import sys
import threading
from pathlib import Path

import chess
import pytest

from tests.conftest import data_file
from tools.match import engines as match_engines
from tools.match import games as match_games
from tools.match import gauntlet

# -- Elo and its margin

def test_elo_of_even_score_is_zero():
    assert gauntlet.elo_from_score(0.5) == 0
    elo, margin = gauntlet.elo_with_margin([1, 0] * 50)
    assert elo == 0
    assert margin > 0


def test_elo_of_75_percent():
    assert gauntlet.elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert gauntlet.elo_from_score(0.25) == pytest.approx(-190.85, abs=0.01)


def test_margin_formula():
    points = [1.0] * 75 + [0.0] * 25
    elo, margin = gauntlet.elo_with_margin(points)
    deviation = 1.959963984540054 * math.sqrt(0.75 * 0.25 / 100)   # population σ of the games, / √n
    expected = (-400 * math.log10(1 / (0.75 + deviation) - 1) + 400 * math.log10(1 / (0.75 - deviation) - 1)) / 2
    assert elo == pytest.approx(190.85, abs=0.01)
    assert margin == pytest.approx(expected)
    assert margin == pytest.approx(81.15, abs=0.01)


def test_draws_count_half_and_lower_the_spread():
    elo, margin = gauntlet.elo_with_margin([0.5] * 10)
    assert (elo, margin) == (0, 0)
    _, wide = gauntlet.elo_with_margin([1, 0] * 20)
    _, narrow = gauntlet.elo_with_margin([1, 0.5, 0.5, 0] * 10)
    assert narrow < wide


def test_zero_and_full_scores_do_not_raise():
    elo, margin = gauntlet.elo_with_margin([1, 1, 1])
    assert elo == math.inf and math.isnan(margin)
    elo, margin = gauntlet.elo_with_margin([0, 0])
    assert elo == -math.inf and math.isnan(margin)
    assert gauntlet.format_elo(math.inf) == "+inf" and gauntlet.format_elo(-math.inf) == "-inf"
    assert gauntlet.format_margin(math.nan) == "n/a"
    # An interval that reaches 100% has an unbounded margin.
    assert gauntlet.elo_with_margin([1, 1, 1, 0.5])[1] == math.inf
    assert all(math.isnan(x) for x in gauntlet.elo_with_margin([]))


def test_table_row():
    tally = gauntlet.Tally()
    tally.points, tally.wins, tally.draws, tally.losses = [1, 1, 1, 0], 3, 0, 1
    tally.faults[(gauntlet.OPPONENT_SIDE, "time")] = 1
    row = gauntlet.table([("fairymax", tally)]).splitlines()[2]
    assert row.startswith("| fairymax | 4 | 3 | 0 | 1 | 75.0% | +191 | ±inf | 0/1 | 0/0 | 0/0 | 0/0 |")


# -- time control

@pytest.mark.parametrize("text, expected", [
    ("10+0.1", (10.0, 0.1)), ("1+0.01", (1.0, 0.01)), ("2+0.02", (2.0, 0.02)), ("60", (60.0, 0.0)),
    ("1:30+1", (90.0, 1.0)), (" 5 + .5 ", (5.0, 0.5)), ("0.5+0", (0.5, 0.0)),
])
def test_parse_tc(text, expected):
    assert gauntlet.parse_tc(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["", "abc", "0+1", "10+", "+1", "-1+0", "10+0.1+2", "10s"])
def test_parse_tc_rejects(text):
    with pytest.raises(ValueError):
        gauntlet.parse_tc(text)


def test_bad_arguments_end_with_usage_error(capsys):
    for argv in (["--tc", "fast"], ["--games", "3"], ["--opponents", "deepblue"], ["--resign", "x"]):
        with pytest.raises(SystemExit) as exit_info:
            gauntlet.parse_arguments(argv)
        assert exit_info.value.code == 2
    assert "time control" in capsys.readouterr().err


# -- openings

def test_sampling_is_reproducible_and_distinct():
    pool = [(n, f"fen{n}") for n in range(1, 101)]
    first = gauntlet.sample_openings(pool, 10, seed=7)
    assert first == gauntlet.sample_openings(pool, 10, seed=7)
    assert first != gauntlet.sample_openings(pool, 10, seed=8)
    assert len(set(first)) == 10
    assert len(gauntlet.sample_openings(pool[:3], 5, seed=1)) == 5   # more than the file holds: repeats


def test_every_opening_is_played_with_both_colours():
    plan = gauntlet.pairings(n_openings=5, games=10)
    assert len(plan) == 10
    for opening in range(5):
        colours = sorted(p.engine_white for p in plan if p.opening == opening)
        assert colours == [False, True]
    with pytest.raises(ValueError):
        gauntlet.pairings(5, 7)
    with pytest.raises(ValueError):
        gauntlet.pairings(2, 6)


def test_read_openings_takes_fen_and_epd(tmp_path):
    path = tmp_path / "o.epd"
    path.write_text("# comment\n"
                    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n\n"
                    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id \"x\";\n")
    openings = gauntlet.read_openings(path)
    assert [line for line, _ in openings] == [2, 4]
    fens = [gauntlet.position_fen(text) for _, text in openings]
    assert fens[0].endswith(" 2 3")
    assert fens[1] == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
    with pytest.raises(ValueError):
        gauntlet.position_fen("not a position")


@pytest.mark.parametrize("fen", [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",      # 1.e4 d5 2.exd5
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",   # e.p. square written
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",    # EPD: no move counters
])
def test_openings_become_moves_from_the_start(fen):
    moves = gauntlet.line_to(fen)
    assert moves is not None
    board = chess.Board()
    for move in moves:
        board.push(move)
    assert board.fen().split()[:4] == chess.Board(fen).fen().split()[:4]


def test_unreachable_opening_needs_setboard():
    assert gauntlet.line_to("4k3/8/8/8/8/8/8/4K2R w K - 0 40") is None
    assert gauntlet.line_to("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1") is None  # parity


def test_shared_suite_openings_are_reachable():
    assert len(gauntlet.read_openings(data_file("openings", "noob_2moves.epd"))) == 7314
    for opening in gauntlet.build_openings(data_file("openings", "noob_2moves.epd"), 100, seed=1):
        assert opening.moves is not None, opening.fen
        assert len(opening.moves) == 4


# -- game end by the rules

def _board(moves: str, fen: str = chess.STARTING_FEN) -> chess.Board:
    board = chess.Board(fen)
    for san in moves.split():
        board.push_san(san)
    return board


def test_rules_end():
    assert match_games.rules_end(_board("f3 e5 g4 Qh4")) == ("0-1", "Black mates")
    assert match_games.rules_end(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == ("1/2-1/2", "stalemate")
    assert match_games.rules_end(chess.Board("8/8/4k3/8/8/3BK3/8/8 w - - 0 1")) == ("1/2-1/2", "insufficient material")
    assert match_games.rules_end(chess.Board("8/8/4k3/8/8/3RK3/8/8 w - - 100 80")) == ("1/2-1/2", "50-move rule")
    shuffle = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1"
    assert match_games.rules_end(_board(shuffle)) is None           # the start position seen twice only
    assert match_games.rules_end(_board(shuffle + " Ng8")) == ("1/2-1/2", "threefold repetition")
    assert match_games.rules_end(chess.Board("8/8/4k3/8/8/3RK3/8/8 w - - 99 80")) is None


def test_error_classification():
    assert match_engines.classify_engine_error(chess.engine.EngineTerminatedError("died")) == "crash"
    assert match_engines.classify_engine_error(chess.engine.EngineError("illegal uci: 'a1a2' in ...")) == "illegal"
    assert match_engines.classify_engine_error(chess.engine.EngineError("invalid san: 'xyz'")) == "illegal"
    assert match_engines.classify_engine_error(chess.engine.EngineError("Error (unknown command): post")) == "error"
    assert match_engines.classify_engine_error(chess.engine.EngineError("Illegal move: e2e4")) == "error"


# -- a real game through python-chess, between two fake UCI engines

FAKE_UCI = '''
import random, sys
import chess
mode, at = sys.argv[1], int(sys.argv[2])
board, searches = chess.Board(), 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name Fake-" + mode + "\\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        board = chess.Board()
        for uci in words[words.index("moves") + 1:] if "moves" in words else []:
            board.push_uci(uci)
    elif words[0] == "go":
        searches += 1
        if mode == "illegal" and searches >= at:
            print("bestmove a1a8", flush=True)
        elif mode == "crash" and searches >= at:
            sys.exit(3)
        elif mode == "slow" and searches >= at:
            pass   # never answers
        else:
            cp = {"ahead": 2000, "behind": -2000}.get(mode, 0)
            move = random.choice(list(board.legal_moves)).uci()
            print(f"info depth 1 score cp {cp}\\nbestmove {move}", flush=True)
    elif words[0] == "quit":
        break
'''


def _fake_player(tmp_path: Path, mode: str, at: int = 0) -> object:
    script = tmp_path / "fake_uci.py"
    script.write_text(FAKE_UCI)
    spec = gauntlet.EngineSpec(mode, "uci", (sys.executable, str(script), mode, str(at)))
    player = gauntlet.Player(spec, mode)
    player.start()
    return player


def _job(engine_white: bool) -> object:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    opening = gauntlet.Opening(1, fen, tuple(gauntlet.line_to(fen)))
    return gauntlet.Job(1, "fake", "1.1", opening, engine_white)


SETTINGS = gauntlet.Settings(base=0.5, inc=0.05, max_plies=30, resign_moves=0, resign_cp=0, time_margin=0.0,
                             tc_text="0.5+0.05", event="test")


@pytest.mark.parametrize("mode, fault", [("random", None), ("illegal", "illegal"), ("crash", "crash"),
                                         ("slow", "time")])
def test_fake_engines_play_a_game(tmp_path, monkeypatch, mode, fault):
    monkeypatch.setattr(match_games, "FORFEIT_WAIT", 0.1)
    engine = _fake_player(tmp_path, mode, at=3)
    opponent = _fake_player(tmp_path, "random")
    try:
        record = gauntlet.play_game(_job(engine_white=False), engine, opponent, SETTINGS, threading.Event())
    finally:
        engine.close()
        opponent.close()
    assert record is not None
    assert record.fault == fault
    if fault is None:
        assert record.plies <= SETTINGS.max_plies
        assert record.result in ("1-0", "0-1", "1/2-1/2")
    else:
        assert record.fault_side == gauntlet.ENGINE_SIDE
        assert record.result == "1-0"            # the engine had Black and lost by its fault
        assert record.termination == ("time forfeit" if fault == "time" else "rules infraction")
    assert '[SetUp "1"]' in record.pgn and '[FEN "r1bqkbnr/' in record.pgn
    assert '[Opening "1. e4 e5 2. Nf3 Nc6"]' in record.pgn


def test_resign_adjudication(tmp_path):
    engine = _fake_player(tmp_path, "ahead")      # +20 pawns for itself (White)
    opponent = _fake_player(tmp_path, "behind")   # -20 pawns for itself (Black)
    settings = gauntlet.Settings(base=5.0, inc=0.05, max_plies=100, resign_moves=2, resign_cp=1000,
                                 time_margin=0.0, tc_text="5+0.05", event="test")
    try:
        record = gauntlet.play_game(_job(engine_white=True), engine, opponent, settings, threading.Event())
    finally:
        engine.close()
        opponent.close()
    assert record is not None
    assert (record.result, record.termination, record.fault) == ("1-0", "adjudication", None)
    assert record.plies == 4 + 4       # the opening, then two moves of each side beyond ±1000 cp


def test_engine_options_from_the_command_line(tmp_path):
    openings = tmp_path / "o.epd"
    openings.write_text("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n")
    args = gauntlet.parse_arguments(["--engine", "gnuchess", "--engine-option", "Hash=32", "--openings", str(openings)])
    spec = gauntlet.engine_spec_from(args)
    assert spec.protocol == "uci" and dict(spec.options) == {"OwnBook": False, "Hash": 32}
    args = gauntlet.parse_arguments(["--engine", "ponderosa --x", "--engine-option", "OwnBook=false",
                                  "--openings", str(openings)])
    spec = gauntlet.engine_spec_from(args)
    assert spec.command == ("ponderosa", "--x") and spec.protocol == "xboard"
    assert dict(spec.options) == {"OwnBook": False}


# -- engines that want a fresh process for every game

FAKE_XBOARD = '''
import sys
reuse = sys.argv[1]
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "protover":
        print(f"feature myname=\\"Fake-reuse-{reuse}\\" ping=1 setboard=1 reuse={reuse} done=1", flush=True)
    elif words[0] == "ping":
        print("pong " + words[1], flush=True)
    elif words[0] == "quit":
        break
'''


@pytest.mark.parametrize("reuse, fresh", [("0", True), ("1", False)])
def test_an_engine_that_declares_reuse_0_gets_a_new_process_for_each_game(tmp_path, reuse, fresh):
    """Crafty declares reuse=0 (it does not implement `new`): played on in one process, its
    second game starts from the first one's position and every move is refused."""
    script = tmp_path / "fake_xboard.py"
    script.write_text(FAKE_XBOARD)
    player = gauntlet.Player(gauntlet.EngineSpec("fake", "xboard", (sys.executable, str(script), reuse)), "fake")
    try:
        player.ensure_started()                   # the first game
        first = player.engine.transport.get_pid()
        player.ensure_started()                   # the second
        assert (player.engine.transport.get_pid() != first) == fresh
        assert player.one_game_each == fresh
    finally:
        player.close()
