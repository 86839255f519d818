# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Syzygy tablebase probing in C: memory-mapped files, opened on first use, checked when opened.

Format facts (piece encoding, Huffman-coded blocks, DTZ maps) come from the generator's
sources and python-chess's reader; the code is this project's own. Regular chess only."""
import os
import re
import time

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, strncpy
from posix.fcntl cimport open as c_open, O_RDONLY
from posix.unistd cimport close as c_close
from posix.stat cimport fstat, struct_stat
from posix.mman cimport mmap, munmap, PROT_READ, MAP_SHARED, MAP_FAILED

from ponderosa.core_ext.bitboard cimport (
    Bitboard, Move, MAX_MOVES, NO_SQUARE, PAWN, KING, FLAG_EN_PASSANT, popcount, lsb, move_from, move_to, move_flag,
)
from ponderosa.core_ext.board cimport Board
from ponderosa.core_ext.movegen cimport generate_legal
from ponderosa.core_ext.position cimport Position, MAX_STATES, do_move, undo_move, in_check

cdef extern from *:
    """
    #include <pthread.h>
    static pthread_mutex_t ponderosa_tb_mutex = PTHREAD_MUTEX_INITIALIZER;
    #define PONDEROSA_TB_LOCK() pthread_mutex_lock(&ponderosa_tb_mutex)
    #define PONDEROSA_TB_UNLOCK() pthread_mutex_unlock(&ponderosa_tb_mutex)
    #define PONDEROSA_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
    #define PONDEROSA_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
    #define PONDEROSA_LOAD64(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define PONDEROSA_STORE64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
    #define TB_MIX1 0x9E3779B97F4A7C15ULL
    #define TB_MIX2 0xD6E8FEB86659FD93ULL
    """
    void PONDEROSA_TB_LOCK() noexcept nogil
    void PONDEROSA_TB_UNLOCK() noexcept nogil
    int PONDEROSA_LOAD_ACQ(int* p) noexcept nogil
    void PONDEROSA_STORE_REL(int* p, int v) noexcept nogil
    uint64_t PONDEROSA_LOAD64(uint64_t* p) noexcept nogil
    void PONDEROSA_STORE64(uint64_t* p, uint64_t v) noexcept nogil
    const uint64_t TB_MIX1
    const uint64_t TB_MIX2

cdef enum:
    FILE_UNOPENED = 0
    FILE_READY = 1
    FILE_BROKEN = -1
    HASH_SLOTS = 8192           # open addressing over material keys (7-piece sets have ~1,500 tables)
    ERROR_LEN = 200

cdef struct PairsData:
    const uint8_t* indextable   # 6 bytes per index entry: block (u32) and offset (u16)
    const uint8_t* sizetable    # u16 per block: positions in the block minus one
    const uint8_t* data         # the Huffman-coded blocks
    const uint8_t* lowest_sym   # u16 per code length, from min_len up
    const uint8_t* sympat       # 3 bytes per symbol: its two children, or a leaf value
    int* symlen                 # values a symbol stands for, minus one
    uint64_t* base              # canonical-code limits per length, left-aligned to 64 bits
    uint64_t num_indices
    uint64_t num_blocks         # size-table entries
    uint64_t real_num_blocks    # data blocks
    uint64_t tb_size            # positions in this subtable
    int blocksize, idxbits, min_len, max_len, num_syms
    int constant                # idxbits == 0: every position has this value
    int flags                   # DTZ: side stored (bit 0), mapped (2), loss/win plies (4, 8), wide map (16)
    int map_idx[4]
    uint8_t pieces[TB_MAX_PIECES]
    uint8_t norm[TB_MAX_PIECES]
    uint64_t factor[TB_MAX_PIECES]

cdef struct TBFile:
    char* path
    const uint8_t* data
    size_t size
    int state
    uint64_t key                # material key whose white pieces are the table's white pieces
    const uint8_t* dtz_map
    char error[ERROR_LEN]

cdef struct TBTable:
    uint64_t key                # from the file name; mirrored_key has the colours swapped
    uint64_t mirrored_key
    int num
    int has_pawns
    int symmetric
    int enc_type                # 0: three or more unique pieces, 2: only the kings unique
    int split                   # WDL: one subtable per side to move (else only white to move is stored)
    int pawns[2]                # leading pawn count, other colour's pawn count
    int id
    TBFile wdl
    TBFile dtz
    PairsData wdl_pd[4][2]      # [file of the leading pawn][side]; pieceless tables use [0]
    PairsData dtz_pd[4]
    char name[16]

cdef int TB_LARGEST = 0
cdef TBTable* TABLES = NULL
cdef int TABLE_COUNT = 0
cdef int HASH[HASH_SLOTS]       # table index + 1, 0 = empty
cdef uint64_t HASH_KEYS[HASH_SLOTS]
cdef uint64_t* CACHE = NULL     # decoded values: (hash & ~0xFFFF) | (value + 1)
cdef uint64_t CACHE_MASK = 0
cdef size_t CACHE_BYTES = 0

# Index tables, built once at import.
cdef uint64_t BINOM[65][8]      # BINOM[n][k] = n choose k
cdef int TRIANGLE[64]           # a1-d1-d4 triangle: off-diagonal squares 0..5, diagonal 6..9
cdef int LOWER[64]              # squares below the a1-h8 diagonal, 0..27
cdef int KK_IDX[10][64]         # the 462 king pairs, first king in the triangle
cdef int FLAP[64]               # leading-pawn square (files a-d) to 0..23
cdef int PTWIST[64]             # pawn square to 0..47, edge files and low ranks highest
cdef int INVFLAP[24]
cdef uint64_t PAWNIDX[6][24]
cdef uint64_t PFACTOR[6][4]
cdef int PIVFAC[3]
PIVFAC[0] = 31332
PIVFAC[1] = 0
PIVFAC[2] = 462
cdef int WDL_TO_MAP[5]
WDL_TO_MAP[:] = [1, 3, 0, 2, 0]
cdef int PA_FLAGS[5]
PA_FLAGS[:] = [8, 0, 0, 0, 4]
cdef int WDL_TO_DTZ[5]
WDL_TO_DTZ[:] = [-1, -101, 0, 101, 1]


cdef inline int offdiag(int sq) noexcept nogil:
    return (sq >> 3) - (sq & 7)


cdef inline int flipdiag(int sq) noexcept nogil:
    return ((sq >> 3) | (sq << 3)) & 63


cdef void init_index_tables() noexcept nogil:
    cdef int n, k, sq, code, idx, s1, s2, f, r, j, t
    cdef int diag_first[10]
    cdef int pending_idx[64]
    cdef int pending_sq[64]
    cdef int pending = 0
    cdef uint64_t total
    for n in range(65):
        for k in range(8):
            if k == 0:
                BINOM[n][k] = 1
            elif n == 0:
                BINOM[n][k] = 0
            else:
                BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]
    for sq in range(64):
        TRIANGLE[sq] = -1
        LOWER[sq] = -1
        FLAP[sq] = 0
        PTWIST[sq] = 0
    code = 0
    for sq in range(64):
        if offdiag(sq) < 0 and (sq & 7) <= 3 and (sq >> 3) <= 3:
            TRIANGLE[sq] = code
            code += 1
    for sq in range(0, 28, 9):   # a1, b2, c3, d4 come after the off-diagonal squares
        TRIANGLE[sq] = code
        code += 1
    code = 0
    for sq in range(64):
        if offdiag(sq) < 0:
            LOWER[sq] = code
            code += 1
    # King pairs: the first in the triangle; on the diagonal, the second not above it.
    # Pairs with both kings on the diagonal come last.
    code = 0
    for idx in range(10):
        for s1 in range(64):
            if TRIANGLE[s1] != idx:
                continue
            for s2 in range(64):
                KK_IDX[idx][s2] = -1
                if (s1 >> 3) - (s2 >> 3) in (-1, 0, 1) and (s1 & 7) - (s2 & 7) in (-1, 0, 1):
                    continue
                if offdiag(s1) == 0 and offdiag(s2) > 0:
                    continue
                if offdiag(s1) == 0 and offdiag(s2) == 0:
                    pending_idx[pending] = idx
                    pending_sq[pending] = s2
                    pending += 1
                    continue
                KK_IDX[idx][s2] = code
                code += 1
    for j in range(pending):
        KK_IDX[pending_idx[j]][pending_sq[j]] = code
        code += 1
    for sq in range(8, 56):
        f = sq & 7
        r = sq >> 3
        t = f if f < 4 else 7 - f
        FLAP[sq] = t * 6 + r - 1
        PTWIST[sq] = 47 - (1 if f >= 4 else 0) - 2 * (r - 1) - 12 * t
    for j in range(24):
        INVFLAP[j] = (j % 6 + 1) * 8 + j // 6
    for k in range(6):
        for f in range(4):
            total = 0
            for j in range(f * 6, f * 6 + 6):
                PAWNIDX[k][j] = total
                total += 1 if k == 0 else BINOM[PTWIST[INVFLAP[j]]][k]
            PFACTOR[k][f] = total


init_index_tables()


cdef inline uint64_t binom(int n, int k) noexcept nogil:
    if n < 0 or k < 0 or k > 7 or n > 64:
        return 0
    return BINOM[n][k]


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


# -- probing with captures resolved ------------------------------------------------------------

cdef inline bint room_for(Position* pos) noexcept nogil:
    return pos.ply + 2 * TB_MAX_PIECES + 4 < MAX_STATES


cdef int probe_ab(Position* pos, int alpha, int beta, int* success) noexcept nogil:
    """WDL with the captures searched first (tables store positions where a capture is not better).
    success: 1, or 2 when a capture is the best move; 0 when a table is missing."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i, v
    if not room_for(pos):
        success[0] = 0
        return 0
    n = generate_legal(pos, moves)
    for i in range(n):
        if pos.board[move_to(moves[i])] == 0:
            continue   # not a capture (e.p. is handled by the callers)
        do_move(pos, moves[i])
        v = -probe_ab(pos, -beta, -alpha, success)
        undo_move(pos)
        if success[0] == 0:
            return 0
        if v > alpha:
            if v >= beta:
                success[0] = 2
                return v
            alpha = v
    v = probe_table(pos, False, 0, success)
    if success[0] != 1:
        success[0] = 0
        return 0
    v -= 2
    if alpha >= v:
        success[0] = 2 if alpha > 0 else 1
        return alpha
    success[0] = 1
    return v


