"""The neural evaluation's settings in the three front ends: UCI's EvalFile, XBoard's option
EvalFile, the console's `eval`; a file that cannot be used is named and the hand-written
evaluation stays; the evaluation is each engine's own."""
from __future__ import annotations

import io
from pathlib import Path

import chess
import pytest

from ponderosa.core_ext.core import Board
from ponderosa.engine import nnue
from ponderosa.engine.engine import Engine
from ponderosa.engine.nnue import reference
from ponderosa.engine.nnue.network_file import write_network
from ponderosa.engine.search import SearchLimits
from ponderosa.protocol.console.session import Console
from ponderosa.protocol.uci import UciSession
from ponderosa.protocol.xboard.session import XBoardSession


@pytest.fixture
def network(tmp_path: Path) -> Path:
    path = tmp_path / "small.nnue"
    write_network(path, reference.quantise(reference.random_network(256, seed=5), "test network"))
    return path


def test_uci_evalfile(network: Path, tmp_path: Path) -> None:
    out, engine = io.StringIO(), Engine()
    uci = UciSession(engine, out)
    uci.handle("uci")
    assert "option name EvalFile type string default <default>" in out.getvalue()
    uci.handle(f"setoption name EvalFile value {network}")
    assert nnue.active(engine.evaluator) and "info string evaluation: network small.nnue" in out.getvalue()
    uci.handle("position startpos moves e2e4")
    uci.handle("go depth 3")
    uci.finish_active()
    assert "bestmove " in out.getvalue()
    broken = tmp_path / "broken.nnue"
    broken.write_bytes(network.read_bytes()[:1000])
    uci.handle(f"setoption name EvalFile value {broken}")
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("info string ") and str(broken) in last and last.endswith("keeping the network small.nnue")
    assert nnue.active(engine.evaluator)   # a file that cannot be used keeps the network in use


def test_xboard_option_evalfile(network: Path, tmp_path: Path) -> None:
    out, engine = io.StringIO(), Engine()
    xboard = XBoardSession(engine, out)
    for line in ("xboard", "protover 2", f"option EvalFile={network}"):
        xboard.handle(line)
    assert 'feature option="EvalFile -file <default>"' in out.getvalue()
    assert engine.evaluation.path == network and nnue.active(engine.evaluator)
    xboard.handle(f"option EvalFile={tmp_path / 'absent.nnue'}")
    told, debug = out.getvalue().splitlines()[-2:]
    assert told == f"telluser EvalFile: {tmp_path / 'absent.nnue'}: no such file; keeping the network small.nnue"
    assert debug.startswith("# evaluation: network small.nnue")
    assert engine.evaluation.path == network and nnue.active(engine.evaluator)


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


TWO_ENGINES_FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def searched(engine: Engine) -> tuple[str | None, int, int]:
    """A small search from cleared tables: (move, score, nodes), the same every time."""
    engine.new_game()
    engine.set_position(TWO_ENGINES_FEN)
    result = engine.think(SearchLimits(depth=7), threads=1)
    return result.best_move, result.score, result.nodes


def test_two_engines_in_one_process_each_evaluate_with_their_own_choice(network: Path) -> None:
    """An engine with a network and one with the hand-written evaluation, side by side: each
    evaluates and searches as its own choice says, before and after the other changes its own
    (the network belongs to one engine's evaluators, its helper threads' included)."""
    board, position = Board(TWO_ENGINES_FEN), chess.Board(TWO_ENGINES_FEN)
    small, shipped = nnue.read_network(network), nnue.read_network(nnue.DEFAULT_NETWORK)
    netted = Engine()
    classic = Engine()   # starts with the shipped network, as every engine does
    try:
        assert netted.settings.set_eval_file(str(network)) == []
        classic.settings.set_eval_mode("classic")
        assert netted.evaluation.active and not classic.evaluation.active
        small_score = reference.quantised_evaluate(small, position)
        assert netted.evaluator.evaluate(board) == small_score
        assert classic.evaluator.evaluate(board) == classic.evaluator.classic_evaluate(board) != small_score
        with_network, hand_written = searched(netted), searched(classic)
        assert with_network != hand_written

        classic.settings.set_eval_file("<default>")   # the other engine changes: this one searches as before
        assert searched(netted) == with_network and netted.evaluator.evaluate(board) == small_score
        assert classic.evaluator.evaluate(board) == reference.quantised_evaluate(shipped, position)
        netted.settings.set_eval_mode("classic")      # and the other way round
        assert searched(netted) == hand_written
        assert classic.evaluator.evaluate(board) == reference.quantised_evaluate(shipped, position)

        assert netted.settings.set_threads(2) and netted.threads == 2   # a helper made without a network
        netted.settings.set_eval_mode("nnue")         # helper threads take their engine's network at each search
        netted.think(SearchLimits(depth=6))
        netted.searcher.park_helpers()
        assert [helper.evaluator.network for helper in netted.helpers._helpers] == [netted.evaluator.network]
        assert netted.evaluator.network is not classic.evaluator.network is not None
    finally:
        netted.shutdown()
        classic.shutdown()
