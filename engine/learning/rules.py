"""Book, result and position learning: the pure rules.

After a game the engine hands in what it saw (its book line, the first searches out of book, the
result, the rating difference) and gets back the learned values to store. No files, boards or
threads here: the engine and the learning store call these functions. The rules follow R. Hyatt's
"Book Learning" paper and Crafty's command documentation; every choice made where they are silent
or disagree with themselves is written down in docs/LEARNING.md.

Points of view: search scores (`SearchSample.score_for_white`) and the value handed to
`back_propagate` are from White's point of view, as Crafty's learning keeps them. Stored learned
values (`LearnedUpdate.value`) are from the point of view of the side that plays the move, which is
what book-move selection compares.
"""
from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from ponderosa.engine.limits import DEMOTE_THRESHOLD, LEARN_ALL
from ponderosa.engine.limits import LEARN_DEFAULT as LEARN_DEFAULT  # everything on, as in Crafty

# Crafty's `learn N` bitmask.
LEARN_BOOK, LEARN_POSITION, LEARN_RESULT = 1, 2, 4
assert LEARN_ALL == LEARN_BOOK | LEARN_POSITION | LEARN_RESULT   # the largest mask (engine/limits.py)

SEARCHES_REMEMBERED = 10  # the first ten searches after leaving the book (paper 2.3)

# Crafty's documentation: a learned value above +100 acts like "!", below -100 like "?".
PROMOTE_THRESHOLD, CRAFTY_DEMOTE_THRESHOLD = 100, -100
# DEMOTE_THRESHOLD (the paper's -80) and its range: engine/limits.py, which the protocols'
# handshake reads before the engine loads.

# The largest value learn_function can give is 600 * 0.35 * 19 = 3990 centipawns (capped score,
# largest multiplier, deepest counted search). The result-learning value is far beyond it, so that
# averaging it with even the best possible later value keeps it far below the lowest threshold
# a user can set ((-10000 + 3990) / 2 = -3005 < -1000), and far beyond AGING_FLOOR, so aging never
# revives it.
# It also fits a signed 16-bit field, should the store keep learned values that way.
RESULT_LEARNED_VALUE = -10000

# first_approximation: a change between two successive searches smaller than this (in either
# direction) is search noise, not a slope. A tenth of a pawn is the usual iteration-to-iteration
# jitter of a score in a quiet position.
SLOPE_NOISE_MARGIN = 10

# aged(): values in [AGING_FLOOR, 0) are "sort of bad" and are multiplied by AGING_FACTOR each time
# the move is skipped; anything below AGING_FLOOR (more than two pawns: material is lost) is "really
# bad" and never ages. From the floor a move becomes playable again (>= DEMOTE_THRESHOLD, -80)
# after 18 skips (0.95**18 < 0.4), slow enough that a move just learned to be bad is not retried
# at once.
AGING_FLOOR = -200
AGING_FACTOR = 0.95

# position_learning_candidates: a drop of a third of a pawn between successive searches is the
# trigger Crafty's early source used (PAWN_VALUE / 3); smaller changes are search noise.
POSITION_LEARN_DROP = 33

# postbook_worth_adding: "favourable" means at least half a pawn for the engine, both in the book
# learned value and in the last of the searches whose moves would be added.
POSTBOOK_MIN_ADVANTAGE = 50

# Figure 2.1's tables. The C arrays are `float`, so each entry is the 32-bit float nearest the
# printed decimal; the untrusted initialiser lists ten values for eleven slots and C sets the
# eleventh to 0.
_FIGURE_TRUSTED = (.00625, .0125, .025, .05, .075, .1, 0.15, 0.2, 0.25, 0.3, 0.35)
_FIGURE_UNTRUSTED = (.25, .2, .15, .1, .05, .025, .012, .006, .003, .001, 0.0)
_MAX_COUNTED_DEPTH = 19
_SCORE_CAP = 600
_RATING_CLASS = 200
_MAX_RATING_CLASSES = 5


def _float32(value: float) -> float:
    """The value rounded to a C `float` (IEEE single precision)."""
    return struct.unpack("f", struct.pack("f", value))[0]


_TRUSTED_MULTIPLIERS = tuple(_float32(entry) for entry in _FIGURE_TRUSTED)
_UNTRUSTED_MULTIPLIERS = tuple(_float32(entry) for entry in _FIGURE_UNTRUSTED)


