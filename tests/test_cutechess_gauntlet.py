"""tools/match/cutechess.py: the cutechess-cli command it builds, and its reading of cutechess's PGN
(points from the tested engine's side, faults charged to the side that lost by them). The slow test
plays two real games through cutechess-cli when it is installed."""
from __future__ import annotations

import shutil
from pathlib import Path

import chess
import pytest

from tools.match import cutechess


def test_command_names_both_engines_openings_and_rounds(tmp_path: Path) -> None:
    command = cutechess.build_command("cutechess-cli", "ethereal", 100, "10+0.1", 2, 19001,
                                      cutechess.DEFAULT_OPENINGS, tmp_path / "g.pgn",
                                      [("Threads", 2), ("Ponder", False)], engine=["ponderosa"])
    text = " ".join(command)
    first, second = [i for i, word in enumerate(command) if word == "-engine"]
    engine, opponent = command[first:second], command[second:command.index("-each")]
    assert engine == ["-engine", "name=Ponderosa", "cmd=ponderosa", "proto=uci", "option.Threads=2",
                      "option.Ponder=false"]
    assert "proto=uci" in opponent and "option.Threads=1" in opponent and "option.Hash=64" in opponent
    assert opponent[2].startswith("cmd=") and opponent[2].endswith("ethereal-chess")
    assert "-each tc=10+0.1" in text
    assert f"-openings file={cutechess.DEFAULT_OPENINGS} format=epd order=random -repeat -games 2 -rounds 50" in text
    assert "-concurrency 2 -srand 19001" in text and f"-pgnout {tmp_path / 'g.pgn'}" in text


def test_command_passes_engine_arguments_and_pgn_openings(tmp_path: Path) -> None:
    command = cutechess.build_command("cc", "crafty", 4, "1+0.01", 1, 5, tmp_path / "lines.pgn", tmp_path / "g.pgn", [])
    opponent = command[command.index("name=crafty") - 1:command.index("-each")]
    assert "proto=xboard" in opponent and "arg=log off" in opponent and "arg=hash=64M" in opponent
    assert "format=pgn" in command and "tc=1+0.01" in command and command[command.index("-rounds") + 1] == "2"


@pytest.mark.parametrize("games", [0, 3, -2])
def test_command_rejects_odd_or_empty_game_counts(tmp_path: Path, games: int) -> None:
    with pytest.raises(ValueError, match="even"):
        cutechess.build_command("cc", "ethereal", games, "10+0.1", 2, 1, cutechess.DEFAULT_OPENINGS, tmp_path / "g", [])


def test_command_rejects_unknown_opponent(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown opponent 'deep-blue'"):
        cutechess.build_command("cc", "deep-blue", 2, "10+0.1", 2, 1, cutechess.DEFAULT_OPENINGS, tmp_path / "g", [])


def game(white: str, black: str, result: str, termination: str = "") -> str:
    tags = f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
    if termination:
        tags += f'[Termination "{termination}"]\n'
    return tags + f"\n1. e4 e5 {result}\n\n"


def test_tally_scores_from_the_engines_side_and_charges_faults(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(game("Ponderosa", "ethereal", "1-0")            # win as White
                   + game("ethereal", "Ponderosa", "1-0")          # loss as Black
                   + game("ethereal", "Ponderosa", "1/2-1/2")      # draw
                   + game("Ponderosa", "ethereal", "0-1", "time forfeit")        # engine flagged
                   + game("ethereal", "Ponderosa", "0-1", "illegal move")        # opponent's illegal move
                   + game("ethereal", "Ponderosa", "1-0", "stalled connection")  # engine hung
                   + game("Ponderosa", "ethereal", "*", "unterminated"))
    tally = cutechess.tally_games(pgn)
    assert tally.points == [1.0, 0.0, 0.5, 0.0, 1.0, 0.0]
    assert (tally.wins, tally.draws, tally.losses, tally.unfinished) == (2, 1, 3, 1)
    assert tally.faults == {("engine", "time"): 1, ("opponent", "illegal"): 1, ("engine", "crash"): 1}
    table = cutechess.report("ethereal", tally)
    assert "| ethereal | 6 | 2 | 1 | 3 | 41.7% |" in table
    assert table.rstrip().endswith("| 1/0 | 0/1 | 1/0 |")


def test_tally_refuses_a_file_of_other_engines(tmp_path: Path) -> None:
    pgn = tmp_path / "other.pgn"
    pgn.write_text(game("Crafty", "Toga", "1-0"))
    with pytest.raises(ValueError, match="without Ponderosa"):
        cutechess.tally_games(pgn)


def test_default_openings_are_legal_and_not_the_match_set() -> None:
    lines = cutechess.DEFAULT_OPENINGS.read_text().split("\n")[:-1]
    match_set = set((Path(__file__).parent / "data" / "openings" / "noob_2moves.epd").read_text().split("\n"))
    assert len(lines) == 600 and not match_set.intersection(lines)
    for line in lines:
        board = chess.Board(line)
        assert board.is_valid() and board.fullmove_number == 4 and board.turn == chess.WHITE


@pytest.mark.slow
def test_two_games_through_cutechess(tmp_path: Path) -> None:
    cutechess = shutil.which("cutechess-cli")
    if cutechess is None:
        pytest.skip("cutechess-cli not on PATH (tools/match/cutechess.py --help says how to build it)")
    if shutil.which("fairymax") is None and not Path("/usr/games/fairymax").exists():
        pytest.skip("fairymax not installed (apt-get install fairymax)")
    pgn = tmp_path / "two.pgn"
    assert cutechess.main(["--opponent", "fairymax", "--games", "2", "--tc", "2+0.05", "--concurrency", "1",
                          "--seed", "3", "--pgn", str(pgn), "--engine-option", "Learn=0"]) == 0
    tally = cutechess.tally_games(pgn)
    assert len(tally.points) == 2 and tally.unfinished == 0
    assert [tally.faults[("engine", kind)] for kind in ("time", "illegal", "crash")] == [0, 0, 0]
