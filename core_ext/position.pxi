# Included by core.pyx, the core's one C unit:
# Make/unmake with an undo record per ply, incremental keys, and FEN in and out.

PIECE_LETTERS = " PNBRQK  pnbrqk"
FILES = "abcdefgh"


cdef void clear_position(Position* pos) noexcept nogil:
    memset(pos.pieces, 0, sizeof(pos.pieces))
    memset(pos.board, 0, sizeof(pos.board))
    pos.side = WHITE
    pos.ply = 0
    pos.fullmove_base = 1
    pos.chess960 = False
    set_castle_rooks(pos, 7, 0, 63, 56)
    memset(&pos.states[0], 0, sizeof(StateInfo))
    pos.states[0].ep_square = NO_SQUARE


cdef void set_castle_rooks(Position* pos, int white_oo, int white_ooo, int black_oo, int black_ooo) noexcept nogil:
    """The rook square of each right (NO_SQUARE: none) and the rights each square's move keeps:
    a king move loses both of its side's rights, a rook move or capture on its square one."""
    cdef int sq, index, colour
    pos.castle_rook[0] = white_oo
    pos.castle_rook[1] = white_ooo
    pos.castle_rook[2] = black_oo
    pos.castle_rook[3] = black_ooo
    for sq in range(64):
        pos.castle_mask[sq] = 15
    for index in range(4):
        if pos.castle_rook[index] != NO_SQUARE:
            pos.castle_mask[pos.castle_rook[index]] &= ~(1 << index)
    for colour in range(2):
        sq = lsb(pos.pieces[colour][KING]) if pos.pieces[colour][KING] else 4 + 56 * colour
        pos.castle_mask[sq] &= ~(3 << (2 * colour))


cdef inline void add_piece(Position* pos, int sq, int piece) noexcept nogil:
    cdef Bitboard b = square_bb(sq)
    pos.board[sq] = piece
    pos.pieces[piece >> 3][piece & 7] |= b
    pos.pieces[piece >> 3][0] |= b


cdef inline void remove_piece(Position* pos, int sq, int piece) noexcept nogil:
    cdef Bitboard b = square_bb(sq)
    pos.board[sq] = 0
    pos.pieces[piece >> 3][piece & 7] ^= b
    pos.pieces[piece >> 3][0] ^= b


cdef inline void shift_piece(Position* pos, int frm, int to, int piece) noexcept nogil:
    cdef Bitboard b = square_bb(frm) | square_bb(to)
    pos.board[frm] = 0
    pos.board[to] = piece
    pos.pieces[piece >> 3][piece & 7] ^= b
    pos.pieces[piece >> 3][0] ^= b


cdef void put_piece(Position* pos, int sq, int piece) noexcept nogil:
    add_piece(pos, sq, piece)


cdef void do_move(Position* pos, Move m) noexcept nogil:
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef StateInfo* ns = &pos.states[pos.ply + 1]
    cdef int us = pos.side
    cdef int them = us ^ 1
    cdef int frm = move_from(m)
    cdef int to = move_to(m)
    cdef int flag = move_flag(m)
    cdef int piece = pos.board[frm]
    cdef int captured = 0
    cdef int capsq, rook_from, rook_to, rook, promoted, ep
    cdef Bitboard key = st.key ^ Z_TURN
    cdef Bitboard pawn_key = st.pawn_key

    if st.ep_square != NO_SQUARE:
        key ^= Z_EP[st.ep_square & 7]
    ns.ep_square = NO_SQUARE
    ns.halfmove = st.halfmove + 1
    ns.move = m

    if flag == FLAG_CASTLE:
        castle_rook_squares(pos, us, to, &rook_from, &rook_to)
        rook = us * 8 + ROOK
        # Both leave before either lands: in Chess960 the squares may overlap.
        remove_piece(pos, frm, piece)
        remove_piece(pos, rook_from, rook)
        add_piece(pos, to, piece)
        add_piece(pos, rook_to, rook)
        key ^= Z_PSQ[piece][frm] ^ Z_PSQ[piece][to] ^ Z_PSQ[rook][rook_from] ^ Z_PSQ[rook][rook_to]
    else:
        if flag == FLAG_EN_PASSANT:
            capsq = to - 8 if us == WHITE else to + 8
        else:
            capsq = to
        captured = pos.board[capsq]
        if captured:
            remove_piece(pos, capsq, captured)
            key ^= Z_PSQ[captured][capsq]
            if (captured & 7) == PAWN:
                pawn_key ^= Z_PSQ[captured][capsq]
            ns.halfmove = 0
        shift_piece(pos, frm, to, piece)
        key ^= Z_PSQ[piece][frm] ^ Z_PSQ[piece][to]
        if (piece & 7) == PAWN:
            ns.halfmove = 0
            pawn_key ^= Z_PSQ[piece][frm]
            if flag >= FLAG_PROMO_KNIGHT:
                promoted = us * 8 + (flag - 2)
                remove_piece(pos, to, piece)
                add_piece(pos, to, promoted)
                key ^= Z_PSQ[piece][to] ^ Z_PSQ[promoted][to]
            else:
                pawn_key ^= Z_PSQ[piece][to]
                if flag == FLAG_DOUBLE_PUSH:
                    ep = (frm + to) >> 1
                    # Polyglot hashes the e.p. file only when a pawn stands ready to capture.
                    if PAWN_ATTACKS[us][ep] & pos.pieces[them][PAWN]:
                        ns.ep_square = ep
                        key ^= Z_EP[ep & 7]

    ns.castling = st.castling & pos.castle_mask[frm] & pos.castle_mask[to]
    key ^= Z_CASTLING[st.castling] ^ Z_CASTLING[ns.castling]
    ns.captured = captured
    ns.moved = piece
    ns.key = key
    ns.pawn_key = pawn_key
    pos.side = them
    pos.ply += 1


