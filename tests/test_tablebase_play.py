"""Ponderosa with the Syzygy tables: the root filter, the commands, and endgames played to the end
against Fairy-Max (Debian `fairymax`) through the XBoard protocol."""
from __future__ import annotations

import io
import queue
import random
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest

from ponderosa.core_ext.core import MATE_THRESHOLD, TABLEBASE_THRESHOLD, Board
from ponderosa.engine.engine import Engine
from ponderosa.engine.search import SearchLimits, Thinking
from ponderosa.protocol.console import Console

from tests.conftest import data_file
from tests.xboard_harness import engine_command

TABLES = data_file("syzygy", "KQvK.rtbw").parent
FAIRYMAX = shutil.which("fairymax") or shutil.which("/usr/games/fairymax")
PONDEROSA_SECONDS = 0.2      # per move
FAIRYMAX_DEPTH = 6           # plies; deep enough to defend well in these endings, and quick


@pytest.fixture(scope="module")
def oracle() -> Iterator[chess.syzygy.Tablebase]:
    with chess.syzygy.open_tablebase(str(TABLES)) as tablebase:
        yield tablebase


@pytest.fixture()
def engine() -> Iterator[Engine]:
    engine = Engine()
    engine.book.enabled = False
    assert engine.settings.set_tablebase_path(str(TABLES)) == []
    yield engine
    engine.settings.set_tablebase_path("")


def console_for(engine: Engine) -> tuple[Console, io.StringIO]:
    engine.book.close()
    out = io.StringIO()
    return Console(engine, out), out


def start_position(rng: random.Random, white: str, black: str, wdl: int | None,
                   oracle: chess.syzygy.Tablebase) -> chess.Board:
    """A random position with these pieces, White to move, whose tablebase value is wdl (None: any)."""
    while True:
        board = chess.Board(None)
        squares = rng.sample([sq for sq in chess.SQUARES], 2 + len(white) + len(black))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square, letter in zip(squares[2:], white.upper() + black.lower()):
            board.set_piece_at(square, chess.Piece.from_symbol(letter))
        if board.is_valid() and not board.is_check() and not board.is_game_over() \
                and wdl in (None, oracle.probe_wdl(board)) \
                and (oracle.probe_wdl(board) == 0 or abs(oracle.probe_dtz(board)) > 4):
            return board


# -- the root filter ---------------------------------------------------------------------------

@pytest.mark.parametrize("pieces", [("Q", ""), ("R", ""), ("BN", ""), ("P", ""), ("R", "R"), ("R", "B"), ("P", "P")])
def test_root_keeps_only_moves_that_keep_the_result(engine: Engine, oracle: chess.syzygy.Tablebase,
                                                    pieces: tuple[str, str]) -> None:
    rng = random.Random(hash(pieces) & 0xFFFF)
    for _ in range(20):
        board = start_position(rng, *pieces, wdl=None, oracle=oracle)
        if rng.random() < 0.5:
            board = board.mirror()
        decision = engine.tablebases.root_decision(Board(board.fen()))
        assert decision is not None
        best = max(-oracle.probe_wdl(child) for child in children(board))
        assert decision.wdl == best
        for uci in decision.keep:
            child = board.copy()
            child.push_uci(uci)
            assert -oracle.probe_wdl(child) == best, (board.fen(), uci)
        if best == 2:   # the fastest by DTZ: nothing nearer the next counter reset is left out
            def plies(uci: str, board: chess.Board = board) -> int:
                child = board.copy()
                child.push_uci(uci)
                return 0 if child.halfmove_clock == 0 else abs(oracle.probe_dtz(child))
            winning = [m.uci() for m in board.legal_moves if -oracle.probe_wdl(after(board, m)) == 2]
            assert min(plies(m) for m in winning) == plies(decision.keep[0])


def children(board: chess.Board) -> Iterator[chess.Board]:
    for move in board.legal_moves:
        yield after(board, move)


def after(board: chess.Board, move: chess.Move) -> chess.Board:
    child = board.copy()
    child.push(move)
    return child


def test_fifty_move_counter_turns_a_slow_win_into_a_draw(engine: Engine, oracle: chess.syzygy.Tablebase) -> None:
    """KRvK with the counter at 98: no mate in time, every move is a draw under the rule."""
    board = chess.Board("8/8/8/3k4/8/8/8/R3K3 w - - 98 80")
    decision = engine.tablebases.root_decision(Board(board.fen()))
    assert decision is not None and decision.wdl == 1
    fresh = engine.tablebases.root_decision(Board("8/8/8/3k4/8/8/8/R3K3 w - - 0 80"))
    assert fresh is not None and fresh.wdl == 2


