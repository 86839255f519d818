"""What learning keeps and how later games use it: position learning across processes, the .lrn
files' export and import (Crafty's record layout, old records, torn and broken ones), learning that
survives a book rebuild, the limit and aging of what is kept, the book's choice by learned values
(dynamic values and the postbook, Terra's selection by the engine's own results), and Learn 0,
which keeps nothing."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import chess
import pytest

from ponderosa.core_ext.core import LEARNED_ENTRY_DEPTH
from ponderosa.engine.engine import Engine
from ponderosa.engine.learning.learner import BOOK_LRN, POSITION_LRN, GameRecord, LearnFileError
from ponderosa.engine.learning.rules import (
    LEARN_POSITION,
    LearnedUpdate,
    SearchSample,
)
from ponderosa.engine.learning.store import GameLearning

from tests.learning_harness import (
    AFTER_3_A6,
    AFTER_5_NF6,
    board_after,
    first_playable_settings,
    learned_value,
    paper_engine,
    paper_opponent,
    play_learning_game,
    play_paper_games,
    scripted,
    write,
)

POSITION_SCRIPT = """
import sys, json
from pathlib import Path
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits
mode, fen, first, reply = sys.argv[1:5]
engine = Engine()
engine.book.enabled = False
if mode == "learn":
    from ponderosa.engine.learning.learner import GameRecord
    from ponderosa.engine.learning.rules import LEARN_POSITION, SearchSample
    record = GameRecord("position-test", fen, [first, reply, "a2a3", "a7a6"], True,
                        samples={0: SearchSample(20, 10), 2: SearchSample(-600, 10)})
    learning = engine.learner.book_learning(record, LEARN_POSITION)
    engine.books.learned.record_game(learning)
    print(json.dumps([entry.key for entry in learning.positions]))
else:
    engine.set_position(fen)
    result = engine.think(SearchLimits(depth=6))
    from ponderosa.core_ext.core import Board
    entry = None
    if first != "-":
        after = Board(fen); after.push_uci(first); after.push_uci(reply)
        entry = engine.tt.probe(after.key)
    print(json.dumps([result.best_move, result.pv[:2], entry]))
"""


def run_script(folder: Path, *args: str) -> list:
    import json
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(POSITION_SCRIPT), *args], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_learned_position_reaches_a_fresh_process_and_changes_its_move(workdir: Path) -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    baseline_move, baseline_pv, _ = run_script(workdir, "search", fen, "-", "-")
    assert len(baseline_pv) == 2
    first, reply = baseline_pv
    keys = run_script(workdir, "learn", fen, first, reply)
    assert len(keys) == 1
    new_move, _, entry = run_script(workdir, "search", fen, first, reply)
    assert entry is not None and entry[2] == LEARNED_ENTRY_DEPTH
    assert new_move != baseline_move, "a position learned as lost must steer the search away"


def test_learning_export_and_import_round_trip(workdir: Path, tmp_path_factory: pytest.TempPathFactory,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    engine = paper_engine(workdir)
    opponent = paper_opponent()
    for _ in range(2):
        play_learning_game(engine, opponent)
        engine.finish_game("0-1")
    original = engine.books.learned.dump()
    assert original["book_learning"] and (workdir / BOOK_LRN).is_file()

    for clear in (False, True):
        other = tmp_path_factory.mktemp("importer")
        (other / "book.bin").write_bytes((workdir / "book.bin").read_bytes())
        monkeypatch.chdir(other)   # a fresh engine: its own learned store and .lrn files
        fresh = Engine()
        assert fresh.books.learned.location != engine.books.learned.location
        assert fresh.books.learned.dump()["book_learning"] == []
        fresh.book.close()
        fresh.book.use_book(str(other / "book.bin"))
        first_playable_settings(fresh)
        if clear:   # something learned before, wiped by the import
            fresh.books.learned.record_game(fresh.learner.book_learning(
                GameRecord("old", chess.STARTING_FEN, ["e2e4", "e7e5", "g1f3", "b8c6", "d2d4"], True,
                           samples={4: SearchSample(-50, 5)}), 1) or pytest.fail("no learning"))
            assert fresh.books.learned.dump() != original
        assert fresh.import_learning(str(workdir / BOOK_LRN), clear=clear) == 4   # 2 games: book + result
        if (workdir / POSITION_LRN).is_file():
            fresh.import_learning(str(workdir / POSITION_LRN))
        assert fresh.books.learned.dump() == original
        assert (other / BOOK_LRN).is_file()   # what it imported is in its own book.lrn too


# A record as book.lrn had it before Crafty's `{value depth rating_difference}` moved to the end of
# the record: `{value, depth, rating_difference}` before the moves, and no playable counts on the
# engine's book moves (a game along the paper's first line, searches scripted at -250 and depth 5).
OLD_BOOK_LRN = """[Event "Ponderosa learning"]
[Site "?"]
[Date "2026.11.27"]
[Round "?"]
[White "Ponderosa"]
[Black "Stockfish"]
[Result "*"]
[PonderosaLearn "book"]
[PonderosaGame "cc841e5b725d4335a4ef6b1190394025"]
[PonderosaColor "white"]
[RatingDifference "-150"]

