"""Transcript tests of server mode: `ponderosa --xboard` over its stdin/stdout as zippy drives
it (ics, level, name, rating, computer, draw, result), and the console's server commands.
Each line the engine may send a server is checked: finger note, greeting, whispers and
kibitzes at every level, the rate limit, draw offers, resignation, a blocked opponent's abort,
and silence on bad input from the server."""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import chess
import pytest

from tests.xboard_harness import MOVE, XBoardEngine, engine_command

TELL = re.compile(r"^(tellall|tellothers|tellics|tellicsnoalias|tellopponent|offer draw|resign)\b")
HOPELESS_BLACK = "8/8/8/3k4/8/8/1QQ5/4K3 b - - 0 30"
KNIGHTS = "1n4k1/8/8/8/8/8/8/1N4K1 w - - 0 60"
MATE_IN_TWO = "6k1/5ppp/8/8/8/8/5PPP/3QR1K1 w - - 0 30"
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"


def engine_in(folder: Path, rc: str = "", lists: str = "") -> XBoardEngine:
    """An engine whose working directory holds this .ponderosarc and lists file."""
    if rc:
        (folder / ".ponderosarc").write_text(rc + "\nexit\n")
    if lists:
        (folder / ".ponderosa-lists").write_text(lists)
    engine = XBoardEngine(cwd=str(folder))
    engine.init()
    return engine


@pytest.fixture
def engines() -> list[XBoardEngine]:
    started: list[XBoardEngine] = []
    yield started
    for engine in started:
        engine.close()


def start(engines: list[XBoardEngine], folder: Path, rc: str = "", lists: str = "") -> XBoardEngine:
    engine = engine_in(folder, rc, lists)
    engines.append(engine)
    return engine


def tells(lines: list[str]) -> list[str]:
    return [line for line in lines if TELL.match(line)]


def server_game(engine: XBoardEngine, name: str, fen: str, *, computer: bool = False, ratings: str = "0 0",
                host: str = "freechess.org", book: bool = False) -> list[str]:
    """What zippy sends at a game's start (ics, new, position, level, computer, name, rating);
    returns the lines up to the sync. The book is off unless asked for (searched moves)."""
    commands = [f"option OwnBook={int(book)}", f"ics {host}", "new", "force", f"setboard {fen}", "level 0 1 0"]
    if computer:
        commands.append("computer")
    commands += [f"name {name}", f"rating {ratings}"]
    engine.send(*commands)
    return [line.text for line in engine.sync(1, timeout=3.0)]


def play_out(engine: XBoardEngine, seconds: float) -> list[str]:
    """Let the engine think (st) and collect everything it says for a while."""
    return [line.text for line in engine.collect(seconds, keep_thinking=False)]


def test_finger_note_once_greeting_every_game_and_local_play_is_silent(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path)
    first = server_game(engine, "Bobby", chess.STARTING_FEN)
    assert first[0].startswith("tellicsnoalias set 1 Ponderosa"), first
    assert first[1] == "tellall Hello Bobby, Ponderosa here. Good luck and have fun!", first
    second = server_game(engine, "Alice", chess.STARTING_FEN)
    assert second == ["tellall Hello Alice, Ponderosa here. Good luck and have fun!"]
    engine.send("ics -", "new", "name Carol", "rating 1500 1500")
    assert tells([line.text for line in engine.sync(2)]) == []


def test_greet_text_and_greet_off(engines: list, tmp_path: Path) -> None:
    folder = tmp_path / "a"
    folder.mkdir()
    engine = start(engines, folder, rc="greet Good luck, {name}!")
    assert server_game(engine, "Bobby", chess.STARTING_FEN)[1:] == ["tellall Good luck, Bobby!"]
    folder = tmp_path / "b"
    folder.mkdir()
    silent = start(engines, folder, rc="greet off")
    assert [line for line in server_game(silent, "Bobby", chess.STARTING_FEN) if line.startswith("tellall")] == []


