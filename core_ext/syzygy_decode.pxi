# Included by syzygy.pxi (part of core.pyx, the core's one C unit): decoding a position's value (Huffman blocks, the cache, piece and pawn encodings).

# -- decoding --------------------------------------------------------------------------------

cdef int decompress(TBFile* f, PairsData* d, uint64_t idx, bint dtz, int* ok) noexcept nogil:
    """The stored value of position number idx; ok[0] = 0 if the data is inconsistent."""
    cdef uint64_t mainidx, code, block, blocks = d.num_blocks
    cdef int64_t litidx
    cdef const uint8_t* ptr
    cdef const uint8_t* end = f.data + f.size
    cdef const uint8_t* w
    cdef int l, sym, s1, bitcnt = 0
    ok[0] = 1
    if d.idxbits == 0:
        return d.constant
    mainidx = idx >> d.idxbits
    if mainidx >= d.num_indices:
        ok[0] = 0
        return 0
    litidx = <int64_t>(idx & ((<uint64_t>1 << d.idxbits) - 1)) - (<int64_t>1 << (d.idxbits - 1))
    ptr = d.indextable + 6 * mainidx
    block = u32le(ptr)
    litidx += u16le(ptr + 4)
    if block >= blocks:
        ok[0] = 0
        return 0
    if litidx < 0:
        while litidx < 0:
            if block == 0:
                ok[0] = 0
                return 0
            block -= 1
            litidx += u16le(d.sizetable + 2 * block) + 1
    else:
        while litidx > u16le(d.sizetable + 2 * block):
            litidx -= u16le(d.sizetable + 2 * block) + 1
            block += 1
            if block >= blocks:
                ok[0] = 0
                return 0
    if block >= d.real_num_blocks:
        ok[0] = 0
        return 0
    ptr = d.data + (block << d.blocksize)
    if ptr + 8 > end:
        ok[0] = 0
        return 0
    code = u64be(ptr)
    ptr += 8
    while True:
        l = d.min_len
        while code < d.base[l - d.min_len]:
            l += 1
            if l > d.max_len:
                ok[0] = 0
                return 0
        sym = u16le(d.lowest_sym + 2 * (l - d.min_len)) + <int>((code - d.base[l - d.min_len]) >> (64 - l))
        if sym >= d.num_syms:
            ok[0] = 0
            return 0
        if litidx < d.symlen[sym] + 1:
            break
        litidx -= d.symlen[sym] + 1
        code <<= l
        bitcnt += l
        if bitcnt >= 32:
            bitcnt -= 32
            if ptr + 4 > end:
                ok[0] = 0
                return 0
            code |= (<uint64_t>u32be(ptr)) << bitcnt
            ptr += 4
    while d.symlen[sym]:
        w = d.sympat + 3 * sym
        s1 = ((w[1] & 0xF) << 8) | w[0]
        if litidx < d.symlen[s1] + 1:
            sym = s1
        else:
            litidx -= d.symlen[s1] + 1
            sym = (w[2] << 4) | (w[1] >> 4)
    w = d.sympat + 3 * sym
    if dtz:
        return ((w[1] & 0x0F) << 8) | w[0]
    return w[0]


cdef int cached_decompress(TBTable* t, TBFile* f, PairsData* d, int subtable, uint64_t idx, bint dtz,
                           int* ok) noexcept nogil:
    """decompress() through the shared value cache (lock-free: key and value share one word)."""
    cdef uint64_t h, entry, tag
    cdef int value
    if CACHE is NULL:
        return decompress(f, d, idx, dtz, ok)
    h = (idx + 1) * TB_MIX1
    h ^= (<uint64_t>(t.id * 16 + subtable * 2 + dtz) + 1) * TB_MIX2
    h ^= h >> 29
    tag = h & ~(<uint64_t>0xFFFF)
    entry = PONDEROSA_LOAD64(&CACHE[(h >> 16) & CACHE_MASK])
    if (entry & ~(<uint64_t>0xFFFF)) == tag and (entry & 0xFFFF):
        ok[0] = 1
        return <int>(entry & 0xFFFF) - 1
    value = decompress(f, d, idx, dtz, ok)
    if ok[0]:
        PONDEROSA_STORE64(&CACHE[(h >> 16) & CACHE_MASK], tag | <uint64_t>(value + 1))
    return value


