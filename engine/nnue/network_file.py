"""The network file: header, quantised weights, checksum. One network per file.

Layout (little-endian):

    8 bytes  magic b"PONDNNUE"
    u32 x 7  format version (2 or 3), inputs (768 x K), hidden neurons, QA, QB, output scale,
             length of the description
    u32      output buckets B (versions 2 and 3; version 1 has one)
    u32      king mirroring, 0 or 1 (version 3 only)
    64 bytes the king bucket of each square (version 3 only; versions 1 and 2 have one bucket)
    UTF-8    description (what the network was trained on; shown by the console's `eval`)
    int16    first-layer weights, inputs x hidden, one input's column after another
    int16    first-layer biases, hidden
    int16    output weights, B x 2 x hidden: bucket by bucket, each side to move's half first
    int32    output biases, B
    u32      CRC-32 of everything before it

The output bucket of a position is chosen by its number of pieces, kings included
(`output_bucket`): B = 8 gives one bucket for 2-4 pieces, one for 5-8, ..., one for 29-32.
Files of version 1 (one output, no bucket count) are still read.

King buckets (version 3) make the first layer's weights depend on where the perspective's own
king stands: K sets of 768 inputs, the set chosen by the bucket of the king's square seen from
that perspective (flipped vertically for Black, as the inputs are). With king mirroring, a king
on files e-h has the whole board mirrored left to right first, so the weights of a set serve
both wings. `KingLayout` holds both; a network without king buckets is written as version 2,
which engines without king buckets read too.

A file that is missing, cut short, of another shape or with a wrong checksum raises
NetworkFileError with a message naming the file; the engine then keeps the hand-written evaluation.
"""
from __future__ import annotations

import struct
import sys
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"PONDNNUE"
VERSION = 3                      # written only for networks with king buckets
PLAIN_VERSION = 2                # written for the others, which engines without king buckets read too
READABLE_VERSIONS = (1, 2, 3)
INPUTS = 768                     # inputs per king bucket
HEADER = struct.Struct("<8s7I")
BUCKETS_FIELD = struct.Struct("<I")
KING_FIELDS = struct.Struct("<I64s")   # king mirroring, then each square's king bucket
MAX_HIDDEN = 4096                # the widest first layer the loader accepts
MAX_BUCKETS = 8                  # the most output buckets (the core's NNUE_MAX_BUCKETS)
MAX_KING_BUCKETS = 16            # the most king buckets (the core's NNUE_MAX_KING_BUCKETS)
MAX_DESCRIPTION_BYTES = 1 << 16
# The largest file of the largest shape the loader accepts: a larger file is refused unread.
MAX_FILE_BYTES = (HEADER.size + BUCKETS_FIELD.size + KING_FIELDS.size + MAX_DESCRIPTION_BYTES
                  + 2 * (INPUTS * MAX_KING_BUCKETS * MAX_HIDDEN + MAX_HIDDEN + MAX_BUCKETS * 2 * MAX_HIDDEN)
                  + 4 * MAX_BUCKETS + 4)
PIECES_MAX = 32


@dataclass(frozen=True)
class KingLayout:
    """Which set of first-layer weights a perspective uses, by its own king's square (a1 = 0 ..
    h8 = 63, seen from the perspective: Black's flipped vertically). `buckets[square]` is the
    set; with `mirror`, a king on files e-h mirrors the board left to right first."""

    buckets: bytes = bytes(64)
    mirror: bool = False

    @property
    def count(self) -> int:
        return max(self.buckets) + 1

    @property
    def plain(self) -> bool:
        """One set and no mirroring: the network of version 2, without king buckets."""
        return self.count == 1 and not self.mirror

    def transform(self, king_square: int) -> tuple[int, int]:
        """(bucket, file flip: 0 or 7, to XOR into a square) for the perspective's king square."""
        return self.buckets[king_square], 7 if self.mirror and king_square & 7 >= 4 else 0


