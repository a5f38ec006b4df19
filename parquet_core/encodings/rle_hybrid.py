"""RLE / bit-packing hybrid (Encoding.RLE = 3): levels, dictionary indices, booleans.

Spec: parquet-format ``Encodings.md``, "Run Length Encoding / Bit-Packing
Hybrid (RLE = 3)" and "Dictionary Encoding" (data page format).

Grammar (bit width ``w`` known from context)::

    [length: u32 LE]      only for v1 levels and RLE booleans
    run*                  until ``count`` values are produced
      bit-packed run:  varint(groups << 1 | 1)  groups * w bytes (8*groups values, LSB first)
      RLE run:         varint(run_len << 1)     value in ceil(w / 8) bytes, LE

    e.g. w=3, values 0..7 bit-packed:  03 | 88 C6 FA
         w=3, value 5 repeated 10x:    14 | 05

Dictionary-index data pages prepend one byte holding ``w`` (0..32).

Decoding strategy: a scalar loop reads only the run headers (one varint and
at most 4 value bytes per run), checks them and records each run in a flat
table; the bodies are then decoded in bulk: RLE runs with one ``np.repeat``,
and the bytes of *all* bit-packed runs are joined into one contiguous buffer
(each run is a whole number of 8-value groups, so concatenation keeps the
group alignment; joined by slices, or for many tiny runs by one vectorised
byte gather) and unpacked by a single :func:`unpack_bits_into` call straight
into the output type (int16 for levels).  Special cases: one RLE run
covering the page is one ``np.full``; a page that is all bit-packed runs
(dictionary indices) is unpacked straight into the output; long streams of
short runs find their run chain with a vectorised scan; short bit-width-1
streams (small level pages) are expanded with bytes operations.  Dictionary
indices of several pages: each page's run chain is walked with two table
lookups per run, keeping only every sixteenth run's offset (:func:`_walk_page`);
the runs between are found again, and all the pages' runs read, cut and
expanded, together (:func:`_walked_offsets`, :func:`_expand_same_width`).  For a
dictionary's values the indices are produced as narrow codes (one or two bytes)
by one window copy per run, from the unpacked bodies or a row of a fill table
for RLE runs (:func:`expand_dictionary_index_codes`), and taken from the
dictionary straight into the output; at bit widths other than 1, 2, 4 and 8 the
bodies are first copied together (one window each) and unpacked as one stream.

The encoders live in :mod:`parquet_core.encodings.rle_hybrid_encoder` and
are re-exported here.

Edge cases:

* ``bit_width == 0``: every value is 0, no bytes are read;
* a run may declare more values than needed (the last bit-packed run is
  padded to a multiple of 8): the surplus is ignored, and the final
  bit-packed run only needs the bytes that hold the values actually used;
* zero-length runs are skipped (they still consume their header bytes, so
  decoding always advances and cannot hang);
* a repeated value wider than ``bit_width``, data ending before ``count``
  values, a bit width above 32 (the spec's maximum for dictionary indices;
  levels are far narrower), or a negative count -> ParquetFormatError;
* ``count`` is capped at 2**31 - 1 (page value counts are i32 in the spec).
"""

from __future__ import annotations

from array import array
from itertools import accumulate
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.bitpack import (
    SLACK,
    as_uint8,
    pack_bits,
    unpack_bits_into,
    unpack_groups,
    unpack_spaced_runs_into,
)
from parquet_core._kernels.code_runs import copy_code_runs, fill_table, window_for
from parquet_core._kernels.counting import counting, packed_counting
from parquet_core._kernels.runs import window_view
from parquet_core._kernels.varint import read_uleb128, write_uleb128
from parquet_core.encodings.rle_hybrid_encoder import (
    dictionary_index_bit_width,
    encode_dictionary_indices,
    encode_levels_v1,
    encode_levels_v2,
    encode_rle_booleans,
    encode_rle_hybrid,
)
from parquet_core.errors import ParquetFormatError

__all__ = [
    "MAX_COUNT",
    "decode_dictionary_indices",
    "decode_hybrid",
    "decode_levels_v1",
    "decode_rle_booleans",
    "decode_rle_hybrid",
    "dictionary_index_bit_width",
    "encode_dictionary_indices",
    "encode_levels_v1",
    "encode_levels_v2",
    "encode_rle_booleans",
    "encode_rle_hybrid",
    "expand_dictionary_index_codes",
    "expand_dictionary_index_pages",
    "expand_dictionary_index_values",
    "indices_count_up",
    "scan_dictionary_indices",
]

#: Page value counts are signed 32-bit integers in the format.
MAX_COUNT = 2**31 - 1


def _check_count(count: int, what: str) -> None:
    if count < 0:
        raise ParquetFormatError(f"{what}: negative value count {count}")
    if count > MAX_COUNT:
        raise ParquetFormatError(f"{what}: value count {count} exceeds 2**31 - 1")


def decode_rle_hybrid(buf: Any, bit_width: int, count: int) -> npt.NDArray[Any]:
    """Decode ``count`` values of the RLE/bit-packing hybrid (no length prefix).

    Parameters
    ----------
    buf:
        Bytes-like or uint8 array starting at the first run header.
    bit_width:
        0..32.
    count:
        Number of values to produce; trailing runs/bytes are ignored.

    Returns
    -------
    numpy.ndarray
        int32 for ``bit_width < 32``; uint32 for ``bit_width == 32`` (values
        may not fit a signed 32-bit integer).
    """
    return decode_hybrid(as_uint8(buf), bit_width, count)[0]


def decode_hybrid(arr: npt.NDArray[np.uint8], bit_width: int, count: int,
                  dtype: Any = None) -> tuple[npt.NDArray[Any], int]:
    """Decode ``count`` values from a uint8 array; also return the offset past the last run used.

    ``dtype`` overrides the result type (e.g. int16 for levels); values are
    stored with an unsafe cast, so it must be wide enough for ``bit_width``.
    """
    what = "RLE/bit-packed hybrid"
    if count < 0 or count > MAX_COUNT:
        _check_count(count, what)
    if not 0 <= bit_width <= 32:
        raise ParquetFormatError(f"{what}: bit width {bit_width} is outside 0..32")
    w = bit_width
    if dtype is None:
        dtype = np.int32 if w < 32 else np.uint32
    if count == 0 or w == 0:
        return np.zeros(count, dtype=dtype), 0

    size = arr.size
    # Fast path: one RLE run covers everything (levels of a column without
    # nulls, a single-value dictionary page...): no scan, one np.full.
    if size and not arr[0] & 1:
        b0 = int(arr[0])
        if b0 < 0x80:
            header, pos = b0, 1
        else:
            header, pos = read_uleb128(arr.data, 0)
        vbytes = (w + 7) >> 3
        # a run header is at most 5 bytes (a 32-bit varint), as the run loops require
        if header >> 1 >= count and pos <= 5 and pos + vbytes <= size:
            value = int(arr[pos]) if vbytes == 1 else int.from_bytes(
                arr[pos:pos + vbytes].tobytes(), "little")
            if not value >> w:
                return np.full(count, value, dtype=dtype), pos + vbytes
    # (unless the stream opens with a bit-packed run of 32+ groups: long packed runs, as
    # in repetition levels of short lists, unpack faster with the general path)
    if w == 1 and size <= _BITS_MAX_BYTES and not (size and arr[0] & 1 and arr[0] >= 65):
        data, end = _decode_bits_small(arr, count, what)
        out = np.frombuffer(data, dtype=np.uint8, count=count)
        return (out if np.dtype(dtype) == np.uint8 else out.astype(dtype)), end
    table, end = _scan(arr, w, count, what)
    return _expand(arr, w, count, dtype, table), end


#: Bit width 1 streams up to this many bytes are decoded by :func:`_decode_bits_small`.
_BITS_MAX_BYTES = 2048
#: Byte -> its 8 bits (LSB first) as 8 bytes of 0/1: bit-packed bodies of
#: width 1 expand by table lookups.
_BYTE_BITS = [bytes((b >> k) & 1 for k in range(8)) for b in range(256)]
_REPEAT_BYTE = (b"\x00", b"\x01")
#: Bit-packed bodies of at least this many bytes are expanded by ``np.unpackbits``.
_UNPACK_MIN_BYTES = 32


def _decode_bits_small(arr: npt.NDArray[np.uint8], count: int, what: str) -> tuple[bytearray, int]:
    """Decode a short bit-width-1 stream (levels of a flat nullable column,
    booleans) to one byte per value, entirely with bytes operations.

    A small page of levels has one run per ~10-20 values; for those, the
    per-run numpy calls of the general path (arrays from the run table,
    repeats, a masked scatter) cost more than building the output as bytes:
    an RLE run is ``b"\x01" * n``, a bit-packed byte is a table lookup.
    One iteration per run (and per bit-packed byte): the chain of run headers
    is sequential.  Same checks as :func:`_scan`.
    """
    mv = arr.data
    size = len(mv)
    parts: list[bytes] = []
    add = parts.append
    table = _BYTE_BITS
    pos = 0
    left = count
    try:
        while left > 0:
            # The run header's varint is read inline here and in _scan (not through
            # read_uleb128): a call per run would cost more than a short run itself.
            header = mv[pos]
            pos += 1
            if header >= 0x80:
                header &= 0x7F
                shift = 7
                while True:
                    byte = mv[pos]
                    pos += 1
                    header |= (byte & 0x7F) << shift
                    if byte < 0x80:
                        break
                    shift += 7
                    if shift > 28:
                        raise ParquetFormatError(f"{what}: run header longer than 5 bytes")
            n = header >> 1
            if header & 1:
                take = n << 3
                nbytes = n
                if take >= left:
                    take = left
                    nbytes = (take + 7) >> 3  # the final run may stop short
                if pos + nbytes > size:
                    raise ParquetFormatError(
                        f"{what}: bit-packed run at byte {pos} of {take} values of 1 "
                        f"bit is truncated ({size} bytes)")
                if nbytes == 1:
                    add(table[mv[pos]])
                elif nbytes >= _UNPACK_MIN_BYTES:
                    # one numpy call beats a table lookup per byte from about 32 bytes
                    add(np.unpackbits(arr[pos:pos + nbytes], bitorder="little").tobytes())
                elif take:
                    add(b"".join([table[b] for b in mv[pos:pos + nbytes]]))
                left -= take
                pos += n
            else:
                value = mv[pos]
                pos += 1
                if value > 1:
                    raise ParquetFormatError(f"{what}: RLE run value {value} does not fit in 1 bits")
                if n > left:
                    n = left
                add(_REPEAT_BYTE[value] * n)
                left -= n
    except IndexError:
        raise ParquetFormatError(
            f"{what} data ends after {count - left} of {count} values ({size} bytes)") from None
    return bytearray().join(parts), min(pos, size)  # writable result


