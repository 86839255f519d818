# The Python-facing Board, so that other core modules can reach its Position.
from ponderosa.core_ext.position cimport Position

cdef class Board:
    cdef Position* pos
    cdef unsigned int find_move(self, str uci) except? 0