def test_level_two_one_line_per_move_and_level_three_adds_the_pv(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="whisper 2\nkibitz 3\ngreet off")
    server_game(engine, "Bobby", MIDDLEGAME)
    engine.send("st 0.3", "go")
    engine.expect_move(3.0)
    lines = tells(engine.side_lines)   # said before the move line
    assert tells(play_out(engine, 0.3)) == []
    assert len(lines) == 2, lines      # one whisper (tellothers), one kibitz (tellall)
    line = r"depth \d+ score [+-]\d+\.\d\d \(White's view\) [\d.]+s [\d.]+[kMG]? nps"
    assert re.match(rf"tellothers {line}$", lines[0]), lines
    assert re.match(rf"tellall {line} pv \S+", lines[1]), lines


def test_noise_silences_short_searches(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="kibitz 3\ngreet off\nnoise 100000000")
    server_game(engine, "Bobby", MIDDLEGAME)
    engine.send("st 0.3", "go")
    engine.expect_move(3.0)
    assert tells(engine.side_lines + play_out(engine, 0.3)) == []


def test_level_one_announces_a_mate_once(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="kibitz 1\ngreet off")
    server_game(engine, "Bobby", MATE_IN_TWO)
    engine.send("st 0.5", "go")
    engine.expect_move(3.0)
    lines = tells(engine.side_lines)   # before the move: the mating move ends the server's game
    assert lines == ["tellall mate in 1"] or lines == ["tellall mate in 2"], lines
    assert tells(play_out(engine, 0.3)) == []


def test_level_four_tells_book_moves(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="kibitz 4\ngreet off")
    server_game(engine, "Bobby", chess.STARTING_FEN, book=True)
    engine.send("go")
    engine.expect_move(3.0)
    lines = tells(engine.side_lines)   # before the move, as for a searched move
    assert tells(play_out(engine, 0.3)) == []
    assert len(lines) == 1 and re.match(r"tellall book move \S+ \(\d+%\) from \{.+\}$", lines[0]), lines


def test_levels_five_and_six_are_rate_limited(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="whisper 5\nkibitz 6\ngreet off")
    server_game(engine, "Bobby", MIDDLEGAME)
    started = engine.send("st 1.6", "go")
    engine.expect_move(4.0)
    elapsed = time.monotonic() - started
    lines = tells(engine.side_lines + play_out(engine, 0.3))
    for prefix in ("tellothers", "tellall"):
        iterations = [line for line in lines if re.match(rf"{prefix} depth \d+( fail (high|low))? score ", line)
                      and " nps" not in line]
        assert iterations, lines
        assert len(iterations) <= elapsed + 1, (elapsed, iterations)   # one a second at most
        assert [line for line in lines if line.startswith(prefix) and " nps" in line], lines   # the move's line
    assert not [line for line in lines if line.startswith("tellothers") and " fail " in line]   # level 5: no fails


def test_auto_kibitz_list(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="greet off", lists="list AK +Kibi\n")
    server_game(engine, "kibi", MIDDLEGAME)   # names match case-insensitively
    engine.send("st 0.3", "go")
    engine.expect_move(3.0)
    lines = tells(engine.side_lines + play_out(engine, 0.3))
    assert len(lines) == 1 and lines[0].startswith("tellall depth "), lines


def test_blocked_opponent_gets_an_abort_and_nothing_else(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="kibitz 3", lists="list B +Bruno\n")
    lines = server_game(engine, "Bruno", MIDDLEGAME)
    assert lines[1:] == ["tellics +noplay Bruno", "tellics abort"], lines
    engine.send("st 0.3", "go")   # the server did not abort: play on, silently
    engine.expect_move(3.0)
    assert tells(engine.side_lines + play_out(engine, 0.3)) == []