def _c_int_divide(numerator: int, denominator: int) -> int:
    """C integer division: the quotient truncated toward zero (Python's // floors)."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def learning_enabled(learn_mask: int, kind: int) -> bool:
    """Whether `learn N` switches on the learning `kind` (LEARN_BOOK, LEARN_POSITION or LEARN_RESULT)."""
    return bool(learn_mask & kind)


def learn_function(search_value: int, search_depth: int, rating_difference: int, trusted: bool) -> int:
    """Figure 2.1 (LearnFunction) with C semantics.

    `rating_difference` is the engine's rating minus the opponent's. Integer division truncates
    toward zero, the multipliers are 32-bit floats, and the float product is truncated to an int on
    return, as the C code does. One deliberate difference: the depth is clamped to 0..19 as the
    paper's text states; the printed code only caps it at 19 (a negative depth would flip the sign).
    """
    depth = max(0, min(search_depth, _MAX_COUNTED_DEPTH))
    rating_class = max(min(_c_int_divide(rating_difference, _RATING_CLASS), _MAX_RATING_CLASSES),
                       -_MAX_RATING_CLASSES) + _MAX_RATING_CLASSES
    table = _TRUSTED_MULTIPLIERS if trusted else _UNTRUSTED_MULTIPLIERS
    # float * int in C: the int becomes a float and the product is rounded to float.
    multiplier = _float32(table[rating_class] * float(depth))
    capped_value = max(min(search_value, _SCORE_CAP), -_SCORE_CAP)
    return int(_float32(float(capped_value) * multiplier))  # int() truncates toward zero, like C


def is_trusted(score_for_white: int, engine_is_white: bool) -> bool:
    """Figure 2.1's comment: a score bad for the engine is trusted (White and < 0, or Black and > 0)."""
    return score_for_white < 0 if engine_is_white else score_for_white > 0


@dataclass(frozen=True)
class SearchSample:
    """One of the first searches after leaving the book."""

    score_for_white: int  # centipawns, White's point of view (as Crafty's learning keeps it)
    depth: int            # iterations completed (plies)


def _slope_signs(values: Sequence[int]) -> list[int]:
    """+1 / -1 / 0 for each step between successive values; steps within the noise margin are 0."""
    signs = []
    for earlier, later in zip(values, values[1:]):
        change = later - earlier
        signs.append(1 if change > SLOPE_NOISE_MARGIN else -1 if change < -SLOPE_NOISE_MARGIN else 0)
    return signs


def first_approximation(samples: Sequence[SearchSample]) -> SearchSample:
    """The search whose value is the first approximation of the learned value (paper 2.3).

    Only the first SEARCHES_REMEMBERED samples count. Each step between successive searches is
    rising, falling or flat (a change within SLOPE_NOISE_MARGIN). If no step rises or none falls
    (steady decline, steady rise, flat) the last search is chosen. Otherwise the slope settles at the
    sample where the last step against the final direction ends (the final peak or trough); from
    that sample on, the lowest value is chosen if the final direction is falling (gambit accepted:
    the worst value after the peak) and the highest if rising (gambit offered: the best value after
    the trough), the later one on a tie. The rule is symmetric, so White's point of view serves
    for either colour.
    """
    remembered = list(samples[:SEARCHES_REMEMBERED])
    if not remembered:
        raise ValueError("first_approximation needs at least one search")
    signs = _slope_signs([sample.score_for_white for sample in remembered])
    moving = [sign for sign in signs if sign != 0]
    if not moving:
        return remembered[-1]
    final_direction = moving[-1]
    against = [step for step, sign in enumerate(signs) if sign == -final_direction]
    if not against:
        return remembered[-1]
    settled = remembered[against[-1] + 1:]
    chosen = settled[0]
    for sample in settled[1:]:
        if (sample.score_for_white - chosen.score_for_white) * final_direction >= 0:
            chosen = sample
    return chosen


def book_learned_value(samples: Sequence[SearchSample], engine_is_white: bool, rating_difference: int) -> int:
    """The learned value of a game's book line, White's point of view: figure 2.1 applied to the
    first approximation, trusted when it is bad for the engine."""
    key_search = first_approximation(samples)
    trusted = is_trusted(key_search.score_for_white, engine_is_white)
    return learn_function(key_search.score_for_white, key_search.depth, rating_difference, trusted)


@dataclass(frozen=True)
class BookStep:
    """One book move of the game, in game order."""

    key: int             # position key before the move
    move: str            # UCI
    white_to_move: bool  # whose move it is
    # Playable book moves in that position when the move was chosen (>= 1): not "?"-flagged and a
    # learned value not below the threshold (see is_playable).
    playable: int


@dataclass(frozen=True)
class LearnedUpdate:
    """A learned value to combine (see `averaged`) into what the store holds for key and move."""

    key: int
    move: str
    value: float  # centipawns from the point of view of the side that plays the move


