"""Chess-server (ICS) policy: opponent lists, what to say and when, draws, resignation and the
lag allowance. Pure functions over plain values, so that every rule has a table test; the
XBoard and console layers only wire commands to them and write the lines they return.

Crafty's server behaviour is the model (its `list`, `whisper`/`kibitz`, `noise`, `resign`,
`draw` and `computer` commands): it resigns sooner against masters, treats a draw as 0.00
against computers and plays a narrower book against them."""
from __future__ import annotations

import dataclasses
import logging
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ponderosa.engine.book.select import BookSettings

log = logging.getLogger("ponderosa.ics")

LIST_NAMES = ("GM", "IM", "C", "AK", "B", "S")
LIST_MEANINGS = {
    "GM": "grandmasters: resign sooner, never offer them a draw in a won position",
    "IM": "international masters: resign sooner, never offer them a draw in a won position",
    "C": "computers: draw score 0, draws accepted in equal positions, a narrower book",
    "AK": "auto-kibitz: kibitz at the AK level against them",
    "B": "blocked: abort the game and +noplay them; nothing is written to them",
    "S": "special scoring: a draw score of their own (list S +name=CENTIPAWNS)",
}
LISTS_FILE_NAME = ".ponderosa-lists"
HANDLE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,19}\Z")   # an ICS login name (FICS: letters, 3..17)
MAX_LOGGED_TEXT = 120                 # how much of a bad server line a log line repeats

DEFAULT_RESIGN_PAWNS = 9              # Crafty on ICC: resign 9 ...
DEFAULT_RESIGN_SEARCHES = 4           # ... after 4 searches in a row below it
MASTER_RESIGN_PAWNS = {"GM": 3, "IM": 6}   # Crafty's figures for titled players
MASTER_RESIGN_SEARCHES = 3
DEFAULT_LAG_SECONDS = 0.3             # network lag charged to the engine's clock for each move
DRAW_MARGIN = 25                      # centipawns around the draw score that count as "equal"
DRAW_ACCEPT_MIN_MOVES = 25            # an equal position is drawn only after this many moves
DRAW_OFFER_MIN_MOVES = 50             # offers start in long games...
DRAW_OFFER_MAX_PIECES = 6             # ...of endgames (pieces besides kings and pawns)...
DRAW_OFFER_SEARCHES = 5               # ...that stayed equal for this many searches
DRAW_OFFER_EVERY = 10                 # and not again within this many moves
COMPUTER_BOOK_WIDTH = 2               # Crafty's book width against computers
COMPUTER_BOOK_RATIO_WEIGHT = 0.5      # and the win ratio counts more (tested moves over fashion)
RATING_STEP = 200                     # rating difference per CONTEMPT_PER_STEP of draw score
CONTEMPT_PER_STEP = 10
MAX_RATING_CONTEMPT = 50
MIN_RATING_DIFFERENCE = 100           # closer ratings than this change nothing
CHATTER_INTERVAL = 1.0                # levels 5-6: at most one line a second
MAX_TELL_LENGTH = 400                 # servers cut longer lines


class ListsFileError(ValueError):
    """A broken lists file; the message names the file and the line."""


# ----------------------------------------------------------------------------- lists

def empty_lists() -> dict[str, dict[str, int | None]]:
    """Each list: lowercased name -> None (or the S list's draw score)."""
    return {name: {} for name in LIST_NAMES}


def apply_list_command(lists: dict[str, dict[str, int | None]], words: list[str]) -> str:
    """`list GM|IM|C|AK|B|S +name -name ...` (S: +name=CENTIPAWNS); changes lists in place and
    returns the list's name. Raises ValueError with a usage message for anything else."""
    if not words or words[0].upper() not in LIST_NAMES:
        raise ValueError(f"usage: list {'|'.join(LIST_NAMES)} +name -name ...")
    which = words[0].upper()
    for word in words[1:]:
        sign, rest = word[:1], word[1:]
        name, _, value = rest.partition("=")
        if sign not in "+-" or not HANDLE.match(name):
            raise ValueError(f"bad list entry {word!r}: use +name to add, -name to remove")
        if sign == "-":
            lists[which].pop(name.lower(), None)
            continue
        if value and (which != "S" or not re.fullmatch(r"-?[0-9]{1,4}", value)):
            raise ValueError(f"bad list entry {word!r}: only S takes +name=CENTIPAWNS")
        lists[which][name.lower()] = int(value) if value else (0 if which == "S" else None)
    return which


