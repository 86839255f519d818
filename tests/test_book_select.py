"""Book-move selection rules: Crafty's flags and weights, Terra's user values and RandomType=1.

Expected probabilities are derived by hand from the rules (with Fractions where it helps), never read
back from the implementation; the seeded draws then check that choose() follows them.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ponderosa.engine.book.select import (
    FLAG_BAD,
    FLAG_GOOD,
    STATUS_BEYOND_WIDTH,
    STATUS_BOOK_LIMIT,
    STATUS_FLAG_BAD,
    STATUS_LEARN_BAD,
    STATUS_MIN_BOOK_GAMES,
    STATUS_NOT_ALWAYS,
    STATUS_NOT_GOOD,
    STATUS_PERCENT_FULL,
    STATUS_PLAYABLE,
    STATUS_SEARCH,
    STATUS_TERRA_AVOID,
    STATUS_USER_NEVER,
    STATUS_USER_SET,
    STATUS_ZERO_WINS,
    BookDecision,
    BookSettings,
    Candidate,
    RankedMove,
    choose,
    rank,
)

TOLERANCE = 0.01  # observed frequency vs probability, absolute (1 percentage point)


def by_move(decision: BookDecision) -> dict[str, RankedMove]:
    """The ranked lines keyed by UCI move."""
    return {line.candidate.move: line for line in decision.ranked}


def draw_counts(decision: BookDecision, draws: int, seed: int) -> Counter[str | None]:
    """How often choose() returns each move (None = no book move) over seeded draws."""
    rng = random.Random(seed)
    return Counter(choose(decision, rng) for _ in range(draws))


def assert_draws_follow(decision: BookDecision, draws: int, seed: int) -> Counter[str | None]:
    """Every move's observed frequency is within TOLERANCE of its computed probability."""
    counts = draw_counts(decision, draws, seed)
    for line in decision.ranked:
        observed = counts[line.candidate.move] / draws
        assert observed == pytest.approx(line.probability, abs=TOLERANCE), line.candidate.move
    return counts


def with_results(move: str, games: int, wins: int, losses: int, **fields: object) -> Candidate:
    """A candidate whose games not won or lost were drawn."""
    return Candidate(move=move, san=move, games=games, wins=wins, losses=losses,
                     draws=games - wins - losses, **fields)  # type: ignore[arg-type]


# --- Terra's worked example (terra-book-and-learning.txt), RandomType=1 -------------------------

def terra_move(move: str, games: int, percent: int, **fields: object) -> Candidate:
    """A move whose fixed score is as near the printed Win% as whole and half points allow."""
    half_points = round(games * 2 * percent / 100)
    wins, draws = divmod(half_points, 2)
    return Candidate(move=move, san=move, games=games, wins=wins, draws=draws,
                     losses=games - wins - draws, **fields)  # type: ignore[arg-type]


TERRA_PRINTED_PERCENT = {"e7e5": 43, "c7c5": 48, "e7e6": 36, "c7c6": 26, "g8f6": 27, "d7d5": 29,
                         "d7d6": 34, "b8c6": 48, "b7b6": 27, "g7g6": 0, "a7a6": 100}
TERRA_EXAMPLE = [
    terra_move("e7e5", 5783, 43, own_games=5, own_score=60.0),
    terra_move("c7c5", 5230, 48, user_value=75),
    terra_move("e7e6", 1329, 36, own_games=1, own_score=0.0),
    terra_move("c7c6", 748, 26),
    terra_move("g8f6", 276, 27, user_value=0),
    terra_move("d7d5", 43, 29, user_value=15),
    terra_move("d7d6", 21, 34),
    terra_move("b8c6", 6, 48, user_value=0),
    terra_move("b7b6", 5, 27),
    terra_move("g7g6", 2, 0),
    terra_move("a7a6", 2, 100),
]
TERRA_SETTINGS = BookSettings(random_mode=2, book_limit=33, min_terra_games=3, terra_limit=40, min_book_games=4)


