"""What python-chess files as a move's information is that move's search, pondering or not:
lichess-bot (through python-chess, ponder on by default) replays the PV of `play`'s info from
the position before the move, and a line of the ponder search that followed the move (its PV
starting with the predicted reply) made it raise IllegalMoveError and abandon the game."""
from __future__ import annotations

import time
from pathlib import Path

import chess
import chess.engine
import pytest

from ponderosa.protocol.xboard.ponder_output import PonderOutputHold

from tests.uci_harness import program
from tests.xboard_harness import engine_command

PLIES = 20
BOOK_PLIES = 40      # the book may carry the first twenty
SECONDS = 0.2


def open_engine(protocol: str, folder: Path) -> chess.engine.SimpleEngine:
    # A folder of the test's own: learning writes its files in the working folder.
    if protocol == "xboard":
        return chess.engine.SimpleEngine.popen_xboard(engine_command(), timeout=10.0, cwd=str(folder))
    return chess.engine.SimpleEngine.popen_uci([*program(), "--uci"], timeout=10.0, cwd=str(folder))


@pytest.mark.parametrize("book", [True, False], ids=["book", "no-book"])
@pytest.mark.parametrize("protocol", ["xboard", "uci"])
def test_each_moves_info_is_its_own_search(tmp_path: Path, protocol: str, book: bool) -> None:
    board = chess.Board()
    game = object()
    with_pv = 0
    unexplained = []   # UCI moves with neither a PV nor the book's note
    with open_engine(protocol, tmp_path) as engine:
        engine.configure({"OwnBook": book})
        for _ in range(BOOK_PLIES if book else PLIES):
            if board.is_game_over(claim_draw=True):
                break
            result = engine.play(board, chess.engine.Limit(time=SECONDS), ponder=True, game=game,
                                 info=chess.engine.INFO_ALL)
            assert result.move is not None and result.move in board.legal_moves, result
            pv = result.info.get("pv")
            if protocol == "uci" and not pv and not str(result.info.get("string", "")).startswith("book move"):
                unexplained.append(board.fen())
            if pv:
                with_pv += 1
                assert pv[0] == result.move, (board.fen(), result.move, pv)
                replay = board.copy()
                for move in pv:   # lichess-bot's add_comment: the whole PV from before the move
                    assert move in replay.legal_moves, (board.fen(), pv)
                    replay.push(move)
            board.push(result.move)
    # A UCI book move comes with its note and without an info line; a searched move always has one,
    # a ponder hit whose pondering had used the budget too (its final line again, after the ponderhit).
    assert not unexplained, f"moves with neither a PV nor a book note, from {unexplained}"
    least = PLIES // 4 if book else PLIES // 2
    assert with_pv >= least, f"only {with_pv} of {board.ply()} moves had a PV: the test shows little"


class Lines:
    """An Output stand-in that keeps the lines written."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def line(self, text: str) -> None:
        self.written.append(text)


def test_held_ponder_lines_go_out_after_the_next_command_or_the_hold_time() -> None:
    out = Lines()
    hold = PonderOutputHold(out, seconds=0.2)   # type: ignore[arg-type]
    search = object()
    hold.hold(search)
    hold.line(search, "1 20 0 30 e5")
    assert out.written == []                    # the move's pong has not gone out yet
    hold.release(search, holds_before=hold.holds - 1)   # the command that started it releases nothing
    assert out.written == []
    hold.release(search, holds_before=hold.holds)   # the next command (python-chess's ping)
    assert out.written == ["1 20 0 30 e5"]
    hold.line(search, "2 25 1 90 e5 Nf3")
    assert out.written[-1] == "2 25 1 90 e5 Nf3"   # no longer held


def test_a_ponder_search_that_ended_loses_its_held_lines_and_xboard_sees_them_in_time() -> None:
    out = Lines()
    hold = PonderOutputHold(out, seconds=0.2)   # type: ignore[arg-type]
    old, new = object(), object()
    hold.hold(old)
    hold.line(old, "1 20 0 30 e5")
    hold.release(None)                  # `force` or a different move ended the ponder search
    assert out.written == []
    hold.hold(new)
    hold.line(new, "1 10 0 20 d5")
    assert hold.wait_seconds() is not None and 0 < hold.wait_seconds() <= 0.2
    time.sleep(0.25)
    hold.expire(new)                    # XBoard sends nothing after a move: the time releases them
    assert out.written == ["1 10 0 20 d5"] and hold.wait_seconds() is None
