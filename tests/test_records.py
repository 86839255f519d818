"""Game records at the console: savegame/read round trips, savepos/input, tags, reset, read from
the keyboard, reada, logs (log.NNN/game.NNN), edit, search MOVE, both/switch/flip, flag, ls,
trace, and the bad-input messages (the current game untouched)."""
from __future__ import annotations

import io
import lzma
import os
from pathlib import Path

import chess
import chess.pgn
import pytest

from ponderosa.engine.engine import Engine
from ponderosa.protocol.console import Console
from ponderosa.protocol.xboard import XBoardSession

from tests.conftest import data_file


@pytest.fixture(scope="module")
def shared_engine() -> Engine:
    engine = Engine()
    engine.book.enabled = False
    return engine


@pytest.fixture
def console(shared_engine: Engine) -> Console:
    """A console on the shared engine, starting a new game in the test's own folder."""
    shared_engine.game_files.close()   # the files go to the working directory: the test's own
    shared_engine.seconds_per_move = None
    shared_engine.max_depth = None
    shared_engine.record.claim_flag = False
    console = Console(shared_engine, io.StringIO())
    # Nothing typed: not the test process's own standard input, which `pytest -s` leaves open
    # (a line waiting there would interrupt `both`).
    console.input = io.StringIO()
    console.execute("new")
    console.execute("force")
    return console


def run(console: Console, *lines: str) -> str:
    """Execute lines; return what the console printed for them."""
    out = console.out.stream if hasattr(console.out, "stream") else console.out
    start = len(out.getvalue())
    for line in lines:
        console.execute(line)
    return out.getvalue()[start:]


def moves_of(console: Console) -> list[str]:
    return [move.uci() for move in console.engine.game.move_stack]


def play(console: Console, san_moves: str) -> None:
    for word in san_moves.split():
        if not word[0].isdigit():
            run(console, word)


def test_savegame_then_read_gives_the_same_moves_and_tags(console: Console) -> None:
    play(console, "1. d4 Nf6 2. c4 e6 3. Nc3 Bb4")
    output = run(console, "pgn Event Club championship", "pgn Site Bern", "pgn Round 3", "pgn Date 2024.05.17",
                 "pgn White Anna Muster", "pgn WhiteElo 2105", "pgn Black Ponderosa", "pgn Result 1/2-1/2",
                 "savegame saved.pgn")
    assert "Error" not in output
    game = chess.pgn.read_game(open("saved.pgn"))
    assert game is not None and not game.errors
    assert [move.uci() for move in game.mainline_moves()] == moves_of(console)
    assert game.headers["Event"] == "Club championship" and game.headers["WhiteElo"] == "2105"
    assert game.headers["Result"] == "1/2-1/2" and game.headers["Date"] == "2024.05.17"
    saved = moves_of(console)
    run(console, "new")
    assert moves_of(console) == []
    output = run(console, "read saved.pgn", "tags")
    assert moves_of(console) == saved
    assert '[White "Anna Muster"]' in output and '[Round "3"]' in output and '[Site "Bern"]' in output
    run(console, "savegame again.pgn")
    again = chess.pgn.read_game(open("again.pgn"))
    assert dict(again.headers) == dict(game.headers)


def test_default_tags_name_the_players_date_and_time_control(console: Console) -> None:
    run(console, "st 2")
    console.engine_side = chess.BLACK
    output = run(console, "tags")
    assert '[Black "Ponderosa"]' in output
    assert '[TimeControl "1/2"]' in output
    assert '[Date "' in output and '[Date "????' not in output


def test_savepos_then_input_and_setboard_give_the_same_position(console: Console) -> None:
    fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5"
    run(console, f"setboard {fen}", "savepos spot.fen")
    assert Path("spot.fen").read_text().strip() == fen
    assert len(Path("spot.fen").read_text().splitlines()) == 1
    run(console, "new")
    run(console, "input spot.fen")
    assert console.engine.fen() == fen
    run(console, "new", "setboard spot.fen")
    assert console.engine.fen() == fen


def test_reset_goes_back_and_forward_with_the_same_side_to_move(console: Console) -> None:
    play(console, "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6")
    full = moves_of(console)
    run(console, "reset 2")                       # White to move: before 2. Nf3
    assert moves_of(console) == full[:2] and console.engine.white_to_move
    run(console, "reset 4")                       # forward again through the same game
    assert moves_of(console) == full[:6]
    output = run(console, "reset 9")
    assert "Error" in output and moves_of(console) == full[:6]
    run(console, "reset 5")
    assert moves_of(console) == full
    output = run(console, "history")
    assert "4. Nxd4" in output and "Nf6" in output


