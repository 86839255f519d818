"""Book-move selection: which of a position's book moves may be played, and with what probability.

Pure rules, no I/O: the book store hands in `Candidate` records, `rank` applies Crafty's flags,
Terra's user-set values and one of three selection modes, and `choose` draws a move. The order of
the rules and every choice made where the sources are silent are written down in
docs/BOOK_SELECTION.md.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ponderosa.engine.limits import DEFAULT_BOOK_RANDOM, DEFAULT_BOOK_WIDTH, DEMOTE_THRESHOLD

FLAG_GOOD = 1   # Crafty's "!"
FLAG_BAD = 2    # Crafty's "?"

LEARN_PROMOTE = 100     # a learned value above this wins material at once: treated like "!"
# A learned value below BookSettings.learn_threshold (default DEMOTE_THRESHOLD, -80) is treated like "?".
USER_NEVER = 0          # Terra's "?" (bookeval ?)
USER_ALWAYS = 100       # Terra's "!!" (bookeval !!)
RATIO_PRIOR_GAMES = 10   # win ratio: as if every move had also won 5 and lost 5 more games
MAPPED_RANGE = 1000.0   # Crafty maps each weighting parameter onto 0..1000

RANDOM_SEARCH = 0       # Crafty "book random 0": search among the book moves
RANDOM_WEIGHTED = 1     # Crafty "book random 1": weighted random draw
assert DEFAULT_BOOK_RANDOM == RANDOM_WEIGHTED
RANDOM_TERRA = 2        # Terra RandomType=1: own Win% or translated frequency, roulette wheel

# Which draw a ranked move takes part in.
GROUP_NONE = ""         # never chosen
GROUP_USER = "user"     # Terra's user-set group (roulette over user values)
GROUP_BOOK = "book"     # the other group, drawn by random_mode 1 or 2
GROUP_SEARCH = "search"  # the other group under random_mode 0: the engine searches these

STATUS_PLAYABLE = "playable"
STATUS_USER_SET = "user-set"
STATUS_SEARCH = "search only (book random 0)"
STATUS_FLAG_BAD = "flag ?"
STATUS_LEARN_BAD = "learned < threshold"
STATUS_USER_NEVER = "never (user value 0)"
STATUS_NOT_GOOD = "not ! (a ! move exists)"
STATUS_NOT_ALWAYS = "not 100 (a user value 100 exists)"
STATUS_ZERO_WINS = "zero wins"
STATUS_BEYOND_WIDTH = "beyond width"
STATUS_PERCENT_FULL = "play % of others sum to 100"
STATUS_ZERO_VALUE = "sort value 0"
STATUS_MIN_BOOK_GAMES = "MinBookGames"
STATUS_BOOK_LIMIT = "BookLimit"
STATUS_TERRA_AVOID = "TerraLimit (avoid list)"


@dataclass(frozen=True)
class Candidate:
    """One book move with everything the selection rules look at."""

    move: str                 # UCI, e.g. "e2e4"
    san: str = ""             # for display
    games: int = 0            # fixed values from the book: games with this move
    wins: int = 0             # from the point of view of the side playing the move
    draws: int = 0
    losses: int = 0
    has_results: bool = True  # False for Polyglot books (weight only: games=weight, no W/D/L)
    flags: int = 0            # FLAG_GOOD / FLAG_BAD, merged from the large book and the start book
    play_percent: int = 0     # Crafty's {play nn%}; 0 = none
    learn: float = 0.0        # learned value in centipawns
    eval: int = 0             # static evaluation after the move, centipawns, from the mover's side
    user_value: int | None = None   # Terra's user-set value 0..100 (bookeval); None = not set
    own_games: int = 0        # Terra's dynamic values: the engine's own games with this move
    own_score: float = 0.0    # and its score percent in them (0..100)

    @property
    def score_percent(self) -> float:
        """Fixed-value score of the mover in percent; 0 without games."""
        if self.games <= 0:
            return 0.0
        return (self.wins + self.draws / 2) / self.games * 100

    @property
    def win_ratio(self) -> float:
        """Share of decisive games won, with RATIO_PRIOR_GAMES decisive games split evenly added,
        so that a move won three times out of three does not outrank a move tried thousands of times."""
        if not self.has_results:
            return 0.5
        return (self.wins + RATIO_PRIOR_GAMES / 2) / (self.wins + self.losses + RATIO_PRIOR_GAMES)

    @property
    def is_good(self) -> bool:
        """Crafty's "!" by flag or by a learned value above +100."""
        return bool(self.flags & FLAG_GOOD) or self.learn > LEARN_PROMOTE


