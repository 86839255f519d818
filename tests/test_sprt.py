"""SPRT statistics against values computed by hand, and one short candidate-against-base run."""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from tests.wall_clock import allowed
from tools.match import gauntlet, sprt


def test_bounds_for_alpha_beta_five_percent() -> None:
    # ln(0.05 / 0.95) = -ln 19 = -2.944439; ln(0.95 / 0.05) = ln 19
    low, high = sprt.sprt_bounds(0.05, 0.05)
    assert low == pytest.approx(-2.944439, abs=1e-6)
    assert high == pytest.approx(2.944439, abs=1e-6)
    low, high = sprt.sprt_bounds(0.05, 0.10)   # ln(0.10 / 0.95) = -2.251292, ln(0.90 / 0.05) = 2.890372
    assert (low, high) == (pytest.approx(-2.251292, abs=1e-6), pytest.approx(2.890372, abs=1e-6))


def test_expected_score_of_elo() -> None:
    assert sprt.score_from_elo(0) == 0.5
    assert sprt.score_from_elo(400) == pytest.approx(1 / 1.1)          # 10^(-1) = 0.1
    assert sprt.score_from_elo(5) == pytest.approx(0.507195, abs=1e-6)  # 1 / (1 + 10^-0.0125)


def test_trinomial_llr_by_hand() -> None:
    # 10 losses, 20 draws, 10 wins: mean 0.5, variance (10 * 0.25 + 10 * 0.25) / 40 = 0.125.
    # s0 = 0.5, s1 = 0.507195: LLR = 40 * 0.007195 * (1 - 0.5 - 0.507195) / 0.25 = -0.008283
    assert sprt.trinomial_llr(10, 20, 10, 0, 5) == pytest.approx(-0.008283, abs=2e-6)
    # 5 losses, 10 draws, 25 wins: mean 0.75, variance (5 * 0.5625 + 10 * 0.0625 + 25 * 0.0625) / 40
    # = 0.125; with s1 = 0.50719508: LLR = 40 * 0.00719508 * (1.5 - 1.00719508) / 0.25 = 0.567323
    assert sprt.trinomial_llr(5, 10, 25, 0, 5) == pytest.approx(0.567323, abs=2e-6)


def test_pentanomial_llr_and_elo_by_hand() -> None:
    # Pairs with 0, 1/2, 1, 3/2, 2 points: 1, 2, 5, 8, 4. Per-pair scores 0, .25, .5, .75, 1:
    # mean 13 / 20 = 0.65; variance (0.4225 + 2 * 0.16 + 5 * 0.0225 + 8 * 0.01 + 4 * 0.1225) / 20 = 0.07125.
    # [0, 10] Elo: s1 = 1 / (1 + 10^-0.025) = 0.514387;
    # LLR = 20 * 0.014387 * (1.3 - 0.5 - 0.514387) / (2 * 0.07125) = 0.576710
    pairs = [1, 2, 5, 8, 4]
    assert sprt.pentanomial_llr(pairs, 0, 10) == pytest.approx(0.576710, abs=5e-5)
    elo, margin = sprt.elo_estimate(pairs)
    assert elo == pytest.approx(107.54, abs=0.01)          # -400 log10(1 / 0.65 - 1)
    # 95% interval of the mean: 0.65 +- 1.96 * sqrt(0.07125 / 20) = 0.65 +- 0.116986
    high, low = gauntlet.elo_from_score(0.766986), gauntlet.elo_from_score(0.533014)
    assert margin == pytest.approx((high - low) / 2, abs=0.05)


def test_pairs_are_less_noisy_than_games_when_openings_decide() -> None:
    # Every opening won by White: each pair scores 1 point. The trinomial count sees 50% with a
    # large variance; the pentanomial count sees no variance at all (regularised: tiny) - and with
    # one extra won pair its LLR moves far more than the trinomial one.
    tally = sprt.Tally()
    for _ in range(30):
        tally.add_pair(1.0, 0.0)
    tally.add_pair(1.0, 0.5)
    assert tally.pairs == [0, 0, 30, 1, 0]
    assert (tally.wins, tally.draws, tally.losses) == (31, 1, 30)
    penta = sprt.pentanomial_llr(tally.pairs, 0, 5)
    tri = sprt.trinomial_llr(tally.losses, tally.draws, tally.wins, 0, 5)
    assert penta > 10 * abs(tri)


