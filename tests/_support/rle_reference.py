"""The RLE / bit-packing hybrid decoded one value at a time from the spec's grammar (the
tests' reference): a ULEB128 run header, its low bit choosing a bit-packed run of
``header >> 1`` groups of 8 values or an RLE run of ``header >> 1`` copies of one value stored
in ``ceil(width / 8)`` little-endian bytes."""

from __future__ import annotations

import numpy as np

from tests.unit.encodings.golden import pack_lsb, read_uleb, uleb


def ref_decode(buf: bytes, width: int, count: int) -> list[int]:
    """Straightforward reference decoder (one value at a time)."""
    out: list[int] = []
    pos = 0
    vbytes = (width + 7) // 8
    while len(out) < count:
        header, pos = read_uleb(buf, pos)
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


def skewed_index_page(rng: np.random.Generator, w: int, cycles: int, *, cut_last: bool = False,
                      trailing: bytes = b"") -> tuple[bytes, int, list[int]]:
    """A dictionary-index page like a skewed low-cardinality column's, built from the spec's
    grammar: bit width *w*, *cycles* of an RLE run (8-40 values, every 7th 64+) and a
    bit-packed run (1-8 groups, every 13th 64+), an empty RLE and bit-packed run every 11th
    cycle, the last group cut to 3 values if *cut_last*, *trailing* bytes after the runs.
    Returns the page, its value count and its values."""
    top = (1 << w) - 1
    vb = (w + 7) // 8
    buf = bytearray([w])
    values: list[int] = []
    groups = 0
    for c in range(cycles):
        if c % 11 == 3:
            buf += uleb(0) + bytes(vb) + uleb(1)            # an empty RLE and bit-packed run
        n = int(rng.integers(64, 400)) if c % 7 == 6 else int(rng.integers(8, 41))
        v = int(rng.integers(0, top + 1))
        buf += uleb(n << 1) + v.to_bytes(vb, "little")
        values += [v] * n
        groups = int(rng.integers(64, 80)) if c % 13 == 12 else int(rng.integers(1, 9))
        vals = rng.integers(0, top + 1, groups * 8).tolist()
        buf += uleb((groups << 1) | 1) + pack_lsb(vals, w)
        values += vals
    count = len(values)
    if cut_last:        # the last group keeps 3 of its 8 values, and only their bytes
        count -= 5
        buf = buf[:len(buf) - (groups * w - ((groups * 8 - 5) * w + 7) // 8)]
    return bytes(buf + trailing), count, values[:count]


def runny_codes(rng: np.random.Generator, rows: int, card: int, skew: float = 1.0) -> np.ndarray:
    """Taxi-like dictionary codes 0..card-1, skewed toward the low ones (weight ``1/(v+1)**skew``):
    mixed stretches of 20-60 values between runs of 8-40 equal values."""
    weights = 1.0 / np.arange(1, card + 1) ** skew
    weights /= weights.sum()
    out = rng.choice(card, rows, p=weights)
    i = 0
    while i < rows:
        i += int(rng.integers(20, 61))
        k = int(rng.integers(8, 41))
        out[i:i + k] = rng.choice(card, p=weights)
        i += k
    return out
