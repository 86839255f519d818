# Included by syzygy.pxi (part of core.pyx, the core's one C unit): reading a table file (headers, pairs data, blocks) and opening it on first use.

# -- reading the file ------------------------------------------------------------------------

cdef inline uint32_t u32le(const uint8_t* p) noexcept nogil:
    return p[0] | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16) | (<uint32_t>p[3] << 24)


cdef inline uint32_t u32be(const uint8_t* p) noexcept nogil:
    return p[3] | (<uint32_t>p[2] << 8) | (<uint32_t>p[1] << 16) | (<uint32_t>p[0] << 24)


cdef inline uint16_t u16le(const uint8_t* p) noexcept nogil:
    return p[0] | (<uint16_t>p[1] << 8)


cdef inline uint64_t u64be(const uint8_t* p) noexcept nogil:
    return (<uint64_t>u32be(p) << 32) | u32be(p + 4)


cdef inline uint64_t material_key_of(int colour, int ptype) noexcept nogil:
    return (<uint64_t>1) << (4 * (colour * 6 + ptype - 1))


cdef inline uint64_t mirror_key(uint64_t key) noexcept nogil:
    return ((key & 0xFFFFFF) << 24) | (key >> 24)


cdef inline uint64_t position_key(Position* pos) noexcept nogil:
    cdef uint64_t key = 0
    cdef int colour, ptype
    for colour in range(2):
        for ptype in range(PAWN, KING):
            key += (<uint64_t>popcount(pos.pieces[colour][ptype])) << (4 * (colour * 6 + ptype - 1))
    return key


cdef int set_error(TBFile* f, str message) except -1:
    text = message.encode("utf-8", "replace")[:ERROR_LEN - 1]
    strncpy(f.error, text, ERROR_LEN - 1)
    f.error[ERROR_LEN - 1] = 0
    return 0


cdef int fail(TBFile* f, const char* message) noexcept nogil:
    strncpy(f.error, message, ERROR_LEN - 1)
    f.error[ERROR_LEN - 1] = 0
    return -1


cdef int calc_symlen(PairsData* d, int s, uint8_t* state) noexcept nogil:
    """Values a symbol expands to; state 1 = in progress (a cycle means a corrupt file), 2 = done."""
    cdef const uint8_t* w = d.sympat + 3 * s
    cdef int s1, s2
    state[s] = 1
    s2 = (w[2] << 4) | (w[1] >> 4)
    if s2 == 0x0FFF:
        d.symlen[s] = 0
    else:
        s1 = ((w[1] & 0xF) << 8) | w[0]
        if s1 >= d.num_syms or s2 >= d.num_syms or state[s1] == 1 or state[s2] == 1:
            return -1
        if state[s1] == 0 and calc_symlen(d, s1, state) < 0:
            return -1
        if state[s2] == 0 and calc_symlen(d, s2, state) < 0:
            return -1
        d.symlen[s] = d.symlen[s1] + d.symlen[s2] + 1
    state[s] = 2
    return 0


