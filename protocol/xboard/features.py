"""What `protover 2` answers: the `feature` lines, options included. This module imports nothing
heavy, so the program's launcher (protocol/launch.py) can send them before the engine has loaded;
the session sends the same lines when the launcher did not."""
from __future__ import annotations

from typing import Any, Callable

from ponderosa.engine.identity import FULL_NAME
from ponderosa.engine.option_table import XBOARD_ROWS, Option

EGT_FEATURE = 'egt="syzygy"'
PROTOCOL_FEATURES = (f'ping=1 setboard=1 playother=1 san=0 usermove=1 time=1 draw=1 sigint=0 sigterm=0 '
                     f'reuse=1 analyze=1 myname="{FULL_NAME}" variants="normal,fischerandom" colors=0 ics=1 name=1 '
                     f'pause=1 nps=1 debug=1 memory=1 smp=1 exclude=1 setscore=0')


def feature_lines(value: Callable[[Option], Any] = lambda option: option.value(None)) -> list[str]:
    """Every line of the answer to `protover 2`, `feature done=1` last: the option table's XBoard
    rows with the values value(row) gives (the engine's values in use; without an engine, as the
    launcher answers before it has loaded, the rows' defaults). egt comes before the tablebase
    options, so that xboard knows the kind of path they take."""
    lines = [f"feature {PROTOCOL_FEATURES}"]
    for option in XBOARD_ROWS:
        if option.report == "tablebases":
            lines.append(f"feature {EGT_FEATURE}")
        lines.append(f"feature {option.xboard_feature(value(option))}")
    return lines + ["feature done=1"]


class EarlyAnswer:
    """Whether the launcher has already answered `protover` with every feature line: the
    session's own protover then stays silent (once; XBoard sends protover once per process)."""

    sent = False

    @classmethod
    def take(cls) -> bool:
        sent, cls.sent = cls.sent, False
        return sent