def test_reset_goes_back_across_a_side_switch(console: Console) -> None:
    """`white`/`black` keep the game's history (a null move in it), so `reset` and `undo` can
    go back past them, and the position after them is the one the side switch made."""
    play(console, "1. e4 c5 2. Nf3")
    run(console, "white")                         # Black passes: White to move again
    assert console.engine.white_to_move and moves_of(console) == ["e2e4", "c7c5", "g1f3", "0000"]
    assert console.engine.fen() == console.engine.game.fen()
    play(console, "d4")
    full = moves_of(console)
    run(console, "reset 2")                       # Black to move at move 2: before the switch
    assert moves_of(console) == full[:3] and not console.engine.white_to_move
    assert console.engine.fen() == console.engine.game.fen()
    run(console, "reset 3")                       # forward again, through the switch
    assert moves_of(console) == full and console.engine.fen() == console.engine.game.fen()
    run(console, "undo", "undo")                  # back across the null move, move by move
    assert moves_of(console) == full[:3] and not console.engine.white_to_move
    assert console.engine.fen() == console.engine.game.fen()


def test_no_side_switch_away_from_a_check(console: Console) -> None:
    play(console, "1. e4 f5 2. Qh5+")
    output = run(console, "white")
    assert "Error" in output and "check" in output
    assert not console.engine.white_to_move and moves_of(console)[-1] == "d1h5"


def test_reset_forward_is_forgotten_once_another_move_is_played(console: Console) -> None:
    play(console, "1. e4 e5 2. Nf3 Nc6")
    run(console, "reset 2", "d4")
    assert "Error" in run(console, "reset 3")     # Nf3 Nc6 are gone: d4 replaced them


def test_read_the_first_game_of_the_master_sample(console: Console) -> None:
    with lzma.open(data_file("games", "master_sample_2000.pgn.xz"), "rt", encoding="utf-8", errors="replace") as stream:
        expected = chess.pgn.read_game(stream)
        assert expected is not None
        Path("first.pgn").write_text(str(expected) + "\n\n")
    output = run(console, "read first.pgn", "tags")
    assert "Error" not in output
    assert moves_of(console) == [move.uci() for move in expected.mainline_moves()]
    assert f'[White "{expected.headers["White"]}"]' in output
    assert f'[Result "{expected.headers["Result"]}"]' in output


def test_read_skips_comments_and_variations(console: Console) -> None:
    Path("annotated.pgn").write_text('[White "X"]\n\n1. e4 {best by test} (1. d4 d5) e5 2. Nf3 $1 Nc6 *\n')
    run(console, "read annotated.pgn")
    assert moves_of(console) == ["e2e4", "e7e5", "g1f3", "b8c6"]


def test_read_from_the_keyboard_ends_with_an_empty_line_or_end(console: Console) -> None:
    console.input = io.StringIO('[Event "Typed"]\n\n1. e4 e5\n2. Nf3\n\nNc6\n')
    run(console, "read")
    assert moves_of(console) == ["e2e4", "e7e5", "g1f3"]
    assert console.engine.record.tags["Event"] == "Typed"
    console.input = io.StringIO("Nc6 Bb5\nend\na6\n")
    run(console, "reada")
    assert moves_of(console) == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]


def test_reada_appends_a_file_to_the_current_game(console: Console) -> None:
    play(console, "1. e4 e5")
    Path("more.pgn").write_text("2. Nf3 Nc6 3. Bb5\n")
    run(console, "reada more.pgn")
    assert moves_of(console) == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]


def test_an_illegal_move_in_the_middle_names_game_and_move_and_keeps_the_moves_before(console: Console) -> None:
    Path("broken.pgn").write_text('[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Qxh2 4. O-O *\n')
    output = run(console, "read broken.pgn")
    assert "broken.pgn: game 1, move 3 (Black): illegal move Qxh2" in output
    assert moves_of(console) == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]


