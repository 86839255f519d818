# Included by core.pyx, the core's one C unit:
# Board: the Python face of the core position, for the engine layer and the tests.

cdef int _square_index(str uci, int at):
    """The square named at uci[at:at + 2] (a1 = 0 ... h8 = 63), or -1."""
    if len(uci) < at + 2:
        return -1
    cdef Py_UCS4 file = uci[at], rank = uci[at + 1]
    if not ("a" <= file <= "h" and "1" <= rank <= "8"):
        return -1
    return (<int>rank - 49) * 8 + (<int>file - 97)


NULL_MOVE = "0000"   # UCI's null move
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PIECE_SYMBOLS = " PNBRQK  pnbrqk"
cdef int HISTORY_KEPT = 1024   # plies of history a Board keeps when its history is full (push_uci)


cdef uint64_t count_generated(Position* pos, long repetitions) noexcept nogil:
    """Generate the moves of the position repetitions times; total moves generated."""
    cdef Move moves[MAX_MOVES]
    cdef uint64_t total = 0
    cdef long r
    for r in range(repetitions):
        total += generate_legal(pos, moves)
    return total


cdef uint64_t count_generated_made(Position* pos, long repetitions) noexcept nogil:
    """Generate, make and unmake every move repetitions times; total moves made."""
    cdef Move moves[MAX_MOVES]
    cdef uint64_t total = 0
    cdef long r
    cdef int i, n
    for r in range(repetitions):
        n = generate_legal(pos, moves)
        for i in range(n):
            do_move(pos, moves[i])
            undo_move(pos)
        total += n
    return total