cdef int best_ep_capture_wdl(Position* pos, bint* only_ep, int* success) noexcept nogil:
    """The best WDL among the en-passant captures (-3 when there is none); only_ep says whether
    they are the only legal moves. The tables leave e.p. out, so both probes look at it here."""
    cdef Move moves[MAX_MOVES]
    cdef int v0, v1 = -3, n, i, s
    only_ep[0] = True
    n = generate_legal(pos, moves)
    for i in range(n):
        if move_flag(moves[i]) != FLAG_EN_PASSANT:
            only_ep[0] = False
            continue
        do_move(pos, moves[i])
        v0 = -probe_ab(pos, -2, 2, &s)
        undo_move(pos)
        if s == 0:
            success[0] = 0
            return 0
        if v0 > v1:
            v1 = v0
    return v1


cdef int probe_wdl_full(Position* pos, int* success) noexcept nogil:
    cdef int v, v1
    cdef bint only_ep
    v = probe_ab(pos, -2, 2, success)
    if success[0] == 0 or pos.states[pos.ply].ep_square == NO_SQUARE:
        return v
    v1 = best_ep_capture_wdl(pos, &only_ep, success)
    if success[0] == 0:
        return 0
    if v1 > -3:
        if v1 >= v:
            v = v1
        elif v == 0 and only_ep:
            v = v1   # the losing e.p. capture is the only legal move
    return v


