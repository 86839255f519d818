"""The installed Ponderosa as a command line: for the tools that start it (tools/bench/peers.py,
startup.py, uci.py and resize.py, tools/match/cutechess.py) and for the tests' protocol harnesses
(tests/uci_harness.py, tests/xboard_harness.py), which import it from here."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path


def program() -> list[str]:
    """The installed `ponderosa` beside this Python (the virtual environment), else on PATH, else the module."""
    beside = Path(sys.executable).with_name("ponderosa")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("ponderosa")
    return [found] if found else [sys.executable, "-m", "ponderosa.protocol.cli"]


def engine_command() -> list[str]:
    """The same program in XBoard mode."""
    return [*program(), "--xboard"]
