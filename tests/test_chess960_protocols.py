"""Chess960 through the protocols: UCI's UCI_Chess960 (castling as king takes rook, positions in
Shredder-FEN and X-FEN) and XBoard's `variant fischerandom` (castling as O-O/O-O-O, or king
takes rook, in; O-O/O-O-O out), over the real processes and in-process where the engine's
state is looked at. The core's Chess960 rules are tests/test_chess960_core.py's."""
from __future__ import annotations

import io

import chess
import pytest

from ponderosa.engine.engine import Engine
from ponderosa.protocol.uci import UciSession

from tests.uci_harness import UciEngine
from tests.xboard_harness import ILLEGAL, XBoardEngine

# White castles short with its king standing on g1 (only castling brings the h1 rook past it to
# f1), and that mates: the rook lands on the f-file, the black king's neighbours are its own.
CASTLE_MATE_X = "4rkr1/4p1p1/8/8/8/8/8/6KR w K - 0 1"
CASTLE_MATE_S = "4rkr1/4p1p1/8/8/8/8/8/6KR w H - 0 1"
# King and rooks where standard chess has them: 960 castling is the usual castling, written e1h1.
CORNERS = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
# Rook on b1 beside a king on c1 shields it from the queen on a1: castling long (rook to d1)
# would leave the king in check, so it is not legal.
SHIELDING_ROOK = "4k3/8/8/8/8/8/8/qRK4R w KQ - 0 1"


@pytest.fixture
def uci():
    engines: list[UciEngine] = []

    def start() -> UciEngine:
        engine = UciEngine(("--uci",))
        engines.append(engine)
        engine.send("setoption name OwnBook value false", "setoption name UCI_Chess960 value true")
        engine.sync()
        return engine

    yield start
    for engine in engines:
        stderr = engine.stderr
        engine.close()
        assert "Traceback" not in stderr, stderr


def uci_session() -> tuple[UciSession, io.StringIO]:
    out = io.StringIO()
    session = UciSession(Engine(), out)
    session.handle("setoption name UCI_Chess960 value true")
    return session, out


def test_uci_declares_the_option_and_says_what_changes() -> None:
    engine = UciEngine(("--uci",))
    try:
        assert engine.options["UCI_Chess960"].endswith("type check default false")
        engine.send("setoption name UCI_Chess960 value true")
        match, _ = engine.until(r"^info string (.*)$", 5.0)
        assert "book" in match.group(1) and "king takes rook" in match.group(1)
    finally:
        engine.close()


@pytest.mark.parametrize("fen", [CASTLE_MATE_X, CASTLE_MATE_S])
def test_uci_castling_out_as_king_takes_rook(uci, fen: str) -> None:
    engine = uci()
    move, _, _ = engine.search(f"position fen {fen}", "go depth 3")
    assert move == "g1h1"


@pytest.mark.parametrize("fen", [CASTLE_MATE_X, CASTLE_MATE_S])
def test_uci_castling_in_as_king_takes_rook(uci, fen: str) -> None:
    engine = uci()
    move, _, _ = engine.search(f"position fen {fen} moves g1h1", "go depth 2")
    assert move == "0000"   # Black is mated: the castling was made with the rook landing on f1


def test_uci_in_process_positions_fens_and_castling() -> None:
    session, out = uci_session()
    engine = session.engine
    session.handle(f"position fen {CORNERS} moves e1h1 e8a8")
    assert engine.game.chess960 and engine.board.chess960
    assert engine.fen() == engine.game.fen() == "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2"
    session.handle(f"position fen {CORNERS} moves e1g1")   # the standard spelling is taken too
    assert engine.fen().startswith("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq")
    session.handle("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
    assert engine.fen() == chess.Board("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                                       chess960=True).fen()
    assert sorted(engine.legal_moves()) == sorted(move.uci() for move in engine.game.legal_moves)
    session.handle(f"position fen {SHIELDING_ROOK}")
    assert "c1b1" not in engine.legal_moves() and "c1h1" in engine.legal_moves()
    assert "illegal move" not in out.getvalue()


def test_uci_book_and_learning_off_and_back_in_standard_chess() -> None:
    session, _ = uci_session()
    engine = session.engine
    session.handle("position startpos")
    assert engine.book_probe().decision is None and engine.book_reply() is None
    session.handle("setoption name UCI_Chess960 value false")
    session.handle(f"position fen {CORNERS} moves e1g1")
    assert not engine.game.chess960 and engine.fen().startswith("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq")
    assert "e8g8" in engine.legal_moves()


def test_xboard_castling_both_ways_and_shredder_fen() -> None:
    engine = XBoardEngine()
    try:
        features = engine.init()
        assert str(features.values.get("variants")) == "normal,fischerandom"
        engine.send("new", "variant fischerandom", "force", f"setboard {CASTLE_MATE_S}", "st 1", "go")
        assert engine.expect_move(3.0) == "O-O"
        assert engine.board.is_checkmate()
        for castling in ("O-O", "g1h1"):   # both spellings of the same castling, in
            engine.send("new", "variant fischerandom", "force", f"setboard {CASTLE_MATE_X}")
            engine.move(castling)
            engine.sync(1)
            engine.send("undo")
            engine.sync(2)
        engine.send("new", "variant fischerandom", "force", f"setboard {SHIELDING_ROOK}")
        engine.send("usermove O-O-O" if engine.usermove else "O-O-O")
        assert engine.expect_line(ILLEGAL, 1.0).group(2) == "O-O-O"
    finally:
        engine.close()
