# Included by evaluation.pxi (part of core.pyx, the core's one C unit: these are its pawn-structure terms and their hash table); the names are module-level there.

# ---------------------------------------------------------------- pawn structure (hashed)


cdef inline void fill_pawn_entry(PawnEntry* e, Position* pos) noexcept nogil:
    """Score the pawn skeleton of both colours; depends on pawns alone, so it can be cached."""
    cdef int c, them, sq, f, r, stop, mg, eg, rmg, v
    cdef Bitboard own, enemy, b, front, neighbours, supporters, phalanx
    for c in range(2):
        e.attacks[c] = pawn_attacks_of(c, pos.pieces[c][PAWN])
        e.span[c] = pawn_attacks_of(c, front_fill(c, pos.pieces[c][PAWN]))
        e.half_open[c] = (~file_set(pos.pieces[c][PAWN])) & 0xFF
    for c in range(2):
        them = c ^ 1
        own = pos.pieces[c][PAWN]
        enemy = pos.pieces[them][PAWN]
        mg = eg = rmg = 0
        e.passed[c] = 0
        b = own
        while b:
            sq = lsb(b)
            b &= b - 1
            f = sq & 7
            r = relative_rank(c, sq)
            stop = sq + 8 if c == WHITE else sq - 8
            front = FORWARD_FILE[c][sq]
            neighbours = own & ADJ_FILES[f]
            supporters = own & PAWN_ATTACKS[them][sq]
            phalanx = neighbours & RANK_BB[sq >> 3]
            if (enemy & PASSED_MASK[c][sq]) == 0 and (own & front) == 0:
                e.passed[c] |= square_bb(sq)
            if own & front:
                mg -= DOUBLED_MG
                eg -= DOUBLED_EG
            if neighbours == 0:
                mg -= ISOLATED_MG[f]
                eg -= ISOLATED_EG[f]
                if (enemy & front) == 0:
                    mg -= ISOLATED_EXPOSED_MG
            elif ((supporters | phalanx) == 0
                  and (neighbours & BEHIND_OR_LEVEL[c][sq >> 3]) == 0
                  and (enemy & PAWN_ATTACKS[c][stop])):
                mg -= BACKWARD_MG
                eg -= BACKWARD_EG
                if (enemy & front) == 0:
                    mg -= BACKWARD_EXPOSED_MG
            if supporters | phalanx:
                v = (CONNECTED[r] if phalanx else CONNECTED[r] // 2) + SUPPORTER_BONUS * popcount(supporters)
                mg += v
                eg += v
            if enemy & square_bb(stop):
                rmg -= RAM_MG[r]
        e.structure_mg[c] = mg
        e.structure_eg[c] = eg
        e.rams_mg[c] = rmg
        e.shelter_key[c] = NO_SHELTER


cdef inline PawnEntry* probe_pawns(Position* pos, EvalState* ev, PawnEntry* scratch) noexcept nogil:
    cdef Bitboard key = pos.states[pos.ply].pawn_key
    cdef PawnEntry* e
    if ev.pawn_table == NULL:
        fill_pawn_entry(scratch, pos)
        return scratch
    e = &ev.pawn_table[key & ev.pawn_mask]
    ev.pawn_probes += 1
    if e.filled and e.key == key:
        ev.pawn_hits += 1
        return e
    fill_pawn_entry(e, pos)
    e.key = key
    e.filled = 1
    return e
