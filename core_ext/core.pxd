# The C-level interface of the core: every type, constant, table and function of the hot path,
# declared once. core.pyx defines them all in one extension module (one C file), so that the C
# compiler sees the search, evaluation, move generation and make/unmake together and can inline
# across them. Squares are a1=0 .. h8=63; a move is a packed 32-bit integer (see below).
from libc.stdint cimport uint64_t, uint32_t, int32_t, int64_t, uint16_t, int16_t, uint8_t

# ---------------------------------------------------------------- bitboards (bitboard_tables.pxi)

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
    #define FILE_INDEX_MULTIPLIER 0x0004081020408000ULL
    """
    const uint64_t FILE_A_BB
    const uint64_t FILE_H_BB
    const uint64_t RANK_1_BB
    const uint64_t RANK_2_BB
    const uint64_t RANK_3_BB
    const uint64_t RANK_6_BB
    const uint64_t RANK_7_BB
    const uint64_t RANK_8_BB
    const uint64_t FILE_INDEX_MULTIPLIER   # moves a2..a7 to bits 58..63: every partial product on a bit of its own, no carries
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

cdef uint8_t ROOK_RANK_ATTACKS[8][64]    # by file: a rook's squares on the first rank, by the inner six squares' occupancy
cdef Bitboard ROOK_FILE_ATTACKS[8][64]   # by rank: a rook's squares on the a-file, by the file index below
cdef inline int rook_file_index(Bitboard a_file_occupancy) noexcept nogil:
    """The a-file's inner six squares (a2..a7) as a number 0..63."""
    return <int>(((a_file_occupancy & FILE_A_BB) * FILE_INDEX_MULTIPLIER) >> 58)

cdef inline Bitboard rook_attacks(int sq, Bitboard occ) noexcept nogil:
    """Rank and file looked up apart (kindergarten bitboards): 4.5 KB of tables that stay in the
    first-level cache, where one magic table for the rook is 800 KB and its lookups missed."""
    cdef int file = sq & 7, rank8 = sq & 56
    return ((<Bitboard>ROOK_RANK_ATTACKS[file][(occ >> (rank8 + 1)) & 63]) << rank8) \
        | (ROOK_FILE_ATTACKS[rank8 >> 3][rook_file_index(occ >> file)] << file)