@pytest.mark.parametrize(("command", "message"), [
    ("read missing.pgn", "missing.pgn: no such file"),
    ("reada missing.pgn", "missing.pgn: no such file"),
    ("pgn Date 2024.2.30", "bad date"),
    ("pgn Date 2023.02.29", "bad date"),
    ("pgn Result win", "bad result"),
    ("pgn Colour white", "unknown tag"),
    ("annotate game.pgn wb 40-20 0.5 1", "bad move range '40-20'"),
    ("annotate nothere.pgn wb 1-999 0.5 1", "nothere.pgn: no such file"),
    ("annotate game.pgn wb 1-999 x 1", "usage: annotate"),
    ("reset 0", "usage: reset N"),
    ("input notes.txt", "notes.txt: no such file"),
    ("setboard empty.fen", "empty.fen: empty file"),
    ("search Ke2", "Illegal move: Ke2"),
    ("log five", "usage: log on|off"),
])
def test_bad_input_is_one_clear_line_and_the_game_is_untouched(console: Console, command: str, message: str) -> None:
    Path("game.pgn").write_text("1. e4 e5 *\n")
    Path("empty.fen").write_text("\n")
    play(console, "1. d4 d5 2. c4")
    before = (console.engine.fen(), moves_of(console), dict(console.engine.record.tags))
    output = run(console, command)
    lines = [line for line in output.splitlines() if line.strip()]
    assert any(message in line for line in lines), output
    assert len(lines) == 1, output
    assert (console.engine.fen(), moves_of(console), dict(console.engine.record.tags)) == before


def test_an_illegal_fen_line_in_a_file_names_file_and_line(console: Console) -> None:
    Path("bad.fen").write_text("4k3/8/8/8/8/8/8/r3K3 b - - 0 1\n")   # the side not to move is in check
    play(console, "1. e4")
    before = console.engine.fen()
    output = run(console, "input bad.fen")
    assert "bad.fen:1:" in output and "illegal position" in output
    assert console.engine.fen() == before


def test_game_files_are_rewritten_after_every_move_and_new_opens_the_next_pair(console: Console) -> None:
    play(console, "1. e4 e5")
    first = chess.pgn.read_game(open("game.001"))
    assert [move.uci() for move in first.mainline_moves()] == ["e2e4", "e7e5"]
    run(console, "Nf3")
    assert "Nf3" in Path("game.001").read_text()
    run(console, "echo a line for the log")
    assert "a line for the log" in Path("log.001").read_text()
    run(console, "new", "force", "d4")
    assert Path("game.002").is_file() and "1. d4" in Path("game.002").read_text()
    assert "Nf3" in Path("game.001").read_text()      # the old game stays
    output = run(console, "echo one", "echo two", "log 2")
    assert output.splitlines()[-2:] == ["one", "two"]
    assert "cannot write /no/such/folder/x" in run(console, "log 2 /no/such/folder/x")
    expected = Path("log.002").read_text().splitlines()[-2:]
    run(console, "log 2 tail.txt")
    assert Path("tail.txt").read_text().splitlines() == expected


def test_log_off_writes_no_files(console: Console) -> None:
    run(console, "log off", "e4", "echo quiet")
    assert not list(Path.cwd().glob("game.*")) and not list(Path.cwd().glob("log.*"))
    run(console, "log on")


def test_edit_sets_up_pieces_free_form(console: Console) -> None:
    console.input = io.StringIO("# ke1 qd1\nra1 pe4\nc ke8 pd7 zz9\n.\n")
    output = run(console, "edit")
    assert "bad edit entry" in output
    assert console.engine.fen().split()[0] == "4k3/3p4/8/8/4P3/8/8/R2QK3"
    console.input = io.StringIO("#\nke1\n.\n")        # no black king: refused, position kept
    before = console.engine.fen()
    output = run(console, "edit")
    assert "Error" in output and console.engine.fen() == before


def test_search_move_restricts_the_next_search_to_that_move(console: Console) -> None:
    run(console, "sd 3", "search a3", "go")
    assert moves_of(console) == ["a2a3"]
    run(console, "force", "undo", "go")   # and only the next search
    assert moves_of(console) and moves_of(console)[0] != "a2a3"


def test_go_after_a_game_ended_by_rule_plays_no_move(console: Console) -> None:
    """A game over by the seventy-five-move rule (or fivefold repetition, or no mating material)
    is over even with moves on the board: `go` says so instead of playing on (a shuffle back to
    the start position once had the engine play a book move after the draw)."""
    run(console, "setboard 4k3/8/8/8/8/8/8/R3K3 w - - 150 120")
    said = run(console, "go")
    assert "the game is over" in said and "seventy-five" in said.lower(), said
    assert moves_of(console) == []


