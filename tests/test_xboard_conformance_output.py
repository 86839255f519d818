"""The conformance cases of docs/PROTOCOL.md §11.10 (output format) and §11.12 (client replays and
robustness), one test each, run against the installed `ponderosa --xboard` through
tests/xboard_harness.py (tests/xboard_cases.py runs them side by side, and says how clocks are kept
short)."""
from __future__ import annotations

import random
import re
import time

import chess
import pytest

from tests.wall_clock import allowed
from tests.xboard_cases import (
    NOT_DECLARED,
    Start,
    analysis_first_moves,
    option_defaults,
    register_cases,
    setboard,
)
from tests.xboard_harness import (
    ERROR,
    F_CASTLE,
    F_EP1,
    F_MATE1,
    F_MID,
    F_PROMO,
    FEATURE,
    ILLEGAL,
    MOVE,
    PONG,
    RESULT,
    THINK,
    XBoardEngine,
)

# -- 11.10 Output format ----------------------------------------------------------------------------


def test_T93_thinking_line_format(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("post", "st 2", "go")
    engine.expect_move(3.5)
    digit_lines = [text for text in engine.side_lines if text.lstrip()[:1].isdigit()]
    assert digit_lines
    last_ply = last_nodes_seen = 0
    for text in digit_lines:
        match = THINK.match(text)
        assert match, f"not a thinking line: {text!r}"
        ply_end = len(text) - len(text.lstrip()) + len(match.group(1))
        assert text[ply_end] in " \t"
        ply, nodes = int(match.group(1)), int(match.group(4))
        assert ply >= last_ply and nodes >= last_nodes_seen, text
        last_ply, last_nodes_seen = ply, nodes


def test_T94_mate_score_convention(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MATE1)
    engine.send("post", "st 2", "go")
    engine.expect_move(3.5)
    scores = [int(m.group(2)) for m in (THINK.match(text) for text in engine.side_lines) if m]
    assert scores and scores[-1] == 100001


def test_T95_extra_thinking_fields(xb: Start) -> None:
    engine = xb()
    setboard(engine, F_MID)
    engine.send("post", "st 0.5", "go")
    engine.expect_move(2.0)
    for text in engine.side_lines:
        match = THINK.match(text)
        if not match:
            continue
        rest = (match.group(5) or "")
        extras = re.match(r"^((?:-?\d+[ \t]+)*)", rest + " ").group(1).split()
        pv_tokens = rest.split()
        # A PV starts with a move, never with a bare integer; more integers are extra fields.
        if extras and len(extras) < len(pv_tokens):
            assert len(extras) == 3 and "\t" in rest, f"extra fields need all three and a TAB: {text!r}"


HAZARD = re.compile(r"^White|^Black|Draw|offer.*draw|^resign|^checkmate|^computer (mates|resigns)|^opponent mates|"
                    r"^Error|^.llegal move|not found|No such file|Permission denied|unknown host|can't alloc|"
                    r"^setboard |^uciok|^tell|^kibitz|^whisper|^warning|^setup |^piece |^highlight |^click |"
                    r"^choice |^dice ")


def hazards(engine: XBoardEngine) -> list[str]:
    """Output lines that xboard would misread (§5.10), less the protocol's own lines."""
    found = []
    for entry in engine.transcript:
        if not entry.startswith("< "):
            continue
        text = entry[2:]
        if (text.startswith("#") and engine.debug) or THINK.match(text) or MOVE.match(text) or PONG.match(text) \
                or FEATURE.match(text) or text.startswith("Hint:") or RESULT.match(text) \
                or text in ("resign", "offer draw"):
            continue
        if HAZARD.search(text):
            found.append(text)
    return found


@pytest.mark.parametrize("replay", ["T102", "T108"])
def test_T96_output_hazard_lint(xb: Start, replay: str) -> None:
    engine = xb("C" if replay == "T102" else "X")
    (cutechess_black_replay if replay == "T102" else xboard_machine_black_replay)(engine, turns=4)
    assert hazards(engine) == []


MOVE_TOKEN = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$|^O-O(-O)?$|^[PNBRQ]@[a-h][1-8]$|^@@@@$")


def test_T97_move_token_format(xb: Start) -> None:
    engine = xb()
    for fen in (F_PROMO, F_CASTLE, chess.STARTING_FEN, F_EP1):
        setboard(engine, fen)
        engine.send("st 0.3", "go")
        engine.expect_move(2.0)
    for entry in engine.transcript:
        if entry.startswith("< move") or entry.startswith("< bestmove") or re.match(r"^< \d+\. \.\.\.", entry):
            words = entry[2:].split()
            assert words[0] == "move" and len(words) == 2 and MOVE_TOKEN.match(words[1]), entry


def test_T98_hint_and_bk(xb: Start) -> None:
    engine = xb()
    engine.send("new", "hint", "bk")
    seen = engine.sync(1)
    texts = [line.text for line in seen]
    for text in texts:
        if text.startswith("Hint:"):
            chess.Board().parse_san(text.split()[1])
    book = [text for text in texts if not text.startswith("Hint:")]
    if book:
        assert book[-1] == "" and all(text[:1] in (" ", "\t") for text in book[:-1]), book


def test_T99_duplicate_go(xb: Start) -> None:
    engine = xb()
    # A book move would be made before the second go arrives (which then rightly plays Black):
    # the case is a go that arrives while the engine thinks.
    engine.send("option OwnBook=0", "new", "st 1", "go", "go")
    engine.expect_move(3)
    engine.quiet(2)


def test_T100_settings_during_play(xb: Start) -> None:
    engine = xb()
    engine.send("new", "st 2", "go")
    time.sleep(0.3)
    engine.send("cores 1", "memory 16", *option_defaults(engine))
    engine.expect_move(3.5)
    engine.sync(1)


def test_T101_pause_resume(xb: Start) -> None:
    engine = xb()
    if not engine.features.flag("pause"):
        pytest.skip("pause=0 declared")
    engine.send("option OwnBook=0", "new", "st 2", "go")   # pause must catch it thinking, not in book
    time.sleep(0.3)
    engine.send("pause")
    engine.quiet(3)
    engine.send("resume")
    engine.expect_move(3)


# -- 11.12 Client replays and robustness -------------------------------------------------------------


def cutechess_black_replay(engine: XBoardEngine, turns: int = 10) -> None:
    """T102's game: the engine plays Black under `level 40 1 0` (with a 6 s clock, so that
    moves are quick), against random White moves."""
    rng = random.Random(102)
    engine.send("new", "force", "level 40 1 0", "post", "easy")
    engine.move("e2e4")
    own, other = 600, 600
    for turn in range(turns):
        engine.sync(rng.randint(1, 32))
        engine.send(f"time {own}", f"otim {other}")
        if turn == 0:
            sent = engine.send("go")
        else:
            sent = engine.move(rng.choice(list(engine.board.legal_moves)).uci())
        engine.expect_move(own / 100)
        own -= int((engine.last_move_at - sent) * 100)
        other -= 5
        assert own > 0
        if engine.board.is_game_over(claim_draw=True) or not any(engine.board.legal_moves):
            break
    engine.send("force", "result 1-0 {White wins by adjudication}")
    engine.sync(rng.randint(1, 32))


def test_T102_cutechess_replay_engine_black(xb: Start) -> None:
    engine = xb("C")
    cutechess_black_replay(engine)
    engine.send("quit")
    engine.process.wait(5)


def test_T103_cutechess_replay_engine_white_ponder(xb: Start) -> None:
    engine = xb("C")
    rng = random.Random(103)
    engine.send("new", "force", "level 0 0:10 0.1", "post", "hard")
    engine.sync(5)
    own, other = 1000, 1000
    sent = engine.send(f"time {own}", f"otim {other}", "go")
    engine.expect_move(own / 100)
    for _ in range(8):
        own += 10 - int((engine.last_move_at - sent) * 100)
        if engine.board.is_game_over(claim_draw=True):
            break
        engine.sync(rng.randint(1, 32), timeout=1.0)
        engine.send(f"time {own}", f"otim {other}")
        sent = engine.move(rng.choice(list(engine.board.legal_moves)).uci())
        if engine.board.is_game_over(claim_draw=True):
            break
        engine.expect_move(own / 100)
    engine.send("force", "result * {stopped}")
    engine.sync(99)


def test_T104_python_chess_play_replay(xb: Start) -> None:
    """python-chess's `play`: `force` and the moves, `level 0 M:SS INC`, time/otim, nopost,
    easy, go, then ping. (Increment 0.1 s rather than 2 s, so that 8 moves take a few seconds.)"""
    engine = xb("P")
    rng = random.Random(104)
    own = 500
    for turn in range(8):
        if turn == 0:
            engine.send("new", "force")
        else:
            engine.send("force")
            engine.move(rng.choice(list(engine.board.legal_moves)).uci())
            if engine.board.is_game_over(claim_draw=True):
                break
        sent = engine.send(f"level 0 {own // 6000}:{own // 100 % 60:02d} 0.1", f"time {own}", "otim 500",
                           "nopost", "easy", "go")
        engine.expect_move(own / 100)
        engine.sync(rng.randint(0, 65535))
        own = own + 10 - int((engine.last_move_at - sent) * 100)
        if engine.board.is_game_over(claim_draw=True):
            break


def test_T105_python_chess_ponder_flow(xb: Start) -> None:
    engine = xb("P")
    engine.send("new", "force", "st 1", "post", "hard", "go")
    engine.expect_move(2.5)
    sent = time.monotonic()
    engine.sync(100, timeout=0.5)
    assert time.monotonic() - sent <= allowed(0.5)
    engine.send("easy")
    engine.sync(101)
    engine.send("force")
    engine.move(random.Random(105).choice(list(engine.board.legal_moves)).uci())
    engine.send("st 1", "nopost", "easy", "go")
    engine.expect_move(2.5)
    assert engine.board.turn == chess.BLACK


def test_T106_python_chess_analysis_with_root_moves(xb: Start) -> None:
    engine = xb("P")
    assert engine.features.flag("exclude") == 1
    engine.send("new", "force")
    engine.move("e2e4")
    engine.send("exclude all", "include e7e5", "post", "analyze")
    moves = analysis_first_moves(engine, engine.board.copy(), 1.0, restarted=False)
    assert moves and set(moves) == {chess.Move.from_uci("e7e5")}
    engine.send(".", "exit")
    engine.sync(7, allow=(re.compile(r"^stat01:"),))


def test_T107_python_chess_replay_with_undo(xb: Start) -> None:
    engine = xb("P")
    engine.send("new", "force")
    engine.move("d2d4", "g8f6", "c2c4")
    engine.send("st 1.5", "sd 17", "nopost", "easy", "go")
    engine.expect_move(3)
    engine.sync(1)
    engine.send("force", "remove", "st 1.5", "sd 17", "nopost", "easy", "go")
    engine.expect_move(3)
    assert engine.board.turn == chess.BLACK and len(engine.board.move_stack) == 3
    engine.sync(2)
    engine.send("force", "remove", "undo", "st 1.5", "sd 17", "nopost", "easy", "go")
    engine.expect_move(3)
    assert len(engine.board.move_stack) == 1


def xboard_machine_black_replay(engine: XBoardEngine, turns: int = 5) -> None:
    """T108's game: xboard's Machine Black (a 6 s clock for the quick turns), then an aborted
    think under a long clock; a move that beats the pong is taken back with `undo`."""
    rng = random.Random(108)
    engine.send("new", "random", "level 40 5 0", "post", "hard", "easy")
    engine.sync(1)
    for _ in range(turns):
        engine.send("time 600", "otim 30000")
        engine.move(rng.choice(list(engine.board.legal_moves)).uci())
        engine.expect_move(6)
        if engine.board.is_game_over(claim_draw=True):
            return
    engine.send("time 30000", "otim 30000")
    engine.move(rng.choice(list(engine.board.legal_moves)).uci())
    time.sleep(0.2)
    engine.send("force", "ping 2")
    while True:
        line = engine.read(2.0)
        assert line is not None, "no pong 2"
        if MOVE.match(line.text):
            engine.board.push_uci(MOVE.match(line.text).group(1))   # type: ignore[union-attr]
            engine.send("undo")
            continue
        assert not ILLEGAL.match(line.text) and not ERROR.match(line.text), line.text
        if line.text == "pong 2":
            break
    for line in engine.collect(0.2):
        assert not ILLEGAL.match(line.text) and not MOVE.match(line.text), line.text
    engine.send("st 1", "go")
    engine.expect_move(2.5)


def test_T108_xboard_machine_black_with_abort(xb: Start) -> None:
    xboard_machine_black_replay(xb())


def test_T109_xboard_two_machine_start(xb: Start) -> None:
    """(`time 600` rather than 30000: the same commands, quicker moves.)"""
    engine = xb()
    engine.send("new", "random", "level 40 5 0", "post", "hard", "easy")
    engine.sync(1)
    engine.send("computer", "name Other 1.0", "time 600", "otim 30000", "go")
    engine.expect_move(6)
    engine.send("time 580", "otim 29700")
    engine.move("e7e5" if engine.board.is_legal(chess.Move.from_uci("e7e5")) else
                next(iter(engine.board.legal_moves)).uci())
    engine.expect_move(6)


def test_T110_zippy_replay(xb: Start) -> None:
    """(`time 600` rather than 18000.)"""
    engine = xb()
    engine.send("new", "random", "ics freechess.org", "post", "hard", "easy")
    engine.sync(1)
    engine.send("level 0 3 0", "computer", "name Opponent", "rating 2100 1900", "time 600", "otim 18000", "go")
    engine.expect_move(6)
    engine.send("time 580", "otim 17800")
    engine.move(random.Random(110).choice(list(engine.board.legal_moves)).uci())
    engine.expect_move(6)
    engine.send("draw")
    for line in engine.collect(0.3):
        assert not ERROR.match(line.text), line.text
    engine.send("result 1/2-1/2 {Game drawn by mutual agreement}", "force")
    engine.sync(2)
    engine.quiet(1)


def test_T111_zippy_resumed_game_playother(xb: Start) -> None:
    """(`time 600` rather than 18000.)"""
    engine = xb()
    if not engine.features.flag("playother"):
        pytest.skip("playother=0 declared")
    engine.send("new", "force")
    engine.move("e2e4", "e7e5", "g1f3")
    engine.send("level 0 3 0", "name Opp", "rating 0 0", "time 600", "otim 18000", "playother")
    engine.quiet(1)
    engine.move("b8c6")
    engine.expect_move(6)
    assert engine.board.turn == chess.BLACK


@pytest.mark.skip(reason=NOT_DECLARED.format("`variant crazyhouse` or drops"))
def test_T112_crazyhouse_drops() -> None:
    pass


def test_T113_line_endings(xb: Start) -> None:
    engine = xb()
    engine.write_raw(b"ping 5\r\n")
    assert engine.expect_line(PONG, 1.0).group(1) == "5"
    engine.write_raw(b"\n")
    assert engine.sync(6) == []


def test_T114_illegal_setup_position(xb: Start) -> None:
    engine = xb()
    engine.send("new", "force", "setboard 8/8/8/8/8/8/8/8 w - - 0 1")
    line = engine.read(allowed(1.0))
    assert line is not None and (line.text.startswith("tellusererror") or ERROR.match(line.text)), line
    engine.sync(1)
    engine.send(f"{'usermove ' if engine.usermove else ''}e2e4")
    assert engine.expect_line(ILLEGAL, 1.0).group(2) == "e2e4"
    engine.send("new", "st 1", "go")
    engine.expect_move(2.5)


register_cases(globals())
