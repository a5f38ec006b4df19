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
