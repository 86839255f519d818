"""The core's Chess960 rules, held to python-chess and to published counts: perft 1-4 of all 960 start
positions (tests/data/chess960_start_perft.txt, counted by python-chess alone with
tools/generate/chess960_perft.py), perft 1-5 of 40 published Chess960 perft positions
(tests/data/chess960_perft.epd; depth 5 with -m slow), legal moves, FENs and check detection along
seeded random games against python-chess, X-FEN and Shredder-FEN in and out, the unusual castlings
(king onto its own rook's square, king or rook standing still) and standard chess left as it was."""
from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from ponderosa.core_ext.core import Board

from tests.conftest import data_file, read_perft_epd

START_PERFT = "chess960_start_perft.txt"
PUBLISHED = "chess960_perft.epd"
SLOW_FROM_DEPTH = 5            # the published depth-5 counts (565 million leaves together) run with -m slow
START_GROUPS = 10              # the 960 start positions in 10 tests of 96

CROSSCHECK_POSITIONS = 10_000  # positions compared with python-chess along the random games
CROSSCHECK_MAX_PLIES = 40      # a game stops here (or at mate or stalemate); the next starts elsewhere
CASTLE_PROBABILITY = 0.5       # when castling is legal, castle with this probability
# The seeded games (252 of them) castle 253 times and meet 532 legal castling moves: castling must
# really be exercised, so too few of either fails the test.
MIN_CASTLINGS = 200
MIN_CASTLING_MOVES = 400


def read_start_table(path: Path) -> list[tuple[int, str, list[int]]]:
    """(n, Shredder-FEN, [perft 1, ..., perft 4]) for every start position of the table."""
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        rows.append((int(fields[0]), " ".join(fields[1:7]), [int(count) for count in fields[7:]]))
    return rows


START_TABLE = read_start_table(data_file(START_PERFT))


def test_start_table_is_complete() -> None:
    assert [number for number, _, _ in START_TABLE] == list(range(960))
    assert all(len(counts) == 4 for _, _, counts in START_TABLE)
    # The standard start position, whose counts every engine knows.
    assert START_TABLE[518][1:] == ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
                                    [20, 400, 8902, 197281])


@pytest.mark.parametrize("group", range(START_GROUPS))
def test_start_positions(group: int) -> None:
    """Perft 1-4 against python-chess's counts; FENs in and out against python-chess's X-FEN and Shredder-FEN."""
    mismatches = []
    for number, shredder_fen, counts in START_TABLE[group::START_GROUPS]:
        reference = chess.Board.from_chess960_pos(number)
        assert reference.shredder_fen() == shredder_fen, f"table line {number}"
        board = Board(shredder_fen, chess960=True)
        from_x_fen = Board(reference.fen(), chess960=True)
        found = {
            "fen": board.fen(),
            "shredder_fen": board.shredder_fen(),
            "X-FEN in, fen": from_x_fen.fen(),
            "X-FEN in, key": from_x_fen.key,
            "perft": [board.perft(depth) for depth in range(1, 5)],
        }
        expected = {
            "fen": reference.fen(),
            "shredder_fen": shredder_fen,
            "X-FEN in, fen": reference.fen(),
            "X-FEN in, key": board.key,
            "perft": counts,
        }
        for name, value in found.items():
            if value != expected[name]:
                mismatches.append(f"{number} {shredder_fen}: {name} {value} != {expected[name]}")
    assert not mismatches, "\n".join(mismatches)


def _published_params() -> list:
    params = []
    for fen, depth, nodes, label in read_perft_epd(data_file(PUBLISHED)):
        marks = (pytest.mark.slow,) if depth >= SLOW_FROM_DEPTH else ()
        params.append(pytest.param(fen, depth, nodes, id=label, marks=marks))
    return params


def test_published_set_size() -> None:
    cases = read_perft_epd(data_file(PUBLISHED))
    assert len({fen for fen, _, _, _ in cases}) == 40
    assert sorted({depth for _, depth, _, _ in cases}) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("fen,depth,nodes", _published_params())
def test_published_perft(fen: str, depth: int, nodes: int) -> None:
    assert Board(fen, chess960=True).perft(depth) == nodes


def _describe(board: Board, reference: chess.Board, history: list[str]) -> str:
    core_moves = sorted(board.legal_moves())
    reference_moves = sorted(move.uci() for move in reference.legal_moves)
    return (f"\nstart {reference.root().fen()} moves {' '.join(history)}"
            f"\npython-chess fen {reference.fen()}  shredder {reference.shredder_fen()}"
            f"\ncore         fen {board.fen()}  shredder {board.shredder_fen()}"
            f"\ncore only:         {sorted(set(core_moves) - set(reference_moves))}"
            f"\npython-chess only: {sorted(set(reference_moves) - set(core_moves))}")