def lists_text(lists: dict[str, dict[str, int | None]]) -> str:
    """The lists as console commands, one `list` line per list: the file format."""
    lines = ["# Ponderosa's opponent lists (list GM|IM|C|AK|B|S +name); written by the engine"]
    for which in LIST_NAMES:
        entries = [f"+{name}" if value is None or which != "S" else f"+{name}={value}"
                   for name, value in sorted(lists[which].items())]
        if entries:
            lines.append(f"list {which} {' '.join(entries)}")
    return "\n".join(lines) + "\n"


def parse_lists(text: str, path: str) -> dict[str, dict[str, int | None]]:
    """Read a lists file (lines of `list ...`, `#` comments); ListsFileError names file and line."""
    lists = empty_lists()
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0].lower() != "list":
            raise ListsFileError(f"{path}:{number}: expected `list NAME +name ...`, got {line.strip()[:60]!r}")
        try:
            apply_list_command(lists, words[1:])
        except ValueError as error:
            raise ListsFileError(f"{path}:{number}: {error}") from None
    return lists


def lists_path(folders: tuple[Path, ...] | None = None) -> Path:
    """Where the lists live: beside .ponderosarc (working directory, else home), else the
    working directory."""
    folders = folders or (Path.cwd(), Path.home())
    for folder in folders:
        if (folder / LISTS_FILE_NAME).is_file() or (folder / ".ponderosarc").is_file():
            return folder / LISTS_FILE_NAME
    return folders[0] / LISTS_FILE_NAME


def load_lists(path: Path) -> dict[str, dict[str, int | None]]:
    """The lists from path (empty if it does not exist); ListsFileError if it is broken."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return empty_lists()
    except (OSError, UnicodeDecodeError) as error:
        raise ListsFileError(f"{path}: cannot read: {error}") from None
    return parse_lists(text, str(path))


def save_lists(path: Path, lists: dict[str, dict[str, int | None]]) -> None:
    """Write the lists atomically (temp file + os.replace)."""
    handle, temporary = tempfile.mkstemp(prefix=".lists-", dir=str(path.parent))
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(lists_text(lists))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# ----------------------------------------------------------------------------- settings

@dataclass
class IcsSettings:
    """What the operator sets (console commands, usually in .ponderosarc); kept by the engine
    so that it carries over from the console into XBoard mode."""

    enabled: bool = False
    host: str = ""
    whisper_level: int = 0
    kibitz_level: int = 0
    auto_kibitz_level: int = 2            # the level for opponents on the AK list
    noise_nodes: int = 0
    greet: bool = True
    greeting: str = "Hello {name}, Ponderosa here. Good luck and have fun!"
    resign_pawns: int = DEFAULT_RESIGN_PAWNS
    resign_searches: int = DEFAULT_RESIGN_SEARCHES
    lag_seconds: float = DEFAULT_LAG_SECONDS
    lists: dict[str, dict[str, int | None]] = field(default_factory=empty_lists)
    lists_file: Path | None = None
    messages: list[str] = field(default_factory=list)   # problems found at start-up, for the user
    # The current opponent, from XBoard's name/computer/rating or the console's commands.
    opponent_name: str = ""
    opponent_computer: bool = False
    opponent_title: str | None = None     # the title a UCI GUI gives (UCI_Opponent)
    ratings: tuple[int | None, int | None] = (None, None)

    def opponent(self) -> Opponent:
        return classify(self.lists, self.opponent_name, self.opponent_computer, self.opponent_title)

    def forget_opponent(self) -> None:
        self.opponent_name, self.opponent_computer, self.ratings = "", False, (None, None)
        self.opponent_title = None

    @classmethod
    def from_lists_file(cls, path: Path | None = None) -> IcsSettings:
        """Settings with the lists read from their file; a broken file is reported, not fatal."""
        path = path or lists_path()
        settings = cls(lists_file=path)
        try:
            settings.lists = load_lists(path)
        except ListsFileError as error:
            settings.messages.append(f"opponent lists not read: {error}")
        return settings

    def save(self) -> None:
        if self.lists_file is not None:
            save_lists(self.lists_file, self.lists)


@dataclass(frozen=True)
class Opponent:
    """Who the engine plays, as the lists and XBoard's `computer` describe them."""

    name: str = ""                  # "" when unknown or unusable
    computer: bool = False
    titles: frozenset[str] = frozenset()   # the lists the name is on
    special_draw_score: int | None = None

    @property
    def master(self) -> str | None:
        return "GM" if "GM" in self.titles else "IM" if "IM" in self.titles else None

    @property
    def blocked(self) -> bool:
        return "B" in self.titles


