"""Our statistics builder against pyarrow's, on the same data.

pyarrow (Arrow C++) writes a file; our reader reads its footer, ColumnIndex
and OffsetIndex; the data is converted to physical values here (straight
from the Arrow buffers) and fed to our builder page by page, using
pyarrow's own page boundaries.  Compared byte for byte: chunk
``min_value``/``max_value``, legacy ``min``/``max``, ``null_count``, the
exactness flags; per page the ColumnIndex bounds and null pages; size
statistics per page (ColumnIndex histograms, OffsetIndex byte counts) and
per chunk.

Known differences, compared only where both define something:

* pyarrow does not truncate bounds by default: our builder runs with
  ``truncate_length=None`` here (truncation is tested against the spec in
  test_stats_builder*.py);
* for INT96 pyarrow writes no ``Statistics`` at all; we write ``null_count``
  alone (the order is undefined, so no bounds either way);
* pyarrow writes an empty ``repetition_level_histogram`` when the max
  repetition level is 0; we omit it (the spec allows omitting it);
* for nested columns pyarrow's ``null_count`` counts every definition level
  below the maximum (empty and null lists too); ``null_count`` is the
  caller's input to our builder, so the test passes the same count.
"""

from __future__ import annotations

import decimal
import io
import struct
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PhysicalType
from parquet_core.metadata.stats_builder import StatisticsBuilder, merge_size_statistics, size_statistics
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

_CTX = decimal.Context(prec=80)


def _dec(scale: int):
    return lambda i: decimal.Decimal(i).scaleb(-scale, _CTX)


def _floats(width: int):
    return st.floats(width=width, allow_nan=True, allow_infinity=True) | st.sampled_from(
        [0.0, -0.0, float("nan")])