def test_terra_example_scores_are_the_printed_ones() -> None:
    # Few-game moves cannot hit every percent; each must be within half a point and on the same side of BookLimit.
    for candidate in TERRA_EXAMPLE:
        printed = TERRA_PRINTED_PERCENT[candidate.move]
        assert abs(candidate.score_percent - printed) <= 100 / (2 * candidate.games)
        assert (candidate.score_percent < 33) == (printed < 33)


def test_terra_example_keeps_and_drops_the_same_moves() -> None:
    lines = by_move(rank(TERRA_EXAMPLE, TERRA_SETTINGS))
    statuses = {move: line.status for move, line in lines.items()}
    assert statuses == {
        "e7e5": STATUS_PLAYABLE,       # own results: 5 games >= MinTerraGames, 60% >= TerraLimit
        "c7c5": STATUS_USER_SET,
        "e7e6": STATUS_PLAYABLE,       # 1 own game: by frequency
        "c7c6": STATUS_BOOK_LIMIT,
        "g8f6": STATUS_USER_NEVER,
        "d7d5": STATUS_USER_SET,
        "d7d6": STATUS_PLAYABLE,       # by frequency
        "b8c6": STATUS_USER_NEVER,
        "b7b6": STATUS_BOOK_LIMIT,
        "g7g6": STATUS_MIN_BOOK_GAMES,  # also 0%: MinBookGames is checked first
        "a7a6": STATUS_MIN_BOOK_GAMES,
    }


def test_terra_example_values_follow_the_stated_rules() -> None:
    decision = rank(TERRA_EXAMPLE, TERRA_SETTINGS)
    lines = by_move(decision)
    # Group probability 1 - 0.25 * 0.85, not the document's 63.75%.
    assert decision.user_group_probability == pytest.approx(0.7875)
    # Roulette within the user group over 75 + 15 = 90, not the document's 85.
    assert lines["c7c5"].sort_value + lines["d7d5"].sort_value == pytest.approx(90)
    # Frequencies translated over the frequencies used (e6, d6: 1350), not over all 13445 games.
    assert lines["e7e6"].sort_value == pytest.approx(100 * 1329 / 1350)
    assert lines["d7d6"].sort_value == pytest.approx(100 * 21 / 1350)
    assert lines["e7e5"].sort_value == pytest.approx(60)


def test_terra_example_probabilities_derived_by_hand() -> None:
    user_group = 1 - Fraction(100 - 75, 100) * Fraction(100 - 15, 100)
    other_group = 1 - user_group
    frequency_sum = 1329 + 21
    e6_value = Fraction(100 * 1329, frequency_sum)
    d6_value = Fraction(100 * 21, frequency_sum)
    assert e6_value >= 1 and d6_value >= 1  # the floor of 1 does not apply here
    other_total = 60 + e6_value + d6_value
    expected = {
        "c7c5": user_group * Fraction(75, 75 + 15),
        "d7d5": user_group * Fraction(15, 75 + 15),
        "e7e5": other_group * 60 / other_total,
        "e7e6": other_group * e6_value / other_total,
        "d7d6": other_group * d6_value / other_total,
    }
    assert sum(expected.values()) == 1
    lines = by_move(rank(TERRA_EXAMPLE, TERRA_SETTINGS))
    for move, line in lines.items():
        assert line.probability == pytest.approx(float(expected.get(move, 0)), abs=1e-12), move


def test_terra_example_draws_match_probabilities() -> None:
    decision = rank(TERRA_EXAMPLE, TERRA_SETTINGS)
    counts = assert_draws_follow(decision, 200_000, seed=20040802)
    assert counts[None] == 0
    assert set(counts) == {"c7c5", "d7d5", "e7e5", "e7e6", "d7d6"}


def test_terra_frequency_floor_is_one() -> None:
    moves = [terra_move("e2e4", 10_000, 50), terra_move("g2g3", 5, 50)]
    lines = by_move(rank(moves, TERRA_SETTINGS))
    assert lines["g2g3"].sort_value == 1.0  # 100 * 5 / 10005 = 0.05, raised to 1
    assert lines["e2e4"].sort_value == pytest.approx(100 * 10_000 / 10_005)


