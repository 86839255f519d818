"""The engine's name and version, as the protocols, the banner and `--version` give them."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

NAME = "Ponderosa"
try:
    VERSION = version("ponderosa")
except PackageNotFoundError:   # imported from a source tree that was never installed
    VERSION = "0.1.0"
FULL_NAME = f"{NAME} {VERSION}"
