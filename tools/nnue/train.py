"""Train the neural evaluation on self-play positions and write the engine's network file.

Usage (after `pip install -e .[train]`: scipy; PyTorch optional, --backend torch):

    python -m tools.nnue.train NET.nnue data/nnue/*.pgm.xz [--epochs 12] [--lambda 1.0] [--buckets 8]
                                  [--king-buckets mirrored-4]
    python -m tools.nnue.train NET.nnue --positions POSITIONS.npz ...   (from tools/nnue/data.py)

Two backends compute the same thing (tools/nnue/backends.py): numpy with scipy's sparse matrices
(default) and PyTorch on the CPU. The network is the core's: 768 inputs per perspective into
NNUE_HIDDEN neurons, both perspectives (side to move first) through clamp(x, 0, 1)^2 into one
output (of the position's bucket by its number of pieces, with --buckets), times 400 in
centipawns. With --king-buckets, a named layout of network_file.KING_LAYOUTS, each perspective's
768 inputs are those of its own king's bucket (768 x buckets inputs in all). The loss is the
usual one: the squared difference between sigmoid(output / 400) and a target mixing
sigmoid(search score / 400) (weight --lambda) with the game's result (the rest).
Whole games are held out for validation (--validation, default 2%), and each epoch reports the
training and validation loss. Weights are clipped to what the integer format holds after every
step; the result is quantised (ponderosa.engine.nnue.reference.quantise) and written atomically.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ponderosa.engine.nnue import reference
from ponderosa.engine.nnue.network_file import KING_LAYOUTS, MAX_BUCKETS, KingLayout, write_network

from tools.nnue import data as nnue_data
from tools.nnue.backends import available_backends, make_backend

PAD = nnue_data.PAD
SIGMOID_SCALE = 400.0


def targets(scores: np.ndarray, results: np.ndarray, score_weight: float) -> np.ndarray:
    expected = 1.0 / (1.0 + np.exp(-scores.astype(np.float32) / SIGMOID_SCALE))
    return (score_weight * expected + (1.0 - score_weight) * results).astype(np.float32)


class TrainingInputs:
    """The network's inputs of any rows, both perspectives, made a batch at a time from the
    positions' own indices: row r < len(features) is position r, and row len(features) + k the
    position flipped_sources[k] mirrored left to right. Only the positions are held; their
    images, other perspectives and king-bucket sets are never kept whole (for 28 million
    positions those copies were some 6 GB)."""

    def __init__(self, features: np.ndarray, flipped_sources: np.ndarray, layout: KingLayout,
                 factorise: bool) -> None:
        self.features = features.astype(np.int16, copy=False)
        self.flipped_sources = flipped_sources
        self.layout, self.factorise = layout, factorise
        # Both maps as tables over every index and the padding: a gather per batch, not arithmetic.
        every_index = np.arange(PAD + 1, dtype=np.int16)[None, :]
        self.mirror_table = nnue_data.mirror_features(every_index)[0]
        self.flip_table = nnue_data.flip_files(every_index)[0]

    def __call__(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(side to move's inputs, other side's inputs) of the rows, as the backends take them."""
        count = len(self.features)
        flipped = rows >= count
        if flipped.any():
            positions = np.empty((len(rows), self.features.shape[1]), dtype=np.int16)
            positions[~flipped] = self.features[rows[~flipped]]
            positions[flipped] = self.flip_table[self.features[self.flipped_sources[rows[flipped] - count]]]
        else:
            positions = self.features[rows]
        mirrored = nnue_data.king_bucket_features(self.mirror_table[positions], self.layout)
        positions = nnue_data.king_bucket_features(positions, self.layout)
        if self.factorise:
            return (nnue_data.factoriser_features(positions, self.layout),
                    nnue_data.factoriser_features(mirrored, self.layout))
        return positions, mirrored