#: name -> (arrow type, strategy for one non-null Python value)
_COLUMNS: dict[str, tuple[Any, Any]] = {
    "i8": (pa.int8(), st.integers(-(2**7), 2**7 - 1)),
    "i16": (pa.int16(), st.integers(-(2**15), 2**15 - 1)),
    "i32": (pa.int32(), st.integers(-(2**31), 2**31 - 1)),
    "i64": (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
    "u8": (pa.uint8(), st.integers(0, 2**8 - 1)),
    "u16": (pa.uint16(), st.integers(0, 2**16 - 1)),
    "u32": (pa.uint32(), st.integers(0, 2**32 - 1)),
    "u64": (pa.uint64(), st.integers(0, 2**64 - 1)),
    "f32": (pa.float32(), _floats(32)),
    "f64": (pa.float64(), _floats(64)),
    "f16": (pa.float16(), _floats(16)),
    "bool": (pa.bool_(), st.booleans()),
    "date": (pa.date32(), st.integers(-(10**6), 10**6)),
    "t_ms": (pa.time32("ms"), st.integers(0, 86_400_000 - 1)),
    "t_us": (pa.time64("us"), st.integers(0, 86_400_000_000 - 1)),
    "ts": (pa.timestamp("us", tz="UTC"), st.integers(-(2**62), 2**62)),
    "ts_ns": (pa.timestamp("ns"), st.integers(-(2**62), 2**62)),
    "str": (pa.string(), st.text(max_size=12) | st.sampled_from(["", "z", "é", "zz", "\U0010ffff"])),
    "bin": (pa.binary(), st.binary(max_size=12) | st.sampled_from([b"", b"\x00", b"\xff", b"\xff\xff"])),
    "fsb": (pa.binary(3), st.binary(min_size=3, max_size=3)),
    "uuid": (pa.uuid(), st.binary(min_size=16, max_size=16)),
    "dec7": (pa.decimal128(7, 2), st.integers(-(10**7) + 1, 10**7 - 1).map(_dec(2))),
    "dec15": (pa.decimal128(15, 0), st.integers(-(10**15) + 1, 10**15 - 1).map(_dec(0))),
    "dec30": (pa.decimal128(30, 4), st.integers(-(10**30) + 1, 10**30 - 1).map(_dec(4))),
}


def _arrow_array(name: str, values: list[Any]) -> pa.Array:
    typ, _ = _COLUMNS[name]
    if name == "f16":  # pyarrow builds float16 from numpy only
        mask = np.array([v is None for v in values], dtype=bool)
        data = np.array([0.0 if v is None else v for v in values], dtype=np.float16)
        return pa.array(data, type=typ, mask=mask)
    return pa.array(values, type=typ)


def _read(buf: bytes) -> FileMetadata:
    n = struct.unpack("<I", buf[-8:-4])[0]
    return FileMetadata(parse(buf, pt.FileMetaData, offset=len(buf) - 8 - n, limit=n)[0], n)


def _physical(arr: pa.Array, desc: Any) -> Any:
    """Non-null values of *arr* in parquet_core's physical representation, from Arrow buffers."""
    arr = arr.drop_null()
    if isinstance(arr, pa.ExtensionArray):
        arr = arr.storage
    n, off, typ, ptype = len(arr), arr.offset, arr.type, desc.physical_type
    bufs = arr.buffers()
    if ptype == PhysicalType.BOOLEAN:
        return arr.to_numpy(zero_copy_only=False).astype(bool)
    if ptype in (PhysicalType.FLOAT, PhysicalType.DOUBLE):
        return arr.to_numpy(zero_copy_only=False)
    if ptype == PhysicalType.BYTE_ARRAY:
        offsets = np.frombuffer(bufs[1], "<i4")[off:off + n + 1].astype(np.int64)
        data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
        return ByteArrays(offsets, data)
    if pa.types.is_decimal(typ):
        words = np.frombuffer(bufs[1], np.uint8).reshape(-1, 16)[off:off + n]
        if ptype in (PhysicalType.INT32, PhysicalType.INT64):  # store_decimal_as_integer
            low = np.ascontiguousarray(words[:, :8]).view("<i8").ravel()
            return low.astype(np.int32 if ptype == PhysicalType.INT32 else np.int64)
        return np.ascontiguousarray(words[:, ::-1][:, 16 - desc.type_length:])  # big-endian
    if pa.types.is_float16(typ):
        return arr.to_numpy(zero_copy_only=False).astype("<f2").view(np.uint8).reshape(-1, 2)
    if pa.types.is_fixed_size_binary(typ):
        w = typ.byte_width
        return np.frombuffer(bufs[1], np.uint8)[off * w:(off + n) * w].reshape(n, w)
    width = typ.bit_width // 8
    kind = "u" if pa.types.is_unsigned_integer(typ) else "i"
    raw = np.frombuffer(bufs[1], f"<{kind}{width}")[off:off + n]
    if ptype == PhysicalType.INT32:  # narrow ints widen, uint32 wraps: what Parquet stores
        return raw.astype(np.int64).astype(np.int32)
    return raw.view(np.int64) if kind == "u" else raw.astype(np.int64)


def _index(buf: bytes, chunk: Any) -> tuple[Any, Any]:
    raw = chunk.raw
    oi = parse(buf, pt.OffsetIndex, offset=raw.offset_index_offset, limit=raw.offset_index_length)[0]
    ci = None
    if raw.column_index_offset is not None:
        ci = parse(buf, pt.ColumnIndex, offset=raw.column_index_offset, limit=raw.column_index_length)[0]
    return ci, oi


def _nan_count(col: Any) -> int | None:
    """NaNs in a pyarrow column by pyarrow's own is_nan (None for types without NaN)."""
    if not (pa.types.is_floating(col.type)):
        return None
    return int(pc.sum(pc.is_nan(col)).as_py() or 0)


def _assert_chunk_stats(ours: Any, theirs: Any, where: str, nans: Any = "skip") -> None:
    # pyarrow 26 writes no nan_count; parquet.thrift requires one for floats (checked
    # against pyarrow's own NaN count of the data where the caller gives it)
    if nans != "skip":
        assert ours.nan_count == nans, where
    assert ours.null_count == theirs.null_count, where
    assert (ours.min_value, ours.max_value) == (theirs.min_value, theirs.max_value), where
    assert (ours.min, ours.max) == (theirs.min, theirs.max), where
    if theirs.min_value is not None:
        assert ours.is_min_value_exact == theirs.is_min_value_exact is True, where
        assert ours.is_max_value_exact == theirs.is_max_value_exact is True, where
    assert ours.distinct_count is None, where


def _compare_flat_file(table: pa.Table, **options: Any) -> None:
    sink = io.BytesIO()
    pq.write_table(table, sink, store_schema=False, use_dictionary=False, write_page_index=True,
                   compression="NONE", data_page_size=1, write_batch_size=7, **options)
    buf = sink.getvalue()
    md = _read(buf)
    for i, desc in enumerate(md.schema):
        chunk = md.row_group(0).column(i)
        col = table.column(desc.path[0]).combine_chunks()
        where = f"column {desc.dotted_path}"
        ci, oi = _index(buf, chunk)
        firsts = [loc.first_row_index for loc in oi.page_locations] + [len(col)]
        builder = StatisticsBuilder(desc, truncate_length=None)
        sizes = []
        for p in range(len(firsts) - 1):
            page = col.slice(firsts[p], firsts[p + 1] - firsts[p])
            values = _physical(page, desc)
            bounds = builder.update(values, page.null_count)
            defs = np.asarray(page.is_valid(), dtype=np.int16)
            sizes.append(size_statistics(desc, values=values, def_levels=defs))
            if ci is not None:
                assert ci.null_counts[p] == page.null_count, where
                if ci.null_pages[p]:
                    assert bounds is None, where
                else:
                    assert bounds == (ci.min_values[p], ci.max_values[p]), (where, p)
                    assert ci.definition_level_histograms[2 * p:2 * p + 2] == \
                        sizes[-1].definition_level_histogram, where
            if oi.unencoded_byte_array_data_bytes is not None:
                assert oi.unencoded_byte_array_data_bytes[p] == sizes[-1].unencoded_byte_array_data_bytes
        _assert_chunk_stats(builder.chunk_statistics(), chunk.meta.statistics, where, _nan_count(col))
        ours, theirs = merge_size_statistics(sizes), chunk.meta.size_statistics
        assert ours.unencoded_byte_array_data_bytes == theirs.unencoded_byte_array_data_bytes, where
        assert ours.definition_level_histogram == theirs.definition_level_histogram, where
        assert ours.repetition_level_histogram is None and not theirs.repetition_level_histogram, where


def _optional(strategy: Any) -> Any:
    return st.none() | strategy


@st.composite
def _tables(draw: Any, names: tuple[str, ...] = tuple(_COLUMNS)) -> pa.Table:
    """Columns sampled from small drawn pools (hypothesis picks the values, numpy the layout).

    Drawing every cell through hypothesis is slow for 24 columns; a pool of
    up to 6 drawn values per column, repeated and nulled at seeded random
    positions, keeps the interesting values while runs stay fast.
    """
    n = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cols = {}
    for name in names:
        pool = draw(st.lists(_COLUMNS[name][1], min_size=1, max_size=6))
        null_rate = draw(st.sampled_from([0.0, 0.2, 0.7, 1.0]))
        picks = rng.integers(0, len(pool), n).tolist()
        nulls = (rng.random(n) < null_rate).tolist()
        cols[name] = _arrow_array(name, [None if z else pool[k] for k, z in zip(picks, nulls)])
    return pa.table(cols)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_tables())
