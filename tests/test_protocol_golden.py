"""What the front ends declare stays as it is, byte for byte: the option lines of the `uci` answer
and the feature lines of `protover 2` (tests/data/protocol/), read from the installed program as a
GUI reads them. A change of a name, a default or a range shows here first."""
from __future__ import annotations

import subprocess

from tests.conftest import data_file
from tests.uci_harness import program


def answer(arguments: list[str], lines: str) -> list[str]:
    completed = subprocess.run([*program(), *arguments], input=lines, capture_output=True, text=True, timeout=60)
    return completed.stdout.splitlines()


def test_the_uci_options_are_the_recorded_ones() -> None:
    lines = [line for line in answer(["--uci"], "uci\nquit\n") if line.startswith("option ")]
    assert lines == data_file("protocol", "uci_options.txt").read_text().splitlines()


def test_the_xboard_features_are_the_recorded_ones() -> None:
    lines = [line for line in answer([], "xboard\nprotover 2\nquit\n") if line.startswith("feature ")]
    assert lines == data_file("protocol", "xboard_features.txt").read_text().splitlines()
