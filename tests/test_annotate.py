"""annotate and annotateh: a planted blunder gets a comment naming its refutation; the .can is
PGN python-chess reads; the HTML page's SVG boards render in headless Chromium."""
from __future__ import annotations

import io
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import chess
import chess.pgn
import pytest

from ponderosa.engine.annotate import AnnotateError, parse_request
from ponderosa.engine.engine import Engine
from ponderosa.protocol.console import Console

# 3... Nf6?? allows 4. Qxf7# (Black's blunder); 2. Qh5 is only dubious.
BLUNDER_GAMES = """[Event "Planted blunder"]
[White "Alice Smith"]
[Black "Bob Jones"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "Second game"]
[White "Bob Jones"]
[Black "Carol"]
[Result "*"]

1. d4 d5 2. c4 *
"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    engine = Engine()
    engine.book.enabled = False
    return engine


def annotate(engine: Engine, command: str) -> str:
    out = io.StringIO()
    console = Console(engine, out)
    console.execute(command)
    return out.getvalue()


def test_annotate_comments_on_the_blunder_and_names_the_refutation(engine: Engine) -> None:
    Path("blunder.pgn").write_text(BLUNDER_GAMES)
    output = annotate(engine, "annotate blunder.pgn b 1-999 0.5 0.2")
    assert "written to blunder.pgn.can" in output
    assert "4/4 moves" in output                     # the progress bar: Black's moves, 3 + 1 in game 2
    with open("blunder.pgn.can") as stream:
        first = chess.pgn.read_game(stream)
        second = chess.pgn.read_game(stream)
    assert first is not None and second is not None and not first.errors
    assert [move.uci() for move in first.mainline_moves()][-1] == "h5f7"
    commented = [node for node in first.mainline() if node.comment]
    assert [node.san() for node in commented] == ["Nf6"]        # only the blunder, only Black's moves
    comment = commented[0].comment
    assert "Qxf7#" in comment and "Mat01" in comment            # why it loses
    alternatives = commented[0].parent.variations[1:]
    assert alternatives and alternatives[0].move != chess.Move.from_uci("g8f6")   # the engine's move
    assert first.headers["Annotator"] == "Ponderosa" and first.headers["White"] == "Alice Smith"
    assert second.headers["Event"] == "Second game"


def test_annotate_by_player_name_and_every_move_with_a_negative_margin(engine: Engine) -> None:
    Path("games.pgn").write_text(BLUNDER_GAMES)
    output = annotate(engine, "annotate games.pgn Jones 1-2 -1 0.05")
    assert "annotated 4 moves of 2 game(s)" in output     # Black's 1-2 in game 1, White's 1-2 in game 2
    with open("games.pgn.can") as stream:
        first = chess.pgn.read_game(stream)
        second = chess.pgn.read_game(stream)
    assert [node.san() for node in first.mainline() if node.comment] == ["e5", "Nc6"]
    assert [node.san() for node in second.mainline() if node.comment] == ["d4", "c4"]


@pytest.mark.parametrize(("args", "message"), [
    (["g.pgn", "wb", "40-20", "0.5", "1"], "bad move range '40-20'"),
    (["g.pgn", "wb", "0-20", "0.5", "1"], "bad move range"),
    (["g.pgn", "wb", "1-999", "0.5", "0"], "bad time"),
    (["g.pgn", "wb", "1-999", "0.5", "1", "99"], "bad N"),
    (["g.pgn", "wb", "1-999"], "usage: annotate FILE"),
    (["missing.pgn", "wb", "1-999", "0.5", "1"], "missing.pgn: no such file"),
])
def test_bad_annotate_arguments_are_refused(args: list[str], message: str) -> None:
    Path("g.pgn").write_text("1. e4 e5 *\n")
    with pytest.raises(AnnotateError, match=message.replace("(", r"\(")):
        parse_request(args, html_output=False)


def test_a_name_in_both_players_is_refused_and_no_file_is_written(engine: Engine) -> None:
    Path("games.pgn").write_text(BLUNDER_GAMES)
    output = annotate(engine, "annotate games.pgn o 1-999 0.5 0.05")
    assert "part of both players' names" in output
    assert not Path("games.pgn.can").exists()


def png_colours(path: Path) -> int:
    """How many distinct colours a PNG holds (8-bit RGB or RGBA, as Chromium writes), by zlib."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    assert header is not None
    width, height, depth, colour_type = header[:4]
    assert depth == 8 and colour_type in (2, 6), header
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):   # undo the PNG row filter
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], (previous[i - channels] if i >= channels else 0)
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        if row % 4 == 0:
            colours.update(bytes(line[i:i + 3]) for i in range(0, stride, channels * 4))
        previous = line
    return len(colours)


