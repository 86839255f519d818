# Perft: counts leaf nodes of the legal move tree.
from libc.stdint cimport uint64_t
from ponderosa.core_ext.position cimport Position

cdef uint64_t perft(Position* pos, int depth) noexcept nogil
