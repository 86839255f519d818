"""tools/match/fastchess.py: the fastchess command it builds (OpenBench's way with --openbench), and
two real games through fastchess when PONDEROSA_FASTCHESS names a build (or fastchess is on PATH)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tools.match import cutechess, fastchess


def engines(command: list[str]) -> tuple[list[str], list[str]]:
    first, second = [i for i, word in enumerate(command) if word == "-engine"]
    return command[first:second], command[second:command.index("-each")]


def test_command_is_cutechess_shaped_with_fastchess_spellings(tmp_path: Path) -> None:
    command = fastchess.build_command("fastchess", "ethereal", 100, "10+0.1", 2, 19001, cutechess.DEFAULT_OPENINGS,
                                      tmp_path / "g.pgn", [("Threads", 2), ("Ponder", False)],
                                      engine=["python", "-m", "ponderosa.protocol.cli"])
    engine, opponent = engines(command)
    assert engine == ["-engine", "name=Ponderosa", "cmd=python", "args=-m ponderosa.protocol.cli", "proto=uci",
                      "option.Threads=2", "option.Ponder=false"]
    assert opponent[2].endswith("ethereal-chess") and "option.Hash=64" in opponent
    text = " ".join(command)
    assert f"-openings file={cutechess.DEFAULT_OPENINGS} format=epd order=random -repeat -games 2 -rounds 50" in text
    assert f"-pgnout file={tmp_path / 'g.pgn'}" in text and "-srand 19001" in text and "-recover" in command
    assert "-resign" not in command and "-sprt" not in command and "timemargin=250" not in command


def test_openbench_way_and_an_sprt_of_two_builds(tmp_path: Path) -> None:
    command = fastchess.build_command("fastchess", "base", 2000, "8+0.08", 1, 7, fastchess.OPENBENCH_OPENINGS,
                                      tmp_path / "g.pgn", list(fastchess.OPENBENCH_OPTIONS), engine=["./dev"],
                                      opponent_command=["./base"], openbench=True, sprt=(0.0, 5.0))
    engine, opponent = engines(command)
    assert engine[2:] == ["cmd=./dev", "proto=uci", "option.Threads=1", "option.Hash=8", "option.OwnBook=false",
                          "option.Learn=0"]
    assert opponent[1:3] == ["name=base", "cmd=./base"] and opponent[3:] == engine[3:]
    text = " ".join(command)
    assert "-each tc=8+0.08 timemargin=250" in text and "noob_2moves.epd" in text
    assert "-resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10" in text
    assert text.endswith("-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized")


def test_xboard_opponents_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="fastchess speaks UCI only"):
        fastchess.build_command("fc", "crafty", 2, "1+0.01", 1, 1, cutechess.DEFAULT_OPENINGS, tmp_path / "g", [])
    with pytest.raises(ValueError, match="even"):
        fastchess.build_command("fc", "ethereal", 3, "1+0.01", 1, 1, cutechess.DEFAULT_OPENINGS, tmp_path / "g", [])


def test_openbench_presets_are_options_the_engine_takes() -> None:
    """The STC preset's options (read from openbench/Ponderosa.json) are UCI options the engine
    lists, with values it accepts: python-chess checks both against `uci`."""
    import chess.engine

    assert [name for name, _ in fastchess.OPENBENCH_OPTIONS] == ["Threads", "Hash", "OwnBook", "Learn"]
    engine = chess.engine.SimpleEngine.popen_uci(["ponderosa", "--uci"], timeout=30)
    try:
        engine.configure({name: value for name, value in fastchess.OPENBENCH_OPTIONS})
        engine.ping()
    finally:
        engine.quit()


@pytest.mark.slow
def test_two_games_through_fastchess(tmp_path: Path) -> None:
    program = os.environ.get("PONDEROSA_FASTCHESS") or shutil.which("fastchess")
    if program is None:
        pytest.skip("no fastchess: set PONDEROSA_FASTCHESS to a build (tools/match/fastchess.py --help)")
    if shutil.which("ethereal-chess") is None and not Path("/usr/games/ethereal-chess").exists():
        pytest.skip("ethereal-chess not installed (apt-get install ethereal-chess)")
    pgn = tmp_path / "two.pgn"
    assert fastchess.main(["--openbench", "--opponent", "ethereal", "--games", "2", "--tc", "2+0.05",
                           "--concurrency", "1", "--seed", "3", "--pgn", str(pgn), "--fastchess", program]) == 0
    tally = cutechess.tally_games(pgn)
    assert len(tally.points) == 2 and tally.unfinished == 0
    assert [tally.faults[("engine", kind)] for kind in ("time", "illegal", "crash")] == [0, 0, 0]