NO_KING_BUCKETS = KingLayout()


def _layout(rows: list[str], mirror: bool) -> KingLayout:
    """A layout from eight rows of bucket digits, rank 8 first, as a board is drawn."""
    squares = [int(digit) for row in reversed(rows) for digit in row.split()]
    return KingLayout(bytes(squares), mirror)


# Named layouts for the trainer (python -m tools.nnue.train --king-buckets NAME).
KING_LAYOUTS = {
    "none": NO_KING_BUCKETS,
    # Four sets, wings mirrored: the castled corner, the king beside it or in the centre of the
    # first rank, the second rank, and everywhere further up (the ending's king).
    "mirrored-4": _layout(["3 3 3 3 3 3 3 3"] * 6 + ["2 2 2 2 2 2 2 2", "0 0 1 1 1 1 0 0"], True),
    # Eight: the first two ranks by wing and centre, then the third rank, the fourth, and two
    # ranks at a time beyond.
    "mirrored-8": _layout(["7 7 7 7 7 7 7 7"] * 2 + ["6 6 6 6 6 6 6 6"] * 2
                          + ["5 5 5 5 5 5 5 5", "4 4 4 4 4 4 4 4", "2 2 3 3 3 3 2 2", "0 0 1 1 1 1 0 0"], True),
}