cdef int setup_pairs(TBFile* f, PairsData* d, size_t ptr, bint wdl, uint64_t sizes[3], size_t* next_ptr) noexcept nogil:
    """Read one subtable's Huffman header at ptr; sizes gets its index, size-table and data bytes."""
    cdef const uint8_t* data = f.data
    cdef int h, i
    cdef uint8_t* state
    if ptr + 12 > f.size:
        return fail(f, "header runs past the end of the file")
    d.flags = data[ptr]
    if data[ptr] & 0x80:
        d.idxbits = 0
        d.constant = data[ptr + 1] if wdl else 0
        sizes[0] = sizes[1] = sizes[2] = 0
        next_ptr[0] = ptr + 2
        return 0
    d.blocksize = data[ptr + 1]
    d.idxbits = data[ptr + 2]
    d.real_num_blocks = u32le(data + ptr + 4)
    d.num_blocks = d.real_num_blocks + data[ptr + 3]
    d.max_len = data[ptr + 8]
    d.min_len = data[ptr + 9]
    if d.idxbits == 0 or d.idxbits > 40 or d.blocksize > 40 or d.min_len < 1 or d.max_len > 63 \
            or d.max_len < d.min_len:
        return fail(f, "bad Huffman header")
    h = d.max_len - d.min_len + 1
    if ptr + 12 + 2 * h > f.size:
        return fail(f, "header runs past the end of the file")
    d.num_syms = u16le(data + ptr + 10 + 2 * h)
    d.lowest_sym = data + ptr + 10
    d.sympat = data + ptr + 12 + 2 * h
    next_ptr[0] = ptr + 12 + 2 * h + 3 * d.num_syms + (d.num_syms & 1)
    if next_ptr[0] > f.size or d.num_syms == 0 or d.num_syms > 4096:
        return fail(f, "symbol table runs past the end of the file")
    d.num_indices = (d.tb_size + (<uint64_t>1 << d.idxbits) - 1) >> d.idxbits
    sizes[0] = 6 * d.num_indices
    sizes[1] = 2 * d.num_blocks
    sizes[2] = (<uint64_t>1 << d.blocksize) * d.real_num_blocks
    d.symlen = <int*>calloc(d.num_syms, sizeof(int))
    d.base = <uint64_t*>calloc(h, sizeof(uint64_t))
    state = <uint8_t*>calloc(d.num_syms, 1)
    if d.symlen is NULL or d.base is NULL or state is NULL:
        free(state)
        return fail(f, "out of memory")
    for i in range(d.num_syms):
        if state[i] == 0 and calc_symlen(d, i, state) < 0:
            free(state)
            return fail(f, "corrupt symbol tree")
    free(state)
    d.base[h - 1] = 0
    for i in range(h - 2, -1, -1):
        d.base[i] = (d.base[i + 1] + u16le(d.lowest_sym + 2 * i) - u16le(d.lowest_sym + 2 * i + 2)) // 2
    for i in range(h):
        d.base[i] <<= 64 - (d.min_len + i)
    return 0


cdef void set_norm(TBTable* t, PairsData* d) noexcept nogil:
    """Group sizes: the leading group first (its size fixed by the encoding), then runs of equal pieces."""
    cdef int i, j
    memset(d.norm, 0, sizeof(d.norm))
    if t.has_pawns:
        d.norm[0] = t.pawns[0]
        if t.pawns[1]:
            d.norm[t.pawns[0]] = t.pawns[1]
        i = t.pawns[0] + t.pawns[1]
    else:
        d.norm[0] = 3 if t.enc_type == 0 else 2
        i = d.norm[0]
    while i < t.num:
        j = i
        while j < t.num and d.pieces[j] == d.pieces[i]:
            d.norm[i] += 1
            j += 1
        i += d.norm[i]


cdef uint64_t calc_factors(TBTable* t, PairsData* d, int order, int order2, int file_) noexcept nogil:
    """Multiplier of each group in the index, in the stored group order; returns the table size."""
    cdef uint64_t fac = 1
    cdef int i = d.norm[0], k = 0, n
    if t.has_pawns and order2 < 0x0F:
        i += d.norm[i]
    n = 64 - i
    while i < t.num or k == order or (t.has_pawns and k == order2):
        if k > TB_MAX_PIECES:
            break
        if k == order:
            d.factor[0] = fac
            fac *= PFACTOR[d.norm[0] - 1][file_] if t.has_pawns else <uint64_t>PIVFAC[t.enc_type]
        elif t.has_pawns and k == order2:
            d.factor[d.norm[0]] = fac
            fac *= binom(48 - d.norm[0], d.norm[d.norm[0]])
        else:
            if d.norm[i] == 0:
                break
            d.factor[i] = fac
            fac *= binom(n, d.norm[i])
            n -= d.norm[i]
            i += d.norm[i]
        k += 1
    return fac


cdef int read_pieces(TBTable* t, TBFile* f, PairsData* d, size_t ptr, int skip, bint high, int order, int order2,
                     int file_) noexcept nogil:
    cdef int i, code
    cdef uint64_t key = 0
    if ptr + skip + t.num > f.size:
        return fail(f, "piece list runs past the end of the file")
    for i in range(t.num):
        code = (f.data[ptr + skip + i] >> 4) if high else (f.data[ptr + skip + i] & 0x0F)
        if (code & 7) < PAWN or (code & 7) > KING:
            return fail(f, "bad piece code in the header")
        d.pieces[i] = code
        if (code & 7) != KING:
            key += material_key_of(code >> 3, code & 7)
    if key != t.key and key != t.mirrored_key:
        return fail(f, "pieces in the header do not match the file name")
    set_norm(t, d)
    d.tb_size = calc_factors(t, d, order, order2, file_)
    return 0