cdef inline Bitboard bishop_attacks(int sq, Bitboard occ) noexcept nogil:
    cdef Magic* m = &BISHOP_MAGICS[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline Bitboard queen_attacks(int sq, Bitboard occ) noexcept nogil:
    return rook_attacks(sq, occ) | bishop_attacks(sq, occ)

# A slider lookup costs a table load (the bishop's magic table is 41 KB and often out of the first
# cache) or, for the rook, a dozen instructions: where no slider of the kind asked about stands on
# sq's lines, the answer is known empty.
cdef inline Bitboard rook_attackers(int sq, Bitboard occ, Bitboard sliders) noexcept nogil:
    """rook_attacks(sq, occ) & sliders, without the table when no slider is on sq's rank or file."""
    if not (ROOK_PSEUDO[sq] & sliders):
        return 0
    return rook_attacks(sq, occ) & sliders

cdef inline Bitboard bishop_attackers(int sq, Bitboard occ, Bitboard sliders) noexcept nogil:
    """bishop_attacks(sq, occ) & sliders, without the table when no slider is on sq's diagonals."""
    if not (BISHOP_PSEUDO[sq] & sliders):
        return 0
    return bishop_attacks(sq, occ) & sliders

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

# ---------------------------------------------------------------- Zobrist keys (zobrist_keys.pxi)
# The Polyglot random numbers, so a position's key is its Polyglot book key.

cdef Bitboard Z_PSQ[16][64]      # by piece code (colour * 8 + type) and square
cdef Bitboard Z_CASTLING[16]     # by castling-rights mask, pre-combined
cdef Bitboard Z_EP[8]            # by en-passant file
cdef Bitboard Z_TURN              # toggled every move; present when White is to move

# ---------------------------------------------------------------- the position (position.pxi)
# Piece bitboards, a mailbox, and a stack of undo records.

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
    int moved             # piece code that made `move` (the pawn of a promotion); the network's update reads it

cdef struct Position:
    Bitboard pieces[2][7] # [colour][type]; type 0 holds all of that colour's pieces
    signed char board[64] # piece code per square, 0 if empty
    int side              # colour to move
    int ply               # index of the current StateInfo
    int fullmove_base     # fullmove number at states[0]
    # Castling, fixed for a game: the rook square of each right (indexed by the right's bit
    # number: WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO) and the rights a move from or to each
    # square keeps. In standard chess the rooks start on a1/h1/a8/h8; in Chess960 anywhere.
    signed char castle_rook[4]
    int castle_mask[64]
    bint chess960         # castling written king-takes-rook (e1h1), FEN rights in X-FEN
    StateInfo states[MAX_STATES]

cdef void clear_position(Position* pos) noexcept nogil
cdef void put_piece(Position* pos, int sq, int piece) noexcept nogil
cdef void do_move(Position* pos, Move m) noexcept nogil
cdef void undo_move(Position* pos) noexcept nogil
cdef void do_null_move(Position* pos) noexcept nogil
cdef void undo_null_move(Position* pos) noexcept nogil
cdef void compute_keys(Position* pos) noexcept nogil
cdef void drop_old_history(Position* pos, int keep) noexcept nogil
cdef int set_fen(Position* pos, str fen, bint chess960) except -1
cdef str get_fen(Position* pos, bint legal_ep, bint shredder)
cdef str move_to_uci(Position* pos, Move m)

cdef inline int castle_index(int colour, int king_to) noexcept nogil:
    """Bit number of the castling right a castling move uses: the king ends on the g-file for
    the short side, on the c-file for the long one, wherever it started (Chess960)."""
    return 2 * colour + (0 if (king_to & 7) == 6 else 1)

cdef inline void castle_rook_squares(Position* pos, int colour, int king_to, int* rook_from, int* rook_to) noexcept nogil:
    """Where the rook of a castling move starts and ends (f- or d-file of the back rank)."""
    rook_from[0] = pos.castle_rook[castle_index(colour, king_to)]
    rook_to[0] = (king_to & 56) + (5 if (king_to & 7) == 6 else 3)

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
            | rook_attackers(sq, occ, rq)
            | bishop_attackers(sq, occ, bq))

cdef inline Bitboard lone_blockers(int ksq, Bitboard snipers, Bitboard candidates, Bitboard occ) noexcept nogil:
    """The candidates that stand alone between ksq and one of the snipers (sliders on ksq's lines):
    pinned pieces when the snipers are the enemy's, discovered-check pieces when they are ours."""
    cdef Bitboard found = 0, blockers
    while snipers:
        blockers = BETWEEN[ksq][lsb(snipers)] & occ
        if blockers and not more_than_one(blockers) and (blockers & candidates):
            found |= blockers
        snipers &= snipers - 1
    return found

cdef inline bint square_attacked(Position* pos, int sq, int by, Bitboard occ) noexcept nogil:
    """Whether colour `by` attacks sq, with occ as the blockers."""
    return ((PAWN_ATTACKS[by ^ 1][sq] & pos.pieces[by][PAWN])
            or (KNIGHT_ATTACKS[sq] & pos.pieces[by][KNIGHT])
            or (KING_ATTACKS[sq] & pos.pieces[by][KING])
            or bishop_attackers(sq, occ, pos.pieces[by][BISHOP] | pos.pieces[by][QUEEN])
            or rook_attackers(sq, occ, pos.pieces[by][ROOK] | pos.pieces[by][QUEEN]))

cdef inline bint in_check(Position* pos) noexcept nogil:
    return square_attacked(pos, king_square(pos, pos.side), pos.side ^ 1, occupied(pos))


