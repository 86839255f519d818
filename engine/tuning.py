"""The search's tunable parameters as UCI options: one spin row each (RazorMargin, LmrBase, ...),
built from the core's table (core_ext/search_parameters.pxi), for SPSA tuning through OpenBench
or a local tuner. `setoption` always takes them; `uci` lists them only in a tuning build (a
commit with LISTED set to True, as tools/openbench/spsa.py makes one) or with PONDEROSA_TUNE=1,
since fastchess sends only the options an engine lists and a GUI should not show two dozen knobs
that only a tuner can set well."""
from __future__ import annotations

import os

from ponderosa.core_ext.core import search_parameter, search_parameters, set_search_parameter
from ponderosa.engine.option_table import SPIN, Option

LISTED = False   # a tuning build sets this to True (tools/openbench/spsa.py)


def listed() -> bool:
    """Whether `uci` lists the parameters (the build's choice, or PONDEROSA_TUNE=1)."""
    return LISTED or os.environ.get("PONDEROSA_TUNE", "") not in ("", "0")


def _row(name: str, default: int, low: int, high: int, step: float) -> Option:
    return Option(name, SPIN, default, low, high,
                  help=f"search parameter for tuning (SPSA step {step:g}); the default is the shipped engine's",
                  get=lambda parts: search_parameter(name),
                  set=lambda parts, value: set_search_parameter(name, value))


ROWS: tuple[Option, ...] = tuple(_row(name, default, low, high, step)
                                 for name, _value, default, low, high, step in search_parameters())
BY_NAME: dict[str, Option] = {option.name.lower(): option for option in ROWS}


def find(name: str) -> Option | None:
    """The parameter's row (case-insensitive), listed or not."""
    return BY_NAME.get(name.strip().lower())


def spsa_inputs() -> str:
    """The parameters as OpenBench's SPSA form takes them: `NAME, int, START, MIN, MAX, C_END, R_END`
    a line (R_END 0.002, OpenBench's usual)."""
    return "\n".join(f"{name}, int, {value}, {low}, {high}, {step:g}, 0.002"
                     for name, value, _default, low, high, step in search_parameters())
