"""lichess-bot's own code (config check, engine wrapper, game loop) plays the installed engine from
its template config, lichess.org replaced by a scripted opponent (tools/match/lichess_bot_game.py).

Optional: it needs a copy of lichess-bot's source, named by LICHESS_BOT_SOURCE, and its
requirements (`pip install -r "$LICHESS_BOT_SOURCE/requirements.txt"`); without them it skips."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.uci_harness import program
from tools import tool_command, tool_environment

SOURCE = os.environ.get("LICHESS_BOT_SOURCE", "")
REQUIREMENTS = ("yaml", "requests", "backoff", "rich")
LONGEST_MOVE = 1.5        # seconds, at 10+0.1 (the first move holds the engine's start-up)
FIRST_MOVE = 20.0         # the template aborts a game after abort_time (30 s) without a move
RUNS = ["uci", "xboard-ponder", "xboard-options", "chess960-uci", "chess960-xboard"]


def missing() -> str:
    if not SOURCE:
        return "LICHESS_BOT_SOURCE is not set (point it at a copy of lichess-bot's source)"
    if not (Path(SOURCE) / "lib" / "lichess_bot.py").is_file():
        return f"LICHESS_BOT_SOURCE={SOURCE} holds no lib/lichess_bot.py"
    absent = [name for name in REQUIREMENTS if importlib.util.find_spec(name) is None]
    if absent:
        return (f"lichess-bot's requirements are not installed ({', '.join(absent)}): "
                f"pip install -r {SOURCE}/requirements.txt")
    return ""


@pytest.mark.skipif(bool(missing()), reason=missing() or "lichess-bot is here")
@pytest.mark.parametrize("run", RUNS)
def test_lichess_bot_plays_a_whole_game(tmp_path: Path, run: str) -> None:
    engine = Path(program()[0])
    if not engine.is_file():
        pytest.skip("the installed `ponderosa` program is needed (lichess-bot starts a file)")
    environment = tool_environment({**os.environ, "PYTHONPATH": SOURCE})   # lichess-bot's `lib` package, and tools/
    completed = subprocess.run([*tool_command("tools.match.lichess_bot_game"), SOURCE, str(engine), str(tmp_path), run],
                               capture_output=True, text=True, timeout=600, env=environment)
    assert completed.returncode == 0, completed.stderr[-3000:]
    summary = json.loads(completed.stdout.strip().splitlines()[-1])
    assert summary["exception"] == "", summary
    assert summary["errors"] == [], summary
    assert summary["illegal"] == [], summary
    assert summary["result"] in ("1-0", "1/2-1/2", "0-1", "opponent resigned"), summary
    assert summary["bot_moves"] >= 10, summary
    assert summary["first_move"] < FIRST_MOVE, summary
    assert summary["longest_move"] <= LONGEST_MOVE, summary