cdef inline bint gives_check(Position* pos, Move m) noexcept nogil:
    """Whether the legal move m checks the opponent, directly or by discovery, decided without
    making it (so that the search can prune before paying for do_move)."""
    cdef int frm = move_from(m), to = move_to(m), flag = move_flag(m), us = pos.side
    cdef int ksq = king_square(pos, us ^ 1), moved = pos.board[frm] & 7, rook_from, rook_to
    cdef Bitboard king = square_bb(ksq), occ = (occupied(pos) ^ square_bb(frm)) | square_bb(to), ours
    if flag == FLAG_CASTLE:
        # Only the rook can check (the king cannot reach the other king). In Chess960 the
        # king may land where its rook stood, so the rook leaves before both land.
        castle_rook_squares(pos, us, to, &rook_from, &rook_to)
        occ = (occupied(pos) ^ square_bb(frm) ^ square_bb(rook_from)) | square_bb(to) | square_bb(rook_to)
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
    if bishop_attackers(ksq, occ, (pos.pieces[us][BISHOP] | pos.pieces[us][QUEEN]) & ours):
        return True
    return rook_attackers(ksq, occ, (pos.pieces[us][ROOK] | pos.pieces[us][QUEEN]) & ours) != 0

cdef struct CheckInfo:           # what decides, for every move of one position, whether it gives check
    Bitboard squares[8]          # by piece type: where a piece of the side to move attacks the enemy king
    Bitboard discoverers         # the side to move's pieces that alone block one of its sliders' lines to that king
    int ksq                      # the enemy king's square

cdef inline void init_check_info(Position* pos, CheckInfo* ci) noexcept nogil:
    """Fill ci for pos: two slider lookups and the discovered-check blockers, once per node
    instead of at every gives_check."""
    cdef int us = pos.side, them = us ^ 1
    cdef int ksq = king_square(pos, them)
    cdef Bitboard occ = occupied(pos)
    cdef Bitboard snipers = ((ROOK_PSEUDO[ksq] & (pos.pieces[us][ROOK] | pos.pieces[us][QUEEN]))
                             | (BISHOP_PSEUDO[ksq] & (pos.pieces[us][BISHOP] | pos.pieces[us][QUEEN])))
    ci.ksq = ksq
    ci.squares[0] = 0
    ci.squares[PAWN] = PAWN_ATTACKS[them][ksq]   # a pawn of ours there attacks ksq
    ci.squares[KNIGHT] = KNIGHT_ATTACKS[ksq]
    # (only a bishop or queen of ours can use the diagonal squares, a rook or queen the others)
    ci.squares[BISHOP] = bishop_attacks(ksq, occ) if pos.pieces[us][BISHOP] | pos.pieces[us][QUEEN] else 0
    ci.squares[ROOK] = rook_attacks(ksq, occ) if pos.pieces[us][ROOK] | pos.pieces[us][QUEEN] else 0
    ci.squares[QUEEN] = ci.squares[BISHOP] | ci.squares[ROOK]
    ci.squares[KING] = 0
    ci.squares[7] = 0
    ci.discoverers = lone_blockers(ksq, snipers, pos.pieces[us][0], occ)

cdef inline bint gives_check_by(Position* pos, Move m, CheckInfo* ci) noexcept nogil:
    """gives_check(pos, m) from pos's CheckInfo. The squares were computed with the moving piece
    still on its square; that matters only if it stood between its destination and the king on
    a line it moves along, and then it would already be giving check, which the side to move
    never does. Castling, en passant and promotions take the full test."""
    cdef int frm = move_from(m), to = move_to(m), flag = move_flag(m)
    if flag == FLAG_CASTLE or flag == FLAG_EN_PASSANT or flag >= FLAG_PROMO_KNIGHT:
        return gives_check(pos, m)
    if ci.squares[pos.board[frm] & 7] & square_bb(to):
        return True
    # Discovered: a blocker that leaves its line (a capture of the slider itself stays on it).
    return (ci.discoverers & square_bb(frm)) != 0 and (LINE[ci.ksq][frm] & square_bb(to)) == 0

# ---------------------------------------------------------------- moves, perft, exchanges
# movegen.pxi, perft.pxi, see.pxi

cdef int generate_legal(Position* pos, Move* moves) noexcept nogil
cdef int generate_noisy(Position* pos, Move* moves) noexcept nogil
cdef int count_legal(Position* pos) noexcept nogil            # len(generate_legal), without the list
cdef uint64_t perft(Position* pos, int depth) noexcept nogil   # leaf nodes of the legal move tree

cdef int SEE_VALUE[7]     # by piece type: 0, P, N, B, R, Q, K
cdef int see(Position* pos, Move m) noexcept nogil

# ---------------------------------------------------------------- the Python-facing Board (board.pxi)

