"""End to end on a chess server: Debian's xboard in zippy mode (`-ics -zp`, headless under
xvfb-run) logs into the FICS stand-in of tests/ics_standin.py with Ponderosa as its engine,
and plays scripted games against the stand-in's mover. What the bot sent to the server is
asserted: finger note, greeting, kibitzes, resignation, draw acceptance, a blocked opponent's
abort, and lightning games (five; twenty with -m slow) without a flag or an illegal move.

The engine reads its settings as an operator would give them: `.ponderosarc` (kibitz 2) and
the opponent lists file beside it (Magnus on GM, Bruno on B). Skipped without xboard/xvfb."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import pytest

from tests.ics_standin import GameRecord, IcsStandIn, quiet_king_mover, random_mover
from tests.xboard_harness import engine_command

SEARCH_PATH = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
HOPELESS = "8/8/8/3k4/8/8/1QQ5/4K3 b - - 0 30"        # the bot (Black) is two queens down
DEAD_DRAW = "1n4k1/8/8/8/8/8/8/1N4K1 w - - 0 60"      # a knight each: nobody can force a mate
LIGHTNING_POSITIONS = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "6k1/5ppp/8/8/8/8/5PPP/3QR1K1 w - - 0 30",
    "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 20",
    "r3k2r/ppp2ppp/2n5/3q4/3P4/2P2N2/P4PPP/R2Q1RK1 w kq - 0 15",
]
LIGHTNING_CLOCKS = [4, 6, 8, 12, 20]     # the bot's clock at the start (seconds) in a `1 0` game
LIGHTNING_MOVES = 8


def find(program: str) -> str | None:
    return shutil.which(program, path=SEARCH_PATH)


@dataclass
class Zippy:
    server: IcsStandIn
    process: subprocess.Popen
    folder: Path

    def debug_text(self) -> str:
        path = self.folder / "xboard.debug"
        return path.read_text(errors="replace")[-3000:] if path.exists() else "(no debug file)"


@pytest.fixture(scope="module")
def zippy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Zippy]:
    missing = [program for program in ("xboard", "xvfb-run", "xauth") if find(program) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (apt-get install xboard xvfb xauth)")
    command = engine_command()
    if len(command) != 2 or " " in command[0]:
        pytest.skip(f"xboard splits the engine command at spaces: {command!r}")
    folder = tmp_path_factory.mktemp("zippy")
    (folder / ".ponderosarc").write_text("kibitz 2\nexit\n")
    (folder / ".ponderosa-lists").write_text("list GM +Magnus\nlist B +Bruno\n")
    (folder / "logon").write_text("PonderosaBot\nsecret\n")
    server = IcsStandIn(handle="PonderosaBot", lifetime=240, lag=0.05)
    console = folder / "console"
    os.mkfifo(console)
    # xboard reads its ICS console from stdin and logs out at end of file: hold a FIFO open.
    console_fd = os.open(console, os.O_RDWR)
    arguments = [find("xvfb-run") or "", "-a", find("xboard") or "", "-ics", "-icshost", "127.0.0.1",
                 "-icsport", str(server.port), "-icslogon", str(folder / "logon"), "-zp",
                 "-fcp", " ".join(command), "-fd", str(folder), "-getMoveList", "false", "-noGUI",
                 "-debug", "-nameOfDebugFile", str(folder / "xboard.debug"), "-saveSettingsOnExit", "false"]
    process = subprocess.Popen(arguments, cwd=folder, stdin=console_fd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True,
                               env=dict(os.environ, HOME=str(folder), PATH=SEARCH_PATH))
    try:
        assert server.logged_in.wait(30), "xboard never logged in to the stand-in"
        yield Zippy(server, process, folder)
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
        os.close(console_fd)
        server.stop()


def kibitzes(server: IcsStandIn, game: GameRecord) -> list[str]:
    return [line.removeprefix("$kibitz ") for line in server.said(game.number) if line.startswith("$kibitz ")]


def test_three_games_greeting_kibitz_resign_and_draw(zippy: Zippy) -> None:
    server = zippy.server
    first = server.play("Bobby", HOPELESS, bot_white=False, mover=quiet_king_mover, timeout=40)
    assert "resigns" in first.reason, f"{first.reason}\n{zippy.debug_text()}"
    # Resign 9 pawns after 4 searches in a row: 3 moves, then the 4th search resigns.
    assert len(first.bot_moves) == 3, first.bot_moves
    said = server.said(first.number)
    assert [line for line in said if line.startswith("$set 1 Ponderosa")], said   # finger note (tellicsnoalias)
    lines = kibitzes(server, first)
    assert lines[0].startswith("Hello Bobby"), lines
    reports = lines[1:]
    assert len(reports) == len(first.bot_moves), reports   # level 2: one line per move, no more
    for report in reports:
        match = re.match(r"depth \d+ score ([+-]\d+\.\d\d) \(White's view\)|depth \d+ score White mates in \d+",
                         report)
        assert match and re.search(r" [\d.]+s [\d.]+[kMG]? nps$", report) and len(report) <= 55, report
        assert match.group(1) is None or float(match.group(1)) > 9, report   # White (the opponent) is far ahead

    # Magnus is on the GM list (the lists file): the same position is resigned sooner.
    second = server.play("Magnus", HOPELESS, bot_white=False, mover=quiet_king_mover, timeout=40)
    assert "resigns" in second.reason, second.reason
    assert len(second.bot_moves) < len(first.bot_moves), (second.bot_moves, first.bot_moves)
    assert not [line for line in server.said(second.number) if line.startswith("$set 1")]   # first game only

    # A dead-drawn ending: the opponent's draw offer is accepted (zippy relays `offer draw` as `draw`).
    third = server.play("Carl", DEAD_DRAW, bot_white=True, mover=quiet_king_mover, offer_draw_after=1,
                        max_bot_moves=6, timeout=40)
    assert third.result == "1/2-1/2" and "mutual agreement" in third.reason, (third.reason, zippy.debug_text())
    assert "$draw" in server.said(third.number)

    # Bruno is blocked: the bot asks for an abort, keeps him from challenging again, says nothing.
    fourth = server.play("Bruno", chess.STARTING_FEN, bot_white=False, mover=quiet_king_mover, max_bot_moves=3,
                         timeout=30)
    said = server.said(fourth.number)
    assert "abort" in said and "+noplay Bruno" in said, said
    assert "aborted" in fourth.reason, fourth.reason
    assert not [line for line in said if re.match(r"\$?(kibitz|whisper|say|tell) ", line)], said
    assert all(not game.illegal for game in (first, second, third, fourth))


@pytest.mark.parametrize("count", [5, pytest.param(20, marks=pytest.mark.slow)])
def test_lightning_games_without_a_flag(zippy: Zippy, count: int) -> None:
    """Every start clock of LIGHTNING_CLOCKS once in the default run; twenty games with -m slow."""
    server = zippy.server
    games = []
    for number in range(count):
        fen = LIGHTNING_POSITIONS[number % len(LIGHTNING_POSITIONS)]
        seconds = LIGHTNING_CLOCKS[number % len(LIGHTNING_CLOCKS)]
        game = server.play(f"Blitzer{chr(ord('a') + number)}", fen, bot_white=True, minutes=1, increment=0,
                           bot_seconds=seconds, mover=random_mover(number), max_bot_moves=LIGHTNING_MOVES,
                           timeout=30)
        games.append(game)
        assert not game.flagged, f"game {number + 1} lost on time ({seconds} s, lowest {game.bot_clock_low:.2f})"
        assert not game.illegal, f"game {number + 1}: illegal moves {game.illegal}"
        assert game.result, f"game {number + 1} did not end: {zippy.debug_text()}"
        assert game.bot_moves, f"game {number + 1}: the bot never moved"
        reports = [line for line in kibitzes(server, game) if line.startswith("depth ")]
        assert len(reports) <= len(game.bot_moves), reports     # at most one kibitz per move
    assert sum(1 for game in games if game.result != "*") == count
    # The figure docs/ICS.md quotes (pytest -s shows it): how close the bot came to a flag.
    print("lightning: start clock -> lowest clock (s):",
          ", ".join(f"{LIGHTNING_CLOCKS[index % len(LIGHTNING_CLOCKS)]}->{game.bot_clock_low:.2f}"
                    for index, game in enumerate(games)))
