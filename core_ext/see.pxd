# Static exchange evaluation.
from ponderosa.core_ext.bitboard cimport Move
from ponderosa.core_ext.position cimport Position

cdef int SEE_VALUE[7]     # by piece type: 0, P, N, B, R, Q, K

cdef int see(Position* pos, Move m) noexcept nogil
