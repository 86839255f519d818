"""How fast the two ways of training the network run here: PyTorch on the CPU (the trainer,
tools/nnue/train.py) against the same network, loss and Adam steps written with numpy and
scipy's sparse matrices. Prints microseconds per training position for each, on random
positions of 32 pieces (the speed does not depend on what the positions are).

Usage: python -m tools.nnue.trainer_speed [--batch 1024] [--batches 60]
(needs scipy, from `pip install -e .[train]`, and PyTorch)
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from tools.nnue import data as nnue_data
from tools.nnue.backends import make_backend

INPUTS, HIDDEN = 768, 256


def random_batches(count: int, size: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    batches = []
    for _ in range(count):
        features = np.array([rng.choice(INPUTS, 32, replace=False) for _ in range(size)], dtype=np.int64)
        batches.append((features, nnue_data.mirror_features(features), rng.random(size).astype(np.float32)))
    return batches


def speed(name: str, batches: list) -> float:
    backend = make_backend(name, HIDDEN, 1e-3, 0.0, 1)
    began = time.perf_counter()
    for us, them, want in batches:
        backend.train_step(us, them, want)
    return (time.perf_counter() - began) / sum(len(t) for _, _, t in batches) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--batches", type=int, default=60)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch threads (default 1, as the trainer)")
    args = parser.parse_args(argv)
    batches = random_batches(args.batches, args.batch, 1)
    import torch
    torch.set_num_threads(args.threads)
    print(f"PyTorch: {speed('torch', batches):.1f} us a position; "
          f"numpy + scipy.sparse: {speed('numpy', batches):.1f} us a position "
          f"(batch {args.batch}, {args.batches} batches)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