cdef inline int dtz_before_zeroing(int wdl) noexcept nogil:
    if wdl == 0:
        return 0
    return (1 if wdl > 0 else -1) * (1 if wdl == 2 or wdl == -2 else 101)


cdef inline bint is_checkmate(Position* pos) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    return in_check(pos) and generate_legal(pos, moves) == 0


cdef int probe_dtz_no_ep(Position* pos, int* success) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int wdl, n, i, v, dtz, best, s
    cdef Move m
    wdl = probe_ab(pos, -2, 2, success)
    if success[0] == 0:
        return 0
    if wdl == 0:
        return 0
    if success[0] == 2:
        return dtz_before_zeroing(wdl)
    n = generate_legal(pos, moves)
    if wdl > 0:
        # A pawn push that keeps the win resets the counter at once.
        for i in range(n):
            m = moves[i]
            if (pos.board[move_from(m)] & 7) != PAWN or pos.board[move_to(m)] != 0 \
                    or move_flag(m) == FLAG_EN_PASSANT:
                continue
            do_move(pos, m)
            v = -probe_wdl_full(pos, &s)
            undo_move(pos)
            if s == 0:
                success[0] = 0
                return 0
            if v == wdl:
                return 1 if v == 2 else 101
    dtz = probe_table(pos, True, wdl, &s)
    if s == 1:
        return dtz_before_zeroing(wdl) + (dtz if wdl > 0 else -dtz)
    if s == 0:
        success[0] = 0
        return 0
    # The table holds the other side to move: one ply deeper.
    if wdl > 0:
        best = 0xFFFF
        for i in range(n):
            m = moves[i]
            if (pos.board[move_from(m)] & 7) == PAWN or pos.board[move_to(m)] != 0:
                continue
            do_move(pos, m)
            v = -probe_dtz_full(pos, &s)
            if s == 0:
                undo_move(pos)
                success[0] = 0
                return 0
            if v == 1 and is_checkmate(pos):
                best = 1
            elif v > 0 and v + 1 < best:
                best = v + 1
            undo_move(pos)
        return best
    best = -1
    for i in range(n):
        do_move(pos, moves[i])
        if pos.states[pos.ply].halfmove == 0:
            if wdl == -2:
                v = -1
                s = 1
            else:
                v = probe_ab(pos, 1, 2, &s)
                v = 0 if v == 2 else -101
        else:
            v = -probe_dtz_full(pos, &s) - 1
        undo_move(pos)
        if s == 0:
            success[0] = 0
            return 0
        if v < best:
            best = v
    return best


