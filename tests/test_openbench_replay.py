"""tools/openbench/replay.py: a fixed-nodes game is played again move for move by fresh processes,
a game with a move the engine would not play is caught, and fastchess's comments are rebuilt."""
from __future__ import annotations

import io

import chess
import chess.engine
import chess.pgn
import pytest

from tools.engine_process import program
from tools.openbench import replay

START = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
OPTIONS = {"Threads": 1, "Hash": 16, "OwnBook": False, "Learn": 0}


def played_game(plies: int, nodes: int) -> chess.pgn.Game:
    """A game as a fastchess worker would play it: two processes, ucinewgame, go nodes N."""
    game = chess.pgn.Game.without_tag_roster()
    game.setup(chess.Board(START))
    game.headers["White"], game.headers["Black"] = "dev", "base"
    board, node = game.board(), game
    sides = [chess.engine.SimpleEngine.popen_uci(program()) for _ in range(2)]
    try:
        for side in sides:
            side.configure(OPTIONS)
        for ply in range(plies):
            result = sides[ply % 2].play(board, chess.engine.Limit(nodes=nodes), game=("fixture", ply % 2))
            board.push(result.move)
            node = node.add_variation(result.move)
    finally:
        for side in sides:
            side.quit()
    return game


def test_a_game_replays_identically_and_a_changed_move_is_found() -> None:
    game = played_game(12, 3000)
    twice = io.StringIO(str(game) + "\n\n" + str(game) + "\n\n")
    found = replay.replay([twice], program(), 3000, OPTIONS, games_per_run=1)
    assert (found.games, found.same_games, found.moves) == (2, 2, 24) and not found.first_differences

    board = game.board()
    moves = list(game.mainline_moves())
    for move in moves[:5]:
        board.push(move)
    other = next(m for m in board.legal_moves if m != moves[5])
    changed = chess.pgn.Game.without_tag_roster()
    changed.setup(chess.Board(START))
    changed.add_line(moves[:5] + [other])
    found = replay.replay([io.StringIO(str(changed) + "\n\n")], program(), 3000, OPTIONS)
    assert (found.games, found.same_games, found.moves) == (1, 0, 6)
    assert found.first_differences == [f"game 1 ply {board.ply()}: played {other.uci()}, replayed {moves[5].uci()}"]


@pytest.mark.parametrize("score, depth, turn, text", [
    (chess.engine.PovScore(chess.engine.Cp(47), chess.WHITE), 6, chess.WHITE, "+0.47/6"),
    (chess.engine.PovScore(chess.engine.Cp(47), chess.WHITE), 6, chess.BLACK, "-0.47/6"),
    (chess.engine.PovScore(chess.engine.Cp(0), chess.BLACK), 5, chess.BLACK, "0.00/5"),
    (chess.engine.PovScore(chess.engine.Mate(3), chess.BLACK), 7, chess.BLACK, "+M5/7"),
    (chess.engine.PovScore(chess.engine.Mate(-3), chess.WHITE), 10, chess.WHITE, "-M6/10"),
])
def test_comments_as_fastchess_writes_them(score, depth, turn, text) -> None:  # type: ignore[no-untyped-def]
    assert replay.comment_text(score, depth, turn) == text
