"""ALP, Adaptive Lossless floating-Point (Encoding.ALP = 10), FLOAT and DOUBLE: decoder.

Spec: parquet-format ``AlpEncoding.md`` (commit 24102ed, "Preview" as of
2026-08-01), linked from ``Encodings.md`` "Adaptive Lossless
floating-Point: (ALP = 10)".  All integers little-endian::

    page:    [header 7 B][offset 0]..[offset N-1][vector 0]..[vector N-1]
             offsets are uint32, measured from the first offset byte;
             N = ceil(num_elements / 2**log_vector_size)

    header:  byte 0  compression_mode   uint8   0 = ALP (others reserved)
             byte 1  integer_encoding   uint8   0 = FOR + bit packing
             byte 2  log_vector_size    uint8   3..15
             byte 3  num_elements       int32   non-null values in the page

    vector:  [e u8][f u8][num_exceptions u16]          AlpInfo, 4 B
             [frame_of_reference i32|i64][bit_width u8] ForInfo, 5 B / 9 B
             [packed deltas: ceil(n * bit_width / 8) B, LSB first]
             [exception positions: u16 x num_exceptions]
             [exception values: f32|f64 raw bits x num_exceptions]

    value[i] = float(frame_of_reference + delta[i]) * 10**f * 10**-e
               (two multiplications, table constants), then
    value[pos[j]] = exception_value[j]

Decoding is vectorised over the whole page: the offsets give every vector's
header directly (no walk), so all headers are gathered in one fancy index;
the deltas of all full vectors sharing a bit width are unpacked by one
:func:`unpack_bits` call; the two scaling multiplications broadcast one
per-vector factor over a ``(vectors, vector_size)`` matrix; exceptions are
gathered and patched through an unsigned view of the output, so NaN
payloads, -0.0 and infinities come back bit for bit.

The FOR addition wraps in the type's width (uint32 / uint64), as the spec
requires; the integer is then converted to the float type (round to
nearest, like a C cast) and multiplied in that type (binary32 for FLOAT).

Edge cases:

* ``num_elements == 0``: no offsets and no vectors (7 bytes);
* the last vector holds ``num_elements - (N-1) * vector_size`` values and
  its packed bytes end on a partial byte (zero padded);
* ``bit_width == 0``: no packed bytes, every integer equals the FOR value;
* gaps between vectors are tolerated (the spec's writers leave none);
* a short header, compression_mode / integer_encoding other than 0
  (reserved for future variants, undefined today), log_vector_size outside 3..15, num_elements negative or
  not the page's value count, an offset array or vector running past the
  buffer or into the next vector, exponent above 10 (FLOAT) / 18 (DOUBLE),
  factor above exponent, bit width above 32 / 64, more exceptions than
  values, an exception position outside its vector -> ParquetFormatError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from parquet_core._kernels.bitpack import as_uint8, packed_size, unpack_bits
from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetFormatError

__all__ = [
    "ALP_HEADER_SIZE",
    "AlpLayout",
    "LAYOUTS",
    "MAX_LOG_VECTOR_SIZE",
    "MIN_LOG_VECTOR_SIZE",
    "POW10_DOUBLE",
    "POW10_FLOAT",
    "NEG_POW10_DOUBLE",
    "NEG_POW10_FLOAT",
    "decode_alp",
    "gather_runs",
    "layout_of",
    "scatter_runs",
]

_WHAT = "ALP"
#: Page header: compression_mode, integer_encoding, log_vector_size, num_elements.
ALP_HEADER_SIZE = 7
#: log2(vector_size) limits ("Header", log_vector_size).
MIN_LOG_VECTOR_SIZE = 3
MAX_LOG_VECTOR_SIZE = 15

# Power-of-ten tables ("Encoding Formula"): the spec requires the correctly
# rounded IEEE 754 values of the decimal literals, never pow() at run time.
# Python parses float literals with correct rounding, and 10**0..10**18 are
# exact doubles.  Binary32 constants are written as hex floats holding the
# correctly rounded float32 values (10**0..10**10 are exact in binary32);
# test_alp.py checks every entry against exact rational arithmetic.
POW10_DOUBLE = np.array([
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
    1e14, 1e15, 1e16, 1e17, 1e18], dtype="<f8")
NEG_POW10_DOUBLE = np.array([
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11,
    1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18], dtype="<f8")
POW10_FLOAT = np.array([
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10], dtype="<f4")
NEG_POW10_FLOAT = np.array([float.fromhex(h) for h in (
    "0x1p+0", "0x1.99999ap-4", "0x1.47ae14p-7", "0x1.0624dep-10", "0x1.a36e2ep-14",
    "0x1.4f8b58p-17", "0x1.0c6f7ap-20", "0x1.ad7f2ap-24", "0x1.5798eep-27",
    "0x1.12e0bep-30", "0x1.b7cdfep-34")], dtype="<f4")


class AlpLayout:
    """What differs between FLOAT and DOUBLE: widths, dtypes, limits and tables."""

    __slots__ = ("name", "float_dtype", "int_dtype", "uint_dtype", "width", "for_size",
                 "header_size", "max_exponent", "max_bit_width", "pow10", "neg_pow10")

    def __init__(self, name: str, float_dtype: str, int_dtype: str, uint_dtype: str,
                 max_exponent: int, pow10: npt.NDArray[Any], neg_pow10: npt.NDArray[Any]) -> None:
        self.name = name
        self.float_dtype = np.dtype(float_dtype)
        self.int_dtype = np.dtype(int_dtype)
        self.uint_dtype = np.dtype(uint_dtype)
        self.width = self.float_dtype.itemsize           # bytes per value and per FOR value
        self.for_size = self.width + 1                    # ForInfo: FOR value + bit_width
        self.header_size = 4 + self.for_size              # AlpInfo + ForInfo
        self.max_exponent = max_exponent
        self.max_bit_width = 8 * self.width
        self.pow10 = pow10
        self.neg_pow10 = neg_pow10


#: Per physical type ("AlpInfo" exponent ranges, "ForInfo" widths).
LAYOUTS: dict[int, AlpLayout] = {
    PhysicalType.FLOAT: AlpLayout("FLOAT", "<f4", "<i4", "<u4", 10, POW10_FLOAT, NEG_POW10_FLOAT),
    PhysicalType.DOUBLE: AlpLayout("DOUBLE", "<f8", "<i8", "<u8", 18, POW10_DOUBLE,
                                   NEG_POW10_DOUBLE),
}


def layout_of(physical_type: int, error: type[Exception] = ParquetFormatError) -> AlpLayout:
    """The :class:`AlpLayout` of FLOAT or DOUBLE; ``error`` for any other type."""
    lay = LAYOUTS.get(int(physical_type))
    if lay is None:
        raise error(f"{_WHAT} encodes FLOAT and DOUBLE only, not physical type {physical_type}")
    return lay


def _read_page_header(arr: npt.NDArray[np.uint8], count: int) -> int:
    """Check the 7-byte page header; return ``log_vector_size``."""
    if arr.size < ALP_HEADER_SIZE:
        raise ParquetFormatError(
            f"{_WHAT}: page of {arr.size} bytes is shorter than the {ALP_HEADER_SIZE}-byte header")
    mode, int_enc, log_vs = int(arr[0]), int(arr[1]), int(arr[2])
    # values above 0 are reserved for future variants (e.g. ALP-RD); until the
    # spec defines one, such a page is not valid ALP
    if mode != 0:
        raise ParquetFormatError(f"{_WHAT}: compression_mode {mode} is reserved "
                                 f"(only 0 = ALP is defined)")
    if int_enc != 0:
        raise ParquetFormatError(f"{_WHAT}: integer_encoding {int_enc} is reserved "
                                 f"(only 0 = FOR + bit packing is defined)")
    if not MIN_LOG_VECTOR_SIZE <= log_vs <= MAX_LOG_VECTOR_SIZE:
        raise ParquetFormatError(f"{_WHAT}: log_vector_size {log_vs} is outside "
                                 f"{MIN_LOG_VECTOR_SIZE}..{MAX_LOG_VECTOR_SIZE}")
    num = int(arr[3:7].view("<i4")[0])
    if num != count:
        raise ParquetFormatError(
            f"{_WHAT}: header declares {num} values, the page holds {count} non-null values")
    return log_vs


def decode_alp(buf: Any, count: int, physical_type: int) -> npt.NDArray[Any]:
    """Decode the ``count`` values of one ALP page (FLOAT or DOUBLE).

    Parameters
    ----------
    buf:
        The page's values section (after decompression and levels).
    count:
        Non-null values in the page; the header's ``num_elements`` must match.
    physical_type:
        ``PhysicalType.FLOAT`` or ``PhysicalType.DOUBLE``.

    Returns
    -------
    numpy.ndarray
        A fresh, writable ``'<f4'`` / ``'<f8'`` array of ``count`` values.

    Raises
    ------
    ParquetFormatError
        Malformed page (see the module docstring).
    """
    lay = layout_of(physical_type)
    arr = as_uint8(buf)
    if count < 0:
        raise ParquetFormatError(f"{_WHAT}: negative value count {count}")
    vs = 1 << _read_page_header(arr, count)
    if count == 0:
        return np.empty(0, dtype=lay.float_dtype)
    nv = -(-count // vs)
    starts, ends = _vector_slots(arr, nv, lay.header_size)   # before allocating from count
    hdr = arr[starts[:, None] + np.arange(lay.header_size)]
    exps = hdr[:, 0].astype(np.int64)
    facs = hdr[:, 1].astype(np.int64)
    nexc = np.ascontiguousarray(hdr[:, 2:4]).view("<u2").reshape(-1).astype(np.int64)
    fors = np.ascontiguousarray(hdr[:, 4:4 + lay.width]).view(lay.uint_dtype).reshape(-1)
    widths = hdr[:, lay.header_size - 1].astype(np.int64)
    sizes = np.full(nv, vs, dtype=np.int64)
    sizes[-1] = count - (nv - 1) * vs
    _check_vector_headers(lay, exps, facs, nexc, widths, sizes)
    packed = (sizes * widths + 7) >> 3
    data_at = starts + lay.header_size
    exc_at = data_at + packed
    bad = np.flatnonzero(exc_at + nexc * (2 + lay.width) > ends)
    if bad.size:
        v = int(bad[0])
        raise ParquetFormatError(
            f"{_WHAT}: vector {v} ({int(sizes[v])} values, bit width {int(widths[v])}, "
            f"{int(nexc[v])} exceptions) runs past its {int(ends[v] - starts[v])}-byte slot")

    out = np.empty(count, dtype=lay.float_dtype)
    ints = _unpack_deltas(arr, lay, data_at, widths, nv, vs, count)
    ints += np.repeat(fors, sizes)                       # FOR, wrapping in the type's width
    _scale(ints.view(lay.int_dtype), out, lay, exps, facs, nv, vs)
    if int(nexc.sum()):
        _patch_exceptions(arr, out, lay, exc_at, nexc, sizes, vs)
    return out


def _vector_slots(arr: npt.NDArray[np.uint8], nv: int,
                  header_size: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Absolute start of every vector and the end of the byte range it may use.

    A vector may use the bytes up to the next vector's offset (the last one:
    up to the end of the page); each slot must at least hold a vector header,
    which also makes the offsets increasing.
    """
    table_end = ALP_HEADER_SIZE + 4 * nv
    if table_end > arr.size:
        raise ParquetFormatError(
            f"{_WHAT}: {nv} vector offsets need {table_end} bytes, the page has {arr.size}")
    offsets = arr[ALP_HEADER_SIZE:table_end].view("<u4").astype(np.int64)
    starts = offsets + ALP_HEADER_SIZE
    ends = np.empty(nv, dtype=np.int64)
    ends[:-1] = starts[1:]
    ends[-1] = arr.size
    if int(offsets[0]) < 4 * nv:
        raise ParquetFormatError(
            f"{_WHAT}: first vector offset {int(offsets[0])} points into the offset array "
            f"({4 * nv} bytes)")
    bad = np.flatnonzero(starts + header_size > ends)
    if bad.size:
        v = int(bad[0])
        raise ParquetFormatError(
            f"{_WHAT}: vector {v} at offset {int(offsets[v])} has no room for its "
            f"{header_size}-byte header (its slot ends at {int(ends[v]) - ALP_HEADER_SIZE})")
    return starts, ends