def _until_resign(engine: XBoardEngine, limit: int = 8) -> int:
    """Answer each engine move with a quiet king move; the number of moves before `resign`."""
    moves = 0
    engine.send("st 0.2", "go")
    while moves <= limit:
        line = engine.read(5.0)
        assert line is not None, engine.transcript[-10:]
        if line.text == "resign":
            return moves
        match = MOVE.match(line.text)
        if match:
            engine.board.push_uci(match.group(1))
            moves += 1
            reply = next(move for move in engine.board.legal_moves
                         if engine.board.piece_type_at(move.from_square) == chess.KING)
            engine.move(reply.uci())
    raise AssertionError(f"no resignation in {limit} moves")


def test_server_mode_resigns_and_sooner_against_a_grandmaster(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="greet off", lists="list GM +Magnus\n")
    server_game(engine, "Bobby", HOPELESS_BLACK)
    engine.board = chess.Board(HOPELESS_BLACK)
    assert _until_resign(engine) == 3        # 9 pawns, 4 searches in a row
    engine.send("result 1-0 {Black resigns}")
    server_game(engine, "Magnus", HOPELESS_BLACK)
    engine.board = chess.Board(HOPELESS_BLACK)
    assert _until_resign(engine) == 2        # 3 pawns, 3 searches in a row


def test_draw_offers_accepted_and_declined(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="greet off")
    server_game(engine, "Carl", KNIGHTS)     # equal, move 60: a draw is accepted
    engine.send("st 0.2", "go")
    engine.expect_move(3.0)
    engine.send("draw")
    assert engine.expect_line(re.compile(r"^offer draw$"), 2.0)
    server_game(engine, "Carl", MATE_IN_TWO)   # winning: the offer is declined by playing on
    engine.send("draw", "st 0.3", "go")
    engine.expect_move(3.0)
    assert "offer draw" not in engine.side_lines + play_out(engine, 0.3)


def test_a_draw_offer_with_a_move_is_answered_before_an_instant_book_reply(engines: list, tmp_path: Path) -> None:
    """zippy sends `usermove` and then `draw`; the book reply is played at once, and an answer
    after it would be a new offer (the server declines a pending offer when the engine moves).
    Against a computer an equal game's draw is taken: before the move, or not at all."""
    engine = start(engines, tmp_path, rc="greet off")
    server_game(engine, "Deep", chess.STARTING_FEN, computer=True, book=True)
    engine.send("go")
    engine.expect_move(3.0)
    engine.board.push_uci("e7e5")
    engine.send("usermove e7e5", "draw")   # one write, as zippy sends them
    engine.expect_move(3.0)
    assert "offer draw" in engine.side_lines, engine.side_lines
    assert "offer draw" not in play_out(engine, 0.5)
    engine.send("draw")   # an offer on the opponent's own move (the engine is not on move): answered at once
    assert engine.expect_line(re.compile(r"^offer draw$"), 2.0)


def test_equal_draws_against_computers_at_once(engines: list, tmp_path: Path) -> None:
    early = "1n4k1/8/8/8/8/8/8/1N4K1 w - - 0 5"
    engine = start(engines, tmp_path, rc="greet off")
    server_game(engine, "Human", early)
    engine.send("st 0.2", "go", "draw")
    engine.expect_move(3.0)
    assert "offer draw" not in engine.side_lines + play_out(engine, 0.3)   # equal but early: play on
    server_game(engine, "Bot", early, computer=True)
    engine.send("st 0.2", "go", "draw")
    engine.expect_move(3.0)
    assert "offer draw" in engine.side_lines


def test_the_engine_offers_draws_in_long_equal_endgames_against_computers(engines: list, tmp_path: Path) -> None:
    fen = "1n4k1/8/8/8/8/8/8/1N4K1 w - - 0 70"   # a knight each, move 70
    engine = start(engines, tmp_path, rc="greet off")
    server_game(engine, "Bot", fen, computer=True)
    engine.board = chess.Board(fen)
    engine.send("easy", "st 0.1", "go")
    offered_at = None
    for move_number in range(10):
        engine.expect_move(3.0)
        if "offer draw" in engine.side_lines:
            offered_at = move_number
            break
        engine.move(_safe_reply(engine.board).uci())
    assert offered_at is not None and offered_at >= 4, offered_at   # after five equal searches


