"""The engine options a UCI GUI sees (`option name ... type ...`) and what `setoption` does with
each; the options XBoard offers too come from protocol/options.py (ranges and meaning)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ponderosa.engine.engine import Engine
from ponderosa.engine.tablebases import PROBE_DEPTH_RANGE
from ponderosa.protocol.options import SCALE_OPTIONS, SPIN_OPTIONS, set_engine_option
from ponderosa.protocol.output import set_logging

if TYPE_CHECKING:
    from ponderosa.protocol.uci import UciSession

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
    UciOption("OwnBook", "check", lambda engine: engine.book.enabled),
    UciOption("BookFile", "string", lambda engine: DEFAULT),
    UciOption("BookRandom", "spin", lambda engine: engine.book.settings.random_mode, 0, 2),
    UciOption("BookWidth", "spin", lambda engine: engine.book.settings.width, 1, 100),
    UciOption("Learn", "spin", lambda engine: engine.learner.mask, *SPIN_OPTIONS["Learn"][1:]),
    UciOption("LearnStore", "string", lambda engine: DEFAULT),
    _shared_spin("Contempt"),
    UciOption("MultiPV", "spin", lambda engine: engine.multi_pv, *SPIN_OPTIONS["MultiPV"][1:]),
    UciOption("UCI_AnalyseMode", "check", lambda engine: False),
    UciOption("UCI_Opponent", "string", lambda engine: ""),
    UciOption("Log", "check", lambda engine: False),
    UciOption("SyzygyPath", "string", lambda engine: engine.tablebases.path or EMPTY),
    UciOption("SyzygyProbeDepth", "spin", lambda engine: engine.tablebases.probe_depth, *PROBE_DEPTH_RANGE),
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
        if name == "BookRandom":
            engine.book.settings.random_mode = number
        elif name == "BookWidth":
            engine.book.settings.width = number
        else:
            set_engine_option(engine, name, number)   # Hash, Threads, Learn, Contempt, MultiPV, tables, scales
    elif option.kind == "check":
        flag = _check(value)
        if name == "Ponder":
            session.ponder_enabled = flag
        elif name == "OwnBook":
            set_engine_option(engine, name, flag)
        elif name == "UCI_AnalyseMode":
            session.analyse_mode = flag
        elif name == "Log":
            set_logging(flag)
    elif option.kind == "button":
        engine.tt.clear()
        engine.searcher.core.clear()
    elif name == "BookFile":
        if value in ("", DEFAULT, EMPTY):
            messages = engine.book.open_defaults()
            note = "; ".join(messages)
        else:
            engine.book.use_book(value)
    elif name == "LearnStore":
        if value not in ("", DEFAULT, EMPTY):
            engine.use_learned_store(value)
    elif name == "SyzygyPath":
        # UCI sends setoption only while the engine waits, so the tables can change at once.
        note = "; ".join(f"Syzygy: {message}" for message in
                         engine.set_tablebase_path("" if value == EMPTY else value) or [])
    elif name == "UCI_Opponent":
        note = session.set_opponent("" if value == EMPTY else value)
    return note
