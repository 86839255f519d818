# cython: language_level=3
"""The search's Python side (Search and its score constants): compiled in ponderosa.core_ext.core
(the core's one C unit, from search_tree.pxi and search_*.pxi, together with everything the search
calls per node); this module keeps its import path."""
from ponderosa.core_ext.core import (
    EXTENSIONS, INFINITE_SCORE, LEARNED_ENTRY_DEPTH, MATE_SCORE, MATE_THRESHOLD, TABLEBASE_THRESHOLD, TABLEBASE_WIN,
    Search,
)

__all__ = ["EXTENSIONS", "INFINITE_SCORE", "LEARNED_ENTRY_DEPTH", "MATE_SCORE", "MATE_THRESHOLD",
           "TABLEBASE_THRESHOLD", "TABLEBASE_WIN", "Search"]
