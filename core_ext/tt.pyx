# cython: language_level=3
"""TranspositionTable: compiled in ponderosa.core_ext.core (the core's one C unit, from
tt_table.pxi); this module keeps its import path."""
from ponderosa.core_ext.core import TranspositionTable

__all__ = ["TranspositionTable"]