cdef uint64_t key_of_pieces(PairsData* d, int num) noexcept nogil:
    cdef uint64_t key = 0
    cdef int i
    for i in range(num):
        if (d.pieces[i] & 7) != KING:
            key += material_key_of(d.pieces[i] >> 3, d.pieces[i] & 7)
    return key


cdef int layout_blocks(TBFile* f, PairsData** pds, uint64_t* sizes, int count, size_t ptr) noexcept nogil:
    """Index tables, then size tables, then 64-byte aligned data blocks, in subtable order."""
    cdef int i
    for i in range(count):
        pds[i].indextable = f.data + ptr
        ptr += sizes[3 * i]
    for i in range(count):
        pds[i].sizetable = f.data + ptr
        ptr += sizes[3 * i + 1]
    for i in range(count):
        ptr = (ptr + 0x3F) & ~(<size_t>0x3F)
        pds[i].data = f.data + ptr
        ptr += sizes[3 * i + 2]
    if ptr > f.size:
        return fail(f, "file is shorter than its header says (truncated?)")
    return 0


cdef int init_wdl(TBTable* t) noexcept nogil:
    cdef TBFile* f = &t.wdl
    cdef const uint8_t* data = f.data
    cdef int split = data[4] & 1, files, fl, side, count = 0, skip
    cdef size_t ptr = 5, next_ptr
    cdef uint64_t sizes[24]
    cdef PairsData* pds[8]
    files = 4 if t.has_pawns else 1
    if t.has_pawns and not (data[4] & 2):
        return fail(f, "pawn table without per-file subtables")
    t.split = split
    skip = (2 if t.pawns[1] else 1) if t.has_pawns else 1
    for fl in range(files):
        for side in range(2):
            if read_pieces(t, f, &t.wdl_pd[fl][side], ptr, skip, side == 1,
                           (data[ptr] >> 4) if side else (data[ptr] & 0x0F),
                           ((data[ptr + 1] >> 4) if side else (data[ptr + 1] & 0x0F)) if t.has_pawns and t.pawns[1]
                           else 0x0F, fl) < 0:
                return -1
        ptr += t.num + skip
    ptr += ptr & 1
    if not t.has_pawns:
        f.key = key_of_pieces(&t.wdl_pd[0][0], t.num)
    for fl in range(files):
        for side in range(1 + split):
            if setup_pairs(f, &t.wdl_pd[fl][side], ptr, True, &sizes[3 * count], &next_ptr) < 0:
                return -1
            pds[count] = &t.wdl_pd[fl][side]
            count += 1
            ptr = next_ptr
    return layout_blocks(f, pds, sizes, count, ptr)


