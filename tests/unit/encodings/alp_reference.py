"""A plain-Python ALP page decoder, written from ``AlpEncoding.md`` alone.

It shares no code with ``parquet_core.encodings.alp``: headers are read with
``struct``, deltas are cut out of one Python integer per vector, and the
scaling is done in Python floats (binary64).  For FLOAT the binary32
arithmetic is emulated exactly: a product of two binary32 values fits a
binary64 significand (24 + 24 bits < 53), so computing it in binary64 and
rounding once to binary32 (``struct`` pack) gives the correctly rounded
binary32 product.  Values are returned as their raw IEEE bit patterns
(ints), so NaN payloads and -0.0 compare exactly.
"""

from __future__ import annotations

import struct
from fractions import Fraction


class ReferenceError_(Exception):
    """The page violates the spec (the reference refuses it)."""


def f32_round(x: float) -> float:
    """Round a binary64 value to the nearest binary32 (ties to even)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def nearest_f32(exact: Fraction) -> float:
    """Correctly rounded binary32 value of an exact rational (brute force around a guess)."""
    guess = struct.unpack("<I", struct.pack("<f", float(exact)))[0]
    best = None
    for bits in range(guess - 2, guess + 3):
        cand = struct.unpack("<f", struct.pack("<I", bits))[0]
        err = abs(Fraction(cand) - exact)
        key = (err, bits & 1)                     # ties: even significand
        if best is None or key < best[0]:
            best = (key, cand)
    assert best is not None
    return best[1]


#: 10**k and 10**-k, correctly rounded, from exact rationals (never pow()).
DOUBLE_UP = [float(Fraction(10) ** k) for k in range(19)]
DOUBLE_DOWN = [float(Fraction(1, 10 ** k)) for k in range(19)]
FLOAT_UP = [nearest_f32(Fraction(10) ** k) for k in range(11)]
FLOAT_DOWN = [nearest_f32(Fraction(1, 10 ** k)) for k in range(11)]


def reference_decode(page: bytes, count: int, is_double: bool) -> list[int]:
    """Decode an ALP page; return the raw bit pattern of every value."""
    if len(page) < 7:
        raise ReferenceError_("short header")
    mode, int_enc, log_vs, num = struct.unpack_from("<BBBi", page, 0)
    if mode != 0 or int_enc != 0 or not 3 <= log_vs <= 15 or num != count:
        raise ReferenceError_("bad page header")
    vector_size = 1 << log_vs
    n_vectors = (num + vector_size - 1) // vector_size
    width = 8 if is_double else 4
    max_e = 18 if is_double else 10
    out: list[int] = []
    for v in range(n_vectors):
        (offset,) = struct.unpack_from("<I", page, 7 + 4 * v)
        at = 7 + offset
        n = min(vector_size, num - v * vector_size)
        e, f, n_exc = struct.unpack_from("<BBH", page, at)
        at += 4
        if is_double:
            frame, bw = struct.unpack_from("<qB", page, at)
            at += 9
        else:
            frame, bw = struct.unpack_from("<iB", page, at)
            at += 5
        if e > max_e or f > e or bw > 8 * width or n_exc > n:
            raise ReferenceError_("bad vector header")
        nbytes = (n * bw + 7) // 8
        if at + nbytes + n_exc * (2 + width) > len(page):
            raise ReferenceError_("vector truncated")
        packed = int.from_bytes(page[at:at + nbytes], "little")
        at += nbytes
        modulus = 1 << (8 * width)
        values: list[int] = []
        for i in range(n):
            delta = (packed >> (i * bw)) & ((1 << bw) - 1)
            encoded = (frame + delta) % modulus
            if encoded >= modulus // 2:          # back to the signed integer type
                encoded -= modulus
            if is_double:
                x = float(encoded) * DOUBLE_UP[f]
                x = x * DOUBLE_DOWN[e]
                values.append(struct.unpack("<Q", struct.pack("<d", x))[0])
            else:
                x = f32_round(f32_round(float(encoded)) * FLOAT_UP[f])
                x = f32_round(x * FLOAT_DOWN[e])
                values.append(struct.unpack("<I", struct.pack("<f", x))[0])
        positions = struct.unpack_from(f"<{n_exc}H", page, at)
        at += 2 * n_exc
        raw = struct.unpack_from(f"<{n_exc}{'Q' if is_double else 'I'}", page, at)
        for p, bits in zip(positions, raw):
            if p >= n:
                raise ReferenceError_("exception position outside the vector")
            values[p] = bits
        out.extend(values)
    return out
