"""The cuckoo tables' upcoming repetition (core_ext/upcoming_repetition.pxi): a move of the side to
move that leads back to an earlier position, found without making moves, against python-chess
making every pseudo-legal move; and the search parameter that uses it."""
from __future__ import annotations

import random

import chess
import chess.polyglot
import pytest

from ponderosa.core_ext.core import Board, Evaluator, TranspositionTable, search_parameter, set_search_parameter
from ponderosa.engine.search import Searcher, SearchLimits

STARTS = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2k5/3r4/8/8/4N3/2K1B3/8 w - - 0 1",
    "4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1",
)


def repeating_moves(board: chess.Board) -> set[str]:
    """The pseudo-legal moves that make a position of the history since the last capture or
    pawn move (Polyglot keys, as the core's)."""
    window = board.halfmove_clock
    earlier = []
    replay = board.copy()
    for _ in range(min(window, len(board.move_stack))):
        replay.pop()
        earlier.append(chess.polyglot.zobrist_hash(replay))
    found = set()
    for move in board.pseudo_legal_moves:
        board.push(move)
        if chess.polyglot.zobrist_hash(board) in earlier:
            found.add(move.uci())
        board.pop()
    return found


def test_the_tables_find_exactly_the_moves_that_repeat() -> None:
    rng = random.Random(7)
    checked = found = 0
    for start in STARTS:
        for _ in range(12):
            board, core = chess.Board(start), Board(start)
            for _ply in range(40):
                expected = repeating_moves(board)
                answer = core.upcoming_repetition()
                if expected:
                    assert answer in expected, (board.fen(), [m.uci() for m in board.move_stack], expected)
                    found += 1
                else:
                    assert answer is None, (board.fen(), [m.uci() for m in board.move_stack], answer)
                checked += 1
                moves = list(board.legal_moves)
                if not moves:
                    break
                # mostly quiet piece moves, so that positions come back
                quiet = [m for m in moves
                         if not board.is_capture(m) and board.piece_type_at(m.from_square) != chess.PAWN]
                move = rng.choice(quiet if quiet and rng.random() < 0.9 else moves)
                board.push(move)
                core.push_uci(move.uci())
    assert checked > 1000 and found > 100   # the walks do come back to earlier positions


def test_a_move_of_the_other_side_is_not_one() -> None:
    board = Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    for uci in ("a1a4", "e8d8", "a4a1", "d8e8"):
        board.push_uci(uci)
    assert board.upcoming_repetition() == "a1a4"   # White to move: the rook back up repeats
    board = Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    for uci in ("a1a4", "e8d8", "e1f1", "d8d7", "f1e1", "d7e8"):
        board.push_uci(uci)
    # White to move; five plies back, with Black to move, only Black's king stood elsewhere (d7):
    # a move back that White cannot make.
    assert board.upcoming_repetition() is None
    board.push_uci("a4a5")
    assert board.upcoming_repetition() is None   # Black: only White's rook (a5-a1) gives back the start


def test_the_search_parameter_switches_it_on_and_off() -> None:
    assert search_parameter("UpcomingRepetition") == 0   # off until an SPRT says otherwise
    # White, a queen up, is to move in the start position for the second time: wherever Black's
    # knight can go back, a line repeats, and the nodes that see it no longer search on.
    board = Board("1n2k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    for uci in ("d1d2", "b8c6", "d2d1", "c6b8"):
        board.push_uci(uci)
    nodes = {}
    try:
        for switch in (0, 1):
            set_search_parameter("UpcomingRepetition", switch)
            searcher = Searcher(TranspositionTable(1 << 20), Evaluator())
            result = searcher.run(board.copy(), SearchLimits(depth=7))
            nodes[switch] = result.nodes
            assert result.score > 500   # still a queen up: White avoids the repetitions
    finally:
        set_search_parameter("UpcomingRepetition", 0)
    assert nodes[0] != nodes[1]   # the nodes with a move back raise alpha to the draw
    with pytest.raises(ValueError):
        set_search_parameter("UpcomingRepetition", 2)
