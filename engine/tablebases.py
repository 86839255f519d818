"""Syzygy tablebases in the engine: where the files are, the settings, and the root move filter.

The core (core_ext/syzygy.pxi) maps and decodes the files and probes WDL inside the search;
this module decides, with a tablebase position on the board, which root moves the search may
choose from, and whether the search probes at all (swindle mode)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ponderosa.core_ext import core
from ponderosa.core_ext.core import Board
from ponderosa.engine.input_files import InputFileError, folder
from ponderosa.engine.limits import DEFAULT_PROBE_DEPTH

DEFAULT_CACHE_BYTES = 4 << 20
MATE_VALUE = 3                      # a root move that mates at once beats every table result
FIFTY_MOVE_PLIES = 100
PIECE_VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0}


@dataclass(frozen=True)
class RootMoveResult:
    """What the tables say of one root move, from the mover's side."""

    move: str
    wdl: int          # -2..2 with the fifty-move counter counted; MATE_VALUE for a mate on the board
    plies: int        # for wins: plies until the counter is reset again (0: the move itself resets it)


@dataclass(frozen=True)
class RootDecision:
    """The best result the root can keep, and the moves that keep it."""

    wdl: int
    keep: list[str]
    results: list[RootMoveResult]


def _halfmove_clock(board: Board) -> int:
    return int(board.fen().split()[4])


def _pieces(board: Board) -> str:
    return "".join(ch for ch in board.fen().split()[0] if ch.isalpha())


def winning_chances(board: Board) -> bool:
    """The side to move has more material (a rook against a bishop, say): worth swindling for."""
    pieces = _pieces(board)
    white = sum(PIECE_VALUES[ch.lower()] for ch in pieces if ch.isupper())
    black = sum(PIECE_VALUES[ch] for ch in pieces if ch.islower())
    own, other = (white, black) if board.white_to_move else (black, white)
    return own > other


class Tablebases:
    """The tables the engine uses and how it uses them."""

    def __init__(self) -> None:
        self.path = ""
        self.probe_depth = DEFAULT_PROBE_DEPTH
        self.swindle = True
        self._reported: set[str] = set()
        self.set_cache(DEFAULT_CACHE_BYTES)

    # -- settings ---------------------------------------------------------------

    def set_path(self, path: str) -> list[str]:
        """Use the tables in path (folders separated by ':' or ';'; empty: none). Returns messages
        about folders and files that could not be used. The caller stops any search first."""
        self.path = path.strip()
        self._reported.clear()
        usable, messages = [], []
        for name in re.split(r"[;" + re.escape(os.pathsep) + "]", self.path):
            if name.strip():
                try:   # the input door: a folder, or a clear line why not
                    usable.append(str(folder(os.path.expanduser(name.strip()))))
                except InputFileError as error:
                    messages.append(str(error))
        return messages + core.set_paths(os.pathsep.join(usable))

    @property
    def largest(self) -> int:
        """Most pieces of any table found (0: no tables)."""
        return int(core.largest())

    @property
    def table_count(self) -> int:
        return int(core.table_count())

    def summary(self) -> str:
        """Crafty's report: the largest class found."""
        if self.largest == 0:
            return "no tablebase files found" + (f" in {self.path}" if self.path else " (no path set)")
        return f"{self.largest} piece tablebase files found ({self.table_count} tables)"

    def set_cache(self, size_bytes: int) -> int:
        """The cache of decoded table values; returns the bytes used. The caller stops any search first."""
        return int(core.set_cache(size_bytes))

    @property
    def cache_bytes(self) -> int:
        return int(core.cache_bytes())

    def set_probe_depth(self, plies: int) -> None:
        if plies < 0:
            raise ValueError("the probe depth is 0 or more plies")
        self.probe_depth = plies

    def new_problems(self) -> list[str]:
        """Tables found broken when first opened (in a search), each reported once."""
        fresh = [problem for problem in core.problems() if problem not in self._reported]
        self._reported.update(fresh)
        return fresh

    # -- probes -----------------------------------------------------------------

    def covers(self, board: Board) -> bool:
        fen = board.fen().split()
        return 0 < len(_pieces(board)) <= self.largest and fen[2] == "-"

    def probe(self, board: Board) -> tuple[int | None, int | None]:
        """(WDL, DTZ) of the board from the side to move, None where no table answers."""
        return core.probe_wdl(board), core.probe_dtz(board)

    def root_decision(self, board: Board) -> RootDecision | None:
        """The root moves that keep the best result the tables allow, the fifty-move counter
        counted. Wins keep only the moves nearest the next counter reset (DTZ), so the win is
        never talked away by the fifty-move rule; draws and losses keep every move that holds
        the result, for the search to choose the hardest for the opponent. None when a table
        is missing."""
        if not self.covers(board):
            return None
        clock = _halfmove_clock(board)
        results = []
        for move in board.legal_moves():
            child = board.copy()
            child.push_uci(move)
            if not child.legal_moves():
                results.append(RootMoveResult(move, MATE_VALUE if child.in_check() else 0, 0))
                continue
            wdl, dtz = self.probe(child)
            if wdl is None or dtz is None:
                return None
            wdl, resets = -wdl, _halfmove_clock(child) == 0
            plies = 0 if resets else abs(dtz)
            if not resets and abs(wdl) == 2 and clock + 1 + abs(dtz) > FIFTY_MOVE_PLIES - 1:
                wdl //= 2    # the counter runs out first: a draw under the fifty-move rule
            results.append(RootMoveResult(move, wdl, plies))
        if not results:
            return None
        best = max(result.wdl for result in results)
        holding = [result for result in results if result.wdl == best]
        if best > 0:
            fastest = min(result.plies for result in holding)
            holding = [result for result in holding if result.plies == fastest]
        return RootDecision(min(best, 2), [result.move for result in holding], results)

    def prepare_search(self, board: Board, excluded: set[str], open_ended: bool) -> tuple[set[str], bool, int]:
        """Root moves to leave out, whether the search probes the tables, and the probes made here.

        Swindle: in a tablebase draw with more material, a timed search (a game move) plays on
        without probing, so the evaluation looks for the opponent's mistakes among the drawing
        moves; analysis (open-ended) always probes."""
        if self.largest == 0:
            return excluded, False, 0
        decision = self.root_decision(board)
        if decision is None:
            return excluded, True, 0
        dropped = excluded | (set(board.legal_moves()) - set(decision.keep))
        if set(board.legal_moves()) <= dropped:
            dropped = excluded   # the caller's own exclusions left nothing of the kept moves
        swindling = self.swindle and not open_ended and decision.wdl == 0 and winning_chances(board)
        return dropped, not swindling, 2 * len(decision.results)
