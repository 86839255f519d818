"""The start-up banner a person sees at the console (as Crafty prints one); never in protocol mode."""
from __future__ import annotations

from ponderosa.engine.engine import EngineSummary
from ponderosa.engine.identity import FULL_NAME


def format_bytes(size: int) -> str:
    """1073741824 -> "1G", 4194304 -> "4M", 1536 -> "1536": the units `hash` takes."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


def banner_lines(summary: EngineSummary) -> list[str]:
    lines = [f"{FULL_NAME}, an XBoard/WinBoard chess engine (GPL-3.0-or-later). `help` lists the commands.",
             f"hash table memory = {format_bytes(summary.hash_bytes)} bytes, "
             f"pawn hash table memory = {format_bytes(summary.pawn_hash_bytes)} bytes",
             f"search threads = {summary.threads}"]
    for name, (path, positions) in summary.books.items():
        lines.append(f"{name}: {path} ({positions:,} positions)")
    if not summary.books:
        lines.append("opening book: none")
    lines.append(f"learned data: {summary.learned_location}")
    if summary.tablebases is not None:
        path, pieces = summary.tablebases
        lines.append(f"{pieces} piece tablebase files found in {path}")
    return lines
