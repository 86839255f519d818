# The position: piece bitboards, a mailbox, and a stack of undo records.
from ponderosa.core_ext.bitboard cimport (
    Bitboard, Move, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, WHITE,
    FLAG_CASTLE, FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT,
    KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS, rook_attacks, bishop_attacks, lsb, square_bb,
    move_from, move_to, move_flag,
)

cdef enum:
    MAX_STATES = 4096   # plies of history one Position can hold (game plus search)

cdef struct StateInfo:
    Bitboard key          # Polyglot Zobrist key of the position
    Bitboard pawn_key     # Zobrist key of the pawns alone
    Move move             # the move that led to this position (0 at the root)
    int castling          # castling-right bits
    int ep_square         # en-passant target, NO_SQUARE unless a pawn can capture there
    int halfmove          # plies since the last capture or pawn move
    int captured          # piece code captured by `move`, 0 if none

cdef struct Position:
    Bitboard pieces[2][7] # [colour][type]; type 0 holds all of that colour's pieces
    signed char board[64] # piece code per square, 0 if empty
    int side              # colour to move
    int ply               # index of the current StateInfo
    int fullmove_base     # fullmove number at states[0]
    StateInfo states[MAX_STATES]

cdef void clear_position(Position* pos) noexcept nogil
cdef void put_piece(Position* pos, int sq, int piece) noexcept nogil
cdef void do_move(Position* pos, Move m) noexcept nogil
cdef void undo_move(Position* pos) noexcept nogil
cdef void do_null_move(Position* pos) noexcept nogil
cdef void undo_null_move(Position* pos) noexcept nogil
cdef void compute_keys(Position* pos) noexcept nogil
cdef void drop_old_history(Position* pos, int keep) noexcept nogil
cdef int set_fen(Position* pos, str fen) except -1
cdef str get_fen(Position* pos, bint legal_ep)
cdef str move_to_uci(Move m)

cdef inline StateInfo* state(Position* pos) noexcept nogil:
    return &pos.states[pos.ply]

cdef inline Bitboard occupied(Position* pos) noexcept nogil:
    return pos.pieces[0][0] | pos.pieces[1][0]

cdef inline int king_square(Position* pos, int colour) noexcept nogil:
    return lsb(pos.pieces[colour][KING])

cdef inline Bitboard attackers_to(Position* pos, int sq, Bitboard occ) noexcept nogil:
    """Pieces of both colours that attack sq, with occ as the blockers."""
    cdef Bitboard rq = pos.pieces[0][ROOK] | pos.pieces[0][QUEEN] | pos.pieces[1][ROOK] | pos.pieces[1][QUEEN]
    cdef Bitboard bq = pos.pieces[0][BISHOP] | pos.pieces[0][QUEEN] | pos.pieces[1][BISHOP] | pos.pieces[1][QUEEN]
    return ((PAWN_ATTACKS[1][sq] & pos.pieces[0][PAWN])
            | (PAWN_ATTACKS[0][sq] & pos.pieces[1][PAWN])
            | (KNIGHT_ATTACKS[sq] & (pos.pieces[0][KNIGHT] | pos.pieces[1][KNIGHT]))
            | (KING_ATTACKS[sq] & (pos.pieces[0][KING] | pos.pieces[1][KING]))
            | (rook_attacks(sq, occ) & rq)
            | (bishop_attacks(sq, occ) & bq))

cdef inline bint square_attacked(Position* pos, int sq, int by, Bitboard occ) noexcept nogil:
    """Whether colour `by` attacks sq, with occ as the blockers."""
    return ((PAWN_ATTACKS[by ^ 1][sq] & pos.pieces[by][PAWN])
            or (KNIGHT_ATTACKS[sq] & pos.pieces[by][KNIGHT])
            or (KING_ATTACKS[sq] & pos.pieces[by][KING])
            or (bishop_attacks(sq, occ) & (pos.pieces[by][BISHOP] | pos.pieces[by][QUEEN]))
            or (rook_attacks(sq, occ) & (pos.pieces[by][ROOK] | pos.pieces[by][QUEEN])))

cdef inline bint in_check(Position* pos) noexcept nogil:
    return square_attacked(pos, king_square(pos, pos.side), pos.side ^ 1, occupied(pos))


cdef inline bint gives_check(Position* pos, Move m) noexcept nogil:
    """Whether the legal move m checks the opponent, directly or by discovery, decided without
    making it (so that the search can prune before paying for do_move)."""
    cdef int frm = move_from(m), to = move_to(m), flag = move_flag(m), us = pos.side
    cdef int ksq = king_square(pos, us ^ 1), moved = pos.board[frm] & 7, rook_to
    cdef Bitboard king = square_bb(ksq), occ = (occupied(pos) ^ square_bb(frm)) | square_bb(to), ours
    if flag == FLAG_CASTLE:
        # Only the rook can check; standard chess: it lands between the king's two squares.
        rook_to = (frm + to) // 2
        occ ^= square_bb(to + 1 if to > frm else to - 2)
        occ |= square_bb(rook_to)
        return (rook_attacks(rook_to, occ) & king) != 0
    if flag == FLAG_EN_PASSANT:
        occ ^= square_bb(to - 8 if us == WHITE else to + 8)
    elif flag >= FLAG_PROMO_KNIGHT:
        moved = flag - 2
    if moved == PAWN:
        if PAWN_ATTACKS[us][to] & king:
            return True
    elif moved == KNIGHT:
        if KNIGHT_ATTACKS[to] & king:
            return True
    if (moved == BISHOP or moved == QUEEN) and bishop_attacks(to, occ) & king:
        return True
    if (moved == ROOK or moved == QUEEN) and rook_attacks(to, occ) & king:
        return True
    # Discovered: one of our other sliders now sees the king (a captured piece is no blocker,
    # and it is not ours, so it need not be taken out of our pieces).
    ours = ~square_bb(frm)
    if bishop_attacks(ksq, occ) & (pos.pieces[us][BISHOP] | pos.pieces[us][QUEEN]) & ours:
        return True
    return (rook_attacks(ksq, occ) & (pos.pieces[us][ROOK] | pos.pieces[us][QUEEN]) & ours) != 0
