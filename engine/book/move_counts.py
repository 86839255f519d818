"""Counts per (key, move) of a book as numpy columns: what a chunk of games adds, and their sum
(a Python dict of ~11 M occurrences would need gigabytes; a sort and a segmented reduction do not)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class MoveCounts:
    """Columns of (key, move) counts; after reduce() each (key, move) appears once, sorted."""

    keys: np.ndarray  # uint64
    moves: np.ndarray  # uint16 move codes
    games: np.ndarray  # uint32 (the four count columns)
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    flags: np.ndarray  # uint8
    play: np.ndarray  # uint8, 0 = not set

    @classmethod
    def empty(cls) -> MoveCounts:
        return cls.concatenate([])

    @classmethod
    def concatenate(cls, parts: Sequence[MoveCounts]) -> MoveCounts:
        dtypes = (np.uint64, np.uint16, np.uint32, np.uint32, np.uint32, np.uint32, np.uint8, np.uint8)
        if not parts:
            return cls(*(np.zeros(0, dtype) for dtype in dtypes))
        return cls(*[np.concatenate([part.columns()[index] for part in parts]).astype(dtype, copy=False)
                     for index, dtype in enumerate(dtypes)])

    def columns(self) -> tuple[np.ndarray, ...]:
        return (self.keys, self.moves, self.games, self.wins, self.draws, self.losses, self.flags, self.play)

    def __len__(self) -> int:
        return len(self.keys)

    def reduce(self) -> MoveCounts:
        """Sums rows with equal (key, move); flags are OR-ed; play percent: the last non-zero in row order."""
        if len(self) == 0:
            return self
        order = np.lexsort((self.moves, self.keys))  # stable: equal rows keep their input order
        keys, moves = self.keys[order], self.moves[order]
        starts = np.flatnonzero(np.concatenate(([True], (keys[1:] != keys[:-1]) | (moves[1:] != moves[:-1]))))
        games, wins, draws, losses = (np.add.reduceat(column[order], starts).astype(np.uint32)
                                      for column in (self.games, self.wins, self.draws, self.losses))
        flags = np.bitwise_or.reduceat(self.flags[order], starts).astype(np.uint8)
        play_sorted = self.play[order]
        last_set = np.maximum.reduceat(np.where(play_sorted > 0, np.arange(len(order)), -1), starts)
        play = np.where(last_set >= 0, play_sorted[np.maximum(last_set, 0)], 0).astype(np.uint8)
        return MoveCounts(keys[starts], moves[starts], games, wins, draws, losses, flags, play)

    def select(self, keep: np.ndarray) -> MoveCounts:
        return MoveCounts(*(column[keep] for column in self.columns()))


def counts_from_occurrences(keys: list[int], moves: list[int], outcomes: list[int],
                            flags: list[int], play: list[int]) -> MoveCounts:
    """Counts for one chunk: one row per move played (outcome 0 win, 1 draw, 2 loss, 3 none, mover's view)."""
    outcome = np.array(outcomes, dtype=np.uint8)
    counts = MoveCounts(np.array(keys, dtype=np.uint64), np.array(moves, dtype=np.uint16),
                        np.ones(len(outcome), np.uint32), (outcome == 0).astype(np.uint32),
                        (outcome == 1).astype(np.uint32), (outcome == 2).astype(np.uint32),
                        np.array(flags, dtype=np.uint8), np.array(play, dtype=np.uint8))
    return counts.reduce()