def test_annotateh_writes_a_page_whose_svg_boards_render_in_chromium(engine: Engine) -> None:
    Path("blunder.pgn").write_text(BLUNDER_GAMES)
    output = annotate(engine, "annotateh blunder.pgn wb 1-999 0.5 0.2")
    assert "written to blunder.pgn.html" in output
    page = Path("blunder.pgn.html").read_text()
    assert page.count("<svg") >= 1 and "Qxf7#" in page and "Alice Smith" in page
    # A score graph at the top of each game, before its moves: one point per annotated move, the
    # commented ones marked and linked to boards that exist on the page.
    graphs = [match.start() for match in re.finditer('<svg class="score-graph"', page)]
    headings = [match.start() for match in re.finditer("<h2>", page)]
    assert len(graphs) == len(headings) == 2
    for heading, graph in zip(headings, graphs):
        assert heading < graph < page.index('<p class="moves">', heading)
    first_graph = page[graphs[0]:page.index("</svg>", graphs[0]) + 6]
    points = re.search(r'<polyline class="scores" points="([^"]+)"', first_graph).group(1).split()
    assert len(points) == 7   # every move of game 1 ("wb": both sides, moves 1-999)
    assert all(8 <= float(point.split(",")[1]) <= 188 for point in points)   # within the plot, mates on its edge
    links = re.findall(r'<a href="#(g1p\d+)"><circle class="commented"', first_graph)
    assert links and all(f'id="{anchor}"' in page for anchor in links)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (Debian package chromium): the page was written but not rendered")
    # The graph and the first board, each a page of its own, so a screenshot shows it and nothing else.
    start = page.index("<svg", page.index("</svg>", graphs[0]))
    Path("board.html").write_text('<!DOCTYPE html><html><body style="margin:0;background:#fff">'
                                  + page[start:page.index("</svg>", start) + 6] + "</body></html>")
    Path("graph.html").write_text('<!DOCTYPE html><html><body style="margin:0;background:#fff">'
                                  + first_graph + "</body></html>")
    Path("blank.html").write_text('<!DOCTYPE html><html><body style="margin:0;background:#fff"></body></html>')
    for name in ("board", "graph", "blank"):
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={Path(name + '.png').resolve()}", "--window-size=400,400",
                        f"file://{Path(name + '.html').resolve()}"], capture_output=True, timeout=90, check=False)
        assert Path(name + ".png").is_file(), f"chromium wrote no screenshot of {name}.html"
    assert png_colours(Path("blank.png")) <= 2      # the check tells a blank page
    assert png_colours(Path("board.png")) >= 8      # squares, pieces, arrows, coordinates
    assert png_colours(Path("graph.png")) >= 5      # both halves, the area, the line, the red marks


def annotated_alternatives(engine: Engine, name: str, moves: str, command: str) -> tuple[str, list[chess.Move]]:
    """Annotate a one-game file; the commented move's SAN and the variations beside it."""
    Path(name).write_text(f'[White "A"]\n[Black "B"]\n\n{moves} *\n')
    output = annotate(engine, command)
    assert "annotated 1 moves" in output
    with open(name + ".can") as stream:
        game = chess.pgn.read_game(stream)
    node = [node for node in game.mainline() if node.comment][0]
    return node.san(), [variation.move for variation in node.parent.variations[1:]]


def test_annotate_with_n_shows_the_n_best_moves_as_variations(engine: Engine) -> None:
    san, alternatives = annotated_alternatives(engine, "one.pgn", "1. e4 e5 2. a3", "annotate one.pgn w 2-2 -1 0.1 3")
    assert san == "a3"
    assert len(alternatives) == 3 and len(set(alternatives)) == 3          # three different best moves
    assert chess.Move.from_uci("a2a3") not in alternatives


def test_annotate_with_n_finds_n_moves_besides_a_good_move_played(engine: Engine) -> None:
    # 2. Nf3 is among the engine's best few, so it must not use up one of the N places.
    san, alternatives = annotated_alternatives(engine, "good.pgn", "1. e4 e5 2. Nf3",
                                               "annotate good.pgn w 2-2 -1 0.1 3")
    assert san == "Nf3"
    assert len(alternatives) == 3 and len(set(alternatives)) == 3
    assert chess.Move.from_uci("g1f3") not in alternatives
