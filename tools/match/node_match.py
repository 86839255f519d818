"""A quick match at a fixed number of nodes a move: two UCI engine commands, openings played
twice with colours swapped. Used for the neural evaluation's learning curve (a network against
the hand-written evaluation, where only what the evaluation knows per node counts).

Usage (after `pip install -e .`):

    python -m tools.match.node_match "ponderosa --uci" "ponderosa 'eval NET.nnue' --uci" \\
        [--pairs 100] [--nodes 20000] [--concurrency 2] [--seed 1]

Engines are started with a console command as an argument (`eval NET.nnue`) before `--uci`
where each needs its own setting, or given UCI options with --base-option/--candidate-option;
a search parameter (docs/OPTIONS.md) is an option only an engine started with PONDEROSA_TUNE=1
lists, and python-chess sets only listed ones:

    python -m tools.match.node_match "env PONDEROSA_TUNE=1 ponderosa --uci" \
        "env PONDEROSA_TUNE=1 ponderosa --uci" --candidate-option LmrCutNode=8

Games end by the rules or at 300 plies (a draw). The score is
the second engine's, with its Elo difference and a 95% margin over the game pairs.
"""
from __future__ import annotations

import argparse
import math
import random
import shlex
import sys
import threading
from pathlib import Path

import chess
import chess.engine

from tools import ROOT as REPO
from tools.match.gauntlet import option_list

OPENINGS = REPO / "tests" / "data" / "openings" / "noob_2moves.epd"
MAX_PLIES = 300


def play(first: chess.engine.SimpleEngine, second: chess.engine.SimpleEngine, fen: str, nodes: int) -> float:
    """One game, first engine White; the second engine's points."""
    board = chess.Board(fen)
    limit = chess.engine.Limit(nodes=nodes)
    game = object()   # a new game for python-chess: each engine gets ucinewgame
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        engine = first if board.turn == chess.WHITE else second
        result = engine.play(board, limit, game=game)
        if result.move is None or result.move not in board.legal_moves:
            return 1.0 if engine is first else 0.0   # no move or an illegal one loses
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    if outcome is None or outcome.winner is None:
        return 0.5
    return 0.0 if outcome.winner == chess.WHITE else 1.0


def elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("base", help="command of the first engine (UCI)")
    parser.add_argument("candidate", help="command of the second engine (UCI); the score is its")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--openings", type=Path, default=OPENINGS)
    parser.add_argument("--base-option", action="append", default=[], metavar="NAME=VALUE",
                        help="UCI option of the first engine (repeatable)")
    parser.add_argument("--candidate-option", action="append", default=[], metavar="NAME=VALUE",
                        help="UCI option of the second engine (repeatable): one build, two settings")
    args = parser.parse_args(argv)
    base_options = dict(option_list(parser, "--base-option", args.base_option))
    candidate_options = dict(option_list(parser, "--candidate-option", args.candidate_option))
    openings = [" ".join(line.split()[:4]) + " 0 1" for line in args.openings.read_text().splitlines()
                if len(line.split()) >= 4]
    rng = random.Random(args.seed)
    queue = [rng.choice(openings) for _ in range(args.pairs)]
    pair_scores: list[float] = []
    lock = threading.Lock()
    failures: list[str] = []

    def worker() -> None:
        base = chess.engine.SimpleEngine.popen_uci(shlex.split(args.base))
        candidate = chess.engine.SimpleEngine.popen_uci(shlex.split(args.candidate))
        try:
            try:
                base.configure(base_options)
                candidate.configure(candidate_options)
            except chess.engine.EngineError as error:   # an option the engine does not list
                failures.append(str(error))
                return
            while True:
                with lock:
                    if not queue:
                        return
                    fen = queue.pop()
                # the candidate's points: as Black, then as White (play returns Black's)
                points = play(base, candidate, fen, args.nodes) + 1.0 - play(candidate, base, fen, args.nodes)
                with lock:
                    pair_scores.append(points)
                    print(f"{len(pair_scores)} pairs: {sum(pair_scores):.1f}/{2 * len(pair_scores)}",
                          file=sys.stderr, flush=True)
        finally:
            base.quit()
            candidate.quit()

    threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        print(f"node_match: {failures[0]}", file=sys.stderr)
        return 2
    games = 2 * len(pair_scores)
    total = sum(pair_scores)
    mean = total / len(pair_scores) / 2
    spread = math.sqrt(sum((p / 2 - mean) ** 2 for p in pair_scores) / max(len(pair_scores) - 1, 1))
    margin = 1.96 * spread / math.sqrt(len(pair_scores))
    print(f"{games} games at {args.nodes} nodes a move: candidate {total:.1f}/{games} ({100 * mean:.1f}%), "
          f"Elo {elo(mean):+.0f} (95% {elo(mean - margin):+.0f} .. {elo(mean + margin):+.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