def is_playable(learned_value: float | None, flagged_bad: bool = False, threshold: float = DEMOTE_THRESHOLD) -> bool:
    """A book move counts as playable unless it is "?"-flagged or learned to be worse than the
    threshold (the setting; DEMOTE_THRESHOLD, -80, unless changed)."""
    return not flagged_bad and (learned_value is None or learned_value >= threshold)


def back_propagate(line: Sequence[BookStep], learned_value_for_white: float) -> list[LearnedUpdate]:
    """Section 3: the learned value applied back along the book line.

    LV starts as the learned value and the line is walked from its last book move to its first.
    Each move stores LV, turned to the mover's point of view (negated at Black's moves), and then LV
    is divided by the number of playable moves there, so a choice point passes only its share of
    the value to the moves before it. Updates are returned last move first.
    """
    updates = []
    value = float(learned_value_for_white)
    for step in reversed(line):
        if step.playable < 1:
            raise ValueError(f"book move {step.move} was played, so its position had a playable move")
        updates.append(LearnedUpdate(step.key, step.move, value if step.white_to_move else -value))
        value /= step.playable
    return updates


def averaged(old_value: float | None, new_value: float) -> float:
    """A new learned value is averaged with what was learned there before (paper 5.1); the first
    value learned for a move is taken as it is."""
    if old_value is None:
        return new_value
    return (old_value + new_value) / 2


def result_learning_step(line: Sequence[BookStep], engine_is_white: bool) -> BookStep | None:
    """Section 2.1: after a loss, the last of the engine's own book moves where it had a choice
    (more than one playable move). That move gets RESULT_LEARNED_VALUE, i.e. is never played again.
    None if the engine never had a choice."""
    for step in reversed(line):
        if step.white_to_move == engine_is_white and step.playable > 1:
            return step
    return None


def result_learning_update(line: Sequence[BookStep], engine_is_white: bool) -> LearnedUpdate | None:
    """The update result learning makes after a loss. It is a flag, not a measurement: the store
    sets it in place of the old value rather than averaging it in."""
    step = result_learning_step(line, engine_is_white)
    if step is None:
        return None
    return LearnedUpdate(step.key, step.move, float(RESULT_LEARNED_VALUE))


def aged(value: float) -> float:
    """Section 6.4 (optional aging), applied each time a move is skipped: a value in
    [AGING_FLOOR, 0) moves toward zero by AGING_FACTOR; a value below AGING_FLOOR (material lost)
    never ages, and a value >= 0 needs no second chance and is left alone."""
    if AGING_FLOOR <= value < 0:
        return value * AGING_FACTOR
    return value


def position_learning_candidates(samples: Sequence[tuple[int, SearchSample]], drop: int = POSITION_LEARN_DROP,
                                 *, engine_is_white: bool) -> list[int]:
    """Position learning (paper section 7, Crafty's documentation): among the first
    SEARCHES_REMEMBERED searches out of book, given as (position key, sample), the indices whose
    value for the engine fell by at least `drop` centipawns below the previous search's.

    `engine_is_white` is needed because the samples are from White's point of view and a drop is
    measured from the engine's.
    """
    if drop <= 0:
        raise ValueError("a drop must be a positive number of centipawns")
    sign = 1 if engine_is_white else -1
    remembered = samples[:SEARCHES_REMEMBERED]
    candidates = []
    for index in range(1, len(remembered)):
        previous = sign * remembered[index - 1][1].score_for_white
        current = sign * remembered[index][1].score_for_white
        if previous - current >= drop:
            candidates.append(index)
    return candidates


def postbook_worth_adding(first_out_of_book: Sequence[SearchSample], learned_value_for_engine: float,
                          engine_lost: bool, *, engine_is_white: bool) -> bool:
    """Paper section 8 / Terra's PostBook: add the first moves out of book to the book only when the
    game was not lost, the book learned value is at least POSTBOOK_MIN_ADVANTAGE for the engine (the
    position out of book proved favourable), and the last of the given searches (where the moves to
    be added lead) is at least POSTBOOK_MIN_ADVANTAGE for the engine too. Only the first
    SEARCHES_REMEMBERED searches are looked at.
    """
    remembered = first_out_of_book[:SEARCHES_REMEMBERED]
    if engine_lost or not remembered:
        return False
    last_for_engine = remembered[-1].score_for_white * (1 if engine_is_white else -1)
    return learned_value_for_engine >= POSTBOOK_MIN_ADVANTAGE and last_for_engine >= POSTBOOK_MIN_ADVANTAGE

