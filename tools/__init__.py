"""Ponderosa's tools (not installed with the engine), one package per concern:

- tools.match: matches and SPRTs against other engines and builds, and what reads their games back;
- tools.bench: the speed figures of docs/BENCHMARKS.md;
- tools.nnue: self-play data, training positions and the trainer of the neural evaluation;
- tools.tune: the tuner of the hand-written evaluation, its positions, labels and weights file, and
  the fit of the win/draw/loss model;
- tools.binary: the one-file program that `make` builds;
- tools.generate: files kept in the repository that a script draws or counts (the logo, test data);
- tools.results: the results ledger and the documents' tables written from it;
- tools.engine_process: the installed program's command line, for the tools and the tests' harnesses.

A script runs from the repository's root as a module, `python -m tools.match.sprt --help`; tools and
tests import one another as `from tools.match.openings import read_openings`. A tool that starts
another starts it the same way, from any folder: `tool_command` and `tool_environment` below."""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent   # the repository: the folder that holds tools/


def tool_command(module: str, python: str = sys.executable) -> list[str]:
    """The command that runs the script `module` ("tools.nnue.datagen"), to be given tool_environment()."""
    return [python, "-m", module]


def tool_environment(environment: Mapping[str, str] | None = None) -> dict[str, str]:
    """environment (this process's by default) with the repository's root first on PYTHONPATH, where
    `python -m tools.…` finds the tools whatever the working folder."""
    result = dict(os.environ if environment is None else environment)
    result["PYTHONPATH"] = os.pathsep.join([str(ROOT), *([result["PYTHONPATH"]] if result.get("PYTHONPATH") else [])])
    return result