cdef class Board:
    """A chess position with its move history, backed by the bitboard core."""

    def __cinit__(self):
        self.pos = <Position*>malloc(sizeof(Position))
        if self.pos is NULL:
            raise MemoryError()
        clear_position(self.pos)

    def __dealloc__(self):
        free(self.pos)

    def __init__(self, fen: str = START_FEN, chess960: bool = False):
        set_fen(self.pos, fen, chess960)

    def set_fen(self, fen: str) -> None:
        """Load a FEN (of the board's kind of chess); raises ValueError (and keeps the old
        position) if the core cannot hold it."""
        cdef Position* scratch = <Position*>malloc(sizeof(Position))
        if scratch is NULL:
            raise MemoryError()
        try:
            set_fen(scratch, fen, self.pos.chess960)
            memcpy(self.pos, scratch, sizeof(Position))
        finally:
            free(scratch)

    @property
    def chess960(self) -> bool:
        """Chess960 (Fischer random): castling rooks anywhere on the back rank, castling moves
        written king takes rook, rights in X-FEN."""
        return self.pos.chess960

    def fen(self) -> str:
        """FEN; in Chess960 with X-FEN castling rights (KQkq, or the rook's file where needed)."""
        return get_fen(self.pos, self._has_legal_en_passant(), False)

    def shredder_fen(self) -> str:
        """FEN with the castling rights as the rooks' files (HAha)."""
        return get_fen(self.pos, self._has_legal_en_passant(), True)

    def _has_legal_en_passant(self) -> bool:
        cdef Move moves[MAX_MOVES]
        cdef int i, n
        if self.pos.states[self.pos.ply].ep_square == NO_SQUARE:
            return False
        n = generate_legal(self.pos, moves)
        for i in range(n):
            if move_flag(moves[i]) == FLAG_EN_PASSANT:
                return True
        return False

    def copy(self) -> "Board":
        cdef Board other = Board.__new__(Board)
        memcpy(other.pos, self.pos, sizeof(Position))
        return other

    @property
    def key(self) -> int:
        """Polyglot Zobrist key of the position."""
        return self.pos.states[self.pos.ply].key

    @property
    def pawn_key(self) -> int:
        return self.pos.states[self.pos.ply].pawn_key

    @property
    def white_to_move(self) -> bool:
        return self.pos.side == 0

    @property
    def ply(self) -> int:
        """Moves made since the position was set."""
        return self.pos.ply

    def piece_at(self, int square) -> str:
        """Piece letter on a square (a1=0 .. h8=63): 'P'..'K' white, 'p'..'k' black, '' empty."""
        if not 0 <= square < 64:
            raise ValueError(f"no square {square}")
        return PIECE_SYMBOLS[self.pos.board[square]].strip()

    def in_check(self) -> bool:
        return in_check(self.pos)

    def upcoming_repetition(self) -> str | None:
        """A move (UCI squares) of the side to move that leads to a position of this board's
        history since the last capture or pawn move, found by the cuckoo tables without making
        moves; None if there is none. Its legality is not checked (a pinned piece, a check)."""
        cdef int found = upcoming_repetition_move(self.pos)
        if found < 0:
            return None
        return square_name(found & 63) + square_name(found >> 6)

    def legal_moves(self) -> list:
        """Legal moves in UCI notation (e7e8q for promotion; castling e1g1, in Chess960 king
        takes rook: e1h1)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(self.pos, moves)
        return [move_to_uci(self.pos, moves[i]) for i in range(n)]

    def noisy_moves(self) -> list:
        """What the quiescence search tries: captures, e.p. and queen promotions; all evasions in check."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_noisy(self.pos, moves)
        return [move_to_uci(self.pos, moves[i]) for i in range(n)]

    cdef unsigned int find_move(self, str uci) except? 0:
        """The legal move written uci, compared by squares and promotion piece rather than by
        building the text of every legal move (book building makes millions of these). In
        Chess960 castling is king takes rook (e1h1); e1g1 and e1c1 are taken too where king and
        rook stand on their standard squares (as python-chess reads them)."""
        cdef Move moves[MAX_MOVES]
        cdef int n, i, flag, target
        cdef int frm = _square_index(uci, 0), to = _square_index(uci, 2), promotion = -1
        if frm < 0 or to < 0 or len(uci) > 5 or (len(uci) == 5 and uci[4] not in "nbrq"):
            raise ValueError(f"illegal move {uci!r}")
        if len(uci) == 5:
            promotion = FLAG_PROMO_KNIGHT + "nbrq".index(uci[4])
        n = generate_legal(self.pos, moves)
        for i in range(n):
            flag = move_flag(moves[i])
            target = move_to(moves[i])
            if flag == FLAG_CASTLE and self.pos.chess960:
                target = self.pos.castle_rook[castle_index(self.pos.side, target)]
            if move_from(moves[i]) == frm and target == to:
                if (flag == promotion) if promotion >= 0 else flag < FLAG_PROMO_KNIGHT:
                    return moves[i]
        if self.pos.chess960 and promotion < 0 and (frm == 4 or frm == 60) and (to - frm == 2 or frm - to == 2):
            for i in range(n):
                if move_flag(moves[i]) == FLAG_CASTLE and move_from(moves[i]) == frm and move_to(moves[i]) == to \
                        and self.pos.castle_rook[castle_index(self.pos.side, to)] == (frm + 3 if to > frm else frm - 4):
                    return moves[i]
        raise ValueError(f"illegal move {uci!r}")

    def push_uci(self, uci: str) -> None:
        """Make a legal move given in UCI notation; raises ValueError if it is not legal. The
        null move `0000` passes the turn (a game record's side switch); not while in check."""
        uci = uci.strip().lower()
        cdef Move m = 0
        if uci != NULL_MOVE:
            m = self.find_move(uci)
        elif in_check(self.pos):
            raise ValueError("no null move while in check")
        if self.pos.ply + 1 >= MAX_STATES:
            # A game this long (only possible without the fifty-move claim) keeps its recent
            # history; pop() cannot go back past what was dropped.
            drop_old_history(self.pos, HISTORY_KEPT)
        if m:
            do_move(self.pos, m)
        else:
            do_null_move(self.pos)
            # Unlike the search's null move, a side switch in a game counts toward the fifty
            # moves, as in the game record (python-chess).
            self.pos.states[self.pos.ply].halfmove = self.pos.states[self.pos.ply - 1].halfmove + 1

    def gives_check(self, uci: str) -> bool:
        """Whether the legal move given in UCI notation would check, told without making it (the
        search's way: from the position's CheckInfo)."""
        cdef CheckInfo check_info
        cdef Move m = self.find_move(uci.strip().lower())
        init_check_info(self.pos, &check_info)
        return gives_check_by(self.pos, m, &check_info)

    def pop(self) -> str:
        """Take back the last move; returns it in UCI notation."""
        if self.pos.ply == 0:
            raise IndexError("no move to take back")
        cdef Move m = self.pos.states[self.pos.ply].move
        if m == 0:   # no move goes from a square to itself: 0 is the null move
            undo_null_move(self.pos)
            return NULL_MOVE
        undo_move(self.pos)
        return move_to_uci(self.pos, m)

    def perft(self, int depth) -> int:
        """Leaf nodes of the legal move tree to depth (bulk counted), without the GIL."""
        cdef uint64_t nodes
        if depth < 0:
            raise ValueError("depth must not be negative")
        with nogil:
            nodes = perft(self.pos, depth)
        return nodes

    def divide(self, int depth) -> list:
        """(move, perft(depth - 1) after it) for every legal root move."""
        cdef Move moves[MAX_MOVES]
        cdef int n, i
        cdef uint64_t nodes
        if depth < 1:
            raise ValueError("divide needs a depth of at least 1")
        n = generate_legal(self.pos, moves)
        result = []
        for i in range(n):
            do_move(self.pos, moves[i])
            with nogil:
                nodes = perft(self.pos, depth - 1)
            undo_move(self.pos)
            result.append((move_to_uci(self.pos, moves[i]), nodes))
        return result

    def count_generated(self, long repetitions) -> int:
        """Generate the legal moves repetitions times (for `perf`); moves generated in all."""
        cdef uint64_t total
        with nogil:
            total = count_generated(self.pos, repetitions)
        return total

    def count_generated_made(self, long repetitions) -> int:
        """Generate, make and unmake every move repetitions times (for `perf`); moves made."""
        cdef uint64_t total
        with nogil:
            total = count_generated_made(self.pos, repetitions)
        return total