cdef int probe_dtz_full(Position* pos, int* success) noexcept nogil:
    cdef int v, v1
    cdef bint only_ep
    if not room_for(pos):
        success[0] = 0
        return 0
    v = probe_dtz_no_ep(pos, success)
    if success[0] == 0 or pos.states[pos.ply].ep_square == NO_SQUARE:
        return v
    v1 = best_ep_capture_wdl(pos, &only_ep, success)
    if success[0] == 0:
        return 0
    if v1 > -3:
        v1 = WDL_TO_DTZ[v1 + 2]
        if v < -100:
            if v1 >= 0:
                v = v1
        elif v < 0:
            if v1 >= 0 or v1 < -100:
                v = v1
        elif v > 100:
            if v1 > 0:
                v = v1
        elif v > 0:
            if v1 == 1:
                v = v1
        elif v1 >= 0:
            v = v1
        elif only_ep:
            v = v1
    return v


cdef inline bint probe_allowed(Position* pos) noexcept nogil:
    return TABLE_COUNT > 0 and pos.states[pos.ply].castling == 0 \
        and popcount(pos.pieces[0][0] | pos.pieces[1][0]) <= TB_LARGEST


cdef int tb_probe_wdl(Position* pos, int* success) noexcept nogil:
    success[0] = 0
    if not probe_allowed(pos):
        return 0
    success[0] = 1
    return probe_wdl_full(pos, success)


cdef int tb_probe_dtz(Position* pos, int* success) noexcept nogil:
    success[0] = 0
    if not probe_allowed(pos):
        return 0
    success[0] = 1
    return probe_dtz_full(pos, success)


# -- Python side: registering files, the cache, probes for tools and tests ---------------------

TABLE_NAME = re.compile(r"^(K[QRBNP]*)v(K[QRBNP]*)$")
WDL_MAGIC = b"\x71\xe8\x23\x5d"
DTZ_MAGIC = b"\xd7\x66\x0c\xa5"
PIECE_TYPES = "PNBRQK"


def _name_key(white: str, black: str) -> int:
    key = 0
    for colour, part in ((0, white), (1, black)):
        for letter in part[1:]:
            key += 1 << (4 * (colour * 6 + PIECE_TYPES.index(letter)))
    return key


