"""ALP (Encoding.ALP = 10) encoder for FLOAT and DOUBLE pages.

Spec: parquet-format ``AlpEncoding.md``, "Encoding" (informative) and
"Page Layout" (normative); the byte layout is drawn in
:mod:`parquet_core.encodings.alp`.  Pipeline, vectorised over the page
viewed as a ``(vectors, vector_size)`` matrix (the last vector padded with
copies of its first value, which never moves its min or max)::

    1. preset     sample <= 8 vectors x <= 64 values, score all (e, f) pairs
                  (190 for DOUBLE, 66 for FLOAT) at once by estimated bits,
                  keep the pairs that win a sampled vector (at most 5)
    2. per vector score each preset pair on the whole vector, keep the cheapest
    3. integers   n = rint(v * 10**e * 10**-f); exception unless the
                  normative decode float(n) * 10**f * 10**-e gives v's bits
    4. FOR        exceptions take the first non-exception integer of their
                  vector (0 if none); delta = n - min (wrapping, unsigned);
                  a vector estimated larger than all-exceptions is stored
                  as all exceptions (bit width 0)
    5. pack       one pack_bits call per distinct width over all full
                  vectors of that width; bytes scattered into one buffer

Estimated size of a vector: ``bit_width * vector_size + exceptions *
(16 + 8 * sizeof(value))`` bits; ties go to the larger exponent, then the
larger factor (as in the paper).  Rounding uses ``np.rint`` (nearest, ties
to even), which equals the spec's ``fast_round`` wherever that is exact;
any value that does not round-trip becomes an exception, so the choice only
affects size.  Exceptions (NaN, +-inf, -0.0, out-of-range, round-trip
failures) keep their exact bits.

Edge cases: no values -> the 7-byte header alone; all values exceptions ->
placeholder 0, bit width 0; a constant vector -> bit width 0; more than
2**31 - 1 values, another physical type, or a log vector size outside
3..15 -> ValueError (API misuse).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.bitpack import pack_bits, packed_size
from parquet_core.encodings.alp import (
    MAX_LOG_VECTOR_SIZE,
    MIN_LOG_VECTOR_SIZE,
    AlpLayout,
    layout_of,
    scatter_runs,
)

__all__ = ["DEFAULT_LOG_VECTOR_SIZE", "encode_alp"]

#: The spec's recommended vector size, 2**10 = 1024 values.
DEFAULT_LOG_VECTOR_SIZE = 10
_SAMPLE_VECTORS = 8        # vectors sampled per page for the preset ("Parameter Selection")
_SAMPLE_VALUES = 32        # values sampled per sampled vector
_MAX_PRESET = 5            # (e, f) pairs kept in the preset
_MAX_COUNT = 2**31 - 1
#: 2**0 .. 2**63: ``searchsorted(_POW2, x, "right")`` is ``x.bit_length()``, exactly.
_POW2 = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
_INT64_MIN = np.iinfo(np.int64).min
_INT64_MAX = np.iinfo(np.int64).max


def _pairs(lay: AlpLayout) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """All (e, f) with 0 <= f <= e <= max, preferred first (larger e, then larger f)."""
    e, f = np.tril_indices(lay.max_exponent + 1)
    order = np.lexsort((-f, -e))
    return e[order].astype(np.int64), f[order].astype(np.int64)


def _alp_ints(x: npt.NDArray[Any], lay: AlpLayout, e: Any,
              f: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Integers of ``x`` under (e, f) (broadcast), and which values are exceptions.

    ``e`` and ``f`` are integer arrays shaped to broadcast against ``x``.
    Out-of-range integers (outside int32 / int64) and NaN/inf are
    exceptions with integer 0; the rest are exceptions when the normative
    decode does not reproduce their bits.
    """
    ft, ut = lay.float_dtype, lay.uint_dtype
    limit = ft.type(2.0 ** (8 * lay.width - 1))
    with np.errstate(over="ignore", invalid="ignore"):
        r = x * lay.pow10[e]
        r *= lay.neg_pow10[f]
        np.rint(r, out=r)
        bad = ~((r >= -limit) & (r < limit))           # NaN compares False: bad
        r[bad] = 0
        ints = r.astype(np.int64)                       # exact: |r| < 2**31 / 2**63
        # from the integer, exactly as the decoder converts it (never from r,
        # which may still be -0.0)
        back = (ints if lay.width == 8 else ints.astype(lay.int_dtype)).astype(ft)
        back *= lay.pow10[f]
        back *= lay.neg_pow10[e]
    exc = back.view(ut) != x.view(ut)
    exc |= bad
    return ints, exc


