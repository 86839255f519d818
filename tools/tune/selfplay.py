"""Self-play games for the tuner: Ponderosa against itself at a fast time control.

Usage:  python -m tools.tune.selfplay OUT.pgn [--games 200] [--st 0.05] [--concurrency 1] [--seed 1]

Each game starts from a random opening of tests/data/openings/noob_2moves.epd (seed --seed; the
openings are played as they are, the engine's book is off) and is played by one `ponderosa`
process in XBoard mode that thinks --st seconds a move for both sides. Games end by the rules
(mate, stalemate, insufficient material, threefold repetition and the 50-move rule, as
python-chess sees them), by a score beyond --adjudicate centipawns for both sides' last four
moves (a win for the side ahead), or as a draw after --max-plies. The PGN is written atomically
when the run ends (also on Ctrl-C); tools/tune/texel.py reads it with --pgn.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import random
import sys
import threading
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from ponderosa.engine.records import write_atomically

from tools import ROOT as REPO

OPENINGS = REPO / "tests" / "data" / "openings" / "noob_2moves.epd"


def play(engine: chess.engine.SimpleEngine, fen: str, st: float, max_plies: int, adjudicate: int,
         round_name: str) -> chess.pgn.Game:
    """One game from the FEN; returns it with its result and termination."""
    board = chess.Board(fen)
    game = chess.pgn.Game()
    game.setup(board)
    game.headers.update(Event="Ponderosa self-play", Round=round_name, White="Ponderosa", Black="Ponderosa",
                        TimeControl=f"st {st:g}")
    node: chess.pgn.GameNode = game
    scores: list[int] = []
    result, why = "1/2-1/2", f"{max_plies} plies"
    while board.ply() < max_plies:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, why = outcome.result(), outcome.termination.name.lower()
            break
        played = engine.play(board, chess.engine.Limit(time=st), game=game, info=chess.engine.INFO_SCORE)
        if played.move is None:
            raise RuntimeError(f"no move in {board.fen()}")
        score = played.info.get("score")
        if score is not None:
            scores.append(score.white().score(mate_score=100000))
        node = node.add_variation(played.move)
        board.push(played.move)
        if adjudicate and len(scores) >= 8:
            recent = scores[-8:]
            if all(s > adjudicate for s in recent) or all(s < -adjudicate for s in recent):
                result, why = ("1-0" if recent[-1] > 0 else "0-1"), "adjudicated"
                break
    game.headers["Result"] = result
    game.headers["Termination"] = why
    return game


def worker(jobs: list[tuple[int, str]], args: argparse.Namespace, games: list, lock: threading.Lock,
           stop: threading.Event) -> None:
    engine = chess.engine.SimpleEngine.popen_xboard(args.engine)
    try:
        engine.configure({"OwnBook": False})
        while not stop.is_set():
            with lock:
                if not jobs:
                    return
                number, fen = jobs.pop()
            game = play(engine, fen, args.st, args.max_plies, args.adjudicate, str(number))
            with lock:
                games.append((number, game))
                print(f"[{len(games)}/{args.games}] {game.headers['Result']} ({game.headers['Termination']}, "
                      f"{game.end().ply()} plies)", file=sys.stderr)
    finally:
        engine.quit()


def write_games(path: Path, games: list) -> None:
    """The games in the order they were started, written atomically."""
    text = "".join(f"{game}\n\n" for _, game in sorted(games, key=lambda item: item[0]))
    write_atomically(path, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="PGN file to write")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--st", type=float, default=0.05, help="seconds per move (default 0.05)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--adjudicate", type=int, default=1000, help="centipawns; 0 = off (default 1000)")
    parser.add_argument("--engine", default="ponderosa", help="engine command (default ponderosa)")
    parser.add_argument("--openings", type=Path, default=OPENINGS)
    args = parser.parse_args(argv)
    if args.games < 1 or args.concurrency < 1 or args.st <= 0:
        parser.error("--games and --concurrency must be positive, --st above zero")
    lines = [line.strip() for line in args.openings.read_text().splitlines() if line.strip()]
    rng = random.Random(args.seed)
    jobs = []
    for number in range(args.games, 0, -1):
        text = rng.choice(lines)
        try:
            fields = text.split()
            board = chess.Board(" ".join(fields[:6])) if len(fields) >= 6 and fields[5].isdigit() \
                else chess.Board.from_epd(text)[0]
        except ValueError as error:
            raise SystemExit(f"{args.openings}: {text!r}: {error}") from None
        jobs.append((number, board.fen()))
    jobs.sort(reverse=True)
    games: list = []
    lock, stop = threading.Lock(), threading.Event()
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        futures = [pool.submit(worker, jobs, args, games, lock, stop) for _ in range(args.concurrency)]
        try:
            for future in futures:
                future.result()
        except KeyboardInterrupt:
            stop.set()
        finally:
            write_games(args.out, games)
    print(f"{len(games)} games written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