def _check_vector_headers(lay: AlpLayout, exps: npt.NDArray[np.int64], facs: npt.NDArray[np.int64],
                          nexc: npt.NDArray[np.int64], widths: npt.NDArray[np.int64],
                          sizes: npt.NDArray[np.int64]) -> None:
    for what, bad_mask in (
            (f"exponent above {lay.max_exponent}", exps > lay.max_exponent),
            ("factor above its exponent", facs > exps),
            (f"bit width above {lay.max_bit_width}", widths > lay.max_bit_width),
            ("more exceptions than values", nexc > sizes)):
        bad = np.flatnonzero(bad_mask)
        if bad.size:
            v = int(bad[0])
            raise ParquetFormatError(
                f"{_WHAT} {lay.name}: vector {v} has {what} (e={int(exps[v])}, f={int(facs[v])}, "
                f"bit width {int(widths[v])}, {int(nexc[v])} exceptions of {int(sizes[v])} values)")


def _unpack_deltas(arr: npt.NDArray[np.uint8], lay: AlpLayout, data_at: npt.NDArray[np.int64],
                   widths: npt.NDArray[np.int64], nv: int, vs: int,
                   count: int) -> npt.NDArray[Any]:
    """All FOR deltas of the page as one unsigned array (the type's width)."""
    deltas = np.empty(count, dtype=lay.uint_dtype)
    nfull = nv - 1 if count % vs else nv
    rows = deltas[:nfull * vs].reshape(nfull, vs)
    full_w = widths[:nfull]
    # one unpack per distinct bit width (at most 33 / 65 passes), each over all
    # the full vectors of that width, gathered by a strided row view
    for w in np.unique(full_w).tolist():
        sel = np.flatnonzero(full_w == w)
        if w == 0:
            rows[sel] = 0
            continue
        nbytes = vs * w // 8                       # vs is a multiple of 8: whole bytes
        view = as_strided(arr, shape=(arr.size - nbytes + 1, nbytes), strides=(1, 1),
                          writeable=False)
        body = view[data_at[sel]].reshape(-1)
        rows[sel] = unpack_bits(body, w, sel.size * vs).reshape(sel.size, vs)
    if nfull < nv:                                   # partial last vector
        at, w = int(data_at[-1]), int(widths[-1])
        tail = count - nfull * vs
        deltas[nfull * vs:] = unpack_bits(arr[at:at + packed_size(tail, w)], w, tail)
    return deltas