cdef int init_dtz(TBTable* t) noexcept nogil:
    cdef TBFile* f = &t.dtz
    cdef const uint8_t* data = f.data
    cdef int files, fl, count = 0, skip, i
    cdef size_t ptr = 5, next_ptr, map_start
    cdef uint64_t sizes[12]
    cdef PairsData* pds[4]
    files = 4 if t.has_pawns else 1
    if t.has_pawns and not (data[4] & 2):
        return fail(f, "pawn table without per-file subtables")
    skip = (2 if t.pawns[1] else 1) if t.has_pawns else 1
    for fl in range(files):
        if read_pieces(t, f, &t.dtz_pd[fl], ptr, skip, False, data[ptr] & 0x0F,
                       (data[ptr + 1] & 0x0F) if t.has_pawns and t.pawns[1] else 0x0F, fl) < 0:
            return -1
        ptr += t.num + skip
    ptr += ptr & 1
    if not t.has_pawns:
        f.key = key_of_pieces(&t.dtz_pd[0], t.num)
    for fl in range(files):
        if setup_pairs(f, &t.dtz_pd[fl], ptr, False, &sizes[3 * count], &next_ptr) < 0:
            return -1
        pds[count] = &t.dtz_pd[fl]
        count += 1
        ptr = next_ptr
    map_start = ptr
    f.dtz_map = data + ptr
    for fl in range(files):
        if t.dtz_pd[fl].flags & 2:
            if t.dtz_pd[fl].flags & 16:
                ptr += ptr & 1
                for i in range(4):
                    if ptr + 2 > f.size:
                        return fail(f, "value map runs past the end of the file")
                    t.dtz_pd[fl].map_idx[i] = <int>((ptr + 2 - map_start) // 2)
                    ptr += 2 + 2 * u16le(data + ptr)
            else:
                for i in range(4):
                    if ptr + 1 > f.size:
                        return fail(f, "value map runs past the end of the file")
                    t.dtz_pd[fl].map_idx[i] = <int>(ptr + 1 - map_start)
                    ptr += 1 + data[ptr]
    ptr += ptr & 1
    if ptr > f.size:
        return fail(f, "value map runs past the end of the file")
    return layout_blocks(f, pds, sizes, count, ptr)


cdef int open_file(TBTable* t, TBFile* f, bint wdl) noexcept nogil:
    """Map the file and read its headers; on any problem the file is marked unusable."""
    cdef int fd
    cdef struct_stat st
    cdef void* mapped
    cdef const uint8_t* magic
    if f.path is NULL:
        return fail(f, "no such file")
    fd = c_open(f.path, O_RDONLY)
    if fd < 0:
        return fail(f, "cannot open the file")
    if fstat(fd, &st) != 0 or st.st_size < 16 or st.st_size % 64 != 16:
        c_close(fd)
        return fail(f, "file size is not 16 plus a multiple of 64 bytes (truncated or not a Syzygy table)")
    mapped = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0)
    c_close(fd)
    if mapped == MAP_FAILED:
        return fail(f, "cannot map the file into memory")
    f.data = <const uint8_t*>mapped
    f.size = st.st_size
    magic = f.data
    if wdl and not (magic[0] == 0x71 and magic[1] == 0xE8 and magic[2] == 0x23 and magic[3] == 0x5D):
        return fail(f, "wrong magic number: not a Syzygy WDL (.rtbw) file")
    if not wdl and not (magic[0] == 0xD7 and magic[1] == 0x66 and magic[2] == 0x0C and magic[3] == 0xA5):
        return fail(f, "wrong magic number: not a Syzygy DTZ (.rtbz) file")
    return init_wdl(t) if wdl else init_dtz(t)


cdef void release_pairs(PairsData* d) noexcept nogil:
    free(d.symlen)
    free(d.base)
    d.symlen = NULL
    d.base = NULL


cdef bint ensure_open(TBTable* t, TBFile* f, bint wdl) noexcept nogil:
    """Open on first use (double-checked under the lock); False if the file is unusable."""
    cdef int state = PONDEROSA_LOAD_ACQ(&f.state)
    cdef int fl, side
    if state == FILE_READY:
        return True
    if state == FILE_BROKEN:
        return False
    PONDEROSA_TB_LOCK()
    if f.state == FILE_UNOPENED:
        if open_file(t, f, wdl) == 0:
            PONDEROSA_STORE_REL(&f.state, FILE_READY)
        else:
            for fl in range(4):
                if wdl:
                    release_pairs(&t.wdl_pd[fl][1])
                    release_pairs(&t.wdl_pd[fl][0])
                else:
                    release_pairs(&t.dtz_pd[fl])
            if f.data is not NULL:
                munmap(<void*>f.data, f.size)
                f.data = NULL
            PONDEROSA_STORE_REL(&f.state, FILE_BROKEN)
    state = f.state
    PONDEROSA_TB_UNLOCK()
    return state == FILE_READY


cdef TBTable* find_table(uint64_t key) noexcept nogil:
    cdef uint64_t slot = (key * TB_MIX1) >> 51
    cdef int probes
    for probes in range(HASH_SLOTS):
        if HASH[slot] == 0:
            return NULL
        if HASH_KEYS[slot] == key:
            return &TABLES[HASH[slot] - 1]
        slot = (slot + 1) & (HASH_SLOTS - 1)
    return NULL