@dataclass
class BookSettings:
    """The console-settable knobs of book selection (see docs/BOOK_SELECTION.md for the commands)."""

    random_mode: int = DEFAULT_BOOK_RANDOM
    width: int = DEFAULT_BOOK_WIDTH          # Crafty "book width"
    weight_freq: float = 1.0  # Crafty "bookw freq|ratio|eval|learn" (0..1)
    # Every term is mapped onto 0..1000 between its minimum and maximum, so a rarely played move
    # with the best ratio or evaluation gets the full 1000 there: small weights keep frequency
    # (what masters play) in charge of the draw.
    weight_ratio: float = 0.1
    weight_eval: float = 0.05
    weight_learn: float = 1.0
    book_limit: int = 33      # Terra BookLimit (minimum fixed score %)
    terra_limit: int = 40     # Terra TerraLimit (minimum own score %)
    min_book_games: int = 4   # Terra MinBookGames
    min_terra_games: int = 3  # Terra MinTerraGames
    # Learned below this (centipawns): not playable, like "?" (`learn threshold N`); the paper's -80.
    learn_threshold: int = DEMOTE_THRESHOLD


@dataclass(frozen=True)
class RankedMove:
    """One line of "show book" / XBoard "bk"."""

    candidate: Candidate
    sort_value: float         # the value the random draw uses (0 if not playable)
    probability: float        # exact probability of being chosen by choose()
    status: str               # short reason, one of the STATUS_* strings
    group: str = GROUP_NONE   # which draw the move takes part in


@dataclass(frozen=True)
class BookDecision:
    """Every candidate ranked, plus what choose() needs to draw.

    sum(probability) + search_probability is 1 when anything is playable, else everything is 0.
    """

    ranked: list[RankedMove]   # playable moves first (most probable first), then the rest
    search_only: list[str]     # random_mode 0: the moves to search among (empty otherwise)
    user_group_probability: float = 0.0  # chance the user-set group is drawn from
    search_probability: float = 0.0      # random_mode 0: chance choose() leaves it to a search
    # Moves left after rule 1 (not "?" by flag, learned value or user value 0): the "playable"
    # moves of book learning, as they were when this decision was made. None when the decision
    # does not come from the rules (the PostBook's).
    playable: int | None = None


@dataclass
class _Entry:
    """A candidate while the rules are applied to it."""

    candidate: Candidate
    index: int
    status: str = STATUS_PLAYABLE
    group: str = GROUP_NONE
    value: float = 0.0
    probability: float = 0.0


def _user_value(candidate: Candidate) -> int | None:
    """The user value clamped to 0..100, or None when unset."""
    if candidate.user_value is None:
        return None
    return max(USER_NEVER, min(USER_ALWAYS, candidate.user_value))


def _apply_flags(entries: list[_Entry], learn_threshold: float) -> list[_Entry]:
    """Rule 1: drop "?" moves (flag, learned below the threshold, user value 0); keep only "!"
    moves if any exist."""
    kept: list[_Entry] = []
    for entry in entries:
        candidate = entry.candidate
        if candidate.flags & FLAG_BAD:
            entry.status = STATUS_FLAG_BAD
        elif candidate.learn < learn_threshold:
            entry.status = STATUS_LEARN_BAD
        elif _user_value(candidate) == USER_NEVER:
            entry.status = STATUS_USER_NEVER
        else:
            kept.append(entry)
    good = [entry for entry in kept if entry.candidate.is_good]
    if not good:
        return kept
    for entry in kept:
        if not entry.candidate.is_good:
            entry.status = STATUS_NOT_GOOD
    return good


