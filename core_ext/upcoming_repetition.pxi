# Included by core.pyx, the core's one C unit (after the Zobrist keys and before the Board):
# whether the side to move has a move that repeats an earlier position, found without making
# any move: the cuckoo tables of Stockfish's has_game_cycle (Marcel van Kervinck's method).
#
# Between a position and one an odd number of plies earlier, with no capture or pawn move
# between, the keys differ by exactly one piece's move (two squares of one piece, and the side
# to move) when one move leads back. Every such key of a knight, bishop, rook, queen or king
# moving between two squares it attacks on an empty board is in a cuckoo hash table of 8,192
# slots (3,668 keys), with the move; a position looks up the difference to each earlier
# position of the same side to move in two slots.

cdef enum:
    CUCKOO_SLOTS = 8192
    CUCKOO_KEYS = 3668          # knight 2x168, bishop 2x280, rook 2x448, queen 2x728, king 2x210

cdef Bitboard CUCKOO_KEY[CUCKOO_SLOTS]   # 0: an empty slot
cdef unsigned char CUCKOO_FROM[CUCKOO_SLOTS]
cdef unsigned char CUCKOO_TO[CUCKOO_SLOTS]


cdef inline int cuckoo_first(Bitboard key) noexcept nogil:
    return <int>(key & (CUCKOO_SLOTS - 1))


cdef inline int cuckoo_second(Bitboard key) noexcept nogil:
    return <int>((key >> 16) & (CUCKOO_SLOTS - 1))


cdef Bitboard empty_board_attacks(int piece_type, int sq) noexcept nogil:
    if piece_type == KNIGHT:
        return KNIGHT_ATTACKS[sq]
    if piece_type == BISHOP:
        return bishop_attacks(sq, 0)
    if piece_type == ROOK:
        return rook_attacks(sq, 0)
    if piece_type == QUEEN:
        return queen_attacks(sq, 0)
    return KING_ATTACKS[sq]


def _fill_cuckoo_tables() -> None:
    cdef int colour, piece_type, s1, s2, slot, count = 0
    cdef Bitboard key, swap_key
    cdef unsigned char from_sq, to_sq, swap_sq
    for slot in range(CUCKOO_SLOTS):
        CUCKOO_KEY[slot] = 0
        CUCKOO_FROM[slot] = 0
        CUCKOO_TO[slot] = 0
    for colour in range(2):
        for piece_type in range(KNIGHT, KING + 1):
            for s1 in range(64):
                for s2 in range(s1 + 1, 64):
                    if not (empty_board_attacks(piece_type, s1) & square_bb(s2)):
                        continue
                    key = Z_PSQ[colour * 8 + piece_type][s1] ^ Z_PSQ[colour * 8 + piece_type][s2] ^ Z_TURN
                    from_sq, to_sq = s1, s2
                    slot = cuckoo_first(key)
                    while True:   # cuckoo insertion: take the slot, move its key to its other slot
                        swap_key, CUCKOO_KEY[slot] = CUCKOO_KEY[slot], key
                        key = swap_key
                        swap_sq, CUCKOO_FROM[slot] = CUCKOO_FROM[slot], from_sq
                        from_sq = swap_sq
                        swap_sq, CUCKOO_TO[slot] = CUCKOO_TO[slot], to_sq
                        to_sq = swap_sq
                        if key == 0:
                            break
                        slot = cuckoo_second(key) if slot == cuckoo_first(key) else cuckoo_first(key)
                    count += 1
    if count != CUCKOO_KEYS:
        raise ImportError(f"upcoming_repetition.pxi: {count} cuckoo keys, {CUCKOO_KEYS} expected")


_fill_cuckoo_tables()


cdef int upcoming_repetition_move(Position* pos) noexcept nogil:
    """A move (from | to << 6) of the side to move that leads to a position seen before since
    the last capture, pawn move or null move, or -1. Only the move's path is checked, not that it
    is legal (a pinned piece, a king in check), as in Stockfish."""
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef int end = st.halfmove if st.halfmove < pos.ply else pos.ply   # no history before states[0]
    cdef int i, slot, s1, s2, piece
    cdef Bitboard move_key
    cdef Bitboard occupied = pos.pieces[WHITE][0] | pos.pieces[BLACK][0]
    for i in range(3, end + 1, 2):
        move_key = st.key ^ pos.states[pos.ply - i].key
        slot = cuckoo_first(move_key)
        if CUCKOO_KEY[slot] != move_key:
            slot = cuckoo_second(move_key)
            if CUCKOO_KEY[slot] != move_key:
                continue
        s1 = CUCKOO_FROM[slot]
        s2 = CUCKOO_TO[slot]
        if BETWEEN[s1][s2] & occupied:
            continue
        # The table holds a move both ways (a1-c3 and c3-a1): the piece stands on one square.
        piece = pos.board[s1] if pos.board[s1] else pos.board[s2]
        if piece >> 3 != pos.side:
            continue   # the other side's piece: it moved there, and cannot move back now
        return s1 | s2 << 6 if pos.board[s1] else s2 | s1 << 6
    return -1
