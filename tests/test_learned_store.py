"""The learned-data store on both backends: SQLite (one file) and PostgreSQL (gang learning).

Unit tests of what the store does with each kind of learning, then the issue's acceptance tests:
four processes learning 200 games into one store at once lose no update, and a process killed
with SIGKILL in the middle of learning leaves the store consistent.

The PostgreSQL tests need a database the tests may create schemas in: PONDEROSA_TEST_POSTGRES=
postgresql://USER@HOST:PORT/DB (.ci/run starts a throwaway server and sets it). Each test gets a
schema of its own, dropped afterwards."""
from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from ponderosa.engine.book.file import encode_move
from ponderosa.engine.engine import Engine
from ponderosa.engine.learning import store as learned
from ponderosa.engine.learning.rules import AGING_FACTOR, RESULT_LEARNED_VALUE, LearnedUpdate
from ponderosa.engine.learning.store import (
    GameLearning,
    LearnedStore,
    LearnedStoreError,
    PositionEntry,
    SQLiteLearnedStore,
    open_learned_store,
)

from tests.learned_workload import (
    EVEN_MOVE,
    OWN_KEY_BASE,
    OWN_MOVE,
    SHARED_KEY,
    SHARED_MOVE,
    expected_totals,
    game_id,
    game_learning,
    game_number,
    measured_totals,
    number_of,
    own_key,
)

REPO = Path(__file__).resolve().parents[1]
POSTGRES_URL = os.environ.get("PONDEROSA_TEST_POSTGRES", "")
POSTGRES_MISSING = ("PONDEROSA_TEST_POSTGRES is not set (a postgresql:// URL of a database the tests may create "
                    "schemas in; .ci/run starts one)")
if os.environ.get("PONDEROSA_TEST_POSTGRES_UNAVAILABLE"):
    POSTGRES_MISSING += f": {os.environ['PONDEROSA_TEST_POSTGRES_UNAVAILABLE']}"
WORKERS = 4
GAMES_EACH = 50
PROCESS_TIMEOUT_SECONDS = 120


def with_search_path(url: str, schema: str) -> str:
    """The URL with the schema as the connection's search_path (libpq's options parameter)."""
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


@pytest.fixture
def postgres_location() -> Iterator[str]:
    """A fresh schema in the test database, as a store URL."""
    if not POSTGRES_URL:
        pytest.skip(POSTGRES_MISSING)
    psycopg = pytest.importorskip("psycopg", reason='psycopg is missing: pip install "ponderosa[postgres]"')
    schema = f"learned_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_search_path(POSTGRES_URL, schema)
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "learned.db")
    return str(request.getfixturevalue("postgres_location"))


@pytest.fixture
def store(location: str) -> Iterator[LearnedStore]:
    opened = open_learned_store(location)
    yield opened
    opened.close()


# -- what the store does with each kind of learning ---------------------------------------

KEY = 0x8000_0000_0000_0005   # above 2**63: kept as a negative 64-bit integer, read back unsigned


def test_book_learning_is_averaged_with_what_was_learned_before(store: LearnedStore) -> None:
    store.record_game(GameLearning("a", book=[LearnedUpdate(KEY, "e2e4", 120.0)]))
    assert store.learned_moves(KEY)["e2e4"].value == 120.0
    store.record_game(GameLearning("b", book=[LearnedUpdate(KEY, "e2e4", -40.0)]))
    store.record_game(GameLearning("c", book=[LearnedUpdate(KEY, "e2e4", 10.0), LearnedUpdate(KEY, "d2d4", 7.5)]))
    moves = store.learned_moves(KEY)
    assert moves["e2e4"].value == pytest.approx(((120.0 - 40.0) / 2 + 10.0) / 2)
    assert moves["e2e4"].count == 3
    assert (moves["d2d4"].value, moves["d2d4"].count) == (7.5, 1)
    assert store.learned_moves(KEY + 1) == {}


def test_a_never_flag_stays_whatever_is_learned_later(store: LearnedStore) -> None:
    store.record_game(GameLearning("lost", never=[(KEY, "b1c3")]))
    store.record_game(GameLearning("won", book=[LearnedUpdate(KEY, "b1c3", 500.0)]))
    store.age_skipped(KEY, ["b1c3"])
    move = store.learned_moves(KEY)["b1c3"]
    assert move.never and move.value == RESULT_LEARNED_VALUE and move.count == 2