cdef class Board:
    cdef Position* pos
    cdef unsigned int find_move(self, str uci) except? 0

# ---------------------------------------------------------------- static evaluation (eval_*.pxi)
# Tapered, named, scalable terms and a pawn-structure hash table.

cdef enum:
    EVAL_LIMIT = 9000        # |evaluate()| never exceeds this (mate scores can stay above it)
    PHASE_MAX = 24           # phase of the full set of pieces: N,B = 1, R = 2, Q = 4
    SCALE_NORMAL = 64        # endgame scale factor meaning "no scaling"

# Named terms, in the order the breakdown lists them.
cdef enum:  # Term
    T_MATERIAL = 0
    T_PSQT = 1
    T_PAWNS = 2              # pawn structure (pscale)
    T_BLOCKED = 3            # pawns that cannot advance (bscale)
    T_PASSED = 4             # passed pawns (ppscale)
    T_MOBILITY = 5
    T_KING = 6               # king safety (kscale, asymmetry)
    T_TROPISM = 7            # closeness of pieces to the enemy king (tropism)
    T_ROOKS = 8
    T_BISHOP_PAIR = 9
    T_OUTPOSTS = 10
    T_TRAPPED = 11
    T_ENDGAME = 12
    T_THREATS = 13           # enemy pieces and pawns attacked by lesser or undefended
    T_TEMPO = 14
    N_TERMS = 15

cdef struct PawnEntry:
    Bitboard key                  # pawn_key of the pawn set this entry describes
    Bitboard passed[2]            # passed pawns per colour
    Bitboard attacks[2]           # squares attacked by the colour's pawns
    Bitboard span[2]              # squares the colour's pawns attack now or after advancing
    short structure_mg[2]         # isolated/doubled/backward/connected, unscaled
    short structure_eg[2]
    short rams_mg[2]              # pawns blocked by an enemy pawn, unscaled (part of T_BLOCKED; opening only)
    short shelter[2]              # king_shelter of the colour's king, for the shelter_key below
    unsigned char half_open[2]    # bit f set: no pawn of the colour on file f
    unsigned char shelter_key[2]  # king square | castling rights used << 6; NO_SHELTER: not known yet
    unsigned char filled          # 1 once the entry has been written

cdef enum:
    NO_SHELTER = 0xFF        # a shelter_key no king has: rights are used only on the home square

cdef struct EvalCacheEntry:
    uint64_t key                  # the position's key mixed with the evaluation settings; 0: empty
    int score                     # evaluate_terms' score, White's view

# ---------------------------------------------------------------- the neural evaluation (nnue_*.pxi)
# 768 piece-square inputs per perspective and king bucket -> NNUE_HIDDEN accumulator neurons (int16,
# updated incrementally) -> both perspectives, side to move first, through a squared clipped ReLU
# -> one output of the position's bucket (by its number of pieces; a network has 1 to
# NNUE_MAX_BUCKETS). A perspective's inputs are those of its own king's bucket, the board mirrored
# left to right when the network says so for that king square (1 to NNUE_MAX_KING_BUCKETS sets).
# The integers follow the float network: accumulator x NNUE_QA, output weights x NNUE_QB.

cdef extern from "nnue_kernels.h":
    enum: NNUE_HIDDEN "PONDEROSA_NNUE_HIDDEN"   # the first layer's width, set by the build (256 unless told)

cdef enum:
    NNUE_INPUTS = 768        # colour relative to the perspective (2) x piece type (6) x square (64), per king bucket
    NNUE_QA = 255            # accumulator quantisation: 1.0 in the float network is 255
    NNUE_QB = 64             # output-weight quantisation
    NNUE_SCALE = 400         # the float output times this is centipawns
    NNUE_NARROW_WEIGHT = 128 # output weights this small let the output layer multiply in int16 (QA x 128 < 2^15)
    NNUE_MAX_WALK = 16       # moves replayed onto an older accumulator before a full refresh instead
    NNUE_MAX_BUCKETS = 8     # output buckets at most (ponderosa.engine.nnue.network_file.MAX_BUCKETS)
    NNUE_MAX_KING_BUCKETS = 16   # king buckets at most (network_file.MAX_KING_BUCKETS)
    NNUE_KING_SLOTS = 2 * NNUE_MAX_KING_BUCKETS   # a king bucket, mirrored or not: one refresh cache entry each