def test_search_reports_tablebase_hits(engine: Engine) -> None:
    engine.set_position("8/8/4k3/8/3p4/8/3R4/4K3 w - - 0 1")
    reports: list[Thinking] = []
    result = engine.think(SearchLimits(depth=8), on_thinking=reports.append)
    assert result.best_move is not None
    assert reports and reports[-1].tbhits is not None and reports[-1].tbhits > 0
    assert engine.searcher.core.tbhits > 0   # probes inside the tree, after captures and pawn moves


def test_no_tables_no_probes() -> None:
    engine = Engine()
    engine.book.enabled = False
    engine.settings.set_tablebase_path("")
    engine.set_position("8/8/4k3/8/3p4/8/3R4/4K3 w - - 0 1")
    reports: list[Thinking] = []
    engine.think(SearchLimits(depth=6), on_thinking=reports.append)
    assert reports and all(report.tbhits is None for report in reports)
    assert engine.searcher.core.tbhits == 0


def test_tablebase_win_is_scored_below_mate(engine: Engine) -> None:
    engine.set_position("8/8/8/4k3/8/2r5/8/2Q1K3 w - - 0 1")   # Qxc3 reaches a won KQvK
    result = engine.think(SearchLimits(depth=6))
    assert result.best_move == "c1c3"
    assert TABLEBASE_THRESHOLD <= result.score < MATE_THRESHOLD
    engine.set_position("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1")   # a real mate in one beats any table win
    assert engine.think(SearchLimits(depth=4)).best_move in ("g1g7", "g1a7", "g1b7")


def test_swindle_plays_on_without_probes_in_a_won_looking_draw(engine: Engine) -> None:
    engine.set_position("8/8/4k3/8/3b4/8/8/R3K3 w - - 0 1")   # KRvKB: a draw, White has more
    engine.tablebases.swindle = True
    engine.think(SearchLimits.fixed_time(0.3))
    assert engine.searcher.core.tbhits == 0
    engine.tablebases.swindle = False
    engine.think(SearchLimits.fixed_time(0.3))
    assert engine.searcher.core.tbhits > 0
    engine.tablebases.swindle = True
    _, probing, _ = engine.tablebases.prepare_search(engine.board, set(), open_ended=True)
    assert probing   # analysis (no limit) always probes


# -- commands ----------------------------------------------------------------------------------

def test_console_commands(tmp_path: Path) -> None:
    engine = Engine()
    console, out = console_for(engine)
    console.execute("egtb")
    console.execute(f"tbpath {TABLES}")
    console.execute("egtb")
    console.execute("cache 1M")
    console.execute("cache")
    console.execute("swindle off")
    console.execute("swindle maybe")
    console.execute(f"tbpath {tmp_path / 'missing'}")
    console.execute(f"egtb {TABLES}")
    console.execute("help egtb")
    lines = out.getvalue().splitlines()
    assert lines[0] == "no tablebase files found (no path set)"
    assert lines[1] == lines[2] == "4 piece tablebase files found (35 tables)"
    assert lines[3] == lines[4] == "tablebase cache = 1024K bytes"
    assert lines[5] == "swindle mode off" and not engine.tablebases.swindle
    assert lines[6] == "Error: usage: swindle on|off"
    assert lines[7] == f"Syzygy: {tmp_path / 'missing'}: no such directory"
    assert lines[8].startswith("no tablebase files found in")
    assert lines[9] == "4 piece tablebase files found (35 tables)"
    assert "egtb [PATH]" in out.getvalue().split("\n", 10)[10]
    engine.settings.set_tablebase_path("")


def run_xboard(commands: list[str], until: str = "pong 1", timeout: float = 30.0) -> list[str]:
    """Feed commands to `ponderosa --xboard`, read its output up to a line starting with `until`,
    then quit; returns the lines."""
    process = subprocess.Popen(engine_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("\n".join(commands) + "\n")
    process.stdin.flush()
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    lines = []
    try:
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith(until):
                break
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=10)
    finally:
        timer.cancel()
    return lines