def _widths(lo: npt.NDArray[np.int64], hi: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Bits needed for ``hi - lo`` (computed unsigned, so ranges above 2**63 work)."""
    span = hi.view(np.uint64) - lo.view(np.uint64)
    return np.searchsorted(_POW2, span, side="right").astype(np.int64)


def _estimate(ints: npt.NDArray[np.int64], exc: npt.NDArray[np.bool_], lay: AlpLayout,
              nvalues: int) -> npt.NDArray[np.int64]:
    """Estimated bits per row (last axis = the values of one vector)."""
    lo = np.where(exc, _INT64_MAX, ints).min(axis=-1)
    hi = np.where(exc, _INT64_MIN, ints).max(axis=-1)
    empty = lo > hi                                     # every value an exception
    lo[empty] = 0
    hi[empty] = 0
    nexc: npt.NDArray[np.int64] = exc.sum(axis=-1, dtype=np.int64)
    bits: npt.NDArray[np.int64] = _widths(lo, hi) * nvalues + nexc * (16 + 8 * lay.width)
    return bits


def _preset(mat: npt.NDArray[Any], lay: AlpLayout,
            count: int) -> list[tuple[int, int]]:
    """Up to five (e, f) pairs that win on a sample of the page's vectors."""
    nv, vs = mat.shape
    rows = np.unique(np.linspace(0, nv - 1, min(nv, _SAMPLE_VECTORS)).astype(np.int64))
    real = np.minimum(vs, count - rows * vs)            # real values in each sampled row
    s = min(vs, _SAMPLE_VALUES)
    cols = (np.arange(s)[None, :] * real[:, None]) // s
    sample = mat[rows[:, None], cols]                   # (m, s)
    e, f = _pairs(lay)
    ints, exc = _alp_ints(sample[None, :, :], lay, e[:, None, None], f[:, None, None])
    cost = _estimate(ints, exc, lay, s)                 # (pairs, m)
    best = cost.argmin(axis=0)                          # first = preferred among ties
    wins = np.bincount(best, minlength=e.size)
    total = cost.sum(axis=1)
    # most wins first, then lowest total sampled cost, then preference order
    order = np.lexsort((np.arange(e.size), total, -wins))
    chosen = [int(i) for i in order[:_MAX_PRESET] if wins[i] > 0]
    return [(int(e[i]), int(f[i])) for i in chosen]


def _choose(mat: npt.NDArray[Any], lay: AlpLayout, preset: list[tuple[int, int]]
            ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64],
                       npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Per-vector (e, f) from ``preset``, the cheapest on the whole vector.

    Returns the exponents, factors, integers, exception mask and estimated
    bits of every vector under its pair.  Each preset pair is one pass over
    the page (at most 5); a vector keeps the first pair of lowest cost.
    """
    nv, vs = mat.shape
    exps = np.full(nv, preset[0][0], np.int64)
    facs = np.full(nv, preset[0][1], np.int64)
    ints, exc = _alp_ints(mat, lay, np.int64(preset[0][0]), np.int64(preset[0][1]))
    cost = _estimate(ints, exc, lay, vs)
    for e, f in preset[1:]:
        c_ints, c_exc = _alp_ints(mat, lay, np.int64(e), np.int64(f))
        c_cost = _estimate(c_ints, c_exc, lay, vs)
        better = c_cost < cost
        if better.any():
            exps[better], facs[better], cost[better] = e, f, c_cost[better]
            ints[better] = c_ints[better]
            exc[better] = c_exc[better]
    return exps, facs, ints, exc, cost


def encode_alp(values: Any, physical_type: int, *,
               log_vector_size: int = DEFAULT_LOG_VECTOR_SIZE,
               exponent_factor: tuple[int, int] | None = None) -> bytes:
    """Encode FLOAT or DOUBLE values as one ALP page body.

    Parameters
    ----------
    values:
        The non-null values (converted to ``'<f4'`` / ``'<f8'``).
    physical_type:
        ``PhysicalType.FLOAT`` or ``PhysicalType.DOUBLE``.
    log_vector_size:
        log2 of the values per vector, 3..15 (default 10: 1024 values).
    exponent_factor:
        Use this (e, f) for every vector instead of searching (for tests and
        the spec's worked example).

    Returns
    -------
    bytes
        Header, offset array and vectors.

    Raises
    ------
    ValueError
        Another physical type, a bad ``log_vector_size`` or
        ``exponent_factor``, or more than 2**31 - 1 values.
    """
    lay = layout_of(physical_type, ValueError)
    if not MIN_LOG_VECTOR_SIZE <= log_vector_size <= MAX_LOG_VECTOR_SIZE:
        raise ValueError(f"ALP: log_vector_size {log_vector_size} is outside "
                         f"{MIN_LOG_VECTOR_SIZE}..{MAX_LOG_VECTOR_SIZE}")
    v = np.ascontiguousarray(values, dtype=lay.float_dtype).reshape(-1)
    n = v.size
    if n > _MAX_COUNT:
        raise ValueError(f"ALP: {n} values do not fit one page (at most {_MAX_COUNT})")
    vs = 1 << log_vector_size
    header = bytes([0, 0, log_vector_size]) + n.to_bytes(4, "little")
    if n == 0:
        return header
    nv = -(-n // vs)
    mat = np.empty((nv, vs), dtype=lay.float_dtype)
    mat.reshape(-1)[:n] = v
    mat.reshape(-1)[n:] = v[(nv - 1) * vs]            # pad with the last vector's first value
    if exponent_factor is not None:
        e0, f0 = (int(x) for x in exponent_factor)
        if not 0 <= f0 <= e0 <= lay.max_exponent:
            raise ValueError(f"ALP {lay.name}: exponent_factor {exponent_factor} needs "
                             f"0 <= factor <= exponent <= {lay.max_exponent}")
        preset = [(e0, f0)]
    else:
        preset = _preset(mat, lay, n)
    exps, facs, ints, exc, cost = _choose(mat, lay, preset)
    # a vector cheaper as all exceptions (noise-like data: wide integers and
    # many exceptions) is stored that way; the decoder patches any position
    worse = cost > vs * (16 + 8 * lay.width)
    if worse.any():
        exc[worse] = True
    return header + _serialize(mat, ints, exc, exps, facs, lay, n).tobytes()


def _serialize(mat: npt.NDArray[Any], ints: npt.NDArray[np.int64], exc: npt.NDArray[np.bool_],
               exps: npt.NDArray[np.int64], facs: npt.NDArray[np.int64], lay: AlpLayout,
               n: int) -> npt.NDArray[np.uint8]:
    """Offset array and vectors, written into one preallocated buffer."""
    nv, vs = mat.shape
    sizes = np.full(nv, vs, dtype=np.int64)
    sizes[-1] = n - (nv - 1) * vs
    keep = ~exc
    # placeholder: the first non-exception integer of the vector, 0 if none
    first = keep.argmax(axis=1)
    holder = np.where(keep.any(axis=1), ints[np.arange(nv), first], 0)
    ints = np.where(exc, holder[:, None], ints)
    lo = ints.min(axis=1)
    widths = _widths(lo, ints.max(axis=1))
    deltas = ints.view(np.uint64) - lo.view(np.uint64)[:, None]
    exc[-1, sizes[-1]:] = False                          # padding is not data
    nexc = exc.sum(axis=1, dtype=np.int64)

    packed = (sizes * widths + 7) >> 3
    vec_bytes = lay.header_size + packed + nexc * (2 + lay.width)
    offsets = np.empty(nv, dtype=np.int64)
    offsets[0] = 4 * nv
    np.cumsum(vec_bytes[:-1], out=offsets[1:])
    offsets[1:] += 4 * nv
    out = np.zeros(4 * nv + int(vec_bytes.sum()), dtype=np.uint8)
    out[:4 * nv] = offsets.astype("<u4").view(np.uint8)

    hdr = np.empty((nv, lay.header_size), dtype=np.uint8)
    hdr[:, 0] = exps
    hdr[:, 1] = facs
    hdr[:, 2:4] = nexc.astype("<u2").view(np.uint8).reshape(nv, 2)
    hdr[:, 4:4 + lay.width] = lo.astype(lay.int_dtype).view(np.uint8).reshape(nv, lay.width)
    hdr[:, -1] = widths
    out[offsets[:, None] + np.arange(lay.header_size)] = hdr

    data_at = offsets + lay.header_size
    _pack_into(out, deltas, widths, data_at, sizes)
    if int(nexc.sum()):
        # row-major order: exceptions sorted by vector, then by position
        exc_at = data_at + packed
        cols = np.nonzero(exc)[1]
        scatter_runs(out, exc_at, 2 * nexc, cols.astype("<u2").view(np.uint8))
        raw = np.ascontiguousarray(mat.view(lay.uint_dtype)[exc], dtype=lay.uint_dtype)
        scatter_runs(out, exc_at + 2 * nexc, lay.width * nexc, raw.view(np.uint8))
    return out


def _pack_into(out: npt.NDArray[np.uint8], deltas: npt.NDArray[np.uint64],
               widths: npt.NDArray[np.int64], data_at: npt.NDArray[np.int64],
               sizes: npt.NDArray[np.int64]) -> None:
    """Bit-pack every vector's deltas at its data offset, one call per distinct width."""
    nv, vs = deltas.shape
    nfull = nv if int(sizes[-1]) == vs else nv - 1
    full_w = widths[:nfull]
    for w in np.unique(full_w).tolist():
        if w == 0:
            continue                              # no bytes; the buffer is zeroed anyway
        sel = np.flatnonzero(full_w == w)
        nbytes = vs * w // 8                       # vs is a multiple of 8: vectors pack independently
        body = pack_bits(deltas[sel].reshape(-1), w, validate=False).reshape(sel.size, nbytes)
        out[data_at[sel][:, None] + np.arange(nbytes)] = body
    if nfull < nv:
        w, tail, at = int(widths[-1]), int(sizes[-1]), int(data_at[-1])
        out[at:at + packed_size(tail, w)] = pack_bits(deltas[-1, :tail], w, validate=False)
