"""How much a training label moves with the search behind it: the positions of packed self-play
games searched again at several node counts, compared in the trainer's own terms.

    python -m tools.nnue.label_depth data/nnue/selfplay-212.pgm.xz [--positions 2000]
        [--nodes 5000,20000,80000] [--net engine/nnue/ponderosa.nnue] [--seed 1] [--json]

The positions are those the trainer would take (tools/nnue/data.py's rule: past the opening's
first 8 plies, not in check, the move played neither a capture nor a promotion, the score within
3,000 cp), drawn at random. Each is searched from an empty table at every node count (one thread,
no game history) and evaluated statically by the network. For every pair of labels (the file's
own, `static`, and one per node count) the tool prints the mean of
(sigmoid(a / 400) - sigmoid(b / 400))^2, the trainer's loss between them, beside the mean
absolute difference in centipawns. A label set whose loss against deeper searches is as large as
a network's validation loss (net-189: 0.002628) says the network is taught noise of that size.
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from pathlib import Path

import numpy as np

from ponderosa.core_ext.core import Board, Evaluator, TranspositionTable
from ponderosa.engine.search import Searcher, SearchLimits

from tools import ROOT
from tools.nnue import data as nnue_data
from tools.nnue.train import SIGMOID_SCALE

HASH_BYTES = 16 * 1024 * 1024
SCORE_CAP = 4 * nnue_data.MAX_SCORE   # a mate found by a deeper search counts as a large score, not 32,000


def trainable_positions(paths: list[Path]) -> list[tuple[str, int]]:
    """(FEN, the file's score for the side to move) of every position the trainer would take."""
    found = []
    for path in paths:
        for game in nnue_data.read_scored_games(path):
            board = game.start
            for ply, (move, score) in enumerate(zip(game.moves, game.scores)):
                if nnue_data.kept(board, ply, move, score, nnue_data.SKIP_PLIES, nnue_data.MAX_SCORE):
                    found.append((board.fen(), score))
                board.push(move)
    return found


def sigmoid(scores: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-scores.astype(np.float64) / SIGMOID_SCALE))


def compare(labels: dict[str, np.ndarray]) -> list[dict[str, object]]:
    """The trainer's loss and the mean absolute centipawn difference of every pair of label sets."""
    rows = []
    for first, second in itertools.combinations(labels, 2):
        a, b = labels[first], labels[second]
        rows.append({"labels": f"{first} ~ {second}",
                     "loss": float(np.mean((sigmoid(a) - sigmoid(b)) ** 2)),
                     "mean_abs_cp": float(np.mean(np.abs(a.astype(np.int64) - b.astype(np.int64))))})
    return rows


def label(positions: list[tuple[str, int]], node_counts: list[int], net: Path | None) -> dict[str, np.ndarray]:
    """Every position's labels: the file's, the network's static evaluation, one per node count."""
    evaluator = Evaluator()
    if net is not None:
        from ponderosa.engine import nnue
        nnue.load(evaluator, net)
    table = TranspositionTable(HASH_BYTES)
    searcher = Searcher(table, evaluator)
    labels: dict[str, list[int]] = {"file": [], "static": [], **{f"nodes{n}": [] for n in node_counts}}
    for fen, score in positions:
        labels["file"].append(score)
        board = Board(fen)
        labels["static"].append(evaluator.evaluate(board))
        for nodes in node_counts:
            table.clear()
            searcher.core.clear()
            result = searcher.run(board.copy(), SearchLimits(nodes=nodes))
            labels[f"nodes{nodes}"].append(max(-SCORE_CAP, min(SCORE_CAP, result.score)))
    return {name: np.array(values) for name, values in labels.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("games", type=Path, nargs="+", help="packed games files (tools/nnue/datagen.py --packed)")
    parser.add_argument("--positions", type=int, default=2000, help="positions drawn (default 2000)")
    parser.add_argument("--nodes", default="5000,20000,80000", help="node counts, comma-separated")
    parser.add_argument("--net", type=Path, default=ROOT / "engine" / "nnue" / "ponderosa.nnue",
                        help="the network the searches evaluate with (default the shipped one)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args(argv)
    try:
        node_counts = [int(text) for text in args.nodes.split(",")]
    except ValueError:
        parser.error(f"--nodes takes whole numbers separated by commas, not {args.nodes!r}")
    if not node_counts or min(node_counts) < 1 or args.positions < 2:
        parser.error("give at least one node count of 1 or more and at least 2 positions")
    if not args.net.is_file():
        parser.error(f"no network file {args.net}")
    pool = trainable_positions(args.games)
    if len(pool) < args.positions:
        parser.error(f"only {len(pool)} trainable positions in the files, {args.positions} asked")
    positions = random.Random(args.seed).sample(pool, args.positions)
    rows = compare(label(positions, node_counts, args.net))
    if args.json:
        print(json.dumps({"positions": args.positions, "nodes": node_counts, "pairs": rows}))
    else:
        print(f"{args.positions} positions of {len(pool)}; loss = mean (sigmoid(a/400) - sigmoid(b/400))^2")
        for row in rows:
            print(f"{row['labels']:<28} loss {row['loss']:.6f}  mean |a - b| {row['mean_abs_cp']:.1f} cp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