def _expand(arr: npt.NDArray[np.uint8], w: int, count: int, dtype: Any,
            table: Any) -> npt.NDArray[Any]:
    """Build the output from the run table of :func:`_scan`.

    RLE runs become one ``np.repeat``; the bodies of all bit-packed runs are
    concatenated (each is a whole number of 8-value groups, so the
    concatenation keeps the group alignment; only the last run may be cut
    short) and unpacked by one call, then scattered into the packed slots.
    """
    if isinstance(table, tuple):   # from the vector scan: (takes, tags) arrays
        take_arr, tags = table
    else:
        if len(table) == 2:
            tag = table[1]
            if tag >= 0:
                return np.full(count, tag, dtype=dtype)
            out = np.empty(count, dtype=dtype)
            unpack_bits_into(arr[~tag:], w, count, out)
            return out
        if len(table) <= _FEW_RUNS_ITEMS and all(t < 0 for t in table[1::2]):
            return _expand_packed_few(arr, w, count, dtype, table)
        pairs = np.asarray(table, dtype=np.int64).reshape(-1, 2)
        take_arr = pairs[:, 0]
        tags = pairs[:, 1]
    packed = tags < 0
    if not packed.any():
        return np.repeat(tags.astype(dtype), take_arr)
    p_take = take_arr[packed]
    n_packed_values = int(p_take.sum())
    joined = _gather_bodies(arr, w, ~tags[packed], p_take)
    if n_packed_values == count:
        out = np.empty(count, dtype=dtype)
        unpack_bits_into(joined, w, count, out)
        return out
    out = np.repeat(np.where(packed, 0, tags).astype(dtype), take_arr)
    unpacked = np.empty(n_packed_values, dtype=dtype)
    unpack_bits_into(joined, w, n_packed_values, unpacked)
    out[np.repeat(packed, take_arr)] = unpacked
    return out


#: A run table of at most this many items (pairs) whose runs are all bit-packed is
#: expanded by :func:`_expand_packed_few`.
_FEW_RUNS_ITEMS = 2 * 16


def _expand_packed_few(arr: npt.NDArray[np.uint8], w: int, count: int, dtype: Any,
                       table: list[int]) -> npt.NDArray[Any]:
    """:func:`_expand` of a short run table whose runs are all bit-packed (pyarrow writes
    a page of distinct-ish dictionary indices as packed runs of 504 values): the bodies
    sliced and joined in Python, then one unpack; no numpy call per step of the table.

    Every body but the last holds whole 8-value groups (the scan checked their bytes);
    the last may stop short of its final group, whose missing bytes read as the zero
    slack after the join, as in :func:`_gather_bodies`.
    """
    mv = arr.data
    parts: list[bytes | memoryview] = []
    for i in range(0, len(table), 2):
        at = ~table[i + 1]
        parts.append(mv[at:at + ((table[i] + 7) >> 3) * w])
    parts.append(bytes(SLACK))
    out = np.empty(count, dtype=dtype)
    unpack_bits_into(np.frombuffer(b"".join(parts), dtype=np.uint8), w, count, out)
    return out


#: Bit-packed bodies averaging at least this many bytes are joined slice by
#: slice (one C-level ``bytes.join``, e.g. dictionary indices); shorter ones
#: (levels with scattered nulls) by one vectorised byte gather.
_JOIN_MIN_BYTES = 48