def _mapped(values: list[float]) -> list[float]:
    """Crafty's linear map of one parameter onto 0..1000. A parameter that does not differ
    between the moves tells nothing, so it adds nothing (all 0): giving it 1000 would lift every
    move by the same amount and flatten the draw towards the rarely played moves."""
    low, high = min(values), max(values)
    if high == low:
        return [0.0] * len(values)
    return [(value - low) / (high - low) * MAPPED_RANGE for value in values]


def _weighted_values(entries: list[_Entry], settings: BookSettings) -> None:
    """Rule 3, book random 1: weighted sort values, zero-win cull, width, play-percent folding."""
    parameters = [
        (settings.weight_freq, [float(entry.candidate.games) for entry in entries]),
        (settings.weight_ratio, [entry.candidate.win_ratio for entry in entries]),
        (settings.weight_eval, [float(entry.candidate.eval) for entry in entries]),
        (settings.weight_learn, [float(entry.candidate.learn) for entry in entries]),
    ]
    for weight, values in parameters:
        for entry, mapped in zip(entries, _mapped(values)):
            entry.value += weight * mapped

    def percent(entry: _Entry) -> int:
        return max(0, entry.candidate.play_percent)

    ordered = sorted(entries, key=lambda entry: (-percent(entry), -entry.value, entry.index))
    survivors: list[_Entry] = []
    for entry in ordered:
        candidate = entry.candidate
        # A zero-win move is a line someone lost quickly; a "!" or a play percentage overrules that.
        if candidate.has_results and candidate.wins == 0 and not candidate.is_good and percent(entry) == 0:
            entry.status = STATUS_ZERO_WINS
            entry.value = 0.0
        else:
            survivors.append(entry)
    width = max(1, settings.width)
    for entry in survivors[width:]:
        entry.status = STATUS_BEYOND_WIDTH
        entry.value = 0.0
    kept = survivors[:width]

    percented = [entry for entry in kept if percent(entry) > 0]
    plain = [entry for entry in kept if percent(entry) == 0]
    plain_sum = sum(entry.value for entry in plain)
    percent_sum = sum(percent(entry) for entry in percented)
    if percented:
        if plain and plain_sum > 0 and percent_sum < 100:
            # Give each percented move p/(100-P) of the plain moves' total: it then comes up p% of the time.
            for entry in percented:
                entry.value = percent(entry) * plain_sum / (100 - percent_sum)
        else:
            # No room left for the plain moves (or nothing to scale by): the percentages share it all.
            for entry in plain:
                if percent_sum >= 100:
                    entry.status = STATUS_PERCENT_FULL
                entry.value = 0.0
            for entry in percented:
                entry.value = float(percent(entry))
    if kept and all(entry.value <= 0 for entry in kept):
        # Every weight zero (or every parameter at its minimum): nothing prefers one move, so draw evenly.
        for entry in kept:
            entry.value = 1.0
    for entry in kept:
        if entry.value > 0:
            entry.group = GROUP_BOOK
        elif entry.status == STATUS_PLAYABLE:
            entry.status = STATUS_ZERO_VALUE


def _terra_values(entries: list[_Entry], settings: BookSettings) -> None:
    """Rule 3, Terra RandomType=1: own Win% where there are enough own games, else translated frequency."""
    by_frequency: list[_Entry] = []
    for entry in entries:
        candidate = entry.candidate
        if candidate.games < settings.min_book_games:
            entry.status = STATUS_MIN_BOOK_GAMES
        elif candidate.has_results and candidate.score_percent < settings.book_limit:
            entry.status = STATUS_BOOK_LIMIT
        elif candidate.own_games > 0 and candidate.own_games >= settings.min_terra_games:
            if candidate.own_score < settings.terra_limit:
                entry.status = STATUS_TERRA_AVOID
            else:
                entry.value = candidate.own_score
        else:
            by_frequency.append(entry)
    frequency_sum = sum(entry.candidate.games for entry in by_frequency)
    for entry in by_frequency:
        translated = 100 * entry.candidate.games / frequency_sum if frequency_sum > 0 else 0.0
        entry.value = max(1.0, translated)  # Terra: "0.2 (1 will be used)"
    for entry in entries:
        if entry.status != STATUS_PLAYABLE:
            continue
        if entry.value > 0:
            entry.group = GROUP_BOOK
        else:
            entry.status = STATUS_ZERO_VALUE


