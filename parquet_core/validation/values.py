"""Data-level rules: decoded values against statistics, counts, size statistics and sorting columns.

Spec: parquet.thrift ``Statistics``, ``ColumnOrder`` (sort orders, NaN and
signed zeros), ``SizeStatistics``, ``DataPageHeaderV2``, ``SortingColumn``;
README.md "Nested Encoding".  Bounds are compared in the column's sort
order with the engine's own statistics code
(:func:`~parquet_core.metadata.stats_builder.compute_bounds`,
:func:`~parquet_core.metadata.stats_builder.bound_sort_key`), so
truncated byte-array bounds pass as long as they still bound the values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PageType, Repetition
from parquet_core.constants import PhysicalType as P
from parquet_core.errors import ParquetError, quoted
from parquet_core.metadata.statistics import SortOrder, sort_order
from parquet_core.metadata.stats_builder import bound_sort_key, compute_bounds, encode_bound
from parquet_core.schema.types import TypeId
from parquet_core.table.list_padding import stray_repeats
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.decode import DECODE, concat_values, decode_chunk
from parquet_core.validation.rules import ERROR, INFO, WARNING, rule
from parquet_core.validation.sorting import SORT_ORDER, check_sorting
from parquet_core.validation.total_order import compare_total_order, uses_total_order

__all__ = ["check_values", "compare_bounds", "histogram"]

_STRING_JSON_IDS = frozenset([TypeId.STRING, TypeId.JSON])

_ST = "parquet.thrift Statistics"
MIN_ABOVE = rule("statistics.min-above-value", ERROR, _ST, "min_value (or min) is not above any value of the chunk or page, in the column's sort order")
MAX_BELOW = rule("statistics.max-below-value", ERROR, _ST, "max_value (or max) is not below any value of the chunk or page, in the column's sort order")
MIN_MAX = rule("statistics.min-above-max", ERROR, _ST, "min_value is not above max_value")
BOUND_WIDTH = rule("statistics.bound-width", ERROR, _ST, "a bound of a fixed-width type has that type's width")
NULL_COUNT = rule("statistics.null-count", ERROR, _ST + ".null_count", "null_count equals the nulls (definition levels below the maximum)")
DISTINCT = rule("statistics.distinct-count", ERROR, _ST + ".distinct_count", "distinct_count equals the number of distinct non-null values (NaN counted once or not at all)")
NAN_COUNT = rule("statistics.nan-count", ERROR, _ST + ".nan_count", "nan_count equals the NaN values")
EXACT = rule("statistics.not-exact", ERROR, _ST + ".is_min_value_exact", "a bound flagged exact is the actual minimum or maximum")
NAN_BOUND = rule("statistics.nan-bound", WARNING, "parquet.thrift ColumnOrder", "NaN is not written as a bound (readers ignore such bounds)")
ZERO_SIGN = rule("statistics.zero-sign", WARNING, "parquet.thrift ColumnOrder", "a zero minimum is written -0.0 and a zero maximum +0.0")
ALL_NULL_BOUNDS = rule("statistics.bounds-without-values", INFO, _ST, "a chunk or page without non-null values has min/max (legal: bounds of nothing; polars writes them)")
DEPRECATED = rule("statistics.deprecated-unsigned", WARNING, _ST + ".min", "the deprecated min/max alone on a column whose order is not signed, or on binary values (signed byte order): readers ignore them")
UNENCODED = rule("size-statistics.unencoded-bytes", ERROR, "parquet.thrift SizeStatistics", "unencoded_byte_array_data_bytes equals the BYTE_ARRAY values' bytes")
HISTOGRAM = rule("size-statistics.level-histogram", ERROR, "parquet.thrift SizeStatistics", "repetition/definition level histograms count the levels exactly")
V2_NULLS = rule("values.v2-num-nulls", ERROR, "parquet.thrift DataPageHeaderV2.num_nulls", "a v2 page's num_nulls equals its definition levels below the maximum")
V2_ROWS = rule("values.v2-num-rows", ERROR, "parquet.thrift DataPageHeaderV2.num_rows", "a v2 page's num_rows equals the records it holds, and it starts a record")
CHUNK_ROWS = rule("values.chunk-rows", ERROR, "README.md#nested-encoding", "a chunk starts a record and holds as many records as the row group's num_rows")
UTF8 = rule("values.utf8", ERROR, "LogicalTypes.md#string", "STRING and JSON values are valid UTF-8")
DECIMAL_RANGE = rule("values.decimal-precision", ERROR, "LogicalTypes.md#decimal", "DECIMAL unscaled values have at most `precision` digits")
LIST_PADDING = rule("values.null-list-padding", WARNING, "README.md#nested-encoding", "an entry that repeats a list defines an element of it; duckdb pads a NULL fixed-size array with entries that do not (read as the NULL list, as duckdb reads it)")
LIST_REPEAT = rule("values.repeat-without-element", ERROR, "README.md#nested-encoding", "an entry that repeats a list defines an element of it (other than duckdb's padding of a NULL list)")
NULL_TYPE = rule("values.unknown-not-null", ERROR, "LogicalTypes.md#unknown-always-null", "a column annotated UNKNOWN holds only nulls")


_BINARY = (P.BYTE_ARRAY, P.FIXED_LEN_BYTE_ARRAY, P.INT96)


def _float_kind(desc: Any) -> bool:
    return desc.physical_type in (P.FLOAT, P.DOUBLE) or desc.data_type.id is TypeId.FLOAT16


def _floats(values: Any, desc: Any) -> Any:
    if desc.data_type.id is TypeId.FLOAT16:
        return np.ascontiguousarray(values).view("<f2").ravel()
    return np.asarray(values)


def compare_bounds(ck: Checker, ch: ChunkState, lo_raw: bytes | None, hi_raw: bytes | None, values: Any,
                   what: str, page: int | None = None, offset: int | None = None,
                   exact: tuple[bool | None, bool | None] = (None, None)) -> None:
    """Check one pair of PLAIN-encoded bounds against *values* (non-null physical values)."""
    desc = ch.desc
    where = {"page": page, "offset": offset}
    if lo_raw is None or hi_raw is None:
        return
    if _float_kind(desc) and uses_total_order(ck, ch):
        compare_total_order(ck, ch, bytes(lo_raw), bytes(hi_raw), values, what, where)
        return
    try:
        lo, hi = bound_sort_key(lo_raw, desc), bound_sort_key(hi_raw, desc)
    except ValueError as exc:
        if isinstance(exc, ParquetError):   # a malformed bound (our errors are ValueErrors too)
            ck.report_chunk(BOUND_WIDTH, ch, f"{what}: the bounds do not decode ({exc})", **where)
        return   # else no defined order (INT96, INTERVAL, geospatial): nothing to compare
    except Exception as exc:   # noqa: BLE001 - a malformed bound
        ck.report_chunk(BOUND_WIDTH, ch, f"{what}: the bounds do not decode ({exc})", **where)
        return
    width = {P.INT32: 4, P.INT64: 8, P.FLOAT: 4, P.DOUBLE: 8, P.BOOLEAN: 1}.get(
        desc.physical_type, desc.type_length if desc.physical_type == P.FIXED_LEN_BYTE_ARRAY else None)
    for raw in (lo_raw, hi_raw):
        if width is not None and len(raw) != width:
            ck.report_chunk(BOUND_WIDTH, ch, f"{what}: a bound of {len(raw)} bytes; expected {width}", **where)
            return
    is_float = _float_kind(desc)
    nan_bound = is_float and (math.isnan(lo) or math.isnan(hi))
    if nan_bound:
        ck.report_chunk(NAN_BOUND, ch, f"{what}: min {quoted(lo)} / max {quoted(hi)} is NaN", **where)
        return
    if lo > hi:
        ck.report_chunk(MIN_MAX, ch, f"{what}: min {_show(lo)} is above max {_show(hi)}", **where)
    if len(values) == 0:
        ck.report_chunk(ALL_NULL_BOUNDS, ch, f"{what}: min/max set for no non-null values", **where)
        return
    actual = actual_bounds(ch, values)
    if actual is None:
        return   # only NaNs
    a_lo = bound_sort_key(encode_bound(actual[0], desc), desc)
    a_hi = bound_sort_key(encode_bound(actual[1], desc), desc)
    if lo > a_lo:
        ck.report_chunk(MIN_ABOVE, ch, f"{what}: expected min <= {_show(a_lo)} (the smallest value), found "
                        f"{_show(lo)}", **where)
    elif exact[0] and lo != a_lo:
        ck.report_chunk(EXACT, ch, f"{what}: min flagged exact is {_show(lo)}, the smallest value is {_show(a_lo)}", **where)
    if hi < a_hi:
        ck.report_chunk(MAX_BELOW, ch, f"{what}: expected max >= {_show(a_hi)} (the largest value), found "
                        f"{_show(hi)}", **where)
    elif exact[1] and hi != a_hi:
        ck.report_chunk(EXACT, ch, f"{what}: max flagged exact is {_show(hi)}, the largest value is {_show(a_hi)}", **where)
    if is_float:
        if lo == 0 and math.copysign(1.0, lo) > 0 and a_lo == 0:
            ck.report_chunk(ZERO_SIGN, ch, f"{what}: a zero minimum written as +0.0; expected -0.0", **where)
        if hi == 0 and math.copysign(1.0, hi) < 0 and a_hi == 0:
            ck.report_chunk(ZERO_SIGN, ch, f"{what}: a zero maximum written as -0.0; expected +0.0", **where)


def actual_bounds(ch: ChunkState, values: Any) -> Any:
    """The smallest and largest of *values* (``compute_bounds``), computed once per array.

    The chunk's bounds are the extremes of its pages' bounds, so the pages are
    scanned once for the chunk statistics, the page headers and the column index.
    """
    key = ("bounds", id(values))
    if key in ch.memo:
        return ch.memo[key]
    desc = ch.desc
    pages = ch.data_pages
    if values is ch.values and len(pages) > 1 and all(p.values is not None for p in pages):
        parts = [b for b in (actual_bounds(ch, p.values) for p in pages if len(p.values)) if b is not None]
        out = None
        if parts:
            lo = min(parts, key=lambda b: bound_sort_key(encode_bound(b[0], desc), desc))[0]
            hi = max(parts, key=lambda b: bound_sort_key(encode_bound(b[1], desc), desc))[1]
            out = (lo, hi)
    else:
        out = compute_bounds(values, desc)
    ch.memo[key] = out
    return out


def _show(v: Any) -> str:
    return quoted(v, 60)


def _nulls(defs: Any, desc: Any) -> int:
    return 0 if defs is None else int(np.count_nonzero(defs < desc.max_definition_level))


def _check_statistics(ck: Checker, ch: ChunkState, st: Any, values: Any, defs: Any, what: str,
                      page: int | None = None, offset: int | None = None) -> None:
    if st is None:
        return
    desc = ch.desc
    where = {"page": page, "offset": offset}
    order = sort_order(desc)
    defined = ck.raw.column_orders is not None or order == SortOrder.SIGNED
    if st.min_value is not None and st.max_value is not None and defined:
        compare_bounds(ck, ch, st.min_value, st.max_value, values, what, page, offset,
                       (st.is_min_value_exact, st.is_max_value_exact))
    elif st.min is not None and st.max is not None:
        if order == SortOrder.SIGNED and desc.physical_type not in _BINARY:
            compare_bounds(ck, ch, st.min, st.max, values, what + " (deprecated min/max)", page, offset)
        elif order != SortOrder.UNKNOWN and st.min_value is None \
                and not _fastparquet_unsigned(ck, ch, st, values, what, where):
            ck.report_chunk(DEPRECATED, ch, f"{what}: only the deprecated min/max are set, for a column whose "
                            f"values sort {'as numbers' if order == SortOrder.SIGNED else 'unsigned'} "
                            "(they were compared as signed bytes)", **where)
    nulls = _nulls(defs, desc)
    if st.null_count is not None and st.null_count != nulls and st.null_count != _nulls_in_lists(ck, defs, desc):
        ck.report_chunk(NULL_COUNT, ch, f"{what}: null_count is {st.null_count}, the levels hold {nulls} nulls", **where)
    if st.distinct_count is not None:
        n = _distinct(values)
        # the spec does not say whether NaN is a distinct value: duckdb counts it (once), take either
        if n is not None and st.distinct_count == n + 1 and _float_kind(desc) and len(values) \
                and bool(np.isnan(_floats(values, desc)).any()):
            n += 1
        if n is not None and st.distinct_count != n:
            ck.report_chunk(DISTINCT, ch, f"{what}: distinct_count is {st.distinct_count}, the values hold {n} "
                            "distinct values", **where)
    if getattr(st, "nan_count", None) is not None and not _float_kind(desc):
        ck.report_chunk(NAN_COUNT, ch, f"{what}: nan_count is set on a column that is not floating point", **where)
    elif getattr(st, "nan_count", None) is not None:
        nans = int(np.count_nonzero(np.isnan(_floats(values, desc))))
        if st.nan_count != nans:
            ck.report_chunk(NAN_COUNT, ch, f"{what}: nan_count is {st.nan_count}, the values hold {nans} NaNs", **where)


def _nulls_in_lists(ck: Checker, defs: Any, desc: Any) -> int:
    """Nulls counted as Arrow C++ counts them in a repeated column: inside present lists only."""
    if defs is None or desc.max_repetition_level == 0:
        return _nulls(defs, desc)
    node, level, floor = ck.schema.root, 0, 0
    for name in desc.path:
        node = next(c for c in node.children if c.name == name)
        if node.repetition != 0:
            level += 1
        if node.repetition == 2:
            floor = level
    return int(np.count_nonzero((defs >= floor) & (defs < desc.max_definition_level)))


def _distinct(values: Any) -> int | None:
    if isinstance(values, ByteArrays):
        return len(set(values.to_pylist())) if hasattr(values, "to_pylist") else None
    arr = np.asarray(values)
    if arr.ndim == 2:
        return len({bytes(r) for r in arr})
    if arr.dtype.kind == "f":
        arr = arr[~np.isnan(arr)] + 0.0   # -0.0 and +0.0 count once
    return int(np.unique(arr).size)


def _writer_bug(ck: Checker, ch: ChunkState, claimed: int) -> bool:
    from parquet_core.validation.writers import arrow_dba_unencoded_bytes

    return arrow_dba_unencoded_bytes(ck, ch, claimed, ch.data_pages, "unencoded_byte_array_data_bytes")


def _fastparquet_unsigned(ck: Checker, ch: ChunkState, st: Any, values: Any, what: str, where: dict) -> bool:
    from parquet_core.validation.writers import unsigned_deprecated_bounds

    return unsigned_deprecated_bounds(ck, ch, st, values, what, where)


def _check_size_statistics(ck: Checker, ch: ChunkState) -> None:
    ss = ch.meta.size_statistics
    if ss is None:
        return
    desc = ch.desc
    if ss.unencoded_byte_array_data_bytes is not None and isinstance(ch.values, ByteArrays):
        n = int(ch.values.offsets[-1] - ch.values.offsets[0])
        if ss.unencoded_byte_array_data_bytes != n and not _writer_bug(ck, ch, ss.unencoded_byte_array_data_bytes):
            ck.report_chunk(UNENCODED, ch, f"unencoded_byte_array_data_bytes is {ss.unencoded_byte_array_data_bytes}, "
                            f"the values hold {n} bytes")
    for name, levels, top in (("repetition", ch.rep_levels, desc.max_repetition_level),
                              ("definition", ch.def_levels, desc.max_definition_level)):
        hist = getattr(ss, f"{name}_level_histogram")
        if hist is None:
            continue
        actual = chunk_histogram(ch, levels, top)
        if list(hist) != actual and not (top == 0 and not hist):   # empty at max level 0: allowed
            ck.report_chunk(HISTOGRAM, ch, f"{name} level histogram is {list(hist)}, the levels give {actual}")


def histogram(levels: Any, top: int, n: int) -> list[int]:
    """Count of each level 0..top (*levels* None: all at *top*)."""
    if levels is None:
        return [0] * top + [n]
    if top < 4:   # a few comparisons beat bincount's widening copy
        arr = np.asarray(levels)
        counts = [int(np.count_nonzero(arr == k)) for k in range(top)]
        return counts + [len(arr) - sum(counts)] if int(arr.max(initial=0)) <= top else \
            [int(c) for c in np.bincount(np.asarray(levels, dtype=np.int64), minlength=top + 1)]
    return [int(c) for c in np.bincount(np.asarray(levels, dtype=np.int64), minlength=top + 1)]


def page_histogram(ch: ChunkState, levels: Any, top: int, n: int) -> list[int]:
    """:func:`histogram`, computed once per level array."""
    key = ("hist", id(levels), top, n)
    if key not in ch.memo:
        ch.memo[key] = histogram(levels, top, n)
    return ch.memo[key]


def chunk_histogram(ch: ChunkState, levels: Any, top: int) -> list[int]:
    """The chunk's level histogram: the sum of its pages' when they were all decoded."""
    pages = ch.data_pages
    which = "def_levels" if levels is ch.def_levels else "rep_levels" if levels is ch.rep_levels else None
    if which is None or levels is None or len(pages) < 2 or any(getattr(p, which) is None for p in pages):
        return histogram(levels, top, ch.num_levels)
    total = [0] * (top + 1)
    for p in pages:
        part = getattr(p, which)
        for k, c in enumerate(page_histogram(ch, part, top, len(part))):
            if k <= top:
                total[k] += c
            else:   # a level above the maximum: let the direct count report it
                return histogram(levels, top, ch.num_levels)
    return total


def _check_pages_counts(ck: Checker, ch: ChunkState) -> None:
    desc = ch.desc
    for p in ch.data_pages:
        h = p.header
        if p.values is None:
            continue
        n = _num(h)
        if h.type == PageType.DATA_PAGE_V2:
            v2 = h.data_page_header_v2
            nulls = _nulls(p.def_levels, desc)
            if v2.num_nulls is not None and v2.num_nulls != nulls:
                ck.report_chunk(V2_NULLS, ch, f"num_nulls is {v2.num_nulls}, the levels hold {nulls}",
                                page=p.ordinal, offset=p.offset)
            rows = n if p.rep_levels is None else int(np.count_nonzero(p.rep_levels == 0))
            if v2.num_rows is not None and v2.num_rows != rows:
                ck.report_chunk(V2_ROWS, ch, f"num_rows is {v2.num_rows}, the page holds {rows} records",
                                page=p.ordinal, offset=p.offset)
            if p.rep_levels is not None and n and p.rep_levels[0] != 0:
                ck.report_chunk(V2_ROWS, ch, f"the page starts inside a record (first repetition level "
                                f"{int(p.rep_levels[0])})", page=p.ordinal, offset=p.offset)
        if h.data_page_header is not None and h.data_page_header.statistics is not None or \
                h.data_page_header_v2 is not None and h.data_page_header_v2.statistics is not None:
            st = (h.data_page_header or h.data_page_header_v2).statistics
            _check_statistics(ck, ch, st, p.values, p.def_levels, "page header statistics", p.ordinal, p.offset)


def _num(h: Any) -> int:
    return int((h.data_page_header or h.data_page_header_v2).num_values)


def _gather(ck: Checker, ch: ChunkState) -> None:
    pages = ch.data_pages
    desc = ch.desc
    ch.values = concat_values([p.values for p in pages], desc)
    ch.num_levels = sum(_num(p.header) for p in pages)
    if desc.max_definition_level > 0:
        ch.def_levels = np.concatenate([p.def_levels for p in pages]) if pages else np.zeros(0, np.int16)
    if desc.max_repetition_level > 0:
        ch.rep_levels = np.concatenate([p.rep_levels for p in pages]) if pages else np.zeros(0, np.int16)


def _check_records(ck: Checker, ch: ChunkState) -> None:
    rows = ck.raw.row_groups[ch.rg].num_rows
    if ch.rep_levels is None:
        return   # num_values == num_rows was checked on the footer
    reps = ch.rep_levels
    if len(reps) and reps[0] != 0:
        ck.report_chunk(CHUNK_ROWS, ch, f"the chunk starts inside a record (repetition level {int(reps[0])})")
    records = int(np.count_nonzero(reps == 0))
    if records != rows:
        ck.report_chunk(CHUNK_ROWS, ch, f"the row group has {rows} rows, the chunk holds {records} records")


def _list_levels(ck: Checker, ch: ChunkState) -> list[tuple[str, int, int, int]]:
    """``(list name, repetition level of its slots, definition level of its element, level
    below which the list is null)`` of every repeated node on the leaf's path."""
    node, d, r, out = ck.schema.root, 0, 0, []
    for k, name in enumerate(ch.desc.path):
        node = next(c for c in node.children if c.name == name)
        if node.repetition == Repetition.OPTIONAL:
            d += 1
        elif node.repetition == Repetition.REPEATED:
            d, r = d + 1, r + 1
            out.append((".".join(ch.desc.path[:k + 1]), r - 1, d, d - 1))
    return out


