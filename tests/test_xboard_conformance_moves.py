"""The conformance cases of docs/PROTOCOL.md §11.5 to §11.9: move syntax, analyze mode, variants and
Chess960, root move control, and the game's end (claims and draw offers), one test each, run against
the installed `ponderosa --xboard` through tests/xboard_harness.py (tests/xboard_cases.py runs them
side by side, and says how clocks are kept short)."""
from __future__ import annotations

import re
import time

import chess

from tests.xboard_cases import Start, analysis_first_moves, register_cases, setboard, thinking
from tests.xboard_harness import (
    ERROR,
    F_50,
    F_CASTLE,
    F_EP1,
    F_EPFEN,
    F_KK,
    F_MATE1,
    F_MATED,
    F_PROMO,
    F_STALE,
    F_TWO,
    F_W1,
    ILLEGAL,
    MOVE,
    RESULT,
    THINK,
    Line,
    XBoardEngine,
)

# -- 11.5 Move syntax ---------------------------------------------------------------------------


def test_T67_usermove_prefix(xb: Start) -> None:
    engine = xb()
    assert engine.usermove, "usermove=1 declared and accepted"
    engine.send("new", "force", "usermove e2e4", "usermove e7e5")
    engine.board.push_uci("e2e4")
    engine.board.push_uci("e7e5")
    engine.sync(1)
    engine.send("st 1", "go")
    engine.expect_move(2.5)


def test_T68_prefix_tolerance(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "e2e4", "usermove e7e5")
    engine.sync(1)
    engine.board.push_uci("e2e4")
    engine.board.push_uci("e7e5")
    engine.send("st 1", "go")
    engine.expect_move(2.5)


def test_T69_illegal_moves_rejected(xb: Start) -> None:
    engine = xb()
    prefix = "usermove " if engine.usermove else ""
    engine.send("new", "force", f"{prefix}e2e5")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e2e5"
    engine.send(f"{prefix}e7e5")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e7e5"
    engine.move("e2e4")
    engine.sync(1)
    engine.send("st 1", "go")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.WHITE


