# cython: language_level=3
"""Syzygy tablebases' Python side (registering files, the cache, probes for tools and tests):
compiled in ponderosa.core_ext.core (the core's one C unit, from syzygy_main.pxi and
syzygy_*.pxi, since the search probes the tables); this module keeps its import path."""
from ponderosa.core_ext.core import (
    DTZ_MAGIC, PIECE_TYPES, TABLE_NAME, WDL_MAGIC, _check_file, _name_key, bench_wdl, cache_bytes, index_tables,
    largest, probe_dtz, probe_wdl, problems, set_cache, set_paths, table_count,
)

__all__ = ["DTZ_MAGIC", "PIECE_TYPES", "TABLE_NAME", "WDL_MAGIC", "_check_file", "_name_key", "bench_wdl",
           "cache_bytes", "index_tables", "largest", "probe_dtz", "probe_wdl", "problems", "set_cache", "set_paths",
           "table_count"]