def _check_list_repeats(ck: Checker, ch: ChunkState) -> None:
    if ch.rep_levels is None or ch.def_levels is None or len(ch.rep_levels) != len(ch.def_levels):
        return
    for name, slot_rep, elem_def, null_below in _list_levels(ck, ch):
        found = stray_repeats(ch.rep_levels, ch.def_levels, slot_rep, elem_def, null_below)
        if found.padding:
            ck.report_chunk(LIST_PADDING, ch, f"{found.padding} level entries repeat {name!r} (repetition "
                            f"level {slot_rep + 1}) after a null list without defining an element "
                            "(duckdb's NULL fixed-size arrays); read as that null list")
        if found.first_bad >= 0:
            i = found.first_bad
            ck.report_chunk(LIST_REPEAT, ch, f"level entry {i} repeats {name!r} (repetition level "
                            f"{slot_rep + 1}) but its definition level {int(ch.def_levels[i])} is below "
                            f"the element's {elem_def}")


def check_values(ck: Checker) -> None:
    """Decode every chunk and check what its metadata says about its values."""
    from parquet_core.validation import bloom, geospatial, page_index

    for g, row in enumerate(ck.chunks):
        for ch in row:
            if ch is None or not ch.usable or not ch.pages_ok:
                continue
            with ck.guard(DECODE, row_group=ch.rg, column=ch.path):
                if not decode_chunk(ck, ch):
                    continue
                _gather(ck, ch)
                ch.decoded = True
                _check_records(ck, ch)
                _check_list_repeats(ck, ch)
                _check_logical_values(ck, ch)
                _check_statistics(ck, ch, ch.meta.statistics, ch.values, ch.def_levels, "chunk statistics")
                _check_size_statistics(ck, ch)
                _check_pages_counts(ck, ch)
                page_index.check_chunk_values(ck, ch)
                bloom.check_chunk_values(ck, ch)
                geospatial.check_chunk_values(ck, ch)
        with ck.guard(SORT_ORDER, row_group=g):
            check_sorting(ck, g)
        for ch in row:   # done with this row group: let its buffers go
            if ch is not None:
                ch.buf = ch.values = ch.def_levels = ch.rep_levels = None
                ch.memo.clear()
                for p in ch.pages:
                    p.values = p.def_levels = p.rep_levels = None


