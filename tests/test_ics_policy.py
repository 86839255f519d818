"""Table tests of the chess-server policy (engine/ics.py) and the server lag allowance of the
clock: every rule is a pure function, tested here without an engine or a server."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from ponderosa.engine import ics
from ponderosa.engine.book.select import BookSettings
from ponderosa.engine.clock import parse_level

from tests.test_clock import play_at_the_hard_limit

# ----------------------------------------------------------------------------- lists


def test_list_commands_add_remove_and_match_case_insensitively() -> None:
    lists = ics.empty_lists()
    assert ics.apply_list_command(lists, ["gm", "+Magnus", "+Hikaru"]) == "GM"
    ics.apply_list_command(lists, ["GM", "-HIKARU", "-nobody"])
    ics.apply_list_command(lists, ["S", "+Carl=-40", "+Dora"])
    assert lists["GM"] == {"magnus": None}
    assert lists["S"] == {"carl": -40, "dora": 0}
    opponent = ics.classify(lists, "MAGNUS", computer=False)
    assert opponent.master == "GM" and opponent.titles == frozenset({"GM"})
    assert ics.classify(lists, "carl", False).special_draw_score == -40


@pytest.mark.parametrize("words", [[], ["XX", "+a"], ["GM", "magnus"], ["GM", "+ma gnus"], ["GM", "+b@d"],
                                   ["GM", "+x=5"], ["S", "+x=abc"], ["GM", "+"]])
def test_list_commands_reject_nonsense(words: list[str]) -> None:
    lists = ics.empty_lists()
    with pytest.raises(ValueError):
        ics.apply_list_command(lists, words)
    assert lists == ics.empty_lists()


def test_lists_file_round_trip_atomic_and_beside_the_rc_file(tmp_path: Path) -> None:
    lists = ics.empty_lists()
    ics.apply_list_command(lists, ["GM", "+magnus"])
    ics.apply_list_command(lists, ["S", "+carl=25"])
    ics.apply_list_command(lists, ["B", "+bruno"])
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(), work.mkdir()
    (home / ".ponderosarc").write_text("exit\n")
    path = ics.lists_path((work, home))
    assert path == home / ics.LISTS_FILE_NAME          # beside .ponderosarc
    ics.save_lists(path, lists)
    assert ics.load_lists(path) == lists
    assert sorted(p.name for p in home.iterdir()) == [".ponderosa-lists", ".ponderosarc"]   # no temp file left
    assert "list GM +magnus" in path.read_text()       # readable: the console's own commands
    assert ics.load_lists(work / "missing") == ics.empty_lists()
    assert ics.lists_path((work,)) == work / ics.LISTS_FILE_NAME


@pytest.mark.parametrize("text,line", [("list GM +a\nfrobnicate\n", 2), ("# c\n\nlist ZZ +a\n", 3),
                                       ("list GM +a b\n", 1)])
def test_a_broken_lists_file_names_file_and_line(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / ".ponderosa-lists"
    path.write_text(text)
    with pytest.raises(ics.ListsFileError, match=f"{path}:{line}:"):
        ics.load_lists(path)
    settings = ics.IcsSettings.from_lists_file(path)     # start-up: reported, not fatal
    assert settings.lists == ics.empty_lists() and str(path) in settings.messages[0]


# ----------------------------------------------------------------------------- server input

@pytest.mark.parametrize("raw,handle", [
    ("Bobby", "Bobby"), ("  GuestXYZW ", "GuestXYZW"), ("Magnus(GM)", "Magnus"), ("Foo(C)(TM)", "Foo"),
    ("b@d", None), ("two words", None), ("Zoë", None), ("", None), ("x" * 40, None), ("-dash", None),
])
def test_opponent_names_from_the_server(raw: str, handle: str | None) -> None:
    assert ics.clean_handle(raw) == handle


@pytest.mark.parametrize("args,ratings", [
    ("1800 1500", (1800, 1500)), ("0 0", (None, None)), ("0 2100", (None, 2100)), ("", None), ("1800", None),
    ("a b", None), ("1800 1500 12", None), ("١٨٠٠ 1500", None),
])
def test_ratings_from_the_server(args: str, ratings: tuple | None) -> None:
    assert ics.parse_ratings(args) == ratings


# ----------------------------------------------------------------------------- plans

@pytest.mark.parametrize("own,opponent,contempt", [
    (None, 1500, 0), (1800, None, 0), (1800, 1750, 0), (1800, 1700, -10), (1800, 1500, -20), (2400, 1000, -50),
    (1500, 1800, 20), (1000, 2800, 50),
])
def test_rating_contempt(own: int | None, opponent: int | None, contempt: int) -> None:
    assert ics.rating_contempt(own, opponent) == contempt


def _lists() -> dict[str, dict[str, int | None]]:
    lists = ics.empty_lists()
    for words in (["GM", "+magnus"], ["IM", "+irina"], ["C", "+crafty"], ["AK", "+kibi"], ["B", "+bruno"],
                  ["S", "+special=35"]):
        ics.apply_list_command(lists, words)
    return lists


@pytest.mark.parametrize("name,computer,ratings,draw,resign,searches,kibitz,equal,book,silent", [
    ("bobby", False, (None, None), -10, 9, 4, 1, False, None, False),
    ("bobby", False, (1800, 1500), -30, 9, 4, 1, False, None, False),
    ("magnus", False, (None, None), -10, 3, 3, 1, False, None, False),
    ("irina", False, (None, None), -10, 6, 3, 1, False, None, False),
    ("crafty", False, (1800, 1500), 0, 9, 4, 1, True, 2, False),
    ("somebot", True, (None, None), 0, 9, 4, 1, True, 2, False),
    ("kibi", False, (None, None), -10, 9, 4, 2, False, None, False),
    ("bruno", False, (None, None), -10, 9, 4, 0, False, None, True),
    ("special", True, (2400, 1000), 35, 9, 4, 1, True, 2, False),
])
def test_game_plan_by_opponent(name: str, computer: bool, ratings: tuple, draw: int, resign: int, searches: int,
                               kibitz: int, equal: bool, book: int | None, silent: bool) -> None:
    settings = ics.IcsSettings(lists=_lists(), kibitz_level=1)
    plan = ics.game_plan(settings, ics.classify(settings.lists, name, computer), ratings, base_draw_score=-10)
    assert (plan.draw_score, plan.resign_pawns, plan.resign_searches, plan.kibitz_level, plan.accept_equal_draws,
            plan.book_width, plan.silent, plan.abort) == (draw, resign, searches, kibitz, equal, book, silent, silent)


def test_resignation_off_stays_off_against_masters() -> None:
    settings = ics.IcsSettings(lists=_lists(), resign_pawns=0)
    assert ics.game_plan(settings, ics.classify(settings.lists, "magnus", False), (None, None), 0).resign_pawns == 0


def test_selective_book_against_computers() -> None:
    book = ics.selective_book(BookSettings(width=5, weight_ratio=0.1, weight_learn=0.5))
    assert (book.width, book.weight_ratio, book.weight_learn) == (2, 0.5, 1.0)
    assert ics.selective_book(BookSettings(width=1)).width == 1


# ----------------------------------------------------------------------------- draws and resignation

@pytest.mark.parametrize("score,draw,moves,dead,tb,equal,accepted", [
    (500, 0, 10, True, None, False, True),      # insufficient material: always
    (500, 0, 10, False, True, False, True),     # tablebase draw: always
    (500, 0, 10, False, False, False, False),
    (500, 0, 60, False, None, True, False),     # far ahead: never
    (-26, 0, 3, False, None, False, True),      # worse than the draw: at once
    (-10, 0, 3, False, None, False, False),     # equal, too early against a human
    (-10, 0, 3, False, None, True, True),       # equal against a computer: at once
    (20, 0, 25, False, None, False, True),      # equal after enough moves
    (26, 0, 25, False, None, False, False),     # beyond the margin
    (40, 30, 40, False, None, False, True),     # within the margin of a positive draw score
    (-40, -50, 40, False, None, False, True),
    (-80, -50, 40, False, None, False, True),   # worse than a contempt draw score
])
def test_accepting_a_draw(score: int, draw: int, moves: int, dead: bool, tb: bool | None, equal: bool,
                          accepted: bool) -> None:
    assert ics.accepts_draw(score, draw, moves, dead, tb, equal) is accepted


EQUAL = [5, -3, 0, 10, -12]


@pytest.mark.parametrize("scores,moves,pieces,since,name,offers_allowed,offered", [
    (EQUAL, 60, 2, None, "bot", True, True),
    (EQUAL, 60, 2, None, "bot", False, False),       # not against this opponent (humans)
    (EQUAL, 40, 2, None, "bot", True, False),        # not a long game yet
    (EQUAL, 60, 8, None, "bot", True, False),        # not an endgame
    (EQUAL, 60, 2, 3, "bot", True, False),           # offered three moves ago
    (EQUAL, 60, 2, 12, "bot", True, True),
    (EQUAL[:4], 60, 2, None, "bot", True, False),    # too few searches
    ([5, 5, 5, 5, 40], 60, 2, None, "bot", True, False),
    ([0, 0, 0, 0, 20], 60, 2, None, "magnus", True, False),   # a master, and the engine is ahead
    ([0, 0, 0, 0, -20], 60, 2, None, "magnus", True, True),
])
def test_offering_a_draw(scores: list[int], moves: int, pieces: int, since: int | None, name: str,
                         offers_allowed: bool, offered: bool) -> None:
    opponent = ics.classify(_lists(), name, computer=True)
    assert ics.offers_draw(scores, 0, moves, pieces, since, opponent, offers_allowed) is offered


@pytest.mark.parametrize("scores,pawns,searches,mate,resigned", [
    ([-950, -960, -970, -990], 9, 4, False, True),
    ([-950, -960, -970], 9, 4, False, False),           # not long enough
    ([-950, -800, -970, -990], 9, 4, False, False),     # one search was not that bad
    ([0, -950, -960, -970, -990], 9, 4, False, True),   # only the last four count
    ([-950, -960, -970, -990], 0, 4, False, False),     # resignation off
    ([-950, -960, -970, -990], 9, 4, True, False),      # a mate for the engine: never
    ([-310, -320, -330], 3, 3, False, True),            # against a GM
    ([-310, -320, -330], 9, 4, False, False),           # the same scores against anyone else
])
def test_resigning(scores: list[int], pawns: int, searches: int, mate: bool, resigned: bool) -> None:
    assert ics.should_resign(scores, pawns, searches, mate) is resigned


# ----------------------------------------------------------------------------- what is said

SUMMARY = ics.SearchSummary(depth=12, score=35, seconds=2.0, nodes=400_000, pv_san="Nf3 Nf6 c4", mate=None,
                            engine_white=False)


@pytest.mark.parametrize("level,noise,expected", [
    (0, 0, None), (1, 0, None),
    (2, 0, "depth 12 score -0.35 (White's view) 2.00s 200k nps"),
    (3, 0, "depth 12 score -0.35 (White's view) 2.00s 200k nps pv Nf3 Nf6 c4"),
    (4, 0, "depth 12 score -0.35 (White's view) 2.00s 200k nps pv Nf3 Nf6 c4"),
    (3, 500_000, None),                                  # noise: a search shorter than N nodes is silent
])
def test_the_line_after_each_move(level: int, noise: int, expected: str | None) -> None:
    assert ics.move_report(level, SUMMARY, noise) == expected


@pytest.mark.parametrize("depth,score,seconds,nodes,mate", [
    (9, 35, 0.77, 423_091, None), (99, -1_234, 154.3, 2_000_000_000, None), (99, 99_990, 999.9, 99_999_999_999, 12),
    (99, -99_990, 0.004, 1, -12),
])
def test_levels_one_and_two_fit_one_server_line(depth: int, score: int, seconds: float, nodes: int,
                                                 mate: int | None) -> None:
    """The longest figures still leave the line within 55 characters: after `NAME(C) kibitzes: `
    it fits a 79-column server line (FICS wrapped the longer line of before)."""
    summary = ics.SearchSummary(depth, score, seconds, nodes, "", mate, True)
    line = ics.move_report(2, summary, 0)
    assert line is not None and len(line) <= ics.REPORT_WIDTH, line
    assert "(White's view)" in line or "mates in" in line
    assert len(ics.mate_announcement(1, 99, None) or "") <= ics.REPORT_WIDTH


@pytest.mark.parametrize("count,text", [(552, "552"), (552_300, "552k"), (2_730_000, "2.7M"), (12_300_000, "12M"),
                                        (9_990, "10k"), (1_500_000_000, "1.5G")])
def test_short_counts(count: float, text: str) -> None:
    assert ics.short_count(count) == text


@pytest.mark.parametrize("score,white,mate,text", [
    (150, True, None, "+1.50 (White's view)"), (150, False, None, "-1.50 (White's view)"),
    (0, False, None, "+0.00 (White's view)"), (99999, True, 3, "White mates in 3"),
    (99999, False, 2, "Black mates in 2"), (-99999, False, -4, "White mates in 4"),
])
def test_scores_say_whose_view(score: int, white: bool, mate: int | None, text: str) -> None:
    assert ics.score_text(score, white, mate) == text


@pytest.mark.parametrize("level,mate,announced,line", [
    (0, 3, None, None), (1, 3, None, "mate in 3"), (2, None, None, None), (1, -3, None, None),
    (1, 2, 3, None),            # the announced mate counting down: said once
    (1, 5, 3, "mate in 5"),     # a different mate: said again
])
def test_mate_announcements(level: int, mate: int | None, announced: int | None, line: str | None) -> None:
    assert ics.mate_announcement(level, mate, announced) == line


def test_book_and_iteration_lines_by_level() -> None:
    assert ics.book_report(3, "e4", 45.0, "e4 d4") is None
    assert ics.book_report(4, "e4", 45.0, "e4 d4") == "book move e4 (45%) from {e4 d4}"
    arguments = dict(depth=9, score=-20, seconds=1.5, nodes=10_000, pv_san="e4 e5", mate=None, engine_white=True,
                     noise_nodes=0)
    assert ics.iteration_report(4, bound="exact", **arguments) is None
    assert ics.iteration_report(5, bound="exact", **arguments) == \
        "depth 9 score -0.20 (White's view) time 1.50s pv e4 e5"
    assert ics.iteration_report(5, bound="lower", **arguments) is None
    assert ics.iteration_report(6, bound="lower", **arguments) == \
        "depth 9 fail high score -0.20 (White's view) time 1.50s pv e4 e5"
    assert ics.iteration_report(6, bound="upper", **{**arguments, "noise_nodes": 20_000}) is None


def test_rate_limit_one_line_a_second() -> None:
    limit = ics.RateLimit(1.0)
    times = [0.0, 0.2, 0.99, 1.0, 1.5, 2.1, 2.2, 10.0]
    assert [limit.allow(now) for now in times] == [True, False, False, True, False, True, False, True]


def test_greeting_and_finger_note() -> None:
    settings = ics.IcsSettings(lists=_lists())
    bobby = ics.classify(settings.lists, "Bobby", False)
    plan = ics.game_plan(settings, bobby, (None, None), 0)
    assert ics.greeting_text(settings, bobby, plan) == "Hello Bobby, Ponderosa here. Good luck and have fun!"
    settings.greeting = "Hi {name}!\n  Enjoy."
    assert ics.greeting_text(settings, bobby, plan) == "Hi Bobby! Enjoy."
    assert ics.greeting_text(settings, ics.Opponent(), plan) == "Hi there! Enjoy."
    settings.greet = False
    assert ics.greeting_text(settings, bobby, plan) is None
    settings.greet = True
    bruno = ics.classify(settings.lists, "bruno", False)
    assert ics.greeting_text(settings, bruno, ics.game_plan(settings, bruno, (None, None), 0)) is None
    note = ics.finger_note("Ponderosa 0.1.0", 2)
    assert note.startswith("set 1 Ponderosa 0.1.0") and "2 search threads" in note


# ----------------------------------------------------------------------------- clocks with lag

def test_lightning_with_network_lag_needs_the_allowance() -> None:
    """A 1 0 game where the server charges 0.3 s of lag on every move: without the allowance
    the engine flags before move 50; with it, it lasts 100 moves (a long lightning game)."""
    with pytest.raises(AssertionError, match="lost on time"):
        play_at_the_hard_limit(parse_level("0 1 0"), overhead=0.3, moves=100)
    assert play_at_the_hard_limit(parse_level("0 1 0"), overhead=0.3, moves=100, lag_seconds=0.3) >= 0
    assert play_at_the_hard_limit(parse_level("0 0:30 0"), overhead=0.2, moves=80, lag_seconds=0.2) >= 0
    assert play_at_the_hard_limit(parse_level("0 1 1"), overhead=0.3, moves=120, lag_seconds=0.3) >= 0
    assert play_at_the_hard_limit(parse_level("40 1 0"), overhead=0.3, moves=120, lag_seconds=0.3) >= 0


def test_a_mate_is_announced_once_while_it_counts_down_move_by_move() -> None:
    """Mate in 7, then 6, 5, ... 1 on the engine's next moves: one `mate in 7` and nothing after it
    (the silent countdown steps used to leave the announced mate at 7, so 5 and 3 were said again)."""
    from ponderosa.engine.engine import Engine
    from ponderosa.engine.search import MATE_SCORE, SearchResult
    from ponderosa.protocol.xboard import XBoardSession

    engine = Engine()
    try:
        engine.ics.enabled, engine.ics.kibitz_level = True, 1
        session = XBoardSession(engine, io.StringIO())
        session.ics.start_game()
        said = []
        for mate in range(7, 0, -1):
            said += session.ics.move_chatter(SearchResult("e2e4", MATE_SCORE - (2 * mate - 1), 9, 1000, 0.1))
        assert said == [("kibitz", "mate in 7")]
        said = session.ics.move_chatter(SearchResult("e2e4", 30, 9, 1000, 0.1))   # the mate is gone
        said += session.ics.move_chatter(SearchResult("e2e4", MATE_SCORE - 5, 9, 1000, 0.1))
        assert said == [("kibitz", "mate in 3")]   # a mate found anew is said again
    finally:
        engine.shutdown()