cdef struct NNUENetwork:
    int16_t* ft_weights            # king_buckets x NNUE_INPUTS columns: by feature, then neuron (a column is contiguous)
    int16_t ft_bias[NNUE_HIDDEN]
    int16_t out_weights[NNUE_MAX_BUCKETS * 2 * NNUE_HIDDEN]   # by bucket, each side to move's half first
    int32_t out_bias[NNUE_MAX_BUCKETS]
    int buckets                                    # output buckets in use (1..NNUE_MAX_BUCKETS)
    int king_buckets                               # sets of first-layer inputs (1..NNUE_MAX_KING_BUCKETS)
    uint8_t king_bucket[64]                        # by the perspective's own king square, seen from its side
    bint king_mirror                               # a king on files e-h mirrors the board left to right
    uint64_t serial                                # tells this network's accumulators from another's
    bint narrow_output                             # every output weight within +-NNUE_NARROW_WEIGHT

cdef struct NNUEAccumulator:
    int16_t values[2][NNUE_HIDDEN]   # by perspective (WHITE, BLACK)
    uint64_t key                     # key of the position these values belong to XOR the network's serial

cdef struct NNUERefreshEntry:
    int16_t values[NNUE_HIDDEN]      # one perspective's accumulator of the pieces below, in one king slot
    Bitboard pieces[2][7]            # [colour][type] of the last position refreshed through here

cdef struct NNUERefreshCache:
    NNUERefreshEntry entries[2][NNUE_KING_SLOTS]   # by perspective, then king bucket x 2 + mirrored
    uint64_t serial                  # the network the values belong to; 0: nothing cached yet

cdef class Network:                  # one network's weights (nnue_network.pxi); Evaluator.network
    cdef NNUENetwork* net            # malloc'd, freed with the object

cdef int nnue_evaluate(NNUENetwork* net, Position* pos, NNUEAccumulator* stack,
                       NNUERefreshCache* cache) noexcept nogil   # side to move's view

cdef struct EvalState:
    NNUENetwork* net              # the network this state evaluates with, or NULL: the hand-written evaluation
    NNUEAccumulator* accumulators # by position ply (MAX_STATES), made at the first network evaluation
    NNUERefreshCache* refresh_cache   # made with the accumulators: refreshes start from the last one
    PawnEntry* pawn_table         # malloc'd, power-of-two number of entries
    unsigned long pawn_mask       # entries - 1
    EvalCacheEntry* eval_cache    # the search's evaluations by position (one EvalState per thread)
    unsigned long eval_cache_mask
    int asymmetry                 # percent added to the opponent's king safety (0 = symmetric)
    int bscale                    # blocked pawns, percent (100 = normal)
    int kscale                    # king safety, percent
    int tropism                   # king tropism, percent
    int pscale                    # pawn structure, percent
    int ppscale                   # passed pawns, percent
    int engine_side               # colour the engine plays (for asymmetry); set by the search
    unsigned long pawn_probes     # statistics: pawn-table probes and hits
    unsigned long pawn_hits

cdef struct EvalTerms:
    int mg[N_TERMS][2]            # [term][colour], after scaling, from that colour's view
    int eg[N_TERMS][2]
    int phase                     # 0 (bare kings and pawns) .. PHASE_MAX
    int scale                     # scale factor of the endgame part, 0 (dead draw) .. SCALE_NORMAL
    int unscaled                  # tapered total from White's view before the scale factor
    int score                     # final score from White's view

cdef enum:  # the sums of ScoreSums (eval_terms.pxi): one per scaled term, one for all the others
    S_UNSCALED = 0
    S_PAWNS = 1              # T_PAWNS, by pscale
    S_BLOCKED = 2            # T_BLOCKED, by bscale
    S_PASSED = 3             # T_PASSED, by ppscale
    S_TROPISM = 4            # T_TROPISM, by tropism
    S_KING = 5               # T_KING, by kscale and asymmetry
    N_SUMS = 6

