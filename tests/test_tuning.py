"""The search's tunable parameters: the core's table, their effect on the search, and their UCI
options (taken always, listed only in a tuning build or with PONDEROSA_TUNE=1)."""
from __future__ import annotations

import io

import pytest

from ponderosa.core_ext.core import (
    Board,
    Evaluator,
    TranspositionTable,
    search_parameter,
    search_parameters,
    set_search_parameter,
)
from ponderosa.engine import tuning
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import Searcher, SearchLimits
from ponderosa.protocol.uci import UciSession

from tests.uci_harness import UciEngine

MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"


@pytest.fixture(autouse=True)
def restore_parameters():  # type: ignore[no-untyped-def]
    yield
    for name, _value, default, *_ in search_parameters():
        set_search_parameter(name, default)


def fixed_depth_nodes(depth: int = 9) -> int:
    """The nodes of a fresh single-thread search to a fixed depth (hand-written evaluation)."""
    searcher = Searcher(TranspositionTable(1 << 20), Evaluator(1 << 18))
    return searcher.run(Board(MIDGAME), SearchLimits(depth=depth)).nodes


def test_table_rows_are_whole_and_the_defaults_in_range() -> None:
    rows = search_parameters()
    assert len(rows) == 30 and len({row[0].lower() for row in rows}) == 30
    for name, value, default, low, high, step in rows:
        assert value == default and low <= default <= high and 0 < step <= (high - low) / 4, name


def test_set_checks_name_and_range() -> None:
    set_search_parameter("razormargin", 350)
    assert search_parameter("RazorMargin") == 350
    with pytest.raises(ValueError, match="RazorMargin takes 100 to 700"):
        set_search_parameter("RazorMargin", 99)
    with pytest.raises(KeyError):
        set_search_parameter("NoSuchMargin", 1)
    assert search_parameter("RazorMargin") == 350


@pytest.mark.parametrize("name, value", [("LmrBase", 150), ("NullMoveBase", 5), ("FutilityScale", 50),
                                         ("LateMoveScale", 200), ("AspirationWindow", 10),
                                         ("LmrCutNode", 8), ("LmrCaptureHashMove", 8), ("LmrTtPv", 8),
                                         ("CaptureSeeDepth", 12), ("PruneLmrShare", 100),
                                         ("TtCutoffHistory", 1), ("CheckExtensionSee", 1)])
def test_each_changes_the_search_and_the_default_restores_it(name: str, value: int) -> None:
    """Tables built from a parameter (reductions, futility margins, late-move counts) are rebuilt:
    a changed value searches a different tree, the default the same one again."""
    before = fixed_depth_nodes()
    set_search_parameter(name, value)
    changed = fixed_depth_nodes()
    set_search_parameter(name, search_parameters()[[r[0] for r in search_parameters()].index(name)][2])
    assert changed != before and fixed_depth_nodes() == before


def test_uci_lists_them_only_when_tuning(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    session = UciSession(Engine(), out)
    monkeypatch.delenv("PONDEROSA_TUNE", raising=False)
    session.handle("uci")
    assert "option name RazorMargin" not in out.getvalue()
    monkeypatch.setattr(tuning, "LISTED", True)
    session.handle("uci")
    listing = out.getvalue().split("uciok")[1]
    assert "option name RazorMargin type spin default 300 min 100 max 700" in listing
    assert listing.index("option name Hash ") < listing.index("option name RazorDepth")


def test_setoption_sets_a_parameter_unlisted_and_clamps() -> None:
    out = io.StringIO()
    session = UciSession(Engine(), out)
    session.handle("setoption name RazorMargin value 420")
    assert search_parameter("RazorMargin") == 420 and out.getvalue() == ""
    session.handle("setoption name lmrbase value 9999")
    assert search_parameter("LmrBase") == 150 and "150 used" in out.getvalue()


def test_fastchess_style_handshake_over_the_program(monkeypatch: pytest.MonkeyPatch) -> None:
    """What OpenBench's SPSA does through fastchess: the tuning build lists them, setoption sets them."""
    monkeypatch.setenv("PONDEROSA_TUNE", "1")   # the child inherits it
    engine = UciEngine(("--uci",))
    try:
        assert engine.options["AspirationWindow"] == "option name AspirationWindow type spin default 25 min 10 max 60"
        engine.send("setoption name AspirationWindow value 40")
        move, _, _ = engine.search("position fen " + MIDGAME, "go depth 6")
        assert move != "0000"
        engine.send("setoption name AspirationWindow value 40")   # still takes it after a search
        engine.sync()
        assert "option" not in " ".join(line.text for line in engine.quiet(0.2))
    finally:
        engine.close()


def test_spsa_inputs_are_openbench_lines() -> None:
    lines = tuning.spsa_inputs().splitlines()
    assert len(lines) == len(search_parameters()) == 30
    name, kind, start, low, high, c_end, r_end = map(str.strip, lines[1].split(","))
    assert (name, kind, start, low, high, c_end, r_end) == ("RazorMargin", "int", "300", "100", "700", "30", "0.002")
