"""The XBoard/WinBoard protocol, version 2 (CECP), as docs/PROTOCOL.md describes it: session.py
holds the session, its flat command loop and its searches; the other modules hold the command
handlers by capability (game, clock, options, tablebases, chess-server play), each handed the
session."""
from ponderosa.protocol.xboard.session import XBoardSession

__all__ = ["XBoardSession"]
