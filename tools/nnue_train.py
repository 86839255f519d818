#!/usr/bin/env python3
"""Train the neural evaluation on self-play positions and write the engine's network file.

Usage (after `pip install -e .[train]`; PyTorch, CPU build):

    python tools/nnue_train.py NET.nnue data/nnue/*.pgm.xz [--epochs 12] [--lambda 0.7]
    python tools/nnue_train.py NET.nnue --positions POSITIONS.npz ...   (from tools/nnue_data.py)

The network is the core's: 768 inputs per perspective into NNUE_HIDDEN neurons, both
perspectives (side to move first) through clamp(x, 0, 1)^2 into one output, times 400 in
centipawns. The loss is the usual one: the squared difference between sigmoid(output / 400) and a
target mixing sigmoid(search score / 400) (weight --lambda) with the game's result (the rest).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nnue_data  # noqa: E402

from ponderosa.engine.nnue import reference  # noqa: E402
from ponderosa.engine.nnue.network_file import write_network  # noqa: E402

try:
    import torch
except ImportError:    # the trainer's own dependency, not the engine's
    torch = None

PAD = nnue_data.PAD
SIGMOID_SCALE = 400.0


def build_model(hidden: int) -> "torch.nn.Module":
    class Network(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            # One extra row for the padding index, kept at zero.
            self.ft = torch.nn.EmbeddingBag(PAD + 1, hidden, mode="sum", padding_idx=PAD)
            self.ft_bias = torch.nn.Parameter(torch.zeros(hidden))
            self.out = torch.nn.Linear(2 * hidden, 1)
            with torch.no_grad():
                self.ft.weight.normal_(0.0, 0.05)
                self.ft.weight[PAD].zero_()
                self.ft_bias.fill_(0.1)
                self.out.weight.normal_(0.0, 0.05)
                self.out.bias.zero_()

        def forward(self, us: "torch.Tensor", them: "torch.Tensor") -> "torch.Tensor":
            a = torch.clamp(self.ft(us) + self.ft_bias, 0.0, 1.0) ** 2
            b = torch.clamp(self.ft(them) + self.ft_bias, 0.0, 1.0) ** 2
            return self.out(torch.cat([a, b], dim=1)).squeeze(1)   # in units of SIGMOID_SCALE centipawns

        def clip(self) -> None:
            with torch.no_grad():
                self.ft.weight.clamp_(-reference.FT_WEIGHT_LIMIT, reference.FT_WEIGHT_LIMIT)
                self.ft_bias.clamp_(-reference.FT_WEIGHT_LIMIT, reference.FT_WEIGHT_LIMIT)
                self.out.weight.clamp_(-reference.OUT_WEIGHT_LIMIT, reference.OUT_WEIGHT_LIMIT)

        def float_network(self) -> reference.FloatNetwork:
            return reference.FloatNetwork(
                ft_weights=self.ft.weight[:PAD].detach().numpy().astype(np.float32),
                ft_bias=self.ft_bias.detach().numpy().astype(np.float32),
                out_weights=self.out.weight[0].detach().numpy().astype(np.float32),
                out_bias=float(self.out.bias[0].detach()))

    return Network()


def targets(scores: np.ndarray, results: np.ndarray, score_weight: float) -> np.ndarray:
    expected = 1.0 / (1.0 + np.exp(-scores.astype(np.float32) / SIGMOID_SCALE))
    return (score_weight * expected + (1.0 - score_weight) * results).astype(np.float32)


def batches(features: "torch.Tensor", mirrored: "torch.Tensor", target: "torch.Tensor", size: int,
            generator: "torch.Generator | None"):
    order = torch.randperm(len(target), generator=generator) if generator is not None else torch.arange(len(target))
    for start in range(0, len(order), size):
        index = order[start:start + size]
        yield features[index], mirrored[index], target[index]


def evaluate_loss(model, features, mirrored, target, size: int) -> float:
    total, count = 0.0, 0
    with torch.no_grad():
        for us, them, want in batches(features, mirrored, target, size, None):
            predicted = torch.sigmoid(model(us, them))
            total += float(((predicted - want) ** 2).sum())
            count += len(want)
    return total / max(count, 1)


def train(data: dict[str, np.ndarray], args: argparse.Namespace,
          holdout: dict[str, np.ndarray] | None = None) -> tuple["torch.nn.Module", list[tuple]]:
    """Train on data; validate on holdout, or on whole games of data (--validation) without one."""
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    if holdout is not None:
        count = len(data["scores"])
        data = {name: np.concatenate([data[name], holdout[name]]) for name in data}
        validation = np.arange(len(data["scores"])) >= count
    else:
        games = data["games"]
        rng = np.random.default_rng(args.seed)
        held = rng.random(int(games.max(initial=0)) + 1) < args.validation
        validation = held[games]
    features = data["features"].astype(np.int64)
    wanted = targets(data["scores"], data["results"], args.score_weight)
    train_rows = np.flatnonzero(~validation)
    if args.mirror:
        # Positions without castling rights are worth the same mirrored left to right: added as
        # training rows of their own (validation keeps the positions as played).
        extra = train_rows[data["flippable"][train_rows]]
        features = np.concatenate([features, nnue_data.flip_files(features[extra])])
        wanted = np.concatenate([wanted, wanted[extra]])
        train_rows = np.concatenate([train_rows, np.arange(len(validation), len(validation) + len(extra))])
    feats = torch.from_numpy(features)
    mirror = torch.from_numpy(nnue_data.mirror_features(features))
    target = torch.from_numpy(wanted)
    train_index = torch.from_numpy(train_rows)
    valid_index = torch.from_numpy(np.flatnonzero(validation))
    model = build_model(args.hidden)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    schedule = torch.optim.lr_scheduler.StepLR(optimiser, step_size=max(1, args.epochs // 3), gamma=0.3)
    history = []
    for epoch in range(1, args.epochs + 1):
        began = time.monotonic()
        total, count = 0.0, 0
        for us, them, want in batches(feats[train_index], mirror[train_index], target[train_index],
                                      args.batch, generator):
            predicted = torch.sigmoid(model(us, them))
            loss = ((predicted - want) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            model.clip()
            total += loss.item() * len(want)
            count += len(want)
        schedule.step()
        valid_loss = evaluate_loss(model, feats[valid_index], mirror[valid_index], target[valid_index], args.batch)
        history.append((epoch, total / max(count, 1), valid_loss, time.monotonic() - began))
        print(f"epoch {epoch}: train loss {total / max(count, 1):.6f}, validation loss {valid_loss:.6f}, "
              f"{time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
    return model, history


def read_positions(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as stored:
        return {name: stored[name] for name in ("features", "scores", "results", "games", "flippable")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("out", type=Path, help="the network file to write")
    parser.add_argument("games", type=Path, nargs="*", help="packed games files (tools/datagen.py --packed)")
    parser.add_argument("--positions", type=Path, help="positions already extracted by tools/nnue_data.py")
    parser.add_argument("--holdout", type=Path,
                        help="validate on these positions (tools/nnue_data.py) instead of games held out of the data")
    parser.add_argument("--limit", type=int, default=0, help="use the first N positions only (learning curves)")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--lambda", dest="score_weight", type=float, default=1.0,
                        help="weight of the search score in the target; the game result has the rest (default 1.0: "
                             "with a few thousand games the network learns each game's result by heart, "
                             "docs/NNUE.md)")
    parser.add_argument("--mirror", action=argparse.BooleanOptionalAction, default=True,
                        help="add the left-right mirror image of every position without castling rights (default on)")
    parser.add_argument("--weight-decay", type=float, default=0.0, help="AdamW's decoupled weight decay (default 0)")
    parser.add_argument("--validation", type=float, default=0.02, help="share of games held out (default 0.02)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1,
                        help="PyTorch threads (default 1: with other work on the machine, more threads wait on "
                             "each other at every small step and run many times slower)")
    parser.add_argument("--float-out", type=Path,
                        help="also keep the float weights (.npz): the tests compare the integer network with them")
    args = parser.parse_args(argv)
    if torch is None:
        print("the trainer needs PyTorch: pip install -e .[train]", file=sys.stderr)
        return 1
    torch.set_num_threads(args.threads)
    if args.positions is None and not args.games:
        parser.error("give packed games files or --positions")
    data = read_positions(args.positions) if args.positions is not None else \
        nnue_data.extract(args.games, skip_plies=8, max_score=3000)
    holdout = read_positions(args.holdout) if args.holdout is not None else None
    if args.limit:
        data = {name: values[:args.limit] for name, values in data.items()}
    print(f"{len(data['scores'])} positions from {int(data['games'].max(initial=-1)) + 1} games", file=sys.stderr)
    model, history = train(data, args, holdout)
    description = (f"768x{args.hidden}x1 SCReLU, {len(data['scores'])} positions of Ponderosa self-play, "
                   f"{args.epochs} epochs, lambda {args.score_weight}, validation loss {history[-1][2]:.6f}")
    float_net = model.float_network()
    write_network(args.out, reference.quantise(float_net, description))
    if args.float_out is not None:
        reference.save_float_network(args.float_out, float_net)
    print(f"{args.out}: {description}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