def test_flat_columns_match_pyarrow(table: pa.Table) -> None:
    _compare_flat_file(table)


@settings(derandomize=True, max_examples=10, deadline=None)
@given(_tables(("dec7", "dec15", "dec30")))
def test_decimals_stored_as_integers_match_pyarrow(table: pa.Table) -> None:
    _compare_flat_file(table, store_decimal_as_integer=True)


def test_special_values_match_pyarrow() -> None:
    nan = float("nan")
    table = pa.table({
        "f64": pa.array([nan, nan, None, 0.0, -0.0, nan, 1.0, nan], pa.float64()),
        "f32": pa.array([-0.0, 0.0, None, -0.0, nan, nan, nan, None], pa.float32()),
        "u64": pa.array([2**63, 2**64 - 1, None, 1, 2**63 - 1, 0, None, 5], pa.uint64()),
        "str": pa.array(["z", "é", "", "zz", None, "\x00", "z\x00", "ÿ"]),
        "bin": pa.array([b"\xff" * 70, b"a", None, b"", b"\xff" * 69, b"\x80", b"a\x00", None]),
    })
    _compare_flat_file(table)


def test_all_null_and_all_nan_chunks_match_pyarrow() -> None:
    table = pa.table({
        "nan": pa.array([float("nan")] * 9, pa.float64()),
        "nulls": pa.array([None] * 9, pa.int32()),
        "snulls": pa.array([None] * 9, pa.string()),
    })
    _compare_flat_file(table)


