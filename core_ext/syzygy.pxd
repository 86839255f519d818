# Syzygy endgame tablebases: WDL (.rtbw) and DTZ (.rtbz) probes callable without the GIL.
from ponderosa.core_ext.position cimport Position

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
