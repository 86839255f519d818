"""UCI options that reach the other rooms: Threads (the helper pool), SyzygyPath (the tables),
UCI_Opponent (the server rules' opponent)."""
from __future__ import annotations

import io

from ponderosa.engine import ics
from ponderosa.engine.engine import Engine
from ponderosa.protocol.uci import UciSession

from tests.conftest import data_file


def session() -> tuple[UciSession, io.StringIO, Engine]:
    engine, out = Engine(), io.StringIO()
    return UciSession(engine, out), out, engine


def test_threads_option_sizes_the_search_pool() -> None:
    uci, out, engine = session()
    uci.handle("setoption name Threads value 3")
    assert engine.threads == 3
    uci.handle("setoption name Threads value 1")
    assert engine.threads == 1
    uci.handle("uci")
    assert "option name Threads type spin default 1 min 1 max 64" in out.getvalue()


def test_syzygy_path_loads_the_tables_and_a_bad_one_is_reported() -> None:
    uci, out, engine = session()
    tables = data_file("syzygy", "KQvK.rtbw").parent
    uci.handle("uci")
    assert "option name SyzygyPath type string" in out.getvalue()
    uci.handle(f"setoption name SyzygyPath value {tables}")
    assert engine.tablebases.largest == 4
    uci.handle("setoption name SyzygyProbeDepth value 3")
    assert engine.tablebases.probe_depth == 3
    uci.handle("setoption name SyzygyPath value /no/such/folder")
    assert engine.tablebases.largest == 0
    assert "info string" in out.getvalue() and "/no/such/folder" in out.getvalue()


def test_uci_opponent_reaches_the_server_rules() -> None:
    uci, _, engine = session()
    uci.handle("setoption name UCI_Opponent value GM 2750 human Magnus Carlsen")
    opponent = engine.ics.opponent()
    assert opponent.name == "Magnus Carlsen" and opponent.master == "GM" and not opponent.computer
    assert engine.ics.ratings[1] == 2750
    assert engine.learner.opponent == "Magnus Carlsen"
    uci.handle("setoption name UCI_Opponent value none none computer Stockfish 15")
    opponent = engine.ics.opponent()
    assert opponent.computer and opponent.master is None


def test_a_title_given_by_the_gui_counts_as_the_list() -> None:
    lists: dict[str, dict[str, int | None]] = {name: {} for name in ics.LIST_NAMES}
    assert ics.classify(lists, "someone", False, "IM").master == "IM"
    assert ics.classify(lists, "someone", False, None).master is None
