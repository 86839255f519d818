"""Settings a running search uses (the hash tables and clearing them, the search threads, the
tablebases, the network) asked for while it runs. The rule for every front end: such a change
waits for the search's end, pondering included, and is applied before anything else searches
(SearchSettings.apply_pending_settings, engine/settings.py)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PendingSettings:
    """What waits for the running search's end; None: nothing asked for."""

    hash_bytes: int | None = None
    pawn_hash_bytes: int | None = None
    threads: int | None = None
    tablebase_cache_bytes: int | None = None
    tablebase_path: str | None = None
    eval_file: str | None = None
    clear_tables: bool = False   # Clear Hash, `new`'s table reset: the tables start afresh


@dataclass
class AppliedSettings:
    """What waited and has been applied since the front end last asked, for it to report."""

    threads: bool = False                        # the thread count changed (Engine.threads)
    tablebase_messages: list[str] | None = None    # the tables changed: problems of the old ones, then the new
    evaluation_messages: list[str] | None = None   # the network changed: what could not be used
    resource_messages: list[str] = field(default_factory=list)   # memory or threads not had: the old kept
