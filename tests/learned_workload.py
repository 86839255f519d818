"""The games that tests/test_learned_store.py's worker processes learn, and what a store must hold
after any set of them: shared by the workers (`python -m tests.learned_workload`, see `main`) and the checks.

Each game touches shared rows (the same book-learning entries, own_results and PostBook rows for
every game, so a lost update shows in a counter) and rows of its own, keyed by the game's number
(so a game half-written, or written without its `games` row, shows too)."""
from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ponderosa.engine.learning.rules import LearnedUpdate
from ponderosa.engine.learning.store import GameLearning, LearnedStore, PositionEntry, open_learned_store

SHARED_KEY = 0xF00D_0000_0000_0001     # above 2**63: stored as a negative BIGINT
SHARED_MOVE = "e2e4"                    # every game: one book update and one own result
EVEN_MOVE = "d2d4"                      # games with an even number only
POSTBOOK_KEY = 0x0000_BEEF_0000_0002
POSTBOOK_MOVE = "c2c4"
OWN_KEY_BASE = 1 << 40
OWN_MOVE = "g1f3"
GAMES_PER_WORKER = 100_000              # game numbers of worker w: w * GAMES_PER_WORKER + index


def game_number(worker: int, index: int) -> int:
    return worker * GAMES_PER_WORKER + index


def game_id(number: int) -> str:
    return f"game-{number}"


def number_of(game: str) -> int:
    return int(game.removeprefix("game-"))


def own_key(number: int, row: int) -> int:
    return OWN_KEY_BASE + number * 1000 + row


def points_of(number: int) -> float:
    return (number % 3) / 2    # 0, 0.5 or 1: sums of these are exact in floating point


def game_learning(number: int, own_rows: int) -> GameLearning:
    book = [LearnedUpdate(SHARED_KEY, SHARED_MOVE, float(number % 200 - 100))]
    if number % 2 == 0:
        book.append(LearnedUpdate(SHARED_KEY, EVEN_MOVE, 10.0))
    book += [LearnedUpdate(own_key(number, row), OWN_MOVE, float(number)) for row in range(own_rows)]
    return GameLearning(
        game_id(number),
        book=book,
        own_results=[(SHARED_KEY, SHARED_MOVE, points_of(number))],
        postbook=[(POSTBOOK_KEY, POSTBOOK_MOVE, number % 100, points_of(number))],
        positions=[PositionEntry(own_key(number, 0), number % 500, 8, 3)],
        summary=f"workload game {number}")


@dataclass(frozen=True)
class Totals:
    """What the shared rows must hold after the given games."""

    shared_count: int
    even_count: int
    own_games: int
    own_points: float
    postbook_games: int
    postbook_points: float


def expected_totals(numbers: Iterable[int]) -> Totals:
    numbers = list(numbers)
    points = sum(points_of(number) for number in numbers)
    return Totals(len(numbers), sum(1 for number in numbers if number % 2 == 0), len(numbers), points,
                  len(numbers), points)


def measured_totals(store: LearnedStore) -> Totals:
    moves = store.learned_moves(SHARED_KEY)
    shared, even = moves.get(SHARED_MOVE), moves.get(EVEN_MOVE)
    postbook = {entry.move: entry for entry in store.postbook_moves(POSTBOOK_KEY)}.get(POSTBOOK_MOVE)
    return Totals(shared.count if shared else 0, even.count if even else 0,
                  shared.own_games if shared else 0, shared.own_points if shared else 0.0,
                  postbook.games if postbook else 0, postbook.points if postbook else 0.0)


def wait_for(go_file: str) -> None:
    """Start together: every worker has imported everything before the first touches the store."""
    if go_file == "-":
        return
    print("ready", flush=True)
    while not Path(go_file).exists():
        time.sleep(0.001)


def main(arguments: list[str]) -> int:
    """learn LOCATION WORKER GAMES OWN_ROWS GO_FILE: learn games 0..GAMES-1 of WORKER, printing
    `recorded NUMBER` after each commit; contest LOCATION GAMES GO_FILE: learn the games of worker 0
    that every contesting worker learns too, printing how many this worker was first to learn."""
    mode, location = arguments[0], arguments[1]
    store = open_learned_store(location)
    if mode == "learn":
        worker, games, own_rows, go_file = int(arguments[2]), int(arguments[3]), int(arguments[4]), arguments[5]
        wait_for(go_file)
        for index in range(games):
            number = game_number(worker, index)
            if not store.record_game(game_learning(number, own_rows)):
                print(f"game {number} was already learned", flush=True)
                return 1
            print(f"recorded {number}", flush=True)
    elif mode == "contest":
        games, go_file = int(arguments[2]), arguments[3]
        wait_for(go_file)
        first = sum(store.record_game(game_learning(game_number(0, index), 1)) for index in range(games))
        print(f"first {first}", flush=True)
    else:
        print(f"unknown mode {mode}", flush=True)
        return 2
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
