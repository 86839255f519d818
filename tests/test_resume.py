"""`ponderosa c`: the real program is killed with SIGKILL while it thinks; a new one continues
the game from game.NNN, which was rewritten after every move."""
from __future__ import annotations

import queue
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

PROGRAM = shutil.which("ponderosa")


class Running:
    """A ponderosa process whose output lines arrive on a queue."""

    def __init__(self, *args: str) -> None:
        if PROGRAM is None:
            pytest.fail("the `ponderosa` program is not installed on PATH")
        self.process = subprocess.Popen([PROGRAM, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def expect(self, pattern: str, timeout: float = 60) -> re.Match:
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match
        pytest.fail(f"no line matching {pattern!r}; got {seen[-10:]}")


def saved_moves(path: Path) -> list[chess.Move]:
    with open(path) as stream:
        game = chess.pgn.read_game(stream)
    assert game is not None and not game.errors
    return list(game.mainline_moves())


def test_killed_mid_game_then_ponderosa_c_continues_from_the_last_move() -> None:
    board = chess.Board()
    first = Running("st 0.2", "book off")
    try:
        for number in (1, 2):
            move = board.san(sorted(board.legal_moves, key=lambda m: m.uci())[0]) if number > 1 else "e4"
            board.push_san(move)
            first.send(move)
            reply = first.expect(rf"^Black\({number}\): (\S+)").group(1)
            board.push_san(reply)
        first.send("st 30")                 # the next search runs long: it is killed in the middle of it
        third = sorted(board.legal_moves, key=lambda m: m.uci())[0]
        first.send(board.san(third))
        board.push(third)
        first.expect(r"depth\s+time\s+score")
        time.sleep(0.5)
    finally:
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=30)
    assert first.process.returncode == -signal.SIGKILL
    assert saved_moves(Path("game.001")) == board.move_stack   # the user's last move is there
    assert not list(Path.cwd().glob("game.002"))

    second = subprocess.run([PROGRAM or "ponderosa", "st 0.2", "book off", "c"], input="history\nquit\n",
                            capture_output=True, text=True, timeout=120)
    assert "continuing the game of game.001: 5 plies; Black(3) to move" in second.stdout
    reply = re.search(r"^Black\(3\): (\S+)", second.stdout, re.MULTILINE)
    assert reply, second.stdout               # the engine was on move: it plays at once
    board.push_san(reply.group(1))
    assert saved_moves(Path("game.001")) == board.move_stack
    tags = chess.pgn.read_headers(open("game.001"))
    assert tags is not None and tags["Black"] == "Ponderosa"
    log = Path("log.001").read_text()
    assert "Black(1):" in log and "continuing the game" in log   # both runs wrote the same log


def test_ponderosa_c_without_a_game_file_says_so() -> None:
    result = subprocess.run([PROGRAM or "ponderosa", "c", "quit"], capture_output=True, text=True, timeout=60)
    assert "Error: cannot continue: no game.NNN file" in result.stdout
    assert result.returncode == 0
