"""XBoard's engine settings: `option`, `memory`, `cores`, `exclude`/`include`, and the protocol
log. A setting a running search uses waits for its end (the engine's rule); the thread count is
reported in a `#` line once it changes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ponderosa.engine.engine import IllegalMoveError
from ponderosa.engine.limits import MAX_THREADS
from ponderosa.engine.settings import ResourceError
from ponderosa.protocol.options import MEGABYTE, set_engine_option
from ponderosa.protocol.streams import set_logging
from ponderosa.protocol.xboard.features import OPTIONS
from ponderosa.protocol.xboard.tablebases import tablebase_option

if TYPE_CHECKING:
    from ponderosa.protocol.xboard.session import XBoardSession

XBOARD_NAMES = {"Move Overhead": "MoveOverhead"}   # UCI's name, typed by hand, is the XBoard option too


def memory(session: XBoardSession, args: str) -> None:
    if args.isdigit() and int(args) > 0:
        _, _, low, high = OPTIONS["Hash"]
        pawn_hash = session.engine.options.pawn_hash_bytes // MEGABYTE   # `memory` is the whole budget
        set_hash(session, min(max(low, int(args) - pawn_hash), high))


def set_hash(session: XBoardSession, megabytes: int) -> None:
    """memory / option Hash: memory the machine will not give keeps the old table, told in a popup."""
    try:
        session.engine.options.set_hash_size(megabytes * MEGABYTE)
    except ResourceError as error:
        session.out.line(f"telluser {error}")
    session.apply_pending_settings()


def cores(session: XBoardSession, args: str) -> None:
    if args.isdigit():
        request_threads(session, int(args))


def option(session: XBoardSession, args: str) -> None:
    name, _, value = args.partition("=")
    name, value = name.strip(), value.strip()
    name = XBOARD_NAMES.get(name, name)
    if tablebase_option(session, name, value):
        return
    if name == "EvalFile":
        report_evaluation(session, session.engine.options.set_eval_file(value))
        return
    try:
        number = int(value) if value else 0
    except ValueError:
        session.out.line(f"Error (bad option value): option {args}")
        return
    if name in OPTIONS:   # out of range: the nearest allowed value, as xboard itself clamps
        _, _, low, high = OPTIONS[name]
        number = min(max(number, low), high)
    if name == "Hash":
        set_hash(session, max(1, number))
    elif name == "Threads":
        request_threads(session, number)
    elif name == "Ponder":
        session.ponder_enabled = bool(number)
        if not number and session.active is not None and session.active.kind == "ponder":
            session.abandon()
    elif name == "Resign":
        session.resign_pawns = max(0, number)
    elif name == "UCI_LimitStrength":   # the UCI names, which XBoard users see in the engine's settings too
        session.engine.strength.limit = bool(number)
    elif name == "UCI_Elo":
        session.engine.strength.set_target(number)
    elif name == "MoveOverhead":
        session.clock.move_overhead = number / 1000
    elif name == "Log":
        set_logging(bool(number))
        set_game_files(session, bool(number))
    elif name in OPTIONS:
        try:
            set_engine_option(session.engine, name, number)   # OwnBook, Contempt, Learn, BookLearnThreshold, ...
        except ValueError as error:
            session.out.line(f"Error ({error}): option {args}")
    else:
        session.out.line(f"Error (unknown option): option {args}")


def report_evaluation(session: XBoardSession, messages: list[str] | None) -> None:
    """The network changed (messages not None): what could not be used as a popup, then what is in use."""
    if messages is None:
        return
    for message in messages:
        session.out.line(f"telluser EvalFile: {message}")
    session.send_debug(session.engine.options.evaluation_in_use())


def request_threads(session: XBoardSession, count: int) -> None:
    """cores N / option Threads=N: at most MAX_THREADS, at least one."""
    try:
        changed = session.engine.options.set_threads(min(max(1, count), MAX_THREADS))
    except ResourceError as error:
        session.out.line(f"telluser {error}")
        changed = True
    if changed:
        report_threads(session)


def report_threads(session: XBoardSession) -> None:
    session.send_debug(f"search threads: {session.engine.threads}")


def set_game_files(session: XBoardSession, enabled: bool) -> None:
    """Option Log: the protocol log (ponderosa.log) and the game's log.NNN/game.NNN together."""
    files = session.engine.game_files
    if files.enabled == enabled:
        return   # as it is: nothing written again
    files.enabled = enabled
    if enabled:
        session.engine.save_record()


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
