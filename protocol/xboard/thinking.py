"""XBoard's thinking output: `depth score time nodes [seldepth nps tbhits<TAB>] pv` with the PV in
SAN, and which of the search's reports are shown."""
from __future__ import annotations

import chess

from ponderosa.engine.notation import san_moves
from ponderosa.engine.search import Thinking, mate_distance

MATE_SCORE = 100000   # XBoard's mate in N: 100000 + N, mated in N: -100000 - N


def san_text(start: chess.Board, pv: list[str]) -> str:
    """pv in SAN from start, as far as it is legal there."""
    return " ".join(san_moves(start, pv))


def is_shown(report: Thinking) -> bool:
    """Whether a report gets a thinking line."""
    # With one line, fail-high lines are shown too: they name a new best move, perhaps the one
    # played when time runs out. Several lines show only exact scores, one per line and depth.
    return report.bound == "exact" or (report.bound == "lower" and report.lines == 1)


def thinking_line(report: Thinking, board: chess.Board, prefix: list[str]) -> str | None:
    """The line for one report, the PV (prefix, then the search's PV) in SAN from board; None
    for a report not shown."""
    if not is_shown(report):
        return None
    mate = mate_distance(report.score)
    score = report.score if mate is None else (MATE_SCORE + mate if mate > 0 else -MATE_SCORE + mate)
    pv = san_text(board, prefix + report.pv)
    centiseconds = int(report.seconds * 100)
    if report.tbhits is not None:   # seldepth, speed and tbhits go together (PROTOCOL.md), then a tab
        return (f"{report.depth} {score} {centiseconds} {report.nodes} "
                f"{report.seldepth} {report.nodes_per_second} {report.tbhits}\t{pv}")
    return f"{report.depth} {score} {centiseconds} {report.nodes} {pv}"
