# cython: language_level=3
"""Perft (bulk-counted leaf nodes of the legal move tree) is compiled in ponderosa.core_ext.core
(perft_count.pxi), one C unit with the move generation and make/unmake it calls, and is reached
from Python through Board.perft and Board.divide. This module keeps its import path; it has no
names of its own (it never had Python-level ones)."""