{ -250, 5, -150 } 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Nc3 axb5 5. Nxb5 Nf6 6. Nc3 Bb4 7. d3 O-O 8. O-O d5 \
9. Nxd5 { -250/5 } 9... Nxd5 10. exd5 { -250/5 } 10... Qxd5 11. a3 { -250/5 } 11... Bc5 12. b4 { -250/5 } \
12... Bxb4 13. c4 { -250/5 } 13... Qe6 14. Ng5 { -250/5 } 14... Qg4 15. h3 { -250/5 } 15... Qd4 16. Be3 \
{ -250/5 } 16... Qc3 17. axb4 { -250/5 } 17... Rxa1 18. Qxa1 { -250/5 } *

"""


def test_book_lrn_ends_each_record_with_the_key_search_as_crafty_does(workdir: Path) -> None:
    engine = paper_engine(workdir)
    engine.learner.rating_difference = -150
    play_paper_games(engine, paper_opponent(), 1, search=scripted(-250, 5), opponent_depth=1)
    tags, movetext = (workdir / BOOK_LRN).read_text().strip().split("\n\n")
    assert "[RatingDifference \"-150\"]" in tags
    # The moves first (the engine's book moves with the playable moves when it chose, its searches
    # as score/depth), then the key search of the first ten out of book, its depth and the rating
    # difference, then the result.
    assert movetext.startswith("1. e4 { book 1 } 1... e5 2. Nf3 { book 1 }")
    assert " 4. Nc3 { book 2 } " in movetext and " 6. Nc3 { book 3 } " in movetext
    assert movetext.endswith(" { -250/5 } {-250 5 -150} *")


def test_book_lrn_records_written_the_old_way_are_still_read(workdir: Path) -> None:
    engine = paper_engine(workdir)
    old = write(workdir / "old.lrn", OLD_BOOK_LRN)
    assert engine.import_learning(str(old)) == 1
    # figure 2.1: -250 at depth 5, 150 points below the opponent (class 0 of 200), trusted: -125.
    # The playable moves are counted at the import: three at move 6, two at move 4.
    assert learned_value(engine, AFTER_5_NF6, "b5c3") == pytest.approx(-125)
    assert learned_value(engine, AFTER_3_A6, "b1c3") == pytest.approx(-125 / 3)
    # The imported game is appended to the engine's own book.lrn, written the new way.
    assert (workdir / BOOK_LRN).read_text().rstrip().endswith(" { -250/5 } {-250 5 -150} *")


def test_learning_survives_a_book_rebuild(workdir: Path) -> None:
    engine = paper_engine(workdir)
    opponent = paper_opponent()
    play_learning_game(engine, opponent)
    before = engine.books.learned.dump()["book_learning"]
    assert before
    engine.book_files.create_book([str(workdir / "paper.pgn")], 60)
    assert engine.books.learned.dump()["book_learning"] == before
    assert learned_value(engine, AFTER_3_A6, "b1c3") < 0
    engine.new_game()
    for move in AFTER_3_A6:
        engine.make_move(move)
    decision = engine.book_decision()
    assert decision is not None
    learned = {ranked.candidate.move: ranked.candidate.learn for ranked in decision.ranked}
    assert learned["b1c3"] == pytest.approx(learned_value(engine, AFTER_3_A6, "b1c3"))


def test_position_learning_entries_keep_at_most_the_limit(workdir: Path) -> None:
    from ponderosa.engine.learning.store import POSITION_TABLE_LIMIT, PositionEntry, SQLiteLearnedStore
    store = SQLiteLearnedStore(workdir / "learned.db")
    batch = POSITION_TABLE_LIMIT // 4 + 10
    for game in range(5):
        store.record_game(GameLearning(f"g{game}", positions=[
            PositionEntry(game * batch + index + 1, -100, 8, 3) for index in range(batch)]))
    entries = store.learned_positions()
    assert len(entries) == POSITION_TABLE_LIMIT
    # first in, first out: the oldest keys are gone, the newest kept in order
    assert entries[-1].key == 5 * batch and entries[0].key == 5 * batch - POSITION_TABLE_LIMIT + 1
    assert LEARN_POSITION == 2


def test_dynamic_values_and_the_postbook(workdir: Path) -> None:
    """Terra: the engine's own results per book move, and the PostBook: a favourable first move
    out of book is played from then on, until book learning shows it bad."""
    engine = paper_engine(workdir)
    learner = engine.learner
    # A won game as White along the normal line, then out of book with good searches.
    moves = AFTER_3_A6 + ["b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5"]
    record = GameRecord("won", chess.STARTING_FEN, moves, True, result="1-0",
                        samples={8: SearchSample(220, 10), 10: SearchSample(240, 10)})
    learning = learner.result_learning(record, 7)
    assert learning is not None and engine.books.learned.record_game(learning)
    own = engine.books.learned.learned_moves(board_after(AFTER_3_A6).key)["b5a4"]
    assert (own.own_games, own.own_points) == (1, 1.0)
    # Black's book moves are not the engine's own: no dynamic values for them.
    assert engine.books.learned.learned_moves(board_after(AFTER_3_A6[:-1]).key).get("a7a6") is None
    # 5. O-O left the book clearly favourable (+220, +240 for White; figure 2.1 trusts a good score
    # only a quarter at depth 10, which leaves +60, above the PostBook's +50): it plays it now.
    out_of_book = AFTER_3_A6 + ["b5a4", "g8f6"]
    assert [entry.move for entry in engine.books.learned.postbook_moves(board_after(out_of_book).key)] == ["e1g1"]
    engine.new_game()
    for move in out_of_book:
        engine.make_move(move)
    probe = engine.book_probe()
    assert probe.move == "e1g1" and probe.decision is not None
    assert probe.decision.ranked[0].status == "PostBook"
    # Book learning from a longer game that went badly after 5. O-O undoes it.
    bad = GameRecord("bad", chess.STARTING_FEN, out_of_book + ["e1g1", "f8e7", "f1e1", "b7b5"], True,
                     samples={10: SearchSample(-400, 12), 12: SearchSample(-450, 12)})
    bad_learning = learner.book_learning(bad, 1)
    assert bad_learning is not None and engine.books.learned.record_game(bad_learning)
    assert engine.books.learned.learned_moves(board_after(out_of_book).key)["e1g1"].value < -100
    assert engine.book_probe().move is None


def test_terra_selection_uses_the_engines_own_results(workdir: Path) -> None:
    engine = paper_engine(workdir)
    settings = engine.book.settings
    settings.random_mode, settings.min_book_games, settings.min_terra_games = 2, 1, 1
    settings.book_limit, settings.terra_limit = 0, 40
    lost = GameRecord("lost", chess.STARTING_FEN, AFTER_3_A6 + ["b1c3", "a6b5"], True, result="0-1")
    learning = engine.learner.result_learning(lost, 0)   # no result learning: only the dynamic values
    assert learning is not None and engine.books.learned.record_game(learning)
    engine.new_game()
    for move in AFTER_3_A6:
        engine.make_move(move)
    decision = engine.book_decision()
    assert decision is not None
    chances = {ranked.candidate.move: ranked.probability for ranked in decision.ranked}
    # 4. Nc3 scored 0% in the engine's own game, below TerraLimit: avoided; 4. Ba4 remains.
    assert chances["b1c3"] == 0 and chances["b5a4"] == pytest.approx(1.0)


def test_learning_aging_fades_mild_values_of_skipped_moves(workdir: Path) -> None:
    from ponderosa.engine.learning.store import GameLearning
    engine = paper_engine(workdir)
    key = board_after(AFTER_3_A6).key
    engine.books.learned.record_game(GameLearning("mild", book=[LearnedUpdate(key, "b5a4", -150.0)]))
    engine.books.learned.record_game(GameLearning("bad", never=[(key, "b1c3")]))
    engine.book.aging = True
    engine.new_game()
    for move in AFTER_3_A6:
        engine.make_move(move)
    values = []
    for _ in range(3):
        probe = engine.book_probe()
        assert probe.move is None   # Nc3 never, Ba4 below -100: nothing playable, so both are skipped
        values.append(engine.books.learned.learned_moves(key)["b5a4"].value)
    assert values[0] > -150 and values[2] > values[1] > values[0]
    assert engine.books.learned.learned_moves(key)["b1c3"].never


def test_a_torn_last_learning_record_is_skipped_and_a_broken_one_named(workdir: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    engine = paper_engine(workdir)
    opponent = paper_opponent()
    play_learning_game(engine, opponent)
    play_learning_game(engine, opponent)
    whole = (workdir / BOOK_LRN).read_text()
    records = whole.count("[Event ")
    assert records == 2
    torn = workdir / "torn.lrn"
    torn.write_text(whole[: whole.rindex(" { ") + 5])   # an engine killed while appending
    (workdir / "elsewhere").mkdir()
    monkeypatch.chdir(workdir / "elsewhere")   # a fresh engine with a store of its own
    fresh = Engine()
    fresh.book.close()
    fresh.book.use_book(str(workdir / "book.bin"))
    first_playable_settings(fresh)
    assert fresh.import_learning(str(torn)) == 1
    assert len(fresh.learner.import_skipped) == 1 and "torn.lrn:" in fresh.learner.import_skipped[0]
    broken = workdir / "broken.lrn"
    lines = whole.splitlines(True)
    first_moves = next(index for index, line in enumerate(lines) if "1. e4" in line)
    lines[first_moves] = lines[first_moves].replace("1. e4", "1. Qz9", 1)   # the first of two records
    broken.write_text("".join(lines))
    with pytest.raises(LearnFileError, match=r"broken\.lrn:\d+"):
        fresh.import_learning(str(broken))


def test_learn_0_learns_and_writes_nothing(workdir: Path) -> None:
    """Learn=0 (`learn 0`; OpenBench's and the SPRTs' setting): a game played to its end leaves no
    book.lrn or position.lrn and no own results of its book moves in the store."""
    engine = paper_engine(workdir)
    engine.learner.mask = 0
    moves = play_learning_game(engine, paper_opponent())
    engine.finish_game("0-1")
    assert not (workdir / BOOK_LRN).exists() and not (workdir / POSITION_LRN).exists()
    assert all(engine.books.learned.learned_moves(board_after(moves[:ply]).key) == {} for ply in range(len(moves)))
    engine.learner.mask = 7   # the same game learned with learning on does leave them
    play_learning_game(engine, paper_opponent())
    engine.finish_game("0-1")
    assert (workdir / BOOK_LRN).is_file()