def test_all_wins_give_a_finite_positive_llr() -> None:
    value = sprt.pentanomial_llr([0, 0, 0, 0, 12], 0, 5)
    assert math.isfinite(value) and value > 2.95
    assert sprt.decision(value, sprt.sprt_bounds(0.05, 0.05)) == "H1"
    assert sprt.decision(-3.0, sprt.sprt_bounds(0.05, 0.05)) == "H0"
    assert sprt.decision(0.0, sprt.sprt_bounds(0.05, 0.05)) is None
    assert sprt.pentanomial_llr([0] * 5, 0, 5) == 0.0


def test_arguments() -> None:
    with pytest.raises(SystemExit):
        sprt.parse_arguments(["--candidate", "a", "--base", "b", "--elo0", "5", "--elo1", "0"])
    args = sprt.parse_arguments(["--candidate", "a", "--base", "b", "--tc", "5+0.05", "--option", "OwnBook=false"])
    assert (args.base_time, args.inc, args.options) == (5.0, 0.05, [("OwnBook", False)])
    assert args.candidate_options == args.base_options == [("OwnBook", False)]


def test_options_of_one_build_override_the_common_ones() -> None:
    args = sprt.parse_arguments(["--candidate", "a", "--base", "a", "--option", "OwnBook=false", "--option",
                                 "Move Overhead=100", "--candidate-option", "Move Overhead=30",
                                 "--base-option", "Hash=32"])
    assert args.candidate_options == [("OwnBook", False), ("Move Overhead", 30)]
    assert args.base_options == [("OwnBook", False), ("Move Overhead", 100), ("Hash", 32)]
    with pytest.raises(SystemExit):
        sprt.parse_arguments(["--candidate", "a", "--base", "b", "--candidate-option", "Threads"])


def test_short_run_of_ponderosa_against_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "sprt.pgn"
    # The plumbing is under test, not the clock: a loaded machine may stall an engine for a while
    # (the margin is the wall-clock rule's: 0.5 s as written, 2 s in the default run).
    margin_ms = str(int(1000 * allowed(0.5)))
    code = sprt.main(["--candidate", "ponderosa", "--base", "ponderosa", "--option", "OwnBook=false",
                      "--tc", "1+0.02", "--max-games", "2", "--max-plies", "16", "--pgn", str(pgn),
                      "--time-margin", margin_ms])
    out = capsys.readouterr().out
    assert code == 0
    assert "- games 2:" in out and "faults: none" in out
    assert pgn.read_text().count("[Event ") == 2


@pytest.mark.parametrize("key", ["toga2", "ethereal", "crafty", "stockfish11"])
def test_strength_opponents_start(key: str) -> None:
    spec = gauntlet.OPPONENTS[key]
    if shutil.which(gauntlet.resolve_command(spec.command)[0]) is None:
        pytest.skip(f"{spec.command[0]} is not installed")
    player = gauntlet.Player(spec, key)
    try:
        player.start()
        assert player.name.startswith(("Toga", "Ethereal", "Crafty", "Stockfish 11"))
    finally:
        player.close()


def test_a_lucky_first_pair_decides_nothing() -> None:
    """One won pair gives a variance near zero and an LLR past the bound: too few pairs to decide."""
    value = sprt.pentanomial_llr([0, 0, 0, 1, 0], 0, 10)
    bounds = sprt.sprt_bounds(0.05, 0.05)
    assert value > bounds[1]                                   # the approximation alone would accept H1
    assert sprt.decision(value, bounds, pairs=1) is None
    assert sprt.decision(value, bounds, pairs=sprt.MIN_PAIRS) == "H1"


def test_progress_lines_hide_the_llr_before_it_means_anything() -> None:
    value = sprt.pentanomial_llr([0, 0, 0, 1, 0], 0, 10)
    assert "--" in sprt.llr_text(value, 1) and f"{value:.2f}" not in sprt.llr_text(value, 1)
    assert sprt.llr_text(value, sprt.MIN_PAIRS) == f"LLR {value:.2f}"
    assert sprt.llr_text(0.5, 3, min_pairs=2) == "LLR 0.50"


# ---------------------------------------------------------------- resuming an earlier run


