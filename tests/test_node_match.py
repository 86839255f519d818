"""tools/match/node_match.py: a fixed-node match of two commands, or of one build with two settings."""
from __future__ import annotations

import pytest

from tools.match import node_match


def test_an_option_is_a_name_value_pair(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        node_match.main(["ponderosa --uci", "ponderosa --uci", "--candidate-option", "LmrCutNode"])
    assert exit_info.value.code == 2
    assert "--candidate-option takes NAME=VALUE" in capsys.readouterr().err


def test_one_build_with_a_search_parameter_plays_its_games(capsys: pytest.CaptureFixture[str]) -> None:
    command = "env PONDEROSA_TUNE=1 ponderosa --uci"
    assert node_match.main([command, command, "--pairs", "1", "--nodes", "300", "--concurrency", "1",
                            "--candidate-option", "LmrCutNode=8", "--base-option", "Hash=1"]) == 0
    assert "2 games at 300 nodes a move: candidate " in capsys.readouterr().out


def test_an_option_the_engine_does_not_list_is_a_clear_failure(capsys: pytest.CaptureFixture[str]) -> None:
    # without PONDEROSA_TUNE=1 the search parameters are not listed, and python-chess refuses them
    assert node_match.main(["ponderosa --uci", "ponderosa --uci", "--pairs", "1", "--nodes", "300",
                            "--concurrency", "1", "--candidate-option", "LmrCutNode=8"]) == 2
    assert "LmrCutNode" in capsys.readouterr().err
