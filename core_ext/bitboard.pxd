# Shared C-level types, constants and attack tables of the core.
# Squares are a1=0 .. h8=63; a move is a packed 32-bit integer (see below).
from libc.stdint cimport uint64_t, uint32_t, int32_t

ctypedef uint64_t Bitboard
ctypedef uint32_t Move

cdef extern from *:
    """
    #define PONDEROSA_POPCOUNT(b) __builtin_popcountll(b)
    #define PONDEROSA_LSB(b) __builtin_ctzll(b)
    #define PONDEROSA_MSB(b) (63 - __builtin_clzll(b))
    #define FILE_A_BB 0x0101010101010101ULL
    #define FILE_H_BB 0x8080808080808080ULL
    #define RANK_1_BB 0xFFULL
    #define RANK_2_BB 0xFF00ULL
    #define RANK_3_BB 0xFF0000ULL
    #define RANK_6_BB 0xFF0000000000ULL
    #define RANK_7_BB 0xFF000000000000ULL
    #define RANK_8_BB 0xFF00000000000000ULL
    """
    const uint64_t FILE_A_BB
    const uint64_t FILE_H_BB
    const uint64_t RANK_1_BB
    const uint64_t RANK_2_BB
    const uint64_t RANK_3_BB
    const uint64_t RANK_6_BB
    const uint64_t RANK_7_BB
    const uint64_t RANK_8_BB
    int PONDEROSA_POPCOUNT(uint64_t b) noexcept nogil
    int PONDEROSA_LSB(uint64_t b) noexcept nogil
    int PONDEROSA_MSB(uint64_t b) noexcept nogil

cdef enum:  # Color
    WHITE = 0
    BLACK = 1

# Piece types; a piece code is color * 8 + type, 0 is an empty square.
cdef enum:  # PieceType
    NO_PIECE = 0
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6

cdef enum:
    NO_SQUARE = 64
    MAX_MOVES = 256

# Move layout: bits 0-5 from, 6-11 to, 12-14 flag; bits 16+ are free for ordering scores.
cdef enum:  # MoveFlag
    FLAG_NORMAL = 0
    FLAG_DOUBLE_PUSH = 1
    FLAG_CASTLE = 2
    FLAG_EN_PASSANT = 3
    FLAG_PROMO_KNIGHT = 4   # promotion flags are 2 + the promoted piece type
    FLAG_PROMO_BISHOP = 5
    FLAG_PROMO_ROOK = 6
    FLAG_PROMO_QUEEN = 7

# Castling-right bits, in Polyglot's key order.
cdef enum:  # CastlingRight
    WHITE_OO = 1
    WHITE_OOO = 2
    BLACK_OO = 4
    BLACK_OOO = 8

cdef struct Magic:
    Bitboard mask        # relevant occupancy squares
    Bitboard magic       # multiplier
    Bitboard* attacks    # this square's slice of the shared table
    int shift            # 64 - popcount(mask)

cdef Magic ROOK_MAGICS[64]
cdef Magic BISHOP_MAGICS[64]
cdef Bitboard KNIGHT_ATTACKS[64]
cdef Bitboard KING_ATTACKS[64]
cdef Bitboard PAWN_ATTACKS[2][64]     # squares a pawn of that colour on the square attacks
cdef Bitboard BETWEEN[64][64]         # squares strictly between two aligned squares
cdef Bitboard LINE[64][64]            # whole line through two aligned squares, else 0
cdef Bitboard ROOK_PSEUDO[64]         # rook attacks on an empty board
cdef Bitboard BISHOP_PSEUDO[64]

cdef inline Bitboard square_bb(int sq) noexcept nogil:
    return (<Bitboard>1) << sq

cdef inline int popcount(Bitboard b) noexcept nogil:
    return PONDEROSA_POPCOUNT(b)

cdef inline int lsb(Bitboard b) noexcept nogil:
    return PONDEROSA_LSB(b)

cdef inline int msb(Bitboard b) noexcept nogil:
    return PONDEROSA_MSB(b)

cdef inline bint more_than_one(Bitboard b) noexcept nogil:
    return (b & (b - 1)) != 0

cdef inline Bitboard rook_attacks(int sq, Bitboard occ) noexcept nogil:
    cdef Magic* m = &ROOK_MAGICS[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline Bitboard bishop_attacks(int sq, Bitboard occ) noexcept nogil:
    cdef Magic* m = &BISHOP_MAGICS[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline Bitboard queen_attacks(int sq, Bitboard occ) noexcept nogil:
    return rook_attacks(sq, occ) | bishop_attacks(sq, occ)

cdef inline int move_from(Move m) noexcept nogil:
    return m & 63

cdef inline int move_to(Move m) noexcept nogil:
    return (m >> 6) & 63

cdef inline int move_flag(Move m) noexcept nogil:
    return (m >> 12) & 7

cdef inline Move make_move_code(int frm, int to, int flag) noexcept nogil:
    return <Move>(frm | (to << 6) | (flag << 12))

cdef inline int square_file(int sq) noexcept nogil:
    return sq & 7

cdef inline int square_rank(int sq) noexcept nogil:
    return sq >> 3
