"""The measuring tools on the engine's position: perft and perf (the move generator), the
`bench` (a fixed set of positions searched to a fixed depth; the node total is a signature)
and test suites, with their results."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ponderosa.core_ext.core import Board
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking
from ponderosa.engine.testsuite import TestPosition, read_suite

if TYPE_CHECKING:
    from ponderosa.engine.game_state import GameState
    from ponderosa.engine.search_control import SearchControl

    # The engine's search of its current position: limits, thinking lines, whether to go on.
    Think = Callable[[SearchLimits, Callable[[Thinking], None] | None, Callable[[int, str], bool]], SearchResult]

# Middlegames and endgames from well-known test sets (Bratko-Kopec, perft and CPW positions).
BENCH_POSITIONS = [
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "4b3/p3kp2/6p1/3pP2p/2pP1P2/4K1P1/P3N2P/8 w - - 0 1",
    "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
    "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - 0 1",
    "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - - 0 1",
    "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
    "r4k2/pb2bp1r/1p1qp2p/3pNp2/3P1P2/2N3P1/PPP1Q2P/2KRR3 w - - 0 1",
    "3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 1",
    "r2qnrnk/p2b2b1/1p1p2pp/2pPpp2/1PP1P3/PRNBB3/3QNPPP/5RK1 w - - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/8/1p1k4/5p2/1P1K1P2/8/8/8 w - - 0 1",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
    "8/8/8/5k2/8/8/2K5/1R6 w - - 0 1",
    "r2q1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PNBPN2/PB3PPP/R2Q1RK1 w - - 0 10",
]
BENCH_DEPTH = 12


def rate(count: int, seconds: float) -> float:
    """count per second; a run too short to time counts as infinitely fast."""
    return count / seconds if seconds > 0 else float("inf")


@dataclass(frozen=True)
class PerftResult:
    """Leaf nodes counted to a depth, and how long it took."""

    depth: int
    nodes: int
    seconds: float

    @property
    def nodes_per_second(self) -> float:
        return rate(self.nodes, self.seconds)


@dataclass(frozen=True)
class PerfResult:
    """Crafty's `perf`: move generation speed alone, and with make/unmake of every move."""

    generated: int
    generate_seconds: float
    made: int
    make_seconds: float

    @property
    def generated_per_second(self) -> float:
        return rate(self.generated, self.generate_seconds)

    @property
    def made_per_second(self) -> float:
        return rate(self.made, self.make_seconds)


@dataclass(frozen=True)
class BenchResult:
    positions: int
    depth: int
    nodes: int
    seconds: float
    threads: int = 1   # the threads that searched (what the report says is what ran)

    @property
    def nodes_per_second(self) -> float:
        return rate(self.nodes, self.seconds)


@dataclass
class SuiteReport:
    total: int = 0
    right: int = 0
    failures: list[tuple[TestPosition, str | None]] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0


def perft(board: Board, depth: int) -> PerftResult:
    start = time.perf_counter()
    nodes = board.perft(depth)
    return PerftResult(depth, nodes, time.perf_counter() - start)


def perf(board: Board, seconds: float = 1.0) -> PerfResult:
    """Measure generation, then generation with make/unmake, each for about `seconds`."""
    return PerfResult(*_timed(board.count_generated, seconds), *_timed(board.count_generated_made, seconds))


def _timed(kernel: Callable[[int], int], seconds: float) -> tuple[int, float]:
    """Run kernel(repetitions) with repetitions grown until it lasts `seconds`."""
    repetitions = 1000
    while True:
        start = time.perf_counter()
        count = kernel(repetitions)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or repetitions >= 1 << 40:
            return count, elapsed
        repetitions *= 2 if elapsed > seconds / 8 else 8


def run_bench(state: GameState, control: SearchControl, depth: int = BENCH_DEPTH,
              on_position: Callable[[int, str, SearchResult], None] | None = None,
              threads: int = 1) -> BenchResult:
    """Search the bench positions to a fixed depth from cleared tables: same nodes every run
    with one thread (the signature); with more, the threads' race makes the count vary. Threads
    beyond the engine's own are started for the bench and ended after it (ResourceError if the
    machine will not start them); smpmax may leave fewer searching, and the result says so."""
    saved = state.board
    own_threads = control.helpers.threads
    if threads > own_threads:
        control.settings.set_threads(threads)
    used = control.helpers.searching(threads)
    nodes, seconds = 0, 0.0
    try:
        for index, fen in enumerate(BENCH_POSITIONS):
            state.board = Board(fen)
            control.helpers.clear()   # parked first: no helper may still be storing
            control.tt.wipe()
            control.evaluator.clear()
            control.searcher.core.clear()
            result = control.searcher.run(state.board, SearchLimits(depth=depth), threads=threads, multi_pv=1)
            nodes += result.nodes
            seconds += result.seconds
            if on_position is not None:
                on_position(index, fen, result)
    finally:
        state.board = saved
        if control.helpers.threads != own_threads:
            control.settings.set_threads(own_threads)
    return BenchResult(len(BENCH_POSITIONS), depth, nodes, seconds, used)


def run_suite(state: GameState, think: Think, limits: SearchLimits, path: str, early_exit: int | None = None,
              on_result: Callable[[TestPosition, SearchResult, bool], None] | None = None,
              on_thinking: Callable[[Thinking], None] | None = None) -> SuiteReport:
    """Run a test suite with the given limits, each position searched by think; early_exit ends a search once the right
    move has been held for that many iterations. Raises SuiteError for a bad file."""
    positions = read_suite(path)
    saved = state.board
    report = SuiteReport()
    try:
        for position in positions:
            state.board = Board(position.fen)
            held = [0]

            def keep_going(depth: int, best: str, position: TestPosition = position,
                           held: list[int] = held) -> bool:
                held[0] = held[0] + 1 if position.is_right(best) else 0
                return early_exit is None or held[0] < early_exit

            result = think(limits, on_thinking, keep_going)
            right = position.is_right(result.best_move)
            report.total += 1
            report.right += right
            report.nodes += result.nodes
            report.seconds += result.seconds
            if not right:
                report.failures.append((position, result.best_move))
            if on_result is not None:
                on_result(position, result, right)
    finally:
        state.board = saved
    return report