cdef void undo_move(Position* pos) noexcept nogil:
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef Move m = st.move
    cdef int frm = move_from(m)
    cdef int to = move_to(m)
    cdef int flag = move_flag(m)
    cdef int us, piece, rook_from, rook_to, capsq
    pos.ply -= 1
    pos.side ^= 1
    us = pos.side
    if flag == FLAG_CASTLE:
        castle_rook_squares(pos, us, to, &rook_from, &rook_to)
        remove_piece(pos, to, us * 8 + KING)
        remove_piece(pos, rook_to, us * 8 + ROOK)
        add_piece(pos, frm, us * 8 + KING)
        add_piece(pos, rook_from, us * 8 + ROOK)
        return
    piece = pos.board[to]
    if flag >= FLAG_PROMO_KNIGHT:
        remove_piece(pos, to, piece)
        piece = us * 8 + PAWN
        add_piece(pos, to, piece)
    shift_piece(pos, to, frm, piece)
    if st.captured:
        if flag == FLAG_EN_PASSANT:
            capsq = to - 8 if us == WHITE else to + 8
        else:
            capsq = to
        add_piece(pos, capsq, st.captured)


cdef void do_null_move(Position* pos) noexcept nogil:
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef StateInfo* ns = &pos.states[pos.ply + 1]
    ns[0] = st[0]
    ns.key ^= Z_TURN
    if st.ep_square != NO_SQUARE:
        ns.key ^= Z_EP[st.ep_square & 7]
        ns.ep_square = NO_SQUARE
    ns.move = 0
    ns.captured = 0
    # A repetition never reaches back across a null move, so the scan stops here.
    ns.halfmove = 0
    pos.side ^= 1
    pos.ply += 1


cdef void undo_null_move(Position* pos) noexcept nogil:
    pos.side ^= 1
    pos.ply -= 1


cdef void compute_keys(Position* pos) noexcept nogil:
    """Key and pawn key from scratch, for the root after a FEN."""
    cdef StateInfo* st = &pos.states[pos.ply]
    cdef int sq, piece
    st.key = 0
    st.pawn_key = 0
    for sq in range(64):
        piece = pos.board[sq]
        if piece:
            st.key ^= Z_PSQ[piece][sq]
            if (piece & 7) == PAWN:
                st.pawn_key ^= Z_PSQ[piece][sq]
    st.key ^= Z_CASTLING[st.castling]
    if st.ep_square != NO_SQUARE:
        st.key ^= Z_EP[st.ep_square & 7]
    if pos.side == WHITE:
        st.key ^= Z_TURN


cdef int parse_square(str text) except -2:
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        return -1
    return FILES.index(text[0]) + 8 * (int(text[1]) - 1)


