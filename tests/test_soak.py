"""Soak: one Ponderosa process plays hundreds of games in a row, as a chess-server bot or a
tournament manager with `feature reuse=1` keeps it (cutechess-style: `new` and the clock for
every game, the moves through python-chess's XBoard client), at 1+0.01 against Stockfish.

It shows what a process running for weeks must hold: no illegal move, no time loss, resident
memory after the last game within 10% of after game 20, no file descriptor or thread left
behind by a game, the learned store within its bound, and each game's record file written.

    pytest -m slow tests/test_soak.py -s                 # 300 games, about 20 minutes
    PONDEROSA_SOAK_GAMES=40 pytest -m slow tests/test_soak.py -s

The figures of a run are printed (with -s) and written to soak-figures.json in the test's
directory, or to the file PONDEROSA_SOAK_FIGURES names; docs/BENCHMARKS.md has the last one's."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

from tests.xboard_harness import XBoardEngine
from tools.match.engines import resolve_command

pytestmark = pytest.mark.slow

GAMES = int(os.environ.get("PONDEROSA_SOAK_GAMES", "300"))
MEMORY_BASELINE_GAME = 20
BASE_SECONDS, INCREMENT = 1.0, 0.01   # cutechess's tc=1+0.01
MAX_PLIES = 300                 # longer games are adjudicated drawn (the long-game test covers length)
OPPONENT_NODES = 10_000         # Stockfish's moves: quick, varied by its Skill Level
# The learned store's bound: 65,536 positions, game ids and PostBook moves (engine/learning/
# store.py), plus book learning, which only covers the book's moves. Far below it in a soak.
STORE_BOUND_BYTES = 64 * 1024 * 1024


def stockfish() -> str:
    [found] = resolve_command(["stockfish"])
    if not os.access(found, os.X_OK):
        pytest.skip("the soak plays Stockfish: apt-get install stockfish")
    return found


def process_figures(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return {"rss_kib": rss, "descriptors": len(os.listdir(f"/proc/{pid}/fd")),
            "threads": len(os.listdir(f"/proc/{pid}/task"))}


def store_bytes(folder: Path) -> int:
    """The learned store with its write-ahead log (which SQLite checkpoints at about 4 MB)."""
    return sum(path.stat().st_size for path in folder.glob("ponderosa-learned.db*"))


def centiseconds(seconds: float) -> int:
    return max(1, round(seconds * 100))


def send_clocks(engine: XBoardEngine, clock: dict[bool, float], engine_side: bool) -> None:
    engine.send(f"time {centiseconds(clock[engine_side])}", f"otim {centiseconds(clock[not engine_side])}")


def test_one_process_plays_hundreds_of_games(tmp_path: Path) -> None:
    opponent = chess.engine.SimpleEngine.popen_uci(stockfish())
    opponent.configure({"Threads": 1, "Hash": 16, "Skill Level": 8})
    engine = XBoardEngine(cwd=str(tmp_path))
    engine.init()
    pid = engine.process.pid
    engine.send("option Log=1")   # log.NNN and game.NNN for every game
    figures: list[dict[str, float]] = []
    results: dict[str, int] = {}
    started = time.monotonic()
    try:
        for game in range(1, GAMES + 1):
            engine_white = game % 2 == 1
            engine.send("new", "hard", "level 0 0:01 0.01")   # pondering on, as a bot plays
            board = engine.board   # the harness's board: moves sent and received are played on it
            clock = {chess.WHITE: BASE_SECONDS, chess.BLACK: BASE_SECONDS}
            engine_side = chess.WHITE if engine_white else chess.BLACK
            trigger: float | None = None   # when the command that set the engine thinking went out
            while True:
                if board.is_game_over(claim_draw=True) or board.ply() >= MAX_PLIES:
                    break
                if board.turn == engine_side:
                    # The engine's clock runs from the command that sets it thinking to its move
                    # line, as a GUI charges it (tests/xboard_harness.py stamps lines on arrival).
                    if trigger is None:   # the engine moves first: `go` sets it thinking
                        send_clocks(engine, clock, engine_side)
                        trigger = engine.send("go")
                    engine.expect_move(30)
                    clock[engine_side] -= engine.last_move_at - trigger
                    assert clock[engine_side] > 0, f"game {game}: Ponderosa lost on time at ply {board.ply()}"
                    clock[engine_side] += INCREMENT
                    trigger = None
                else:
                    reply = opponent.play(board, chess.engine.Limit(nodes=OPPONENT_NODES), game=game).move
                    after = board.copy()
                    after.push(reply)
                    if after.is_game_over(claim_draw=True):
                        engine.send("force")   # the game ends with this move: nothing to answer
                    san = board.san(reply)
                    send_clocks(engine, clock, engine_side)
                    trigger = engine.move(san)   # the opponent's move sets the engine thinking
            result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "1/2-1/2"
            engine.send(f"result {result} {{game over}}")
            engine.sync(game, timeout=10)   # the engine has taken the result before it is measured
            score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            outcome = "draw" if score == 0.5 else "win" if (score == 1.0) == engine_white else "loss"
            results[outcome] = results.get(outcome, 0) + 1
            database = tmp_path / "ponderosa-learned.db"
            figures.append({"game": game, "plies": board.ply(), **process_figures(pid),
                            "store_bytes": store_bytes(tmp_path),
                            "database_bytes": database.stat().st_size if database.exists() else 0,
                            "lrn_bytes": sum(path.stat().st_size for path in tmp_path.glob("*.lrn")),
                            "seconds": round(time.monotonic() - started, 1)})
            record = tmp_path / f"game.{game:03d}"
            assert record.is_file(), f"no record file for game {game}"
            with record.open(encoding="utf-8") as stream:
                recorded = chess.pgn.read_game(stream)
            assert recorded is not None and [m.uci() for m in recorded.mainline_moves()] == \
                [m.uci() for m in board.move_stack], f"game.{game:03d} does not hold game {game}"
    finally:
        engine.quit()
        opponent.quit()

    settled = min(MEMORY_BASELINE_GAME, len(figures)) - 1   # a short run (PONDEROSA_SOAK_GAMES) settles sooner
    baseline = figures[settled]
    last = figures[-1]
    summary = {"games": GAMES, "results": results, "baseline": baseline, "last": last,
               "max_descriptors": max(f["descriptors"] for f in figures[settled:]),
               "max_threads": max(f["threads"] for f in figures[settled:]),
               "max_store_bytes": max(f["store_bytes"] for f in figures),
               "time_losses": 0, "illegal_moves": 0,   # either fails the test at once
               "record_files": len(list(tmp_path.glob("game.[0-9]*")))}
    out = Path(os.environ.get("PONDEROSA_SOAK_FIGURES", tmp_path / "soak-figures.json"))
    out.write_text(json.dumps({"summary": summary, "games": figures}, indent=1))
    print(json.dumps(summary, indent=1))
    assert last["rss_kib"] <= baseline["rss_kib"] * 1.10, f"memory grew: {baseline} -> {last}"
    assert summary["max_descriptors"] == baseline["descriptors"], "file descriptors left open by games"
    assert summary["max_threads"] == baseline["threads"], "threads left running by games"
    assert summary["max_store_bytes"] <= STORE_BOUND_BYTES
