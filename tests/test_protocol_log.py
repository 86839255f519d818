"""The protocol log (`ponderosa.log`, option Log): it is kept below its size limit by starting
afresh, the full file kept as ponderosa.log.1, and no line is lost at the change."""
from __future__ import annotations

import logging
from pathlib import Path

from ponderosa.protocol.streams import set_logging


def log_file_handler() -> logging.FileHandler:
    [handler] = [h for h in logging.getLogger("ponderosa").handlers if isinstance(h, logging.FileHandler)]
    return handler


def test_a_full_log_is_kept_as_dot_1_and_a_new_one_begun(tmp_path: Path) -> None:
    path = tmp_path / "ponderosa.log"
    set_logging(True, str(path))
    try:
        log_file_handler().limit = 1000   # type: ignore[attr-defined]
        logger = logging.getLogger("ponderosa.xboard")
        for number in range(100):   # about 40 bytes a line: several changes of file
            logger.debug("< line %03d", number)
    finally:
        set_logging(False)
    current, previous = path.read_text().splitlines(), Path(f"{path}.1").read_text().splitlines()
    assert path.stat().st_size < 1100 and Path(f"{path}.1").stat().st_size < 1100
    assert not (tmp_path / "ponderosa.log.2").exists()
    numbers = [int(line.rsplit(" ", 1)[1]) for line in previous + current]
    assert numbers == list(range(numbers[0], 100))   # the last lines, in order, none lost between the two


def test_a_log_below_the_limit_stays_one_file(tmp_path: Path) -> None:
    path = tmp_path / "ponderosa.log"
    set_logging(True, str(path))
    try:
        logging.getLogger("ponderosa.xboard").debug("< ping 1")
    finally:
        set_logging(False)
    assert "< ping 1" in path.read_text() and not Path(f"{path}.1").exists()
