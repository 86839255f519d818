"""The one-file program (`make`, tools/binary/build.py, docs/BINARY.md) as an OpenBench worker gets
it: the repository as a zip with one root folder, unpacked, `make -j EXE=NAME CC=gcc` there, the file
moved out and the source tree deleted; then, from another folder and with a bare environment
(`env -i PATH=/usr/bin:/bin`), two benches at once read the way the worker reads them, `genfens`,
two games through UCI against itself, and the XBoard registration pointing at the file.

The archive is the working tree as it is on disk (`git stash create` for the tracked files, the
untracked ones that git does not ignore added), so the test checks what is being worked on;
PONDEROSA_BINARY_REV=HEAD (or another revision) archives that commit alone, as OpenBench would. A
copy that is not a git checkout is zipped as it is.
Slow: the build compiles the core twice (profile-guided) and installs packages from PyPI."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import chess
import chess.engine
import pytest

from ponderosa.protocol.xboard import registration

from tests.conftest import REPO
from tests.wall_clock import allowed
from tools.binary import build as build_binary

BARE = {"PATH": "/usr/bin:/bin"}
NAME = "Ponderosa-0123ABCD"        # how a worker names a build: engine, commit, network
OPENBENCH_BENCH_SECONDS = 60       # a worker's limit for its benches (Client/bench.py)
BUILD_SECONDS = 1800
CACHE = Path(os.path.expanduser("~")) / ".cache" / "ponderosa"   # where the file unpacks (HOME unset: the user's)


SKIPPED_FOLDERS = {".git", ".venv", "venv", "build", "dist", "__pycache__", ".pytest_cache", ".mypy_cache",
                   ".ruff_cache", ".hypothesis"}


def walked_zip(destination: Path, prefix: str) -> None:
    """A copy that is not a git checkout (.ci/run's `git archive` copy): its files, less the
    environment, build output, caches and compiled files."""
    with zipfile.ZipFile(destination, "w") as archive:
        for folder, subfolders, files in os.walk(REPO):
            subfolders[:] = [name for name in subfolders
                             if name not in SKIPPED_FOLDERS and not name.endswith(".egg-info")]
            for name in files:
                path = Path(folder, name)
                if path.suffix not in {".so", ".c", ".pyc"} and path.is_file():
                    archive.write(path, prefix + path.relative_to(REPO).as_posix())


def source_zip(destination: Path) -> None:
    """The repository as a zip with one root folder, as GitHub serves a commit to a worker."""
    prefix = "Ponderosa-main/"
    if not (REPO / ".git").exists():
        walked_zip(destination, prefix)
        return
    revision = os.environ.get("PONDEROSA_BINARY_REV")
    untracked: list[str] = []
    if revision is None:
        stash = subprocess.run(["git", "stash", "create"], cwd=REPO, capture_output=True, text=True, check=True)
        revision = stash.stdout.strip() or "HEAD"   # no local changes: HEAD is the working tree
        listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=REPO,
                                capture_output=True, text=True, check=True)
        untracked = [name for name in listed.stdout.split("\0") if name and (REPO / name).is_file()]
    subprocess.run(["git", "archive", "--format=zip", f"--prefix={prefix}", "-o", str(destination), revision],
                   cwd=REPO, check=True)
    with zipfile.ZipFile(destination, "a") as archive:
        for name in untracked:
            archive.write(REPO / name, prefix + name)


def openbench_bench(output: bytes) -> tuple[int | None, int | None]:
    """Node count and speed as a worker reads them: the last line holding each, after turning every
    character that is not a letter, digit or space into a space."""
    nodes = speed = None
    for line in reversed(output.decode().strip().split("\n")):
        line = re.sub(r"[^a-zA-Z0-9 ]+", " ", line)
        found_speed = re.search(r"(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)", line, re.IGNORECASE)
        found_nodes = re.search(r"(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)", line, re.IGNORECASE)
        if found_speed and speed is None:
            speed = int(re.search(r"\d+", found_speed.group()).group())  # type: ignore[union-attr]
        if found_nodes and nodes is None:
            nodes = int(re.search(r"\d+", found_nodes.group()).group())  # type: ignore[union-attr]
    return nodes, speed


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimpleNamespace]:
    """The built file, alone in a folder (the source tree it came from deleted), and a folder to run it from."""
    top = tmp_path_factory.mktemp("binary")
    before = set(os.listdir(CACHE)) if CACHE.is_dir() else set()
    archive = top / "source.zip"
    source_zip(archive)
    unpacked = top / "unpacked"
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(unpacked)
    [root] = list(unpacked.iterdir())
    source = unpacked / f"{NAME}-tmp"   # the worker renames the root folder
    root.rename(source)
    started = time.monotonic()
    built = subprocess.run(["make", "-j", f"EXE={NAME}", "CC=gcc"], cwd=source, env=BARE, capture_output=True,
                           text=True, timeout=BUILD_SECONDS)
    build_seconds = time.monotonic() - started
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    engines = top / "Engines"
    engines.mkdir()
    binary = engines / NAME
    shutil.move(str(source / NAME), str(binary))
    shutil.rmtree(unpacked)
    archive.unlink()
    elsewhere = top / "elsewhere"
    elsewhere.mkdir()
    print(f"built {binary.stat().st_size / 1e6:.1f} MB in {build_seconds:.0f} s")
    yield SimpleNamespace(binary=binary, folder=elsewhere)
    # The folders this build unpacked (the cache keeps the shared ones a user's build already had).
    for name in (set(os.listdir(CACHE)) if CACHE.is_dir() else set()) - before:
        shutil.rmtree(CACHE / name, ignore_errors=True)


def run(program: SimpleNamespace, *arguments: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(program.binary), *arguments], cwd=program.folder, env=BARE, capture_output=True,
                          timeout=allowed(timeout))


@pytest.mark.slow
def test_the_file_is_one_self_contained_executable(program: SimpleNamespace) -> None:
    binary = program.binary
    assert binary.is_file() and os.access(binary, os.X_OK)
    first_line = binary.read_bytes().split(b"\n", 1)[0]
    assert first_line.startswith(b"#!/") and b"venv" not in first_line   # the build's environment is gone
    # -S and -s: no site-packages at all, so what it imports can only come from its own folders.
    assert first_line.endswith(b" -sSE"), first_line
    done = run(program, "--version")
    assert done.returncode == 0 and b"Ponderosa" in done.stdout, done.stderr
    done = run(program, "perft 4", "quit")
    assert done.returncode == 0 and b"197281" in done.stdout, done.stderr


@pytest.mark.slow
def test_two_benches_at_once_agree(program: SimpleNamespace) -> None:
    """OpenBench runs one bench per worker thread at once, and rejects a build whose counts differ."""
    def bench(_: int) -> tuple[bytes, float]:
        started = time.monotonic()
        done = subprocess.run([str(program.binary), "bench"], cwd=program.folder, env=BARE, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=allowed(OPENBENCH_BENCH_SECONDS))
        assert done.returncode == 0, done.stdout[-2000:]
        return done.stdout, time.monotonic() - started

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(bench, range(2)))
    readings = [openbench_bench(output) for output, _ in results]
    print("benches:", readings, "seconds:", [round(seconds, 1) for _, seconds in results])
    assert all(nodes and speed for nodes, speed in readings), readings
    assert readings[0][0] == readings[1][0], readings
    assert max(seconds for _, seconds in results) < allowed(OPENBENCH_BENCH_SECONDS)


@pytest.mark.slow
def test_genfens_gives_the_same_legal_openings_each_run(program: SimpleNamespace) -> None:
    """A DATAGEN worker's call: `ENGINE "genfens N seed S book None" quit`, one line per opening."""
    runs = []
    for _ in range(2):
        done = run(program, "genfens 16 seed 1 book None", "quit")
        text = done.stdout.decode()
        if "unknown command" in text and "genfens" in text and "info string genfens" not in text:
            pytest.skip("this build's console has no `genfens` command yet")
        assert done.returncode == 0, text + done.stderr.decode()
        runs.append([line.split("genfens ", 1)[1].rstrip() for line in text.splitlines()
                     if line.startswith("info string genfens ")])
    assert len(runs[0]) == 16 and runs[0] == runs[1], runs
    for fen in runs[0]:
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_game_over(), fen


@pytest.mark.slow
def test_two_games_through_uci_against_itself(program: SimpleNamespace) -> None:
    """Two games at a short clock, with the options of OpenBench's presets, as a match runner plays them."""
    base, increment = 2.0, 0.05
    engines = [chess.engine.SimpleEngine.popen_uci([str(program.binary)], cwd=program.folder, env=BARE,
                                                   timeout=allowed(10)) for _ in range(2)]
    try:
        for engine in engines:   # openbench/Ponderosa.json's STC preset
            engine.configure({"Threads": 1, "Hash": 8, "OwnBook": False, "Learn": 0})
        for game in range(2):
            white, black = engines[game], engines[1 - game]
            board = chess.Board()
            clocks = {chess.WHITE: base, chess.BLACK: base}
            while not board.is_game_over(claim_draw=True) and board.ply() < 160:
                mover = white if board.turn == chess.WHITE else black
                limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                           white_inc=increment, black_inc=increment)
                started = time.monotonic()
                played = mover.play(board, limit, game=game)
                clocks[board.turn] = max(0.05, clocks[board.turn] - (time.monotonic() - started)) + increment
                assert played.move is not None and played.move in board.legal_moves, (board.fen(), played)
                board.push(played.move)
            assert board.ply() >= 20, board   # a game, not an early breakdown
    finally:
        for engine in engines:
            engine.quit()