def test_random_games_against_python_chess() -> None:
    """Seeded random games from random start positions, castling whenever a coin says so: at every
    ply the legal moves, both FENs and the key of the same position set up afresh agree; every
    castling move's gives_check agrees; taking every move back restores the start."""
    rng = random.Random(960)
    positions = castlings = castling_moves = games = 0
    castling_kinds: set[tuple[bool, bool]] = set()   # (white, king side) of the castlings played
    while positions < CROSSCHECK_POSITIONS:
        games += 1
        reference = chess.Board.from_chess960_pos(rng.randrange(960))
        start_fen = reference.fen()
        # Half the games start from X-FEN, half from Shredder-FEN.
        board = Board(start_fen if games % 2 else reference.shredder_fen(), chess960=True)
        start_key = board.key
        history: list[str] = []
        while len(history) < CROSSCHECK_MAX_PLIES and positions < CROSSCHECK_POSITIONS:
            positions += 1
            legal = list(reference.legal_moves)
            assert sorted(board.legal_moves()) == sorted(move.uci() for move in legal), \
                _describe(board, reference, history)
            assert (board.fen(), board.shredder_fen()) == (reference.fen(), reference.shredder_fen()), \
                _describe(board, reference, history)
            # The key of the same position set up from its FEN (castling rights hash by rook square).
            # Not after a double pawn push: the core hashes the en-passant square whenever an enemy pawn
            # stands beside the pawn, legal capture or not, while the FEN names it only when the capture
            # is legal (standard chess behaves the same way).
            if reference.ep_square is None:
                assert Board(board.fen(), chess960=True).key == board.key, _describe(board, reference, history)
            if not legal:
                break
            castling = [move for move in legal if reference.is_castling(move)]
            castling_moves += len(castling)
            for move in castling:
                assert board.gives_check(move.uci()) == reference.gives_check(move), \
                    f"gives_check {move.uci()}" + _describe(board, reference, history)
            if castling and rng.random() < CASTLE_PROBABILITY:
                move = rng.choice(castling)
                castlings += 1
                castling_kinds.add((reference.turn, reference.is_kingside_castling(move)))
            else:
                move = rng.choice(legal)
            reference.push(move)
            board.push_uci(move.uci())
            history.append(move.uci())
        for _ in history:
            board.pop()
        assert (board.fen(), board.key) == (start_fen, start_key), f"after taking back {' '.join(history)}"
    assert castlings >= MIN_CASTLINGS, f"only {castlings} castlings in {games} games"
    assert castling_moves >= MIN_CASTLING_MOVES, f"only {castling_moves} legal castling moves in {games} games"
    assert castling_kinds == {(True, True), (True, False), (False, True), (False, False)}


# Castlings where king and rook squares overlap or stay put, each checked square by square
# (a1 = 0 ... h8 = 63) and against python-chess.
A1, B1, C1, D1, E1, F1, G1, H1 = range(8)
F8, G8 = 61, 62


@pytest.mark.parametrize("fen,move,after", [
    # The king castles onto its own rook's square (king f1, rook g1: short castling ends Rf1 Kg1).
    ("k7/8/8/8/8/8/8/4RKR1 w KQ - 0 1", "f1g1", {E1: "R", F1: "R", G1: "K", H1: ""}),
    # The same position castling long: king f1 to c1 over its e1 rook, which goes to d1.
    ("k7/8/8/8/8/8/8/4RKR1 w KQ - 0 1", "f1e1", {C1: "K", D1: "R", E1: "", F1: "", G1: "R"}),
    # King and rook swap squares (king d1, rook c1, long castling).
    ("k7/8/8/8/8/8/8/2RK3R w KQ - 0 1", "d1c1", {C1: "K", D1: "R", H1: "R"}),
    # The king does not move at all (king g1, rook h1, short castling): only the rook goes, to f1.
    ("4k3/8/8/8/8/8/8/R5KR w KQ - 0 1", "g1h1", {F1: "R", G1: "K", H1: ""}),
    # The king does not move castling long (king c1, rook a1): the rook goes to d1.
    ("4k3/8/8/8/8/8/8/R1K4R w KQ - 0 1", "c1a1", {A1: "", C1: "K", D1: "R"}),
    # The rook does not move (king e1, rook f1, short castling): only the king goes, to g1.
    ("7k/8/8/8/8/8/8/R3KR2 w KQ - 0 1", "e1f1", {E1: "", F1: "R", G1: "K"}),
    # Black: the king castles onto its own rook's square.
    ("4rkr1/8/8/8/8/8/8/K7 b kq - 0 1", "f8g8", {F8: "r", G8: "k"}),
])
def test_overlapping_castling(fen: str, move: str, after: dict[int, str]) -> None:
    board = Board(fen, chess960=True)
    reference = chess.Board(fen, chess960=True)
    assert reference.is_valid()
    assert move in board.legal_moves()
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in reference.legal_moves)
    assert board.gives_check(move) == reference.gives_check(chess.Move.from_uci(move))
    before_fen, before_key = board.fen(), board.key
    board.push_uci(move)
    reference.push_uci(move)
    assert {square: board.piece_at(square) for square in after} == after
    assert (board.fen(), board.shredder_fen()) == (reference.fen(), reference.shredder_fen())
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in reference.legal_moves)
    assert board.key == Board(board.fen(), chess960=True).key
    assert board.pop() == move
    assert (board.fen(), board.key) == (before_fen, before_key)