def clean_handle(raw: str) -> str | None:
    """An opponent's login name from `name`, or None (logged) when it is not one: odd
    characters, spaces, unicode, empty. A title in parentheses (`Foo(GM)`) is dropped."""
    text = re.sub(r"(\([A-Z*]{1,3}\))+$", "", raw.strip())
    if HANDLE.match(text):
        return text
    log.warning("ignored an unusable opponent name from the server: %r", raw[:MAX_LOGGED_TEXT])
    return None


def classify(lists: dict[str, dict[str, int | None]], name: str | None, computer: bool,
             title: str | None = None) -> Opponent:
    """The opponent as the lists see them (names matched case-insensitively); a GM or IM title
    the GUI gives (UCI_Opponent) counts as if the name were on that list."""
    given = frozenset([title]) if title in ("GM", "IM") else frozenset()
    if not name:
        return Opponent(computer=computer, titles=given)
    key = name.lower()
    titles = given | frozenset(which for which in LIST_NAMES if key in lists[which])
    special = lists["S"].get(key) if "S" in titles else None
    return Opponent(name, computer or "C" in titles, titles, special)


def parse_ratings(args: str) -> tuple[int | None, int | None] | None:
    """`rating OWN OPP`: 0 (what zippy sends when the server gives none) is unknown (None);
    anything that is not two whole numbers is None (and logged)."""
    words = args.split()
    if len(words) != 2 or not all(re.fullmatch(r"-?[0-9]{1,5}", word) for word in words):
        log.warning("ignored a rating line from the server: %r", args[:MAX_LOGGED_TEXT])
        return None
    own, opponent = int(words[0]), int(words[1])
    return (own if own > 0 else None), (opponent if opponent > 0 else None)


# ----------------------------------------------------------------------------- the game plan

@dataclass(frozen=True)
class GamePlan:
    """What the engine does in this game against this opponent."""

    draw_score: int                 # centipawns; + likes draws
    resign_pawns: int               # 0: never resign
    resign_searches: int
    kibitz_level: int
    whisper_level: int
    accept_equal_draws: bool        # an equal position is drawn after enough moves
    offer_draws: bool               # offer draws in long equal endgames
    book_width: int | None          # None: the book's own setting
    silent: bool                    # nothing written to the opponent (B list)
    abort: bool                     # ask the server to abort this game (B list)


def rating_contempt(own: int | None, opponent: int | None) -> int:
    """Draw score from the ratings: against a much weaker opponent a draw is worth less than
    0.00 (play on), against a much stronger one more (a draw is a good result). 10 cp for
    every 200 points beyond the first 100, at most 0.50; unknown ratings change nothing."""
    if own is None or opponent is None:
        return 0
    difference = own - opponent
    if abs(difference) < MIN_RATING_DIFFERENCE:
        return 0
    steps = (abs(difference) - MIN_RATING_DIFFERENCE) // RATING_STEP + 1
    contempt = min(MAX_RATING_CONTEMPT, steps * CONTEMPT_PER_STEP)
    return -contempt if difference > 0 else contempt


def game_plan(settings: IcsSettings, opponent: Opponent, ratings: tuple[int | None, int | None],
              base_draw_score: int) -> GamePlan:
    """The plan for a game: draw score, resignation, chatter, draws and book, by opponent."""
    if opponent.special_draw_score is not None:
        draw_score = opponent.special_draw_score          # S: the user's own value wins
    elif opponent.computer:
        draw_score = 0                                    # C: no contempt against computers
    else:
        draw_score = base_draw_score + rating_contempt(*ratings)
    resign_pawns, resign_searches = settings.resign_pawns, settings.resign_searches
    master = opponent.master
    if master is not None and resign_pawns:
        resign_pawns = min(resign_pawns, MASTER_RESIGN_PAWNS[master])
        resign_searches = min(resign_searches, MASTER_RESIGN_SEARCHES)
    kibitz = settings.kibitz_level
    if "AK" in opponent.titles:
        kibitz = max(kibitz, settings.auto_kibitz_level)
    silent = opponent.blocked
    return GamePlan(draw_score=draw_score, resign_pawns=resign_pawns, resign_searches=resign_searches,
                    kibitz_level=0 if silent else kibitz, whisper_level=0 if silent else settings.whisper_level,
                    accept_equal_draws=opponent.computer, offer_draws=opponent.computer and not silent,
                    book_width=COMPUTER_BOOK_WIDTH if opponent.computer else None, silent=silent,
                    abort=opponent.blocked)


