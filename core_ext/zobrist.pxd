# Zobrist keys: the Polyglot random numbers, so a position's key is its Polyglot book key.
from ponderosa.core_ext.bitboard cimport Bitboard

cdef Bitboard Z_PSQ[16][64]      # by piece code (colour * 8 + type) and square
cdef Bitboard Z_CASTLING[16]     # by castling-rights mask, pre-combined
cdef Bitboard Z_EP[8]            # by en-passant file
cdef Bitboard Z_TURN              # toggled every move; present when White is to move
