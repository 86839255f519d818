"""Test-suite files: python-chess gives a quoted or numeric bm/am operand back as a string or a
number, not moves; reading such a line is a SuiteError naming the file and line (not a crash)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ponderosa.engine.testsuite import SuiteError, read_suite


@pytest.mark.parametrize("operation", ['bm "Rh8+"', "bm 1", "am 2.5"])
def test_an_operand_that_is_not_moves_is_a_suite_error(tmp_path: Path, operation: str) -> None:
    path = tmp_path / "bad.epd"
    path.write_text(f'4k3/8/8/8/8/8/8/4K2R w K - {operation}; id "x";\n')
    with pytest.raises(SuiteError, match=r"bad\.epd:1: (bm|am) .* is not a list of moves"):
        read_suite(path)


def test_unquoted_moves_still_read(tmp_path: Path) -> None:
    path = tmp_path / "good.epd"
    path.write_text('4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; am Kd1; id "x";\n')
    [position] = read_suite(path)
    assert position.title == "x" and position.solutions == {"h1h8"} and position.avoid == {"e1d1"}
