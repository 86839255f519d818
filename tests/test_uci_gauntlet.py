"""The 60-game gauntlet through UCI (slow): tools/match/gauntlet.py plays `ponderosa` as a UCI engine (the
first command `uci` picks the protocol) against the five Debian engines, 12 games each; the engine
must lose no game on time and play no illegal move. Several minutes; run niced on a shared machine,
but not beside work that keeps every core busy: python-chess gives an XBoard engine 2 s from
`protover 2` to start its feature list, and at nice 19 beside busy processes an XBoard opponent
can miss that and "not declare" ping, which stops the run before its games."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tools import tool_command, tool_environment

OPPONENTS = ("fairymax", "phalanx", "sjeng", "hoichess", "gnuchess")
TIME_CONTROL = os.environ.get("PONDEROSA_GAUNTLET_TC", "10+0.1")
CONCURRENCY = os.environ.get("PONDEROSA_GAUNTLET_CONCURRENCY", "1")   # games at once; 1 on a loaded machine


def fault_columns(report: str) -> dict[str, tuple[str, ...]]:
    """{opponent row: (time losses, illegal moves, crashes, errors)} as E/O pairs from the table."""
    rows = {}
    for line in report.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 12 and re.fullmatch(r"\d+", cells[1]):
            rows[cells[0]] = tuple(cells[8:12])
    return rows


@pytest.mark.slow
def test_sixty_games_through_uci(tmp_path: Path) -> None:
    missing = [name for name in OPPONENTS if shutil.which(name) is None and not Path("/usr/games", name).exists()]
    if missing:
        pytest.skip(f"opponents not installed: {', '.join(missing)} (apt-get install {' '.join(missing)})")
    done = subprocess.run(["nice", "-n", "19", *tool_command("tools.match.gauntlet"), "--engine", "ponderosa",
                           "--concurrency", CONCURRENCY, "--engine-protocol", "uci", "--games", "12",
                           "--tc", TIME_CONTROL, "--seed", "2026",
                           "--pgn", str(tmp_path / "uci-gauntlet.pgn")],
                          capture_output=True, text=True, timeout=4 * 3600, cwd=str(tmp_path),
                          env=tool_environment())
    assert done.returncode == 0, done.stderr[-3000:]
    rows = fault_columns(done.stdout)
    assert rows.get("all"), done.stdout
    total_games = sum(int(cells[1]) for line in done.stdout.splitlines()
                      if len(cells := [c.strip() for c in line.strip().strip("|").split("|")]) == 12
                      and re.fullmatch(r"\d+", cells[1]) and cells[0] != "all")
    assert total_games == 60, done.stdout
    time_losses, illegal, crashes, errors = (int(pair.split("/")[0]) for pair in rows["all"])
    assert (time_losses, illegal, crashes, errors) == (0, 0, 0, 0), done.stdout