def output_bucket(pieces: int, buckets: int) -> int:
    """The output bucket of a position with this many pieces (kings included, 2-32)."""
    return min(buckets - 1, max(0, (pieces - 1) * buckets // PIECES_MAX))


class NetworkFileError(ValueError):
    """A network file that cannot be used; the message names the file and the reason."""


def int16_array(data: bytes) -> array:
    """Little-endian int16 values as an array('h') (the engine reads networks without numpy,
    which would add a twentieth of a second to every start)."""
    values = array("h")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def int16_bytes(values: array) -> bytes:
    if sys.byteorder == "big":
        values = array("h", values)
        values.byteswap()
    return values.tobytes()


@dataclass
class QuantisedNetwork:
    """The integers the core computes with, as flat array('h') (any int16 buffer will do)."""

    ft_weights: array         # int16, inputs x hidden, one input's column after another
    ft_bias: array            # int16 [hidden]
    out_weights: array        # int16 [buckets * 2 * hidden], bucket by bucket
    out_biases: tuple[int, ...]  # int32 [buckets]
    qa: int
    qb: int
    scale: int
    description: str = ""
    king_layout: KingLayout = NO_KING_BUCKETS

    @property
    def hidden(self) -> int:
        return len(self.ft_bias)

    @property
    def inputs(self) -> int:
        return INPUTS * self.king_layout.count

    @property
    def buckets(self) -> int:
        return len(self.out_biases)


def network_bytes(net: QuantisedNetwork) -> bytes:
    description = net.description.encode("utf-8")
    layout = net.king_layout
    king_fields = b"" if layout.plain else KING_FIELDS.pack(int(layout.mirror), layout.buckets)
    body = b"".join([
        HEADER.pack(MAGIC, PLAIN_VERSION if layout.plain else VERSION, net.inputs, net.hidden, net.qa, net.qb,
                    net.scale, len(description)),
        BUCKETS_FIELD.pack(net.buckets),
        king_fields,
        description,
        int16_bytes(net.ft_weights),
        int16_bytes(net.ft_bias),
        int16_bytes(net.out_weights),
        struct.pack(f"<{net.buckets}i", *net.out_biases),
    ])
    return body + struct.pack("<I", zlib.crc32(body))


def write_network(path: Path, net: QuantisedNetwork) -> None:
    """Write the network atomically (a temporary file renamed over path)."""
    # Imported here: reading a network needs only the standard library (setup.py's PGO run loads
    # this file on its own).
    from ponderosa.engine.records import write_atomically
    write_atomically(path, network_bytes(net))


def parse_network(data: bytes, name: str = "network") -> QuantisedNetwork:
    """The network in data; NetworkFileError naming `name` when it is not a whole, sound file."""
    if len(data) < HEADER.size + 4:
        raise NetworkFileError(f"{name}: too short for a network file ({len(data)} bytes)")
    magic, version, inputs, hidden, qa, qb, scale, text_length = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise NetworkFileError(f"{name}: not a Ponderosa network file")
    if version not in READABLE_VERSIONS:
        raise NetworkFileError(f"{name}: format version {version}, this engine reads "
                               + " and ".join(str(known) for known in READABLE_VERSIONS))
    offset = HEADER.size
    buckets = 1
    if version >= 2:
        if len(data) < offset + BUCKETS_FIELD.size + 4:
            raise NetworkFileError(f"{name}: too short for a network file ({len(data)} bytes)")
        (buckets,) = BUCKETS_FIELD.unpack_from(data, offset)
        offset += BUCKETS_FIELD.size
    layout = NO_KING_BUCKETS
    if version >= 3:
        if len(data) < offset + KING_FIELDS.size + 4:
            raise NetworkFileError(f"{name}: too short for a network file ({len(data)} bytes)")
        mirror, king_buckets = KING_FIELDS.unpack_from(data, offset)
        offset += KING_FIELDS.size
        if mirror > 1 or max(king_buckets) >= MAX_KING_BUCKETS or len(set(king_buckets)) != max(king_buckets) + 1:
            raise NetworkFileError(f"{name}: king buckets that are not 1 to {MAX_KING_BUCKETS} sets numbered "
                                   "from 0 (or a mirroring flag other than 0 and 1)")
        layout = KingLayout(king_buckets, bool(mirror))
    if text_length > MAX_DESCRIPTION_BYTES:
        raise NetworkFileError(f"{name}: a description of {text_length} bytes (at most {MAX_DESCRIPTION_BYTES})")
    if inputs != INPUTS * layout.count or not 1 <= hidden <= MAX_HIDDEN or not 1 <= buckets <= MAX_BUCKETS:
        raise NetworkFileError(f"{name}: shape {inputs}x{hidden}x{buckets} is not a network of {INPUTS} inputs "
                               f"per king bucket ({layout.count}) with 1 to {MAX_BUCKETS} output buckets")
    expected = offset + text_length + 2 * (inputs * hidden + hidden + buckets * 2 * hidden) + 4 * buckets + 4
    if len(data) != expected:
        raise NetworkFileError(f"{name}: {len(data)} bytes, a {inputs}x{hidden}x{buckets} network has {expected}"
                               + (" (truncated)" if len(data) < expected else ""))
    (checksum,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) != checksum:
        raise NetworkFileError(f"{name}: checksum mismatch (damaged file)")
    description = data[offset:offset + text_length].decode("utf-8", errors="replace")
    offset += text_length

    def take(count: int) -> array:
        nonlocal offset
        values = int16_array(data[offset:offset + 2 * count])
        offset += 2 * count
        return values

    ft_weights = take(inputs * hidden)
    ft_bias = take(hidden)
    out_weights = take(buckets * 2 * hidden)
    out_biases = struct.unpack_from(f"<{buckets}i", data, offset)
    return QuantisedNetwork(ft_weights, ft_bias, out_weights, tuple(out_biases), qa, qb, scale, description, layout)


def read_network(path: Path) -> QuantisedNetwork:
    """The network in the file; NetworkFileError naming it for anything but a regular file of at
    most MAX_FILE_BYTES holding a whole, sound network (nothing larger is read)."""
    # Imported here, like write_atomically: parse_network stays standard-library only.
    from ponderosa.engine.input_files import InputFileError, read_bytes
    try:
        data = read_bytes(path, "a network", MAX_FILE_BYTES)
    except InputFileError as error:
        raise NetworkFileError(str(error)) from None
    return parse_network(data, str(path))