def test_T70_standard_castling_input(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_CASTLE)
    engine.move("e1g1", "a8a7", "f1f8")
    engine.sync(1)
    engine.send("setboard r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    engine.move("e8c8", "a1a7", "d8d1")
    engine.sync(2)


def test_T71_castling_rights_tracking(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_CASTLE)
    engine.move("h1h2", "a8a7", "h2h1", "a7a8")
    engine.send(f"{'usermove ' if engine.usermove else ''}e1g1")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e1g1"


def test_T72_promotion_input_honours_the_piece(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_PROMO)
    engine.move("a7a8n", "d8e8", "a8b6")
    engine.sync(1)
    engine.send(f"setboard {F_PROMO}")
    prefix = "usermove " if engine.usermove else ""
    engine.send(f"{prefix}a7a8q", f"{prefix}d8e8")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "d8e8"
    engine.sync(2)


def test_T73_promotion_output(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_PROMO)
    engine.send("st 1", "go")
    assert re.match(r"^a7a8[qrbn]$", engine.expect_move(2.5))


def test_T74_tolerant_promotion_input(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_PROMO)
    engine.send(f"{'usermove ' if engine.usermove else ''}a7a8Q")
    engine.sync(1)


def test_T75_en_passant(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("e2e4", "a7a6", "e4e5", "d7d5", "e5d6")
    engine.sync(1)
    prefix = "usermove " if engine.usermove else ""
    engine.send(f"setboard {F_EPFEN}", f"{prefix}e5d6")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e5d6"
    engine.send(f"setboard {F_EPFEN}", f"{prefix}e5f6")
    engine.sync(2)
    setboard(engine, F_EP1)
    engine.send("st 1", "go")
    assert engine.expect_move(2.5) == "e5d6"


# -- 11.6 Analyze mode --------------------------------------------------------------------------


def test_T76_basic_analysis(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "post", "analyze")
    lines = engine.collect(3.0)
    assert thinking([line for line in lines if line.at - lines[0].at < 2.0] if lines else [])
    assert not [line.text for line in lines if MOVE.match(line.text)]
    engine.send("exit")
    engine.sync(1)
    engine.quiet(1, allow_thinking=False)


def test_T77_commands_inside_analysis(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "post", "analyze")
    engine.expect_line(THINK, 3.0, keep_thinking=True)   # its ply-1 line is out: the next one is new
    engine.move("e2e4")
    assert analysis_first_moves(engine, engine.board.copy())
    engine.send("undo")
    assert analysis_first_moves(engine, chess.Board())
    engine.send("new")
    assert analysis_first_moves(engine, chess.Board())
    engine.send(f"setboard {F_W1}")
    moves = analysis_first_moves(engine, chess.Board(F_W1))
    assert moves and set(moves) == {chess.Move.from_uci("a1b2")}
    engine.send("exit")
    engine.sync(2)


STAT01 = re.compile(r"^stat01:\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+(\s+\S+)?\s*$")


def test_T78_status_request(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "post", "analyze")
    time.sleep(0.5)
    engine.collect(0.0)
    engine.send(".")
    others = [line.text for line in engine.collect(1.0) if not THINK.match(line.text)]
    assert not [text for text in others if ERROR.match(text)]
    assert len(others) <= 1 and all(STAT01.match(text) for text in others), others
    engine.send("exit")


def test_T79_python_chess_stop_sequence(xb: Start) -> None:
    engine = xb("P")
    engine.send("new", "force", "post", "analyze")
    time.sleep(0.5)
    engine.send(".", "exit")
    seen = engine.sync(77, timeout=1.0)
    assert not [line.text for line in seen if ERROR.match(line.text) or ILLEGAL.match(line.text)]
    engine.quiet(1, allow_thinking=False)


# -- 11.7 Variants / Chess960 ---------------------------------------------------------------------

F_FRC_X = "k7/8/8/8/8/8/8/4RKR1 w KQ - 0 1"
F_FRC_S = "k7/8/8/8/8/8/8/4RKR1 w GE - 0 1"


def test_T80_frc_xfen_and_oo(xb: Start) -> None:
    engine = xb()
    assert "fischerandom" in str(engine.features.values.get("variants", "")).split(",")
    engine.send("new", "variant fischerandom", "force", f"setboard {F_FRC_X}")
    engine.move("O-O", "a8a7", "f1f7")
    engine.sync(1)
    assert engine.board.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE)
    # The engine's own move in Chess960: castling comes as O-O/O-O-O (or king takes rook),
    # which python-chess reads on a Chess960 board (the harness's MOVE check).
    engine.send("new", "variant fischerandom", "force", f"setboard {F_FRC_X}", "st 1", "go")
    engine.expect_move(2.0)
    engine.send("force")
    engine.sync(2)


def test_T80_frc_engine_castles_as_o_o(xb: Start) -> None:
    """The only mate is castling with the king standing still on g1 (only castling brings the
    h1 rook past it to f1): the engine plays it and writes it O-O."""
    engine = xb()
    engine.send("new", "variant fischerandom", "force", "setboard 4rkr1/4p1p1/8/8/8/8/8/6KR w K - 0 1",
                "st 1", "go")
    assert engine.expect_move(3.0) == "O-O"
    assert engine.board.is_checkmate()


def test_T81_frc_shredder_fen(xb: Start) -> None:
    engine = xb()
    engine.send("new", "variant fischerandom", "force", f"setboard {F_FRC_S}")
    engine.move("f1g1", "a8a7", "f1f7")
    engine.sync(1)


def test_T82_new_returns_to_normal_chess(xb: Start) -> None:
    engine = xb()
    engine.send("new", "variant fischerandom", "new", "force")
    engine.move("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1")
    engine.sync(1)
    engine.send("variant crazyhouse")
    assert engine.expect_line(ERROR, 1.0)


# -- 11.8 Root move control ------------------------------------------------------------------------


def test_T83_exclude(xb: Start) -> None:
    engine = xb()
    assert engine.features.flag("exclude") == 1
    setboard(engine, F_TWO)
    engine.send("exclude h2h4", "st 1", "go")
    assert engine.expect_move(2.5) == "h2h3"
    engine.send("force", f"setboard {F_TWO}", "exclude h2h3", "st 1", "go")
    assert engine.expect_move(2.5) == "h2h4"


def test_T84_include_all(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_TWO)
    engine.send("exclude h2h3", "exclude h2h4", "include all", "st 1", "go")
    engine.expect_move(2.5)


# -- 11.9 Game end, claims, draw offers --------------------------------------------------------------


def collect_until_end(engine: XBoardEngine, timeout: float, after: float = 0.3) -> list[Line]:
    """Lines until a move or a claim (then `after` seconds more), or until timeout."""
    deadline = time.monotonic() + timeout
    lines: list[Line] = []
    while True:
        line = engine.read(max(0.0, deadline - time.monotonic()))
        if line is None:
            return lines
        lines.append(line)
        if MOVE.match(line.text) or RESULT.match(line.text) or line.text.startswith("offer draw"):
            return lines + engine.collect(after)


def claims(lines: list[Line]) -> list[str]:
    return [line.text for line in lines if RESULT.match(line.text)]


def test_T85_checkmated_side_on_move(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MATED)
    sent = engine.send("st 1", "go")
    lines = engine.collect(3.0)
    assert not [line.text for line in lines if MOVE.match(line.text)]
    found = [line for line in lines if RESULT.match(line.text)]
    assert found and found[0].text.startswith("1-0") and found[0].at - sent < 2.0


def test_T86_stalemate(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_STALE)
    engine.send("st 1", "go")
    lines = engine.collect(1.5)
    assert not [line.text for line in lines if MOVE.match(line.text)]
    assert [text for text in claims(lines) if text.startswith("1/2-1/2")]


def test_T87_mate_claim_order(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MATE1)
    engine.send("st 2", "go")
    assert engine.expect_move(3.5) == "a1a8"
    assert not claims([Line(0, text) for text in engine.side_lines]), "a claim before the move"
    after = claims(engine.collect(0.5))
    assert all(text.startswith("1-0") for text in after), after


def test_T88_insufficient_material(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_KK)
    engine.send("st 1", "go")
    lines = collect_until_end(engine, 2.5)
    texts = [line.text for line in lines]
    moves = [text for text in texts if MOVE.match(text)]
    draws = [text for text in claims(lines) if text.startswith("1/2-1/2")]
    assert moves or draws
    if draws and not moves:
        assert texts.index(draws[0]) >= 0
    if draws and moves:
        assert texts.index(moves[0]) < texts.index(draws[0]), "a move after the claim"
    assert not [text for text in claims(lines) if not text.startswith("1/2-1/2")]


def test_T89_fifty_move_position(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_50)
    engine.send("st 1", "go")
    lines = collect_until_end(engine, 2.5)
    texts = [line.text for line in lines]
    assert [t for t in texts if MOVE.match(t) or t.startswith("offer draw") or t.startswith("1/2-1/2")]
    assert not [t for t in texts if t.startswith(("1-0", "0-1"))]


def test_T90_threefold_repetition(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force")
    engine.move("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8")
    engine.send("st 1", "go")
    texts = [line.text for line in collect_until_end(engine, 2.5)]
    assert [t for t in texts if MOVE.match(t) or t.startswith("1/2-1/2")]
    assert not [t for t in texts if t.startswith(("1-0", "0-1"))]


def test_T91_gui_draw_offer(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 1")
    engine.move("e2e4")
    engine.send("draw")
    engine.expect_move(3)


def test_T92_resignation_and_recovery(xb: Start) -> None:
    engine = xb()
    setboard(engine, "7k/8/8/8/8/8/qq6/7K w - - 0 1")
    engine.send("st 1", "go")
    texts = []
    deadline = time.monotonic() + 2.5
    while True:
        line = engine.read(max(0.0, deadline - time.monotonic()))
        assert line is not None, f"no move, resign or result: {texts}"
        texts.append(line.text)
        if line.text in ("move h1g1", "resign") or re.match(r"^0-1 \{.*resign.*\}", line.text):
            break
        assert not ERROR.match(line.text) and not ILLEGAL.match(line.text)
    engine.send("result 0-1 {White resigns}", "force")
    engine.sync(1)
    engine.send("new", "st 1", "go")
    engine.expect_move(2.5)


register_cases(globals())