cdef int evaluate(Position* pos, EvalState* ev) noexcept nogil
cdef int evaluate_terms(Position* pos, EvalState* ev, EvalTerms* terms) noexcept nogil
cdef int eval_state_init(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil   # defaults + table; -1 if no memory
cdef int resize_pawn_table(EvalState* ev, size_t pawn_hash_bytes) noexcept nogil
cdef void eval_state_clear(EvalState* ev) noexcept nogil
cdef void eval_state_free(EvalState* ev) noexcept nogil

cdef class Evaluator:
    cdef EvalState state
    cdef Network network_owner       # keeps state.net's memory while it is in use
    cdef list used_networks          # every network it was given: a search may still read a replaced one

# ---------------------------------------------------------------- transposition table (transposition_table.pxi)
# 4-entry buckets of 16-byte entries, replaced by depth and age. Several search threads share it
# without locks: each slot keeps key XOR data beside the data, so a slot torn by two threads
# writing at once fails the key check and reads as a miss.

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1      # score <= value (failed low)
    BOUND_LOWER = 2      # score >= value (failed high)
    BOUND_EXACT = 3
    TT_PV = 4            # with the bound in tt_store and gen_bound: the node is or was on a principal variation
    BUCKET_SIZE = 4
    EVAL_NONE = -32768   # static_eval of an entry whose evaluation is not known

cdef struct TTEntry:       # one entry as the search reads it: a private copy, never the slot itself
    uint64_t key
    uint16_t move         # low 16 bits of the packed move
    int16_t score         # mate scores stored relative to this node
    int16_t static_eval
    uint8_t depth         # in plies; 0 = quiescence
    uint8_t gen_bound     # generation (5 bits) << 3 | TT_PV | bound

cdef struct TTSlot:        # one entry as the table holds it; each word is read and written whole
    uint64_t check        # key XOR data
    uint64_t data         # the eight bytes after TTEntry.key, packed

cdef struct TTable:
    TTSlot* entries
    uint64_t bucket_mask  # buckets - 1
    uint64_t salt         # keys are stored XOR salt: a new salt empties the table in O(1)
    uint64_t clears       # how many times the table was emptied by a new salt
    uint8_t generation

cdef TTEntry* tt_probe(TTable* tt, uint64_t key, TTEntry* copy) noexcept nogil   # copy, or NULL on a miss

cdef extern from *:
    """
    #define PONDEROSA_PREFETCH(p) __builtin_prefetch(p)
    """
    void PONDEROSA_PREFETCH(void* p) noexcept nogil

cdef inline void tt_prefetch(TTable* tt, uint64_t key) noexcept nogil:
    """Start loading the bucket of key into the cache while other work goes on."""
    PONDEROSA_PREFETCH(&tt.entries[(key & tt.bucket_mask) * BUCKET_SIZE])
cdef void tt_store(TTable* tt, uint64_t key, int move, int score, int static_eval, int depth, int bound) noexcept nogil

cdef class TranspositionTable:
    cdef TTable table
    cdef size_t size_bytes
    cdef void* mapping         # the whole anonymous mapping (table plus alignment slack)
    cdef size_t mapping_bytes

# ---------------------------------------------------------------- Syzygy tablebases (syzygy_*.pxi)
# WDL (.rtbw) and DTZ (.rtbz) probes callable without the GIL.

cdef enum:
    TB_MAX_PIECES = 7      # the format's largest class (7-piece tables)
    TB_LOSS = -2           # WDL values, from the side to move
    TB_BLESSED_LOSS = -1   # lost, but drawn by the fifty-move rule
    TB_DRAW = 0
    TB_CURSED_WIN = 1      # won, but drawn by the fifty-move rule
    TB_WIN = 2

cdef int TB_LARGEST        # most pieces of any WDL table registered (0: no tables)

# Both return the value and set success[0] to 1, or set it to 0 when a table is missing,
# unusable (corrupt) or the position has castling rights. Thread-safe; tables open lazily.
cdef int tb_probe_wdl(Position* pos, int* success) noexcept nogil
cdef int tb_probe_dtz(Position* pos, int* success) noexcept nogil

# ---------------------------------------------------------------- the search (search_*.pxi)
# Alpha-beta, one iteration at a time, driven from Python.

cdef enum:
    MAX_PLY = 128
    ONE_PLY = 4            # depth unit is a quarter ply, so extensions can be fractional
    MATE = 32000           # score of mate at the root; mate in n plies scores MATE - n
    MATE_BOUND = 31000     # scores beyond this are mate scores
    INFINITE = 32500
    LEARNED_DEPTH = 250    # hash-entry depth that marks a position-learning entry (searches stay below MAX_PLY)
    TB_WIN_SCORE = 30000   # a tablebase win at the root; below every mate score, so real mates win over it
    TB_WIN_BOUND = 29872   # TB_WIN_SCORE - MAX_PLY: scores beyond this count distance from the root

cdef enum:
    HISTORY_MAX = 16384      # every table saturates at +-HISTORY_MAX (gravity, search_history.pxi)
    MOVE_KEYS = 1024         # a move's key: piece code (0-15) * 64 + destination; 0 = none or null move
    CORRECTION_SIZE = 16384  # entries per side of the evaluation-correction table (a power of two)
    CORRECTION_GRAIN = 64    # correction entries are kept in 1/64 centipawn
    CORRECTION_MAX = 100 * CORRECTION_GRAIN   # no pawn structure moves the evaluation by more than 100 cp

cdef struct History:         # move-ordering statistics of one search thread
    int quiet[16][64]                            # quiet moves by piece code and destination
    int capture[16][64][8]                       # captures by piece code, destination, captured type
    Move counter[MOVE_KEYS]                      # the quiet move that last refuted a move, by its key
    int16_t continuation[MOVE_KEYS][MOVE_KEYS]   # quiet move (second key) played after a move (first key)
    int correction[2][CORRECTION_SIZE]           # how far searches found the static evaluation off,
                                                 # by side to move and pawn structure (pawn key)

cdef struct RootMove:
    Move move
    int score              # exact score, or -INFINITE when only an upper bound is known
    uint64_t nodes         # nodes spent below it in this iteration

cdef struct SearchShared:  # what the threads of one search share; every field is read and written atomically
    int stop               # set by stop(), by the main thread when it is done, or by a limit reached
    uint64_t nodes         # nodes of all threads, each adding its count at every poll
    uint64_t node_limit    # 0 = none; counts the nodes of all threads
    int64_t deadline_ns    # CLOCK_MONOTONIC deadline, 0 = none
    int depth_limit        # 0 = none; a helper that completes this depth stops the search

cdef struct SearchState:   # one thread's search: everything here but *tt and *shared is its own
    Position pos
    TTable* tt
    EvalState* ev
    SearchShared* shared
    bint stopped
    uint64_t nodes
    uint64_t nodes_reported   # part of nodes already added to shared.nodes
    int root_side
    int seldepth
    int draw_score         # score of a draw for the side that moves at the root
    int ext_check, ext_one_reply, ext_recapture, ext_passed_push, ext_mate
    Move killers[MAX_PLY + 2][2]
    History history        # quiet, capture, counter-move and continuation statistics
    int moved[MAX_PLY + 4] # moved[ply + 2]: key of the move made at ply (history.move_key; 0 = null move)
    Move excluded[MAX_PLY + 2]   # the hash move left out of a singular-extension test at that ply
    int root_depth         # depth of the iteration being searched, in plies
    int static_evals[MAX_PLY + 2]
    bint in_check[MAX_PLY + 2]   # whether the side to move at each ply is in check
    Move pv[MAX_PLY + 2][MAX_PLY + 2]
    int pv_length[MAX_PLY + 2]
    RootMove root_moves[MAX_MOVES]
    int root_count
    int search_id          # which search of its main thread a helper is doing
    int done_seq           # even when the done_ fields are whole: the main thread reads them while they change
    int done_search        # search_id of the iteration below
    int done_depth         # the deepest iteration this thread completed, its score and line
    int done_score
    Move done_pv[MAX_PLY + 2]
    int done_pv_length
    bint tb_probing        # probe the Syzygy WDL tables in the tree
    int tb_probe_depth     # least remaining depth (quarter plies) at which a node probes
    uint64_t tbhits
    int root_index         # the root move being searched now (read by another thread for UCI currmove)
    int root_first         # MultiPV: root moves before this index are lines already found this iteration

cdef int search_root(SearchState* s, int alpha, int beta, int depth) noexcept nogil
