"""Build Ponderosa as one executable file (the Makefile's `make` calls this; docs/BINARY.md).

In a temporary folder, deleted after: a copy of the package's sources (with EVALFILE in place of the
shipped network when given), a virtual environment whose pip installs the package and its
dependencies into a staging folder (the core compiled there, by $CC when set), then one zip
application written to --exe: a `#!` line naming this Python, the start module
(tools/binary/entry.py) and the installed packages, one folder each, which the program unpacks
once into a cache. The file runs with nothing else installed but this Python.

    python3 -m tools.binary.build --exe ponderosa [--evalfile net.nnue]   # from the repository's root
"""
from __future__ import annotations

import argparse
import compileall
import hashlib
import importlib.util
import io
import os
import py_compile
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
import venv
import zipfile
from pathlib import Path

from tools import ROOT

ENTRY = Path(__file__).resolve().with_name("entry.py")   # read as a file: the program's __main__.py
UNITS_LINE = "UNITS: tuple[str, ...] = ()  # filled in by tools/binary/build.py"
SHIPPED_NETWORK = Path("engine") / "nnue" / "ponderosa.nnue"
# What pip needs to build and install the package; generated and compiled files are made afresh.
SOURCE_FILES = ["pyproject.toml", "setup.py", "README.md", "LICENSE"]
SOURCE_FOLDERS = ["engine", "protocol", "core_ext", "books"]
SKIPPED = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", "*.html", "*.pyc")
PYTHON_FLAGS = "-sSE"   # no user or system site-packages, no PYTHON* variables: only what the file holds
FIXED_TIME = (2020, 1, 1, 0, 0, 0)   # zip entries' time: the same inputs give the same file


def copy_sources(destination: Path, evalfile: Path | None) -> None:
    """The package's sources under destination; evalfile replaces the shipped network."""
    destination.mkdir(parents=True)
    for name in SOURCE_FILES:
        shutil.copy2(ROOT / name, destination / name)
    for name in SOURCE_FOLDERS:
        shutil.copytree(ROOT / name, destination / name, ignore=SKIPPED)
    if evalfile is not None:
        shutil.copyfile(evalfile, destination / SHIPPED_NETWORK)


def base_python() -> str:
    """The interpreter the file will name: this one, outside any virtual environment (the build's
    environment is deleted), by its real path with its version in the name."""
    executable = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(executable)


def run(command: list[str], **options: object) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **options)  # type: ignore[call-overload]


def install(work: Path, sources: Path) -> tuple[Path, Path]:
    """A new virtual environment, and the package installed by its pip into a staging folder:
    (the environment's python, the staging folder)."""
    environment = work / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    staging = work / "site"
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
    # The pip that comes with an older Python installs a package that has no wheel by `setup.py
    # install`, which leaves no RECORD of its files; a current pip always builds a wheel first.
    run([*pip, "--upgrade", "pip"])
    # --no-compile: the bytecode is compiled afterwards, in the form the cache wants (compile_bytecode)
    run([*pip, "--no-warn-script-location", "--no-compile", "--target", str(staging), str(sources)])
    return python, staging


def read_network_file(sources: Path, evalfile: Path) -> None:
    """Fail at once unless evalfile is a whole, sound network file. The engine's reader needs only the
    standard library, so it runs from the copied sources before anything is compiled or installed (the
    Python running the build need not have the package): runpy runs the file as the module
    `network_file`, and its functions are then called from the namespace it returns."""
    reader = runpy.run_path(str(sources / "engine" / "nnue" / "network_file.py"), run_name="network_file")
    try:
        net = reader["parse_network"](evalfile.read_bytes(), str(evalfile))
    except ValueError as error:   # NetworkFileError
        raise SystemExit(f"EVALFILE: {error}") from None
    print(f"EVALFILE: {evalfile}: 768x{net.hidden} network ({net.description or 'no description'})")


def check_network(python: Path, staging: Path, evalfile: Path) -> None:
    """Fail the build unless the installed core computes the network in evalfile."""
    check = ("import sys; from pathlib import Path; "
             "from ponderosa.engine.nnue import check_shape, read_network; "
             "check_shape(read_network(Path(sys.argv[1])), sys.argv[1]); print('EVALFILE: network accepted')")
    # The staging folder is where the package is installed: the check finds it there by PYTHONPATH.
    run([str(python), "-c", check, str(evalfile)], env={**os.environ, "PYTHONPATH": str(staging)})


def distribution_files(staging: Path) -> dict[str, list[Path]]:
    """Each installed distribution (name-version) and the files its RECORD lists, less scripts and
    the test suites of the dependencies (numpy's are a third of its size and never imported)."""
    units: dict[str, list[Path]] = {}
    listed = {"bin", "__pycache__"}
    for info in sorted(staging.glob("*.dist-info")):
        own = info.name.startswith("ponderosa-")
        files = []
        for line in (info / "RECORD").read_text(encoding="utf-8").splitlines():
            name = Path(line.rsplit(",", 2)[0].strip('"'))
            listed.update(name.parts[:1])
            if name.parts and name.parts[0] not in ("..", "bin") and not name.is_absolute() \
                    and name.suffix != ".pyc" and (own or "tests" not in name.parts) and (staging / name).is_file():
                files.append(name)
        units[info.name[: -len(".dist-info")]] = files
    unlisted = sorted(path.name for path in staging.iterdir() if path.name not in listed)
    if unlisted:   # installed without a RECORD: the file would lack them
        raise SystemExit(f"no installed distribution lists {', '.join(unlisted)}")
    return units