def test_terra_avoid_list_below_terra_limit() -> None:
    moves = [terra_move("e2e4", 100, 50, own_games=3, own_score=39.0), terra_move("d2d4", 100, 50)]
    lines = by_move(rank(moves, TERRA_SETTINGS))
    assert lines["e2e4"].status == STATUS_TERRA_AVOID
    assert lines["e2e4"].probability == 0
    assert lines["d2d4"].probability == 1


def test_user_group_takes_all_when_the_other_group_culls_to_nothing() -> None:
    moves = [terra_move("e2e4", 100, 50, user_value=20), terra_move("d2d4", 100, 50, user_value=60),
             terra_move("c2c4", 2, 50)]  # culled by MinBookGames
    decision = rank(moves, TERRA_SETTINGS)
    lines = by_move(decision)
    assert decision.user_group_probability == 1
    assert lines["e2e4"].probability == pytest.approx(20 / 80)
    assert lines["d2d4"].probability == pytest.approx(60 / 80)


# --- Crafty's flags, learning and Terra's user values -------------------------------------------

PLAIN = BookSettings()


def test_good_flag_excludes_unflagged_moves() -> None:
    moves = [with_results("e2e4", 900, 400, 300), with_results("d2d4", 50, 20, 20, flags=FLAG_GOOD),
             with_results("c2c4", 40, 15, 15, flags=FLAG_GOOD)]
    decision = rank(moves, PLAIN)
    lines = by_move(decision)
    assert lines["e2e4"].status == STATUS_NOT_GOOD and lines["e2e4"].probability == 0
    assert lines["d2d4"].probability + lines["c2c4"].probability == pytest.approx(1)
    assert "e2e4" not in draw_counts(decision, 5_000, seed=1)


def test_bad_flag_is_never_chosen() -> None:
    moves = [with_results("e2e4", 9000, 4000, 3000, flags=FLAG_BAD), with_results("d2d4", 50, 20, 20),
             with_results("c2c4", 40, 15, 15)]
    decision = rank(moves, PLAIN)
    assert by_move(decision)["e2e4"].status == STATUS_FLAG_BAD
    counts = draw_counts(decision, 10_000, seed=2)
    assert counts["e2e4"] == 0
    assert counts["d2d4"] + counts["c2c4"] == 10_000


@pytest.mark.parametrize("random_mode", [0, 1, 2])
def test_only_book_move_flagged_bad_means_no_book_move(random_mode: int) -> None:
    decision = rank([with_results("e2e4", 900, 400, 300, flags=FLAG_BAD)], BookSettings(random_mode=random_mode))
    assert all(line.probability == 0 for line in decision.ranked)
    assert decision.search_only == [] and decision.search_probability == 0
    assert choose(decision, random.Random(3)) is None


def test_learned_above_100_acts_as_good_flag() -> None:
    moves = [with_results("e2e4", 900, 400, 300), with_results("b2b3", 5, 2, 2, learn=150.0)]
    lines = by_move(rank(moves, PLAIN))
    assert lines["e2e4"].status == STATUS_NOT_GOOD
    assert lines["b2b3"].probability == 1


def test_learned_below_minus_100_acts_as_bad_flag() -> None:
    moves = [with_results("e2e4", 900, 400, 300, learn=-150.0), with_results("b2b3", 5, 2, 2)]
    lines = by_move(rank(moves, PLAIN))
    assert lines["e2e4"].status == STATUS_LEARN_BAD and lines["e2e4"].probability == 0
    assert lines["b2b3"].probability == 1


def test_bad_flag_outranks_good_flag_and_learning() -> None:
    moves = [with_results("e2e4", 900, 400, 300, flags=FLAG_GOOD | FLAG_BAD, learn=200.0),
             with_results("d2d4", 100, 40, 30)]
    lines = by_move(rank(moves, PLAIN))
    assert lines["e2e4"].probability == 0
    assert lines["d2d4"].probability == 1


def test_user_value_100_is_always_played() -> None:
    moves = [with_results("e2e4", 900, 400, 300, user_value=50), with_results("h2h3", 3, 1, 1, user_value=100),
             with_results("d2d4", 800, 300, 300)]
    decision = rank(moves, BookSettings(random_mode=2))
    lines = by_move(decision)
    assert lines["h2h3"].probability == 1
    assert lines["e2e4"].status == STATUS_NOT_ALWAYS == lines["d2d4"].status
    assert draw_counts(decision, 2_000, seed=4) == Counter({"h2h3": 2_000})