def _max_digits(vals: Any) -> int:
    """Decimal digits of the widest integer the stored values can hold (INT32/INT64 arrays,
    FIXED_LEN_BYTE_ARRAY rows or BYTE_ARRAY values, two's complement)."""
    if isinstance(vals, ByteArrays):
        bits = 8 * int(np.diff(vals.offsets).max(initial=0))
    elif isinstance(vals, np.ndarray) and vals.ndim == 2:
        bits = 8 * vals.shape[1]
    else:
        bits = 8 * np.asarray(vals).dtype.itemsize
    return int(bits * 0.30103) + 1   # log10(2) per bit, rounded up


def _check_logical_values(ck: Checker, ch: ChunkState) -> None:
    """Values the logical type rules out: bad UTF-8, decimals too wide, values in an UNKNOWN column."""
    from parquet_core.table.utf8 import first_invalid_utf8

    dt = ch.desc.data_type
    vals = ch.values
    if dt.id in _STRING_JSON_IDS and isinstance(vals, ByteArrays) and len(vals):
        bad = first_invalid_utf8(vals)
        if bad is not None:
            ck.report_chunk(UTF8, ch, f"non-null value #{bad} ({quoted(vals.to_pylist()[bad][:40])}) is not valid UTF-8")
    elif dt.id is TypeId.NULL and len(vals):
        ck.report_chunk(NULL_TYPE, ch, f"the column is annotated UNKNOWN (always null) but holds {len(vals)} values")
    elif dt.id is TypeId.DECIMAL and len(vals) and dt.precision and int(dt.precision) <= _max_digits(vals):
        # (a precision above what the stored integers can reach rules nothing out;
        # the check above also keeps 10**precision from being computed for a huge one)
        limit = 10 ** int(dt.precision)
        if isinstance(vals, np.ndarray) and vals.ndim == 1:
            wide = np.flatnonzero((vals >= limit) | (vals <= -limit)) if limit < 2**63 else np.zeros(0, np.int64)
            over_first = [int(vals[i]) for i in wide[:1]]
            n = len(wide)
        else:
            # FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY two's complement: one int per value (no numpy
            # type holds up to 38 digits); the data level of a checker is not a hot path
            rows = vals.to_pylist() if isinstance(vals, ByteArrays) else [bytes(r) for r in vals]
            ints = [int.from_bytes(r, "big", signed=True) for r in rows]
            over = [v for v in ints if abs(v) >= limit]
            over_first, n = over[:1], len(over)
        if n:
            ck.report_chunk(DECIMAL_RANGE, ch, f"{n} unscaled value(s) have more than {dt.precision} digits "
                            f"(first: {over_first[0]})")
