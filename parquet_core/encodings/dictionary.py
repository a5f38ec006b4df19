"""Dictionary building for PLAIN_DICTIONARY / RLE_DICTIONARY column chunks.

Spec: parquet-format ``Encodings.md``, "Dictionary Encoding": the distinct
values of a column chunk go to one dictionary page (PLAIN encoded) and the
data pages hold indices into it (see
:func:`~parquet_core.encodings.rle_hybrid_encoder.encode_dictionary_indices`)::

    values      b"x"  b"yy"  b"x"  b"z"  b"yy"
    dictionary  b"x"  b"yy"  b"z"                 (first-appearance order)
    indices     0     1      0     2     1

Entries are numbered in order of first appearance, so the values of any
row prefix use a dictionary *prefix*: a writer whose dictionary outgrows
its size limit keeps ``dictionary[:j]`` for the rows before
``first_rows[j]`` and falls back to another encoding from there
(:func:`dictionary_prefix_sizes` + ``np.searchsorted``).

Every value becomes a 64-bit integer key, then
:func:`~parquet_core._kernels.unique.first_occurrence_codes` groups equal
keys with no sort:

* integers and booleans are their own keys;
* FLOAT / DOUBLE are keyed by their bit patterns (``view`` as int32/int64),
  so NaNs with different payloads and -0.0 / +0.0 stay distinct entries,
  as byte-exact round trips require;
* byte strings (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96 rows) of at most
  7 bytes (8 for fixed width) are packed exactly into the key; longer ones
  are hashed (:class:`~parquet_core._kernels.words.WordView`) and every
  value is then compared byte for byte with its group's first value.  A
  hash collision (about 2**-64 per pair) is caught by that check and the
  chunk is regrouped exactly with a Python dict over the values: a
  per-value loop, acceptable only because it never runs in practice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.runs import gather_runs
from parquet_core._kernels.unique import first_occurrence_codes, narrow_code_dtype, narrowed_codes
from parquet_core._kernels.words import WordView
from parquet_core.constants import PhysicalType

__all__ = [
    "build_dictionary",
    "count_distinct",
    "extend_dictionary",
    "dictionary_byte_size",
    "dictionary_prefix_sizes",
    "first_occurrence_order",
    "same_entries",
]

_NUMERIC = {
    PhysicalType.INT32: ("<i4", "<i4"),
    PhysicalType.INT64: ("<i8", "<i8"),
    PhysicalType.FLOAT: ("<f4", "<i4"),
    PhysicalType.DOUBLE: ("<f8", "<i8"),
}
_WIDTH = {PhysicalType.BOOLEAN: 0, PhysicalType.INT32: 4, PhysicalType.INT64: 8,
          PhysicalType.INT96: 12, PhysicalType.FLOAT: 4, PhysicalType.DOUBLE: 8}


def build_dictionary(values: Any, physical_type: int, type_length: int | None = None, *,
                     budget: int | None = None, narrow: bool = False) -> tuple[Any, npt.NDArray[Any]]:
    """Find the distinct values of a column chunk and the index of every value.

    Parameters
    ----------
    values:
        Non-null physical values (bool, int32, int64, float32, float64,
        ``ByteArrays``, or ``(n, w)`` uint8 rows for INT96 /
        FIXED_LEN_BYTE_ARRAY).
    physical_type:
        The column's :class:`~parquet_core.constants.PhysicalType`.
    type_length:
        Unused (FIXED_LEN_BYTE_ARRAY widths come from the rows' shape);
        accepted for symmetry with the other encoders.
    budget:
        Optional size limit in PLAIN bytes: grouping may stop once the
        dictionary passes it, returning the dictionary and indices of a
        prefix of the values only (one whose dictionary is over the budget).
    narrow:
        Return the indices in the narrowest type that holds them (uint8 for
        at most 256 entries, uint16 for at most 65,536, else int32; see
        :func:`~parquet_core._kernels.unique.narrow_code_dtype`) instead of
        int32: the index encoder packs bytes, and small dictionaries of
        numbers get their byte codes made directly.

    Returns
    -------
    tuple
        ``(dictionary, indices)``: the distinct values in order of first
        appearance, in the representation of the input, and int32 (or narrow) indices
        with ``dictionary[indices] == values[:len(indices)]`` (all the
        values unless a budget stopped early).
    """
    pt = PhysicalType(physical_type)
    if pt == PhysicalType.BYTE_ARRAY:
        if not isinstance(values, ByteArrays):
            raise TypeError(f"BYTE_ARRAY values must be ByteArrays, not {type(values).__name__}")
        lens = values.lengths()
        first, codes = _group_uniform(values, lens, budget, narrow)
        if first is None:
            costs = None if budget is None else _string_costs(lens)
            first, codes = _group_packed(values, lens, costs, budget)
        if first is None:
            first, codes = _group_strings(WordView(values.offsets, values.data), max_exact=7,
                                          costs=costs, budget=budget)
        if first is None:
            first, codes = _group_python(_as_list(values))
        return _gather_strings(values, first, lens), narrowed_codes(codes, len(first)) if narrow else codes
    if pt in (PhysicalType.FIXED_LEN_BYTE_ARRAY, PhysicalType.INT96):
        rows = np.asarray(values, dtype=np.uint8)
        if rows.ndim != 2:
            raise ValueError(f"{pt.name} values must be an (n, width) uint8 array")
        first, codes = _group_rows(rows)
        return rows[first], narrowed_codes(codes, len(first)) if narrow else codes
    if pt == PhysicalType.BOOLEAN:
        v = np.asarray(values, dtype=np.bool_).reshape(-1)
        first, codes = first_occurrence_codes(v.view(np.uint8), narrow=narrow)
        return v[first], codes
    dtype, key_dtype = _NUMERIC[pt]
    v = np.ascontiguousarray(values, dtype=dtype).reshape(-1)
    first, codes = first_occurrence_codes(v.view(key_dtype), costs=_WIDTH[pt], budget=budget,
                                          spread=pt in (PhysicalType.FLOAT, PhysicalType.DOUBLE),
                                          narrow=narrow)
    return v[first], codes


def count_distinct(values: Any, physical_type: int) -> int | None:
    """How many entries :func:`build_dictionary` would find in numeric *values* (their bit
    patterns: ``0.0`` and ``-0.0``, and NaNs of other payloads, are distinct entries), by
    sorting rather than hashing; None for the other physical types."""
    pt = PhysicalType(physical_type)
    if pt not in _NUMERIC:
        return None
    dtype, key_dtype = _NUMERIC[pt]
    keys = np.ascontiguousarray(values, dtype=dtype).reshape(-1).view(key_dtype)
    if keys.size < 2:
        return int(keys.size)
    ordered = np.sort(keys)
    return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + 1


def extend_dictionary(dictionary: Any, indices: npt.NDArray[np.integer], more: Any,
                      more_indices: npt.NDArray[np.integer], physical_type: int, *,
                      narrow: bool = False) -> tuple[Any, npt.NDArray[Any]]:
    """Join two consecutive runs' dictionaries as if built on both runs at once.

    ``(dictionary, indices)`` and ``(more, more_indices)`` are
    :func:`build_dictionary` results of two consecutive runs of values.
    The result is that of :func:`build_dictionary` on the runs joined: the
    first dictionary, then the entries of ``more`` it lacks (in ``more``'s
    order, which is their first appearance), and the indices of both runs.
    Only the two dictionaries are grouped together, never the values again.
    The indices are int32, or with *narrow* in the narrowest type for the
    joined dictionary (as :func:`build_dictionary` gives them).
    """
    k = len(dictionary)
    joined: ByteArrays | npt.NDArray[Any]
    if isinstance(dictionary, ByteArrays):
        joined = ByteArrays.concat([dictionary, more])
    else:
        joined = np.concatenate((np.asarray(dictionary), np.asarray(more)))
    merged, codes = build_dictionary(joined, physical_type)
    # every entry of the first dictionary is distinct and comes first: it keeps
    # its number; the entries of ``more`` map to old or appended numbers
    dt = narrow_code_dtype(len(merged)) if narrow else np.dtype(np.int32)
    remap = codes[k:].astype(dt, copy=False)
    out = np.concatenate((np.asarray(indices).astype(dt, copy=False),
                          np.take(remap, np.asarray(more_indices, dtype=np.intp))))
    return merged, out


def _group_rows(rows: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    n, w = rows.shape
    if w <= 8:
        keys = np.zeros((n, 8), dtype=np.uint8)
        keys[:, :w] = rows
        return first_occurrence_codes(keys.view("<u8").reshape(n))
    first, codes = _group_strings(WordView.of_rows(rows), max_exact=-1)
    if first is None:
        return _group_python([r.tobytes() for r in rows])
    return first, codes


def _word_masks(nwords: int) -> npt.NDArray[np.uint64]:
    """``(8 * nwords + 1, nwords)`` table: row ``l`` keeps the first ``l`` bytes of ``nwords`` words."""
    table = _MASK_TABLES.get(nwords)
    if table is None:
        keep = np.clip(np.arange(8 * nwords + 1)[:, None] - 8 * np.arange(nwords)[None, :], 0, 8)
        table = np.array([[(1 << (8 * int(k))) - 1 for k in row] for row in keep], dtype=np.uint64)
        _MASK_TABLES[nwords] = table
    return table


_MASK_TABLES: dict[int, npt.NDArray[np.uint64]] = {}
#: Strings of at most ``8 * _PACKED_WORDS`` bytes are keyed by fixed-width word gathers.
_PACKED_WORDS = 4
_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xBF58476D1CE4E5B9)


def packed_words(values: ByteArrays, nwords: int, start: int = 0, stop: int | None = None,
                 lengths: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.uint64]:
    """Strings ``start:stop`` as ``nwords`` little-endian words each, bytes past their end zeroed.

    Needs those strings to be at most ``8 * nwords`` bytes (checked).  Two
    strings of the same length are equal exactly when their rows are; the
    callers compare lengths too (``b"a"`` and ``b"a\0"`` share their row).
    One gather of ``8 * nwords``-byte records straight from the data; only
    the strings starting in its last ``8 * nwords - 1`` bytes come from a
    small zero-padded copy of that tail.  ``lengths`` (all the strings')
    saves recomputing them.
    """
    width = 8 * nwords
    offsets = values.offsets
    stop = len(values) if stop is None else stop
    n = stop - start
    starts = offsets[start:stop].astype(np.int64, copy=False)
    lens = np.diff(offsets[start:stop + 1]) if lengths is None else lengths[start:stop]
    if n and (int(lens.min()) < 0 or int(lens.max()) > width):
        raise ValueError(f"packed_words: strings must be at most {width} bytes")
    data = values.data
    if not (isinstance(data, np.ndarray) and data.dtype == np.uint8 and data.flags.c_contiguous):
        data = np.ascontiguousarray(data, dtype=np.uint8)
    data = data.reshape(-1)
    if n and (int(starts[0]) < 0 or int(offsets[stop]) > data.size):
        raise ValueError("packed_words: offsets outside the data")
    mat = np.empty((n, nwords), dtype=np.uint64)
    cut = data.size - width + 1          # records starting before cut lie inside the data
    split = int(np.searchsorted(starts, cut, side="left")) if cut > 0 else 0
    if split:
        rec = np.ndarray((cut,), dtype=np.dtype((np.void, width)), buffer=data, strides=(1,))
        mat[:split] = rec[starts[:split]].view("<u8").reshape(split, nwords)
    if split < n:
        lo = int(starts[split])
        tail = np.zeros(data.size - lo + width, dtype=np.uint8)
        tail[:data.size - lo] = data[lo:]
        rec = np.ndarray((tail.size - width + 1,), dtype=np.dtype((np.void, width)),
                         buffer=tail, strides=(1,))
        mat[split:] = rec[starts[split:] - lo].view("<u8").reshape(n - split, nwords)
    # np.take along an axis is several times faster than fancy indexing of rows
    mat &= np.take(_word_masks(nwords), lens, axis=0)
    return mat


def _gather_strings(values: ByteArrays, rows: npt.NDArray[np.integer],
                    lens: npt.NDArray[np.int64]) -> ByteArrays:
    """Strings ``rows`` of *values* (``lens``: all their lengths), as a new ByteArrays.

    For a few rows of a long column (a dictionary's first rows): the work
    follows the rows and bytes taken, never the whole column.
    """
    rows = np.asarray(rows, dtype=np.intp)
    taken = np.take(lens, rows)
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(taken, out=offsets[1:])
    total = int(offsets[-1])
    if total == 0:
        return ByteArrays(offsets, np.zeros(0, dtype=np.uint8))
    starts = np.take(values.offsets, rows).astype(np.int64, copy=False)
    # one window copy per string (a per-byte int64 source index would take 8 bytes of
    # memory, twice, for every byte gathered)
    return ByteArrays(offsets, gather_runs(values.data, starts, taken, offsets))


#: Strings packed per block (the block's word matrix stays in cache).
_PACK_BLOCK = 1 << 15


def _group_packed(values: ByteArrays, lens: npt.NDArray[np.int64], costs: Any,
                  budget: int | None) -> tuple[Any, Any]:
    """Group strings of at most 32 bytes by packed words; ``(None, None)`` if longer.

    Strings of at most 7 bytes are one word with the length above the
    longest string's bytes: an exact key.  Longer ones are hashed (length first, then each
    word) to one 64-bit key and grouped, and every string's words and
    length are then compared with its group's first string, so the result
    is exact: on a hash collision the caller takes the general path.
    Words are packed block by block, once to hash and once to compare, so
    no whole-chunk word matrix is ever allocated.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    longest = int(lens.max())
    nwords = max(1, (longest + 7) // 8)
    if nwords > _PACKED_WORDS:
        return None, None
    h = np.empty(n, dtype=np.uint64)
    for lo in range(0, n, _PACK_BLOCK):
        hi = min(n, lo + _PACK_BLOCK)
        mat = packed_words(values, nwords, lo, hi, lens)
        lens64 = lens[lo:hi].astype(np.uint64)
        if longest <= 7:
            # the bytes fill the low 8 * longest bits: the length above them makes the
            # key exact, and short strings (flags, codes) span a small range of keys
            np.bitwise_or(mat[:, 0], lens64 << np.uint64(8 * longest), out=h[lo:hi])
            continue
        hb = lens64 * _H1
        for j in range(nwords):
            hb ^= mat[:, j]
            hb *= _H2
        hb ^= hb >> np.uint64(31)
        h[lo:hi] = hb
    first, codes = first_occurrence_codes(h, costs=costs, budget=budget)
    if longest <= 7:
        return first, codes
    m = len(codes)
    entry_lens = lens[first]
    entries = packed_words(_gather_strings(values, first, lens), nwords)
    for lo in range(0, m, _PACK_BLOCK):
        hi = min(m, lo + _PACK_BLOCK)
        # lengths and words compared block by block: no whole-chunk temporary
        if not np.array_equal(np.take(entry_lens, codes[lo:hi]), lens[lo:hi]):
            return None, None
        diff = np.take(entries, codes[lo:hi], axis=0)
        diff ^= packed_words(values, nwords, lo, hi, lens)
        if diff.any():
            return None, None
    return first, codes


def _string_costs(lens: npt.NDArray[np.int64]) -> npt.NDArray[np.integer]:
    """PLAIN bytes of each string (its length prefix included), for a grouping's budget.

    int32 when every cost fits, half the memory of int64: the costs are only
    summed (numpy sums int32 in int64) and averaged."""
    if len(lens) and int(lens.max()) > np.iinfo(np.int32).max - 4:
        return lens + 4
    return np.add(lens, 4, out=np.empty(len(lens), dtype=np.int32), casting="unsafe")


def _group_uniform(values: ByteArrays, lens: npt.NDArray[np.int64],
                   budget: int | None, narrow: bool = False) -> tuple[Any, Any]:
    """Group strings all 1, 2 or 4 bytes long (flags, codes) by their bytes read as one
    integer each, straight from the data; ``(None, None)`` for other lengths."""
    n = len(values)
    if n == 0:
        return None, None
    width = int(lens[0])
    if width not in (1, 2, 4) or int(lens.min()) != width or int(lens.max()) != width:
        return None, None
    # equal lengths: string i is bytes o0 + width * i ... of the data
    o0 = int(values.offsets[0])
    raw = np.ascontiguousarray(np.asarray(values.data[o0:o0 + n * width], dtype=np.uint8))
    return first_occurrence_codes(raw.view(f"<u{width}"), costs=width + 4, budget=budget, narrow=narrow)


def _group_strings(view: WordView, max_exact: int, costs: Any = None,
                   budget: int | None = None) -> tuple[Any, Any]:
    """Group byte strings; ``(None, None)`` if the hash grouping was not exact."""
    n = len(view)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    if int(view.lengths.max()) <= max_exact:
        return first_occurrence_codes(view.short_keys(), costs=costs, budget=budget)
    groups = view.word_groups()
    first, codes = first_occurrence_codes(view.hash64(groups), costs=costs, budget=budget)
    # rows a budget left ungrouped are compared with themselves
    ref = np.concatenate((first[codes], np.arange(len(codes), n))) if len(codes) < n else first[codes]
    if not view.equal_to(ref, groups):
        return None, None
    return first, codes


def _as_list(values: ByteArrays) -> list[bytes]:
    # offsets index the data directly, also when they start above 0 (a window
    # of a longer column); only for the never-reached exact fallback below
    buf = np.ascontiguousarray(values.data).tobytes()
    o = np.asarray(values.offsets).tolist()
    return [buf[o[i]:o[i + 1]] for i in range(len(o) - 1)]


def _group_python(items: list[bytes]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    # Exact fallback after a 64-bit hash collision (see the module docstring):
    # a per-value loop over a Python dict, never reached in practice.
    seen: dict[bytes, int] = {}
    first: list[int] = []
    codes = np.empty(len(items), dtype=np.int32)
    for i, item in enumerate(items):
        code = seen.get(item)
        if code is None:
            code = seen[item] = len(first)
            first.append(i)
        codes[i] = code
    return np.asarray(first, dtype=np.int64), codes


def dictionary_prefix_sizes(dictionary_values: Any, physical_type: int,
                            type_length: int | None = None) -> npt.NDArray[np.int64]:
    """PLAIN size in bytes of ``dictionary[:j]`` for every ``j`` in ``0..len``.

    With :func:`first_occurrence_order`, the longest row prefix whose
    dictionary fits ``limit`` bytes is ``first_rows[j]`` for
    ``j = np.searchsorted(sizes, limit, side="right") - 1`` (all rows when
    ``j`` is the whole dictionary).
    """
    pt = PhysicalType(physical_type)
    if pt == PhysicalType.BYTE_ARRAY:
        per = dictionary_values.lengths() + 4
    elif pt == PhysicalType.BOOLEAN:
        k = len(dictionary_values)
        return (np.arange(k + 1, dtype=np.int64) + 7) >> 3
    else:
        if pt == PhysicalType.FIXED_LEN_BYTE_ARRAY:
            width = np.asarray(dictionary_values).shape[1] if type_length is None else type_length
        else:
            width = _WIDTH[pt]
        per = np.full(len(dictionary_values), width, dtype=np.int64)
    sizes = np.zeros(per.size + 1, dtype=np.int64)
    np.cumsum(per, out=sizes[1:])
    return sizes


def dictionary_byte_size(dictionary_values: Any, physical_type: int,
                         type_length: int | None = None) -> int:
    """Size in bytes of the dictionary page body (the PLAIN encoding of the entries)."""
    return int(dictionary_prefix_sizes(dictionary_values, physical_type, type_length)[-1])


def first_occurrence_order(indices: Any, dict_size: int) -> npt.NDArray[np.int64]:
    """Row at which each dictionary entry first appears (``len(indices)`` if never).

    For a dictionary from :func:`build_dictionary` the result is increasing
    and ``np.searchsorted(result, r)`` is the number of distinct values in
    rows ``[0, r)``; for any other entry order it is still correct per entry.
    """
    idx = np.asarray(indices).reshape(-1)
    n = idx.size
    first = np.full(dict_size, n, dtype=np.int64)
    if n:
        if int(idx.min()) < 0 or int(idx.max()) >= dict_size:
            raise ValueError(f"indices outside a dictionary of {dict_size} entries")
        np.minimum.at(first, idx, np.arange(n, dtype=np.int64))
    return first


def same_entries(a: Any, b: Any) -> bool:
    """True when two dictionaries hold the same entries in the same order, byte for byte."""
    if a is b:
        return True
    if isinstance(a, ByteArrays) and isinstance(b, ByteArrays):
        if len(a) != len(b):
            return False
        la, lb = a.lengths(), b.lengths()
        if not np.array_equal(la, lb):
            return False
        da = a.data[int(a.offsets[0]):int(a.offsets[-1])]
        db = b.data[int(b.offsets[0]):int(b.offsets[-1])]
        return bool(np.array_equal(da, db))
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and \
            bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))
    return False