def _safe_reply(board: chess.Board) -> chess.Move:
    """A Black move after which no Black piece but the king stands attacked: the position
    stays equal without an engine on Black's side."""
    for move in board.legal_moves:
        board.push(move)
        safe = not any(board.is_attacked_by(chess.WHITE, square) for square in board.pieces(chess.KNIGHT, chess.BLACK))
        board.pop()
        if safe:
            return move
    return next(iter(board.legal_moves))


def test_bad_input_from_the_server_is_logged_and_unanswered(engines: list, tmp_path: Path) -> None:
    engine = start(engines, tmp_path, rc="greet off")
    comment = "a very long comment " * 30 + "ünïcødé ♞"
    engine.send("ics freechess.org", "new", "name b@d!", "name Zoë ♛", "name", "rating", "rating x y",
                "rating 1800", f"result 1-0 {{{comment}}}", "new", "rating 0 0")
    lines = [line.text for line in engine.sync(1, timeout=3.0)]
    assert [line for line in lines if line.startswith("tellall") and ("b@d" in line or "Zo" in line)] == []
    assert [line for line in lines if not line.startswith("tellicsnoalias")] == [], lines
    engine.send("st 0.2", "go")
    engine.expect_move(3.0)       # play goes on
    assert engine.alive() and engine.crash_report() is None


# ----------------------------------------------------------------------------- the console


def console(folder: Path, *commands: str) -> str:
    result = subprocess.run([engine_command()[0], *commands, "quit"], cwd=folder, capture_output=True, text=True,
                            timeout=60)
    return result.stdout + result.stderr


def test_console_server_commands_and_lists_that_survive_a_restart(tmp_path: Path) -> None:
    (tmp_path / ".ponderosarc").write_text("echo started\nexit\n")
    out = console(tmp_path, "list GM +Magnus +Hikaru", "list S +Carl=40", "list GM -hikaru", "whisper 3",
                  "kibitz 7", "greet Hi {name}", "ics lag 0.5", "ics resign 6 3", "noise 5000", "ics on", "ics")
    assert "GM  magnus" in out and "S   carl=40" in out
    assert "Error: usage: kibitz N" in out
    assert "server mode on (console); whisper 3, kibitz 0, AK level 2, noise 5000; greet on; resign 6 after 3 " \
           "searches; lag 0.5 s" in out
    lists_file = tmp_path / ".ponderosa-lists"
    assert lists_file.read_text().splitlines()[1:] == ["list GM +magnus", "list S +carl=40"]
    again = console(tmp_path, "list", "name MAGNUS", "rating 2000 1500", "computer", "name carl", "name b@d")
    assert "GM  magnus" in again                                     # read back after a restart
    assert "opponent MAGNUS: lists GM; draw score +0; resign 3 after 3 searches; kibitz 0" in again
    assert "opponent MAGNUS: lists GM; draw score -30; resign 3" in again
    assert "opponent MAGNUS (computer): lists GM; draw score +0;" in again and "book width 2" in again
    assert "opponent carl (computer): lists S; draw score +40" in again
    assert "Error: not a server login name: 'b@d'" in again
    assert "draw score drops 0.10 per 200 points" in console(tmp_path, "help rating")


def test_a_broken_lists_file_is_reported_at_start_up(tmp_path: Path) -> None:
    (tmp_path / ".ponderosa-lists").write_text("list GM +ok\nlist GM +not ok\n")
    out = console(tmp_path, "list GM")
    assert f"{tmp_path / '.ponderosa-lists'}:2:" in out and "GM  -" in out
