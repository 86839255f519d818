"""Builds the Cython core. Project metadata lives in pyproject.toml."""
import os
import platform
import shutil
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

# core is the engine's hot path as one C unit (core.pyx includes the parts, core.pxd declares them);
# board, evaluate, tt, syzygy, search and perft only re-export its Python names under their old
# import paths; position_set (the tuner's data) is a module of its own that cimports core.
CORE_MODULES = ["core", "board", "evaluate", "tt", "syzygy", "search", "perft", "position_set"]


def cython_include_dir() -> str:
    """Cython finds .pxd files by import path, so mirror core_ext/ as ponderosa/core_ext/."""
    mirror = Path("build") / "cython-include"
    package = mirror / "ponderosa" / "core_ext"
    package.mkdir(parents=True, exist_ok=True)
    for stale in package.glob("*.pxd"):
        stale.unlink()
    (mirror / "ponderosa" / "__init__.pxd").write_text("")
    (package / "__init__.pxd").write_text("")
    for pxd in Path("core_ext").glob("*.pxd"):
        shutil.copy2(pxd, package / pxd.name)
    return str(mirror)


def compile_flags() -> list:
    """Optimise, with hardware popcount: the x86-64-v2 baseline by default, which runs on any
    x86-64 machine of the last decade and was measured no slower than -march=native on the
    project's machine (docs/BENCHMARKS.md); PONDEROSA_NATIVE=1 builds for the building machine's
    own processor. PONDEROSA_PORTABLE=1 asks for the baseline explicitly (wheels)."""
    flags = ["-O3", "-fno-strict-aliasing", "-Wno-unused-function", "-Wno-unreachable-code"]
    # Floating-point results must not depend on the build (the search's tables are computed in
    # doubles): no fused multiply-add contraction where the processor has one.
    flags.append("-ffp-contract=off")
    if os.environ.get("PONDEROSA_NATIVE") == "1" and os.environ.get("PONDEROSA_PORTABLE") != "1":
        flags.append("-march=native")
    elif platform.machine().lower() in ("x86_64", "amd64"):
        flags.append("-march=x86-64-v2")
    return flags


extensions = [
    Extension(f"ponderosa.core_ext.{name}", [f"core_ext/{name}.pyx"], extra_compile_args=compile_flags())
    for name in CORE_MODULES
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=[cython_include_dir()],
        compiler_directives={"language_level": "3"},
    )
)
