# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The core in one extension module: position, move generation, perft, SEE, evaluation,
transposition table, Syzygy probing and the search.

Every part is an include file, in the order its tables are built at import; core.pxd declares
their types, tables and functions once. Being one C file, the search's calls to make/unmake,
move generation, evaluation, SEE and the table are direct calls the C compiler may inline,
and the attack tables are read without the indirection of another module's exported pointer.

Its Python names (Board, Evaluator, Network, TranspositionTable, Search, the Syzygy functions, the
score constants) are imported from this module, `from ponderosa.core_ext.core import Board`;
core.pyi declares them for type checkers.
"""
cimport cython
from libc.math cimport log
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memmove, memset, strncpy
from libc.time cimport clock_t, clock, CLOCKS_PER_SEC
from posix.fcntl cimport open as c_open, O_RDONLY
from posix.mman cimport (
    mmap, munmap, madvise, MAP_FAILED, MAP_PRIVATE, MAP_ANONYMOUS, MAP_SHARED, PROT_READ, PROT_WRITE, MADV_HUGEPAGE,
)
from posix.stat cimport fstat, struct_stat
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from posix.unistd cimport close as c_close

include "bitboard_tables.pxi"      # attack tables and magics, built at import
include "zobrist_keys.pxi"         # the Polyglot keys
include "position.pxi"             # make/unmake, keys, FEN
include "upcoming_repetition.pxi"  # cuckoo tables: a move that repeats an earlier position
include "movegen.pxi"              # legal move generation
include "perft.pxi"                # perft with bulk counting
include "see.pxi"                  # static exchange evaluation
include "board.pxi"                # Board, the Python face of a position
include "nnue_network.pxi"         # the loaded network
include "nnue_accumulator.pxi"     # its incremental first layer and output
include "evaluation.pxi"           # static evaluation (with eval_*.pxi and evaluator.pxi: Evaluator)
include "transposition_table.pxi"  # transposition table, TranspositionTable
include "syzygy.pxi"               # Syzygy probing (with syzygy_*.pxi) and its Python functions
include "search_history.pxi"       # move-ordering statistics
include "search.pxi"               # the search (with search_*.pxi and searcher.pxi: Search)