def _gather_bodies(arr: npt.NDArray[np.uint8], w: int, bodies: npt.NDArray[np.int64],
                   p_take: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """The bytes of every bit-packed body used, back to back, plus unpacker slack.

    Bounds were checked by the scan: every body but the last is whole, the
    last holds at least the bytes of the values it contributes.
    """
    size = arr.size
    p_bytes = ((p_take + 7) >> 3) * w
    total = int(p_bytes.sum())
    if total >= _JOIN_MIN_BYTES * bodies.size:
        mv = arr.data
        parts: list[bytes | memoryview] = [mv[b:b + n] for b, n in zip(bodies.tolist(), p_bytes.tolist())]
        parts.append(bytes(SLACK))
        return np.frombuffer(b"".join(parts), dtype=np.uint8)
    # Mark the body bytes (+1 where a body starts, -1 where it ends; bodies
    # never touch: a run header separates them), a running sum turns the
    # marks into a mask, and one boolean compress gathers the bytes.  Only
    # the final run can be short of bytes, and only past the values used.
    marks = np.zeros(size + 1, dtype=np.int8)
    marks[bodies] = 1
    marks[np.minimum(bodies + p_bytes, size)] = -1
    # (into a new array: numpy holds the GIL throughout an accumulate into its own input)
    inside = np.cumsum(marks, dtype=np.int8)
    return arr[inside[:size].view(np.bool_)]


#: Runs scanned one by one before deciding whether the vectorised scan pays.
_PROBE_RUNS = 32
#: Average bytes per run below which the vectorised scan is used for the rest.
_DENSE_BYTES_PER_RUN = 5
#: ... and only if at least this many bytes remain (its fixed cost is ~100 numpy calls).
_VECTOR_MIN_BYTES = 2048


def _scan(arr: npt.NDArray[np.uint8], w: int, count: int, what: str) -> tuple[Any, int]:
    """Find the runs covering ``count`` values, with every bounds check.

    Returns the run table, a flat list of pairs ``take, tag`` (values
    taken from the run; ``tag`` is the repeated value of an RLE run, or
    ``~offset`` (negative) of a bit-packed run's body), or a tuple of two
    arrays ``(takes, tags)`` when the vector scan ran, and the offset just
    past the last run used.

    Run headers are a chain: each header's position depends on the previous
    run's length, so they are walked in Python, one iteration per run with
    the bare minimum of operations (a page usually has few runs; a page of
    levels with scattered nulls has one run per ~10-20 values).  When, after
    :data:`_PROBE_RUNS` runs, the runs are short and many bytes remain, the
    rest of the chain is found by :func:`_vector_table`, whose cost
    is per byte instead of per run (:func:`_vector_rest`).  The run loop
    itself stays in one piece: a helper call per run would cost more than
    the run's own work.
    """
    mv = arr.data
    size = arr.size
    vbytes = (w + 7) >> 3
    table: list[int] = []
    add = table.append
    pos = 0
    left = count
    runs = 0
    probe = _PROBE_RUNS
    try:
        while left > 0:
            if runs == probe:
                if size - pos >= _VECTOR_MIN_BYTES and pos < _DENSE_BYTES_PER_RUN * runs:
                    return _vector_rest(arr, table, pos, runs, w, left, what)
                if size - pos >= _WALK_MIN_BYTES and pos < _WALK_BYTES_PER_RUN * runs:
                    pos, left, end, done = _walk_rest(arr, table, pos, w, left, what)
                    if done is not None:
                        return done, end
            runs += 1
            header = mv[pos]      # varint inline, as in _decode_bits_small
            pos += 1
            if header >= 0x80:
                header &= 0x7F
                shift = 7
                while True:
                    byte = mv[pos]
                    pos += 1
                    header |= (byte & 0x7F) << shift
                    if byte < 0x80:
                        break
                    shift += 7
                    if shift > 28:
                        raise ParquetFormatError(f"{what}: run header longer than 5 bytes")
            if header & 1:
                nbytes = (header >> 1) * w
                take = (header >> 1) << 3
                if take >= left:
                    take = left
                    if pos + ((take * w + 7) >> 3) > size:   # the final run may stop short
                        raise ParquetFormatError(
                            f"{what}: bit-packed run at byte {pos} of {take} values of {w} "
                            f"bits is truncated ({size} bytes)")
                elif pos + nbytes > size:
                    raise ParquetFormatError(
                        f"{what}: bit-packed run at byte {pos} of {take} values of {w} "
                        f"bits is truncated ({size} bytes)")
                if take:
                    add(take)
                    add(~pos)
                    left -= take
                pos += nbytes
            else:
                if vbytes == 1:
                    value = mv[pos]
                elif vbytes == 2:     # dictionaries of 257..65536 entries
                    value = mv[pos] | mv[pos + 1] << 8
                else:
                    if pos + vbytes > size:
                        raise IndexError
                    value = int.from_bytes(mv[pos:pos + vbytes], "little")
                pos += vbytes
                if value >> w:
                    raise ParquetFormatError(f"{what}: RLE run value {value} does not fit in {w} bits")
                take = header >> 1
                if take > left:
                    take = left
                if take:
                    add(take)
                    add(value)
                    left -= take
    except IndexError:
        raise ParquetFormatError(
            f"{what} data ends after {count - left} of {count} values ({size} bytes)") from None
    return table, min(pos, size)


#: Average bytes per run below which :func:`_walk_rest` takes over the scan ...
_WALK_BYTES_PER_RUN = 48
#: ... when at least this many bytes remain.
_WALK_MIN_BYTES = 1024


def _walk_rest(arr: npt.NDArray[np.uint8], table: list[int], pos: int, w: int,
               left: int, what: str) -> tuple[int, int, int, Any]:
    """Continue :func:`_scan` from byte *pos* by following the chain of run headers.

    The size of a run (header and body) is looked up for every byte at once,
    as if a one-byte run header stood there (0 where the byte has the
    varint's continuation bit); the chain is then followed one index per run
    (a fraction of the scan loop's work per run: no decoding, no checks); a
    multi-byte header (an RLE run of 64+ values) is decoded on the way by
    :func:`_long_header`. Runs are cut where they cover *left* values and
    checked in numpy: every run kept is followed by another header inside the
    data (so its body is whole) and its RLE value is checked here. Where the
    walk stops short (a header longer than 5 bytes, the end of the data), the
    last run reached is left to the scan loop, with its exact checks and
    messages.

    Returns ``(pos, left, end, done)``: the position and values left for the
    scan loop; when the walk covered every value, ``end`` (the offset past the
    last run used) and ``done``, the whole run table as ``(takes, tags)``
    arrays (else None, the runs appended to *table*).
    """
    vbytes = (w + 7) >> 3
    b = arr[pos:]
    n = b.size
    # a one-byte header's length (header + body) by its byte; 0 for a multi-byte header
    sizes = np.arange(256, dtype=np.int32)
    sizes = np.where(sizes & 1, (sizes >> 1) * w, vbytes) + 1
    sizes[0x80:] = 0
    steps = sizes[b].data      # indexing makes an int only for the positions visited
    raw = b.data
    chain: list[int] = []
    add = chain.append
    long_runs: list[tuple[int, int, int]] = []    # (index in chain, header, header bytes)
    p = 0
    # The header chain is sequential: one lookup per run (see the docstring).
    while p < n:
        d = steps[p]
        if not d:
            header, hlen = _long_header(raw, p, n)
            if not hlen:
                break
            long_runs.append((len(chain), header, hlen))
            d = hlen + ((header >> 1) * w if header & 1 else vbytes)
        add(p)
        p += d
    add(p)                  # the walk stopped here: a header it cannot read, or the end of the data
    if len(chain) < 3:
        return pos, left, -1, None
    resume = chain[-2]      # the last run reached, whose body may be cut short: the scan loop's
    del chain[-2:]
    at = np.asarray(chain, dtype=np.int64)
    hdr = b[at].astype(np.int64)
    hlen_of = np.ones(at.size, dtype=np.int64)
    for i, header, hlen in long_runs:
        if i < at.size:
            hdr[i] = header
            hlen_of[i] = hlen
    packed = (hdr & 1) == 1
    length = hdr >> 1
    take = np.where(packed, length << 3, length)
    filled = np.cumsum(take)
    last = int(np.searchsorted(filled, left))
    done = last < at.size
    if done:
        at, packed, take, hlen_of = at[:last + 1], packed[:last + 1], take[:last + 1], hlen_of[:last + 1]
        length = length[:last + 1]
        take[-1] -= int(filled[last]) - left
    body = at + hlen_of
    values = b[np.minimum(body, n - 1)].astype(np.int64)
    for k in range(1, vbytes):
        values |= b[np.minimum(body + k, n - 1)].astype(np.int64) << (8 * k)
    wide = ~packed & ((values >> w) != 0)
    if wide.any():
        v = int(values[np.flatnonzero(wide)[0]])
        raise ParquetFormatError(f"{what}: RLE run value {v} does not fit in {w} bits")
    tags = np.where(packed, ~(body + pos), values)
    keep = take > 0
    if not keep.all():
        take, tags = take[keep], tags[keep]
    if done:
        end = int(body[-1]) + (int(length[-1]) * w if packed[-1] else vbytes)
        head = np.asarray(table, dtype=np.int64).reshape(-1, 2)
        runs = (np.concatenate((head[:, 0], take)), np.concatenate((head[:, 1], tags)))
        return pos, 0, min(pos + end, arr.size), runs
    pairs = np.empty((take.size, 2), dtype=np.int64)
    pairs[:, 0] = take
    pairs[:, 1] = tags
    table.extend(pairs.reshape(-1).tolist())
    return pos + resume, left - int(filled[-1]), -1, None


def _long_header(raw: bytes | memoryview, p: int, n: int) -> tuple[int, int]:
    """The varint run header at *p* and its length in bytes, or (0, 0) when it does
    not end inside the data or within 5 bytes (the scan loop then reports it)."""
    header = 0
    for k in range(5):
        if p + k >= n:
            return 0, 0
        byte = raw[p + k]
        header |= (byte & 0x7F) << (7 * k)
        if byte < 0x80:
            return header, k + 1
    return 0, 0


def _vector_rest(arr: npt.NDArray[np.uint8], table: list[int], pos: int, runs: int, w: int,
                 left: int, what: str) -> tuple[Any, int]:
    """The rest of :func:`_scan` from byte *pos* by the vectorised scan: the *runs*
    pairs found so far (``table``) joined with its runs, and the end."""
    est_runs = (arr.size - pos) * runs // max(pos, 1)
    take, tags, end = _vector_table(arr, pos, w, left, what, est_runs)
    head = np.asarray(table, dtype=np.int64).reshape(-1, 2)
    return (np.concatenate((head[:, 0], take)), np.concatenate((head[:, 1], tags))), end


#: Upper bound on log2 of the steps per jump in the vectorised chain walk.
_JUMP_DOUBLINGS = 6


def _vector_table(arr: npt.NDArray[np.uint8], start: int, w: int, count: int,
                  what: str, est_runs: int = 4096
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """Vectorised run scan (with every bounds check) for the part of a buffer from *start*.

    Returns per-run values taken and tags (see :func:`_scan`), and the end.

    1. :func:`_headers_everywhere`: read a run header at *every* byte position
       (ULEB128, up to 5 bytes) and compute where the next header would be if
       a run started there: ``nxt[p]``.  Positions past the end map to a
       sentinel, ``size``.
    2. :func:`_chain_by_jumps`: square the jump table a few times: ``jump =
       nxt`` applied S times, S a power of two near the square root of the
       expected run count *est_runs*, which balances the two loops there; walk
       the real chain S runs per step from *start* (a short scalar loop over
       "anchors"), then expand each anchor S steps with vectorised gathers.
       Every header is visited, in order.
    3. :func:`_cut_chain`: keep the runs that cover *count* values, checking
       the final run's body and every RLE value.
    """
    n = arr.size - start
    ext, packed, length, body, nxt, overlong = _headers_everywhere(arr, start, w)
    chain = _chain_by_jumps(nxt, n, est_runs)
    if overlong[chain].any():
        raise ParquetFormatError(f"{what}: run header longer than 5 bytes")
    return _cut_chain(arr, start, w, count, what, ext, chain, packed, length, body, nxt)


def _headers_everywhere(arr: npt.NDArray[np.uint8], start: int, w: int
                        ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.int64],
                                   npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Step 1 of :func:`_vector_table`, for the bytes from *start* (``n`` of them):
    the bytes widened and zero-padded (``ext``), and at every position, were a
    run header there: bit-packed?, its length field, where its body starts,
    where the next header would be (``nxt``, ``n`` past the end) and whether
    the header runs longer than 5 bytes."""
    vbytes = (w + 7) >> 3
    n = arr.size - start
    ext = np.zeros(n + 5, dtype=np.int64)
    ext[:n] = arr[start:]
    header = ext[:n] & 0x7F
    hlen = np.ones(n, dtype=np.int64)
    overlong = np.zeros(n, dtype=bool)
    # Multi-byte headers are finished only where a continuation bit is set
    # (few positions in level streams), on the compacted subset.
    at = np.flatnonzero(ext[:n] >= 0x80)
    for k in range(1, 5):
        if not at.size:
            break
        byte = ext[at + k]
        header[at] |= (byte & 0x7F) << (7 * k)
        hlen[at] += 1
        at = at[byte >= 0x80]
    overlong[at] = True  # still continuing after 5 bytes: a 32-bit header never needs a sixth
    packed = (header & 1) == 1
    length = header >> 1
    body = np.arange(n, dtype=np.int64) + hlen
    nxt = np.empty(n + 1, dtype=np.int64)
    np.minimum(body + np.where(packed, length * w, vbytes), n, out=nxt[:n])
    nxt[n] = n
    nxt[:n][overlong] = n
    return ext, packed, length, body, nxt, overlong


def _chain_by_jumps(nxt: npt.NDArray[np.int64], n: int, est_runs: int) -> npt.NDArray[np.int64]:
    """Step 2 of :func:`_vector_table`: the positions of the real chain of headers
    from position 0, in order (positions before *n* only)."""
    # S = 2**doublings balances the anchor loop (runs / S scalar steps of
    # ~0.15 us) against the expansion (S steps of two numpy calls, ~1.5 us):
    # S ~ sqrt(runs / 10).
    doublings = min(_JUMP_DOUBLINGS, max(1, (max(est_runs // 10, 1).bit_length() + 1) // 2))
    jump = nxt
    for _ in range(doublings):
        jump = jump[jump]
    anchors = [0]
    a = 0
    # One step per S runs: this loop is short by construction.
    while a < n:
        a = int(jump[a])
        anchors.append(a)
    cur = np.asarray(anchors[:-1], dtype=np.int64)
    steps = np.empty((1 << doublings, cur.size), dtype=np.int64)
    for k in range(steps.shape[0]):
        steps[k] = cur
        cur = nxt[cur]
    chain = steps.T.reshape(-1)
    return chain[chain < n]


def _cut_chain(arr: npt.NDArray[np.uint8], start: int, w: int, count: int, what: str,
               ext: npt.NDArray[np.int64], chain: npt.NDArray[np.int64],
               packed: npt.NDArray[np.bool_], length: npt.NDArray[np.int64],
               body: npt.NDArray[np.int64], nxt: npt.NDArray[np.int64]
               ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """Step 3 of :func:`_vector_table`: the chain's runs that cover *count* values,
    as (values taken, tags, end), with the final run's body and every RLE value
    checked."""
    size = arr.size
    vbytes = (w + 7) >> 3
    n = size - start
    pk = packed[chain]
    ln = length[chain]
    per_run = np.where(pk, ln << 3, ln)
    filled = np.cumsum(per_run)
    last = int(np.searchsorted(filled, count))
    if last >= chain.size:
        got = int(filled[-1]) if filled.size else 0
        raise ParquetFormatError(
            f"{what} data ends after {got} of {count} more values ({size} bytes)")
    chain = chain[:last + 1]
    pk = pk[:last + 1]
    take = per_run[:last + 1]
    take[-1] -= int(filled[last]) - count
    at = body[chain]
    # Every run but the final one ends where the next header starts, inside
    # the data; only the final run can be cut short.
    final = int(at[-1])
    if pk[-1]:
        if final + ((int(take[-1]) * w + 7) >> 3) > n:
            raise ParquetFormatError(
                f"{what}: bit-packed run at byte {final + start} of {int(take[-1])} values "
                f"of {w} bits is truncated ({size} bytes)")
    elif final + vbytes > n:
        raise ParquetFormatError(f"{what}: RLE run value at the end of the data is truncated")
    values = ext[at]
    for k in range(1, vbytes):
        values |= ext[at + k] << (8 * k)
    wide = (values >> w) != 0
    wide &= ~pk
    if wide.any():
        v = int(values[np.flatnonzero(wide)[0]])
        raise ParquetFormatError(f"{what}: RLE run value {v} does not fit in {w} bits")
    tags = np.where(pk, ~(at + start), values)
    end = min(int(nxt[chain[-1]]) + start, size)
    keep = take > 0
    if not keep.all():
        return take[keep], tags[keep], end
    return take, tags, end


def decode_levels_v1(buf: Any, offset: int, bit_width: int,
                     count: int) -> tuple[npt.NDArray[Any], int]:
    """Decode a data page v1 level stream: u32 LE byte length, then hybrid runs.

    Returns
    -------
    tuple[numpy.ndarray, int]
        The levels (as :func:`decode_rle_hybrid`) and the bytes consumed
        including the 4-byte length, so the next stream starts at
        ``offset + consumed``.
    """
    arr = as_uint8(buf)
    if offset < 0 or offset + 4 > arr.size:
        raise ParquetFormatError(
            f"v1 level stream at byte {offset}: no room for its 4-byte length ({arr.size} bytes)")
    length = int.from_bytes(arr[offset:offset + 4].tobytes(), "little")
    start = offset + 4
    if start + length > arr.size:
        raise ParquetFormatError(
            f"v1 level stream at byte {offset} declares {length} bytes, "
            f"only {arr.size - start} remain")
    levels, _ = decode_hybrid(arr[start:start + length], bit_width, count)
    return levels, 4 + length


def decode_rle_booleans(buf: Any, count: int) -> npt.NDArray[np.bool_]:
    """Decode RLE-encoded BOOLEAN values: u32 LE length, then hybrid runs of width 1."""
    arr = as_uint8(buf)
    _check_count(count, "RLE BOOLEAN")
    if count == 0:
        return np.zeros(0, dtype=np.bool_)
    if arr.size < 4:
        raise ParquetFormatError(f"RLE BOOLEAN: no room for the 4-byte length ({arr.size} bytes)")
    length = int.from_bytes(arr[:4].tobytes(), "little")
    if 4 + length > arr.size:
        raise ParquetFormatError(
            f"RLE BOOLEAN: the stream declares {length} bytes, only {arr.size - 4} remain")
    bits, _ = decode_hybrid(arr[4:4 + length], 1, count, np.uint8)
    return bits.view(np.bool_)


def decode_dictionary_indices(buf: Any, count: int) -> npt.NDArray[np.int32]:
    """Decode dictionary indices of a data page: 1 byte bit width, then hybrid runs.

    Returns int32 indices; the caller checks them against the dictionary size.
    """
    arr = as_uint8(buf)
    _check_count(count, "dictionary indices")
    if count == 0:
        return np.zeros(0, dtype=np.int32)
    if arr.size == 0:
        raise ParquetFormatError(f"dictionary indices: empty buffer for {count} values")
    width = int(arr[0])
    if width > 32:
        raise ParquetFormatError(f"dictionary indices: bit width {width} exceeds 32")
    idx, _ = decode_hybrid(arr[1:], width, count)
    if idx.dtype == np.uint32:
        if idx.size and int(idx.max()) > MAX_COUNT:
            raise ParquetFormatError(
                f"dictionary index {int(idx.max())} exceeds the largest possible dictionary")
        idx = idx.view(np.int32)
    return idx



#: Pages of at most this many values are checked by :func:`indices_count_up`.
_COUNTING_MAX = 1 << 17
#: Its streams are kept for this many ``(bit width, count)`` pairs at a time.
_COUNTING_KEEP = 8
_COUNTING_STREAMS: dict[tuple[int, int], tuple[bytes, bytes]] = {}


def _counting_streams(w: int, count: int) -> tuple[bytes, bytes]:
    """The dictionary-index streams (bit width byte first) of ``0 .. count-1`` at width *w*,
    as writers lay them out: bit-packed runs of 63 groups (504 values; pyarrow and
    parquet-mr reserve one header byte), and one bit-packed run of all the groups (this
    package's writer); the last group padded with zeros in both.  pyarrow writes a last
    value left alone after a run of 504 as an RLE run of one."""
    key = (w, count)
    got = _COUNTING_STREAMS.get(key)
    if got is not None:
        return got
    groups = (count + 7) >> 3
    vals = np.zeros(groups * 8, dtype=np.uint64)
    vals[:count] = np.arange(count, dtype=np.uint64)
    packed = pack_bits(vals, w, validate=False).tobytes()
    run = 63 * w
    parts = [bytes([w])]
    alone = count > 1 and count % 504 == 1
    for at in range(0, (groups - alone) * w, run):
        body = packed[at:at + run]
        parts.append(bytes([(len(body) // w) << 1 | 1]))
        parts.append(body)
    if alone:
        parts.append(b"\x02" + (count - 1).to_bytes((w + 7) >> 3, "little"))
    got = (b"".join(parts), bytes([w]) + write_uleb128(groups << 1 | 1) + packed)
    if len(_COUNTING_STREAMS) >= _COUNTING_KEEP:
        _COUNTING_STREAMS.clear()
    _COUNTING_STREAMS[key] = got
    return got


def indices_count_up(buf: Any, count: int) -> bool:
    """Whether a data page's dictionary indices *buf* (bit width byte first) are
    ``0, 1 ... count-1``, told from their bytes alone (no unpack): the page of a column of
    distinct values, whose dictionary holds them in order of first appearance.

    True only when the bytes begin with one of the layouts :func:`_counting_streams`
    gives, which decode to exactly those indices (bytes after them are never read by a
    decoder); any other page, including a page of the same indices laid out otherwise,
    gives False and is decoded as usual.
    """
    if not 0 < count <= _COUNTING_MAX or not len(buf):
        return False
    w = int(buf[0])
    if not 0 < w <= 32 or count > 1 << w:
        return False
    split, single = _counting_streams(w, count)
    head = bytes(buf[:max(len(split), len(single))])
    return head.startswith(split) or head.startswith(single)


# ---------------------------------------------------------------------------------------
# Dictionary indices of several pages, expanded together
# ---------------------------------------------------------------------------------------

#: ``(body, bit width, run table, count)`` of one page's dictionary indices, checked by
#: :func:`scan_dictionary_indices` and expanded later by :func:`expand_dictionary_index_pages`.
ScannedIndices = tuple


def scan_dictionary_indices(buf: Any, count: int) -> ScannedIndices | None:
    """Check one page's dictionary indices and find their runs, without expanding them.

    The same checks as :func:`decode_dictionary_indices` (every run header and
    body bound, every RLE value's width); the values themselves are produced
    by :func:`expand_dictionary_index_pages` for a run of pages at once, which
    costs one set of numpy calls instead of one per page.  For a page walked by
    :func:`_walk_page` (more than a few runs), the RLE values' width is checked
    there, for all the pages at once; the error raised then carries the page's
    position in its list as ``page_index``, for the caller to name it.  Returns None when
    the page is better decoded on its own (no values, or 32-bit indices, whose
    range check needs the values).
    """
    arr = as_uint8(buf)
    _check_count(count, "dictionary indices")
    if count == 0:
        return None
    if arr.size == 0:
        raise ParquetFormatError(f"dictionary indices: empty buffer for {count} values")
    width = int(arr[0])
    if width > 32:
        raise ParquetFormatError(f"dictionary indices: bit width {width} exceeds 32")
    if width == 32:
        return None
    body = arr[1:]
    if width == 0:
        return body, 0, [count, 0], count
    walked = _walk_page(body, width, count)
    if walked is not None:
        return body, width, walked, count
    # something the walk does not accept (a damaged stream, a header longer than 5
    # bytes): the run loop, with its exact checks and messages
    table, _ = _scan(body, width, count, "RLE/bit-packed hybrid")
    return body, width, table, count


class _Walked:
    """The run chain of one page found by :func:`_walk_page`, as *marks*: the offset of
    the first run of every step of :data:`_WALK_STEP` runs walked at once (an int >= 0),
    and ``~offset`` of every run walked alone (near the data's end and around multi-byte
    headers); the runs inside a step are found again for all the pages of a chunk at
    once (:func:`_walked_offsets`).  Also the multi-byte headers as ``(run number,
    header, header bytes)`` (``longs``), the number of runs (``runs``), the page's value
    count, its data length ``n`` and where the walk stopped: ``end``, the offset past
    the last run walked (beyond ``n`` when that run runs past the data), ``last_hlen``
    the header length of that run, and ``broken`` when the walk stopped at a header it
    cannot read.  Which runs give the page's values (the chain is cut after the run that
    completes the count), and the checks, are found for all the pages of a chunk at once
    (:func:`_walked_runs`)."""

    __slots__ = ("marks", "longs", "count", "n", "end", "last_hlen", "broken", "runs")

    def __init__(self, marks: array[int], runs: int, longs: list[tuple[int, int, int]] | None, count: int,
                 n: int, end: int, last_hlen: int, broken: bool) -> None:
        self.marks = marks
        self.runs = runs
        self.longs = longs
        self.count = count
        self.n = n
        self.end = end
        self.last_hlen = last_hlen
        self.broken = broken


#: Per bit width: the size of a run with a one-byte header, header included, by its
#: header byte (:data:`_LONG` for a multi-byte header) as a list and as an int64
#: table, and the values it declares (int64 table, 0 for a multi-byte header).
_WALK_TABLES: dict[int, tuple[list[int], npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}

#: The "size" of a multi-byte header in :func:`_walk_page`'s tables: it throws the walk's
#: position past any data, which ends the inner loop at that header.
_LONG = 1 << 62

#: Runs walked by one step of :func:`_walk_page`'s inner loop, of which it keeps only the
#: first one's offset.
_WALK_STEP = 16

#: One step's run offsets as one element (:func:`_walked_offsets`).
_STEP_VOID = np.dtype((np.void, 8 * _WALK_STEP))

#: After a multi-byte header, :func:`_walk_page` walks by steps only when more runs than
#: this came between it and the one before (or the page's start); else run by run.
_STEPS_MIN_STRETCH = 2 * _WALK_STEP

#: Pages of at most this many runs are left to the run loop of :func:`_scan`.
_WALK_MIN_RUNS = 8

#: Chunks whose walked pages hold fewer marks than this (steps and runs walked alone) have
#: the runs of their steps found in Python by :func:`_walked_offsets`, others by numpy.
_OFFSETS_NUMPY_MIN = 32


def _walk_tables(w: int) -> tuple[list[int], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    vbytes = (w + 7) >> 3
    size_of = [1 + ((h >> 1) * w if h & 1 else vbytes) if h < 0x80 else _LONG for h in range(256)]
    h = np.arange(256, dtype=np.int64)
    take_of = np.where(h & 1, (h >> 1) << 3, h >> 1)
    take_of[0x80:] = 0
    sizes = np.array(size_of, dtype=np.int64)
    sizes[0x80:] = 0
    _WALK_TABLES[w] = tables = (size_of, sizes, take_of)
    return tables


def _walk_page(body: npt.NDArray[np.uint8], w: int, count: int) -> _Walked | None:
    """The run chain of one page of dictionary indices, unchecked (checked for all pages
    at once by :func:`_walked_runs`); None when the page has few runs (the run loop of
    :func:`_scan` then finds them, for the single-page fast paths).

    A run header's position depends on the previous run's length, so the chain is
    sequential: the inner loop adds each run's size, looked up by its header byte, to
    the position, :data:`_WALK_STEP` runs a step, and keeps only the offset where each
    step starts, following the chain to the end of the data.  The offsets of the runs
    inside the steps are found again by numpy for all the pages of a chunk at once
    (:func:`_walked_offsets`: one gather per run of a step, for every step together).
    A multi-byte header (an RLE run of 64+ values, a packed run of 64+ groups) has a
    size that throws the position past the data, ends the inner loop and is decoded by
    :func:`_long_header`; the step that met it, or the end of the data, is walked again
    run by run, each run's offset kept (as ``~offset``).  Everything else (the values
    each run declares, the cut after the run that completes *count*, the bounds) is left
    to :func:`_walked_runs`, a few numpy calls for all the pages of a chunk instead of a
    few per page.
    """
    size_of, _, _ = _WALK_TABLES.get(w) or _walk_tables(w)
    vbytes = (w + 7) >> 3
    raw = body.tobytes()        # indexing bytes is cheaper than a memoryview's
    n = len(raw)
    marks = array("q")     # (its bytes are numpy's int64: one buffer for all the pages)
    add = marks.append
    alone = 0           # runs walked alone (marked ~offset)
    longs: list[tuple[int, int, int]] | None = None
    p = 0
    last_hlen = 1       # header bytes of the last run walked
    broken = False      # the walk stopped at a header it cannot read
    by_steps = True     # the stretch up to the next multi-byte header is walked by steps
    stretch_from = 0    # runs walked before the stretch
    while True:
        if by_steps:
            # Sequential by nature (see the docstring): the lightest loop per run, an
            # addition and two lookups, its offset not kept (about a third of the time of
            # a loop that keeps each run's header byte).  A step that runs past the data or
            # meets a multi-byte header (whose size throws p past any index) raises
            # IndexError at its next read: that step is walked again run by run.
            try:
                while p < n:
                    add(p)
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
                    p += size_of[raw[p]]
            except IndexError:
                p, k = _walk_alone(raw, marks.pop(), n, size_of, marks)
                alone += k
        else:
            # the last stretch between multi-byte headers was short: run by run, which
            # stops at the next one without an exception (steps that raise and are walked
            # again took 1.5x the time of the loop that kept every run's header byte when
            # every other run has one, as in a column of mostly one value)
            p, k = _walk_alone(raw, p, n, size_of, marks)
            alone += k
        if p < _LONG:
            break
        q = p - _LONG     # the multi-byte header's offset (size_of added _LONG to it)
        if marks[-1] >= 0:
            # a whole step ended with that header: walked again run by run, so that the
            # header's run is one of its own (its place in the runs is known)
            p, k = _walk_alone(raw, marks.pop(), n, size_of, marks)
            alone += k
        header, hlen = _long_header(raw, q, n)
        if not hlen:
            marks.pop()
            alone -= 1
            broken = True
            p = q
            break
        if longs is None:
            longs = []
        walked = (len(marks) - alone) * _WALK_STEP + alone
        longs.append((walked - 1, header, hlen))
        p = q + hlen + ((header >> 1) * w if header & 1 else vbytes)
        by_steps = walked - stretch_from > _STEPS_MIN_STRETCH
        stretch_from = walked
    runs = (len(marks) - alone) * _WALK_STEP + alone
    if runs <= _WALK_MIN_RUNS:
        return None     # few runs: the run loop's table feeds the single-page fast paths
    if longs and longs[-1][0] == runs - 1:
        last_hlen = longs[-1][2]
    return _Walked(marks, runs, longs, count, n, p, last_hlen, broken)


def _walk_alone(raw: bytes, p: int, n: int, size_of: list[int], marks: array[int]) -> tuple[int, int]:
    """:func:`_walk_page`'s run-by-run walk from *p*: each run marked ``~offset`` in
    *marks*, to the end of the data or a multi-byte header (whose size throws the
    position past the data); the position reached and the number of runs marked."""
    before = len(marks)
    add = marks.append
    while p < n:
        add(~p)
        p += size_of[raw[p]]
    return p, len(marks) - before


def _walked_offsets(joined: npt.NDArray[np.uint8], w: int, walked: list[tuple[_Walked, int]]
                    ) -> npt.NDArray[np.int64]:
    """The offset in *joined* of every run walked by :func:`_walk_page` in the pages of
    *walked* (``(walk, base)``: the page's body is at *base* of *joined*), in order.

    A run walked alone is its mark; the runs of a step are found from its first one's
    offset by the walk's own rule (the next run starts after this one's one-byte header
    and body), every step of every page together: :data:`_WALK_STEP` - 1 gathers of
    header bytes and sizes for the whole chunk instead of a Python step per run.
    """
    size_of, size_tbl, _ = _WALK_TABLES.get(w) or _walk_tables(w)
    if sum(len(wk.marks) for wk, _ in walked) < _OFFSETS_NUMPY_MIN:
        # few steps: in Python (numpy's loop below costs ~45 us whatever the size)
        offsets: list[int] = []
        add = offsets.append
        for wk, base in walked:
            raw = b""
            for p in wk.marks:
                if p < 0:
                    add(~p + base)
                    continue
                if not raw:
                    raw = joined[base:base + wk.n].tobytes()
                for _ in range(_WALK_STEP):
                    add(p + base)
                    p += size_of[raw[p]]
        return np.array(offsets, dtype=np.int64)
    marks = np.frombuffer(b"".join([wk.marks for wk, _ in walked]), dtype=np.int64)
    bases = np.repeat(np.array([b for _, b in walked], dtype=np.int64), [len(wk.marks) for wk, _ in walked])
    np.negative(bases, out=bases, where=marks < 0)      # ~(p + base) == ~p - base
    marks = marks + bases
    alone = marks < 0
    if alone.all():
        return ~marks       # every run walked alone (multi-byte headers every few runs)
    runs = np.where(alone, 1, _WALK_STEP)
    at = np.cumsum(runs)
    at -= runs
    out = np.empty(int(at[-1] + runs[-1]) if at.size else 0, dtype=np.int64)
    out[at[alone]] = ~marks[alone]
    step = ~alone
    first = marks[step]
    if first.size:
        # one row per run of a step (row i: the i-th run of every step); every run of a
        # step has a one-byte header (the walk takes a step that meets a longer one run
        # by run), so its size is the table's
        rows = np.empty((_WALK_STEP, first.size), dtype=np.int64)
        rows[0] = first
        prev = first
        for i in range(1, _WALK_STEP):
            prev = np.add(prev, size_tbl.take(joined.take(prev)), out=rows[i])
        # each step's runs are one element of _WALK_STEP offsets, copied to its place in
        # *out* (seen as overlapping windows of that many offsets, one at each offset)
        steps = np.ascontiguousarray(rows.T).view(_STEP_VOID).reshape(-1)
        windows = np.ndarray((out.size - _WALK_STEP + 1,), dtype=_STEP_VOID, buffer=out, strides=(8,))
        windows[at[step]] = steps
    return out


def _walked_heads(raw: bytes, wk: _Walked, w: int) -> bytes:
    """The first header byte of every run of one page walked by :func:`_walk_page`
    (*raw*: the page's data), in Python (a single page: fewer steps than numpy's
    per-call cost)."""
    size_of, _, _ = _WALK_TABLES.get(w) or _walk_tables(w)
    heads = bytearray()
    add = heads.append
    for p in wk.marks:
        if p < 0:
            add(raw[~p])
            continue
        # the runs of a step (one-byte headers, within the data: the walk passed them)
        for _ in range(_WALK_STEP):
            h = raw[p]
            add(h)
            p += size_of[h]
    return bytes(heads)


def _width_stretches(pages: list[ScannedIndices]) -> list[tuple[int, int, int]]:
    """``(first, end, bit width)`` of each stretch of consecutive pages of one bit width."""
    out = []
    i = 0
    n = len(pages)
    while i < n:
        w = pages[i][1]
        j = i + 1
        while j < n and pages[j][1] == w:
            j += 1
        out.append((i, j, w))
        i = j
    return out


def expand_dictionary_index_pages(pages: list[ScannedIndices]) -> npt.NDArray[np.int32]:
    """The int32 indices of pages scanned by :func:`scan_dictionary_indices`, in order.

    Pages of one bit width are expanded together: the bit-packed bodies of all
    their runs are joined (each body read as whole 8-value groups; a page's
    last body may stop short of its final group, so each page's bytes are
    followed by zero padding in the join) and unpacked by one call; RLE runs
    become one ``np.repeat``.  Values past the ones a run contributes (the
    padding of a cut-short group) are dropped.
    """
    out_parts = [_expand_same_width(pages[i:j], w, i) for i, j, w in _width_stretches(pages)]
    if len(out_parts) == 1:
        return out_parts[0]
    return np.concatenate(out_parts)


def expand_dictionary_index_values(pages: list[ScannedIndices], dictionary: npt.NDArray[Any]) -> npt.NDArray[Any] | None:
    """The values of a fixed-width *dictionary* (rows along axis 0) at the indices of pages
    scanned by :func:`scan_dictionary_indices`: their narrow codes
    (:func:`expand_dictionary_index_codes`) taken from it, with no int32 index array in
    between; or None when the codes path refuses them (an index outside the dictionary:
    the index path then names the page).  A page that fails a check raises as with
    :func:`expand_dictionary_index_pages` (``page_index`` counted from ``pages[0]``)."""
    codes = expand_dictionary_index_codes(pages, len(dictionary))
    return None if codes is None else np.take(dictionary, codes, axis=0)


#: Runs of pages averaging more values than this are left to the index path (its
#: even-run and slice copies serve long bit-packed runs, ``np.repeat`` long RLE runs).
_CODES_MAX_MEAN_RUN = 128
#: Dictionaries larger than this are left to the index path when their indices need two
#: bytes (the fill table of :func:`_codes_same_width` has a row per entry).
_CODES_MAX_ROWS = 4096
#: Zero bytes after the pages joined by :func:`_codes_same_width`: a body's window copy
#: reads up to the widest window of :func:`~parquet_core._kernels.code_runs.window_for`
#: past the body's start.
_CODES_PAD = 512


def expand_dictionary_index_codes(pages: list[ScannedIndices], size: int) -> npt.NDArray[Any] | None:
    """The indices of pages scanned by :func:`scan_dictionary_indices`, in order, as
    narrow codes (uint8 when every page's bit width is at most 8, else uint16), for a
    dictionary of *size* entries; or None when an index used is outside the dictionary
    (the index path then names the page) or this path does not apply (indices of more
    than 16 bits, two-byte codes for more than :data:`_CODES_MAX_ROWS` entries, long
    runs: :data:`_CODES_MAX_MEAN_RUN`).

    Every run is one window copy of :func:`~parquet_core._kernels.code_runs.copy_code_runs`:
    a bit-packed run's from the unpacked values of all bodies, an RLE run's from a fill
    table row of its value; no repeated index array, no placement of the packed values
    among the repeated ones.  The pages are checked exactly as the index path checks
    them (:func:`_chunk_runs`); a page that fails raises its error with ``page_index``.
    """
    if not pages or size <= 0:
        return None
    top = 0
    total = 0
    runs = 0
    for _body, w, table, count in pages:
        top = max(top, w)
        total += count
        runs += table.runs if type(table) is _Walked else len(table[0]) if isinstance(table, tuple) \
            else len(table) >> 1
    if top > 16 or total > _CODES_MAX_MEAN_RUN * max(runs, 1):
        return None
    dtype = np.dtype(np.uint8 if top <= 8 else np.uint16)
    if dtype.itemsize == 2 and min(size, 1 << top) > _CODES_MAX_ROWS:
        return None
    parts: list[npt.NDArray[Any]] = []
    for i, j, w in _width_stretches(pages):
        part = _codes_same_width(pages[i:j], w, i, dtype, size)
        if part is None:
            return None
        parts.append(part)
    codes = parts[0] if len(parts) == 1 else np.concatenate(parts)
    if size < (1 << top) and codes.size and int(codes.max()) >= size:
        return None
    return codes


def _codes_same_width(pages: list[ScannedIndices], w: int, page0: int, dtype: np.dtype[Any],
                      size: int) -> npt.NDArray[Any] | None:
    """:func:`expand_dictionary_index_codes` of pages of one bit width *w* (codes of
    *dtype*; an index outside the dictionary may be left in them, for the caller's check)."""
    total = 0
    for page in pages:
        total += page[3]
    if w == 0:
        return np.zeros(total, dtype=dtype)
    while True:
        try:
            joined, takes, tags, _ = _chunk_runs(pages, w, page0, _CODES_PAD)
            break
        except _Rescanned as again:
            pages = list(pages)
            body, _, _, count = pages[again.k]
            pages[again.k] = (body, w, again.table, count)
    isz = dtype.itemsize
    packed = tags < 0
    width = window_for(total * isz, takes.size)
    per_row = width // isz
    rows = 1 << w
    if isz == 2 and size < rows:
        # rows for the dictionary's entries only: an RLE run of a value past them that
        # gives values is out of range; one that gives none reads row 0 (then overwritten)
        rows = size
        past = tags >= rows
        if past.any():
            if (takes[past] > 0).any():
                return None
            tags = np.where(past, 0, tags)
    # the source: every bit-packed value, then the fill table (a row per RLE value), then
    # a row of slack for the last windows
    if w in (1, 2, 4, 8):
        # bodies start on byte boundaries, where whole values start at these widths:
        # unpacking all of *joined* gives every body's values in place, with no gather
        n_codes = joined.size * 8 // w
        src = np.empty(n_codes + (rows + 1) * per_row, dtype=dtype)
        unpack_bits_into(joined, w, n_codes, src)
        src_at = ~tags
        src_at *= 8 // w
    else:
        # other widths: a body's values start on a whole value only within its own bytes, so
        # the bodies (whole groups of w bytes) are first copied back to back, one window
        # per body, and that stream is unpacked in one call (a gather of every group by its
        # offset, then the unpack, measured 0.53 ms against 0.41 for 9-bit codes of 300,000
        # values in runs of 20-60, and 0.38 against 0.23 for 3-bit ones)
        p_take = takes[packed]
        body_len = (p_take + 7) >> 3
        first = np.cumsum(body_len)
        n_groups = int(first[-1]) if first.size else 0
        first -= body_len
        body_len *= w
        n_codes = n_groups * 8
        src = np.empty(n_codes + (rows + 1) * per_row, dtype=dtype)
        if n_groups:
            bwidth = window_for(n_groups * w, body_len.size)
            bodies = copy_code_runs(joined, ~tags[packed], body_len, np.zeros(body_len.size, dtype=np.bool_),
                                    n_groups * w, bwidth)
            if bodies is None:
                return None
            unpack_groups(bodies, n_groups, w, src)
        src_at = np.zeros(takes.size, dtype=np.int64)
        src_at[packed] = first * 8
    src[n_codes:n_codes + rows * per_row] = fill_table(rows, per_row, dtype)
    rle_at = tags * per_row
    rle_at += n_codes
    starts = np.where(packed, src_at, rle_at)
    if isz > 1:
        starts *= isz
        lengths = takes * isz
    else:
        lengths = takes
    out = copy_code_runs(src.view(np.uint8), starts, lengths, ~packed, total * isz, width)
    if out is None:
        return None
    return out[:total * isz].view(dtype)


#: Bit-packed bodies averaging at least this many 8-value groups are copied slice by
#: slice in :func:`_expand_same_width`; shorter ones by one gather of their groups.
_SLICE_MIN_GROUPS = 12


class _Rescanned(Exception):
    """Page *k* failed the checks of :func:`_walked_runs` yet the run loop accepts it (not
    expected: the checks are the same); its run table replaces the walk."""

    def __init__(self, k: int, table: Any) -> None:
        super().__init__(k)
        self.k = k
        self.table = table


def _rescan(pages: list[ScannedIndices], k: int, w: int, page0: int) -> _Rescanned:
    """Page *k* of *pages*, whose walked runs failed a check, through the run loop of
    :func:`_scan`: its error is raised, with ``page_index`` (the page's position among
    the pages given to :func:`expand_dictionary_index_pages`, *page0* being that of
    ``pages[0]``) telling the caller which page it is."""
    body, _, _, count = pages[k]
    try:
        table, _ = _scan(body, w, count, "RLE/bit-packed hybrid")
    except ParquetFormatError as exc:
        exc.page_index = page0 + k     # type: ignore[attr-defined]
        raise
    return _Rescanned(k, table)


def _expand_same_width(pages: list[ScannedIndices], w: int, page0: int = 0) -> npt.NDArray[np.int32]:
    while True:
        try:
            return _expand_same_width_once(pages, w, page0)
        except _Rescanned as again:
            pages = list(pages)
            body, _, _, count = pages[again.k]
            pages[again.k] = (body, w, again.table, count)


def _expand_same_width_once(pages: list[ScannedIndices], w: int, page0: int = 0) -> npt.NDArray[np.int32]:
    """The int32 indices of *pages* (all of bit width *w*)."""
    if len(pages) == 1 and w and type(pages[0][2]) is not _Walked:
        body, _, table, count = pages[0]
        return _expand(body, w, count, np.int32, table)    # one run: a fill or one unpack
    elif w:
        even = _expand_even_runs(pages, w)
        if even is not None:
            return even
    total = 0
    for page in pages:
        total += page[3]
    if w == 0:
        return np.zeros(total, dtype=np.int32)
    joined, takes, tags, runs_per_page = _chunk_runs(pages, w, page0)
    packed = tags < 0
    if not packed.any():
        return np.repeat(tags.astype(np.int32), takes)
    # Only a page's final run can stop inside a group of 8 values.  Such a run gives its
    # whole groups here and the values of its last group (a few per page) are decoded
    # apart and written over a placeholder run (take r, value 0) inserted after it, so
    # the main unpack yields exactly the values used (no padding to cut out of it).
    # (One page: its final run is the last one, whose padding is simply sliced off.)
    cut = (np.flatnonzero(packed & ((takes & 7) != 0)) if len(runs_per_page) > 1
           else np.zeros(0, dtype=np.int64))
    tails: list[tuple[int, int]] = []
    if cut.size:
        r = takes[cut] & 7
        tail_at = ~tags[cut] + (takes[cut] >> 3) * w        # the last group's bytes
        # the placeholders' places in the longer table; the other runs keep their order
        # (one shared mask: np.insert costs more in Python set-up for three arrays)
        placed = cut + 1 + np.arange(cut.size)
        old = np.ones(takes.size + cut.size, dtype=np.bool_)
        old[placed] = False
        grown = np.empty(old.size, dtype=np.int64)
        grown[old] = takes
        grown[cut + np.arange(cut.size)] -= r
        grown[placed] = r
        takes = grown
        grown = np.zeros(old.size, dtype=np.int64)
        grown[old] = tags
        tags = grown
        packed = grown < 0
        tails = list(zip(placed.tolist(), r.tolist()))
    p_take = takes[packed]
    groups = (p_take + 7) >> 3
    starts = ~tags[packed]
    n_groups = int(groups.sum())
    n_unpacked = n_groups << 3
    n_used = int(p_take.sum())
    unpacked: npt.NDArray[np.int32]
    # every body lies inside its page's bytes plus padding (checked by the scan); the
    # bodies (whole groups of w bytes) are copied back to back, followed by SLACK
    # bytes of any content for the unpacker's word reads (their bits are masked off)
    body_bytes = np.empty(n_groups * w + SLACK, dtype=np.uint8)
    if n_groups >= _SLICE_MIN_GROUPS * groups.size:
        # long bodies (parquet-mr writes 504-value bit-packed runs): one slice copy
        # each costs less than the index arithmetic and gather of their groups
        dst, src = body_bytes.data, joined.data
        pos = 0
        for s, nb in zip(starts.tolist(), (groups * w).tolist()):
            dst[pos:pos + nb] = src[s:s + nb]
            pos += nb
    elif n_groups:
        # shorter bodies: one gather of all their groups as w-byte windows
        first = np.zeros(groups.size, dtype=np.int64)
        np.cumsum(groups[:-1], out=first[1:])
        at = np.repeat(starts - first * w, groups)
        at += np.arange(0, n_groups * w, w, dtype=np.int64)
        body_bytes[:n_groups * w].view(f"V{w}")[:] = window_view(joined, w)[at]
    unpacked = np.empty(n_unpacked, dtype=np.int32)
    unpack_bits_into(body_bytes, w, n_unpacked, unpacked)
    if n_used != n_unpacked:
        unpacked = unpacked[:n_used]    # one page: only its last run stops inside a group
    if n_used == total:
        return unpacked
    out = np.repeat(np.where(packed, 0, tags).astype(np.int32), takes)
    if n_used == n_unpacked and out.size >= 8:
        # every packed run gives whole groups (a run cut short inside a group is split
        # off above): each group of 8 values is copied to its place as one element
        _place_groups(out, takes, packed, groups, unpacked)
    else:
        out[np.repeat(packed, takes)] = unpacked
    if tails:
        groups_bytes = np.zeros(len(tails) * w + SLACK, dtype=np.uint8)
        groups_bytes[:len(tails) * w].view(f"V{w}")[:] = window_view(joined, w)[tail_at]
        last = np.empty(len(tails) * 8, dtype=np.int32)
        unpack_bits_into(groups_bytes, w, last.size, last)
        ends = np.cumsum(takes)
        # a few per chunk (one per page at most)
        for k, (i, n) in enumerate(tails):
            e = int(ends[i])
            out[e - n:e] = last[8 * k:8 * k + n]
    return out


def _chunk_runs(pages: list[ScannedIndices], w: int, page0: int, pad: int = 0
                ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64], list[int]]:
    """The run table of *pages* (all of bit width ``w > 0``) as one: ``(joined, takes,
    tags, runs per page)``.  *joined* holds the page bodies back to back, each followed
    by ``w`` zero bytes (the last group of a page's last body may be cut short), and
    after the last page *pad* more zero bytes; a body at offset ``o`` of a page is at
    ``base + o`` of *joined*.  ``takes`` are the
    values each run gives, ``tags`` an RLE run's value or ``~offset`` of a bit-packed
    body in *joined* (as in :func:`_scan`).  Every run is checked as :func:`_scan`
    checks it; a page that fails raises :class:`_Rescanned` (its run loop's table) or
    its error (``page_index``: *page0* plus its place in *pages*)."""
    bufs: list[Any] = []
    bases: list[int] = []
    base = 0
    for body, _, _, _ in pages:
        bufs.append(memoryview(body))
        bufs.append(bytes(w))
        bases.append(base)
        base += body.size + w
    if pad:
        bufs.append(bytes(pad))
    joined = np.frombuffer(b"".join(bufs), dtype=np.uint8)
    runs_per_page: list[int] = []
    takes_parts: list[npt.NDArray[np.int64]] = []
    tags_parts: list[npt.NDArray[np.int64]] = []
    walked: list[tuple[_Walked, int]] = []
    # run tables of pages left to the run loop (a flat list each, a few runs): gathered in
    # Python and converted once, rather than a few numpy calls per page
    flat: list[int] = []

    def flush_flat() -> None:
        pairs = np.array(flat, dtype=np.int64).reshape(-1, 2)
        takes_parts.append(pairs[:, 0])
        tags_parts.append(pairs[:, 1])
        flat.clear()

    walked_at: list[int] = []

    def flush_walked() -> None:
        bad = _walked_runs(joined, w, walked, takes_parts, tags_parts, runs_per_page)
        if bad >= 0:
            raise _rescan(pages, walked_at[bad], w, page0)
        walked.clear()
        walked_at.clear()

    for k, ((_body, _, table, _count), base) in enumerate(zip(pages, bases)):
        if type(table) is _Walked:
            if flat:
                flush_flat()
            walked.append((table, base))
            walked_at.append(k)
            continue
        if walked:
            flush_walked()
        # a bit-packed body's tag ~o becomes ~(o + base) = ~o - base
        if isinstance(table, tuple):
            if flat:
                flush_flat()
            tk, tg = table
            takes_parts.append(tk)
            tags_parts.append(np.where(tg < 0, tg - base, tg))
            runs_per_page.append(len(tk))
            continue
        for i in range(1, len(table), 2):
            take, tag = table[i - 1], table[i]
            flat.append(take)
            flat.append(tag - base if tag < 0 else tag)
        runs_per_page.append(len(table) >> 1)
    if flat:
        flush_flat()
    if walked:
        flush_walked()
    takes = np.concatenate(takes_parts) if len(takes_parts) > 1 else takes_parts[0]
    tags = np.concatenate(tags_parts) if len(tags_parts) > 1 else tags_parts[0]
    return joined, takes, tags, runs_per_page


def _place_groups(out: npt.NDArray[Any], takes: npt.NDArray[np.int64], packed: npt.NDArray[np.bool_],
                  groups: npt.NDArray[np.int64], unpacked: npt.NDArray[Any]) -> None:
    """Copy the bit-packed runs' values *unpacked* (``8 * groups`` of each packed run of
    the run table *takes*/*packed*, in order) to their places in *out*, a group of 8
    values at a time: *out* seen as overlapping windows of 8 values (one element each,
    stride one value) takes one element per group.  Costs one index per group instead
    of a mask over every value (and a mask the size of the output)."""
    starts = np.cumsum(takes)
    starts -= takes
    first = np.zeros(groups.size, dtype=np.int64)
    np.cumsum(groups[:-1], out=first[1:])
    n_groups = int(first[-1] + groups[-1])
    pos = np.repeat(starts[packed] - first * 8, groups)
    pos += np.arange(0, n_groups * 8, 8, dtype=np.int64)
    size = out.itemsize
    group = np.dtype((np.void, 8 * size))
    windows = np.ndarray((out.size - 7,), dtype=group, buffer=out, strides=(size,))
    windows[pos] = np.ascontiguousarray(unpacked).view(group)


def _even_layout(body: npt.NDArray[np.uint8], w: int, table: Any, count: int) -> tuple[int, int, int] | None:
    """``(full runs, groups per run, values of the final run)`` of a walked page whose runs
    are all bit-packed with one-byte headers, all of one size but the final one, which
    completes *count* within the data; None for any other page.

    That is how pyarrow and parquet-mr write dictionary indices of distinct or
    high-cardinality values (bit-packed runs of 504 values, header byte 0x7F), and then
    every body's place is known from its run number alone.
    """
    if type(table) is not _Walked or table.longs or table.broken:
        return None
    heads = _walked_heads(body.tobytes(), table, w)
    h = heads[0]
    last = heads[-1]
    runs = table.runs
    if not (h & 1 and last & 1) or h < 3 or last < 3 or heads.count(heads[:1], 0, runs - 1) != runs - 1:
        return None
    groups = h >> 1
    full = runs - 1
    rest = count - full * groups * 8
    if not 0 < rest <= (last >> 1) * 8:
        return None     # the count ends in an earlier run (the generic cut finds it)
    # every run before the final one is followed by a header in the data, so is whole;
    # the final one must hold the bytes of the values it gives
    if full * (1 + groups * w) + 1 + ((rest * w + 7) >> 3) > body.size:
        return None
    return full, groups, rest


def _expand_even_runs(pages: list[ScannedIndices], w: int) -> npt.NDArray[np.int32] | None:
    """The indices of pages whose runs all have the layout :func:`_even_layout` accepts,
    unpacked in place (no run table, no joined bodies: one strided unpack of the equal
    runs and one of the final run per page); None when a page has another layout."""
    layouts = []
    total = 0
    for body, _, table, count in pages:
        layout = _even_layout(body, w, table, count)
        if layout is None:
            return None
        layouts.append(layout)
        total += count
    if _counts_up(pages, layouts, w, total):
        seq = counting(total)
        if seq is not None:
            return seq
    out = np.empty(total, dtype=np.int32)
    pos = 0
    for (body, _, _, count), (full, groups, rest) in zip(pages, layouts):
        stride = 1 + groups * w
        n_full = full * groups * 8
        unpack_spaced_runs_into(body, 1, stride, full, groups, w, out[pos:pos + n_full])
        unpack_bits_into(body[full * stride + 1:], w, rest, out[pos + n_full:pos + count])
        pos += count
    return out


def _counts_up(pages: list[ScannedIndices], layouts: list[tuple[int, int, int]], w: int, total: int) -> bool:
    """Whether the pages (laid out as :func:`_even_layout` found) hold the indices
    0, 1 ... total-1: their run bodies compared, as bytes, with those of the packed
    counting sequence (a dictionary of distinct values in order of first appearance).
    The first group of each page is compared first, so other pages cost little."""
    ref = packed_counting(w, total)
    if ref is None:
        return False
    start = 0
    for (body, _, _, count), (full, groups, rest) in zip(pages, layouts):
        if start & 7:
            return False        # a page starting inside a group of 8: not byte-aligned
        at = (start * w) >> 3
        if full and bytes(body[1:1 + w]) != bytes(ref[at:at + w]):
            return False
        run = groups * w
        stride = 1 + run
        if full:
            bodies = np.ndarray((full, run), dtype=np.uint8, buffer=body, offset=1, strides=(stride, 1))
            if not np.array_equal(bodies, ref[at:at + full * run].reshape(full, run)):
                return False
        # the final run: its whole bytes, then the bits of its last byte that hold values
        fb = full * stride + 1
        at += full * run
        nbits = rest * w
        whole = nbits >> 3
        if bytes(body[fb:fb + whole]) != bytes(ref[at:at + whole]):
            return False
        if nbits & 7 and (int(body[fb + whole]) ^ int(ref[at + whole])) & ((1 << (nbits & 7)) - 1):
            return False
        start += count
    return True


def _run_values(joined: npt.NDArray[np.uint8], body: npt.NDArray[np.int64], vbytes: int) -> npt.NDArray[np.int64]:
    """The RLE runs' repeated values: *vbytes* little-endian bytes at each of *body*."""
    value = joined[body].astype(np.int64)
    for k in range(1, vbytes):
        value |= joined[body + k].astype(np.int64) << (8 * k)
    return value


def _walked_runs(joined: npt.NDArray[np.uint8], w: int, walked: list[tuple[_Walked, int]],
                 takes_parts: list[npt.NDArray[np.int64]],
                 tags_parts: list[npt.NDArray[np.int64]], runs_per_page: list[int]) -> int:
    """The run tables (values taken, tags as in :func:`_scan`, offsets into *joined*) of
    consecutive pages walked by :func:`_walk_page`, found and checked together; appended
    to the parts, and each page's number of runs used to *runs_per_page*.

    Each run's offset is its page's base plus the sizes of the runs before it in the
    page (a running sum of the sizes looked up by header byte).  A page's runs are cut
    after the run that completes its count (one search in the running sum of the
    values every run declares), and checked as :func:`_scan` checks them: the runs
    cover the count within the data (every run before the final one walked is followed
    by another header in the data, so its body is whole; the final one, when it runs
    past the data, must hold the bytes of the values it gives) and every RLE value used
    fits in *w* bits.  Returns the position in *walked* of the first page that fails a
    check (the caller then decodes it with the run loop, which reports it), or -1.
    """
    _, _, take_tbl = _WALK_TABLES.get(w) or _walk_tables(w)
    vbytes = (w + 7) >> 3
    if len(walked) == 1 and not walked[0][0].longs:
        return _one_walked_page(joined, w, walked[0], takes_parts, tags_parts, runs_per_page)
    # every run's offset in *joined*, and its header byte as numpy's index type once (two
    # table lookups by a uint8 index would each convert it)
    at = _walked_offsets(joined, w, walked)
    heads = joined[at].astype(np.intp)
    take = take_tbl[heads]
    hlen = None
    counts = [wk.runs for wk, _ in walked]
    npages = len(walked)
    first = np.array([0, *accumulate(counts[:-1])], dtype=np.int64)     # a few pages: in Python
    offset = 0
    for wk, _ in walked:
        if wk.longs:
            if hlen is None:
                hlen = np.ones(heads.size, dtype=np.int64)
            for i, header, hl in wk.longs:
                j = offset + i
                hlen[j] = hl
                take[j] = (header >> 1) << 3 if header & 1 else header >> 1
        offset += wk.runs
    bases = np.array([base for _, base in walked], dtype=np.int64)
    # the run completing each page's count: the first whose running sum reaches it
    filled = np.cumsum(take)
    target = np.array([wk.count for wk, _ in walked], dtype=np.int64)
    target[1:] += filled[first[1:] - 1]
    last = np.searchsorted(filled, target)
    stop = first + np.array(counts, dtype=np.int64)     # each page's runs end here
    bad = last >= stop
    last[bad] = stop[bad] - 1
    over = filled[last] - target
    take[last[~bad]] -= over[~bad]
    # a page whose final run used is the last walked and runs past the data: that run
    # must hold the bytes of the values it gives (a packed body may stop short)
    for k, (wk, _) in enumerate(walked):
        if bad[k] or wk.broken or wk.end <= wk.n or int(last[k]) != int(stop[k]) - 1:
            continue
        j = int(last[k])
        pos = int(at[j]) - int(bases[k])
        # (a varint's first byte carries the header's flag bit, also for a long header)
        need = (int(take[j]) * w + 7) >> 3 if heads[j] & 1 else vbytes
        if pos + wk.last_hlen + need > wk.n:
            bad[k] = True
    first_bad = int(np.argmax(bad)) if bad.any() else npages
    # the runs used: first..last of each page (of the pages before the first bad one)
    if first_bad < npages:
        last, first, stop = last[:first_bad], first[:first_bad], stop[:first_bad]
        counts = counts[:first_bad]
    used = last + 1 - first
    if used.size and (used == stop - first).all():
        n_runs = int(stop[-1])
        keep = None
    else:
        n_runs = int(used.sum())
        keep = np.repeat(last + 1 - np.cumsum(used), used) + np.arange(n_runs)
    if keep is None:
        at, take, heads_u = at[:n_runs], take[:n_runs], heads[:n_runs]
        hlens = None if hlen is None else hlen[:n_runs]
    else:
        at, take, heads_u = at[keep], take[keep], heads[keep]
        hlens = None if hlen is None else hlen[keep]
    packed = (heads_u & 1).astype(np.bool_)
    body = at + 1 if hlens is None else at + hlens
    value = _run_values(joined, body, vbytes)
    tags = np.where(packed, ~body, value)
    # the RLE values are the tags >= 0 (a packed run's tag is negative): all fit in w bits
    # when the largest tag does; else the first page holding one too wide is found
    if w < 8 * vbytes and tags.size and int(tags.max()) >> w > 0:
        wide = value >> w
        wide[packed] = 0
        run_first = np.zeros(len(counts), dtype=np.int64)
        np.cumsum(used[:-1], out=run_first[1:])
        return int(np.searchsorted(run_first, np.flatnonzero(wide)[0], side="right")) - 1
    if first_bad < npages:
        return first_bad
    takes_parts.append(take)
    tags_parts.append(tags)
    runs_per_page.extend(used.tolist())
    return -1


def _one_walked_page(joined: npt.NDArray[np.uint8], w: int, walked: tuple[_Walked, int],
                     takes_parts: list[npt.NDArray[np.int64]],
                     tags_parts: list[npt.NDArray[np.int64]], runs_per_page: list[int]) -> int:
    """:func:`_walked_runs` for one page without multi-byte headers (pages read a batch
    at a time are expanded one by one): the same cut and checks with the page's
    figures as Python ints, about half the numpy calls."""
    wk, base = walked
    _, size_tbl, take_tbl = _WALK_TABLES[w]
    vbytes = (w + 7) >> 3
    heads = np.frombuffer(_walked_heads(joined[base:base + wk.n].tobytes(), wk, w), dtype=np.uint8)
    take = take_tbl[heads]
    filled = np.cumsum(take)
    last = int(np.searchsorted(filled, wk.count))
    if last >= wk.runs:
        return 0        # the data ends first
    n = last + 1
    if n < wk.runs:
        heads, take = heads[:n], take[:n]
    take[-1] -= int(filled[last]) - wk.count
    size = size_tbl[heads]
    body = np.cumsum(size)
    body -= size
    body += base + 1        # one-byte headers: the body (or RLE value) follows
    if n == wk.runs and not wk.broken and wk.end > wk.n:
        # the final run runs past the data: it must hold the bytes of the values it gives
        need = (int(take[-1]) * w + 7) >> 3 if heads[-1] & 1 else vbytes
        if int(body[-1]) - base + need > wk.n:
            return 0
    packed = (heads & 1).astype(np.bool_)
    value = _run_values(joined, body, vbytes)
    if w < 8 * vbytes:
        wide = value >> w
        wide[packed] = 0
        if wide.any():
            return 0
    takes_parts.append(take)
    tags_parts.append(np.where(packed, ~body, value))
    runs_per_page.append(n)
    return -1