def test_good_flag_is_applied_before_user_values() -> None:
    # Rule 1 comes first: a "!" elsewhere removes even a user value 100 that has no "!".
    moves = [with_results("h2h3", 3, 1, 1, user_value=100), with_results("d2d4", 800, 300, 300, flags=FLAG_GOOD)]
    lines = by_move(rank(moves, PLAIN))
    assert lines["h2h3"].status == STATUS_NOT_GOOD
    assert lines["d2d4"].probability == 1


def test_two_user_values_100_share_evenly() -> None:
    moves = [with_results("e2e4", 900, 400, 300, user_value=100), with_results("d2d4", 3, 1, 1, user_value=100),
             with_results("c2c4", 800, 300, 300)]
    decision = rank(moves, PLAIN)
    assert by_move(decision)["e2e4"].probability == pytest.approx(0.5)
    assert_draws_follow(decision, 40_000, seed=5)


def test_user_group_probability_with_book_random_1() -> None:
    moves = [with_results("e2e4", 900, 400, 300, user_value=40), with_results("d2d4", 800, 300, 300),
             with_results("c2c4", 400, 150, 150)]
    decision = rank(moves, BookSettings(weight_freq=1.0, weight_ratio=0.0, weight_eval=0.0, weight_learn=0.0))
    lines = by_move(decision)
    # P = 1 - 60/100; the other group: d4 maps to 1000 and c4 to 0 on frequency, the only weight.
    assert lines["e2e4"].probability == pytest.approx(0.4)
    assert lines["d2d4"].probability == pytest.approx(0.6)
    assert lines["c2c4"].probability == 0
    assert_draws_follow(decision, 40_000, seed=6)


# --- Crafty "book random 1": weights, zero wins, width, play percentages --------------------------

def test_sort_value_is_the_weighted_sum_of_mapped_parameters() -> None:
    # win ratio (w+5)/(w+l+10): a 7/12, b 1/2, c 6/16 -> mapped 1000, 600, 0.
    moves = [with_results("a2a3", 30, 2, 0, eval=0, learn=0.0),
             with_results("b2b3", 20, 1, 1, eval=20, learn=50.0),
             with_results("c2c3", 10, 1, 5, eval=40, learn=-50.0)]
    weights = BookSettings(weight_freq=1.0, weight_ratio=0.5, weight_eval=0.2, weight_learn=0.4)
    lines = by_move(rank(moves, weights))
    # mapped (freq, ratio, eval, learn): a (1000, 1000, 0, 500), b (500, 600, 500, 1000), c (0, 0, 1000, 0)
    expected = {"a2a3": 1000 + 500 + 0 + 200, "b2b3": 500 + 300 + 100 + 400, "c2c3": 0 + 0 + 200 + 0}
    total = sum(expected.values())
    for move, value in expected.items():
        assert lines[move].sort_value == pytest.approx(value)
        assert lines[move].probability == pytest.approx(value / total)


def test_parameter_without_spread_adds_nothing() -> None:
    moves = [with_results("e2e4", 100, 50, 50), with_results("d2d4", 100, 50, 50, eval=20)]
    lines = by_move(rank(moves, BookSettings(weight_freq=1.0, weight_ratio=0.3, weight_eval=0.1, weight_learn=1.0)))
    # freq, ratio and learn do not differ (0 each); eval maps 0..20 onto 0..1000.
    assert lines["e2e4"].sort_value == pytest.approx(0)
    assert lines["d2d4"].sort_value == pytest.approx(100)
    assert lines["d2d4"].probability == pytest.approx(1.0)
    flat = [with_results("e2e4", 100, 50, 50), with_results("d2d4", 100, 50, 50)]
    flat_lines = by_move(rank(flat, BookSettings()))
    assert flat_lines["e2e4"].probability == pytest.approx(0.5) == flat_lines["d2d4"].probability


