"""A value-at-a-time DELTA_BINARY_PACKED decoder written from the spec text (the tests' reference)."""

from __future__ import annotations

from tests.unit.encodings.golden import read_uleb


def ref_decode(buf: bytes, bits: int) -> tuple[list[int], int]:
    """Value-at-a-time reference decoder (spec text, wrapping in ``bits``)."""
    pos = 0

    def u() -> int:
        nonlocal pos
        r, pos = read_uleb(buf, pos)
        return r

    def z() -> int:
        v = u()
        return (v >> 1) ^ -(v & 1)

    block, mini, total, first = u(), u(), u(), z()
    vpm = block // mini
    mask = (1 << bits) - 1
    out = [first & mask]
    while len(out) < total:
        min_delta = z()
        widths = buf[pos:pos + mini]
        pos += mini
        for w in widths:
            if len(out) >= total:
                break
            big = int.from_bytes(buf[pos:pos + vpm * w // 8], "little")
            for i in range(vpm):
                if len(out) >= total:
                    break
                d = (big >> (i * w)) & ((1 << w) - 1)
                out.append((out[-1] + min_delta + d) & mask)
            pos += vpm * w // 8
    signed = [v - (1 << bits) if v >> (bits - 1) else v for v in out[:total]]
    return signed, pos