def test_xboard_features_egtpath_and_thinking_with_tbhits() -> None:
    lines = run_xboard(["xboard", "protover 2", f"egtpath syzygy {TABLES}", "new", "force",
                        "setboard 8/8/4k3/8/3p4/8/3R4/4K3 w - - 0 1", "post", "sd 8", "go"], until="move ")
    features = " ".join(line for line in lines if line.startswith("feature"))
    assert 'egt="syzygy"' in features and 'option="SyzygyPath -path' in features \
        and 'option="SyzygyProbeDepth -spin 1 0 100"' in features
    assert "# 4 piece tablebase files found (35 tables)" in lines
    thinking = [line for line in lines if "\t" in line]
    assert thinking, lines
    depth, score, centis, nodes, seldepth, nps, tbhits = thinking[-1].split("\t")[0].split()
    assert int(tbhits) > 0 and int(seldepth) >= int(depth)
    assert any(line.startswith("move ") for line in lines)


def test_xboard_options_and_bad_paths(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    lines = run_xboard(["xboard", "protover 2", f"option SyzygyPath={tmp_path / 'nowhere'}",
                        f"egtpath syzygy {empty}", "option SyzygyProbeDepth=x", "option SyzygyProbeDepth=3",
                        "egtpath gaviota /somewhere", "ping 1"])
    assert f"telluser Syzygy: {tmp_path / 'nowhere'}: no such directory" in lines
    assert f"telluser Syzygy: {empty}: no Syzygy tables (.rtbw/.rtbz) found" in lines
    assert "Error (bad option value): option SyzygyProbeDepth=x" in lines
    assert "pong 1" in lines


def test_a_missing_folder_is_a_popup_once_and_xboards_default_never(tmp_path: Path) -> None:
    """xboard sends `egtpath` at every game; its built-in default folder is missing on most
    machines. A popup (telluser) comes once per message; the repeats and the default folder
    go only to xboard's debug file (`#` lines)."""
    nowhere = tmp_path / "nowhere"
    game = ["new", f"egtpath syzygy {nowhere}", "egtpath syzygy /EGT/Syzygy"]
    lines = run_xboard(["xboard", "protover 2", *game, *game, *game, "ping 1"])
    popups = [line for line in lines if line.startswith("telluser")]
    assert popups == [f"telluser Syzygy: {nowhere}: no such directory"], popups
    assert lines.count(f"# Syzygy: {nowhere}: no such directory") == 2
    assert lines.count("# Syzygy: /EGT/Syzygy: no such directory") == 3
    assert "pong 1" in lines


def test_xboard_corrupt_table_gives_a_message_and_a_legal_move(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    shutil.copytree(TABLES, folder)
    (folder / "KRvK.rtbw").write_bytes((folder / "KRvK.rtbw").read_bytes()[:-100])
    damaged = folder / "KRPvK.rtbw"   # right size and magic, header damaged: found when first opened
    data = bytearray(damaged.read_bytes())
    data[5:12] = b"\xff" * 7
    damaged.write_bytes(bytes(data))
    fen = "8/8/4k3/8/8/8/2R2P2/4K3 w - - 0 1"
    lines = run_xboard(["xboard", "protover 2", f"egtpath syzygy {folder}", "new", "force",
                        f"setboard {fen}", "sd 6", "go"], until="move ")
    assert any(line.startswith("telluser Syzygy:") and "KRvK.rtbw" in line and "truncated" in line
               for line in lines), lines
    assert any(line.startswith("telluser Syzygy:") and "KRPvK.rtbw" in line for line in lines), lines
    moves = [line.split()[1] for line in lines if line.startswith("move ")]
    assert len(moves) == 1 and chess.Move.from_uci(moves[0]) in chess.Board(fen).legal_moves


# -- games against Fairy-Max -------------------------------------------------------------------

class FairyMax:
    """Fairy-Max over XBoard; it has no setboard, so positions are set up with `edit`."""

    def __init__(self) -> None:
        assert FAIRYMAX is not None
        self.process = subprocess.Popen([FAIRYMAX], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("xboard", "protover 2")
        self._wait_for(lambda line: "done=1" in line)
        self.started = False

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n".join(lines) + "\n")
        self.process.stdin.flush()

    def _wait_for(self, accept) -> str:   # type: ignore[no-untyped-def]
        while True:
            line = self.lines.get(timeout=60)
            if accept(line):
                return line

    def setup(self, board: chess.Board) -> None:
        commands = ["new", "force", f"sd {FAIRYMAX_DEPTH}", "edit", "#"]
        for colour in (chess.WHITE, chess.BLACK):
            if colour == chess.BLACK:
                commands.append("c")
            for square, piece in board.piece_map().items():
                if piece.color == colour:
                    commands.append(piece.symbol().upper() + chess.square_name(square))
        commands += [".", "white" if board.turn == chess.WHITE else "black", "force"]
        self.send(*commands)

    def reply(self, move: chess.Move) -> chess.Move:
        """Our move in, its move out."""
        self.send(move.uci())
        if not self.started:
            self.send("go")
            self.started = True
        return chess.Move.from_uci(self._wait_for(lambda line: line.startswith("move ")).split()[1])

    def close(self) -> None:
        self.send("quit")
        self.process.wait(timeout=10)


def play_out(board: chess.Board, oracle: chess.syzygy.Tablebase, max_plies: int) -> tuple[chess.Board, int]:
    """Ponderosa (side to move) against Fairy-Max from board; returns the final board and the most
    tablebase hits Ponderosa reported. Checks after every Ponderosa move that it kept the result."""
    start_wdl = oracle.probe_wdl(board)
    most_hits = 0
    fairy = FairyMax()
    fairy.setup(board)
    ponderosa = chess.engine.SimpleEngine.popen_xboard(engine_command(), timeout=20.0)
    try:
        ponderosa.configure({"egtpath syzygy": str(TABLES)})
        while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
            played = ponderosa.play(board, chess.engine.Limit(time=PONDEROSA_SECONDS), info=chess.engine.INFO_ALL)
            assert played.move is not None
            most_hits = max(most_hits, played.info.get("tbhits", 0))
            board.push(played.move)
            if board.is_game_over(claim_draw=True):
                break
            kept = -oracle.probe_wdl(board)   # from Ponderosa's side
            assert kept == 2 if start_wdl == 2 else kept >= 0, board.fen()
            assert board.halfmove_clock < 100, board.fen()
            board.push(fairy.reply(played.move))
    finally:
        ponderosa.quit()
        fairy.close()
    return board, most_hits


def win_to_mate(white: str, black: str, seed: int, oracle: chess.syzygy.Tablebase) -> None:
    rng = random.Random(seed)
    start = start_position(rng, white, black, 2, oracle)
    if rng.random() < 0.5:
        start = start.mirror()   # Ponderosa plays Black half the time
    dtz = oracle.probe_dtz(start)
    board, hits = play_out(start.copy(), oracle, max_plies=400)
    assert board.is_checkmate() and board.turn != start.turn, (start.fen(), board.fen(), board.move_stack)
    plies = len(board.move_stack)
    if "P" not in white:   # no zeroing move before mate: DTZ bounds the whole game (one ply of rounding)
        assert plies <= dtz + 1, (start.fen(), dtz, plies)
    assert hits > 0


def hold_draw(white: str, black: str, seed: int, oracle: chess.syzygy.Tablebase, plies: int) -> None:
    """Ponderosa has the side to move in a drawn position (the weaker side where there is one)."""
    rng = random.Random(seed)
    start = start_position(rng, black, white, 0, oracle)   # White (Ponderosa) has `black`'s pieces
    board, _ = play_out(start.copy(), oracle, max_plies=plies)
    assert not (board.is_checkmate() and board.turn == start.turn), board.fen()


needs_fairymax = pytest.mark.skipif(FAIRYMAX is None, reason="Fairy-Max (Debian fairymax) is not installed")


@needs_fairymax
@pytest.mark.parametrize("white, seed", [("Q", 1), ("P", 2)])
def test_wins_to_mate_against_fairymax(white: str, seed: int, oracle: chess.syzygy.Tablebase) -> None:
    win_to_mate(white, "", seed, oracle)


@needs_fairymax
def test_holds_krkr_against_fairymax(oracle: chess.syzygy.Tablebase) -> None:
    hold_draw("R", "R", 3, oracle, plies=30)


@needs_fairymax
@pytest.mark.slow
@pytest.mark.parametrize("white", ["Q", "R", "BN", "P"])
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_more_wins_to_mate_against_fairymax(white: str, seed: int, oracle: chess.syzygy.Tablebase) -> None:
    win_to_mate(white, "", seed, oracle)


@needs_fairymax
@pytest.mark.slow
@pytest.mark.parametrize("white, black", [("R", "R"), ("R", "B"), ("P", "P")])
@pytest.mark.parametrize("seed", [21, 22])
def test_holds_draws_against_fairymax(white: str, black: str, seed: int, oracle: chess.syzygy.Tablebase) -> None:
    hold_draw(white, black, seed, oracle, plies=80)