def test_aging_moves_mildly_bad_values_toward_zero(store: LearnedStore) -> None:
    store.record_game(GameLearning("g", book=[LearnedUpdate(KEY, "e2e4", -80.0), LearnedUpdate(KEY, "d2d4", 80.0)]))
    store.age_skipped(KEY, ["e2e4", "d2d4"])
    moves = store.learned_moves(KEY)
    assert moves["e2e4"].value == pytest.approx(-80.0 * AGING_FACTOR)
    assert moves["d2d4"].value == 80.0


def test_own_results_and_the_postbook_accumulate(store: LearnedStore) -> None:
    for number, points in enumerate([1.0, 0.5, 0.0, 1.0]):
        store.record_game(GameLearning(f"g{number}", own_results=[(KEY, "e2e4", points)],
                                       postbook=[(KEY, "g1f3", 30 + number, points)]))
    move = store.learned_moves(KEY)["e2e4"]
    assert (move.own_games, move.own_points, move.count) == (4, 2.5, 0)
    assert move.own_score == pytest.approx(62.5)
    [postbook] = store.postbook_moves(KEY)
    assert (postbook.key, postbook.move, postbook.eval, postbook.games, postbook.points) == (KEY, "g1f3", 33, 4, 2.5)


def test_positions_are_first_in_first_out(store: LearnedStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(learned, "POSITION_TABLE_LIMIT", 3)
    for number in range(1, 5):
        store.record_game(GameLearning(f"g{number}", positions=[PositionEntry(KEY + number, -number, 9, 3)]))
    assert [entry.key - KEY for entry in store.learned_positions()] == [2, 3, 4]
    # learned again: to the back of the queue, with the new score; the oldest drops out
    store.record_game(GameLearning("again", positions=[PositionEntry(KEY + 2, 50, 12, 1),
                                                       PositionEntry(KEY + 5, -5, 9, 3)]))
    assert store.learned_positions() == [PositionEntry(KEY + 4, -4, 9, 3), PositionEntry(KEY + 2, 50, 12, 1),
                                         PositionEntry(KEY + 5, -5, 9, 3)]


def test_the_tables_that_grow_with_the_games_played_are_capped(store: LearnedStore,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot's store stays bounded: the oldest learned game ids and the least played PostBook
    moves go beyond their limits (positions: test above)."""
    monkeypatch.setattr(learned, "GAMES_TABLE_LIMIT", 4)
    monkeypatch.setattr(learned, "POSTBOOK_TABLE_LIMIT", 3)
    for number in range(10):
        played = 2 if number == 0 else 1   # the first game's move is played twice: it stays
        for repeat in range(played):
            store.record_game(GameLearning(f"g{number}.{repeat}", postbook=[(KEY + number, "g1f3", 40, 1.0)]))
    games = store.learned_games()
    assert sorted(games) == ["g6.0", "g7.0", "g8.0", "g9.0"]
    assert sorted(entry.key - KEY for number in range(10) for entry in store.postbook_moves(KEY + number)) == [0, 8, 9]
    # the newest ids still stop a second learning; a dropped one is learned again
    assert not store.record_game(GameLearning("g9.0", book=[LearnedUpdate(KEY, "e2e4", 1.0)]))
    assert store.record_game(GameLearning("g1.0", book=[LearnedUpdate(KEY, "e2e4", 1.0)]))
    assert len(store.learned_games()) == 4


def test_a_game_is_learned_once(store: LearnedStore) -> None:
    learning = game_learning(7, 2)
    assert store.record_game(learning)
    before = store.dump()
    assert not store.record_game(learning)
    assert not store.record_game(GameLearning(learning.game_id, book=[LearnedUpdate(KEY, "e2e4", 1.0)]))
    assert store.dump() == before
    assert store.learned_games() == {learning.game_id: learning.updates}


def test_clear_forgets_the_learning_and_keeps_user_values_unless_told(store: LearnedStore) -> None:
    store.set_user_value(KEY, "e2e4", 75)
    store.record_game(game_learning(1, 2))
    store.clear()
    dump = store.dump()
    assert dump["user_values"] and not any(dump[table] for table in ("book_learning", "own_results", "postbook",
                                                                     "positions"))
    assert store.learned_games() == {}
    assert store.record_game(game_learning(1, 2)), "a cleared game can be learned again"
    store.clear(keep_user_values=False)
    assert store.user_values(KEY) == {} and store.learned_games() == {}


def test_user_values_are_set_replaced_and_cleared(store: LearnedStore) -> None:
    assert store.user_values(KEY) == {}
    assert store.set_user_values([(KEY, "e2e4", 100), (KEY, "d2d4", 5), (KEY + 1, "g1f3", 0)]) == 3
    store.set_user_value(KEY, "e2e4", 15)
    store.set_user_value(KEY, "d2d4", None)
    assert store.user_values(KEY) == {"e2e4": 15}
    assert store.user_values(KEY + 1) == {"g1f3": 0}


def test_a_user_value_out_of_range_is_refused_and_nothing_is_written(store: LearnedStore) -> None:
    with pytest.raises(LearnedStoreError):
        store.set_user_values([(KEY, "e2e4", 50), (KEY, "d2d4", 101)])
    assert store.user_values(KEY) == {}, "the transaction is rolled back whole"
    store.set_user_value(KEY, "e2e4", 50)
    assert store.user_values(KEY) == {"e2e4": 50}


def test_a_second_store_sees_what_the_first_learned(location: str) -> None:
    first, second = open_learned_store(location), open_learned_store(location)
    assert second.learned_moves(KEY) == {}
    first.record_game(GameLearning("g", book=[LearnedUpdate(KEY, "e2e4", 30.0)]))
    assert second.learned_moves(KEY)["e2e4"].value == 30.0, "seen at the next probe, without reopening"
    first.close()
    second.close()


# -- stores that cannot be used --------------------------------------------------------------

def test_a_file_that_is_not_a_database_gives_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not an SQLite file, just text " * 200)
    store = SQLiteLearnedStore(path)
    with pytest.raises(LearnedStoreError, match="garbage.db"):
        store.learned_moves(KEY)
    with pytest.raises(LearnedStoreError, match="garbage.db"):
        store.record_game(GameLearning("g"))
    assert path.read_bytes().startswith(b"this is not an SQLite file")


def test_a_foreign_sqlite_database_gives_an_error_naming_it(tmp_path: Path) -> None:
    other_format = tmp_path / "other.db"
    with sqlite3.connect(other_format) as connection:
        connection.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        connection.execute("INSERT INTO meta VALUES ('format', 'someone-else')")
    other_tables = tmp_path / "tables.db"
    with sqlite3.connect(other_tables) as connection:
        connection.execute("CREATE TABLE meta (x INTEGER)")
    with pytest.raises(LearnedStoreError, match=r"other\.db: not a Ponderosa learned-data store"):
        SQLiteLearnedStore(other_format).learned_moves(KEY)
    with pytest.raises(LearnedStoreError, match=r"tables\.db"):
        SQLiteLearnedStore(other_tables).record_game(GameLearning("g"))
    with sqlite3.connect(other_format) as connection:   # nothing of ours was left behind
        assert [row[0] for row in connection.execute("SELECT name FROM sqlite_master")] == \
            ["meta", "sqlite_autoindex_meta_1"]


def test_a_postgresql_server_that_cannot_be_reached_gives_an_error_naming_it_without_the_password() -> None:
    pytest.importorskip("psycopg", reason='psycopg is missing: pip install "ponderosa[postgres]"')
    store = open_learned_store("postgresql://gang:s3cret@127.0.0.1:1/learned?connect_timeout=5")
    with pytest.raises(LearnedStoreError) as raised:
        store.learned_moves(KEY)
    message = str(raised.value)
    assert message.startswith("postgresql://gang:***@127.0.0.1:1/learned?connect_timeout=5: cannot connect")
    assert "s3cret" not in message and store.location == "postgresql://gang:***@127.0.0.1:1/learned?connect_timeout=5"
    with pytest.raises(LearnedStoreError, match="not a usable PostgreSQL URL"):
        open_learned_store("postgres://host/db?password=hidden&bogus_parameter=1").learned_moves(KEY)


def test_without_psycopg_a_postgresql_store_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)   # import psycopg now raises ImportError
    store = open_learned_store("postgresql://gang@db.example/learned")
    with pytest.raises(LearnedStoreError, match=r'postgresql://gang@db\.example/learned: .*pip install "ponderosa\['
                                                r'postgres\]"'):
        store.record_game(GameLearning("g"))


def test_the_engine_keeps_its_store_when_another_cannot_be_used(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    engine = Engine()
    before = engine.books.learned
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(LearnedStoreError, match=re.escape('pip install "ponderosa[postgres]"')):
        engine.options.set("LearnStore", "postgresql://gang@db.example/learned")
    assert engine.books.learned is before and engine.learner.store is before and engine.book.learned is before


def test_the_engine_learns_into_a_postgresql_store(postgres_location: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    engine = Engine()
    engine.options.set("LearnStore", postgres_location)
    assert engine.books.learned.location == postgres_location and engine.book.learned is engine.books.learned
    engine.books.learned.record_game(GameLearning("g", book=[LearnedUpdate(KEY, "e2e4", 30.0)]))
    assert open_learned_store(postgres_location).learned_moves(KEY)["e2e4"].count == 1
    assert not (tmp_path / learned.DEFAULT_LEARNED_FILE).exists()


def test_gang_learning_one_engine_loses_the_next_avoids_the_move(location: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """What one engine learns, another sharing the store uses at its next book probe."""
    monkeypatch.chdir(tmp_path)
    first, second = Engine(), Engine()
    for engine in (first, second):
        engine.options.set("LearnStore", location)
    first.make_move("e2e4")
    first.make_move("c7c5")
    before = {second_probe(second) for _ in range(200)}
    played = first.book_probe().move
    assert played is not None and len(before) > 1
    first.play_own_move(played)
    first.finish_game("0-1")   # it played White and lost: result learning flags its last choice
    after = {second_probe(second) for _ in range(500)}
    assert played in before and played not in after and after


def second_probe(engine: Engine) -> str | None:
    engine.new_game()
    engine.make_move("e2e4")
    engine.make_move("c7c5")
    return engine.book_probe().move


def test_a_lost_postgresql_connection_is_an_error_and_the_next_call_reconnects(postgres_location: str) -> None:
    import psycopg
    store = open_learned_store(postgres_location)
    store.record_game(GameLearning("g", book=[LearnedUpdate(KEY, "e2e4", 30.0)]))
    backend = store._connection.info.backend_pid
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute("SELECT pg_terminate_backend(%s)", (backend,))
    with pytest.raises(LearnedStoreError, match=r"^postgresql://.*: lost the connection to the PostgreSQL server"):
        store.learned_moves(KEY)
    assert store.learned_moves(KEY)["e2e4"].count == 1
    store.close()


# -- several processes at once, and a process killed mid-update ----------------------------------

def start_worker(*arguments: object) -> subprocess.Popen:
    """tests/learned_workload.py as the module tests.learned_workload, the repository's root first on
    its PYTHONPATH (the worker runs in the test's own folder)."""
    search_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return subprocess.Popen([sys.executable, "-m", "tests.learned_workload", *map(str, arguments)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": search_path})


def run_together(workers: list[subprocess.Popen], go_file: Path) -> list[str]:
    """Release the workers at once (each has imported everything and said `ready`); their output."""
    for worker in workers:
        assert worker.stdout is not None
        line = worker.stdout.readline()
        assert line == "ready\n", f"worker failed to start: {line}{worker.stderr.read() if worker.stderr else ''}"
    go_file.touch()
    outputs = []
    for worker in workers:
        output, errors = worker.communicate(timeout=PROCESS_TIMEOUT_SECONDS)
        assert worker.returncode == 0, f"worker failed: {output[-500:]} {errors[-2000:]}"
        outputs.append(output)
    return outputs


def assert_consistent(store: LearnedStore, own_rows: int) -> set[int]:
    """Every learned game's updates are all there and no update is there without its game;
    returns the numbers of the learned games."""
    games = store.learned_games()
    numbers = {number_of(game) for game in games}
    for game, updates in games.items():
        assert updates == game_learning(number_of(game), own_rows).updates, game
    own_rows_found: dict[int, int] = {}
    for key, move, value, count, never in store.dump()["book_learning"]:
        if key >= OWN_KEY_BASE:
            number = (key - OWN_KEY_BASE) // 1000
            own_rows_found[number] = own_rows_found.get(number, 0) + 1
            assert (value, count, never, move) == (float(number), 1, 0, encode_move(OWN_MOVE))
    assert own_rows_found == {number: own_rows for number in numbers}
    assert {entry.key for entry in store.learned_positions()} == {own_key(number, 0) for number in numbers}
    assert measured_totals(store) == expected_totals(numbers)
    return numbers


def test_four_processes_learning_at_once_lose_no_update(location: str, tmp_path: Path) -> None:
    go_file = tmp_path / "go"
    workers = [start_worker("learn", location, worker, GAMES_EACH, 2, go_file) for worker in range(WORKERS)]
    started = time.perf_counter()
    run_together(workers, go_file)
    elapsed = time.perf_counter() - started
    backend = "postgresql" if location.startswith("postgresql:") else "sqlite"
    print(f"{backend}: {WORKERS} processes x {GAMES_EACH} games in {elapsed:.2f} s")
    store = open_learned_store(location)
    expected = {game_number(worker, index) for worker in range(WORKERS) for index in range(GAMES_EACH)}
    assert set(store.learned_games()) == {game_id(number) for number in expected}
    assert assert_consistent(store, 2) == expected
    shared = store.learned_moves(SHARED_KEY)
    assert (shared[SHARED_MOVE].count, shared[EVEN_MOVE].count) == (WORKERS * GAMES_EACH, WORKERS * GAMES_EACH // 2)
    store.close()


def test_processes_learning_the_same_games_at_once_learn_each_once(location: str, tmp_path: Path) -> None:
    games = 25
    go_file = tmp_path / "go"
    outputs = run_together([start_worker("contest", location, games, go_file) for _ in range(WORKERS)], go_file)
    assert sum(int(output.split()[-1]) for output in outputs) == games
    store = open_learned_store(location)
    assert assert_consistent(store, 1) == {game_number(0, index) for index in range(games)}
    store.close()


def test_a_process_killed_mid_update_leaves_the_store_consistent(location: str) -> None:
    own_rows = 60   # a large transaction: the kill most likely lands inside one
    worker = start_worker("learn", location, 1, 1_000_000, own_rows, "-")
    assert worker.stdout is not None
    recorded = 0
    wanted, delay = random.randint(5, 40), random.uniform(0.0, 0.02)   # a random moment, after some games
    print(f"killed after {wanted} games + {delay * 1000:.1f} ms")
    while recorded < wanted:
        line = worker.stdout.readline()
        assert line.startswith("recorded "), f"worker failed: {line} {worker.stderr.read() if worker.stderr else ''}"
        recorded += 1
    time.sleep(delay)
    worker.send_signal(signal.SIGKILL)
    worker.communicate(timeout=PROCESS_TIMEOUT_SECONDS)
    assert worker.returncode == -signal.SIGKILL

    if not location.startswith("postgresql://"):
        with closing(sqlite3.connect(location)) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    store = open_learned_store(location)
    numbers = assert_consistent(store, own_rows)
    # one process learns in order: what survived is the games up to the kill, all or nothing each
    assert numbers == {game_number(1, index) for index in range(len(numbers))}
    assert len(numbers) >= recorded
    for index in range(len(numbers), len(numbers) + 3):
        assert store.record_game(game_learning(game_number(1, index), own_rows))
    assert len(assert_consistent(store, own_rows)) == len(numbers) + 3
    store.close()


ENGINE_WORKER = r"""
import sys, pathlib
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits
location, worker, games, go_file = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), pathlib.Path(sys.argv[4])
engine = Engine()
engine.options.set("LearnStore", location)
ids = []
print("ready", flush=True)
while not go_file.exists():
    pass
for game in range(games):
    engine.new_game()
    engine_white = game % 2 == 0
    searches = 0
    while searches < 10 and engine.outcome() is None:
        if (engine.game.turn == 1) == engine_white:
            probe = engine.book_probe()
            if probe.move is not None:
                engine.play_own_move(probe.move)
            else:
                result = engine.think(SearchLimits(depth=1))
                engine.play_own_move(result.best_move, result)
                searches += 1
        else:   # the opponent: the book's most played move, then the first legal move
            decision = engine.book_decision()
            playable = [r.candidate for r in decision.ranked] if decision else []
            engine.make_move(max(playable, key=lambda c: c.games).move if playable else engine.legal_moves()[0])
    ids.append(engine.learner.record.game_id)
    engine.finish_game("0-1" if engine_white else "1-0")   # the engine loses every game
print(" ".join(ids), flush=True)
"""


def test_four_engines_playing_at_once_learn_every_game(location: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The acceptance case with the real engine: four processes, 50 games each, every game's book
    and result learning in the shared store."""
    monkeypatch.chdir(tmp_path)
    games_each = 50
    go_file = tmp_path / "go"
    workers = [subprocess.Popen([sys.executable, "-c", ENGINE_WORKER, location, str(worker), str(games_each),
                                 str(go_file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for worker in range(WORKERS)]
    outputs = run_together(workers, go_file)
    played = [game for output in outputs for game in output.split()]
    assert len(played) == len(set(played)) == WORKERS * games_each
    store = open_learned_store(location)
    learned = store.learned_games()
    for game in played:
        assert f"{game}:book" in learned and f"{game}:result" in learned, game
    store.close()
