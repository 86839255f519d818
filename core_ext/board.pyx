# cython: language_level=3
"""Board, the Python face of the core position: compiled in ponderosa.core_ext.core (the core's
one C unit, from board_class.pxi); this module keeps its import path."""
from ponderosa.core_ext.core import NULL_MOVE, PIECE_SYMBOLS, START_FEN, Board

__all__ = ["Board", "NULL_MOVE", "PIECE_SYMBOLS", "START_FEN"]