def test_width_keeps_the_first_moves_in_sort_order() -> None:
    moves = [with_results(f"{file}2{file}3", games, games // 2, games // 2)
             for file, games in zip("abcdef", [300, 600, 100, 500, 200, 400])]
    weights = BookSettings(width=3, weight_freq=1.0, weight_ratio=0.0, weight_eval=0.0, weight_learn=0.0)
    lines = by_move(rank(moves, weights))
    # Frequency maps 100..600 onto 0..1000: b 1000, d 800, f 600 are the first three.
    kept = {"b2b3": 1000, "d2d3": 800, "f2f3": 600}
    for move, line in lines.items():
        if move in kept:
            assert line.probability == pytest.approx(kept[move] / 2400)
        else:
            assert line.status == STATUS_BEYOND_WIDTH and line.probability == 0


def test_zero_win_moves_are_culled_before_width() -> None:
    moves = [with_results("e2e4", 900, 0, 500), with_results("d2d4", 50, 10, 20), with_results("c2c4", 40, 5, 5)]
    lines = by_move(rank(moves, BookSettings(width=2)))
    assert lines["e2e4"].status == STATUS_ZERO_WINS and lines["e2e4"].probability == 0
    assert lines["d2d4"].probability > 0 and lines["c2c4"].probability > 0


def test_zero_win_cull_spares_good_and_play_percent_moves() -> None:
    good = [with_results("e2e4", 900, 0, 500, flags=FLAG_GOOD), with_results("d2d4", 50, 10, 20, flags=FLAG_GOOD)]
    assert by_move(rank(good, PLAIN))["e2e4"].probability > 0
    percented = [with_results("e2e4", 900, 0, 500, play_percent=20), with_results("d2d4", 50, 10, 20)]
    assert by_move(rank(percented, PLAIN))["e2e4"].probability == pytest.approx(0.2)


def test_polyglot_moves_are_not_culled_for_zero_wins() -> None:
    moves = [Candidate(move="e2e4", games=30, has_results=False),
             Candidate(move="d2d4", games=10, has_results=False, eval=40)]
    lines = by_move(rank(moves, BookSettings(weight_freq=1.0, weight_ratio=0.0, weight_eval=1.0, weight_learn=1.0)))
    # freq maps to 1000 and 0, eval to 0 and 1000, learn (all 0) adds nothing.
    assert lines["e2e4"].probability == pytest.approx(0.5)
    assert lines["d2d4"].probability == pytest.approx(0.5)


def test_play_percentages_are_honoured() -> None:
    moves = [with_results("a2a3", 10, 5, 5, play_percent=30), with_results("b2b3", 20, 10, 10, play_percent=20),
             with_results("c2c4", 300, 150, 150), with_results("d2d4", 100, 50, 50)]
    weights = BookSettings(weight_freq=1.0, weight_ratio=0.3, weight_eval=0.1, weight_learn=1.0)
    decision = rank(moves, weights)
    # Plain moves: ratio, eval and learn do not vary (0 each); frequency over 10..300.
    c4_value = 1000 * (300 - 10) / 290
    d4_value = 1000 * (100 - 10) / 290
    expected = {"a2a3": 0.30, "b2b3": 0.20,
                "c2c4": 0.5 * c4_value / (c4_value + d4_value), "d2d4": 0.5 * d4_value / (c4_value + d4_value)}
    lines = by_move(decision)
    for move, probability in expected.items():
        assert lines[move].probability == pytest.approx(probability)
    assert_draws_follow(decision, 100_000, seed=7)


def test_play_percentages_of_100_or_more_leave_nothing_for_the_rest() -> None:
    moves = [with_results("a2a3", 10, 5, 5, play_percent=60), with_results("b2b3", 20, 10, 10, play_percent=50),
             with_results("c2c4", 300, 150, 150)]
    decision = rank(moves, PLAIN)
    lines = by_move(decision)
    assert lines["c2c4"].status == STATUS_PERCENT_FULL and lines["c2c4"].probability == 0
    assert lines["a2a3"].probability == pytest.approx(60 / 110)
    assert_draws_follow(decision, 50_000, seed=8)


# --- Crafty "book random 0" ---------------------------------------------------------------------

def test_book_random_0_searches_the_playable_moves() -> None:
    moves = [with_results("e2e4", 900, 400, 300), with_results("d2d4", 800, 0, 300),
             with_results("c2c4", 700, 300, 300, flags=FLAG_BAD)]
    decision = rank(moves, BookSettings(random_mode=0))
    assert decision.search_only == ["e2e4", "d2d4"]  # no zero-win cull: the search judges the moves
    assert decision.search_probability == 1
    assert by_move(decision)["e2e4"].status == STATUS_SEARCH
    assert all(line.probability == 0 for line in decision.ranked)
    rng = random.Random(9)
    assert all(choose(decision, rng) is None for _ in range(100))


def test_book_random_0_still_honours_user_values() -> None:
    moves = [with_results("e2e4", 900, 400, 300, user_value=30), with_results("d2d4", 800, 300, 300)]
    decision = rank(moves, BookSettings(random_mode=0))
    assert decision.search_only == ["d2d4"]
    assert by_move(decision)["e2e4"].probability == pytest.approx(0.3)
    assert decision.search_probability == pytest.approx(0.7)
    counts = draw_counts(decision, 20_000, seed=10)
    assert counts[None] / 20_000 == pytest.approx(0.7, abs=TOLERANCE)


def test_unknown_random_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        rank([with_results("e2e4", 10, 5, 5)], BookSettings(random_mode=3))


# --- Properties over any candidate list ---------------------------------------------------------

@st.composite
def candidate_lists(draw: st.DrawFn) -> list[Candidate]:
    """Up to eight distinct moves with arbitrary results, flags, percentages and values."""
    candidates = []
    for index in range(draw(st.integers(0, 8))):
        games = draw(st.integers(0, 500))
        wins = draw(st.integers(0, games))
        draws = draw(st.integers(0, games - wins))
        candidates.append(Candidate(
            move=f"m{index}", games=games, wins=wins, draws=draws, losses=games - wins - draws,
            has_results=draw(st.booleans()),
            flags=draw(st.sampled_from([0, 0, FLAG_GOOD, FLAG_BAD, FLAG_GOOD | FLAG_BAD])),
            play_percent=draw(st.sampled_from([0, 0, 0, 10, 35, 60, 100])),
            learn=draw(st.sampled_from([0.0, 0.0, 80.0, 150.0, -150.0])),
            eval=draw(st.integers(-300, 300)),
            user_value=draw(st.one_of(st.none(), st.none(), st.integers(0, 100))),
            own_games=draw(st.integers(0, 10)),
            own_score=draw(st.floats(0, 100)),
        ))
    return candidates


book_settings = st.builds(
    BookSettings,
    random_mode=st.integers(0, 2), width=st.integers(1, 6),
    weight_freq=st.floats(0, 1), weight_ratio=st.floats(0, 1), weight_eval=st.floats(0, 1),
    weight_learn=st.floats(0, 1), book_limit=st.integers(0, 100), terra_limit=st.integers(0, 100),
    min_book_games=st.integers(0, 10), min_terra_games=st.integers(0, 10),
)


def assert_well_formed(candidates: Sequence[Candidate], decision: BookDecision) -> None:
    """Probabilities are a distribution (with the search share), "?" moves get none, choose() obeys them."""
    probabilities = [line.probability for line in decision.ranked]
    assert sorted(line.candidate.move for line in decision.ranked) == sorted(c.move for c in candidates)
    assert all(0 <= probability <= 1 for probability in probabilities)
    total = sum(probabilities) + decision.search_probability
    if total == 0:
        assert decision.search_only == []
    else:
        assert total == pytest.approx(1, abs=1e-9)
    for line in decision.ranked:
        if line.candidate.flags & FLAG_BAD or line.candidate.user_value == 0:
            assert line.probability == 0
            assert line.candidate.move not in decision.search_only
    possible = {line.candidate.move for line in decision.ranked if line.probability > 0}
    for seed in range(20):
        chosen = choose(decision, random.Random(seed))
        if chosen is None:
            assert sum(probabilities) < 1 - 1e-9
        else:
            assert chosen in possible


@settings(max_examples=400, deadline=None)
@given(candidate_lists(), book_settings)
def test_any_candidates_give_a_well_formed_decision(candidates: list[Candidate], options: BookSettings) -> None:
    assert_well_formed(candidates, rank(candidates, options))
