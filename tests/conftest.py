"""Shared test helpers: where the test data lives, and EPD perft parsing."""
from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import wall_clock

REPO = Path(__file__).resolve().parents[1]
# What the default run reads lives in the repository (tests/data/README.md gives each file's source).
DATA = REPO / "tests" / "data"
# The large collections (the 145,716 master games) are not in the repository: the folder that
# PONDEROSA_DATA names holds them (docs/DATA.md says where each comes from). Only slow tests read them.
LARGE_DATA = Path(os.environ["PONDEROSA_DATA"]) if os.environ.get("PONDEROSA_DATA") else None


@pytest.fixture(autouse=True)
def _wall_clock_scale(request: pytest.FixtureRequest) -> Iterator[None]:
    """Wall-clock bounds as written for a `timing` test, stretched for a busy machine otherwise
    (tests/wall_clock.py)."""
    wall_clock.scale = 1.0 if request.node.get_closest_marker("timing") else wall_clock.LOADED_SCALE
    yield
    wall_clock.scale = wall_clock.LOADED_SCALE


@pytest.fixture(autouse=True)
def _own_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs in a directory of its own: engines write learned data and .lrn files to
    their working directory, and one test's learning must not steer another's games."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The test's working directory (made so by _own_working_directory): books and learned data
    are written there."""
    return tmp_path


@pytest.fixture(autouse=True)
def _no_search_outlives_its_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stop the search of every in-process Engine the test made. A console engine ponders after
    its move; left so, its search thread runs until the worker process ends and takes a core from
    every later test of that worker."""
    from ponderosa.engine.engine import Engine

    made: list[weakref.ref[Engine]] = []
    original = Engine.__init__

    def recording_init(self: Engine, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        made.append(weakref.ref(self))

    monkeypatch.setattr(Engine, "__init__", recording_init)
    yield
    for reference in made:
        engine = reference()
        if engine is not None:
            engine.end_search()


def data_file(*parts: str) -> Path:
    """A file of tests/data: part of the repository, so a missing one is a failure."""
    path = DATA.joinpath(*parts)
    if not path.is_file():
        pytest.fail(f"test data {path} is missing from the repository (tests/data/README.md lists it)")
    return path


def large_data_file(*parts: str) -> Path:
    """A file of the large data folder (slow tests only); the test skips, saying what to set, without it."""
    if LARGE_DATA is None:
        pytest.skip(f"PONDEROSA_DATA is not set: set it to a folder holding {'/'.join(parts)} (docs/DATA.md)")
    path = LARGE_DATA.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"{path} not found: set PONDEROSA_DATA to a folder holding {'/'.join(parts)}")
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