def _write_games(path: Path, openings: list[tuple[int, str]], games: list[tuple[int, int, str]]) -> None:
    """A PGN of header-only games: (pair number, game 1 or 2, result), with the OpeningLine that
    the sample puts at the pair, as tools/match/sprt.py writes them."""
    text = []
    for pair, game, result in games:
        line = openings[pair - 1][0] if pair <= len(openings) else 0
        text.append(f'[Event "Ponderosa SPRT"]\n[Round "{pair}.{game}"]\n[White "a"]\n[Black "b"]\n'
                    f'[Result "{result}"]\n[OpeningLine "{line}"]\n\n{result}\n\n')
    path.write_text("".join(text))


def _sample(seed: int, max_games: int = 20000) -> list[tuple[int, str]]:
    return gauntlet.sample_openings(gauntlet.read_openings(gauntlet.DEFAULT_OPENINGS), (max_games + 1) // 2, seed)


def test_candidate_points_of_a_round_and_result() -> None:
    assert sprt.candidate_points("3.1", "1-0") == (2, 1.0)        # pair 3, the candidate White and winning
    assert sprt.candidate_points("3.2", "1-0") == (2, 0.0)        # colours swapped: the base won
    assert sprt.candidate_points("1.2", "1/2-1/2") == (0, 0.5)
    assert sprt.candidate_points("1.2", "*") is None
    for bad_round in ("3", "3.3", "0.1", "x.1"):
        with pytest.raises(ValueError):
            sprt.candidate_points(bad_round, "1-0")
    with pytest.raises(ValueError):
        sprt.candidate_points("1.1", "2-0")


def test_resumed_pairs_keep_complete_pairs_only(tmp_path: Path) -> None:
    openings = _sample(2)
    pgn = tmp_path / "run.pgn"
    _write_games(pgn, openings, [(2, 1, "1-0"), (1, 1, "1/2-1/2"), (2, 2, "1-0"), (1, 2, "0-1"), (3, 1, "0-1")])
    # pair 1: a draw, then the candidate (Black) won; pair 2: won as White, lost as Black; pair 3 unfinished
    assert sprt.resumed_pairs(pgn, openings) == {0: (0.5, 1.0), 1: (1.0, 0.0)}


def test_resume_with_another_seed_names_the_file_and_game(tmp_path: Path) -> None:
    pgn = tmp_path / "run.pgn"
    _write_games(pgn, _sample(2), [(1, 1, "1-0"), (1, 2, "0-1")])
    assert sprt.resumed_pairs(pgn, _sample(2)) == {0: (1.0, 1.0)}
    with pytest.raises(ValueError, match=r"run\.pgn, game 1: OpeningLine .* --seed"):
        sprt.resumed_pairs(pgn, _sample(3))
    _write_games(pgn, _sample(2), [(1, 1, "1-0"), (1, 4, "0-1")])
    with pytest.raises(ValueError, match=r"run\.pgn, game 2: Round '1\.4'"):
        sprt.resumed_pairs(pgn, _sample(2))


def test_a_resumed_run_that_already_decides_plays_nothing(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "run.pgn"
    # 30 pairs: 24 with 3/2 points, 6 with 1: clearly past the upper bound of [0, 10]
    games = [(p, 1, "1-0") for p in range(1, 31)] + [(p, 2, "1/2-1/2" if p <= 24 else "1-0") for p in range(1, 31)]
    _write_games(pgn, _sample(5), games)
    code = sprt.main(["--candidate", "no-such-engine", "--base", "no-such-engine", "--elo0", "0", "--elo1", "10",
                      "--seed", "5", "--resume", str(pgn)])
    out = capsys.readouterr().out
    assert code == 0
    assert "H1 accepted" in out and "- games 60:" in out and "with 30 complete pairs" in out
    assert "faults: none" in out                        # no engine was started


def test_a_resumed_run_plays_the_rest_and_appends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "run.pgn"
    openings = _sample(1, max_games=4)
    _write_games(pgn, openings, [(1, 1, "1-0"), (1, 2, "1/2-1/2")])
    code = sprt.main(["--candidate", "ponderosa", "--base", "ponderosa", "--option", "OwnBook=false",
                      "--tc", "1+0.02", "--max-games", "4", "--max-plies", "16", "--seed", "1",
                      "--resume", str(pgn), "--pgn", str(pgn)])
    out = capsys.readouterr().out
    assert code == 0
    assert "- games 4:" in out and "with 1 complete pair\n" in out
    text = pgn.read_text()
    assert text.count("[Event ") == 4                   # the two old games kept, the second pair added
    assert '[Round "2.1"]' in text and '[Round "2.2"]' in text
    assert sprt.resumed_pairs(pgn, openings).keys() == {0, 1}
