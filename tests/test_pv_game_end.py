"""A principal variation ends where the game would end: no move after a threefold repetition, the
fiftieth move, a mate or a stalemate (fastchess warns of such PVs, lichess-bot replays them), in
the core's cut and in every line a search reports."""
from __future__ import annotations

import chess
import pytest

from ponderosa.core_ext.core import Board, Evaluator, Search, TranspositionTable
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits, Thinking

KNIGHTS_OUT_AND_BACK = ["g1f3", "g8f6", "f3g1", "f6g8"]


def core_at(fen: str, moves: list[str]) -> Search:
    board = Board(fen)
    for move in moves:
        board.push_uci(move)
    core = Search(TranspositionTable(1 << 20), Evaluator())
    assert core.set_position(board) > 0
    return core


def first_move_after_game_end(board: chess.Board, pv: list[str]) -> int | None:
    """The index of the first PV move played after the game ended, by python-chess's rules."""
    board = board.copy()
    for index, move in enumerate(pv):
        if board.is_repetition(3) or board.halfmove_clock >= 100 or not any(board.legal_moves):
            return index
        board.push_uci(move)
    return None


def ends_the_game(board: chess.Board, pv: list[str]) -> bool:
    board = board.copy()
    for move in pv:
        board.push_uci(move)
    return board.halfmove_clock >= 100 or board.is_repetition(3)


def test_a_line_stops_at_the_third_repetition() -> None:
    core = core_at(chess.STARTING_FEN, KNIGHTS_OUT_AND_BACK)   # the start position has been seen twice
    line = KNIGHTS_OUT_AND_BACK + ["e2e4", "e7e5"]
    assert core.playable(line) == KNIGHTS_OUT_AND_BACK        # the fourth move makes it three times
    fresh = core_at(chess.STARTING_FEN, [])
    assert fresh.playable(line) == line                        # twice is no draw yet


def test_a_line_stops_at_the_fiftieth_move_and_at_mate() -> None:
    core = core_at("8/8/8/3k4/8/8/8/R3K3 w - - 98 80", [])
    assert core.playable(["a1a2", "d5d4", "a2a3", "d4d5"]) == ["a1a2", "d5d4"]
    mate = core_at("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", [])
    assert mate.playable(["a1a8", "g8h7"]) == ["a1a8"]   # nothing is legal after the mate
    assert mate.playable(["a1a7", "e1e2", "a7a8"]) == ["a1a7"]   # nor is a move of nothing


def test_every_reported_pv_ends_with_the_game() -> None:
    """A shuffling game played on with its history: the searches' PVs, checked by python-chess."""
    engine = Engine()
    engine.options.set("OwnBook", False)
    start = "4k3/8/8/3r4/8/8/8/R3K3 w - - 94 60"   # a rook each, the counter near fifty moves
    engine.set_position(start)
    board = chess.Board(start)
    reports: list[tuple[chess.Board, Thinking]] = []
    for _ in range(8):
        if board.is_game_over(claim_draw=False) or board.halfmove_clock >= 100:
            break
        root = board.copy()
        result = engine.think(SearchLimits(depth=9),
                              on_thinking=lambda report, root=root: reports.append((root, report)))
        assert result.best_move is not None
        engine.make_move(result.best_move)
        board.push_uci(result.best_move)
    assert reports
    ending = [report for root, report in reports if ends_the_game(root, report.pv)]
    assert ending, "no PV reached the fiftieth move: the test shows nothing"
    for root, report in reports:
        assert first_move_after_game_end(root, report.pv) is None, (root.fen(), report.pv)


@pytest.mark.parametrize("moves", [KNIGHTS_OUT_AND_BACK * 2])
def test_reported_pvs_after_repetitions_end_with_the_game(moves: list[str]) -> None:
    engine = Engine()
    engine.options.set("OwnBook", False)
    board = chess.Board()
    for move in moves[:-1]:
        engine.make_move(move)
        board.push_uci(move)
    reports: list[Thinking] = []
    engine.think(SearchLimits(depth=8), on_thinking=reports.append)
    assert reports
    for report in reports:
        assert first_move_after_game_end(board, report.pv) is None, report.pv
