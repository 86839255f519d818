# Legal move generation.
from ponderosa.core_ext.bitboard cimport Move
from ponderosa.core_ext.position cimport Position

cdef int generate_legal(Position* pos, Move* moves) noexcept nogil
cdef int generate_noisy(Position* pos, Move* moves) noexcept nogil