def test_both_plays_both_sides_until_the_game_ends_and_switch_swaps_sides(console: Console) -> None:
    run(console, "setboard 7k/8/5K2/8/8/8/8/6R1 w - - 0 1", "sd 3", "both")
    assert console.engine.outcome() is not None   # the engine mated itself out of it
    assert console.engine_side is None
    run(console, "new", "force", "sd 2", "switch")   # force mode: the engine takes the side to move
    assert len(moves_of(console)) == 1 and console.engine_side == chess.WHITE
    run(console, "switch")                            # now Black, and on move: it plays
    assert len(moves_of(console)) == 2 and console.engine_side == chess.BLACK


def test_both_is_not_interrupted_by_an_input_at_its_end(console: Console) -> None:
    # /dev/null is always "ready" to select() and reads as "": no line was typed
    with open(os.devnull, encoding="utf-8") as empty:
        console.input = empty
        run(console, "setboard 7k/8/5K2/8/8/8/8/6R1 w - - 0 1", "sd 3", "both")
    assert console.engine.outcome() is not None   # played on to the mate


def test_flip_shows_the_board_from_blacks_side(console: Console) -> None:
    normal = run(console, "display")
    flipped = run(console, "flip", "display")
    assert normal.index("  8 |") < normal.index("  1 |")
    assert flipped.index("  1 |") < flipped.index("  8 |")
    assert "h   g   f" in flipped
    run(console, "reverse")
    assert not console.flipped


def test_ls_lists_matching_files_and_trace_says_this_build_has_none(console: Console) -> None:
    Path("a.pgn").write_text("")
    Path("b.pgn").write_text("")
    Path("c.txt").write_text("")
    assert run(console, "ls *.pgn").split() == ["a.pgn", "b.pgn"]
    assert "no files match" in run(console, "ls *.epd")
    assert "this build has no search trace" in run(console, "trace 3")


def test_help_explains_each_new_command(console: Console) -> None:
    for name in ("savegame", "savepos", "pgn", "tags", "read", "reada", "reset", "log", "annotate", "annotateh",
                 "search", "both", "switch", "flip", "reverse", "edit", "flag", "ls", "trace"):
        output = run(console, f"help {name}")
        assert "Error" not in output and len(output) > 30, name
    assert "off in XBoard mode" in run(console, "help log")
    assert "this build is not" in run(console, "help trace")


def test_flag_on_claims_the_win_when_the_opponents_clock_runs_out(shared_engine: Engine) -> None:
    shared_engine.new_game()
    shared_engine.record.claim_flag = True
    out = io.StringIO()
    session = XBoardSession(shared_engine, out)
    for line in ("new", "force", "e2e4", "otim 0"):
        session.handle(line)
    assert "flag" not in out.getvalue()      # force mode: the engine plays no side
    session.handle("new")                    # the engine plays Black
    session.handle("otim -5")
    assert "0-1 {White's flag fell}" in out.getvalue()
    assert session.engine_side is None
    shared_engine.record.claim_flag = False
    out2 = io.StringIO()
    session = XBoardSession(shared_engine, out2)
    session.handle("new")
    session.handle("otim 0")
    assert "flag" not in out2.getvalue()


def test_xboard_log_option_turns_the_game_files_on(shared_engine: Engine) -> None:
    shared_engine.new_game()
    shared_engine.game_files.enabled = False
    session = XBoardSession(shared_engine, io.StringIO())
    session.handle("new")
    session.handle("force")
    session.handle("e2e4")
    assert not Path("game.001").exists()
    session.handle("option Log=1")
    session.handle("e7e5")
    assert "1. e4 e5" in Path("game.001").read_text()
    session.handle("option Log=0")
    from ponderosa.protocol.streams import set_logging
    set_logging(False)


def test_continuing_a_pair_moves_the_start_up_output_into_its_log() -> None:
    from ponderosa.engine.records import GameFiles
    Path("game.001").write_text("1. e4 *\n")
    Path("log.001").write_text("first run\n")
    files = GameFiles(Path.cwd())
    files.enabled = True
    files.write_log("banner\n")                      # opens log.002 before `c` is handled
    assert Path("log.002").is_file()
    files.continue_pair(1)
    files.write_log("second run\n")
    assert not Path("log.002").exists()
    assert Path("log.001").read_text() == "first run\nbanner\nsecond run\n"
