"""mypy over the installed package's Python code (engine and protocol): no errors, so the typing
cannot regress. The compiled core is checked through its .pyi stubs, which must be installed too."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

CONFIG = Path(__file__).resolve().parents[1] / "pyproject.toml"
SUBPACKAGES = ("engine", "protocol")
# Without the repository's pyproject.toml: no config file at all, and its [tool.mypy] python_version
# (its override for chess is only needed by a python-chess without type information).
FALLBACK_FLAGS = ["--config-file=", "--python-version", "3.11"]


def package_root() -> Path:
    """The directory that plays `ponderosa/`: site-packages/ponderosa when installed normally, the
    repository root for an editable install (which maps ponderosa.engine to engine/ and so on,
    through an import hook mypy does not follow)."""
    spec = importlib.util.find_spec("ponderosa.engine")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("ponderosa.engine is not installed")
    root = Path(next(iter(spec.submodule_search_locations))).resolve().parent
    for name in (*SUBPACKAGES, "core_ext"):
        if not (root / name).is_dir():
            pytest.fail(f"{root} has no {name}/ beside engine/: not the layout this test knows")
    return root


def test_mypy_finds_no_errors(tmp_path: Path) -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with the test extras: pip install '.[test]')")
    # mypy finds packages on its search path by directory name: a link named ponderosa to the
    # installed package, in a directory of its own, makes `-p ponderosa.engine` that package.
    (tmp_path / "ponderosa").symlink_to(package_root(), target_is_directory=True)
    config = ["--config-file", str(CONFIG)] if CONFIG.is_file() else FALLBACK_FLAGS
    packages = [arg for name in SUBPACKAGES for arg in ("-p", f"ponderosa.{name}")]
    result = subprocess.run([sys.executable, "-m", "mypy", *config, "--cache-dir", str(tmp_path / "cache"),
                             *packages],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    print(output)
    assert result.returncode == 0, f"mypy reported errors (exit {result.returncode}):\n{output}"
