"""Running the XBoard conformance cases (tests/test_xboard_conformance_*.py): the engines a case
starts, helpers the cases share, and the side-by-side run of a file's cases.

Where a case would take more than a few seconds with the clock values printed in §11
(e.g. `time 30000` under `level 40 5 0`, 7.5 s a move), the test keeps the command
sequence and sends a smaller clock instead; each such test says so in its docstring."""
from __future__ import annotations

import inspect
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import chess
import pytest

from tests import wall_clock
from tests.wall_clock import allowed
from tests.xboard_harness import ERROR, F_MID, ILLEGAL, MOVE, THINK, Line, XBoardEngine, fresh_engine

Start = Callable[..., XBoardEngine]
OPTION = re.compile(r"^(.+?) -(button|save|reset|check|spin|slider|combo|string|file|path)( .*)?$")


class Engines:
    """Starts engines for one case (INIT done unless init=False); `finish` quits them all and
    fails the case if one wrote a traceback on its stderr."""

    def __init__(self) -> None:
        self.engines: list[XBoardEngine] = []

    def __call__(self, style: str = "X", init: bool = True, protover: int = 2, cold: bool = False) -> XBoardEngine:
        engine = XBoardEngine() if cold else fresh_engine()
        self.engines.append(engine)
        if init:
            engine.init(style, protover)
        return engine

    def finish(self) -> None:
        for engine in self.engines:
            engine.close()
        for engine in self.engines:
            crash = engine.crash_report()
            if crash:
                pytest.fail(f"the engine wrote an error on stderr:\n{crash}")


def setboard(engine: XBoardEngine, fen: str) -> None:
    engine.send("new", "force", f"setboard {fen}")


def pv_first_move(text: str | None, board: chess.Board) -> chess.Move | None:
    """The first move of a PV text (SAN or coordinates, move numbers allowed) on board."""
    for token in (text or "").split():
        if re.match(r"^\d+\.+$", token):
            continue
        try:
            return board.parse_san(token.rstrip("!?"))
        except ValueError:
            return None
    return None


def thinking(lines: list[Line]) -> list[re.Match]:
    return [match for match in (THINK.match(line.text) for line in lines) if match]


def ponder_setup(engine: XBoardEngine) -> list[str]:
    """T36's start: `hard`, `new`, a clock, 1.e4; the engine replies and ponders. Returns the
    lines before the move. (`time 3000` rather than 30000, so that the reply comes in about a second.)"""
    engine.send("hard", "new", "level 0 5 0", "time 3000", "otim 30000")
    engine.move("e2e4")
    engine.expect_move(10)
    return engine.side_lines


def long_think(engine: XBoardEngine) -> None:
    setboard(engine, F_MID)
    engine.send("level 0 60 0", "time 360000", "otim 360000", "go")


def option_defaults(engine: XBoardEngine) -> list[str]:
    """`option NAME=DEFAULT` (or `option NAME`) for every declared option."""
    commands = []
    for text in engine.features.options:
        match = OPTION.match(text)
        assert match
        name, kind, args = match.group(1), match.group(2), (match.group(3) or "").strip()
        if kind in ("button", "save", "reset"):
            commands.append(f"option {name}")
        elif kind == "combo":
            default = next((c.strip()[1:] for c in args.split("///") if c.strip().startswith("*")),
                           args.split("///")[0].strip())
            commands.append(f"option {name}={default}")
        elif kind in ("spin", "slider", "check"):
            commands.append(f"option {name}={args.split()[0]}")
        else:
            commands.append(f"option {name}={args}")
    return commands


def analysis_first_moves(engine: XBoardEngine, board: chess.Board, seconds: float = 0.6,
                         restarted: bool = True) -> list[chess.Move]:
    """First PV moves of the thinking lines printed within `seconds` of the search's first line
    (which must come within allowed(seconds)); Error/Illegal/move fail.

    With `restarted`, lines before the first ply-1 line belong to the search that the last
    command replaced (it was deeper by then) and are skipped."""
    moves: list[chess.Move] = []
    end = time.monotonic() + allowed(seconds)
    while (line := engine.read(max(0.0, end - time.monotonic()), keep_thinking=True)) is not None:
        assert not MOVE.match(line.text) and not ERROR.match(line.text) and not ILLEGAL.match(line.text), line
        match = THINK.match(line.text)
        if match and restarted:
            if match.group(1) != "1":
                continue
            restarted = False
        if match and not moves:
            end = line.at + seconds   # the window opens with the search's first line
        if match:
            move = pv_first_move(match.group(5), board)
            assert move is not None, f"PV not legal in {board.fen()}: {line.text}"
            moves.append(move)
    return moves


