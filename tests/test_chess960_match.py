"""Chess960 matches (slow): tools/match/gauntlet.py --chess960 plays Ponderosa against Stockfish from Chess960
start positions drawn from the 960, through UCI (UCI_Chess960, castling as king takes rook) and
through XBoard (`variant fischerandom`, castling as O-O/O-O-O). Ponderosa must lose no game on
time, play no illegal move, not crash and make no engine error, and the games must show castling
(counted in the match's PGN, by Ponderosa; if it never castled, by either side, with a warning).
About 10 minutes for the UCI match and 5 for the XBoard one at 10+0.1, two games at a time. Not
niced: the clocks are wall time, and at nice 19 beside the machine's other niced work each engine
would get a small share of a core."""
from __future__ import annotations

import io
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import chess
import chess.pgn
import pytest

from tools import tool_command, tool_environment

OPPONENT = "stockfish"
TIME_CONTROL = "10+0.1"
CONCURRENCY = "2"


def table_rows(report: str) -> dict[str, list[str]]:
    """{opponent cell: the row's cells} of the match's Markdown table."""
    rows = {}
    for line in report.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 12 and re.fullmatch(r"\d+", cells[1]):
            rows[cells[0]] = cells
    return rows


def castling_moves(pgn_text: str, engine: str = "Ponderosa") -> tuple[int, int, int]:
    """(games, castling moves by the engine, castling moves by its opponents) in the PGN text."""
    games = ours = theirs = 0
    stream = io.StringIO(pgn_text)
    while (game := chess.pgn.read_game(stream)) is not None:
        games += 1
        assert game.headers.get("Variant") == "Chess960", game.headers
        board = game.board()
        assert board.chess960
        engine_white = game.headers["White"].startswith(engine)
        for move in game.mainline_moves():
            if board.is_castling(move):
                if (board.turn == chess.WHITE) == engine_white:
                    ours += 1
                else:
                    theirs += 1
            board.push(move)
    return games, ours, theirs


def play_chess960(tmp_path: Path, protocol: str, games: int, seed: int) -> None:
    if shutil.which(OPPONENT) is None and not Path("/usr/games", OPPONENT).exists():
        pytest.skip(f"opponent not installed: {OPPONENT} (apt-get install {OPPONENT})")
    pgn = tmp_path / f"chess960-{protocol}.pgn"
    done = subprocess.run([*tool_command("tools.match.gauntlet"), "--chess960", "--engine", f"ponderosa --{protocol}",
                           "--engine-protocol", protocol, "--opponents", OPPONENT, "--games", str(games),
                           "--tc", TIME_CONTROL, "--concurrency", CONCURRENCY, "--seed", str(seed),
                           "--pgn", str(pgn), "--log", str(tmp_path / f"chess960-{protocol}.log")],
                          capture_output=True, text=True, timeout=3600, cwd=str(tmp_path),
                          env=tool_environment())
    print(done.stdout)   # the match's report (shown with -s)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "does not play Chess960" not in done.stdout, done.stdout
    rows = table_rows(done.stdout)
    row = next((cells for name, cells in rows.items() if name.startswith(OPPONENT)), None)
    assert row is not None, done.stdout
    assert int(row[1]) == games, done.stdout
    time_losses, illegal, crashes, errors = (int(pair.split("/")[0]) for pair in row[8:12])
    assert (time_losses, illegal, crashes, errors) == (0, 0, 0, 0), done.stdout + done.stderr[-3000:]

    played, ours, theirs = castling_moves(pgn.read_text(encoding="utf-8"))
    assert played == games
    print(f"{protocol}: {played} Chess960 games, score {row[5]} (+{row[2]} ={row[3]} -{row[4]}); "
          f"castling moves: Ponderosa {ours}, {OPPONENT} {theirs}")
    if ours == 0:
        # Ponderosa never castled: these games cannot show that its castling works; at least the
        # games must have had castling (python-chess accepted the opponent's, Ponderosa answered).
        warnings.warn(f"Ponderosa castled in none of the {games} Chess960 games ({OPPONENT} castled {theirs} times)",
                      stacklevel=2)
    assert ours + theirs >= 1, f"no castling in {games} Chess960 games"


@pytest.mark.slow
def test_chess960_match_through_uci(tmp_path: Path) -> None:
    play_chess960(tmp_path, "uci", games=20, seed=960)


@pytest.mark.slow
def test_chess960_match_through_xboard(tmp_path: Path) -> None:
    play_chess960(tmp_path, "xboard", games=10, seed=961)
