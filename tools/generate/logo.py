"""Draw Ponderosa's 100x50 logo (a ponderosa pine beside a pawn) as protocol/ponderosa.png.

Standard library only (zlib + struct): run `python -m tools.generate.logo` after changing the drawing."""
from __future__ import annotations

import struct
import zlib

from tools import ROOT

WIDTH, HEIGHT = 100, 50
SKY = (244, 239, 225)
BARK = (120, 72, 40)
NEEDLES = (34, 102, 52)
PAWN = (40, 40, 48)
OUT = ROOT / "protocol" / "ponderosa.png"


def pixel(x: int, y: int) -> tuple[int, int, int]:
    """The colour at (x, y), y down: a tiered pine at x~30, a pawn at x~72."""
    # Pine: three stacked triangles of needles over a trunk.
    for top, bottom, half in ((4, 20, 9), (12, 30, 13), (20, 40, 17)):
        if top <= y <= bottom and abs(x - 30) <= half * (y - top) / (bottom - top):
            return NEEDLES
    if 40 < y <= 46 and 27 <= x <= 33:
        return BARK
    # Pawn: head, neck, body and base.
    if (x - 72) ** 2 + (y - 14) ** 2 <= 36:
        return PAWN
    if 20 <= y <= 23 and abs(x - 72) <= 5:
        return PAWN
    if 23 < y <= 38 and abs(x - 72) <= 3 + (y - 23) * 5 / 15:
        return PAWN
    if 38 < y <= 44 and abs(x - 72) <= 12:
        return PAWN
    return SKY


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)   # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) \
        + chunk(b"IEND", b"")


if __name__ == "__main__":
    OUT.write_bytes(png(WIDTH, HEIGHT))
    print(f"wrote {OUT}")
