"""XBoard's engine settings: `option`, `memory`, `cores`, `exclude`/`include`, and the protocol
log. A setting a running search uses waits for its end (the engine's rule); the thread count is
reported in a `#` line once it changes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ponderosa.engine.engine import IllegalMoveError
from ponderosa.engine.errors import EngineError
from ponderosa.protocol.streams import logging_enabled, set_logging
from ponderosa.protocol.xboard.tablebases import report_problems, report_tables

if TYPE_CHECKING:
    from ponderosa.engine.option_table import Option
    from ponderosa.protocol.xboard.session import XBoardSession


class XBoardFrontEnd:
    """The XBoard session's own settings, as the option table's rows read and change them."""

    def __init__(self, session: XBoardSession) -> None:
        self._session = session

    @property
    def ponder(self) -> bool:
        return self._session.ponder_enabled

    def set_ponder(self, on: bool) -> None:
        session = self._session
        session.ponder_enabled = on
        if not on and session.active is not None and session.active.kind == "ponder":
            session.abandon()

    @property
    def resign_pawns(self) -> int:
        return self._session.resign_pawns

    def set_resign(self, pawns: int) -> None:
        self._session.resign_pawns = pawns

    @property
    def move_overhead_ms(self) -> int:
        return round(self._session.clock.move_overhead * 1000)

    def set_move_overhead(self, milliseconds: int) -> None:
        self._session.clock.move_overhead = milliseconds / 1000

    @property
    def log(self) -> bool:
        return logging_enabled()

    def set_log(self, on: bool) -> None:
        """The protocol log (ponderosa.log) and the game's log.NNN/game.NNN together."""
        set_logging(on)
        self._session.engine.options.set_game_files(on)


def memory(session: XBoardSession, args: str) -> None:
    """memory N: the whole budget in MB; the table gets what the pawn hashes leave of it."""
    if args.isdigit() and int(args) > 0:
        options = session.engine.options
        table = _row(session, "memory")
        megabytes = int(args) - int(options.get("hashp"))   # the pawn hashes' share (the console's hashp)
        set_option(session, table, min(max(table.low, megabytes), table.high))


def cores(session: XBoardSession, args: str) -> None:
    if args.isdigit():
        threads = _row(session, "cores")
        set_option(session, threads, min(max(threads.low, int(args)), threads.high))


def option(session: XBoardSession, args: str) -> None:
    """option NAME=VALUE (a button: option NAME). Out of range: the nearest allowed value, as
    xboard itself clamps."""
    name, _, value = args.partition("=")
    row = session.engine.options.find(name.strip(), "xboard")
    if row is None:
        session.out.line(f"Error (unknown option): option {args}")
        return
    try:
        parsed, _ = row.parse(value if value.strip() or row.kind != "spin" else "0")
    except EngineError:
        session.out.line(f"Error (bad option value): option {args}")
        return
    if row.report == "tablebases":
        report_problems(session)
    set_option(session, row, parsed, args)


def _row(session: XBoardSession, command: str) -> Option:
    """The option table's row an XBoard command (memory, cores, egtpath) sets."""
    row = session.engine.options.find(command, "xboard command")
    assert row is not None, command
    return row


def set_option(session: XBoardSession, row: Option, value: object, command: str = "") -> None:
    """Set a row and say what came of it: memory or threads not had in a popup, the threads and
    the tables changed in `#` lines, a network that cannot be used in a popup."""
    options = session.engine.options
    threads = session.engine.threads
    try:
        messages = options.set(row, value)
    except EngineError as error:
        if row.report in ("resources", "threads"):
            session.out.line(f"telluser {error}")
            if row.report == "threads":
                report_threads(session)
        else:
            session.out.line(f"Error ({error}): option {command or row.xboard}")
        return
    if row.report == "tablebases":
        report_tables(session, messages)
    elif row.report == "evaluation":
        report_evaluation(session, messages)
    elif row.report == "threads" and session.engine.threads != threads:
        report_threads(session)
    if row.report in ("resources", "threads"):
        session.apply_pending_settings()


def report_evaluation(session: XBoardSession, messages: list[str] | None) -> None:
    """The network changed (messages not None): what could not be used as a popup, then what is in use."""
    if messages is None:
        return
    for message in messages:
        session.out.line(f"telluser EvalFile: {message}")
    session.send_debug(session.engine.options.evaluation_in_use())


def report_threads(session: XBoardSession) -> None:
    session.send_debug(f"search threads: {session.engine.threads}")


def exclude(session: XBoardSession, args: str) -> None:
    _include_exclude(session, args, exclude=True)


def include(session: XBoardSession, args: str) -> None:
    _include_exclude(session, args, exclude=False)


def _include_exclude(session: XBoardSession, args: str, exclude: bool) -> None:
    legal = session.engine.legal_moves()
    if args == "all":
        session.excluded = set(legal) if exclude else set()
    else:
        try:
            uci = session.engine.parse_move(args)
        except IllegalMoveError:
            session.out.line(f"Illegal move: {args}")
            return
        (session.excluded.add if exclude else session.excluded.discard)(uci)
    if session.analyzing:
        session.start_analysis() if len(session.excluded) < len(legal) else session.abandon()


OPTION_COMMANDS: dict[str, Callable[[XBoardSession, str], None]] = {
    "option": option, "memory": memory, "cores": cores, "exclude": exclude, "include": include,
}
