"""OpenBench's own server and worker run Ponderosa end to end on 127.0.0.1 (tools/openbench/local.py,
docs/OPENBENCH.md): a fixed-games test of two commits and a DATAGEN workload with genfens openings,
each to completion, with the server's results and the PGNs it stores read back.

Slow (two builds of the one-file program, then games) and skipped unless two snapshots are given:
PONDEROSA_OPENBENCH_SOURCE, an unpacked OpenBench tree (its Client/, manage.py, requirements.txt),
and PONDEROSA_FASTCHESS, a fastchess 1.8.1 or later executable. Run it alone, beside no other
OpenBench worker or fastchess: the worker ends `fastchess-ob` and `Ponderosa-SHA8` processes by
name. PONDEROSA_PGO=0 in the environment makes the builds minutes shorter."""
from __future__ import annotations

import os
import subprocess
import types
from pathlib import Path

import chess.pgn
import pytest

SOURCE = os.environ.get("PONDEROSA_OPENBENCH_SOURCE")
FASTCHESS = os.environ.get("PONDEROSA_FASTCHESS")
REPO = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SOURCE and FASTCHESS and (REPO / ".git").exists()),
                       reason="needs PONDEROSA_OPENBENCH_SOURCE (an unpacked OpenBench snapshot), "
                              "PONDEROSA_FASTCHESS (a fastchess 1.8.1+ executable) and a git checkout"),
]


def _games(text: str) -> list[chess.pgn.Game]:
    import io
    stream, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    return games


def test_a_fixed_games_test_and_a_datagen_workload_run_to_completion(tmp_path: Path) -> None:
    from tools.nnue.data import read_pgn_games
    from tools.openbench import local

    inst = tmp_path / "instance"
    local.setup(inst, Path(SOURCE).resolve(), Path(FASTCHESS).resolve(), port=18000, zip_port=18001)
    try:
        local.start_servers(inst)
        local.start_worker(inst, threads=1)
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
        parent = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=REPO, capture_output=True, text=True,
                                check=True).stdout.strip()
        common = dict(dev_bench=None, base_bench=None, workload_size=1, info="", prebuilt=True,
                      options=local.OPTIONS)
        test = types.SimpleNamespace(dev=head, base=parent, games=4, tc="2.0+0.02", upload_pgns="VERBOSE",
                                     win_adj="movecount=3 score=400", draw_adj="movenumber=40 movecount=8 score=10",
                                     **common)
        test_id = local.create(inst, test, "GAMES")
        result = local.wait(inst, test_id, poll=5.0, timeout=1800)
        assert not result["error"] and result["finished"]
        assert result["games"] == 4 == result["wins"] + result["draws"] + result["losses"]
        assert sum(result[k] for k in ("LL", "LD", "DD", "DW", "WW")) == 2
        games = _games(local.pgn_text(local.pgn_archive(inst, test_id)))
        assert len(games) == 4 and all(g.headers["Result"] in ("1-0", "0-1", "1/2-1/2") for g in games)

        data = types.SimpleNamespace(dev=head, games=8, tc="N=2000", genfens_args="", play_reverses=False,
                                     upload_pgns="COMPACT",
                                     **{**common, "workload_size": 2,
                                        "options": "Threads=1 Hash=16 OwnBook=false Learn=0"})
        data_id = local.create(inst, data, "DATAGEN")
        result = local.wait(inst, data_id, poll=5.0, timeout=1800)
        assert not result["error"] and result["finished"] and result["games"] == 8
        archive = local.pgn_archive(inst, data_id)
        games = _games(local.pgn_text(archive))
        assert len(games) == 8 and all("FEN" in g.headers for g in games)
        scored = list(read_pgn_games(archive))
        assert len(scored) == 8
    finally:
        local.down(inst)
    assert not any((inst / "pids").iterdir())
