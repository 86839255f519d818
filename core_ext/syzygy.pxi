# Included by core.pyx, the core's one C unit:
# Syzygy tablebase probing in C: memory-mapped files, opened on first use, checked when opened.
#
# Format facts (piece encoding, Huffman-coded blocks, DTZ maps) come from the generator's
# sources and python-chess's reader; the code is this project's own. Regular chess only.

import os
import re
import stat as file_modes
import time


cdef extern from *:
    """
    #include <pthread.h>
    static pthread_mutex_t ponderosa_tb_mutex = PTHREAD_MUTEX_INITIALIZER;
    #define PONDEROSA_TB_LOCK() pthread_mutex_lock(&ponderosa_tb_mutex)
    #define PONDEROSA_TB_UNLOCK() pthread_mutex_unlock(&ponderosa_tb_mutex)
    #define PONDEROSA_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
    #define PONDEROSA_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
    #define TB_MIX1 0x9E3779B97F4A7C15ULL
    #define TB_MIX2 0xD6E8FEB86659FD93ULL
    """
    # (PONDEROSA_LOAD64 and PONDEROSA_STORE64, relaxed whole-word atomics, come from transposition_table.pxi)
    void PONDEROSA_TB_LOCK() noexcept nogil
    void PONDEROSA_TB_UNLOCK() noexcept nogil
    int PONDEROSA_LOAD_ACQ(int* p) noexcept nogil
    void PONDEROSA_STORE_REL(int* p, int v) noexcept nogil
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


# The C side in four parts, by what each owns; included here, so they stay one module.
include "syzygy_index.pxi"
include "syzygy_file.pxi"
include "syzygy_decode.pxi"
include "syzygy_probe.pxi"


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
    """A quick look before the file is ever mapped: a regular file (a FIFO named like a table
    would block the open), its size and its magic number."""
    try:
        info = os.stat(path)
        if not file_modes.S_ISREG(info.st_mode):
            return f"{path}: not a regular file; table not used"
        size = info.st_size
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
