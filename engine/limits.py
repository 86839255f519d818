"""The defaults and ranges of the engine's settings that the GUIs are told about before the engine
has loaded: the XBoard handshake (protocol/xboard/features.py) lists them from here, and the engine's
modules take them from here, so both always agree. Nothing here may import anything heavy."""
from __future__ import annotations

MAX_THREADS = 64                    # search threads (cores N, option Threads)
MAX_MULTI_PV = 256                  # lines per iteration (MultiPV, the console's multipv)

MEGABYTE = 1 << 20
DEFAULT_HASH_BYTES = 64 * MEGABYTE          # the transposition table (option Hash, `hash`, XBoard `memory`)
DEFAULT_PAWN_HASH_BYTES = 4 * MEGABYTE      # each search thread's pawn hash (`hashp`)

DEFAULT_PROBE_DEPTH = 1             # plies of remaining depth a node needs to probe Syzygy
PROBE_DEPTH_RANGE = (0, 100)        # what SyzygyProbeDepth accepts (XBoard and UCI)

# Below this learned value a book move is not playable: it is not chosen, and learning does not
# count it as an alternative. A setting (`learn threshold N`, option BookLearnThreshold, within
# DEMOTE_THRESHOLD_RANGE); the default is the paper's: its experiment (5.1, 5.2) gives a move up
# below -0.80.
DEMOTE_THRESHOLD = -80
# From nothing learned (0: every move unlearned stays playable) down to ten pawns, far above the
# result-learning flag, so a flagged move is never playable (see RESULT_LEARNED_VALUE).
DEMOTE_THRESHOLD_RANGE = (-1000, 0)

# Strength levels (engine/strength.py): UCI_Elo's range; at its top the engine plays at full strength.
MIN_ELO = 1000
FULL_ELO = 3100

# Move Overhead (UCI; XBoard's MoveOverhead), in milliseconds: what a move costs on the clock besides the
# search (the GUI or bot client, pipes, process scheduling, a server's network), kept back from every
# move's time by engine/clock.py. The default, 30, beat 100 by SPRT at 10+0.1 with no time loss in
# its 1,029 games; on a heavily loaded machine 100 was needed (docs/TIME.md).
DEFAULT_MOVE_OVERHEAD_MS = 30

# A search with no limit given (a bare `go`, the console without sd/st/sn): seconds for the move.
DEFAULT_SECONDS_PER_MOVE = 5.0
MOVE_OVERHEAD_RANGE_MS = (0, 5000)

# Crafty's `learn N` bitmask: 1 book, 2 positions, 4 results; everything on by default, as in Crafty.
LEARN_ALL = 7
LEARN_DEFAULT = LEARN_ALL

# The book's move choice (engine/book/select.py): `book random 1`, a weighted draw among the best
# `book width` moves (option BookRandom, BookWidth).
DEFAULT_BOOK_RANDOM = 1
DEFAULT_BOOK_WIDTH = 5