def _scale(ints: npt.NDArray[Any], out: npt.NDArray[Any], lay: AlpLayout,
           exps: npt.NDArray[np.int64], facs: npt.NDArray[np.int64], nv: int, vs: int) -> None:
    """``out = float(ints) * 10**f * 10**-e`` per vector, in the float type, two multiplies."""
    ft = lay.float_dtype
    nfull = out.size // vs
    if nfull:
        body = out[:nfull * vs].reshape(nfull, vs)
        np.copyto(body, ints[:nfull * vs].reshape(nfull, vs), casting="unsafe")
        body *= lay.pow10[facs[:nfull]][:, None]
        body *= lay.neg_pow10[exps[:nfull]][:, None]
    if nfull < nv:
        tail = out[nfull * vs:]
        np.copyto(tail, ints[nfull * vs:], casting="unsafe")
        tail *= ft.type(lay.pow10[facs[-1]])
        tail *= ft.type(lay.neg_pow10[exps[-1]])


def _patch_exceptions(arr: npt.NDArray[np.uint8], out: npt.NDArray[Any], lay: AlpLayout,
                      exc_at: npt.NDArray[np.int64], nexc: npt.NDArray[np.int64],
                      sizes: npt.NDArray[np.int64], vs: int) -> None:
    """Overwrite exception slots with their stored bit patterns."""
    vec = np.repeat(np.arange(nexc.size), nexc)
    positions = gather_runs(arr, exc_at, 2 * nexc).view("<u2").astype(np.int64)
    bad = np.flatnonzero(positions >= sizes[vec])
    if bad.size:
        j = int(bad[0])
        raise ParquetFormatError(
            f"{_WHAT}: exception position {int(positions[j])} is outside vector {int(vec[j])} "
            f"of {int(sizes[vec[j]])} values")
    raw = gather_runs(arr, exc_at + 2 * nexc, lay.width * nexc).view(lay.uint_dtype)
    out.view(lay.uint_dtype)[vec * vs + positions] = raw


