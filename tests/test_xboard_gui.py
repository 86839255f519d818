"""GNU XBoard itself, headless under Xvfb, plays a two-game match between Ponderosa and
Phalanx (4 s + 0.1 s a game); the saved PGN must hold two finished games with legal moves and no forfeit for
Ponderosa. Needs the Debian packages xboard, xvfb (with xauth) and phalanx; skipped without.

The peer was Fairy-Max until Debian's Fairy-Max 5.0b was seen to die (segmentation fault) in
about half of its starts on any command it does not know; XBoard sends it `computer` at the
start of every engine-against-engine game, so the match hung. Phalanx knows the command."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

from tests.xboard_harness import engine_command

SEARCH_PATH = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
PROGRAMS = {"xboard": ("xboard", "xboard"), "xvfb-run": ("xvfb-run", "xvfb"), "xauth": ("xauth", "xauth"),
            "fairymax": ("fairymax", "fairymax"), "phalanx": ("phalanx", "phalanx")}
FORFEIT_WORDS = re.compile(r"illegal|forfeit|false|time|flag|crash|stall|disconnect|abort", re.IGNORECASE)
MATCH_SECONDS = 240


def find(program: str) -> str | None:
    return shutil.which(program, path=SEARCH_PATH)


def run_xboard(options: list[str], folder: Path, seconds: float) -> str:
    """GNU XBoard without a window (under xvfb-run) with these options, in folder; its output.
    A run that does not end within seconds is killed and fails the test."""
    command = [find("xvfb-run") or "", "-a", "-s", "-screen 0 1024x768x24",
               find("xboard") or "", "-noGUI", "-xexit", "-saveSettingsOnExit", "false", *options]
    env = dict(os.environ, HOME=str(folder), PATH=SEARCH_PATH)
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"xboard did not end within {seconds} s:\n{output[-2000:]}")
    return output


def read_games(pgn_path: Path) -> list[chess.pgn.Game]:
    games = []
    with pgn_path.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def missing_packages(*programs: str) -> list[str]:
    return sorted({package for program, (_, package) in PROGRAMS.items()
                   if program in programs and find(program) is None})


def ponderosa_for_xboard(*programs: str) -> str:
    """Ponderosa's command as xboard's -fcp/-scp take it; the test skips when a program it needs
    is not installed or the command cannot be given to xboard."""
    missing = missing_packages(*programs)
    if missing:
        pytest.skip(f"Debian package(s) not installed: {', '.join(missing)} "
                    f"(apt-get install {' '.join(missing)})")
    ponderosa = " ".join(engine_command())
    if len(engine_command()) != 2 or " " in engine_command()[0]:
        pytest.skip(f"xboard splits the engine command at spaces: {ponderosa!r}")
    return ponderosa


def test_xboard_match_against_phalanx(tmp_path: Path) -> None:
    ponderosa = ponderosa_for_xboard("xboard", "xvfb-run", "xauth", "phalanx")
    pgn_path, debug_path = tmp_path / "match.pgn", tmp_path / "xboard.debug"
    output = run_xboard([
        "-fcp", ponderosa, "-fd", str(tmp_path), "-scp", find("phalanx") or "", "-sd", str(tmp_path),
        "-mg", "2", "-tc", "0:04", "-inc", "0.1", "-xponder", "-autoCallFlag", "true", "-testClaims", "true",
        "-adjudicateDrawMoves", "80", "-sgf", str(pgn_path), "-debug", "-nameOfDebugFile", str(debug_path),
    ], tmp_path, MATCH_SECONDS)
    assert pgn_path.exists(), f"no PGN saved; xboard said:\n{output[-2000:]}"
    games = read_games(pgn_path)
    assert len(games) == 2, output[-2000:]
    for number, game in enumerate(games, 1):
        label = f"game {number} ({game.headers['White']} - {game.headers['Black']})"
        assert not game.errors, f"{label}: {game.errors}"
        ponderosa_white = "Ponderosa" in game.headers["White"]
        assert ponderosa_white != ("Ponderosa" in game.headers["Black"]), label
        board = game.board()
        for move in game.mainline_moves():
            assert move in board.legal_moves, f"{label}: illegal {move} in {board.fen()}"
            board.push(move)
        result = game.headers["Result"]
        assert result in ("1-0", "0-1", "1/2-1/2"), f"{label}: result {result}"
        comment = game.end().comment
        ponderosa_lost = result == ("0-1" if ponderosa_white else "1-0")
        assert not (ponderosa_lost and FORFEIT_WORDS.search(comment)), f"{label}: Ponderosa lost: {comment}"
        if "checkmate" in comment.lower() or "mates" in comment.lower():
            assert board.is_checkmate(), f"{label}: {comment} but {board.fen()} is not mate"

    # Ponderosa is xboard's first engine: none of its lines may be an error or an illegal-move reply.
    lines = debug_path.read_text(errors="replace").splitlines() if debug_path.exists() else []
    complaints = [line for line in lines if re.match(r"^\d+ <first : (Error|Illegal|.llegal move)", line)]
    assert complaints == []


def test_xboard_chess960_game_between_two_ponderosas(tmp_path: Path) -> None:
    """XBoard's own Chess960 (`-variant fischerandom`): it sends `variant fischerandom`, the start
    position as Shredder-FEN and castling as O-O/O-O-O, and reads Ponderosa's O-O/O-O-O. Both
    sides are Ponderosa (Phalanx plays no Chess960), so every line either engine answered that
    XBoard did not like shows in its debug file."""
    ponderosa = ponderosa_for_xboard("xboard", "xvfb-run", "xauth")
    pgn_path, debug_path = tmp_path / "match.pgn", tmp_path / "xboard.debug"
    # Start position 100 (qbbnrnkr): castling short is the natural development there.
    output = run_xboard([
        "-variant", "fischerandom", "-defaultFrcPosition", "100",
        "-fcp", ponderosa, "-fd", str(tmp_path), "-scp", ponderosa, "-sd", str(tmp_path),
        "-mg", "1", "-tc", "0:04", "-inc", "0.1", "-xponder", "-autoCallFlag", "true", "-testClaims", "true",
        "-adjudicateDrawMoves", "80", "-sgf", str(pgn_path), "-debug", "-nameOfDebugFile", str(debug_path),
    ], tmp_path, MATCH_SECONDS)
    assert pgn_path.exists(), f"no PGN saved; xboard said:\n{output[-2000:]}"
    games = read_games(pgn_path)
    assert len(games) == 1, output[-2000:]
    game = games[0]
    assert not game.errors, game.errors
    board = game.board()
    assert board.chess960 and board.chess960_pos() == 100, game.headers
    for move in game.mainline_moves():
        assert move in board.legal_moves, f"illegal {move} in {board.fen()}"
        board.push(move)
    result, comment = game.headers["Result"], game.end().comment
    assert result in ("1-0", "0-1", "1/2-1/2"), f"result {result}"
    assert not FORFEIT_WORDS.search(comment), comment
    lines = debug_path.read_text(errors="replace").splitlines() if debug_path.exists() else []
    assert any(re.match(r"^\d+ >(first|second) : variant fischerandom", line) for line in lines)
    complaints = [line for line in lines if re.match(r"^\d+ <(first|second) : (Error|Illegal|.llegal move)", line)]
    assert complaints == []
