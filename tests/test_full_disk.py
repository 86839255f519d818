"""A full disk while a bot plays: the learned store, the .lrn files, log.NNN, game.NNN and the
protocol log cannot be written. The engine plays every game on with legal moves, says so once per
file (one error line on standard error, not one a move), and loses nothing it wrote before.

The full disk is a file-size limit (RLIMIT_FSIZE) on the engine process: writing past it fails
with EFBIG as a full disk fails with ENOSPC, and it needs no mount. Python ignores SIGXFSZ, so
the write fails instead of killing the process."""
from __future__ import annotations

import os
import random
import resource
import sqlite3
import threading
from pathlib import Path

import chess
import chess.engine
import pytest

from tests.xboard_harness import engine_command

GAMES = 2
LEARNED = "ponderosa-learned.db"


def play_games(folder: Path, first_game: int, size_limit: int | None) -> list[str]:
    """GAMES games of the engine (sd 3, logging on) against random moves, alternating colours;
    returns what the engine wrote to standard error. Fails on an illegal or missing move."""
    def limit_file_size() -> None:
        if size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (size_limit, size_limit))

    # Standard error goes to a pipe: a file would be under the same size limit.
    read_end, write_end = os.pipe()
    errors: list[str] = []

    def drain() -> None:
        with os.fdopen(read_end, encoding="utf-8", errors="replace") as stream:
            errors.extend(stream)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    engine = chess.engine.SimpleEngine.popen_xboard(engine_command(), preexec_fn=limit_file_size,
                                                    stderr=write_end, cwd=folder, timeout=60)
    os.close(write_end)
    rng = random.Random(first_game)
    try:
        engine.configure({"Log": True})
        for game in range(first_game, first_game + GAMES):
            board = chess.Board()
            engine_white = game % 2 == 0
            while not board.is_game_over(claim_draw=True) and board.ply() < 100:
                if board.turn == engine_white:
                    result = engine.play(board, chess.engine.Limit(depth=3), game=game)
                    assert result.move in board.legal_moves, f"game {game}: no legal move from the engine"
                    board.push(result.move)
                else:
                    board.push(rng.choice(list(board.legal_moves)))
    finally:
        engine.quit()
    reader.join(timeout=30)
    return [line.strip() for line in errors if line.strip()]


def learned_rows(path: Path) -> dict[str, list[tuple]]:
    connection = sqlite3.connect(path)
    try:
        tables = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: sorted(connection.execute(f"SELECT * FROM {table}")) for table in tables}
    finally:
        connection.close()


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file the engine wrote but the learned store (compared by its rows)."""
    return {path.name: path.read_bytes() for path in folder.iterdir()
            if path.is_file() and not path.name.startswith(LEARNED)}


def cannot_write(errors: list[str]) -> list[str]:
    return [line for line in errors if line.startswith("Error: cannot write")]


@pytest.fixture
def played_before(tmp_path: Path) -> tuple[dict[str, bytes], dict[str, list[tuple]]]:
    """Two games on a disk with room: the files and learned data that must survive."""
    assert not cannot_write(play_games(tmp_path, 0, None))
    files = snapshot(tmp_path)
    assert {"book.lrn", "game.001", "game.002", "log.001", "log.002"} <= set(files), sorted(files)
    rows = learned_rows(tmp_path / LEARNED)
    assert rows["book_learning"], "the first games learned nothing: the test would prove nothing"
    return files, rows


def test_a_full_disk_loses_nothing_and_is_told_once(tmp_path: Path, played_before) -> None:
    files, rows = played_before
    errors = play_games(tmp_path, GAMES, size_limit=1)   # no file can grow at all

    told = cannot_write(errors)
    assert len(told) == len(set(told)), "an error repeated instead of told once:\n" + "\n".join(told)
    for what in ("learned data", "log.NNN", "game.NNN"):
        assert any(what in line for line in told), f"nothing said about {what}: {errors}"
    assert not [line for line in errors if "Traceback" in line], "\n".join(errors)

    after = snapshot(tmp_path)
    for name, content in files.items():
        if name != "ponderosa.log":   # the protocol log of the first games, appended to since
            assert after[name] == content, f"{name} changed on a full disk"
    assert learned_rows(tmp_path / LEARNED) == rows
    connection = sqlite3.connect(tmp_path / LEARNED)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    connection.close()


def test_a_disk_that_fills_during_a_write_keeps_whole_records(tmp_path: Path, played_before) -> None:
    """Room for a little more than the largest file: some writes succeed, some stop part way
    (a log line, a book.lrn record, a learned-store transaction) and are cut back whole."""
    files, rows = played_before
    limit = max(len(content) for content in files.values()) + 300
    errors = play_games(tmp_path, GAMES, size_limit=limit)

    told = cannot_write(errors)
    assert told, "the limit never bit: the test would prove nothing"
    # Told once per failing streak: at most once a game for each kind of file.
    for what in ("learned data", "log.NNN", "game.NNN", "book.lrn", "position.lrn", "ponderosa.log"):
        assert sum(what in line for line in told) <= GAMES, "\n".join(told)

    after = snapshot(tmp_path)
    for name, content in files.items():
        assert after[name].startswith(content), f"{name} lost what it had"
    for name in ("book.lrn", "position.lrn"):
        if name in after:
            assert after[name].endswith(b"\n"), f"{name} ends in a torn record"
    # Values may have been learned on since; every entry there was is still there.
    learned = learned_rows(tmp_path / LEARNED)
    for table, before in rows.items():
        width = 1 if table in ("meta", "games") else 2
        assert {row[:width] for row in before} <= {row[:width] for row in learned[table]}, table
    connection = sqlite3.connect(tmp_path / LEARNED)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    connection.close()
