"""Self-play data for the tuner (tools/nnue/datagen.py): games end by the rules, the positions kept are
quiet and carry their game's result, and the file reads back through the tuner."""
from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from ponderosa.core_ext.core import Board, Evaluator, TranspositionTable
from ponderosa.core_ext.position_set import is_quiet
from ponderosa.engine.search import Searcher

from tools import tool_command, tool_environment
from tools.nnue import datagen, datagen_round
from tools.tune import positions as tune_positions


def test_rules_end_the_game() -> None:
    assert datagen.rules_result(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")) == "1-0"
    assert datagen.rules_result(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == "1/2-1/2"    # stalemate
    assert datagen.rules_result(chess.Board("7k/8/6K1/8/8/8/8/8 w - - 0 1")) == "1/2-1/2"      # bare kings
    assert datagen.rules_result(chess.Board("7k/8/6K1/8/8/8/8/R7 w - - 100 80")) == "1/2-1/2"  # 50 moves
    assert datagen.rules_result(chess.Board("7k/8/6K1/8/8/8/8/R7 w - - 99 80")) is None


def test_a_won_endgame_is_played_out_and_its_positions_are_quiet() -> None:
    args = datagen.parse_args(["unused.txt", "--nodes", "3000", "--skip-plies", "0", "--per-game", "50"])
    searcher = Searcher(TranspositionTable(1 << 20), Evaluator())
    start = chess.Board("8/8/8/4k3/8/8/3QK3/8 w - - 0 1")   # queen against bare king: White wins
    result, fens, _ = datagen.play_game(searcher, start, args, random.Random(1))
    assert result == "1-0"
    assert fens
    board = Board()
    for fen in fens:
        board.set_fen(fen)
        assert is_quiet(board), fen


def test_a_short_run_writes_positions_the_tuner_reads(tmp_path: Path) -> None:
    out = tmp_path / "selfplay.txt"
    assert datagen.main([str(out), "--games", "4", "--nodes", "300", "--workers", "1", "--chunk", "2",
                         "--max-plies", "60", "--skip-plies", "4"]) == 0
    header = out.read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("# Ponderosa self-play: 4 games at 300 nodes")
    positions = list(tune_positions.read_position_file(out))
    assert positions
    assert all(result in (0.0, 0.5, 1.0) for _, result, _ in positions)
    assert len(positions) <= 4 * 12
    games = {game for _, _, game in positions}
    assert 1 <= len(games) <= 4   # each game's positions after its `# game` line
    for game in games:
        assert len({result for _, result, number in positions if number == game}) == 1
    assert [path.name for path in tmp_path.iterdir()] == ["selfplay.txt"]   # written atomically: no temporary file left


def test_openings_gain_move_counters(tmp_path: Path) -> None:
    epd = tmp_path / "o.epd"
    epd.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"x\";\n\n", encoding="utf-8")
    assert datagen.read_openings(epd) == ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
    assert isinstance(datagen.parse_args(["x.txt"]), argparse.Namespace)


def test_a_terminated_background_run_keeps_its_finished_games(tmp_path: Path) -> None:
    """SIGTERM, or SIGINT to a run started in the background (where the shell ignores SIGINT),
    stops the run and writes the games finished so far."""
    out = tmp_path / "stopped.txt"
    for number in (signal.SIGTERM, signal.SIGINT):
        process = subprocess.Popen(
            [*tool_command("tools.nnue.datagen"), str(out), "--games", "5000", "--nodes", "200",
             "--workers", "1", "--chunk", "1", "--max-plies", "40"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=tool_environment(), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        assert process.stderr is not None
        first = process.stderr.readline()          # one game finished
        assert " games (" in first, first
        process.send_signal(number)
        rest = process.stderr.read()
        assert process.wait(timeout=60) == 128 + number   # stopped: the file is short (datagen_round)
        assert "stopped: writing the games finished so far" in rest
        header = out.read_text(encoding="utf-8").splitlines()[0]
        games = int(header.split(": ")[1].split(" games")[0])
        assert 1 <= games < 5000
        out.unlink()


def test_a_round_renames_only_whole_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """datagen_round takes a file's run for done only when it exits 0: a run stopped by a signal
    writes its short file and exits 128 + the signal, and that file must not become selfplay-NNN."""
    exit_status = {"code": 128 + signal.SIGTERM}

    def run_writing_a_file(number: int, out: Path, net: Path | None, workers: int) -> list[str]:
        script = f"import pathlib, sys; pathlib.Path({str(out)!r}).write_text('games of {number}'); "
        return [sys.executable, "-c", script + f"sys.exit({exit_status['code']})"]

    monkeypatch.setattr(datagen_round, "file_command", run_writing_a_file)
    monkeypatch.setattr(sys, "argv", ["datagen_round", "5", "6", "--folder", str(tmp_path)])
    assert datagen_round.main() == 1
    assert not list(tmp_path.glob("selfplay-*"))
    exit_status["code"] = 0
    assert datagen_round.main() == 0
    assert sorted(path.name for path in tmp_path.glob("selfplay-*")) == ["selfplay-005.pgm.xz", "selfplay-006.pgm.xz"]
    assert (tmp_path / "selfplay-006.pgm.xz").read_text() == "games of 6"