def _list_levels(rows: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Dremel levels of an optional list of optional items (max def 3, max rep 1), by hand."""
    defs, reps = [], []
    for row in rows:  # per-row loop: an independent, obviously-correct oracle
        if row is None:
            defs.append(0)
            reps.append(0)
        elif not row:
            defs.append(1)
            reps.append(0)
        else:
            for k, item in enumerate(row):
                defs.append(2 if item is None else 3)
                reps.append(0 if k == 0 else 1)
    return np.array(defs, np.int16), np.array(reps, np.int16)


@st.composite
def _list_tables(draw: Any) -> pa.Table:
    n = draw(st.integers(1, 30))
    strings = draw(st.lists(_optional(st.lists(_optional(st.text(max_size=6)), max_size=4)),
                            min_size=n, max_size=n))
    ints = draw(st.lists(_optional(st.lists(_optional(st.integers(-(2**31), 2**31 - 1)), max_size=4)),
                         min_size=n, max_size=n))
    return pa.table({"s": pa.array(strings, pa.list_(pa.string())), "i": pa.array(ints, pa.list_(pa.int32()))})


@settings(derandomize=True, max_examples=20, deadline=None)
@given(_list_tables())
def test_list_columns_match_pyarrow(table: pa.Table) -> None:
    sink = io.BytesIO()
    pq.write_table(table, sink, store_schema=False, compression="NONE")
    md = _read(sink.getvalue())
    for i, desc in enumerate(md.schema):
        rows = table.column(desc.path[0]).to_pylist()
        flat = pc.list_flatten(table.column(desc.path[0]).combine_chunks())
        defs, reps = _list_levels(rows)
        values = _physical(flat, desc)
        builder = StatisticsBuilder(desc, truncate_length=None)
        builder.update(values, int(np.count_nonzero(defs < desc.max_definition_level)))
        chunk = md.row_group(0).column(i)
        _assert_chunk_stats(builder.chunk_statistics(), chunk.meta.statistics, desc.dotted_path)
        ours = size_statistics(desc, values=values, def_levels=defs, rep_levels=reps)
        theirs = chunk.meta.size_statistics
        assert ours.definition_level_histogram == theirs.definition_level_histogram
        assert ours.repetition_level_histogram == theirs.repetition_level_histogram
        assert ours.unencoded_byte_array_data_bytes == theirs.unencoded_byte_array_data_bytes


def test_int96_has_no_bounds_like_pyarrow() -> None:
    table = pa.table({"t": pa.array([5, None, -3], pa.timestamp("ns"))})
    sink = io.BytesIO()
    pq.write_table(table, sink, store_schema=False, use_deprecated_int96_timestamps=True)
    md = _read(sink.getvalue())
    desc = md.schema.column(0)
    assert desc.physical_type == PhysicalType.INT96
    theirs = md.row_group(0).column(0).meta.statistics
    assert theirs is None or theirs.min_value is None  # pyarrow: no Statistics at all
    builder = StatisticsBuilder(desc)
    builder.update(np.zeros((2, 12), np.uint8), 1)
    assert builder.chunk_statistics() == pt.Statistics(null_count=1)


_SAMPLES: dict[str, list[Any]] = {
    "i8": [-3, 7], "i16": [-300, 7], "i32": [-(2**31), 2**31 - 1], "i64": [-(2**63), 2**63 - 1],
    "u8": [255, 1], "u16": [65535, 1], "u32": [2**32 - 1, 2**31], "u64": [2**64 - 1, 2**63],
    "f32": [-1.5, 2.5], "f64": [-1e300, 1e300], "f16": [-0.5, 65504.0], "bool": [False, True],
    "date": [-5, 5], "t_ms": [1, 86_399_999], "t_us": [1, 5], "ts": [-1, 1], "ts_ns": [-7, 7],
    "str": ["é", "z"], "bin": [b"\xff", b"\x00"], "fsb": [b"\xff\x00\x00", b"\x00\xff\xff"],
    "uuid": [b"\xff" * 16, b"\x01" * 16],
    "dec7": [_dec(2)(-12345), _dec(2)(9)], "dec15": [_dec(0)(-(10**14)), _dec(0)(1)],
    "dec30": [_dec(4)(-(10**29)), _dec(4)(10**29)],
}


def test_every_column_kind_has_bounds_on_both_sides() -> None:
    # guards the random comparisons against comparing absent bounds with absent bounds
    table = pa.table({name: _arrow_array(name, _SAMPLES[name] + [None]) for name in _COLUMNS})
    sink = io.BytesIO()
    pq.write_table(table, sink, store_schema=False)
    md = _read(sink.getvalue())
    assert md.num_columns == len(_COLUMNS)
    for i, desc in enumerate(md.schema):
        theirs = md.row_group(0).column(i).meta.statistics
        builder = StatisticsBuilder(desc, truncate_length=None)
        builder.update(_physical(table.column(i).combine_chunks(), desc), 1)
        assert theirs.min_value is not None and theirs.max_value is not None, desc.dotted_path
        _assert_chunk_stats(builder.chunk_statistics(), theirs, desc.dotted_path)
    _compare_flat_file(table)