def _user_group_probability(user_values: list[int]) -> float:
    """Terra's P = 1 - prod((100 - v) / 100): the chance the user-set group is drawn from."""
    return 1.0 - math.prod((USER_ALWAYS - value) / USER_ALWAYS for value in user_values)


def _share_out(members: list[_Entry], group_probability: float) -> None:
    """Split a group's probability over its members in proportion to their values (roulette wheel)."""
    total = sum(entry.value for entry in members)
    for entry in members:
        entry.probability = group_probability * entry.value / total


def rank(candidates: Sequence[Candidate], settings: BookSettings) -> BookDecision:
    """Apply the rules to a position's book moves: reasons, draw values and exact probabilities."""
    if settings.random_mode not in (RANDOM_SEARCH, RANDOM_WEIGHTED, RANDOM_TERRA):
        raise ValueError(f"book random must be 0, 1 or 2, not {settings.random_mode}")
    entries = [_Entry(candidate, index) for index, candidate in enumerate(candidates)]
    allowed = _apply_flags(entries, settings.learn_threshold)

    user_entries = [entry for entry in allowed if _user_value(entry.candidate) is not None]
    other_entries = [entry for entry in allowed if _user_value(entry.candidate) is None]
    always = [entry for entry in user_entries if _user_value(entry.candidate) == USER_ALWAYS]
    if always:
        always_indexes = {entry.index for entry in always}
        for entry in allowed:
            if entry.index not in always_indexes:
                entry.status = STATUS_NOT_ALWAYS
        user_entries, other_entries = always, []
    for entry in user_entries:
        entry.status = STATUS_USER_SET
        entry.group = GROUP_USER
        entry.value = float(_user_value(entry.candidate) or 0)

    search_only: list[str] = []
    if other_entries:
        if settings.random_mode == RANDOM_SEARCH:
            for entry in other_entries:
                entry.status = STATUS_SEARCH
                entry.group = GROUP_SEARCH
            search_only = [entry.candidate.move for entry in other_entries]
        elif settings.random_mode == RANDOM_TERRA:
            _terra_values(other_entries, settings)
        else:
            _weighted_values(other_entries, settings)
    book_members = [entry for entry in other_entries if entry.group == GROUP_BOOK]
    other_side_live = bool(book_members or search_only)

    if not user_entries:
        user_probability = 0.0
    elif not other_side_live:
        user_probability = 1.0
    else:
        user_probability = _user_group_probability([int(entry.value) for entry in user_entries])
    if user_entries:
        _share_out(user_entries, user_probability)
    if book_members:
        _share_out(book_members, 1.0 - user_probability)
    search_probability = 1.0 - user_probability if search_only else 0.0

    for entry in entries:
        if entry.group in (GROUP_NONE, GROUP_SEARCH):
            entry.value = 0.0
            entry.probability = 0.0
    ordered = sorted(
        entries,
        key=lambda entry: (entry.group == GROUP_NONE, -entry.probability, -entry.value,
                           -entry.candidate.games, entry.index),
    )
    ranked = [RankedMove(entry.candidate, entry.value, entry.probability, entry.status, entry.group)
              for entry in ordered]
    return BookDecision(ranked, search_only, user_probability, search_probability, len(allowed))


def _roulette(members: list[RankedMove], rng: random.Random) -> str:
    """Terra's roulette wheel / Crafty's weighted draw: a point on the total, walked to its move."""
    total = sum(member.sort_value for member in members)
    point = rng.random() * total
    running = 0.0
    for member in members:
        running += member.sort_value
        if point < running:
            return member.candidate.move
    # Rounding can leave the point a hair past the last running total.
    return [member for member in members if member.sort_value > 0][-1].candidate.move


def choose(decision: BookDecision, rng: random.Random) -> str | None:
    """Draw a book move by the rules: first the group, then a move by its value.

    None means no book move from the draw: search normally, or under book random 0 search among
    decision.search_only with a shortened time and play the best.
    """
    user_group = [move for move in decision.ranked if move.group == GROUP_USER]
    book_group = [move for move in decision.ranked if move.group == GROUP_BOOK]
    if user_group and rng.random() < decision.user_group_probability:
        return _roulette(user_group, rng)
    if book_group:
        return _roulette(book_group, rng)
    return None
