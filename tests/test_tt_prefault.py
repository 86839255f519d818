"""The start-up prefault of the hash table may run beside a search: it must not change a byte."""
from __future__ import annotations

import threading

from ponderosa.engine.engine import Engine


def test_prefault_beside_a_search_changes_nothing() -> None:
    engine = Engine()
    engine.control._prefault.join()
    alone = engine.bench(depth=8).nodes
    stop = threading.Event()

    def prefault_again_and_again() -> None:
        while not stop.is_set():
            engine.tt.prefault()

    thread = threading.Thread(target=prefault_again_and_again)
    thread.start()
    try:
        beside = engine.bench(depth=8).nodes
    finally:
        stop.set()
        thread.join()
    assert beside == alone   # a plain store of 0 per page wiped entries and changed the count
