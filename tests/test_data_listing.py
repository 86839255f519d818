"""docs/DATA.md lists every data file of the repository: by its name, a pattern (`suites/*.epd`)
or a numbered range (`selfplay-047.pgm.xz` … `selfplay-058.pgm.xz`)."""
from __future__ import annotations

import fnmatch
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The folders of data and, for each, which of its files are data (the rest is source).
DATA_FOLDERS = {"books": "*", "engine/nnue": "*.nnue", "tests/data": "*", "data/nnue": "*", "data/sprt": "*",
                "data/matches": "*"}
RANGE = re.compile(r"`([\w-]*?)(\d+)(\.[\w.]+)` … `\1(\d+)\3`")


def data_files() -> list[str]:
    files = []
    for folder, pattern in DATA_FOLDERS.items():
        for path in sorted((REPO / folder).rglob(pattern)):
            relative = path.relative_to(REPO / folder)
            if path.is_file() and path.suffix != ".py" and not any(part.startswith((".", "__")) for part in
                                                                      relative.parts):
                files.append(str(relative))
    return files


def listed(name: str, text: str) -> bool:
    tokens = re.findall(r"`([^`]+)`", text)
    if any(name == token or Path(name).name == token or fnmatch.fnmatch(name, token) for token in tokens):
        return True
    for prefix, first, suffix, last in RANGE.findall(text):
        match = re.fullmatch(rf"(?:.*/)?{re.escape(prefix)}(\d+){re.escape(suffix)}", name)
        if match and int(first) <= int(match.group(1)) <= int(last):
            return True
    return False


def test_every_data_file_is_listed() -> None:
    text = (REPO / "docs" / "DATA.md").read_text()
    files = data_files()
    assert len(files) > 100 and "ponderosa.nnue" in files   # the folders are where this test thinks
    missing = [name for name in files if not listed(name, text)]
    assert missing == [], "data files docs/DATA.md does not list: " + ", ".join(missing)


def test_a_file_outside_the_ranges_is_missed() -> None:
    text = "`selfplay-001.pgm.xz` … `selfplay-036.pgm.xz`, `suites/*.epd`, `book.bin`"
    assert listed("selfplay-036.pgm.xz", text) and listed("suites/wac.epd", text) and listed("book.bin", text)
    assert not listed("selfplay-037.pgm.xz", text) and not listed("books.bin", text)
