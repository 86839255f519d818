# Included by core.pyx, the core's one C unit:
# Fills the Zobrist tables from python-chess's copy of the Polyglot random array.

from chess.polyglot import POLYGLOT_RANDOM_ARRAY


def _fill_tables() -> None:
    global Z_TURN
    cdef int piece_type, colour, sq, kind, mask, bit
    for piece_type in range(16):
        for sq in range(64):
            Z_PSQ[piece_type][sq] = 0
    for colour in range(2):
        for piece_type in range(PAWN, KING + 1):
            # Polyglot orders pieces black pawn, white pawn, black knight, ...
            kind = (piece_type - 1) * 2 + (0 if colour == BLACK else 1)
            for sq in range(64):
                Z_PSQ[colour * 8 + piece_type][sq] = POLYGLOT_RANDOM_ARRAY[64 * kind + sq]
    for mask in range(16):
        Z_CASTLING[mask] = 0
        for bit in range(4):
            if mask & (1 << bit):
                Z_CASTLING[mask] ^= POLYGLOT_RANDOM_ARRAY[768 + bit]
    for sq in range(8):
        Z_EP[sq] = POLYGLOT_RANDOM_ARRAY[772 + sq]
    Z_TURN = POLYGLOT_RANDOM_ARRAY[780]


_fill_tables()