@pytest.mark.slow
def test_install_xboard_names_the_file_itself(program: SimpleNamespace, tmp_path: Path) -> None:
    """`install xboard` run from the file lists the file, which then starts in XBoard mode (python-chess)."""
    done = run(program, f"install xboard {tmp_path / 'plugins'} {tmp_path / 'xboardrc'}", "quit")
    assert done.returncode == 0, done.stderr
    plugin = (tmp_path / "plugins" / "xboard" / "ponderosa.eng").read_text().splitlines()
    assert plugin[1] == str(program.binary), plugin
    assert f'-fcp "{program.binary} --xboard"' in (tmp_path / "xboardrc").read_text()
    engine = chess.engine.SimpleEngine.popen_xboard([plugin[1], "--xboard"], cwd=program.folder, env=BARE,
                                                    timeout=allowed(10))
    try:
        played = engine.play(chess.Board(), chess.engine.Limit(depth=3))
        assert played.move in chess.Board().legal_moves
    finally:
        engine.quit()


def test_a_zip_application_names_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started from a zip application, the engine's command is that file; otherwise the installed script."""
    single = tmp_path / "ponderosa"
    single.write_bytes(b"#!/usr/bin/python3\n")
    main = SimpleNamespace(__loader__=SimpleNamespace(archive=str(single)))
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert registration.engine_command() == str(single)
    monkeypatch.setitem(sys.modules, "__main__", SimpleNamespace(__loader__=object()))
    assert registration.program_file() is None
    assert registration.engine_command() != str(single)


