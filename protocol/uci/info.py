"""UCI's `info` lines: one per search report, and the progress line at most once a second."""
from __future__ import annotations

from ponderosa.engine.search import Thinking, mate_distance


def format_info(report: Thinking, hashfull: int, tbhits: int, wdl: tuple[int, int, int] | None = None) -> str:
    """`info depth seldepth multipv score [wdl] nodes nps time hashfull tbhits pv` for one report;
    wdl (UCI_ShowWDL) follows the score and its bound, where Stockfish and python-chess have it."""
    mate = mate_distance(report.score)
    score = f"mate {mate}" if mate is not None else f"cp {report.score}"
    if report.bound != "exact":
        score += " lowerbound" if report.bound == "lower" else " upperbound"
    if wdl is not None:
        score += " wdl {} {} {}".format(*wdl)
    millis = int(report.seconds * 1000)
    return (f"info depth {report.depth} seldepth {max(report.seldepth, report.depth)} multipv {report.multipv} "
            f"score {score} nodes {report.nodes} nps {report.nodes_per_second} time {millis} hashfull {hashfull} "
            f"tbhits {tbhits} pv {' '.join(report.pv)}")


def progress_lines(move: str | None, number: int, depth: int, nodes: int, seconds: float,
                   hashfull: int) -> list[str]:
    """The root move searched now (if known) and the counters, while a search runs."""
    nps = int(nodes / seconds) if seconds > 0 else 0
    lines = [f"info depth {depth} currmove {move} currmovenumber {number}"] if move is not None else []
    return lines + [f"info nodes {nodes} nps {nps} time {int(seconds * 1000)} hashfull {hashfull}"]