def compile_bytecode(staging: Path, files: list[Path]) -> list[Path]:
    """Bytecode beside every module, valid whatever the unpacked files' times (the cache is keyed
    by content); the files plus their .pyc."""
    compiled = []
    for name in files:
        compiled.append(name)
        if name.suffix == ".py":
            source = staging / name
            if compileall.compile_file(str(source), quiet=2, legacy=False,
                                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH):
                compiled.append(Path(importlib.util.cache_from_source(str(name))))
    return compiled


def payload(staging: Path, units: dict[str, list[Path]]) -> tuple[bytes, list[str]]:
    """The inner zip: one folder per distribution, named by a hash of its files and this Python's
    bytecode tag (a folder is shared by every build that has the same one)."""
    buffer = io.BytesIO()
    names = []
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for distribution, files in units.items():
            digest = hashlib.sha256(sys.implementation.cache_tag.encode())
            # The installed files, less what varies between two installs of the same files: the
            # bytecode (marshal's output depends on reference counts) and pip's notes in the
            # .dist-info (RECORD, where it was installed from); otherwise every build would unpack anew.
            for name in sorted(name for name in files if name.suffix != ".pyc"
                               and (not name.parts[0].endswith(".dist-info") or name.name == "METADATA")):
                digest.update(name.as_posix().encode() + b"\0" + (staging / name).read_bytes())
            unit = f"{distribution}-{digest.hexdigest()[:12]}"
            names.append(unit)
            for name in sorted(files):
                info = zipfile.ZipInfo(f"{unit}/{name.as_posix()}", FIXED_TIME)
                info.external_attr = ((staging / name).stat().st_mode & 0o777 | 0o100000) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, (staging / name).read_bytes())
    # ponderosa first: its folder is the one a new build adds
    names.sort(key=lambda unit: not unit.startswith("ponderosa-"))
    return buffer.getvalue(), names


def entry_module(units: list[str]) -> bytes:
    text = ENTRY.read_text(encoding="utf-8")
    if text.count(UNITS_LINE) != 1:
        raise SystemExit(f"{ENTRY}: the line `{UNITS_LINE}` is missing")
    return text.replace(UNITS_LINE, f"UNITS: tuple[str, ...] = {tuple(units)!r}").encode()


def shebang(python: str) -> bytes:
    """The `#!` line; a path with a space cannot be one, so such a Python is found by name."""
    if " " in python:
        python = f"/usr/bin/env {Path(python).name}"
        return f"#!{python}\n".encode()
    return f"#!{python} {PYTHON_FLAGS}\n".encode()


def write_program(exe: Path, python: str, inner: bytes, units: list[str]) -> None:
    """The zip application, written beside exe and renamed onto it (a running copy keeps its file)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo("__main__.py", FIXED_TIME), entry_module(units),
                         compress_type=zipfile.ZIP_DEFLATED)
        # stored: the start module opens it in place, only when it unpacks
        archive.writestr(zipfile.ZipInfo("payload.zip", FIXED_TIME), inner, compress_type=zipfile.ZIP_STORED)
    exe.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=exe.parent, prefix=f".{exe.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(shebang(python) + buffer.getvalue())
        os.chmod(temporary, 0o755)
        os.replace(temporary, exe)
    except BaseException:
        os.unlink(temporary)
        raise


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exe", default="ponderosa", help="the file to write (default: ./ponderosa)")
    parser.add_argument("--evalfile", help="a network file to ship in place of engine/nnue/ponderosa.nnue")
    arguments = parser.parse_args()
    exe = Path(arguments.exe).absolute()
    evalfile = Path(arguments.evalfile).absolute() if arguments.evalfile else None
    if evalfile is not None and not evalfile.is_file():
        raise SystemExit(f"EVALFILE: {evalfile} is not a file")
    if exe.is_dir():
        raise SystemExit(f"EXE: {exe} is a folder")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ponderosa-build-") as folder:
        work = Path(folder)
        copy_sources(work / "source", evalfile)
        if evalfile is not None:
            read_network_file(work / "source", evalfile)
        python, staging = install(work, work / "source")
        if evalfile is not None:
            check_network(python, staging, evalfile)
        installed = time.monotonic()
        units = {name: compile_bytecode(staging, files) for name, files in distribution_files(staging).items()}
        inner, names = payload(staging, units)
        write_program(exe, base_python(), inner, names)
        bundled = time.monotonic()
    # The first start unpacks the cache: done here, so the first game or bench does not pay for it.
    run([str(exe), "--version"], stdin=subprocess.DEVNULL)
    print(f"wrote {exe} ({exe.stat().st_size / 1e6:.1f} MB) in {time.monotonic() - started:.0f} s "
          f"(install {installed - started:.0f} s, bundle {bundled - installed:.0f} s, first start "
          f"{time.monotonic() - bundled:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
