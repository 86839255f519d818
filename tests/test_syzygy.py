"""The core's Syzygy prober against python-chess's (the oracle), and its handling of bad files."""
from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.syzygy
import pytest

from ponderosa.core_ext import core
from ponderosa.core_ext.core import Board

from tests.conftest import data_file
from tools.bench.syzygy import random_position  # tools/bench/syzygy.py draws the same positions

TABLES = data_file("syzygy", "KQvK.rtbw").parent   # all 3- and 4-piece tables


@pytest.fixture()
def tables() -> Iterator[None]:
    """The shipped 3-4 piece tables registered in the core (the registry is process-wide)."""
    assert core.set_paths(str(TABLES)) == []
    yield
    core.set_paths("")


@pytest.fixture(scope="module")
def oracle() -> Iterator[chess.syzygy.Tablebase]:
    with chess.syzygy.open_tablebase(str(TABLES)) as tablebase:
        yield tablebase


def en_passant_position(rng: random.Random, extra: int) -> chess.Board:
    """A position right after a double pawn push with a pawn ready to take en passant."""
    while True:
        board = chess.Board(None)
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        mover = not board.turn   # the side that just pushed two squares
        file_ = rng.randrange(8)
        pushed = chess.square(file_, 3 if mover == chess.WHITE else 4)
        taker_files = [f for f in (file_ - 1, file_ + 1) if 0 <= f < 8]
        taker = chess.square(rng.choice(taker_files), chess.square_rank(pushed))
        board.set_piece_at(pushed, chess.Piece(chess.PAWN, mover))
        board.set_piece_at(taker, chess.Piece(chess.PAWN, board.turn))
        behind = [chess.square(file_, r) for r in ((1, 2) if mover == chess.WHITE else (5, 6))]
        free = [sq for sq in chess.SQUARES if board.piece_at(sq) is None and sq not in behind]
        kings = rng.sample(free, 2)
        board.set_piece_at(kings[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(kings[1], chess.Piece(chess.KING, chess.BLACK))
        for _ in range(extra):
            piece = chess.Piece.from_symbol(rng.choice("QRBNqrbn"))
            free = [sq for sq in chess.SQUARES if board.piece_at(sq) is None and sq not in behind]
            board.set_piece_at(rng.choice(free), piece)
        board.ep_square = chess.square(file_, 2 if mover == chess.WHITE else 5)
        if board.is_valid() and any(board.generate_legal_ep()):
            return board


def test_generated_index_tables_match_the_format(tables: None) -> None:
    generated = core.index_tables()
    assert generated["KK_IDX"] == chess.syzygy.KK_IDX
    assert generated["PTWIST"] == chess.syzygy.PTWIST
    assert generated["FLAP"][8:56] == chess.syzygy.FLAP[8:56]
    assert generated["PAWNIDX"] == chess.syzygy.PAWNIDX
    assert generated["PFACTOR"] == chess.syzygy.PFACTOR


def test_largest_class_and_count(tables: None) -> None:
    assert core.largest() == 4
    assert core.table_count() == len(list(TABLES.glob("*.rtbw")))


@pytest.mark.parametrize("positions", [2_000, pytest.param(10_000, marks=pytest.mark.slow)])
def test_wdl_and_dtz_equal_python_chess_on_random_positions(tables: None, oracle: chess.syzygy.Tablebase,
                                                            positions: int) -> None:
    """A tenth of the positions have an en-passant capture; 10,000 of them with -m slow."""
    rng = random.Random(20261125)
    checked = with_ep = 0
    mismatches = []
    for n in range(positions):
        if n % 10 == 9:
            board = en_passant_position(rng, rng.choice([0, 0, 1]))  # 4 or 5 men before the e.p. capture
            if chess.popcount(board.occupied) > 4:
                board.remove_piece_at(next(sq for sq in chess.SQUARES
                                           if board.piece_type_at(sq) not in (None, chess.KING, chess.PAWN)))
            with_ep += 1
        else:
            board = random_position(rng, rng.choice([1, 2]))
        ours = Board(board.fen())
        expected = (oracle.probe_wdl(board), oracle.probe_dtz(board))
        got = (core.probe_wdl(ours), core.probe_dtz(ours))
        checked += 1
        if got != expected:
            mismatches.append((board.fen(), expected, got))
    assert checked == positions and with_ep == positions // 10
    assert mismatches == []


def test_missing_table_and_castling_give_none(tables: None) -> None:
    assert core.probe_wdl(Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")) is None   # castling rights
    assert core.probe_wdl(Board("4k3/8/8/8/8/8/1PP5/R3K3 w - - 0 1")) is None  # 5 men, no table
    assert core.probe_wdl(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == 0        # bare kings need no table


def test_no_tables_registered() -> None:
    core.set_paths("")
    assert core.largest() == 0
    assert core.probe_wdl(Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) is None


def test_bad_paths_are_reported(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    messages = core.set_paths(str(missing))
    assert messages == [f"{missing}: no such directory"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert core.set_paths(str(empty)) == [f"{empty}: no Syzygy tables (.rtbw/.rtbz) found"]
    assert core.largest() == 0


def test_a_fifo_named_like_a_table_is_not_opened(tmp_path: Path) -> None:
    """Opening a FIFO blocks until someone writes to it: it is refused unopened, the rest are used."""
    (tmp_path / "KQvK.rtbw").write_bytes((TABLES / "KQvK.rtbw").read_bytes())
    os.mkfifo(tmp_path / "KRvK.rtbw")
    messages = core.set_paths(str(tmp_path))
    assert messages == [f"{tmp_path / 'KRvK.rtbw'}: not a regular file; table not used"]
    assert core.table_count() == 1
    core.set_paths("")


def corrupt_copy(tmp_path: Path, cut: int | None = None, magic: bytes | None = None,
                 name: str = "KQvK.rtbw") -> Path:
    """The shipped tables with one file damaged: `cut` bytes removed from its end, or a new magic."""
    folder = tmp_path / "tables"
    shutil.copytree(TABLES, folder)
    target = folder / name
    data = target.read_bytes()
    if cut is not None:
        data = data[:-cut]
    if magic is not None:
        data = magic + data[4:]
    target.write_bytes(data)
    return folder


@pytest.mark.parametrize("cut", [100, 64])
def test_truncated_table_is_reported_and_skipped(tmp_path: Path, cut: int) -> None:
    folder = corrupt_copy(tmp_path, cut=cut)
    messages = core.set_paths(str(folder)) + []
    board = Board("8/8/8/4k3/8/8/8/3QK3 w - - 0 1")
    value = core.probe_wdl(board)
    messages += core.problems()
    assert value is None
    assert any(str(folder / "KQvK.rtbw") in m and ("truncated" in m) for m in messages), messages
    # Every other table still answers.
    assert core.probe_wdl(Board("8/8/8/4k3/8/8/8/3RK3 w - - 0 1")) == 2
    core.set_paths("")


def test_wrong_magic_is_reported(tmp_path: Path) -> None:
    folder = corrupt_copy(tmp_path, magic=b"\x00\x01\x02\x03", name="KRvK.rtbz")
    messages = core.set_paths(str(folder))
    assert any(str(folder / "KRvK.rtbz") in m and "magic" in m for m in messages), messages
    board = Board("8/8/8/4k3/8/8/8/3RK3 w - - 0 1")
    assert core.probe_wdl(board) == 2          # the WDL file is fine
    assert core.probe_dtz(board) is None       # the DTZ file is not used
    core.set_paths("")


def test_header_damage_found_when_opened(tmp_path: Path) -> None:
    """A file of the right size and magic whose header lies: found at first use, not a crash."""
    folder = tmp_path / "tables"
    shutil.copytree(TABLES, folder)
    target = folder / "KRvK.rtbw"
    data = bytearray(target.read_bytes())
    data[5:9] = b"\xff\xff\xff\xff"   # piece list
    target.write_bytes(bytes(data))
    assert core.set_paths(str(folder)) == []
    assert core.probe_wdl(Board("8/8/8/4k3/8/8/8/3RK3 w - - 0 1")) is None
    problems = core.problems()
    assert len(problems) == 1 and str(target) in problems[0]
    core.set_paths("")


def test_cache_sizes(tables: None, oracle: chess.syzygy.Tablebase) -> None:
    board = chess.Board("8/8/8/4k3/8/2P5/8/3NK3 w - - 0 1")
    for size in (0, 1 << 10, 3 << 20):
        used = core.set_cache(size)
        assert used <= size and (used == 0) == (size == 0)
        for _ in range(2):   # the second time from the cache
            assert core.probe_dtz(Board(board.fen())) == oracle.probe_dtz(board)
    core.set_cache(4 << 20)
    with pytest.raises(ValueError):
        core.set_cache(-1)
