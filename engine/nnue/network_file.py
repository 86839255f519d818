"""The network file: header, quantised weights, checksum. One network per file.

Layout (little-endian):

    8 bytes  magic b"PONDNNUE"
    u32 x 7  format version (1), inputs (768), hidden neurons, QA, QB, output scale, length of the description
    UTF-8    description (what the network was trained on; shown by the console's `eval`)
    int16    first-layer weights, inputs x hidden, one input's column after another
    int16    first-layer biases, hidden
    int16    output weights, 2 x hidden (side to move's half first)
    int32    output bias
    u32      CRC-32 of everything before it

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
VERSION = 1
INPUTS = 768
HEADER = struct.Struct("<8s7I")
MAX_HIDDEN = 4096                # the widest first layer the loader accepts
MAX_DESCRIPTION_BYTES = 1 << 16
# The largest file of the largest shape the loader accepts: a larger file is refused unread.
MAX_FILE_BYTES = HEADER.size + MAX_DESCRIPTION_BYTES + 2 * (INPUTS * MAX_HIDDEN + 3 * MAX_HIDDEN) + 4 + 4


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
    out_weights: array        # int16 [2 * hidden]
    out_bias: int             # int32
    qa: int
    qb: int
    scale: int
    description: str = ""

    @property
    def hidden(self) -> int:
        return len(self.ft_bias)


def network_bytes(net: QuantisedNetwork) -> bytes:
    description = net.description.encode("utf-8")
    body = b"".join([
        HEADER.pack(MAGIC, VERSION, INPUTS, net.hidden, net.qa, net.qb, net.scale, len(description)),
        description,
        int16_bytes(net.ft_weights),
        int16_bytes(net.ft_bias),
        int16_bytes(net.out_weights),
        struct.pack("<i", net.out_bias),
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
    if version != VERSION:
        raise NetworkFileError(f"{name}: format version {version}, this engine reads {VERSION}")
    if text_length > MAX_DESCRIPTION_BYTES:
        raise NetworkFileError(f"{name}: a description of {text_length} bytes (at most {MAX_DESCRIPTION_BYTES})")
    if inputs != INPUTS or not 1 <= hidden <= MAX_HIDDEN:
        raise NetworkFileError(f"{name}: shape {inputs}x{hidden} is not a {INPUTS}-input network")
    expected = HEADER.size + text_length + 2 * (inputs * hidden + hidden + 2 * hidden) + 4 + 4
    if len(data) != expected:
        raise NetworkFileError(f"{name}: {len(data)} bytes, a {inputs}x{hidden} network has {expected}"
                               + (" (truncated)" if len(data) < expected else ""))
    (checksum,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) != checksum:
        raise NetworkFileError(f"{name}: checksum mismatch (damaged file)")
    offset = HEADER.size
    description = data[offset:offset + text_length].decode("utf-8", errors="replace")
    offset += text_length

    def take(count: int) -> array:
        nonlocal offset
        values = int16_array(data[offset:offset + 2 * count])
        offset += 2 * count
        return values

    ft_weights = take(inputs * hidden)
    ft_bias = take(hidden)
    out_weights = take(2 * hidden)
    (out_bias,) = struct.unpack_from("<i", data, offset)
    return QuantisedNetwork(ft_weights, ft_bias, out_weights, out_bias, qa, qb, scale, description)


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
