"""The console's measuring tools: perft, divide and perf (the move generator), bench (the search's
node signature and speed), test (a suite of positions), score (the evaluation term by term) and
genfens (opening positions for OpenBench's data generation)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.engine.errors import EngineError
from ponderosa.engine.genfens import GenfensOptions
from ponderosa.engine.search import SearchResult
from ponderosa.engine.testsuite import TestPosition
from ponderosa.protocol.console.commands import CommandError, depth_argument, format_rate, option_row, positive_int

if TYPE_CHECKING:
    from ponderosa.protocol.console.session import Console


def cmd_perft(console: Console, args: list[str]) -> None:
    result = console.engine.perft(depth_argument(args, "perft"))
    console.say(f"total moves={result.nodes}  time={result.seconds:.3f}s  "
                f"({format_rate(result.nodes_per_second)} nodes/sec)")


def cmd_divide(console: Console, args: list[str]) -> None:
    depth = depth_argument(args, "divide")
    total = 0
    for move, nodes in console.engine.divide(depth):
        console.say(f"{console.engine.san(move):<8} {move:<6} {nodes}")
        total += nodes
    console.say(f"total moves={total}")


def cmd_perf(console: Console, args: list[str]) -> None:
    result = console.engine.perf()
    console.say(f"generated {result.generated} moves, time={result.generate_seconds:.2f}s")
    console.say(f"generated {format_rate(result.generated_per_second)} moves/sec")
    console.say(f"generated/made/unmade {result.made} moves, time={result.make_seconds:.2f}s")
    console.say(f"generated/made/unmade {format_rate(result.made_per_second)} moves/sec")


def cmd_bench(console: Console, args: list[str]) -> None:
    usage = "bench [DEPTH [THREADS]]"
    depth = positive_int(args[:1], usage) if args else None   # None: the bench's own depth
    threads = positive_int(args[1:], usage) if len(args) > 1 else 1   # one: the signature
    if len(args) > 2 or threads > option_row(console, "smpmt").high:
        raise CommandError(f"usage: {usage}")
    console.engine.end_search()   # a silent ponder search ends: the bench may start threads
    try:
        result = console.engine.bench(depth, threads=threads)
    except ValueError as error:   # the threads cannot be had
        raise CommandError(str(error)) from None
    console.say(f"positions={result.positions}  depth={result.depth}  threads={result.threads}")
    console.say(f"Total nodes: {result.nodes}")
    console.say(f"Time: {result.seconds:.2f}s")
    console.say(f"Nodes/second: {int(result.nodes_per_second)}")
    console.say(f"{result.nodes} nodes {int(result.nodes_per_second)} nps")   # OpenBench reads this line


def cmd_test(console: Console, args: list[str]) -> None:
    if not args or len(args) > 2:
        raise CommandError("usage: test FILE [N]")
    early_exit = positive_int(args[1:], "test FILE [N]") if len(args) == 2 else None

    def on_result(position: TestPosition, result: SearchResult, right: bool) -> None:
        console.say(f"{position.title:<12} {'right' if right else 'wrong':<6} {result.best_move or '-':<6} "
                    f"depth={result.depth:<3} time={result.seconds:.2f}  n={result.nodes}")

    try:
        report = console.engine.run_suite(args[0], early_exit, on_result)
    except EngineError as error:
        raise CommandError(str(error)) from None
    console.say(f"test results summary: {report.right} of {report.total} right, "
                f"{report.total - report.right} wrong, time={report.seconds:.1f}s, n={report.nodes}")
    if report.failures:
        console.say("failed: " + " ".join(position.title for position, _ in report.failures))


def cmd_score(console: Console, args: list[str]) -> None:
    total, terms, network = console.engine.score_breakdown()
    console.say(f"{'term':<18} {'white':>8} {'black':>8} {'total':>8}")
    for name, white, black, net in terms:
        console.say(f"{name:<18} {white / 100:>8.2f} {black / 100:>8.2f} {net / 100:>8.2f}")
    console.say(f"{'total':<18} {'':>8} {'':>8} {total / 100:>8.2f}")
    if network is not None:   # the search uses the network; the terms above are the hand-written evaluation's
        console.say(f"{'network (in use)':<18} {'':>8} {'':>8} {network / 100:>8.2f}")


GENFENS_USAGE = "genfens N seed S book None|FILE [plies N] [margin CP] [nodes N]"


def cmd_genfens(console: Console, args: list[str]) -> None:
    """OpenBench's `genfens N seed S book None|FILE EXTRA`: one `info string genfens FEN` line per
    opening, each printed (and flushed) as soon as it is found, so a worker never sees a stall;
    unknown EXTRA words are passed over."""
    if len(args) < 3 or args[1].lower() != "seed" or not args[2].lstrip("-").isdigit() or \
            (len(args) > 3 and (args[3].lower() != "book" or len(args) < 5)):
        raise CommandError(f"usage: {GENFENS_USAGE}")
    count = positive_int(args[:1], GENFENS_USAGE)
    book = None if len(args) < 5 or args[4].lower() == "none" else args[4]
    options = GenfensOptions.from_words(args[5:])
    try:
        for opening in console.engine.genfens(count, int(args[2]), book, options):
            console.say(f"info string genfens {opening.fen}")
    except EngineError as error:
        raise CommandError(str(error)) from None