def test_x_fen_and_shredder_fen_give_the_same_position() -> None:
    shredder = Board("k7/8/8/8/8/8/8/4RKR1 w GE - 0 1", chess960=True)
    x_fen = Board("k7/8/8/8/8/8/8/4RKR1 w KQ - 0 1", chess960=True)
    assert shredder.chess960 and x_fen.chess960
    assert shredder.key == x_fen.key
    assert shredder.fen() == x_fen.fen() == "k7/8/8/8/8/8/8/4RKR1 w KQ - 0 1"
    assert shredder.shredder_fen() == x_fen.shredder_fen() == "k7/8/8/8/8/8/8/4RKR1 w GE - 0 1"
    assert sorted(shredder.legal_moves()) == sorted(x_fen.legal_moves())
    assert {"f1g1", "f1e1"} <= set(shredder.legal_moves())


@pytest.mark.parametrize("fen", [
    # An inner rook named by its file in X-FEN (a rook beyond it on the same side), and its Shredder twin.
    "rk2r3/8/8/8/8/8/8/RK2R2R w Eq - 0 1",
    "rk2r3/8/8/8/8/8/8/RK2R2R w Ea - 0 1",
    # Rights on one side only, for one colour.
    "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w Kq - 0 1",
    "1r2k1r1/8/8/8/8/8/8/1R2K1R1 b Gb - 0 1",
    # The standard array in Chess960 mode: castling is written king takes rook.
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
])
def test_fen_round_trips(fen: str) -> None:
    reference = chess.Board(fen, chess960=True)
    assert reference.is_valid()
    board = Board(fen, chess960=True)
    assert (board.fen(), board.shredder_fen()) == (reference.fen(), reference.shredder_fen())
    assert Board(board.fen(), chess960=True).key == Board(board.shredder_fen(), chess960=True).key == board.key
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in reference.legal_moves)


@pytest.mark.parametrize("fen,move,legal", [
    # The castling rook shields the king: the queen on a1 would give check once the b1 rook leaves.
    ("k7/8/8/8/8/8/8/qRK5 w Q - 0 1", "c1b1", False),
    # A square the king passes over is attacked.
    ("3k1r2/8/8/8/8/8/8/R1K4R w KQ - 0 1", "c1h1", False),
    # A piece between king and rook, on neither's destination.
    ("3k4/8/8/8/8/8/8/RNK4R w KQ - 0 1", "c1a1", False),
    # The rook's destination is only attacked: castling is legal.
    ("4k3/3r4/8/8/8/8/8/R1K4R w KQ - 0 1", "c1a1", True),
    # In check: no castling.
    ("2r1k3/8/8/8/8/8/8/R1K4R w KQ - 0 1", "c1h1", False),
])
def test_castling_legality(fen: str, move: str, legal: bool) -> None:
    reference = chess.Board(fen, chess960=True)
    assert reference.is_valid()
    board = Board(fen, chess960=True)
    assert (move in board.legal_moves()) == legal
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in reference.legal_moves)


def test_standard_chess_unchanged() -> None:
    start = Board()
    assert not start.chess960
    assert start.fen() == chess.STARTING_FEN
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    board = Board(fen)
    assert not board.chess960
    assert board.fen() == fen
    assert {"e1g1", "e1c1"} <= set(board.legal_moves())
    assert not {"e1h1", "e1a1"} & set(board.legal_moves())
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in chess.Board(fen).legal_moves)
    board.push_uci("e1g1")
    assert board.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    assert (board.piece_at(G1), board.piece_at(F1), board.piece_at(H1)) == ("K", "R", "")
    board.push_uci("e8c8")
    assert board.fen() == "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"
    board.pop()
    board.pop()
    assert board.fen() == fen
    # The same position in Chess960 mode castles king takes rook.
    chess960 = Board(fen, chess960=True)
    assert {"e1h1", "e1a1"} <= set(chess960.legal_moves())
    assert not {"e1g1", "e1c1"} & set(chess960.legal_moves())