FAKE_LAUNCH = """import sys
import dep


def main():
    print(__file__)
    print(dep.__file__)
    print(" ".join(sys.argv[1:]))
    return 3
"""


def fake_distribution(staging: Path, name: str, files: dict[str, str], note: str = "") -> None:
    """An installed distribution as pip leaves it: its files and a .dist-info whose RECORD lists
    them (note: what differs between two installs of the same files, such as pip's own lines)."""
    info = staging / f"{name}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Name: {name}\n")
    for relative, text in files.items():
        (staging / relative).parent.mkdir(parents=True, exist_ok=True)
        (staging / relative).write_text(text)
    record = [f"{relative},sha256=x,{len(text)}" for relative, text in files.items()]
    (info / "RECORD").write_text("\n".join([*record, f"{info.name}/METADATA,,", f"{info.name}/RECORD,,", note]))


def fake_program(folder: Path, launch: str, note: str = "") -> tuple[Path, list[str]]:
    """A one-file program, built by the build's own steps, around a stand-in for the package."""
    staging = folder / "site"
    fake_distribution(staging, "ponderosa-0.1.0", {
        "ponderosa/__init__.py": "", "ponderosa/protocol/__init__.py": "", "ponderosa/protocol/launch.py": launch,
        "bin/ponderosa": "#!/bin/sh\n"}, note)
    fake_distribution(staging, "dep-1.0", {"dep/__init__.py": "", "dep/tests/test_dep.py": ""}, note)
    units = {name: build_binary.compile_bytecode(staging, files)
             for name, files in build_binary.distribution_files(staging).items()}
    inner, names = build_binary.payload(staging, units)
    program = folder / "ponderosa"
    build_binary.write_program(program, build_binary.base_python(), inner, names)
    return program, names


