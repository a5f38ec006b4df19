"""The RLE / bit-packing hybrid decoded one value at a time from the spec's grammar (the
tests' reference): a ULEB128 run header, its low bit choosing a bit-packed run of
``header >> 1`` groups of 8 values or an RLE run of ``header >> 1`` copies of one value stored
in ``ceil(width / 8)`` little-endian bytes."""

from __future__ import annotations

from tests.unit.encodings.golden import uleb


def ref_decode(buf: bytes, width: int, count: int) -> list[int]:
    """Straightforward reference decoder (one value at a time)."""
    out: list[int] = []
    pos = 0
    vbytes = (width + 7) // 8
    while len(out) < count:
        header = shift = 0
        while True:
            b = buf[pos]
            pos += 1
            header |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        if header & 1:
            n = (header >> 1) * 8
            big = int.from_bytes(buf[pos:pos + (header >> 1) * width], "little")
            out.extend((big >> (i * width)) & ((1 << width) - 1) for i in range(n))
            pos += (header >> 1) * width
        else:
            out.extend([int.from_bytes(buf[pos:pos + vbytes], "little")] * (header >> 1))
            pos += vbytes
    return out[:count]


def bp_run(values: list[int], width: int) -> bytes:
    """A bit-packed run (values LSB first), zero padded to whole groups of 8."""
    groups = (len(values) + 7) // 8
    big = 0
    for i, v in enumerate(values):
        big |= v << (i * width)
    return uleb(groups << 1 | 1) + big.to_bytes(groups * width, "little")
