"""pyarrow reads what the writer produces from every input form, with its footer metadata.

* key/value metadata, column metadata, ``created_by``, ``sorting_columns``
  as pyarrow reports them;
* every accepted input: mappings of Python lists (None = null) with and
  without an explicit schema, numpy arrays (any dtype pyarrow maps, strided,
  byte-swapped), pandas DataFrames, pyarrow Tables (chunked, sliced, large,
  dictionary-encoded), ``ParquetWriter`` fed batch by batch;
* values larger than a page;
* the file with every feature on at once (pyarrow with checksum
  verification, and parquet_core);
* every flat file of the parquet-testing corpus, read by parquet_core and
  written back, reads in pyarrow as the original does.

Statistics are in ``test_writer_statistics.py``, page index / sizes / CRCs in
``test_writer_layout.py``, the type x encoding x codec matrix in
``test_writer_matrix.py``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import PageType
from tests.interop.writer_cases import (
    comparable,
    BY_KEY, CASES, EVERYTHING_KV, EVERYTHING_OPTIONS, 
    assert_ours_reads, assert_pyarrow_reads, assert_values, canon_arrow,
    make_columns, page_headers, to_arrow_table, write_everything,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")




# ---------------------------------------------------------------------------
# footer metadata
# ---------------------------------------------------------------------------

def test_key_value_metadata_created_by_and_column_metadata(tmp_path):
    path = tmp_path / "kv.parquet"
    pc.write_table({"a": [1, 2, 3], "b": ["x", "y", None]}, path,
                   key_value_metadata={"k": "v", "ünï": "cödé"}, created_by="my app version 1.2.3",
                   column_key_value_metadata={"b": {"unit": "m"}})
    md = pq.ParquetFile(path).metadata
    assert md.metadata[b"k"] == b"v" and md.metadata["ünï".encode()] == "cödé".encode()
    assert md.created_by == "my app version 1.2.3"
    assert md.row_group(0).column(1).metadata == {b"unit": b"m"}
    assert not md.row_group(0).column(0).metadata


def test_default_created_by(tmp_path):
    path = tmp_path / "cb.parquet"
    pc.write_table({"a": [1]}, path)
    created = pq.ParquetFile(path).metadata.created_by
    assert created.startswith("parquet-core version ")


@pytest.mark.parametrize("spec,want", [
    ([("a", "ascending")], [pq.SortingColumn(0)]),
    ([("b", "descending", True), ("a", "ascending")],
     [pq.SortingColumn(1, descending=True, nulls_first=True), pq.SortingColumn(0)]),
    ([pq.SortingColumn(1, descending=True)], [pq.SortingColumn(1, descending=True)]),
])
def test_sorting_columns(tmp_path, spec, want):
    path = tmp_path / "sort.parquet"
    pc.write_table({"a": np.arange(10), "b": np.arange(10)[::-1].copy()}, path, sorting_columns=spec,
                   row_group_size=4)
    md = pq.ParquetFile(path).metadata
    for i in range(md.num_row_groups):
        assert list(md.row_group(i).sorting_columns) == want


# ---------------------------------------------------------------------------
# input forms
# ---------------------------------------------------------------------------

def test_input_python_lists_with_none(tmp_path):
    utc = dt.timezone.utc
    data = {
        "i": [1, None, -3, 2**40],
        "f": [1.5, None, float("nan"), -0.0],
        "b": [True, None, False, True],
        "s": ["a", None, "ç日本", ""],
        "y": [b"x", None, b"\x00\xff", b""],
        "d": [dt.date(2020, 1, 1), None, dt.date(1, 1, 1), dt.date(9999, 12, 31)],
        "ts": [dt.datetime(2020, 1, 1, 12, 0, 0, 123456, tzinfo=utc), None,
               dt.datetime(1900, 5, 6, tzinfo=utc), dt.datetime(2262, 1, 1, tzinfo=utc)],
        "dec": [Decimal("1.25"), None, Decimal("-99.99"), Decimal("0.00")],
    }
    path = tmp_path / "lists.parquet"
    pc.write_table(data, path)
    got = pq.read_table(path)
    for name, values in data.items():
        col = got.column(name).to_pylist()
        assert [comparable(v) for v in col] == [comparable(v) for v in values], name
    assert pa.types.is_integer(got.schema.field("i").type)
    assert got.schema.field("f").type == pa.float64()
    assert got.schema.field("b").type == pa.bool_()
    assert got.schema.field("s").type == pa.string()
    assert got.schema.field("y").type == pa.binary()
    assert got.schema.field("d").type == pa.date32()
    assert pa.types.is_timestamp(got.schema.field("ts").type) and got.schema.field("ts").type.tz is not None
    assert pa.types.is_decimal(got.schema.field("dec").type)


def test_input_python_lists_with_explicit_schema(tmp_path):
    schema = pc.schema([pc.field("ts", pc.timestamp("ms", utc=True)), ("a", pc.int32()),
                        pc.field("n", pc.int16(), nullable=False), ("d", pc.decimal(9, 3)),
                        ("u", pc.uint64()), ("s", pc.string())])
    utc = dt.timezone.utc
    data = {"ts": [dt.datetime(2021, 3, 4, 5, 6, 7, 8000, tzinfo=utc), None],
            "a": [None, -7], "n": [1, 2], "d": [Decimal("123456.789"), Decimal("-0.001")],
            "u": [2**64 - 1, 0], "s": ["x", None]}
    path = tmp_path / "schema.parquet"
    pc.write_table(data, path, schema=schema)
    got = pq.read_table(path)
    assert got.schema.field("ts").type == pa.timestamp("ms", tz="UTC")
    assert got.schema.field("a").type == pa.int32()
    assert got.schema.field("n").type == pa.int16() and not got.schema.field("n").nullable
    assert got.schema.field("d").type == pa.decimal128(9, 3)
    assert got.schema.field("u").type == pa.uint64()
    assert got.to_pydict() == data


def test_input_numpy_arrays(tmp_path):
    arrays = {
        "i8": np.array([-128, 0, 127], dtype=np.int8),
        "u16": np.array([0, 65535, 7], dtype=np.uint16),
        "u64": np.array([0, 2**64 - 1, 2**63], dtype=np.uint64),
        "f32": np.array([1.5, np.nan, -0.0], dtype=np.float32),
        "f16": np.array([1.5, np.inf, -0.0], dtype=np.float16),
        "b": np.array([True, False, True]),
        "ns": np.array(["2020-01-01T00:00:00.123456789", "1970-01-01", "1800-01-01"], dtype="datetime64[ns]"),
        "ms": np.array(["2020-01-01T00:00:00.123", "1970-01-01", "1800-01-01"], dtype="datetime64[ms]"),
        "day": np.array(["2020-01-01", "1970-01-01", "0001-01-01"], dtype="datetime64[D]"),
        "u": np.array(["a", "ç", ""]),
    }
    path = tmp_path / "np.parquet"
    pc.write_table(arrays, path)
    got = pq.read_table(path)
    for name, arr in arrays.items():
        want = pa.array(arr)
        got_type = got.schema.field(name).type
        assert got_type == want.type, f"{name}: {got_type} vs {want.type}"
        assert canon_arrow(got.column(name)) == canon_arrow(want), name


def test_input_pandas_dataframe(tmp_path):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({
        "i": np.arange(5, dtype=np.int64),
        "f": [1.0, 2.5, -0.0, 1e300, 3.0],
        "s": ["a", None, "ç", "", "z"],
        "ts": pd.to_datetime(["2020-01-01", None, "1999-12-31 23:59:59.999999", "2000-01-01", "2001-01-01"],
                             format="ISO8601"),
        "tz": pd.to_datetime(["2020-01-01", "2020-06-01", None, "2000-01-01", "2001-01-01"]
                             ).tz_localize("UTC"),
        "b": [True, False, True, True, False],
        "ni": pd.array([1, None, 3, 4, None], dtype="Int32"),
    })
    path = tmp_path / "pd.parquet"
    pc.write_table(df, path)
    want = pa.Table.from_pandas(df, preserve_index=False)
    got = pq.read_table(path)
    assert got.column_names == want.column_names
    for name in want.column_names:
        assert got.schema.field(name).type == want.schema.field(name).type, name
        assert canon_arrow(got.column(name)) == canon_arrow(want.column(name)), name


def test_input_numpy_strided_and_byte_swapped(tmp_path):
    base = np.arange(40, dtype=np.int64) * 3 - 50
    arrays = {
        "strided": base[::3],
        "reversed": base[::-1],
        "big_endian": base.astype(">i4")[:14],
        "be_float": (base / 7).astype(">f8")[:14],
        "col_of_2d": np.arange(28, dtype=np.float32).reshape(14, 2)[:, 1],
    }
    n = 14
    arrays = {k: v[:n] for k, v in arrays.items()}
    path = tmp_path / "strided.parquet"
    pc.write_table(arrays, path)
    got = pq.read_table(path)
    for name, arr in arrays.items():
        assert got.column(name).to_pylist() == arr.tolist(), name


def test_input_pyarrow_chunked_sliced_large_and_dictionary(tmp_path):
    words = [f"w{i % 13}" + "é" * (i % 3) if i % 5 else None for i in range(100)]
    blobs = [bytes([i % 256]) * (i % 7) for i in range(100)]
    ints = pa.array([i * 7 if i % 9 else None for i in range(100)], pa.int32())
    table = pa.table({
        "chunked": pa.chunked_array([ints[:30], ints[30:31], ints[31:]]),
        "sliced": pa.chunked_array([pa.array(words * 2)[37:137]]),
        "large_string": pa.array(words, pa.large_string()),
        "large_binary": pa.array(blobs, pa.large_binary()),
        "dictionary": pa.array(words).dictionary_encode(),
        "sliced_bool": pa.array([i % 3 == 0 if i % 4 else None for i in range(300)])[150:250],
    })
    path = tmp_path / "arrow_layouts.parquet"
    pc.write_table(table, path)
    got = pq.read_table(path)
    for name in table.column_names:
        assert got.column(name).to_pylist() == table.column(name).to_pylist(), name


def test_values_larger_than_a_page(tmp_path):
    rng = np.random.default_rng(9)
    big = [rng.integers(0, 256, 150_000, dtype=np.uint8).tobytes(), b"", None, b"x" * 70_000, b"tail"]
    for dictionary in (True, False):
        for version in ("1.0", "2.0"):
            path = tmp_path / f"big{dictionary}{version}.parquet"
            pc.write_table({"b": big}, path, schema=pc.schema([pc.field("b", pc.binary())]),
                           data_page_size=1024, use_dictionary=dictionary, data_page_version=version,
                           dictionary_pagesize_limit=4096, compression="snappy")
            assert pq.read_table(path).column("b").to_pylist() == big
            assert pc.read_table(path).column("b").to_pylist() == big


#: Types pyarrow can hold as such (ENUM/BSON/INTERVAL/INT96 have no Arrow type that round-trips).
#: (dec5_2_w4: Arrow has no storage width, time_us_utc: Arrow times carry no UTC flag.)
ARROW_INPUT_CASES = [c for c in CASES if c.key not in (
    "enum", "bson", "interval", "int96", "ts_us_as_int96", "dec5_2_w4", "time_us_utc")]


@pytest.mark.parametrize("nulls", [False, True], ids=["required", "nulls"])
def test_input_pyarrow_table(tmp_path, nulls):
    table, expected = make_columns(ARROW_INPUT_CASES, 200, nulls=nulls, seed=7)
    arrow = to_arrow_table(ARROW_INPUT_CASES, table)
    path = tmp_path / "arrow.parquet"
    pc.write_table(arrow, path)
    assert_pyarrow_reads(path, ARROW_INPUT_CASES, expected)
    assert_ours_reads(path, ARROW_INPUT_CASES, expected)
    got = pq.read_table(path)
    for f in arrow.schema:
        assert got.schema.field(f.name).nullable == f.nullable


def test_parquet_writer_with_pyarrow_schema_and_batches(tmp_path):
    cases = [BY_KEY[k] for k in ("i64", "str", "ts_us_utc", "dec18_4")]
    table, expected = make_columns(cases, 120, nulls=True, seed=8)
    arrow = to_arrow_table(cases, table)
    path = tmp_path / "w.parquet"
    with pc.ParquetWriter(path, arrow.schema, compression="zstd") as w:
        for batch in arrow.to_batches(max_chunksize=50):
            w.write_batch(pa.Table.from_batches([batch]))
    assert_pyarrow_reads(path, cases, expected)


# ---------------------------------------------------------------------------
# every feature at once
# ---------------------------------------------------------------------------

def test_everything_on_read_by_pyarrow_and_ours(tmp_path):
    path = tmp_path / "everything.parquet"
    cases, names, expected = write_everything(path)
    assert_pyarrow_reads(path, cases, expected, names=names, page_checksum_verification=True)
    assert_ours_reads(path, cases, expected, names=names)

    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups >= 3
    assert md.created_by == EVERYTHING_OPTIONS["created_by"]
    for k, v in EVERYTHING_KV.items():
        assert md.metadata[k.encode()] == v.encode()
    fallback = 0
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        assert list(rg.sorting_columns) == [pq.SortingColumn(0)]
        for j, name in enumerate(names):
            col = rg.column(j)
            assert col.compression == "ZSTD"
            assert col.has_offset_index
            assert col.is_stats_set
            if name == "str":
                assert col.metadata == {b"note": b"column metadata"}
            encs = set(col.encodings)
            if {"RLE_DICTIONARY", "PLAIN_DICTIONARY"} & encs and encs - {"RLE_DICTIONARY",
                                                                        "PLAIN_DICTIONARY", "RLE"}:
                fallback += 1
            heads = page_headers(path, i, j)
            assert all(h.crc is not None for h in heads)
            assert all(h.type in (PageType.DICTIONARY_PAGE, PageType.DATA_PAGE_V2) for h in heads)
        assert sum(len(page_headers(path, i, j)) for j in range(len(names))) > 2 * len(names)
    assert fallback > 0, "no chunk fell back from the dictionary"


# ---------------------------------------------------------------------------
# real-world data: every flat file of the parquet-testing corpus, rewritten
# ---------------------------------------------------------------------------

def _corpus_files():
    """Corpus files with flat columns (nested ones: tests/conformance/test_nested_corpus_rewrite.py)."""
    from tests._support.corpus import CORRUPT_CHECKSUM, FILES, INT96_FILE, ORACLE_CANNOT_READ
    from tests._support.corpus import flat_columns as _flat_columns
    from tests._support.corpus import corpus_dir

    return [f for f in FILES if f not in ORACLE_CANNOT_READ and Path(f).name not in CORRUPT_CHECKSUM
            and f != INT96_FILE and _flat_columns(corpus_dir() / f)[0]]


def _plain_arrow(col):
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    return canon_arrow(col)


@pytest.mark.parametrize("name", _corpus_files())
def test_rewrite_corpus_file(corpus, tmp_path, name):
    """Read a corpus file with parquet_core, write it back, and pyarrow sees the original's values."""
    from tests._support.corpus import flat_columns as _flat_columns

    flat, _ = _flat_columns(corpus / name)
    ours = pc.read_table(corpus / name, columns=flat)
    out = tmp_path / "rewritten.parquet"
    pc.write_table(ours, out, compression="zstd", data_page_version="2.0", write_page_checksum=True)
    again = pc.read_table(out)
    assert [f.type for f in again.schema] == [f.type for f in ours.schema]
    original = pq.read_table(corpus / name, columns=flat)
    rewritten = pq.read_table(out, page_checksum_verification=True)
    assert rewritten.num_rows == original.num_rows
    for col in flat:
        assert_values(_plain_arrow(rewritten.column(col)), _plain_arrow(original.column(col)),
                      f"{name}:{col}")