def test_the_file_unpacks_once_shares_unchanged_folders_and_prunes_unused_ones(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    environment = {**BARE, "XDG_CACHE_HOME": str(cache)}
    program, units = fake_program(tmp_path / "first", FAKE_LAUNCH)
    assert units[0].startswith("ponderosa-0.1.0-") and units[1].startswith("dep-1.0-")
    # Two first starts at once: both run, one unpacking wins, nothing half-made is left.
    starts = [subprocess.Popen([str(program), "go", "on"], stdout=subprocess.PIPE, env=environment, cwd=tmp_path)
              for _ in range(2)]
    outputs = [start.communicate(timeout=allowed(30))[0].decode().splitlines() for start in starts]
    root = cache / "ponderosa"
    for start, lines in zip(starts, outputs):
        assert start.returncode == 3, lines
        assert lines[0] == str(root / units[0] / "ponderosa" / "protocol" / "launch.py"), lines
        assert lines[1] == str(root / units[1] / "dep" / "__init__.py") and lines[2] == "go on", lines
    assert sorted(os.listdir(root)) == sorted(units)   # no unpacking folder left behind
    assert not (root / units[1] / "dep" / "tests").exists() and not (root / units[0] / "bin").exists()
    assert list((root / units[0] / "ponderosa" / "protocol" / "__pycache__").glob("launch.*.pyc"))

    # The same files installed again (pip's notes differ): the same folders. Changed code: a new
    # folder for it alone. Unpacking it prunes folders unused for STALE_DAYS, not those in use.
    again, same_units = fake_program(tmp_path / "again", FAKE_LAUNCH, note="# another install")
    assert same_units == units
    changed, new_units = fake_program(tmp_path / "changed", FAKE_LAUNCH.replace("return 3", "return 4"))
    assert new_units[1] == units[1] and new_units[0] != units[0]
    month_ago = time.time() - 30 * 86400
    stale, recent = root / "ponderosa-0.0.9-000000000000", root / "ponderosa-0.0.8-000000000000"
    stale.mkdir()
    recent.mkdir()
    os.utime(stale, (month_ago, month_ago))
    os.utime(root / units[0], (month_ago, month_ago))
    assert subprocess.run([str(program)], env=environment, capture_output=True).returncode == 3   # in use again
    assert subprocess.run([str(changed)], env=environment, capture_output=True).returncode == 4
    assert sorted(os.listdir(root)) == sorted([*units, new_units[0], recent.name])


def test_copied_sources_take_evalfile_in_place_of_the_shipped_network(tmp_path: Path) -> None:
    network = tmp_path / "other.nnue"
    network.write_bytes(b"a network's bytes")
    build_binary.copy_sources(tmp_path / "source", network)
    assert (tmp_path / "source" / "engine" / "nnue" / "ponderosa.nnue").read_bytes() == b"a network's bytes"
    assert (tmp_path / "source" / "core_ext" / "core.pyx").is_file() and (tmp_path / "source" / "setup.py").is_file()
    copied = [path.name for path in (tmp_path / "source").rglob("*")]
    assert not [name for name in copied if name.endswith((".so", ".c")) or name == "__pycache__"]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("exe", ["with space/Ponderosa 1", "/tmp/with space/Ponderosa"])
def test_make_passes_a_name_with_spaces_whole(exe: str, tmp_path: Path) -> None:
    """`make EXE=...` gives the build tool the path as one argument, made absolute from the folder
    make was started in (make's own abspath splits a name with spaces into words)."""
    shown = subprocess.run(["make", "-n", "-f", str(REPO / "Makefile"), f"EXE={exe}", f"EVALFILE={exe}.nnue"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    expected = exe if exe.startswith("/") else f"{tmp_path}/{exe}"
    assert f'--exe "{expected}"' in shown and f'--evalfile "{expected}.nnue"' in shown, shown
