"""What `protover 2` answers: the `feature` lines, options included. This module imports nothing
heavy, so the program's launcher (protocol/launch.py) can send them before the engine has loaded;
the session sends the same lines when the launcher did not."""
from __future__ import annotations

from ponderosa.engine.identity import FULL_NAME
from ponderosa.engine.limits import DEFAULT_PROBE_DEPTH, FULL_ELO, MIN_ELO, PROBE_DEPTH_RANGE
from ponderosa.protocol.options import SCALE_OPTIONS, SPIN_OPTIONS


def _spin(name: str) -> tuple[str, int, int, int]:
    return ("spin", *SPIN_OPTIONS[name])


# Engine options offered to the GUI: name -> (type, default, min, max); a check is 0..1.
OPTIONS: dict[str, tuple[str, int, int, int]] = {
    "Hash": _spin("Hash"), "Ponder": ("check", 1, 0, 1), "OwnBook": ("check", 1, 0, 1),
    "Contempt": _spin("Contempt"), "Threads": _spin("Threads"), "Log": ("check", 0, 0, 1),
    "Resign": ("spin", 0, 0, 50), "Learn": _spin("Learn"), "BookLearnThreshold": _spin("BookLearnThreshold"),
    # UCI's "Move Overhead": python-chess reads an XBoard option's name up to the first space.
    "MultiPV": _spin("MultiPV"), "MoveOverhead": _spin("Move Overhead"),
    "UCI_LimitStrength": ("check", 0, 0, 1), "UCI_Elo": ("spin", FULL_ELO, MIN_ELO, FULL_ELO),
    **{name: _spin(name) for name in SCALE_OPTIONS},
}

EGT_FEATURE = 'egt="syzygy"'
PROTOCOL_FEATURES = (f'ping=1 setboard=1 playother=1 san=0 usermove=1 time=1 draw=1 sigint=0 sigterm=0 '
                     f'reuse=1 analyze=1 myname="{FULL_NAME}" variants="normal,fischerandom" colors=0 ics=1 name=1 '
                     f'pause=1 nps=1 debug=1 memory=1 smp=1 exclude=1 setscore=0')


def option_features() -> list[str]:
    """The `feature option=...` texts of OPTIONS, for protover."""
    return [f'option="{name} -spin {default} {low} {high}"' if kind == "spin" else
            f'option="{name} -check {default}"' for name, (kind, default, low, high) in OPTIONS.items()]


EVAL_FILE_FEATURE = 'option="EvalFile -file <default>"'


def tablebase_features(path: str, probe_depth: int) -> list[str]:
    low, high = PROBE_DEPTH_RANGE
    return [EGT_FEATURE, f'option="SyzygyPath -path {path}"',
            f'option="SyzygyProbeDepth -spin {probe_depth} {low} {high}"']


def feature_lines(tablebase_path: str = "", probe_depth: int = DEFAULT_PROBE_DEPTH) -> list[str]:
    """Every line of the answer to `protover 2`, `feature done=1` last. The defaults are a fresh
    engine's, before any .ponderosarc or option has changed its tablebase settings."""
    return ([f"feature {PROTOCOL_FEATURES}"]
            + [f"feature {text}" for text in option_features() + [EVAL_FILE_FEATURE]
               + tablebase_features(tablebase_path, probe_depth)]
            + ["feature done=1"])


class EarlyAnswer:
    """Whether the launcher has already answered `protover` with every feature line: the
    session's own protover then stays silent (once; XBoard sends protover once per process)."""

    sent = False

    @classmethod
    def take(cls) -> bool:
        sent, cls.sent = cls.sent, False
        return sent
