"""The repository as a fresh clone sees it: no path that leads outside it, no work-in-progress
folders under docs/, and documents that speak of the product and its versions, not of who
worked when."""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Built from pieces so that this file does not name what it looks for.
OUTSIDE = "../" + "shared"
# The provenance note of the test data and the CI script's comment may name the folder they
# were copied from, or that a clone does not have.
MAY_NAME_OUTSIDE = {"tests/data/README.md", ".ci/run"}
# protocol/ is being restructured in a change of its own, which points this docstring line at
# docs/PROTOCOL.md; until that lands, this line alone makes the test an expected failure.
WORK_PERIOD = re.compile("(first|second|third|[a-z]+th) " + "session", re.IGNORECASE)
# There a session is the moves of one time control (XBoard's `level 40 5 0`), not a period of work.
TIME_CONTROL_CODE = {"engine/clock.py", "tests/test_clock.py"}

# What a tree walk leaves out when there is no git (.ci/run tests a `git archive` copy): the
# virtual environment, build output and caches, compiled and generated files.
SKIPPED_FOLDERS = {".git", ".venv", "venv", "build", "dist", "__pycache__", ".pytest_cache",
                   ".mypy_cache", ".ruff_cache", ".hypothesis"}
SKIPPED_SUFFIXES = {".so", ".c", ".html", ".pyc"}