def selective_book(settings: BookSettings) -> BookSettings:
    """The book against computers: fewer moves (width 2) and the win ratio and learned values
    weighing more, so that gambits and fashions that lose are culled (Crafty's habit)."""
    return dataclasses.replace(settings, width=min(settings.width, COMPUTER_BOOK_WIDTH),
                               weight_ratio=max(settings.weight_ratio, COMPUTER_BOOK_RATIO_WEIGHT),
                               weight_learn=max(settings.weight_learn, 1.0))


# ----------------------------------------------------------------------------- draws and resignation

def accepts_draw(score: int, draw_score: int, moves_played: int, dead_draw: bool,
                 tablebase_draw: bool | None = None, accept_equal: bool = False,
                 margin: int = DRAW_MARGIN) -> bool:
    """Take an offered draw? score: the engine's latest search, from its own side.
    Always in a dead draw (insufficient material) or a tablebase draw (None: not known);
    when the engine stands worse than the draw score by more than the margin; and when the
    score is within the margin of the draw score, once enough moves have been played (against
    computers, accept_equal, at any move)."""
    if dead_draw or tablebase_draw:
        return True
    if score < draw_score - margin:
        return True
    return abs(score - draw_score) <= margin and (accept_equal or moves_played >= DRAW_ACCEPT_MIN_MOVES)


def offers_draw(recent_scores: list[int], draw_score: int, moves_played: int, pieces: int,
                moves_since_offer: int | None, opponent: Opponent, plan_offers: bool,
                margin: int = DRAW_MARGIN) -> bool:
    """Offer a draw? Only when the plan allows (against computers), in a long endgame (pieces:
    non-pawn, non-king pieces on the board) whose last searches all stayed within the margin of
    the draw score, and not again soon after an offer. Never to a master when ahead."""
    if not plan_offers or moves_played < DRAW_OFFER_MIN_MOVES or pieces > DRAW_OFFER_MAX_PIECES:
        return False
    if moves_since_offer is not None and moves_since_offer < DRAW_OFFER_EVERY:
        return False
    if len(recent_scores) < DRAW_OFFER_SEARCHES:
        return False
    latest = recent_scores[-DRAW_OFFER_SEARCHES:]
    if opponent.master is not None and latest[-1] > draw_score:
        return False
    return all(abs(score - draw_score) <= margin for score in latest)


def should_resign(recent_scores: list[int], resign_pawns: int, searches: int,
                  mate_for_engine: bool = False) -> bool:
    """Resign when the last `searches` scores (the engine's side) are all at or below
    -resign_pawns; never with resignation off (0) or a mate in the engine's favour."""
    if resign_pawns <= 0 or searches <= 0 or mate_for_engine or len(recent_scores) < searches:
        return False
    return all(score <= -100 * resign_pawns for score in recent_scores[-searches:])


# ----------------------------------------------------------------------------- what is said

def finger_note(engine_name: str, threads: int) -> str:
    """The text of finger note 1 (sent as `tellicsnoalias set 1 ...`)."""
    return (f"set 1 {engine_name}: a Python/Cython chess engine playing through XBoard's zippy; "
            f"{threads} search thread{'s' if threads != 1 else ''}")


def greeting_text(settings: IcsSettings, opponent: Opponent, plan: GamePlan) -> str | None:
    """The greeting kibitzed at the start of a game, or None (greet off, blocked opponent)."""
    if not settings.greet or plan.silent or not settings.greeting.strip():
        return None
    name = opponent.name or "there"
    return _one_line(settings.greeting.replace("{name}", name))


def _one_line(text: str) -> str:
    return " ".join(text.split())[:MAX_TELL_LENGTH]


def score_text(score: int, engine_white: bool, mate: int | None) -> str:
    """A score said on the server, from White's point of view and saying so."""
    white_score = score if engine_white else -score
    if mate is not None:
        winner = "White" if (mate > 0) == engine_white else "Black"
        return f"{winner} mates in {abs(mate)}"
    return f"{white_score / 100:+.2f} (White's view)"


