"""UCI's handshake and settings: `uci` (the engine's name and its options), `isready`, `debug`,
`setoption` and `register`. The options, their ranges and effects are the option table's
(engine/option_table.py); the session's own (Ponder, UCI_AnalyseMode, ...) are UciFrontEnd's."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ponderosa.engine.engine import Engine
from ponderosa.engine.errors import EngineError
from ponderosa.engine.identity import FULL_NAME
from ponderosa.protocol.streams import logging_enabled, set_logging

if TYPE_CHECKING:
    from ponderosa.engine.option_table import Option
    from ponderosa.protocol.uci.session import UciSession

AUTHOR = "the Ponderosa developers"


class UciFrontEnd:
    """The UCI session's own settings, as the option table's rows read and change them."""

    def __init__(self, session: UciSession) -> None:
        self._session = session

    @property
    def ponder(self) -> bool:
        return self._session.ponder_enabled

    def set_ponder(self, on: bool) -> None:
        self._session.ponder_enabled = on

    @property
    def analyse_mode(self) -> bool:
        return self._session.analyse_mode

    def set_analyse_mode(self, on: bool) -> None:
        self._session.analyse_mode = on

    @property
    def show_wdl(self) -> bool:
        return self._session.show_wdl

    def set_show_wdl(self, on: bool) -> None:
        self._session.show_wdl = on

    @property
    def move_overhead_ms(self) -> int:
        return round(self._session.move_overhead * 1000)

    def set_move_overhead(self, milliseconds: int) -> None:
        self._session.move_overhead = milliseconds / 1000   # the next `go` (or ponderhit) allocates with it

    @property
    def log(self) -> bool:
        return logging_enabled()

    def set_log(self, on: bool) -> None:
        set_logging(on)


def evaluation_note(engine: Engine, messages: list[str] | None) -> str:
    """What an EvalFile change did: what could not be used, else what evaluates now ('' while it waits)."""
    if messages is None:
        return ""
    return "; ".join(messages or [engine.options.evaluation_in_use()])


def tablebase_note(messages: list[str] | None) -> str:
    return "; ".join(f"Syzygy: {message}" for message in messages or [])


def option_note(engine: Engine, option: Option, messages: list[str] | None) -> str:
    """The info string a setoption gets ('' for none)."""
    if option.report == "evaluation":
        return evaluation_note(engine, messages)
    if option.report == "tablebases":
        return tablebase_note(messages)
    return "; ".join(messages or [])


def report_applied(session: UciSession) -> None:
    """What waited for a search's end and is applied now (UCI sends setoption only while the
    engine waits; a GUI that sends one during a search gets the engine's rule): the memory or
    threads not had, the tables and the network, as info strings."""
    engine = session.engine
    applied = engine.options.apply_pending()
    notes = [*applied.resource_messages, tablebase_note(applied.tablebase_messages)]
    if applied.evaluation_messages is not None:
        notes.append(evaluation_note(engine, applied.evaluation_messages))
    for note in notes:
        if note:
            session.info_string(note)


# -- commands ---------------------------------------------------------------------

def uci(session: UciSession, args: str) -> None:
    session.out.line(f"id name {FULL_NAME}")
    session.out.line(f"id author {AUTHOR}")
    for option in session.engine.options.rows("uci"):
        session.out.line(option.uci_line(session.engine.options.get(option)))
    session.out.line("uciok")


def isready(session: UciSession, args: str) -> None:
    """Answered at once, also while a search runs (the search has a thread of its own); first
    what a setting that waited for a search's end could not have (memory, threads)."""
    report_applied(session)
    session.out.line("readyok")


def debug(session: UciSession, args: str) -> None:
    set_logging(args.strip() == "on")


def setoption(session: UciSession, args: str) -> None:
    """`setoption name NAME [value VALUE]`; NAME may hold spaces (Clear Hash)."""
    words = args.split()
    if not words or words[0] != "name":
        session.info_string(f"setoption needs 'name NAME [value VALUE]', got {args!r}")
        return
    if "value" in words:
        at = words.index("value")
        name, value = " ".join(words[1:at]), " ".join(words[at + 1:])
    else:
        name, value = " ".join(words[1:]), ""
    engine = session.engine
    option = engine.options.find(name)
    if option is None:
        session.info_string(f"unknown option: {name}")
        return
    try:
        value, clamped = option.parse(value)
        note = option_note(engine, option, engine.options.set(option, value))
    except EngineError as error:
        session.info_string(f"option {option.name}: {error}")
        return
    for message in (clamped, note):
        if message:
            session.info_string(message)


def register(session: UciSession, args: str) -> None:
    session.out.line("registration ok")   # nothing to register; answered so that GUIs move on


OPTION_COMMANDS: dict[str, Callable[[UciSession, str], None]] = {
    "uci": uci, "isready": isready, "debug": debug, "setoption": setoption, "register": register,
}
