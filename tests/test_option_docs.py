"""The documents' option lists are the option table's (tools/options_doc.py writes them), and the
table holds together: every name is one row's, every front end finds its rows by its own names,
and each default is within its range."""
from __future__ import annotations

from ponderosa.engine.option_table import OPTIONS, XBOARD_ROWS, find

from tools import options_doc


def test_the_documents_lists_are_the_tables() -> None:
    assert options_doc.stale() == [], "python -m tools.options_doc render"


def test_a_changed_row_shows_as_a_stale_list(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for name in options_doc.DOCUMENTS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((options_doc.REPO / name).read_text())
    assert options_doc.stale(tmp_path) == []
    monkeypatch.setattr(OPTIONS[0], "help", "something else")
    assert {path.name for path in options_doc.stale(tmp_path)} == {"PROTOCOL.md", "OPTIONS.md"}
    options_doc.render(tmp_path)
    assert options_doc.stale(tmp_path) == []


def test_every_name_is_one_rows() -> None:
    names = [option.name.lower() for option in OPTIONS]
    xboard = [option.xboard.lower() for option in OPTIONS if option.xboard]
    console = [option.console for option in OPTIONS if option.console]
    assert len(set(names)) == len(names) and len(set(xboard)) == len(xboard) and len(set(console)) == len(console)
    for option in OPTIONS:
        assert find(option.name, "uci") is (option if option.uci else None)
        if option.xboard:
            assert find(option.xboard, "xboard") is option
        if option.console:
            assert find(option.console, "console") is option


def test_defaults_are_within_range_and_xboard_ranks_are_distinct() -> None:
    for option in OPTIONS:
        if option.kind == "spin":
            assert option.low <= option.default <= option.high, option.name
    ranks = [option.xboard_rank for option in XBOARD_ROWS]
    assert len(set(ranks)) == len(ranks)
