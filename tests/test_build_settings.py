"""The build's settings (setup.py): a bad network width stops the build with a message saying
what is allowed, before anything is compiled."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("width", ["100", "0", "4096", "wide"])
def test_a_bad_network_width_stops_the_build_with_a_message(width: str) -> None:
    environment = dict(os.environ, PONDEROSA_NNUE_HIDDEN=width)
    finished = subprocess.run([sys.executable, "setup.py", "--name"], cwd=ROOT, env=environment,
                              capture_output=True, text=True, timeout=120)
    assert finished.returncode != 0
    assert f"PONDEROSA_NNUE_HIDDEN={width!r}" in finished.stderr
    assert "multiple of 32" in finished.stderr


def test_the_core_is_built_for_the_shipped_networks_width() -> None:
    from ponderosa.core_ext import core
    from ponderosa.engine.nnue.network_file import read_network

    if os.environ.get("PONDEROSA_NNUE_HIDDEN"):
        pytest.skip("a build for another width was asked for")
    shipped = read_network(ROOT / "engine" / "nnue" / "ponderosa.nnue")
    assert core.nnue_shape()["hidden"] == shipped.hidden == 256