cdef list castling_rooks(list board, str text, bint chess960):
    """The rook square of each right (WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO order) that the
    castling field gives and king and rook placement allow; NO_SQUARE for the others. Standard
    chess needs king and rook on their home squares; Chess960 any rook on the back rank, on the
    side of the king that the right names."""
    rooks = [NO_SQUARE] * 4
    for letter in text:
        colour = WHITE if letter.isupper() else BLACK
        base = 56 * colour
        back = [board[base + f] for f in range(8)]
        king, rook = colour * 8 + KING, colour * 8 + ROOK
        if king not in back:
            continue
        king_file = back.index(king)
        upper = letter.upper()
        if upper == "K":
            files = [f for f in range(7, king_file, -1) if back[f] == rook]
        elif upper == "Q":
            files = [f for f in range(king_file) if back[f] == rook]
        else:
            files = [FILES.index(letter.lower())] if back[FILES.index(letter.lower())] == rook else []
        if not files or files[0] == king_file:
            continue
        rook_file = files[0]
        short = rook_file > king_file
        if not chess960 and (king_file != 4 or rook_file != (7 if short else 0)):
            continue
        rooks[2 * colour + (0 if short else 1)] = base + rook_file
    return rooks


cdef int set_fen(Position* pos, str fen, bint chess960) except -1:
    """Load a FEN (counters optional); raises ValueError on anything the core cannot hold.
    Castling rights may be written KQkq or by the rook's file (Shredder-FEN, HAha); in Chess960
    KQkq name the outermost rook on that side of the king (X-FEN).

    Only structural checks are made here (one king a side, piece letters, 64 squares);
    chess legality (side not to move in check, pawn counts) is the engine layer's job.
    """
    cdef list parts = fen.split()
    cdef int sq, rank, file_, piece, ep, colour
    cdef StateInfo* st
    if len(parts) < 2:
        raise ValueError("FEN needs at least a board and a side to move")
    if len(parts) > 6:
        raise ValueError("FEN has too many fields")
    rows = parts[0].split("/")
    if len(rows) != 8:
        raise ValueError("FEN board must have 8 ranks")
    board = [0] * 64
    for rank in range(8):
        file_ = 0
        for ch in rows[7 - rank]:
            if ch.isdigit():
                if ch in "09":
                    raise ValueError(f"bad empty-square count {ch!r} in FEN")
                file_ += int(ch)
            elif ch in PIECE_LETTERS and ch != " ":
                if file_ > 7:
                    raise ValueError(f"rank {8 - rank} of the FEN has more than 8 squares")
                board[rank * 8 + file_] = PIECE_LETTERS.index(ch)
                file_ += 1
            else:
                raise ValueError(f"bad character {ch!r} in FEN board")
        if file_ != 8:
            raise ValueError(f"rank {8 - rank} of the FEN has {file_} squares, not 8")
    for colour, name in ((WHITE, "white"), (BLACK, "black")):
        if board.count(colour * 8 + KING) != 1:
            raise ValueError(f"FEN must have exactly one {name} king")
    for sq in range(64):
        if (board[sq] & 7) == PAWN and (sq < 8 or sq >= 56):
            raise ValueError("FEN has a pawn on the first or last rank")
    if parts[1] not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', not {parts[1]!r}")
    castling_text = parts[2] if len(parts) > 2 else "-"
    ep_text = parts[3] if len(parts) > 3 else "-"
    halfmove_text = parts[4] if len(parts) > 4 else "0"
    fullmove_text = parts[5] if len(parts) > 5 else "1"
    if castling_text != "-" and (not castling_text or any(c not in "KQkqABCDEFGHabcdefgh" for c in castling_text)):
        raise ValueError(f"bad castling field {castling_text!r}")
    ep = NO_SQUARE
    if ep_text != "-":
        ep = parse_square(ep_text)
        if ep < 0:
            raise ValueError(f"bad en-passant square {ep_text!r}")
    if not halfmove_text.isdigit() or not fullmove_text.isdigit():
        raise ValueError("FEN move counters must be whole numbers")

    clear_position(pos)
    for sq in range(64):
        if board[sq]:
            add_piece(pos, sq, board[sq])
    pos.side = WHITE if parts[1] == "w" else BLACK
    pos.chess960 = chess960
    st = &pos.states[0]
    rooks = castling_rooks(board, "" if castling_text == "-" else castling_text, chess960)
    st.castling = 0
    for index in range(4):
        if rooks[index] != NO_SQUARE:
            st.castling |= 1 << index
    if chess960:
        set_castle_rooks(pos, rooks[0], rooks[1], rooks[2], rooks[3])
    else:
        set_castle_rooks(pos, 7, 0, 63, 56)
    st.ep_square = NO_SQUARE
    if ep != NO_SQUARE:
        if pos.side == WHITE:
            valid = (ep >> 3) == 5 and board[ep - 8] == 8 + PAWN and not board[ep] and not board[ep + 8]
        else:
            valid = (ep >> 3) == 2 and board[ep + 8] == PAWN and not board[ep] and not board[ep - 8]
        if valid and PAWN_ATTACKS[pos.side ^ 1][ep] & pos.pieces[pos.side][PAWN]:
            st.ep_square = ep
    st.halfmove = int(halfmove_text)
    pos.fullmove_base = max(1, int(fullmove_text))
    compute_keys(pos)
    return 0


