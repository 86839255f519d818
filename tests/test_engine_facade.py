"""The engine facade: the front ends reach the engine only through `Engine`'s methods and
`Engine.options`, never its parts or the core, and a change asked for during a search follows the
engine's one rule in every front end (it waits for the search's end)."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from ponderosa.engine.engine import Engine
from ponderosa.engine.limits import DEFAULT_HASH_BYTES, MEGABYTE
from ponderosa.engine.option_table import BY_NAME
from ponderosa.engine.search import SearchLimits
from ponderosa.protocol.uci import UciSession

REPO = Path(__file__).resolve().parents[1]
# The engine's parts a front end must not reach into (engine.book.settings.width = ..., engine.tt.clear()).
REACH_THROUGH = re.compile(r"(?<!ponderosa\.)\bengine\.(book|game|searcher|tt|settings|tablebases|evaluation|evaluator"
                           r"|helpers|worker|learned|control|state|books)\b")
CORE_IMPORT = re.compile(r"^\s*(from|import)\s+ponderosa\.core_ext\b", re.MULTILINE)


def protocol_files() -> list[Path]:
    files = sorted((REPO / "protocol").rglob("*.py"))
    assert len(files) > 20, "the protocol packages are missing"
    return files


def test_front_ends_use_only_the_facade() -> None:
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
             for path in protocol_files()
             for number, line in enumerate(path.read_text().splitlines(), 1) if REACH_THROUGH.search(line)]
    assert found == [], "front ends reaching into the engine's parts:\n" + "\n".join(found)


def test_no_front_end_imports_the_core() -> None:
    found = [str(path.relative_to(REPO)) for path in protocol_files() if CORE_IMPORT.search(path.read_text())]
    assert found == []


def test_the_facade_module_stays_small() -> None:
    assert len((REPO / "engine" / "engine.py").read_text().splitlines()) <= 400


def test_the_hash_default_is_the_engines() -> None:
    assert BY_NAME["hash"].default * MEGABYTE == DEFAULT_HASH_BYTES == Engine().options.hash_bytes


@pytest.fixture
def uci() -> tuple[UciSession, io.StringIO]:
    out = io.StringIO()
    session = UciSession(Engine(), out)
    session.handle("uci")
    yield session, out
    session.engine.shutdown()


def test_uci_settings_during_a_search_wait_for_its_end(uci: tuple[UciSession, io.StringIO]) -> None:
    """UCI sends setoption only while the engine waits; one sent during a search takes the
    engine's rule, as in XBoard and the console: no bestmove is forced, the change comes at the end."""
    session, out = uci
    session.handle("position startpos moves e2e4")
    session.handle("go infinite")
    for line in ("setoption name Hash value 16", "setoption name Clear Hash"):
        session.handle(line)
    assert session.engine.searching and "bestmove" not in out.getvalue()
    assert session.engine.options.hash_bytes == DEFAULT_HASH_BYTES   # not yet
    session.handle("stop")
    session.finish_active()
    assert out.getvalue().count("bestmove ") == 1
    session.handle("isready")
    assert out.getvalue().rstrip().endswith("readyok")
    assert session.engine.options.hash_bytes == 16 * MEGABYTE


def test_a_clear_asked_for_during_a_search_comes_at_its_end() -> None:
    engine = Engine()
    try:
        engine.options.set("Hash", 1)   # small: a short search fills a sampled part of it
        engine.think(SearchLimits(depth=9))
        assert engine.hashfull() > 0
        engine.start_search(SearchLimits(), None, lambda serial, result: None)   # until stopped
        engine.options.set("Clear Hash", None)   # waits for the search's end
        assert engine.settings.pending.clear_tables
        engine.end_search()
        assert engine.hashfull() > 0
        engine.options.apply_pending()
        assert engine.hashfull() == 0
    finally:
        engine.shutdown()


def test_a_server_game_plan_goes_through_the_facade_and_is_undone() -> None:
    """XBoard's server play puts a plan's draw score and narrower book in force for one game
    (engine.options), and the operator's settings come back after it."""
    from ponderosa.engine import ics
    from ponderosa.protocol.xboard.ics import PlanInForce

    engine = Engine()
    try:
        engine.options.set("DrawScore", -15)
        engine.options.set_book_setting("width", 7)
        engine.options.set_book_setting("weight_ratio", 0.2)
        before = engine.options.book_selection()
        settings = ics.IcsSettings()
        plan = ics.game_plan(settings, ics.classify(settings.lists, "somebot", True), (None, None), -15)
        in_force = PlanInForce()
        in_force.apply(engine, plan)
        assert engine.draw_score == plan.draw_score and in_force.plan == plan and in_force.saved == (-15, before)
        assert engine.options.book_selection() == ics.selective_book(before) != before
        assert engine.options.book_setting("width") == ics.COMPUTER_BOOK_WIDTH
        engine.options.set_book_setting("width", 3)   # changed during the game: the plan's end puts back its start
        in_force.restore(engine)
        assert engine.draw_score == -15 and engine.options.book_selection() == before
        assert in_force.plan is None and in_force.saved is None
    finally:
        engine.shutdown()
