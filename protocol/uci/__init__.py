"""The UCI protocol: session.py holds the session, its flat command loop and its searches; the
other modules hold the command handlers by capability (options, position, go), each handed
the session, and the `info` lines."""
from ponderosa.protocol.uci.go import parse_go
from ponderosa.protocol.uci.session import UciSession

__all__ = ["UciSession", "parse_go"]