@dataclass(frozen=True)
class SearchSummary:
    """What the protocol layer knows of a finished search, as plain values."""

    depth: int
    score: int               # centipawns from the engine's side
    seconds: float
    nodes: int
    pv_san: str              # the line in SAN, from the position before the engine's move
    mate: int | None         # moves to mate, + for the engine, - against it
    engine_white: bool


# A server prefixes a kibitz with `NAME(C) kibitzes: ` and wraps at 79 columns: the line of
# levels 2-4 keeps to this many characters before its PV (Crafty's is about as long).
REPORT_WIDTH = 55


def move_report(level: int, summary: SearchSummary, noise_nodes: int) -> str | None:
    """The one line said for a searched move at levels 2-4 (None below 2 or under noise):
    depth, score, time and speed, short enough for one server line (the node count is the
    speed times the time); level 3 and up add the PV."""
    if level < 2 or summary.nodes < noise_nodes:
        return None
    speed = summary.nodes / summary.seconds if summary.seconds > 0 else 0.0
    text = (f"depth {summary.depth} score {score_text(summary.score, summary.engine_white, summary.mate)} "
            f"{short_seconds(summary.seconds)} {short_count(speed)} nps")
    if level >= 3 and summary.pv_san:
        text += f" pv {summary.pv_san}"
    return _one_line(text)


def short_seconds(seconds: float) -> str:
    """0.77s, 12.3s, 154s: three significant figures at most."""
    if seconds < 10:
        return f"{seconds:.2f}s"
    return f"{seconds:.1f}s" if seconds < 100 else f"{seconds:.0f}s"


def short_count(count: float) -> str:
    """552, 552k, 2.7M, 12M: a count in at most four characters and a unit."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if count >= size:
            value = count / size
            return f"{value:.1f}{unit}" if value < 9.95 else f"{value:.0f}{unit}"
    return f"{count:.0f}"


def mate_announcement(level: int, mate: int | None, announced: int | None) -> str | None:
    """`mate in N` at level 1 and up when the engine finds a mate for itself, once: not again
    while that mate counts down move by move (N = announced - 1, where `announced` is the mate
    of the move before: `next_announced_mate` keeps it through the silent moves)."""
    if level < 1 or mate is None or mate <= 0:
        return None
    if announced is not None and mate == announced - 1:
        return None
    return f"mate in {mate}"


def next_announced_mate(mate: int | None) -> int | None:
    """The mate the next move's countdown is measured against: this move's mate for the engine,
    said or not (a silent countdown step must move it too, or the step after it is said again)."""
    return mate if mate is not None and mate > 0 else None


def book_report(level: int, san: str, percent: float, candidates: str) -> str | None:
    """Level 4 and up: the book move, its chance and the other candidates."""
    if level < 4:
        return None
    return _one_line(f"book move {san} ({percent:.0f}%) from {{{candidates}}}")


def iteration_report(level: int, depth: int, score: int, bound: str, seconds: float, nodes: int,
                     pv_san: str, mate: int | None, engine_white: bool, noise_nodes: int) -> str | None:
    """Levels 5-6 while searching: level 5 each finished iteration's PV, level 6 also fail
    highs and lows. None when the level or the noise threshold says nothing."""
    if level < 5 or nodes < noise_nodes or (bound != "exact" and level < 6):
        return None
    mark = {"exact": "", "lower": " fail high", "upper": " fail low"}.get(bound, "")
    return _one_line(f"depth {depth}{mark} score {score_text(score, engine_white, mate)} "
                     f"time {seconds:.2f}s pv {pv_san}")


class RateLimit:
    """At most one line per interval (levels 5-6 must not flood a server); the caller passes
    the time, so the limiter is a pure object."""

    def __init__(self, interval: float = CHATTER_INTERVAL) -> None:
        self.interval = interval
        self.last: float | None = None

    def allow(self, now: float) -> bool:
        if self.last is not None and now - self.last < self.interval:
            return False
        self.last = now
        return True


def log_server_text(kind: str, text: str) -> None:
    """A clear, bounded log line for odd input from the server (long, unicode, broken)."""
    log.info("server %s: %r%s", kind, text[:MAX_LOGGED_TEXT], " ..." if len(text) > MAX_LOGGED_TEXT else "")
