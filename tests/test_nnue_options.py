"""The neural evaluation's settings in the three front ends: UCI's EvalFile, XBoard's option
EvalFile, the console's `eval`; a file that cannot be used is named and the hand-written
evaluation stays."""
from __future__ import annotations

import io
from pathlib import Path

import chess
import pytest

from ponderosa.engine import nnue
from ponderosa.engine.engine import Engine
from ponderosa.engine.nnue import reference
from ponderosa.engine.nnue.network_file import write_network
from ponderosa.protocol.console.session import Console
from ponderosa.protocol.uci import UciSession
from ponderosa.protocol.xboard.session import XBoardSession


@pytest.fixture
def network(tmp_path: Path):
    path = tmp_path / "small.nnue"
    write_network(path, reference.quantise(reference.random_network(256, seed=5), "test network"))
    yield path
    nnue.remove()


def test_uci_evalfile(network: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    uci = UciSession(Engine(), out)
    uci.handle("uci")
    assert "option name EvalFile type string default <default>" in out.getvalue()
    uci.handle(f"setoption name EvalFile value {network}")
    assert nnue.active() and "info string evaluation: network small.nnue" in out.getvalue()
    uci.handle("position startpos moves e2e4")
    uci.handle("go depth 3")
    uci.finish_active()
    assert "bestmove " in out.getvalue()
    broken = tmp_path / "broken.nnue"
    broken.write_bytes(network.read_bytes()[:1000])
    uci.handle(f"setoption name EvalFile value {broken}")
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("info string ") and str(broken) in last and last.endswith("keeping the network small.nnue")
    assert nnue.active()   # a file that cannot be used keeps the network in use


def test_xboard_option_evalfile(network: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    xboard = XBoardSession(Engine(), out)
    for line in ("xboard", "protover 2", f"option EvalFile={network}"):
        xboard.handle(line)
    assert 'feature option="EvalFile -file <default>"' in out.getvalue()
    assert nnue.active()
    xboard.handle(f"option EvalFile={tmp_path / 'absent.nnue'}")
    told, debug = out.getvalue().splitlines()[-2:]
    assert told == f"telluser EvalFile: {tmp_path / 'absent.nnue'}: no such file; keeping the network small.nnue"
    assert debug.startswith("# evaluation: network small.nnue")
    assert nnue.active()


def test_console_eval(network: Path) -> None:
    out = io.StringIO()
    console = Console(Engine(), out)
    for line in ("eval", f"eval {network}", "eval classic", "eval nnue", "eval no-such.nnue", "eval nnue"):
        console.execute(line)
    lines = out.getvalue().splitlines()
    console.execute(f"eval {network}")
    console.execute("score")
    score = out.getvalue().splitlines()[-2:]
    assert score[0].startswith("total ") and score[1].startswith("network (in use) ")
    assert round(float(score[1].split()[-1]) * 100) == reference.quantised_evaluate(
        nnue.read_network(network), chess.Board())
    assert lines[0] == "evaluation: hand-written (classic)" or "network" in lines[0]
    assert lines[1].startswith("evaluation: network small.nnue (test network")
    assert lines[2] == "evaluation: hand-written (classic)"
    assert lines[3].startswith("evaluation: network small.nnue")
    assert lines[4] == "Error: no-such.nnue: no such file; keeping the network small.nnue"
    assert lines[5].startswith("evaluation: network small.nnue")   # `eval nnue`: the network kept