#: Average run length (bytes) from which one slice copy per run beats one
#: gathered index per byte.
_SLICE_RUNS_FROM = 64


def _run_index(starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Byte positions of the runs ``[starts[i], starts[i] + lengths[i])``, concatenated."""
    total = int(lengths.sum())
    before = np.zeros(lengths.size, dtype=np.int64)
    np.cumsum(lengths[:-1], out=before[1:])
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)


def gather_runs(arr: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """Concatenate the byte runs ``arr[starts[i] : starts[i] + lengths[i]]`` (bounds checked by the caller).

    Long runs (exception-heavy vectors) are copied as slices, one per run
    (a loop over vectors, never over values); short ones through one index
    per byte.
    """
    keep = lengths > 0
    starts, lengths = starts[keep], lengths[keep]
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.uint8)
    if total >= _SLICE_RUNS_FROM * lengths.size:
        return np.concatenate([arr[a:a + n] for a, n in zip(starts.tolist(), lengths.tolist())])
    return arr[_run_index(starts, lengths)]


def scatter_runs(out: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                 lengths: npt.NDArray[np.int64], data: npt.NDArray[np.uint8]) -> None:
    """The inverse of :func:`gather_runs`: write ``data`` into the runs of ``out``."""
    keep = lengths > 0
    starts, lengths = starts[keep], lengths[keep]
    total = int(lengths.sum())
    if not total:
        return
    if total >= _SLICE_RUNS_FROM * lengths.size:
        at = 0
        for a, n in zip(starts.tolist(), lengths.tolist()):
            out[a:a + n] = data[at:at + n]
            at += n
        return
    out[_run_index(starts, lengths)] = data
