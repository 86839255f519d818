"""The engine's name and version, as the protocols, the banner and `--version` give them."""
from __future__ import annotations

NAME = "Ponderosa"
# The same as pyproject.toml's version (tests/test_repository.py checks): written here rather than
# read through importlib.metadata, which costs a start-up tens of milliseconds.
VERSION = "0.1.0"
FULL_NAME = f"{NAME} {VERSION}"
