"""Perft counts of the standard suites: every count must be exact."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from ponderosa.core_ext.core import Board

from tests.conftest import data_file, read_perft_epd

DEFAULT_SUITES = ["perftsuite.epd", "cpw_perft.epd"]
SLOW_SUITES = ["perft_stress.epd"]
SPLIT_FROM_NODES = 20_000_000   # larger counts are split by root move over every core
SLOW_FROM_NODES = 100_000_000   # larger counts (24 of them, the deepest of their positions: about 45 s together)
                                # run with -m slow; every position keeps its shallower counts in the default run


def perft(fen: str, depth: int, expected_nodes: int) -> int:
    """perft(depth) of fen. A large count is the sum of perft(depth - 1) after each root move,
    counted on all cores at once (the core releases the GIL), so that the exact counts of the
    suites stay in the default run without doubling its time."""
    if depth < 2 or expected_nodes < SPLIT_FROM_NODES:
        return Board(fen).perft(depth)

    def after(move: str) -> int:
        board = Board(fen)
        board.push_uci(move)
        return board.perft(depth - 1)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return sum(pool.map(after, Board(fen).legal_moves()))


def _params(suites: list[str], marks: tuple = ()) -> list:
    params = []
    for suite in suites:
        for fen, depth, nodes, label in read_perft_epd(data_file("suites", suite)):
            count_marks = marks if nodes < SLOW_FROM_NODES else (*marks, pytest.mark.slow)
            params.append(pytest.param(fen, depth, nodes, id=label, marks=count_marks))
    return params


@pytest.mark.parametrize("fen,depth,nodes", _params(DEFAULT_SUITES))
def test_perft_suites(fen: str, depth: int, nodes: int) -> None:
    assert perft(fen, depth, nodes) == nodes


@pytest.mark.parametrize("fen,depth,nodes", _params(SLOW_SUITES, (pytest.mark.slow,)))
def test_perft_stress_suite(fen: str, depth: int, nodes: int) -> None:
    assert perft(fen, depth, nodes) == nodes


def test_divide_adds_up_to_perft() -> None:
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    split = board.divide(3)
    assert len(split) == 48
    assert sum(nodes for _, nodes in split) == 97862
    after_castling = board.copy()
    after_castling.push_uci("e1g1")
    assert dict(split)["e1g1"] == after_castling.perft(2)


def test_perft_leaves_the_position_unchanged() -> None:
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    fen, key = board.fen(), board.key
    board.perft(4)
    assert (board.fen(), board.key) == (fen, key)


@pytest.mark.parametrize("fen,expected", [
    # En passant that would expose the king along the rank (both pawns leave it).
    ("8/8/8/K2pP2q/8/8/8/7k w - d6 0 1", {"e5d6": False}),
    # En passant that removes the checking pawn.
    ("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", {"e4d3": True}),
    # Castling through an attacked square, and with the rook captured.
    ("r3k2r/8/8/8/8/8/8/R3K1qR w KQkq - 0 1", {"e1c1": False, "e1g1": False}),
    ("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1", {"e1g1": False, "e1c1": True}),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", {"e1g1": True, "e1c1": True}),
    # Long castling with b1 attacked is legal.
    ("r3k2r/8/8/8/8/8/8/Rr2K2R w KQkq - 0 1", {"e1c1": False}),
    ("1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1", {"e1c1": True}),
])
def test_special_moves(fen: str, expected: dict[str, bool]) -> None:
    legal = set(Board(fen).legal_moves())
    for move, is_legal in expected.items():
        assert (move in legal) == is_legal, move
