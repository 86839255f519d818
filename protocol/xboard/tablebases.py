"""XBoard's tablebase commands: `egtpath syzygy PATH` (the option table's SyzygyPath row), and
the messages about unusable tables. A path sent during a search waits for its end (the
engine's rule), like the hash size."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ponderosa.protocol.xboard.session import XBoardSession

# The folder xboard sends when its user named none (`-egtFormats` in /etc/xboard/xboard.conf):
# missing on most machines, and no mistake of the user's.
XBOARD_DEFAULT_PATH = "/EGT/Syzygy"


def egtpath(session: XBoardSession, args: str) -> None:
    kind, _, path = args.strip().partition(" ")
    if kind.lower() != "syzygy":
        return   # only formats listed in feature egt are ever sent; others are ignored
    _set_path(session, path.strip())


def _set_path(session: XBoardSession, path: str) -> None:
    report_problems(session)
    options = session.engine.options
    row = options.find("egtpath", "xboard command")
    assert row is not None
    report_tables(session, options.set(row, path))


def report_tables(session: XBoardSession, messages: list[str] | None) -> None:
    """The tables changed (messages not None): what could not be used, then what was found. A
    message is a popup (`telluser`) once per process, and never for xboard's default folder:
    xboard sends the path again at every game, so the rest only goes to its debug file."""
    if messages is None:
        return
    for message in messages:
        popup = message not in session.tablebase_messages_told and not message.startswith(XBOARD_DEFAULT_PATH)
        session.tablebase_messages_told.add(message)
        session.out.line(f"{'telluser' if popup else '#'} Syzygy: {message}")
    session.out.line(f"# {session.engine.options.tablebase_summary()}")


def report_problems(session: XBoardSession) -> None:
    """Tables found broken during a search (they are no longer used)."""
    for message in session.engine.options.tablebase_problems():
        session.out.line(f"telluser Syzygy: {message}")


TABLEBASE_COMMANDS: dict[str, Callable[[XBoardSession, str], None]] = {"egtpath": egtpath}
