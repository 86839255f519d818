"""UCI's handshake and settings: `uci` (the engine's name and its options), `isready`, `debug`,
`setoption` and `register`; the options a UCI GUI sees and what setting each does. Those
XBoard offers too come from protocol/options.py (ranges and meaning)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ponderosa.engine.book.file import BookFileError
from ponderosa.engine.engine import Engine
from ponderosa.engine.fen import FenError
from ponderosa.engine.identity import FULL_NAME
from ponderosa.engine.learning.store import LearnedStoreError
from ponderosa.engine.limits import FULL_ELO, MIN_ELO, PROBE_DEPTH_RANGE
from ponderosa.engine.opponent import parse_uci_opponent
from ponderosa.protocol.options import SCALE_OPTIONS, SPIN_OPTIONS, set_engine_option
from ponderosa.protocol.streams import set_logging

if TYPE_CHECKING:
    from ponderosa.protocol.uci.session import UciSession

AUTHOR = "the Ponderosa developers"
BOOK_OPTIONS = {"BookRandom": "random_mode", "BookWidth": "width"}   # option -> book setting
EMPTY = "<empty>"        # UCI's way to show an empty string default
DEFAULT = "<default>"    # the book or learned store the engine picks itself


@dataclass(frozen=True)
class UciOption:
    name: str
    kind: str                                   # spin, check, string or button
    default: Callable[[Engine], object]         # read from the engine when `uci` is answered
    low: int = 0
    high: int = 0

    def declaration(self, engine: Engine) -> str:
        text = f"option name {self.name} type {self.kind}"
        if self.kind == "button":
            return text
        value = self.default(engine)
        if self.kind == "check":
            value = "true" if value else "false"
        text += f" default {value if value != '' else EMPTY}"
        if self.kind == "spin":
            text += f" min {self.low} max {self.high}"
        return text


def _shared_spin(name: str) -> UciOption:
    """A spin option XBoard offers too, with the same fixed default."""
    default, low, high = SPIN_OPTIONS[name]
    return UciOption(name, "spin", lambda engine: default, low, high)


UCI_OPTIONS: list[UciOption] = [
    _shared_spin("Hash"),
    UciOption("Clear Hash", "button", lambda engine: None),
    UciOption("Threads", "spin", lambda engine: engine.threads, *SPIN_OPTIONS["Threads"][1:]),
    UciOption("Ponder", "check", lambda engine: True),
    UciOption("OwnBook", "check", lambda engine: engine.options.book_enabled),
    UciOption("BookFile", "string", lambda engine: DEFAULT),
    UciOption("BookRandom", "spin", lambda engine: engine.options.book_setting("random_mode"), 0, 2),
    UciOption("BookWidth", "spin", lambda engine: engine.options.book_setting("width"), 1, 100),
    UciOption("Learn", "spin", lambda engine: engine.options.learn_mask, *SPIN_OPTIONS["Learn"][1:]),
    UciOption("BookLearnThreshold", "spin", lambda engine: engine.learn_threshold,
              *SPIN_OPTIONS["BookLearnThreshold"][1:]),
    UciOption("LearnStore", "string", lambda engine: DEFAULT),
    _shared_spin("Contempt"),
    UciOption("MultiPV", "spin", lambda engine: engine.multi_pv, *SPIN_OPTIONS["MultiPV"][1:]),
    _shared_spin("Move Overhead"),
    UciOption("UCI_AnalyseMode", "check", lambda engine: False),
    UciOption("UCI_ShowWDL", "check", lambda engine: False),
    UciOption("UCI_Opponent", "string", lambda engine: ""),
    UciOption("Log", "check", lambda engine: False),
    UciOption("UCI_Chess960", "check", lambda engine: engine.chess960),
    UciOption("UCI_LimitStrength", "check", lambda engine: engine.strength.limit),
    UciOption("UCI_Elo", "spin", lambda engine: engine.strength.target, MIN_ELO, FULL_ELO),
    UciOption("EvalFile", "string", lambda engine: DEFAULT),
    UciOption("SyzygyPath", "string", lambda engine: engine.options.tablebase_path or EMPTY),
    UciOption("SyzygyProbeDepth", "spin", lambda engine: engine.options.probe_depth, *PROBE_DEPTH_RANGE),
    *[_shared_spin(name) for name in SCALE_OPTIONS],
]


def _spin(option: UciOption, value: str) -> tuple[int, str]:
    """The value as a whole number within the option's range (clamped, and said so)."""
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a whole number") from None
    clamped = min(max(number, option.low), option.high)
    note = f"option {option.name}: {number} is outside {option.low}..{option.high}, {clamped} used" \
        if clamped != number else ""
    return clamped, note