def _git_files() -> list[str] | None:
    """Tracked files, or None when this checkout is not a git repository (or git is missing)."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return None
    try:
        listing = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True,
                                 timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [name for name in listing.decode("utf-8", "surrogateescape").split("\0") if name]


def _walked_files() -> list[str]:
    found = []
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = [name for name in subfolders
                         if name not in SKIPPED_FOLDERS and not name.endswith(".egg-info")]
        for name in files:
            if Path(name).suffix not in SKIPPED_SUFFIXES:
                found.append(Path(folder, name).relative_to(REPO).as_posix())
    return found


@functools.lru_cache(maxsize=1)
def text_files() -> dict[str, str]:
    """Every tracked text file (every file of the tree when there is no git) and its text;
    binary files (a NUL byte) are left out."""
    names = _git_files()
    if names is None:
        names = _walked_files()
    texts = {}
    for name in sorted(names):
        path = REPO / name
        if not path.is_file():
            continue   # deleted in the working tree
        data = path.read_bytes()
        if b"\0" in data:
            continue
        texts[name] = data.decode("utf-8", "replace")
    assert texts, f"no text files found under {REPO}"
    return texts


def lines_matching(found: Callable[[str], bool], skip: set[str]) -> list[str]:
    """`path:line: text` for every line of the text files (but those in skip) where found(line)."""
    hits = []
    for name, text in text_files().items():
        if name in skip:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if found(line):
                hits.append(f"{name}:{number}: {line.strip()[:120]}")
    return hits


def test_no_file_names_a_folder_outside_the_repository() -> None:
    offenders = lines_matching(lambda line: OUTSIDE in line, MAY_NAME_OUTSIDE)
    assert not offenders, (f"a clone has no {OUTSIDE} folder: name the public source, or the folder "
                           "PONDEROSA_DATA names (docs/DATA.md), instead:\n" + "\n".join(offenders))


def test_no_file_speaks_of_work_sessions() -> None:
    offenders = lines_matching(lambda line: WORK_PERIOD.search(line) is not None, TIME_CONTROL_CODE)
    assert not offenders, ("documents speak of the product, its commits, dates and bench signatures, "
                           "not of when work was done:\n" + "\n".join(offenders))


def test_docs_hold_no_patches_or_game_archives() -> None:
    # Candidates are rows of docs/STRENGTH.md's tables; their patches and the match games are in
    # git history (commit 571b793), not in the documentation folder.
    for folder in ("patches", "games"):
        assert not (REPO / "docs" / folder).exists(), f"docs/{folder} is back: see docs/STRENGTH.md"


def test_the_version_the_engine_gives_is_the_package_version() -> None:
    """engine/identity.py writes the version out (no importlib.metadata at start-up); it must be
    pyproject.toml's, and the installed package's."""
    from importlib.metadata import version

    from ponderosa.engine.identity import VERSION
    declared = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared is not None and declared.group(1) == VERSION
    assert version("ponderosa") == VERSION


# tests/ holds the test modules and the harnesses they share; the match, SPRT and bench scripts and
# every other program live in tools/, one package per concern (tools/__init__.py).
TEST_HARNESSES = {"__init__.py", "conftest.py", "uci_harness.py", "xboard_harness.py", "xboard_cases.py",
                  "wall_clock.py", "ics_standin.py", "learned_workload.py", "learning_harness.py"}
# Built from pieces so that this file does not name what it looks for.
SEARCH_PATH = "sys." + "path"
MAY_EDIT_SEARCH_PATH = {"setup.py", "conftest.py"}


def test_tests_holds_test_modules_and_harnesses_only() -> None:
    found = {name for name in text_files() if name.startswith("tests/") and name.count("/") == 1
             and name.endswith(".py")}
    assert found, "no Python files under tests/"
    scripts = sorted(name for name in found
                     if not Path(name).name.startswith("test_") and Path(name).name not in TEST_HARNESSES)
    assert not scripts, ("tests/ holds the test suite and its harnesses; a match, SPRT or bench script or "
                         "another program belongs in tools/: " + ", ".join(scripts))
    harnesses = {Path(name).name for name in found if not Path(name).name.startswith("test_")}
    assert "__init__.py" in harnesses, "tests/ is a package: its modules import `tests.uci_harness`, ..."


def test_no_module_edits_the_import_search_path() -> None:
    """Tests import the harnesses as the package tests and the tools as the package tools, both from the
    repository's root (pyproject.toml's pytest `pythonpath`); a tool runs as a module from the root,
    `python -m tools.match.sprt`, and imports the others as `tools.…`. Only setup.py and conftest.py
    files may touch the search path."""
    offenders = sorted(name for name, text in text_files().items()
                       if name.endswith(".py") and SEARCH_PATH in text
                       and Path(name).name not in MAY_EDIT_SEARCH_PATH)
    assert not offenders, f"{SEARCH_PATH} edited outside setup.py and conftest.py: " + ", ".join(offenders)


def test_tools_do_not_import_the_tests() -> None:
    """The tools run without the test suite (the tests may import tools, not the other way round)."""
    harness = re.compile(r"^\s*(from|import)\s+(tests\b|conftest\b|" + "|".join(
        Path(name).stem for name in sorted(TEST_HARNESSES - {"__init__.py", "conftest.py"})) + r"\b)", re.MULTILINE)
    offenders = sorted(name for name, text in text_files().items()
                       if name.startswith("tools/") and name.endswith(".py") and harness.search(text))
    assert not offenders, "tools/ imports the tests' modules: " + ", ".join(offenders)


def test_every_folder_of_tools_is_a_package() -> None:
    """tools/ and each of its folders of Python files is a package, imported as `tools.match`, ..."""
    folders = {str(Path(name).parent) for name in text_files() if name.startswith("tools/") and name.endswith(".py")}
    assert {"tools", "tools/match", "tools/bench"} <= folders, "tools/ is not where this test thinks"
    missing = sorted(folder for folder in folders if f"{folder}/__init__.py" not in text_files())
    assert not missing, "folders of tools/ without an __init__.py: " + ", ".join(missing)


# The commands of the ledger are kept as they were run (tools/results.py shows them as they run now).
MAY_NAME_OLD_TOOLS = {"docs/results/ledger.jsonl"}
OLD_TOOL_COMMAND = re.compile(r"\bpython3? tools/[\w/]+\.py\b")
TOOL_MODULE = re.compile(r"\bpython3? -m (tools(?:\.[a-z_][a-z0-9_]*)+)")
TOOL_PATH = re.compile(r"(?<![\w/.])tools/[\w/]+\.py\b")


def test_tools_are_run_as_modules_that_exist() -> None:
    """A tool runs as `python -m tools.PACKAGE.MODULE` from the repository's root (run by its path it
    would not find the package tools); every such command, and every path of tools/ that a Markdown
    document names, names a file that is there."""
    offenders = []
    for name, text in text_files().items():
        if name in MAY_NAME_OLD_TOOLS:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            modules = [found.group(1) for found in TOOL_MODULE.finditer(line)]
            paths = TOOL_PATH.findall(line) if name.endswith(".md") else []
            wrong = [*OLD_TOOL_COMMAND.findall(line),
                     *(module for module in modules if not (REPO / (module.replace(".", "/") + ".py")).is_file()
                       and not (REPO / module.replace(".", "/") / "__main__.py").is_file()),
                     *(path for path in paths if not (REPO / path).is_file())]
            offenders += [f"{name}:{number}: {item}" for item in wrong]
    assert not offenders, ("run a tool as `python -m tools.…` from the repository's root, by a module that "
                           "exists:\n" + "\n".join(offenders))


def test_the_documents_index_links_every_document() -> None:
    """docs/README.md is the way into docs/: every document is linked from it, every link resolves."""
    docs = REPO / "docs"
    index = (docs / "README.md").read_text(encoding="utf-8")
    links = set(re.findall(r"\]\(([^)#]+)\)", index))
    documents = {str(path.relative_to(docs)) for path in docs.rglob("*.md") if path.name != "README.md"}
    documents.add("results/README.md")
    assert not documents - links, f"docs/README.md does not link {sorted(documents - links)}"
    assert all((docs / link).is_file() for link in links), sorted(link for link in links if not (docs / link).is_file())
