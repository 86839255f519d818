"""The engine options XBoard and UCI both offer (the same names, ranges and meaning in both
GUIs' dialogs) and what setting one does to the engine."""
from __future__ import annotations

from typing import TYPE_CHECKING

# Light modules only (no core): the XBoard handshake lists these options before the engine has loaded.
from ponderosa.engine.learning.rules import LEARN_ALL, LEARN_DEFAULT
from ponderosa.engine.limits import (
    DEFAULT_HASH_BYTES,
    DEFAULT_MOVE_OVERHEAD_MS,
    DEMOTE_THRESHOLD,
    DEMOTE_THRESHOLD_RANGE,
    MAX_THREADS,
    MEGABYTE,
    MOVE_OVERHEAD_RANGE_MS,
)

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine

MAX_MULTI_PV = 256      # lines per iteration (UCI and XBoard MultiPV, the console's multipv)
# Evaluation scales offered as options: option name -> the core's scale name.
SCALE_OPTIONS = {"KingSafety": "kscale", "KingTropism": "tropism", "PawnStructure": "pscale",
                 "PassedPawns": "ppscale", "BlockedPawns": "bscale", "Asymmetry": "asymmetry"}
# The spin options both offer: name -> (default, lowest, highest).
SPIN_OPTIONS: dict[str, tuple[int, int, int]] = {
    "Hash": (DEFAULT_HASH_BYTES // MEGABYTE, 1, 4096), "Contempt": (0, -500, 500), "Threads": (1, 1, MAX_THREADS),
    "Learn": (LEARN_DEFAULT, 0, LEARN_ALL),
    "BookLearnThreshold": (DEMOTE_THRESHOLD, *DEMOTE_THRESHOLD_RANGE),
    "MultiPV": (1, 1, MAX_MULTI_PV),
    "Move Overhead": (DEFAULT_MOVE_OVERHEAD_MS, *MOVE_OVERHEAD_RANGE_MS),   # ms; each front end's clock keeps it
    **{name: (0, -100, 500) if name == "Asymmetry" else (100, 0, 1000) for name in SCALE_OPTIONS},
}


def set_engine_option(engine: Engine, name: str, number: int) -> bool:
    """Set one of the options both GUIs offer, its value already within range; False for any
    other name. Raises ValueError for a value the engine refuses."""
    if name == "Hash":
        engine.options.set_hash_size(number * MEGABYTE)   # during a search: at its end (the engine's rule)
    elif name == "Threads":
        engine.options.set_threads(number)                # likewise
    elif name == "OwnBook":
        engine.options.book_enabled = bool(number)
    elif name == "Contempt":
        engine.draw_score = -number               # contempt for the opponent: a draw is worth less
    elif name == "Learn":
        engine.options.learn_mask = number              # 1 book, 2 position, 4 result learning
    elif name == "BookLearnThreshold":
        engine.learn_threshold = number           # learned below this (cp): a book move is not playable
    elif name == "MultiPV":
        engine.multi_pv = number                  # lines per iteration, each a thinking line
    elif name == "SyzygyProbeDepth":
        engine.options.set_probe_depth(number)
    elif name in SCALE_OPTIONS:
        engine.set_eval_scale(SCALE_OPTIONS[name], number)
    else:
        return False
    return True
