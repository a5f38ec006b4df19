"""Files written by pyarrow (an independent implementation), read back value for value.

Covers every logical type pyarrow can write, each codec, dictionary on/off,
data page v1/v2, every non-dictionary encoding pyarrow offers, small pages
and row groups; types pyarrow cannot write (ENUM, BSON, INTERVAL, TIME with
UTC flag off...) are produced by re-annotating pyarrow's pages in the footer.
"""

from __future__ import annotations

import datetime as dt
import io
import uuid
from decimal import Decimal

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import ConvertedType
from tests.conformance.oracle import assert_column_matches
from tests.interop.footer_edit import edit_footer

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 300
rng = np.random.default_rng(42)


def _with_nulls(values, every=7):
    return [None if i % every == 3 else v for i, v in enumerate(values)]


def _all_types_table() -> "pa.Table":
    ints = rng.integers(-2**31, 2**31 - 1, N)
    big = rng.integers(-2**62, 2**62, N)
    words = [f"w{i % 37}-{'é' * (i % 3)}" for i in range(N)]
    cols = {
        "bool": pa.array(_with_nulls([bool(i % 3) for i in range(N)])),
        "i8": pa.array(_with_nulls((ints % 128).tolist()), pa.int8()),
        "i16": pa.array(_with_nulls((ints % 30000).tolist()), pa.int16()),
        "i32": pa.array(_with_nulls(ints.tolist()), pa.int32()),
        "i64": pa.array(_with_nulls(big.tolist()), pa.int64()),
        "u8": pa.array(_with_nulls((np.abs(ints) % 256).tolist()), pa.uint8()),
        "u16": pa.array(_with_nulls((np.abs(ints) % 65536).tolist()), pa.uint16()),
        "u32": pa.array(_with_nulls((np.abs(ints) * 2 % 2**32).tolist()), pa.uint32()),
        "u64": pa.array(_with_nulls([2**64 - 1 - i * 12345 for i in range(N)]), pa.uint64()),
        "f16": pa.array(_with_nulls(np.float16(rng.normal(size=N)).tolist()), pa.float16()),
        "f32": pa.array(_with_nulls([float(np.float32(x)) for x in rng.normal(size=N)] ), pa.float32()),
        "f64": pa.array(_with_nulls(rng.normal(size=N).tolist() + [])),
        "nan": pa.array([float("nan") if i % 5 == 0 else -0.0 if i % 5 == 1 else float(i) for i in range(N)]),
        "str": pa.array(_with_nulls(words)),
        "bin": pa.array(_with_nulls([bytes([i % 256]) * (i % 11) for i in range(N)])),
        "flba": pa.array(_with_nulls([bytes([i % 256]) * 5 for i in range(N)]), pa.binary(5)),
        "dec32": pa.array(_with_nulls([Decimal(i * 7 - 900).scaleb(-2) for i in range(N)]), pa.decimal128(7, 2)),
        "dec64": pa.array(_with_nulls([Decimal(i * 7919 - 10**12).scaleb(-4) for i in range(N)]), pa.decimal128(18, 4)),
        "dec128": pa.array(_with_nulls([Decimal(i * 10**20 - 3).scaleb(-5) for i in range(N)]), pa.decimal128(38, 5)),
        "date": pa.array(_with_nulls([dt.date(1900, 1, 1) + dt.timedelta(days=i * 97) for i in range(N)])),
        "t_ms": pa.array(_with_nulls([i * 1234 % 86_400_000 for i in range(N)]), pa.time32("ms")),
        "t_us": pa.array(_with_nulls([i * 123456789 % 86_400_000_000 for i in range(N)]), pa.time64("us")),
        "t_ns": pa.array(_with_nulls([i * 123456789123 % 86_400_000_000_000 for i in range(N)]), pa.time64("ns")),
        "ts_ms": pa.array(_with_nulls(big.tolist()), pa.int64()).cast(pa.timestamp("ms"), safe=False),
        "ts_us_utc": pa.array(_with_nulls((big // 1000).tolist()), pa.timestamp("us", tz="UTC")),
        "ts_ns": pa.array(_with_nulls(big.tolist()), pa.timestamp("ns")),
        "ts_ns_utc": pa.array(_with_nulls((big // 7 * 7 + 1).tolist()), pa.timestamp("ns", tz="UTC")),
        "uuid": pa.array(_with_nulls([uuid.UUID(int=i * 2**100 + i).bytes for i in range(N)]), pa.uuid()),
        "json": pa.array(_with_nulls([f'{{"k": {i}}}' for i in range(N)]), pa.json_()),
        "null": pa.nulls(N),
    }
    return pa.table(cols)


TABLE = _all_types_table()


def _write(table, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _check(data: bytes, table=None, columns=None) -> None:
    theirs = pq.read_table(io.BytesIO(data), columns=columns)
    ours = pc.read_table(data, columns=columns)
    assert ours.column_names == theirs.column_names
    assert ours.num_rows == theirs.num_rows
    for name in ours.column_names:
        assert_column_matches(ours.column(name), theirs.column(name), name)


@pytest.mark.parametrize("compression", ["NONE", "SNAPPY", "GZIP", "BROTLI", "ZSTD", "LZ4"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_all_types_each_codec_and_page_version(compression, version) -> None:
    data = _write(TABLE, compression=compression, data_page_version=version,
                  store_decimal_as_integer=True, row_group_size=128, data_page_size=512)
    _check(data)


def test_plain_encoding_small_pages_no_dictionary() -> None:
    """pyarrow writes every column PLAIN in pages of ~64 bytes with no dictionary page; the
    layout is checked (pyarrow's metadata and every page header), then the values.

    pyarrow checks the page size every ``write_batch_size`` rows (default 1024, more than
    the table has), so that is lowered to get many pages."""
    from parquet_core.constants import Encoding, PageType

    data = _write(TABLE, use_dictionary=False, data_page_size=64, write_batch_size=16,
                  write_page_checksum=True)
    md = pq.read_metadata(io.BytesIO(data))
    pf = pc.ParquetFile(data)
    assert md.num_row_groups == 1
    for col in range(md.num_columns):
        meta = md.row_group(0).column(col)
        name = meta.path_in_schema
        assert not meta.has_dictionary_page and meta.dictionary_page_offset is None, name
        assert set(meta.encodings) == {"PLAIN", "RLE"}, name   # RLE: the definition levels
        pages = pf.page_headers(0, col)
        assert all(p.header.type == PageType.DATA_PAGE for p in pages), name
        assert all(p.header.data_page_header.encoding == Encoding.PLAIN for p in pages), name
        assert all(p.header.crc is not None for p in pages), name
        assert sum(p.header.data_page_header.num_values for p in pages) == meta.num_values == N, name
        assert pages[0].offset == meta.data_page_offset, name
        # 300 booleans are 38 bytes, and the all-null column has levels only: one page each
        if name in ("bool", "null"):
            assert len(pages) == 1, name
        else:
            assert len(pages) > 1, name
    _check(data)


@pytest.mark.parametrize("encoding, columns", [
    ("DELTA_BINARY_PACKED", ["i8", "i16", "i32", "i64", "u32", "u64", "date", "t_us", "ts_ns"]),
    ("DELTA_LENGTH_BYTE_ARRAY", ["str", "bin", "json"]),
    ("DELTA_BYTE_ARRAY", ["str", "bin", "flba", "dec128"]),
    ("BYTE_STREAM_SPLIT", ["f16", "f32", "f64", "i32", "i64", "flba", "dec128"]),
    ("RLE", ["bool"]),
])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_non_dictionary_encodings(encoding, columns, version) -> None:
    table = TABLE.select(columns)
    data = _write(table, use_dictionary=False, column_encoding={c: encoding for c in columns},
                  data_page_version=version, data_page_size=700, compression="snappy")
    _check(data)


def test_dictionary_fallback_mid_chunk() -> None:
    """A dictionary that overflows its limit makes the writer switch to PLAIN mid-chunk."""
    table = pa.table({"s": pa.array([f"value-{i}" for i in range(20_000)])})
    data = _write(table, dictionary_pagesize_limit=2048, data_page_size=1024)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)
    assert "PLAIN" in meta.encodings
    _check(data)


def test_page_checksums_written_by_pyarrow_verify() -> None:
    data = _write(TABLE, write_page_checksum=True, compression="zstd")
    _check(data)
    broken = bytearray(data)
    # flip a byte inside the first data page of the first column
    off = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).data_page_offset
    broken[off + 40] ^= 0xFF
    with pytest.raises(pc.ParquetFormatError):
        pc.read_table(bytes(broken), columns=["bool"])


def test_statistics_match_pyarrow() -> None:
    data = _write(TABLE, row_group_size=100, store_decimal_as_integer=True)
    ours = pc.read_metadata(data)
    theirs = pq.ParquetFile(io.BytesIO(data)).metadata
    checked = 0
    for rg in range(ours.num_row_groups):
        for i in range(ours.num_columns):
            mine = ours.row_group(rg).column(i)
            ref = theirs.row_group(rg).column(i).statistics
            if ref is None:
                continue
            assert mine.statistics.null_count == ref.null_count, mine.path_in_schema
            if ref.has_min_max and mine.descriptor.data_type.name in (
                    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "string", "date", "decimal", "bool", "float64", "float32"):
                assert mine.statistics.min == ref.min, mine.path_in_schema
                assert mine.statistics.max == ref.max, mine.path_in_schema
                checked += 1
    assert checked > 20


def _annotate(name: str, converted: int | None = None, logical=None):
    def edit(meta):
        for el in meta.schema:
            if el.name == name:
                el.converted_type = converted
                el.logicalType = logical
    return edit


def test_enum_bson_interval_by_annotation() -> None:
    table = pa.table({
        "e": pa.array(["red", None, "green"]),
        "b": pa.array([b"\x05\x00\x00\x00\x00", b"", None]),
        "iv": pa.array([b"\x01\0\0\0\x02\0\0\0\x03\0\0\0", None, b"\xff\xff\xff\xff\0\0\0\0\0\0\0\0"],
                       pa.binary(12)),
    })
    data = _write(table, use_dictionary=False)
    data = edit_footer(data, _annotate("e", ConvertedType.ENUM))
    data = edit_footer(data, _annotate("b", ConvertedType.BSON))
    data = edit_footer(data, _annotate("iv", ConvertedType.INTERVAL))
    t = pc.read_table(data)
    assert [str(f.type) for f in t.schema] == ["enum", "bson", "interval"]
    assert t.column("e").to_pylist() == ["red", None, "green"]
    assert t.column("b").to_pylist() == [b"\x05\x00\x00\x00\x00", b"", None]
    assert t.column("iv").to_pylist() == [pc.Interval(1, 2, 3), None, pc.Interval(2**32 - 1, 0, 0)]


def test_unsigned_extremes_and_int8_views() -> None:
    table = pa.table({"u64": pa.array([0, 2**63, 2**64 - 1], pa.uint64()),
                      "u32": pa.array([0, 2**31, 2**32 - 1], pa.uint32()),
                      "i8": pa.array([-128, 0, 127], pa.int8())})
    t = pc.read_table(_write(table))
    assert t.column("u64").to_pylist() == [0, 2**63, 2**64 - 1]
    assert t.column("u32").to_pylist() == [0, 2**31, 2**32 - 1]
    assert t.column("i8").values.dtype == np.int8


def test_nanoseconds_are_never_truncated() -> None:
    table = pa.table({"ts": pa.array([1, 1_000, 1_700_000_000_123_456_789], pa.timestamp("ns"))})
    vals = pc.read_table(_write(table)).column("ts").to_pylist()
    assert isinstance(vals[0], pc.NanoDatetime) and vals[0].nanosecond == 1
    assert vals[0].to_datetime() == dt.datetime(1970, 1, 1)
    assert vals[1] == dt.datetime(1970, 1, 1, 0, 0, 0, 1)
    assert (vals[2] - dt.datetime(1970, 1, 1)).total_nanoseconds() == 1_700_000_000_123_456_789


def test_to_arrow_and_pandas_round_trip() -> None:
    from tests.conformance.oracle import arrow_canonical, values_equal

    data = _write(TABLE, store_decimal_as_integer=True)
    ours = pc.read_table(data).to_arrow()
    theirs = pq.read_table(io.BytesIO(data))
    assert ours.column_names == theirs.column_names
    for name in theirs.column_names:
        a, b = ours.column(name), theirs.column(name)
        assert a.type == b.type, name
        (va, ua), (vb, ub) = arrow_canonical(a), arrow_canonical(b)
        assert ua == ub and len(va) == len(vb), name
        assert all(values_equal(x, y) for x, y in zip(va, vb)), name
    pd = pytest.importorskip("pandas")
    df = pc.read_table(data, columns=["i64", "str"]).to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == N


def test_iter_batches_and_row_groups() -> None:
    data = _write(TABLE.select(["i32", "str"]), row_group_size=64)
    pf = pc.ParquetFile(io.BytesIO(data))
    assert pf.num_row_groups == 5
    batches = list(pf.iter_batches(batch_size=50, columns=["str"]))
    assert sum(b.num_rows for b in batches) == N
    assert max(b.num_rows for b in batches) == 50
    flat = [v for b in batches for v in b.column("str").to_pylist()]
    assert flat == TABLE.column("str").to_pylist()
    assert pf.read_row_group(2, columns=["i32"]).column("i32").to_pylist() == \
        TABLE.column("i32").to_pylist()[128:192]


def test_unknown_column_name() -> None:
    with pytest.raises(ValueError, match="no column"):
        pc.read_table(_write(TABLE.select(["i32"])), columns=["nope"])


def test_dictionary_page_offset_missing() -> None:
    """Some writers leave dictionary_page_offset unset; the dictionary page is found first."""
    table = pa.table({"s": pa.array(["a", "b", "a", None] * 50)})
    data = _write(table)

    def drop(meta):
        for rg in meta.row_groups:
            for cc in rg.columns:
                md = cc.meta_data
                md.data_page_offset = md.dictionary_page_offset
                md.dictionary_page_offset = None

    t = pc.read_table(edit_footer(data, drop))
    assert t.column("s").to_pylist() == table.column("s").to_pylist()


def test_page_mislabelled_lzo_is_a_clear_error() -> None:
    # uncompressed pages relabelled LZO: a format error (or, without the optional
    # lzallright backend, CodecUnavailableError naming the extra), with the column
    data = _write(pa.table({"x": pa.array([1, 2, 3])}), compression="NONE")

    def to_lzo(meta):
        meta.row_groups[0].columns[0].meta_data.codec = 3  # LZO

    with pytest.raises((pc.ParquetFormatError, pc.CodecUnavailableError), match="LZO") as info:
        pc.read_table(edit_footer(data, to_lzo))
    assert "column x" in " ".join(info.value.__notes__)