def train(data: dict[str, np.ndarray], args: argparse.Namespace,
          holdout: dict[str, np.ndarray] | None = None) -> tuple[object, list[tuple]]:
    """Train on data; validate on holdout, or on whole games of data (--validation) without one.
    Returns the backend (its float_network()) and (epoch, train loss, validation loss, seconds)."""
    rng = np.random.default_rng(args.seed)
    if holdout is not None:
        count = len(data["scores"])
        data = {name: np.concatenate([data[name], holdout[name]]) for name in data}
        validation = np.arange(len(data["scores"])) >= count
    else:
        games = data["games"]
        held = rng.random(int(games.max(initial=0)) + 1) < args.validation
        validation = held[games]
    wanted = targets(data["scores"], data["results"], args.score_weight)
    train_rows = np.flatnonzero(~validation)
    layout = KING_LAYOUTS[args.king_buckets]
    flipped_sources = np.empty(0, dtype=np.int64)
    if args.mirror and not layout.mirror:
        # Positions without castling rights are worth the same mirrored left to right: added as
        # training rows of their own (validation keeps the positions as played). King buckets
        # that mirror the board already see such a position and its image alike.
        flipped_sources = train_rows[data["flippable"][train_rows]]
        wanted = np.concatenate([wanted, wanted[flipped_sources]])
        train_rows = np.concatenate([train_rows, np.arange(len(validation), len(validation) + len(flipped_sources))])
    inputs = TrainingInputs(data["features"], flipped_sources, layout, args.factorise)
    valid_rows = np.flatnonzero(validation)
    backend = make_backend(args.backend, args.hidden, args.lr, args.weight_decay, args.seed, args.buckets, layout,
                           args.factorise)
    step_epochs = max(1, args.epochs // 3)   # the learning rate drops to 0.3x after each third
    history = []
    for epoch in range(1, args.epochs + 1):
        began = time.monotonic()
        backend.set_learning_rate(args.lr * 0.3 ** ((epoch - 1) // step_epochs))
        order = rng.permutation(train_rows)
        total = 0.0
        for start in range(0, len(order), args.batch):
            rows = order[start:start + args.batch]
            total += backend.train_step(*inputs(rows), wanted[rows]) * len(rows)
        valid_total = sum(backend.loss_sum(*inputs(rows), wanted[rows])
                          for rows in np.array_split(valid_rows, max(1, len(valid_rows) // 8192)))
        train_loss, valid_loss = total / max(len(order), 1), valid_total / max(len(valid_rows), 1)
        history.append((epoch, train_loss, valid_loss, time.monotonic() - began))
        print(f"epoch {epoch}: train loss {train_loss:.6f}, validation loss {valid_loss:.6f}, "
              f"{time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
    return backend, history


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("out", type=Path, help="the network file to write")
    parser.add_argument("games", type=Path, nargs="*", help="packed games files (tools/nnue/datagen.py --packed)")
    parser.add_argument("--positions", type=Path, help="positions already extracted by tools/nnue/data.py")
    parser.add_argument("--holdout", type=Path,
                        help="validate on these positions (tools/nnue/data.py) instead of games held out of the data")
    parser.add_argument("--limit", type=int, default=0, help="use the first N positions only (learning curves)")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--buckets", type=int, default=1, choices=range(1, MAX_BUCKETS + 1), metavar="B",
                        help=f"output buckets by number of pieces (1 to {MAX_BUCKETS}; default 1, one output)")
    parser.add_argument("--king-buckets", choices=sorted(KING_LAYOUTS), default="none",
                        help="first-layer inputs by the perspective's own king square (default none: one set)")
    parser.add_argument("--factorise", action="store_true",
                        help="with king buckets: train a set of inputs shared by all buckets beside each bucket's "
                             "own, folded into them in the file (tools/nnue/backends.py)")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--lambda", dest="score_weight", type=float, default=1.0,
                        help="weight of the search score in the target; the game result has the rest (default 1.0: "
                             "with a few thousand games the network learns each game's result by heart, "
                             "docs/NNUE.md)")
    parser.add_argument("--mirror", action=argparse.BooleanOptionalAction, default=True,
                        help="add the left-right mirror image of every position without castling rights (default on; "
                             "not with king buckets that mirror, which see both alike)")
    parser.add_argument("--weight-decay", type=float, default=0.0, help="AdamW's decoupled weight decay (default 0)")
    parser.add_argument("--validation", type=float, default=0.02, help="share of games held out (default 0.02)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=("numpy", "torch"), default="numpy",
                        help="numpy + scipy.sparse (default) or PyTorch (docs/NNUE.md: as fast here)")
    parser.add_argument("--threads", type=int, default=1,
                        help="PyTorch threads (default 1: with other work on the machine, more threads wait on "
                             "each other at every small step and run many times slower)")
    parser.add_argument("--float-out", type=Path,
                        help="also keep the float weights (.npz): the tests compare the integer network with them")
    args = parser.parse_args(argv)
    if args.backend not in available_backends():
        print(f"the {args.backend} backend needs {'scipy' if args.backend == 'numpy' else 'PyTorch'}: "
              "pip install -e .[train]", file=sys.stderr)
        return 1
    if args.backend == "torch":
        import torch
        torch.set_num_threads(args.threads)
    if args.factorise and args.king_buckets == "none":
        parser.error("--factorise needs --king-buckets")
    if args.positions is None and not args.games:
        parser.error("give packed games files or --positions")
    try:
        # A positions file is read only as far as --limit; games are extracted whole, then cut.
        if args.positions is not None:
            data = nnue_data.load_positions(args.positions, args.limit)
        else:
            data = nnue_data.extract(args.games, nnue_data.SKIP_PLIES, nnue_data.MAX_SCORE)
            if args.limit:
                data = {name: values[:args.limit] for name, values in data.items()}
        holdout = nnue_data.load_positions(args.holdout) if args.holdout is not None else None
    except nnue_data.PositionsFileError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"{len(data['scores'])} positions from {int(data['games'].max(initial=-1)) + 1} games", file=sys.stderr)
    backend, history = train(data, args, holdout)
    description = (f"768x{args.hidden}x1 SCReLU, "
                   + (f"king buckets {args.king_buckets}{' factorised' if args.factorise else ''}, "
                      if args.king_buckets != "none" else "")
                   + (f"{args.buckets} output buckets, " if args.buckets > 1 else "")
                   + f"{len(data['scores'])} positions of Ponderosa self-play, "
                   f"{args.backend}, "
                   f"{args.epochs} epochs, lambda {args.score_weight}, validation loss {history[-1][2]:.6f}")
    float_net = backend.float_network()
    write_network(args.out, reference.quantise(float_net, description))
    if args.float_out is not None:
        reference.save_float_network(args.float_out, float_net)
    print(f"{args.out}: {description}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
