"""Shared test helpers: where the project's shared data lives, and EPD perft parsing."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The shared data folder stands beside the repository (../shared/data); PONDEROSA_DATA overrides.
DATA = Path(os.environ.get("PONDEROSA_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(autouse=True)
def _own_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs in a directory of its own: engines write learned data and .lrn files to
    their working directory, and one test's learning must not steer another's games."""
    monkeypatch.chdir(tmp_path)


def data_file(*parts: str) -> Path:
    path = DATA.joinpath(*parts)
    if not path.is_file():
        pytest.fail(f"test data {path} is missing (set PONDEROSA_DATA to the shared data folder)")
    return path


def read_perft_epd(path: Path) -> list[tuple[str, int, int, str]]:
    """(fen, depth, expected nodes, label) for every `;Dn count` field of every line."""
    cases = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        fen = line.split(";")[0].strip()
        label = f"{path.stem}:{number}"
        id_match = re.search(r";\s*id\s+(\S+)", line)
        if id_match:
            label = f"{path.stem}:{id_match.group(1)}"
        for depth, nodes in re.findall(r";\s*D(\d+)\s+(\d+)", line):
            cases.append((fen, int(depth), int(nodes), f"{label}:D{depth}"))
    return cases
