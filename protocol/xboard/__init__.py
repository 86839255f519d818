"""The XBoard/WinBoard protocol, version 2 (CECP), as docs/PROTOCOL.md describes it: session.py
holds the session, its flat command loop and its searches; the other modules hold the command
handlers by capability (game, clock, options, tablebases, chess-server play), each handed the
session; features.py the handshake's feature lines; registration.py the place in XBoard's engine
list (the console's `install xboard`).

The session is imported on first use: the launcher imports features.py from this package before
the engine has loaded, and must not load it through here."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ponderosa.protocol.xboard.session import XBoardSession

__all__ = ["XBoardSession"]


def __getattr__(name: str) -> object:
    if name == "XBoardSession":
        from ponderosa.protocol.xboard.session import XBoardSession
        return XBoardSession
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