cdef str square_name(int sq):
    return FILES[sq & 7] + str((sq >> 3) + 1)


cdef str get_fen(Position* pos, bint legal_ep, bint shredder):
    """FEN of the current position; the e.p. square is shown when legal_ep says a capture is legal.
    Castling rights as KQkq in standard chess, by the rook's file with shredder (HAha), and in
    Chess960 otherwise as X-FEN (KQkq, the file where another rook stands on the same side)."""
    cdef int rank, file_, empty, piece
    cdef StateInfo* st = &pos.states[pos.ply]
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for file_ in range(8):
            piece = pos.board[rank * 8 + file_]
            if piece:
                if empty:
                    row += str(empty)
                    empty = 0
                row += PIECE_LETTERS[piece]
            else:
                empty += 1
        if empty:
            row += str(empty)
        rows.append(row)
    if shredder or pos.chess960:
        castling = castling_letters(pos, st.castling, shredder)
    else:
        castling = "".join(c for bit, c in ((WHITE_OO, "K"), (WHITE_OOO, "Q"), (BLACK_OO, "k"), (BLACK_OOO, "q"))
                           if st.castling & bit) or "-"
    ep = square_name(st.ep_square) if legal_ep and st.ep_square != NO_SQUARE else "-"
    return f"{'/'.join(rows)} {'w' if pos.side == WHITE else 'b'} {castling} {ep} {st.halfmove} {fullmove_number(pos)}"


cdef str castling_letters(Position* pos, int rights, bint shredder):
    """Shredder-FEN or X-FEN castling field of the rights (White's first, the h-side first)."""
    cdef int index, colour, rook, king_file, f, other
    letters = []
    for index in range(4):
        if not rights & (1 << index):
            continue
        colour = index >> 1
        rook = pos.castle_rook[index]
        letter = FILES[rook & 7]
        if not shredder:
            king_file = lsb(pos.pieces[colour][KING]) & 7
            other = 0
            for f in range(8):
                if f != (rook & 7) and pos.board[56 * colour + f] == colour * 8 + ROOK \
                        and (f < king_file) == ((rook & 7) < king_file):
                    other = 1
            if not other:
                letter = "k" if (rook & 7) > king_file else "q"
        letters.append(letter.upper() if colour == WHITE else letter)
    return "".join(letters) or "-"


cdef void drop_old_history(Position* pos, int keep) noexcept nogil:
    """Forget all but the last `keep` moves of the history (at least the fifty-move window, so
    that repetitions and the fifty-move count still see every position they can reach); the
    position and its move number stay as they are."""
    cdef int fullmove_before = fullmove_number(pos)
    cdef int window = pos.states[pos.ply].halfmove
    if keep < window:
        keep = window if window < MAX_STATES // 2 else MAX_STATES // 2
    if keep >= pos.ply:
        return
    memmove(&pos.states[0], &pos.states[pos.ply - keep], (keep + 1) * sizeof(StateInfo))
    pos.ply = keep
    pos.fullmove_base += fullmove_before - fullmove_number(pos)


cdef int fullmove_number(Position* pos) noexcept nogil:
    """Fullmove counter: starts at fullmove_base and grows after each Black move."""
    cdef int start_side = pos.side ^ (pos.ply & 1)
    cdef int plies = pos.ply + (1 if start_side == BLACK else 0)
    return pos.fullmove_base + plies // 2


cdef str move_to_uci(Position* pos, Move m):
    """A move of pos's game in UCI: castling as the king's two-square move in standard chess
    (e1g1), as king takes own rook in Chess960 (e1h1)."""
    cdef int flag = move_flag(m), to = move_to(m)
    if flag == FLAG_CASTLE and pos.chess960:
        to = pos.castle_rook[castle_index(0 if move_from(m) < 8 else 1, to)]
    text = square_name(move_from(m)) + square_name(to)
    if flag >= FLAG_PROMO_KNIGHT:
        text += "nbrq"[flag - FLAG_PROMO_KNIGHT]
    return text
