"""Independent byte builders for golden vectors (written from the spec, not from our encoders)."""

from __future__ import annotations


def uleb(n: int) -> bytes:
    """ULEB128: 7 bits per byte, least significant group first, high bit = more follows."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def read_uleb(buf: bytes, pos: int) -> tuple[int, int]:
    """The ULEB128 number at *pos* of *buf* and the position after it (one byte at a time:
    the tests' reference, sharing nothing with the package's varint kernels)."""
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def pack_lsb(values: list[int], width: int) -> bytes:
    """*values* bit-packed LSB first at *width* bits each (the RLE/bit-packing hybrid's
    bit-packed run body), written out bit by bit from the spec's description."""
    acc = bits = 0
    out = bytearray()
    for v in values:
        acc |= v << bits
        bits += width
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        out.append(acc & 0xFF)
    return bytes(out)