def _check_file(path: str, magic: bytes) -> str | None:
    """A quick look before the file is ever mapped: size and magic number."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror})"
    if size < 16 or size % 64 != 16:
        return f"{path}: size {size} is not 16 plus a multiple of 64 bytes (truncated?); table not used"
    if head != magic:
        return f"{path}: wrong magic number, not a Syzygy table; table not used"
    return None


cdef void close_all() noexcept nogil:
    global TABLES, TABLE_COUNT, TB_LARGEST
    cdef int i, fl
    cdef TBTable* t
    for i in range(TABLE_COUNT):
        t = &TABLES[i]
        for fl in range(4):
            release_pairs(&t.wdl_pd[fl][1])
            release_pairs(&t.wdl_pd[fl][0])
            release_pairs(&t.dtz_pd[fl])
        if t.wdl.data is not NULL:
            munmap(<void*>t.wdl.data, t.wdl.size)
        if t.dtz.data is not NULL:
            munmap(<void*>t.dtz.data, t.dtz.size)
        free(t.wdl.path)
        free(t.dtz.path)
    free(TABLES)
    TABLES = NULL
    TABLE_COUNT = 0
    TB_LARGEST = 0
    memset(HASH, 0, sizeof(HASH))
    if CACHE is not NULL:
        memset(CACHE, 0, (CACHE_MASK + 1) * sizeof(uint64_t))


cdef char* c_path(str path) except? NULL:
    raw = os.fsencode(path)
    cdef char* copy = <char*>malloc(len(raw) + 1)
    if copy is NULL:
        raise MemoryError()
    memset(copy, 0, len(raw) + 1)
    strncpy(copy, raw, len(raw))
    return copy


cdef int hash_insert(uint64_t key, int index) noexcept nogil:
    cdef uint64_t slot = (key * TB_MIX1) >> 51
    while HASH[slot] != 0:
        if HASH_KEYS[slot] == key:
            return 0
        slot = (slot + 1) & (HASH_SLOTS - 1)
    HASH[slot] = index + 1
    HASH_KEYS[slot] = key
    return 0


def set_paths(paths: str) -> list:
    """Forget the tables registered so far and register those in `paths` (separated by the
    OS path separator, or ';'). Returns messages about what was not usable. Never call while
    a search is running: the engine stops it first."""
    global TABLES, TABLE_COUNT, TB_LARGEST
    cdef TBTable* t
    close_all()
    messages = []
    found: dict = {}
    for directory in [p for p in re.split(r"[;" + re.escape(os.pathsep) + "]", paths or "") if p.strip()]:
        directory = os.path.expanduser(directory.strip())
        if not os.path.isdir(directory):
            messages.append(f"{directory}: no such directory")
            continue
        names = sorted(os.listdir(directory))
        count = 0
        for file_name in names:
            stem, ext = os.path.splitext(file_name)
            if ext not in (".rtbw", ".rtbz") or not TABLE_NAME.match(stem) or len(stem) - 1 > TB_MAX_PIECES:
                continue
            count += 1
            entry = found.setdefault(stem, {})
            kind = "wdl" if ext == ".rtbw" else "dtz"
            if kind in entry:
                continue   # the first directory listed wins
            problem = _check_file(os.path.join(directory, file_name), WDL_MAGIC if kind == "wdl" else DTZ_MAGIC)
            if problem:
                messages.append(problem)
                continue
            entry[kind] = os.path.join(directory, file_name)
        if count == 0:
            messages.append(f"{directory}: no Syzygy tables (.rtbw/.rtbz) found")
    usable = [(name, entry) for name, entry in sorted(found.items()) if "wdl" in entry]
    for name, entry in found.items():
        if "wdl" not in entry and "dtz" in entry:
            messages.append(f"{entry['dtz']}: no usable WDL table beside it; not used")
    if not usable:
        return messages
    TABLES = <TBTable*>calloc(len(usable), sizeof(TBTable))
    if TABLES is NULL:
        raise MemoryError()
    largest = 0
    for index, (name, entry) in enumerate(usable):
        t = &TABLES[index]
        white, black = name.split("v")
        t.id = index
        t.num = len(name) - 1
        t.key = _name_key(white, black)
        t.mirrored_key = _name_key(black, white)
        t.symmetric = t.key == t.mirrored_key
        t.has_pawns = "P" in name
        t.wdl.key = t.key
        t.dtz.key = t.key
        strncpy(t.name, name.encode(), 15)
        if t.has_pawns:
            lead, other = black.count("P"), white.count("P")
            if other > 0 and (lead == 0 or other < lead):
                lead, other = other, lead
            t.pawns[0], t.pawns[1] = lead, other
        else:
            unique = sum(1 for letter in "KQRBN" for part in (white, black) if part.count(letter) == 1)
            t.enc_type = 0 if unique >= 3 else 2
        t.wdl.path = c_path(entry["wdl"])
        if "dtz" in entry:
            t.dtz.path = c_path(entry["dtz"])
        else:
            t.dtz.state = FILE_BROKEN
            set_error(&t.dtz, "no DTZ file")
        TABLE_COUNT = index + 1
        hash_insert(t.key, index)
        hash_insert(t.mirrored_key, index)
        largest = max(largest, t.num)
    TB_LARGEST = largest
    return messages


def largest() -> int:
    """Most pieces of any registered table (0: none)."""
    return TB_LARGEST


def table_count() -> int:
    return TABLE_COUNT


def problems() -> list:
    """Files found unusable when first opened, with the reason."""
    cdef int i
    cdef TBFile* f
    out = []
    for i in range(2 * TABLE_COUNT):
        f = &TABLES[i // 2].wdl if i % 2 == 0 else &TABLES[i // 2].dtz
        if f.state == FILE_BROKEN and f.path is not NULL:
            out.append(f"{os.fsdecode(<bytes>f.path)}: {(<bytes>f.error).decode('utf-8', 'replace')}; table not used")
    return out


def set_cache(size_bytes: int) -> int:
    """Size the decoded-value cache (a power of two of 8-byte entries, 0 = off); returns the bytes used.
    Never call while a search is running."""
    global CACHE, CACHE_MASK, CACHE_BYTES
    cdef uint64_t entries = 1
    cdef uint64_t* fresh = NULL
    if size_bytes < 0:
        raise ValueError("cache size must not be negative")
    if size_bytes >= 8:
        while entries * 2 * 8 <= size_bytes:
            entries *= 2
        fresh = <uint64_t*>calloc(entries, sizeof(uint64_t))
        if fresh is NULL:
            raise MemoryError()
    free(CACHE)
    CACHE = fresh
    CACHE_MASK = entries - 1 if fresh is not NULL else 0
    CACHE_BYTES = entries * 8 if fresh is not NULL else 0
    return CACHE_BYTES


def cache_bytes() -> int:
    return CACHE_BYTES


def probe_wdl(Board board):
    """WDL of the board (-2..2 from the side to move), or None if no table answers."""
    cdef int ok, v
    with nogil:
        v = tb_probe_wdl(board.pos, &ok)
    return v if ok else None


def probe_dtz(Board board):
    """DTZ of the board (python-chess's convention, plies to a zeroing move), or None."""
    cdef int ok, v
    with nogil:
        v = tb_probe_dtz(board.pos, &ok)
    return v if ok else None


def bench_wdl(list boards, int rounds = 1) -> tuple:
    """Probe every board `rounds` times without the GIL; returns (probes, hits, seconds)."""
    cdef int n = len(boards), i, r, ok, hits = 0
    cdef Position** positions = <Position**>malloc(max(n, 1) * sizeof(Position*))
    cdef Board b
    if positions is NULL:
        raise MemoryError()
    for i in range(n):
        b = boards[i]
        positions[i] = b.pos
    start = time.perf_counter()
    with nogil:
        for r in range(rounds):
            for i in range(n):
                tb_probe_wdl(positions[i], &ok)
                hits += ok != 0
    seconds = time.perf_counter() - start
    free(positions)
    return n * rounds, hits, seconds


def index_tables() -> dict:
    """The generated index tables, for tests against the format's published values."""
    return {"KK_IDX": [[KK_IDX[i][j] for j in range(64)] for i in range(10)],
            "PTWIST": [PTWIST[i] for i in range(64)], "FLAP": [FLAP[i] for i in range(64)],
            "PAWNIDX": [[PAWNIDX[i][j] for j in range(24)] for i in range(5)],
            "PFACTOR": [[PFACTOR[i][j] for j in range(4)] for i in range(5)]}


set_cache(4 << 20)
