"""The results ledger (docs/results/ledger.jsonl) and the documents' tables written from it by
tools/results.py: every row complete, every table what `render` writes, and the check failing when
a figure is edited by hand in a document or in the ledger alone."""
from __future__ import annotations

import datetime
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tools import results, tool_command, tool_environment

REPO = Path(__file__).resolve().parents[1]
ROWS = results.load(REPO)


def _copy_of_the_repository(tmp_path: Path) -> Path:
    """The ledger and the documents in a folder of their own, to be spoiled by a test."""
    root = tmp_path / "repo"
    (root / "docs" / "results").mkdir(parents=True)
    shutil.copy(REPO / results.LEDGER, root / results.LEDGER)
    for document in (REPO / "docs").glob("*.md"):
        shutil.copy(document, root / "docs" / document.name)
    return root


def _run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*tool_command("tools.results"), *args], capture_output=True, text=True, timeout=120,
                          env=tool_environment())


def test_the_documents_tables_are_what_render_writes_from_the_ledger() -> None:
    problems = results.check(REPO)
    assert not problems, "\n".join(problems) + "\nrun: python -m tools.results render"


def test_the_documents_hold_the_current_tables() -> None:
    documents = {path.name for path in results.documents(REPO)}
    assert {"BENCHMARKS.md", "STRENGTH.md", "NNUE.md"} <= documents
    text = (REPO / "docs" / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert text.index("<!-- results: speed -->") < text.index("## The bench signature")


def test_every_row_has_the_required_fields() -> None:
    problems = [f"{results.LEDGER}:{number} ({row.get('measure')}): {problem}"
                for number, row in enumerate(ROWS, 1) for problem in results.problems(row)]
    assert not problems, "\n".join(problems)
    for row in ROWS:
        assert set(results.REQUIRED) <= set(row)
        assert row["command"].strip() and row["what"].strip() and row["machine"].strip()
        datetime.date.fromisoformat(row["date"])
        assert row["figures"], "a row holds at least one figure"


def test_each_line_of_the_ledger_is_one_json_object() -> None:
    lines = (REPO / results.LEDGER).read_text(encoding="utf-8").splitlines()
    assert lines and all(isinstance(json.loads(line), dict) for line in lines)
    assert len(lines) == len(ROWS)


def test_match_and_sprt_rows_say_where_their_games_are() -> None:
    for row in ROWS:
        if row["measure"].startswith(("match.", "sprt.", "calibration.")):
            assert row["games"].strip(), f"{row['measure']} ({row['commit']}): say where the games are"


def test_a_figure_edited_in_a_document_fails_the_check(tmp_path: Path) -> None:
    root = _copy_of_the_repository(tmp_path)
    assert results.check(root) == []
    document = root / "docs" / "BENCHMARKS.md"
    text = document.read_text(encoding="utf-8")
    table = text[text.index("<!-- results: speed -->"):text.index("<!-- /results -->")]
    assert "3,632,557" in table
    document.write_text(text.replace(table, table.replace("3,632,557", "3,632,558")), encoding="utf-8")
    problems = results.check(root)
    assert len(problems) == 1 and "docs/BENCHMARKS.md" in problems[0] and "3,632,558" in problems[0]
    failed = _run_tool("--root", str(root), "check")
    assert failed.returncode == 1 and "BENCHMARKS.md" in failed.stderr
    assert results.render(root) == [document]
    assert results.check(root) == [] and _run_tool("--root", str(root), "check").returncode == 0


def test_a_figure_edited_in_the_ledger_alone_fails_the_check(tmp_path: Path) -> None:
    root = _copy_of_the_repository(tmp_path)
    ledger = root / results.LEDGER
    rows = results.load(root)
    newest_bench = [index for index, row in enumerate(rows) if row["measure"] == "bench"][-1]
    rows[newest_bench]["figures"]["nps"] += 1
    ledger.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    assert any("BENCHMARKS.md" in problem for problem in results.check(root))


def test_a_row_without_its_command_or_with_a_bad_date_is_reported(tmp_path: Path) -> None:
    row = dict(ROWS[-1])
    del row["command"]
    assert any(problem.startswith("command") for problem in results.problems(row))
    row = dict(ROWS[-1], date="28.11.2026")
    assert any(problem.startswith("date") for problem in results.problems(row))
    row = dict(ROWS[-1], command="  ")
    assert "command: empty" in results.problems(row)
    root = _copy_of_the_repository(tmp_path)
    with (root / results.LEDGER).open("a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(dict(ROWS[-1], figures={})) + "\n")
    assert any("figures: no number" in problem for problem in results.check(root))


def test_append_adds_a_row_that_the_next_render_shows(tmp_path: Path) -> None:
    root = _copy_of_the_repository(tmp_path)
    row = results.append("bench", "ponderosa bench", {"nodes": 3632557, "nps": 1999999}, what="a test row",
                         commit="abcdef1", signature=3632557, root=root)
    assert row["date"] == datetime.date.today().isoformat() and row["machine"]
    assert results.load(root)[-1] == row
    assert any("BENCHMARKS.md" in problem for problem in results.check(root))
    results.render(root)
    assert "**1,999,999** nodes/s" in (root / "docs" / "BENCHMARKS.md").read_text(encoding="utf-8")
    with pytest.raises(ValueError):
        results.append("bench", "", {"nodes": 1}, what="no command", commit="abcdef1", root=root)


def test_append_from_the_command_line_takes_the_commit_of_head(tmp_path: Path) -> None:
    root = _copy_of_the_repository(tmp_path)
    added = _run_tool("--root", str(root), "append", "--measure", "tests.example", "--what", "a test row",
                      "--command", "pytest -q", "--figure", "passed=3", "--figure", "note=ok", "--commit", "1234567")
    assert added.returncode == 0, added.stderr
    row = results.load(root)[-1]
    assert row["figures"] == {"passed": 3, "note": "ok"} and row["commit"] == "1234567"
    if shutil.which("git") and (REPO / ".git").exists():   # a `git archive` copy has no HEAD to name
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
        assert results.git_commit(REPO) == head.stdout.strip()
