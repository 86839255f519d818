"""The shipped book through GNU XBoard: 20 games against Phalanx (headless, under Xvfb).
Every Ponderosa move in the first six plies must be a book move (logged as `# book move`
in xboard's debug file) and the games must open in at least 10 different ways.

The peer's own choices could leave the book within six plies (Fairy-Max, the first peer, has no
book and answers 1. e4 with 1... Nc6 2. Nc3 a6, which no master plays; Phalanx plays from a book
of its own, whose lines need not be in ours). So XBoard plays the peer's first three
moves from a GUI book (-secondHasOwnBookUCI false, -bookDepth 3): moves of the shipped book that
lead, within the six plies, only to positions where Ponderosa's book has a move for every reply it
might choose (a master move played in three games can still lead to a position no two games share).
The GUI book is a Polyglot file written by Ponderosa's own writer and read by XBoard.

The peer became Phalanx when Debian's Fairy-Max 5.0b was seen to die (segmentation fault) in
about half of its starts on the `computer` command XBoard sends every game (as in
test_xboard_gui.py).

Slow (about 10 minutes): run with `pytest -m slow tests/test_book_xboard.py`."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ponderosa.engine.book.file import FLAG_BAD, write_polyglot
from ponderosa.engine.engine import Engine

from tests.test_xboard_gui import find, missing_packages, read_games, run_xboard
from tests.xboard_harness import engine_command

GAMES = 20
OPENING_PLIES = 6
DISTINCT_OPENINGS = 10
MATCH_SECONDS = 1800
ENGINE_LINE = re.compile(r"^\d+ <first : (.*)$")
GUI_LINE = re.compile(r"^\d+ >first : (.*)$")


def ponderosa_moves_per_game(debug_lines: list[str]) -> list[list[tuple[str, bool]]]:
    """For each game xboard started (`new` sent to the first engine): Ponderosa's moves in
    order, each with whether a `# book move` line came just before it."""
    games: list[list[tuple[str, bool]]] = []
    book_line_seen = False
    for line in debug_lines:
        sent = GUI_LINE.match(line)
        if sent and sent.group(1).strip() == "new":
            games.append([])
            book_line_seen = False
            continue
        said = ENGINE_LINE.match(line)
        if not said or not games:
            continue
        text = said.group(1).strip()
        if text.startswith("# book move"):
            book_line_seen = True
        elif text.startswith("move "):
            games[-1].append((text.split()[1], book_line_seen))
            book_line_seen = False
    return [game for game in games if game]


PEER_CHOICES = 4   # the peer's GUI book keeps the most played of the covered replies


def covered_replies() -> list[tuple[int, str, int]]:
    """(key, move, games) for the peer's first three moves in either colour: book moves after
    which every move Ponderosa's book could play (any width: learning during the match may
    reorder them) still has a covered reply, up to the sixth ply."""
    engine = Engine()
    engine.book.settings.width = 1000
    entries: dict[tuple[int, str], int] = {}

    def covered(ply: int, ponderosa_white: bool) -> bool:
        if ply == OPENING_PLIES:
            return True
        decision = engine.book_decision()
        if decision is None:
            return False
        ponderosa_to_move = (ply % 2 == 0) == ponderosa_white
        if ponderosa_to_move:
            moves = [ranked.candidate.move for ranked in decision.ranked if ranked.probability > 0]
            return bool(moves) and all(after(move, ply, ponderosa_white) for move in moves)
        replies = sorted(decision.ranked, key=lambda ranked: -ranked.candidate.games)
        found = 0
        for ranked in replies:
            if found == PEER_CHOICES:
                break
            key, move = engine.board.key, ranked.candidate.move
            if ranked.candidate.flags & FLAG_BAD or not after(move, ply, ponderosa_white):
                continue
            entries[(key, move)] = max(1, min(65535, ranked.candidate.games))
            found += 1
        return found > 0

    def after(move: str, ply: int, ponderosa_white: bool) -> bool:
        engine.make_move(move)
        try:
            return covered(ply + 1, ponderosa_white)
        finally:
            engine.undo()

    assert covered(0, True) and covered(0, False)
    return [(key, move, weight) for (key, move), weight in entries.items()]


@pytest.mark.slow
def test_twenty_games_against_phalanx_open_from_the_book(tmp_path: Path) -> None:
    missing = missing_packages("xboard", "xvfb-run", "xauth", "phalanx")
    if missing:
        pytest.skip(f"Debian package(s) not installed: {', '.join(missing)}")
    pgn_path, debug_path = tmp_path / "match.pgn", tmp_path / "xboard.debug"
    ponderosa = " ".join(engine_command())
    gui_book = tmp_path / "peer-book.bin"
    assert write_polyglot(str(gui_book), covered_replies()) > 0
    output = run_xboard([
        "-fcp", ponderosa, "-fd", str(tmp_path), "-scp", find("phalanx") or "", "-sd", str(tmp_path),
        "-mg", str(GAMES), "-tc", "0:10", "-inc", "0.1", "-xponder", "-autoCallFlag", "true",
        "-adjudicateDrawMoves", "60",
        "-usePolyglotBook", "true", "-polyglotBook", str(gui_book), "-bookDepth", "3",
        "-firstHasOwnBookUCI", "true", "-secondHasOwnBookUCI", "false",
        "-sgf", str(pgn_path), "-debug", "-nameOfDebugFile", str(debug_path),
    ], tmp_path, MATCH_SECONDS)
    games = read_games(pgn_path) if pgn_path.exists() else []
    assert len(games) == GAMES, output[-2000:]
    openings = set()
    for game in games:
        plies = [move.uci() for move in game.mainline_moves()][:OPENING_PLIES]
        assert len(plies) == OPENING_PLIES, game.headers
        openings.add(tuple(plies))
    assert len(openings) >= DISTINCT_OPENINGS, sorted(openings)

    per_game = ponderosa_moves_per_game(debug_path.read_text(errors="replace").splitlines())
    assert len(per_game) == GAMES
    for game, moves in zip(games, per_game):
        ponderosa_white = "Ponderosa" in game.headers["White"]
        opening_moves = [move for move in game.mainline_moves()][:OPENING_PLIES]
        own = [move.uci() for ply, move in enumerate(opening_moves) if (ply % 2 == 0) == ponderosa_white]
        assert [move for move, _ in moves[:len(own)]] == own, game.headers
        assert all(from_book for _, from_book in moves[:len(own)]), (game.headers, moves[:len(own)])
    print(f"{len(openings)} distinct openings in {GAMES} games; every Ponderosa move in the first "
          f"{OPENING_PLIES} plies came from the book")