NOT_DECLARED = 'Ponderosa declares variants="normal,fischerandom": no client sends {} to it'


# -- Running the cases side by side ----------------------------------------------------------------
# Most of a case's time is waiting (QUIET windows, `st` searches on one core), so the selected
# cases of a file run JOBS at a time in threads when the file starts; each pytest test then reports
# its case's outcome. PONDEROSA_XBOARD_JOBS=1 runs every case inside its own test instead.

JOBS = int(os.environ.get("PONDEROSA_XBOARD_JOBS", "2"))
LONGEST_FIRST = ("T54", "T101", "T107", "T35", "T76", "T37", "T33", "T99", "T85", "T47")
SOLO = ("T01", "T40", "X11")    # timed from a cold start: run one by one before the others, as `timing` cases are


def run_case(case: Callable[..., None], params: dict[str, object]) -> BaseException | None:
    engines = Engines()
    try:
        case(engines, **params)
        engines.finish()
    except BaseException as error:   # pytest's skip/fail outcomes are BaseExceptions too
        try:
            engines.finish()
        except BaseException:
            pass
        return error
    return None


@pytest.fixture(scope="module")
def case_outcomes(request: pytest.FixtureRequest) -> dict[str, BaseException | None]:
    """Every selected case of the requesting file, run: the `timing` and SOLO ones one by one,
    then the others JOBS at a time, the longest first."""
    items = [item for item in request.session.items
             if getattr(item, "module", None) is request.module and hasattr(item.obj, "case")
             and item.get_closest_marker("skip") is None]

    def params(item: pytest.Item) -> dict[str, object]:
        return dict(item.callspec.params) if hasattr(item, "callspec") else {}

    def alone(item: pytest.Item) -> bool:
        return item.name.startswith(SOLO) or item.get_closest_marker("timing") is not None

    outcomes = {}
    for item in filter(alone, items):   # a `timing` case holds its bounds as written (tests/wall_clock.py)
        wall_clock.scale = 1.0 if item.get_closest_marker("timing") else wall_clock.LOADED_SCALE
        outcomes[item.nodeid] = run_case(item.obj.case, params(item))
    wall_clock.scale = wall_clock.LOADED_SCALE
    items = sorted((item for item in items if not alone(item)),
                   key=lambda item: not item.name.startswith(LONGEST_FIRST))
    with ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
        futures = {item.nodeid: pool.submit(run_case, item.obj.case, params(item)) for item in items}
        outcomes.update({nodeid: future.result() for nodeid, future in futures.items()})
    return outcomes


def reported(case: Callable[..., None]) -> Callable[..., None]:
    """The pytest test for a case: its outcome from the side-by-side run (or, with JOBS=1, the
    case itself, run now)."""
    parameters = [p for name, p in inspect.signature(case).parameters.items() if name != "xb"]

    def test(request: pytest.FixtureRequest, **params: object) -> None:
        if JOBS <= 1:
            error = run_case(case, params)
        else:
            error = request.getfixturevalue("case_outcomes")[request.node.nodeid]
        if error is not None:
            raise error

    test.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD), *parameters])
    test.__name__, test.__qualname__, test.__doc__ = case.__name__, case.__qualname__, case.__doc__
    test.pytestmark = getattr(case, "pytestmark", [])  # type: ignore[attr-defined]
    test.case = case  # type: ignore[attr-defined]
    return test


def register_cases(namespace: dict[str, object]) -> None:
    """At the end of a conformance file (`register_cases(globals())`): each case, a function
    `test_...(xb: Start, ...)`, becomes the pytest test that reports it, and the file gets the
    fixture that runs its cases."""
    for name, case in list(namespace.items()):
        if name.startswith("test_") and callable(case) and "xb" in inspect.signature(case).parameters:
            namespace[name] = reported(case)
    namespace["case_outcomes"] = case_outcomes