cdef inline void swap_squares(int* sq, int i, int j) noexcept nogil:
    cdef int tmp = sq[i]
    sq[i] = sq[j]
    sq[j] = tmp


cdef uint64_t encode_groups(PairsData* d, int* sq, int num, int start, int pawn_group) noexcept nogil:
    """Index of the groups after the leading one: each a combination of the squares left free."""
    cdef uint64_t idx = 0, s
    cdef int i = start, t, j, k, m, p, below
    while i < num:
        t = d.norm[i]
        if t <= 0:
            break
        for j in range(i, i + t):
            for k in range(j + 1, i + t):
                if sq[j] > sq[k]:
                    swap_squares(sq, j, k)
        s = 0
        for m in range(i, i + t):
            p = sq[m]
            below = 0
            for j in range(i):
                if p > sq[j]:
                    below += 1
            s += binom(p - below - (8 if i == pawn_group else 0), m - i + 1)
        idx += s * d.factor[i]
        i += t
    return idx


cdef uint64_t encode_piece(TBTable* t, PairsData* d, int* sq) noexcept nogil:
    cdef int n = t.num, i, j, limit, start
    cdef uint64_t idx
    if sq[0] & 4:
        for i in range(n):
            sq[i] ^= 7
    if sq[0] & 0x20:
        for i in range(n):
            sq[i] ^= 0x38
    limit = 3 if t.enc_type == 0 else 2
    for i in range(limit):
        if offdiag(sq[i]) != 0:
            if offdiag(sq[i]) > 0:
                for j in range(n):
                    sq[j] = flipdiag(sq[j])
            break
    if t.enc_type == 0:
        i = 1 if sq[1] > sq[0] else 0
        j = (1 if sq[2] > sq[0] else 0) + (1 if sq[2] > sq[1] else 0)
        if offdiag(sq[0]):
            idx = TRIANGLE[sq[0]] * 63 * 62 + (sq[1] - i) * 62 + (sq[2] - j)
        elif offdiag(sq[1]):
            idx = 6 * 63 * 62 + (sq[0] >> 3) * 28 * 62 + LOWER[sq[1]] * 62 + sq[2] - j
        elif offdiag(sq[2]):
            idx = 6 * 63 * 62 + 4 * 28 * 62 + (sq[0] >> 3) * 7 * 28 + ((sq[1] >> 3) - i) * 28 + LOWER[sq[2]]
        else:
            idx = 6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + (sq[0] >> 3) * 7 * 6 + ((sq[1] >> 3) - i) * 6 \
                + ((sq[2] >> 3) - j)
        start = 3
    else:
        idx = KK_IDX[TRIANGLE[sq[0]]][sq[1]]
        start = 2
    return idx * d.factor[0] + encode_groups(d, sq, n, start, -1)


cdef uint64_t encode_pawn(TBTable* t, PairsData* d, int* sq) noexcept nogil:
    cdef int n = t.num, i, j, lead = t.pawns[0]
    cdef uint64_t idx
    if sq[0] & 4:
        for i in range(n):
            sq[i] ^= 7
    for i in range(1, lead):
        for j in range(i + 1, lead):
            if PTWIST[sq[i]] < PTWIST[sq[j]]:
                swap_squares(sq, i, j)
    idx = PAWNIDX[lead - 1][FLAP[sq[0]]]
    for i in range(lead - 1, 0, -1):
        idx += binom(PTWIST[sq[i]], lead - i)
    return idx * d.factor[0] + encode_groups(d, sq, n, lead, lead if t.pawns[1] else -1)


