"""Setting an option to the value it has costs nothing: python-chess sends an XBoard option it
reads as a string (`memory "4096"`, `cores "4"`) again before every move, and a table mapped
anew or a thread report each time cost seconds a move. A real change still works, during a
search at its end; and a resized table is faulted in at once, as the start-up one is."""
from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from ponderosa.engine import book_learning
from ponderosa.engine.book import opening_book
from ponderosa.engine.engine import Engine
from ponderosa.engine.nnue.choice import EvaluationChoice
from ponderosa.engine.search import SearchLimits
from ponderosa.engine.settings import SearchSettings
from ponderosa.engine.tablebases import Tablebases
from ponderosa.protocol.console import Console
from ponderosa.protocol.uci import UciSession
from ponderosa.protocol.xboard.session import XBoardSession

from tests.conftest import data_file

MEGABYTE = 1 << 20
REPEATS = 20
TABLES = str(data_file("syzygy", "KQvK.rtbw").parent)


class Calls:
    """Counts the calls of the methods it wraps (the costly ones: remap, reload, reopen)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts: dict[str, int] = {}
        self._monkeypatch = monkeypatch

    def count(self, owner: object, name: str) -> None:
        original = getattr(owner, name)
        self.counts[name] = 0

        def counted(*args: object, **kwargs: object) -> object:
            self.counts[name] += 1
            return original(*args, **kwargs)
        self._monkeypatch.setattr(owner, name, counted)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    spy = Calls(monkeypatch)
    spy.count(SearchSettings, "_resize_hash")
    spy.count(SearchSettings, "_resize_threads")
    spy.count(Tablebases, "set_path")
    spy.count(EvaluationChoice, "set_file")
    spy.count(opening_book, "open_book_file")
    spy.count(book_learning, "open_learned_store")
    return spy


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    monkeypatch.chdir(tmp_path)   # the learned store's default file
    engine = Engine()
    yield engine
    engine.shutdown()


def repeated(handle, lines: list[str], out: io.StringIO) -> str:
    """Each line once, then REPEATS times more; what was written after the first round."""
    for line in lines:
        handle(line)
    written = len(out.getvalue())
    for _ in range(REPEATS):
        for line in lines:
            handle(line)
    return out.getvalue()[written:]


def test_xboard_settings_sent_again_change_nothing(engine: Engine, calls: Calls, tmp_path: Path) -> None:
    out = io.StringIO()
    session = XBoardSession(engine, out)
    learned = str(tmp_path / "other.db")
    lines = ["memory 96", "cores 2", f"egtpath syzygy {TABLES}", "option EvalFile=<default>",
             "option Hash=32", "option Threads=2"]
    for line in lines[:4]:
        session.handle(line)
    first_counts = dict(calls.counts)
    assert "# search threads: 2" in out.getvalue()
    assert repeated(session.handle, lines[:4], out) == ""
    assert calls.counts == first_counts
    session.handle("option Hash=32")   # a real change still happens
    assert calls.counts["_resize_hash"] == first_counts["_resize_hash"] + 1
    assert repeated(session.handle, ["option Hash=32", "option Threads=2"], out) == ""
    engine.options.set("LearnStore", learned)
    opened = calls.counts["open_learned_store"]
    engine.options.set("LearnStore", learned)
    assert calls.counts["open_learned_store"] == opened
    engine.settings.set_threads(1)


def test_uci_setoptions_sent_again_change_nothing(engine: Engine, calls: Calls, tmp_path: Path) -> None:
    out = io.StringIO()
    session = UciSession(engine, out)
    book = str(data_file("books", "gnuchess_book.bin"))   # a Polyglot book
    lines = ["setoption name Hash value 48", "setoption name Threads value 2",
             f"setoption name SyzygyPath value {TABLES}", "setoption name EvalFile value <default>",
             f"setoption name LearnStore value {tmp_path / 'learned.db'}", f"setoption name BookFile value {book}"]
    for line in lines:
        session.handle(line)
    first_counts = dict(calls.counts)
    assert first_counts["_resize_hash"] == 1 and first_counts["_resize_threads"] == 1
    assert repeated(session.handle, lines, out) == ""
    assert calls.counts == first_counts
    session.handle("setoption name BookFile value <default>")   # a real change: the shipped books
    opened = calls.counts["open_book_file"]
    assert opened > first_counts["open_book_file"]
    assert repeated(session.handle, ["setoption name BookFile value <default>"], out) == ""
    assert calls.counts["open_book_file"] == opened
    engine.settings.set_threads(1)


def test_console_settings_typed_again_change_nothing(engine: Engine, calls: Calls) -> None:
    out = io.StringIO()
    console = Console(engine, out)
    console.execute("hash 48M")
    console.execute("smpmt 2")
    first_counts = dict(calls.counts)
    assert repeated(console.execute, ["hash 48M", "smpmt 2"], out) == ""
    assert calls.counts == first_counts
    console.execute("smpmt 1")
    assert calls.counts["_resize_threads"] == first_counts["_resize_threads"] + 1


def test_during_a_search_a_change_waits_and_the_value_in_use_asks_it_back(engine: Engine, calls: Calls) -> None:
    engine.settings.set_hash_size(8 * MEGABYTE)
    size = engine.tt.size
    engine.start_search(SearchLimits(), None, lambda serial, result: None)
    engine.settings.set_hash_size(16 * MEGABYTE)      # waits for the search's end
    engine.settings.set_hash_size(8 * MEGABYTE)       # the size in use: the waiting change is dropped
    assert engine.settings.set_threads(2) is False
    assert engine.settings.set_threads(1) is False    # likewise
    engine.end_search()
    resized = calls.counts["_resize_hash"]
    applied = engine.settings.apply_pending_settings()
    assert engine.tt.size == size and calls.counts["_resize_hash"] == resized
    assert not applied.threads and engine.threads == 1
    engine.start_search(SearchLimits(), None, lambda serial, result: None)
    engine.settings.set_hash_size(16 * MEGABYTE)      # a real change, kept for the end
    engine.end_search()
    engine.settings.apply_pending_settings()
    assert engine.tt.size > size


def resident_megabytes() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_a_resized_table_is_faulted_in_at_once(engine: Engine) -> None:
    """The first search after a resize must not pay for the page faults of a fresh table."""
    engine.control._prefault.join()
    before, old = resident_megabytes(), engine.tt.size // MEGABYTE
    engine.settings.set_hash_size(256 * MEGABYTE)
    grown = resident_megabytes() - before
    assert grown > 0.8 * (256 - old), f"the process grew by {grown:.0f} MB from a {old} MB to a 256 MB table"


def test_the_protocol_log_asked_on_again_is_not_reopened(engine: Engine, tmp_path: Path) -> None:
    out = io.StringIO()
    session = XBoardSession(engine, out)
    logger = logging.getLogger("ponderosa")
    try:
        session.handle("option Log=1")
        first = [handler for handler in logger.handlers if isinstance(handler, logging.FileHandler)]
        assert len(first) == 1 and Path(first[0].baseFilename).parent == tmp_path
        for _ in range(REPEATS):
            session.handle("option Log=1")
        again = [handler for handler in logger.handlers if isinstance(handler, logging.FileHandler)]
        assert again == first and out.getvalue() == ""
    finally:
        session.handle("option Log=0")
    assert not [handler for handler in logger.handlers if isinstance(handler, logging.FileHandler)]
