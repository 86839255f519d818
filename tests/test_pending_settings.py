"""The engine's one rule for every front end: a change of what a running search uses (hash
tables, threads, tablebases) asked for during a search, pondering included, waits for its end."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits

MEGABYTE = 1 << 20


def ignore(serial: int, result: object) -> None:
    """A search's result nobody waits for."""


@pytest.fixture
def engine() -> Iterator[Engine]:
    engine = Engine()
    engine.settings.set_hash_size(2 * MEGABYTE)
    yield engine
    engine.shutdown()


def test_changes_during_a_ponder_search_wait_for_its_end(engine: Engine) -> None:
    engine.make_move("e2e4")
    assert engine.ponder("e7e5", SearchLimits(), None, ignore) is not None   # open-ended: runs until stopped
    size = engine.tt.size
    assert engine.settings.set_threads(2) is False and engine.threads == 1
    assert engine.settings.set_hash_size(4 * MEGABYTE) == size == engine.tt.size
    assert engine.settings.set_tablebase_path("/no/such/folder") is None and engine.tablebases.path == ""
    assert engine.settings.apply_pending_settings().threads is False   # still searching: nothing changes
    assert engine.searching and engine.threads == 1
    engine.end_search()
    applied = engine.settings.apply_pending_settings()
    assert applied.threads and engine.threads == 2 and engine.tt.size > size
    assert applied.tablebase_messages == ["/no/such/folder: no such directory"]
    assert engine.settings.apply_pending_settings().threads is False   # reported once
    engine.settings.set_threads(1)
    engine.settings.set_tablebase_path("")


def test_no_search_starts_with_a_change_still_waiting(engine: Engine) -> None:
    engine.start_search(SearchLimits(), None, ignore)
    engine.settings.set_threads(2)
    engine.start_search(SearchLimits(depth=1), None, ignore)   # stops the first, applies, then searches
    assert engine.threads == 2
    engine.end_search()
    assert engine.settings.apply_pending_settings().threads   # the front end still hears of it
    engine.settings.set_threads(1)


def test_a_change_made_at_once_replaces_one_that_waited(engine: Engine) -> None:
    engine.start_search(SearchLimits(), None, ignore)
    engine.settings.set_threads(3)
    engine.end_search()
    assert engine.settings.set_threads(2) is True   # no search runs: at once, and the 3 is forgotten
    assert not engine.settings.apply_pending_settings().threads and engine.threads == 2
    engine.settings.set_threads(1)


def test_a_count_out_of_range_is_refused_at_once(engine: Engine) -> None:
    engine.start_search(SearchLimits(), None, ignore)
    with pytest.raises(ValueError):
        engine.settings.set_threads(0)
    engine.end_search()
