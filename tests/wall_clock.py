"""Wall-clock bounds of the tests, and how far a busy machine may stretch them.

A bound that is a protocol's or the engine's promise (done=1 within 2 s of protover, a stop
within 10 ms, a move inside its clock) holds only on a quiet machine; asserted as written in the
default run, it fails whenever the machine is busy, and a red run that means nothing teaches
people to ignore red runs. So each bound has two readings:

- In the default run (`pytest`) every wait for an engine's answer and every elapsed-time check
  is LOADED_SCALE times the bound: wide enough to hold at load average 10 on 2 cores, still
  narrow enough to catch an engine that hangs or ignores its limits.
- Tests marked `timing` hold the bound as written. `pytest -m timing -n 0` runs them one at a
  time, on a quiet machine (`.ci/run` does, after the rest).

`conftest.py` sets `scale` for each test from its marker."""
from __future__ import annotations

import pytest

LOADED_SCALE = 4.0
scale = LOADED_SCALE


def allowed(seconds: float) -> float:
    """The bound `seconds` as the running test may hold it."""
    return seconds * scale


# A test parametrized with READINGS runs twice: with its bounds stretched in the default run, and
# as written under the `timing` marker.
READINGS = [pytest.param("loaded", id="loaded"), pytest.param("quiet", id="quiet", marks=pytest.mark.timing)]


def bounds(strict: float, loaded: float) -> list:
    """Parameters for a bound too tight to stretch by LOADED_SCALE (a stop within 10 ms): `loaded`
    in the default run, `strict` under the `timing` marker."""
    return [pytest.param(loaded, id="loaded"), pytest.param(strict, id="quiet", marks=pytest.mark.timing)]