def _check(value: str) -> bool:
    if value.lower() not in ("true", "false"):
        raise ValueError(f"{value!r} is not true or false")
    return value.lower() == "true"


def apply_option(session: UciSession, option: UciOption, value: str) -> str:
    """Carry out `setoption` for one option; returns a note for the GUI ('' if none). Raises
    ValueError (and the book/store errors) for a value that cannot be used."""
    engine = session.engine
    name = option.name
    note = ""
    if option.kind == "spin":
        number, note = _spin(option, value)
        if name in BOOK_OPTIONS:
            engine.options.set_book_setting(BOOK_OPTIONS[name], number)
        elif name == "UCI_Elo":
            engine.strength.set_target(number)   # takes effect at the next search
        elif name == "Move Overhead":
            session.move_overhead = number / 1000   # the next `go` (or ponderhit) allocates with it
        else:
            set_engine_option(engine, name, number)   # Hash, Threads, Learn, BookLearnThreshold, Contempt, MultiPV, ...
    elif option.kind == "check":
        flag = _check(value)
        if name == "Ponder":
            session.ponder_enabled = flag
        elif name == "OwnBook":
            set_engine_option(engine, name, flag)
        elif name == "UCI_LimitStrength":
            engine.strength.limit = flag
        elif name == "UCI_Chess960":
            engine.set_chess960(flag)   # castling king takes rook, FENs X-FEN or Shredder-FEN
            if flag:
                note = "Chess960: castling as king takes rook; the book and learning are off"
        elif name == "UCI_AnalyseMode":
            session.analyse_mode = flag
        elif name == "UCI_ShowWDL":
            session.show_wdl = flag
        elif name == "Log":
            set_logging(flag)
    elif option.kind == "button":
        engine.options.clear_hash()   # during a search: at its end (the engine's rule)
    elif name == "BookFile":
        if value in ("", DEFAULT, EMPTY):
            messages = engine.options.open_default_books()
            note = "; ".join(messages)
        else:
            engine.options.use_book(value)
    elif name == "LearnStore":
        if value not in ("", DEFAULT, EMPTY):
            engine.use_learned_store(value)
    elif name == "EvalFile":
        # A file that cannot be used: what is kept. During a search: at its end (the engine's rule).
        note = evaluation_note(engine, engine.options.set_eval_file(value))
    elif name == "SyzygyPath":
        note = tablebase_note(engine.options.set_tablebase_path("" if value == EMPTY else value))
    elif name == "UCI_Opponent":
        _set_opponent(engine, "" if value == EMPTY else value)
    return note


def evaluation_note(engine: Engine, messages: list[str] | None) -> str:
    """What an EvalFile change did: what could not be used, else what evaluates now ('' while it waits)."""
    if messages is None:
        return ""
    return "; ".join(messages or [engine.options.evaluation_in_use()])


def tablebase_note(messages: list[str] | None) -> str:
    return "; ".join(f"Syzygy: {message}" for message in messages or [])


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


def _set_opponent(engine: Engine, text: str) -> None:
    """UCI_Opponent: who the engine plays, for the learner (and the server rules); raises ValueError."""
    if text.strip():
        engine.set_opponent(parse_uci_opponent(text))


# -- commands ---------------------------------------------------------------------

def uci(session: UciSession, args: str) -> None:
    session.out.line(f"id name {FULL_NAME}")
    session.out.line(f"id author {AUTHOR}")
    for option in UCI_OPTIONS:
        session.out.line(option.declaration(session.engine))
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
    option = next((option for option in UCI_OPTIONS if option.name.lower() == name.lower()), None)
    if option is None:
        session.info_string(f"unknown option: {name}")
        return
    try:
        message = apply_option(session, option, value)
    except (ValueError, FenError, BookFileError, LearnedStoreError, OSError) as error:
        session.info_string(f"option {option.name}: {error}")
        return
    if message:
        session.info_string(message)


def register(session: UciSession, args: str) -> None:
    session.out.line("registration ok")   # nothing to register; answered so that GUIs move on


OPTION_COMMANDS: dict[str, Callable[[UciSession, str], None]] = {
    "uci": uci, "isready": isready, "debug": debug, "setoption": setoption, "register": register,
}