cdef int fill_squares(Position* pos, PairsData* d, int num, int cmirror, int mirror, int start,
                      int* sq) noexcept nogil:
    """Squares of the pieces in the table's order; -1 if the position does not fit the list."""
    cdef int i = start, code
    cdef Bitboard b
    while i < num:
        code = d.pieces[i] ^ cmirror
        b = pos.pieces[code >> 3][code & 7]
        if not b:
            return -1
        while b:
            if i >= num:
                return -1
            sq[i] = lsb(b) ^ mirror
            i += 1
            b &= b - 1
    return 0


cdef int lead_pawn_file(TBTable* t, int* sq) noexcept nogil:
    """Put the leading pawn (nearest the edge, then lowest) first; its file picks the subtable."""
    cdef int i, f
    for i in range(1, t.pawns[0]):
        if FLAP[sq[0]] > FLAP[sq[i]]:
            swap_squares(sq, 0, i)
    f = sq[0] & 7
    return f if f < 4 else 7 - f


cdef int probe_table(Position* pos, bint dtz, int wdl, int* success) noexcept nogil:
    """Raw table value: WDL 0..4, or the DTZ stored value; success 0 = missing, -1 = DTZ of the other side."""
    cdef uint64_t key = position_key(pos)
    cdef TBTable* t
    cdef TBFile* f
    cdef PairsData* d
    cdef int cmirror, mirror, bside, fl = 0, i, ok, res, code
    cdef int sq[TB_MAX_PIECES]
    cdef Bitboard b
    cdef uint64_t idx
    success[0] = 0
    if key == 0 and not dtz:
        success[0] = 1
        return 2    # bare kings: a draw
    t = find_table(key)
    if t is NULL:
        return 0
    f = &t.dtz if dtz else &t.wdl
    if not ensure_open(t, f, not dtz):
        return 0
    if not t.symmetric:
        if key != f.key:
            cmirror, mirror, bside = 8, 0x38, (1 if pos.side == 0 else 0)
        else:
            cmirror, mirror, bside = 0, 0, (1 if pos.side != 0 else 0)
    else:
        cmirror = 0 if pos.side == 0 else 8
        mirror = 0 if pos.side == 0 else 0x38
        bside = 0
    if not dtz and bside and not t.split:
        return 0    # only one side to move is stored
    if not t.has_pawns:
        d = &t.dtz_pd[0] if dtz else &t.wdl_pd[0][bside]
        if dtz and (d.flags & 1) != bside and not t.symmetric:
            success[0] = -1
            return 0
        if fill_squares(pos, d, t.num, cmirror, mirror, 0, sq) < 0:
            return 0
        idx = encode_piece(t, d, sq)
    else:
        code = (t.dtz_pd[0].pieces[0] if dtz else t.wdl_pd[0][0].pieces[0]) ^ cmirror
        b = pos.pieces[code >> 3][code & 7]
        i = 0
        while b and i < t.pawns[0]:
            sq[i] = lsb(b) ^ mirror
            i += 1
            b &= b - 1
        if i != t.pawns[0] or b:
            return 0
        fl = lead_pawn_file(t, sq)
        d = &t.dtz_pd[fl] if dtz else &t.wdl_pd[fl][bside]
        if dtz and (d.flags & 1) != bside:
            success[0] = -1
            return 0
        if fill_squares(pos, d, t.num, cmirror, mirror, t.pawns[0], sq) < 0:
            return 0
        idx = encode_pawn(t, d, sq)
    if idx >= d.tb_size and d.idxbits:
        return 0
    res = cached_decompress(t, f, d, (fl * 2 + bside) if not dtz else fl, idx, dtz, &ok)
    if not ok:
        return 0
    if dtz:
        if d.flags & 2:
            i = d.map_idx[WDL_TO_MAP[wdl + 2]] + res
            if d.flags & 16:
                if f.dtz_map + 2 * i + 2 > f.data + f.size:
                    return 0
                res = u16le(f.dtz_map + 2 * i)
            else:
                if f.dtz_map + i + 1 > f.data + f.size:
                    return 0
                res = f.dtz_map[i]
        if not (d.flags & PA_FLAGS[wdl + 2]) or (wdl & 1):
            res *= 2
    success[0] = 1
    return res

