"""Replays the games of a fixed-nodes workload (an OpenBench DATAGEN, say) with the engine run
directly, and checks that it plays every move the uploaded games say it played.

    python -m tools.openbench.replay data/matches/openbench-datagen-5k.pgn.xz --nodes 5000 --hash 16
    python -m tools.openbench.replay INST/server/Media/PGNs/4.pgn.tar --engine INST/builds/Ponderosa-ED076D8E

A search limited by nodes on one thread is deterministic, so a game from OpenBench's worker (two
processes of one build, `ucinewgame` before each game, `position fen START moves ...` and `go nodes
N` for each move, as fastchess sends them) is played again move for move by two processes driven
the same way through python-chess: one per player name, new for each upload of --games-per-run
games, since the table's old entries outlive `ucinewgame` (emptied by a new salt, not written
over) and steer which slots new entries take. Every game whose moves all
agree is the engine's own, so the training positions read from the upload (tools/nnue/data.py) are
the ones a direct run makes. The score and depth of each move's `{score/depth}` comment are
compared too."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import chess
import chess.engine
import chess.pgn

from tools.engine_process import program
from tools.nnue.data import pgn_texts


@dataclass
class Replay:
    games: int = 0
    moves: int = 0
    same_games: int = 0
    first_differences: list[str] = field(default_factory=list)
    comments: int = 0
    same_comments: int = 0

    def summary(self) -> dict:
        return {"games": self.games, "moves": self.moves, "games_identical": self.same_games,
                "comments_compared": self.comments, "comments_identical": self.same_comments,
                "differences": self.first_differences[:10]}


def comment_text(score: chess.engine.PovScore | None, depth: int | None, turn: chess.Color) -> str:
    """fastchess's `{score/depth}` for the side to move: +0.47/6, -M6/10, 0.00/5."""
    if score is None or depth is None:
        return ""
    relative = score.pov(turn)
    mate = relative.mate()
    if mate is not None:   # in plies, as fastchess writes it: mate in 3 is M5 for the winner, M6 for the loser
        return f"+M{2 * mate - 1}/{depth}" if mate > 0 else f"-M{-2 * mate}/{depth}"
    cp = relative.score()
    return f"{'+' if cp > 0 else '-' if cp < 0 else ''}{abs(cp) / 100:.2f}/{depth}"


def replay(texts: Iterable[IO[str]], engine: list[str], nodes: int, options: dict, limit: int | None = None,
           games_per_run: int = 32) -> Replay:
    """Play the games of the PGN texts again, one text after the other: one process for each
    player name (White and Black tags), as fastchess keeps one per engine, started afresh every
    games_per_run games, as each workload of an OpenBench worker is a fastchess run of its own.
    `ucinewgame` empties the table by a new salt, not by writing it over (instant at any size:
    TranspositionTable.clear), so the old entries still steer which slots new ones replace: a
    game replays only after the same games."""
    found = Replay()
    players: dict[str, chess.engine.SimpleEngine] = {}

    def stop_players() -> None:
        for process in players.values():
            process.quit()
        players.clear()

    def player(name: str) -> chess.engine.SimpleEngine:
        if name not in players:
            players[name] = chess.engine.SimpleEngine.popen_uci(engine)
            players[name].configure(options)
        return players[name]

    try:
        number = 0
        games = (game for text in texts for game in iter(lambda text=text: chess.pgn.read_game(text), None))
        for game in games:
            if limit is not None and number >= limit:
                break
            if number % games_per_run == 0:
                stop_players()
            number += 1
            board = game.board()
            names = {chess.WHITE: game.headers.get("White", "?"), chess.BLACK: game.headers.get("Black", "?")}
            if names[chess.WHITE] == names[chess.BLACK]:   # unnamed players ("?"): one process for each colour
                names = {chess.WHITE: names[chess.WHITE] + " (White)", chess.BLACK: names[chess.BLACK] + " (Black)"}
            identical = True
            for node in game.mainline():
                exact: chess.engine.InfoDict = {}
                with player(names[board.turn]).analysis(board, chess.engine.Limit(nodes=nodes),
                                                        game=number) as analysis:
                    for info in analysis:   # fastchess comments the last exact score (no bound)
                        if "score" in info and not info.get("lowerbound") and not info.get("upperbound"):
                            exact = info
                    move = analysis.wait().move
                found.moves += 1
                if move != node.move:
                    identical = False
                    found.first_differences.append(f"game {number} ply {board.ply()}: played {node.move.uci()}, "
                                                   f"replayed {move.uci() if move else None}")
                    break
                recorded = node.comment.strip()
                if recorded:
                    found.comments += 1
                    found.same_comments += recorded == comment_text(exact.get("score"), exact.get("depth"),
                                                                    board.turn)
                board.push(node.move)
            found.games += 1
            found.same_games += identical
    finally:
        stop_players()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("games", type=Path, help=".pgn, .pgn.xz or an OpenBench ID.pgn.tar")
    parser.add_argument("--engine", help="the program (shell words; default the installed ponderosa)")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--hash", type=int, default=16, help="MB, as the workload's options (default 16)")
    parser.add_argument("--limit", type=int, help="replay only the first N games")
    parser.add_argument("--games-per-run", type=int, default=32,
                        help="games of one fastchess run (an OpenBench workload: its upload), default 32")
    args = parser.parse_args(argv)
    if not args.games.is_file():
        print(f"{args.games}: no such file", file=sys.stderr)
        return 2
    engine = shlex.split(args.engine) if args.engine else program()
    options = {"Threads": 1, "Hash": args.hash, "OwnBook": False, "Learn": 0}
    found = replay(pgn_texts(args.games), engine, args.nodes, options, args.limit, args.games_per_run)
    print(json.dumps(found.summary(), indent=2))
    return 0 if found.same_games == found.games else 1


if __name__ == "__main__":
    sys.exit(main())
