"""The score graph of an annotated game: the engine's score from White's side over the moves, as
a plain SVG (no script, nothing fetched), the commented moves marked and linked to their boards.
Scores are clipped at +-5 pawns; a mate sits on the edge of its side."""
from __future__ import annotations

import html
from dataclasses import dataclass

from ponderosa.engine.search import MATE_THRESHOLD

CLIP = 500                 # centipawns at the top and bottom edges
WIDTH, HEIGHT = 640, 180   # the plotting area, in SVG units
MARGIN_LEFT, MARGIN_TOP, MARGIN_BOTTOM = 34, 8, 20


@dataclass(frozen=True)
class GraphPoint:
    ply: int             # index of the move in the game (0 = the first move)
    white_score: int     # centipawns from White's side after the move (mate scores beyond MATE_THRESHOLD)
    label: str           # the move as a reader sees it, "12... Qxf7"
    anchor: str | None   # id of the move's board on the page when it was commented, else None


def clipped(score: int) -> int:
    """The score as the graph draws it: within +-CLIP, a mate at the edge."""
    if score >= MATE_THRESHOLD:
        return CLIP
    if score <= -MATE_THRESHOLD:
        return -CLIP
    return max(-CLIP, min(CLIP, score))


def _score_text(score: int) -> str:
    if abs(score) >= MATE_THRESHOLD:
        return "mate for White" if score > 0 else "mate for Black"
    return f"{score / 100:+.2f}"


def score_graph_svg(points: list[GraphPoint], plies: int, title: str) -> str:
    """The chart of points over a game of `plies` half-moves ('' when there is nothing to draw)."""
    if not points:
        return ""
    span = max(plies, max(point.ply for point in points) + 1, 2)

    def x(ply: int) -> float:
        return MARGIN_LEFT + WIDTH * (ply + 0.5) / span

    def y(score: int) -> float:
        return MARGIN_TOP + HEIGHT * (CLIP - clipped(score)) / (2 * CLIP)

    zero = y(0)
    ordered = sorted(points, key=lambda point: point.ply)
    line = " ".join(f"{x(point.ply):.1f},{y(point.white_score):.1f}" for point in ordered)
    area = f"{x(ordered[0].ply):.1f},{zero:.1f} {line} {x(ordered[-1].ply):.1f},{zero:.1f}"
    total_width, total_height = MARGIN_LEFT + WIDTH + 8, MARGIN_TOP + HEIGHT + MARGIN_BOTTOM
    parts = [f'<svg class="score-graph" xmlns="http://www.w3.org/2000/svg" role="img" '
             f'viewBox="0 0 {total_width} {total_height}" width="{total_width}" height="{total_height}">',
             f"<title>{html.escape(title)}</title>",
             f'<rect x="{MARGIN_LEFT}" y="{MARGIN_TOP}" width="{WIDTH}" height="{HEIGHT / 2:.1f}" fill="#f4f4f4"/>',
             f'<rect x="{MARGIN_LEFT}" y="{zero:.1f}" width="{WIDTH}" height="{HEIGHT / 2:.1f}" fill="#d9d9d9"/>']
    for pawns in (5, 2.5, 0, -2.5, -5):
        level = y(int(pawns * 100))
        parts.append(f'<line x1="{MARGIN_LEFT}" y1="{level:.1f}" x2="{MARGIN_LEFT + WIDTH}" y2="{level:.1f}" '
                     f'stroke="{"#555" if pawns == 0 else "#bbb"}" stroke-width="{1 if pawns == 0 else 0.5}"/>')
        parts.append(f'<text x="{MARGIN_LEFT - 4}" y="{level + 4:.1f}" font-size="11" text-anchor="end" '
                     f'font-family="sans-serif">{pawns:+g}</text>'.replace(">+0<", ">0<"))
    for move_number in range(10, span // 2 + 1, 10):   # move numbers along the bottom
        position = x(2 * (move_number - 1))
        parts.append(f'<text x="{position:.1f}" y="{MARGIN_TOP + HEIGHT + 14}" font-size="11" text-anchor="middle" '
                     f'font-family="sans-serif">{move_number}</text>')
    parts.append(f'<polygon points="{area}" fill="#7aa7d8" fill-opacity="0.35" stroke="none"/>')
    parts.append(f'<polyline class="scores" points="{line}" fill="none" stroke="#1f5fa8" stroke-width="1.5"/>')
    for point in ordered:
        if point.anchor is None:
            continue
        tip = html.escape(f"{point.label}: {_score_text(point.white_score)}")
        parts.append(f'<a href="#{html.escape(point.anchor)}"><circle class="commented" cx="{x(point.ply):.1f}" '
                     f'cy="{y(point.white_score):.1f}" r="4.5" fill="#c33" stroke="#fff" stroke-width="1">'
                     f"<title>{tip}</title></circle></a>")
    parts.append("</svg>")
    return "".join(parts)