def test_geospatial_columns_keep_their_annotation(tmp_path):
    """GEOMETRY/GEOGRAPHY with a CRS and an edge algorithm: pyarrow sees the annotation and the WKB."""
    import struct

    points = [struct.pack("<BIdd", 1, 1, x, y) for x, y in [(1.0, 2.0), (-3.5, 4.25), (0.0, 0.0)]]
    schema = pc.schema([pc.field("g", pc.geometry("srid:4326")),
                        pc.field("h", pc.geography("OGC:CRS84", "vincenty"))])
    path = tmp_path / "geo.parquet"
    pc.write_table({"g": points[:2] + [None], "h": points}, path, schema=schema)
    meta = pq.read_metadata(path)
    g_type, h_type = (str(meta.schema.column(i).logical_type) for i in range(2))
    assert "Geometry" in g_type and "4326" in g_type, g_type
    assert "Geography" in h_type and "vincenty" in h_type.lower(), h_type
    # no min/max: geospatial columns have no defined sort order
    assert not meta.row_group(0).column(0).statistics.has_min_max
    # pyarrow reads the geospatial statistics we computed (GEOGRAPHY: types only)
    geo = meta.row_group(0).column(0).geo_statistics.to_dict()
    assert geo == {"geospatial_types": [1], "xmin": -3.5, "xmax": 1.0, "ymin": 2.0, "ymax": 4.25,
                   "zmin": None, "zmax": None, "mmin": None, "mmax": None}
    assert meta.row_group(0).column(1).geo_statistics.to_dict()["geospatial_types"] == [1]
    assert pc.read_schema(path) == schema
    got = pq.read_table(path)
    as_bytes = [None if v is None else bytes(v) for v in got.column("g").to_pylist()]
    assert as_bytes == points[:2] + [None]
