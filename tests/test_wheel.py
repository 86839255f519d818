"""The wheel works on its own: built from a copy of the repository, installed into a new virtual
environment, run where no source tree is (slow: it compiles the core and installs packages)."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True)
    return [name for name in listed.stdout.splitlines() if not name.startswith("tests/data/")]


@pytest.mark.slow
def test_wheel_installs_and_plays_without_the_source_tree(tmp_path: Path) -> None:
    source = tmp_path / "source"
    for name in tracked_files():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((REPO / name).read_bytes())
    wheels = tmp_path / "wheels"
    # A wheel is for other machines: built portable, as the README says (and without the
    # profile-guided second build, which would only make the test slower).
    build_env = {**os.environ, "PONDEROSA_PORTABLE": "1", "PONDEROSA_PGO": "0"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), str(source)],
                   check=True, capture_output=True, timeout=900, env=build_env)
    [wheel] = list(wheels.glob("ponderosa-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("ponderosa/core_ext/core.pyx", "ponderosa/core_ext/core.pxd", "ponderosa/core_ext/core.pyi",
                   "ponderosa/books/book.bin", "ponderosa/books/books.bin", "ponderosa/protocol/cli.py"):
        assert needed in names, needed
    assert any(name.startswith("ponderosa/core_ext/core.") and name.endswith(".so") for name in names)
    assert not any(name.endswith(".c") or name.startswith(("tests/", "ponderosa/tests/")) for name in names)

    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True,
                   timeout=900)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ponderosa = environment / "bin" / "ponderosa"
    perft = subprocess.run([str(ponderosa), "perft 5", "quit"], cwd=elsewhere, capture_output=True, text=True,
                           timeout=300)
    assert perft.returncode == 0, perft.stderr
    assert "4865609" in perft.stdout.replace(",", "")
    # The shipped book comes from inside the installed package, not from a checkout.
    book = subprocess.run([str(ponderosa), "bstat", "quit"], cwd=elsewhere, capture_output=True, text=True,
                          timeout=300)
    assert "e4" in book.stdout and book.returncode == 0
    where = subprocess.run([str(python), "-c", "import ponderosa.books, ponderosa.core_ext.core as s; "
                            "print(s.__file__); print(ponderosa.books.__path__[0])"],
                           cwd=elsewhere, capture_output=True, text=True, check=True)
    for line in where.stdout.splitlines():
        assert line.startswith(str(environment)), line
