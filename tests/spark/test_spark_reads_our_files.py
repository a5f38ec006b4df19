"""Spark's built-in Parquet reader (parquet-java, vectorised) reads files parquet_core wrote.

Few tests, since Spark is slow; each reads several files in one job:

* one logical table written in seven variants (v1/v2 data pages; snappy,
  zstd, gzip, lz4_raw and Hadoop-framed lz4, uncompressed; dictionary,
  dictionary fallback, PLAIN, the DELTA encodings, BYTE_STREAM_SPLIT, RLE
  booleans; several row groups and pages) covering integers (signed and
  unsigned), floats, strings, binary, booleans, decimals in all three
  storages (INT32, INT64, FIXED_LEN_BYTE_ARRAY), dates, timestamps (local,
  UTC, raw INT96);
* INT96 timestamps written with ``use_deprecated_int96_timestamps``;
* the file with every feature on at once, through an explicit schema of the
  columns Spark has types for.

Values are compared exactly: Spark turns temporal values into integers
(``unix_date``, ``unix_micros``...) before they reach Python.  Types Spark
rejects (FLOAT16, UUID, INTERVAL, TIME, TIMESTAMP(NANOS), DECIMAL(76)) and
BROTLI (no codec in Spark's default build) are left out on purpose.
"""

from __future__ import annotations

import decimal

import numpy as np
import pytest

import parquet_core as pc
from tests.interop.writer_cases import (
    BY_KEY, Case, fkey, ints_maker, make_columns, pa_type, unscaled,
    write_everything,
)

pytestmark = pytest.mark.spark

N = 300

#: Spark SQL type of each case (what the built-in reader maps the Parquet type to).
SPARK_DDL = {
    "bool": "BOOLEAN", "i8": "TINYINT", "i16": "SMALLINT", "i32": "INT", "i64": "BIGINT",
    "u8": "SMALLINT", "u16": "INT", "u32": "BIGINT", "u64": "DECIMAL(20,0)",
    "f32": "FLOAT", "f64": "DOUBLE", "str": "STRING", "json": "STRING", "enum": "STRING",
    "bson": "BINARY", "bin": "BINARY", "fixed5": "BINARY",
    "dec7_2": "DECIMAL(7,2)", "dec18_4": "DECIMAL(18,4)", "dec5_2_w4": "DECIMAL(5,2)",
    "dec20_3": "DECIMAL(20,3)", "dec38_5": "DECIMAL(38,5)",
    "date": "DATE", "ts_ms": "TIMESTAMP_NTZ", "ts_us_utc": "TIMESTAMP", "int96": "TIMESTAMP",
    "null": "INT", "id": "BIGINT",
}
SPARK_CASES = [BY_KEY[k] for k in SPARK_DDL if k in BY_KEY]

VARIANTS = [
    dict(data_page_version="1.0", compression="snappy"),
    dict(data_page_version="2.0", compression="zstd"),
    dict(data_page_version="1.0", compression="gzip", use_dictionary=False),
    dict(data_page_version="2.0", compression="lz4_raw", encodings="delta"),
    dict(data_page_version="1.0", compression="lz4", encodings="delta"),
    dict(data_page_version="2.0", compression="none", encodings="split"),
    dict(data_page_version="1.0", compression="zstd", dictionary_pagesize_limit=128),
]

_DELTA = {"INT32": "delta_binary_packed", "INT64": "delta_binary_packed", "BOOLEAN": "rle", "INT96": "plain",
          "FIXED_LEN_BYTE_ARRAY": "delta_byte_array", "FLOAT": "byte_stream_split",
          "DOUBLE": "byte_stream_split"}
_SPLIT = {"INT32": "byte_stream_split", "INT64": "byte_stream_split", "FLOAT": "byte_stream_split",
          "DOUBLE": "byte_stream_split", "FIXED_LEN_BYTE_ARRAY": "byte_stream_split", "BOOLEAN": "plain"}


def _encodings(kind: str, version: str, cases: list[Case]) -> dict:
    out = {}
    for c in cases:
        if c.type.name == "null":
            continue
        if kind == "delta":
            enc = _DELTA.get(c.physical) or ("delta_byte_array" if version == "1.0"
                                             else "delta_length_byte_array")
        elif c.type.name.startswith("uint"):
            # Spark's vectorised BYTE_STREAM_SPLIT reader has no unsigned path
            # ("Cannot call the method readUnsignedIntegers"): a Spark limitation
            enc = "plain"
        else:
            enc = _SPLIT.get(c.physical, "plain")
        out[c.key] = enc
    return out


def _select(case: Case, name: str) -> str:
    q = f"`{name}`"
    if case.key == "date":
        return f"unix_date({q})"
    if case.key == "ts_ms":
        return f"unix_millis(cast({q} as timestamp))"          # session time zone is UTC
    if case.key in ("ts_us_utc", "int96") or case.options.get("use_deprecated_int96_timestamps"):
        return f"unix_micros({q})"
    return q


def _canon(v):
    if v is None:
        return None
    if isinstance(v, decimal.Decimal):
        return unscaled(v, -v.as_tuple().exponent)
    if isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, float):
        return fkey(v)
    return v


def _expected(case: Case, values: list, int96: bool = False) -> list:
    if case.key == "int96" or int96:
        return [None if v is None else v // 1000 for v in values]        # Spark keeps microseconds
    return values


def _collect(df, cases: list[Case], names: list[str]) -> list[tuple]:
    exprs = [f"{_select(c, n)} as `{n}`" for c, n in zip(cases, names)]
    return [tuple(_canon(v) for v in row) for row in df.selectExpr(*exprs).collect()]


def _check(rows: list[tuple], cases: list[Case], names: list[str], expected: dict, where: str,
           int96: bool = False) -> None:
    for j, (case, name) in enumerate(zip(cases, names)):
        got = [r[j] for r in rows]
        want = _expected(case, expected[name], int96)
        assert len(got) == len(want), f"{where} {name}: {len(got)} rows, expected {len(want)}"
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert not bad, (f"Spark {where}, column {name}: {len(bad)} values differ, first at row "
                         f"{bad[0]}: got {got[bad[0]]!r}, expected {want[bad[0]]!r}")


def _with_variant(cases, table, k):
    """Prepend `variant` and `id` columns (Spark returns rows in any order)."""
    from parquet_core.table.arrays import Array, Table

    n = table.num_rows
    fields = [pc.field("variant", pc.int32(), nullable=False), pc.field("id", pc.int64(), nullable=False),
              *table.schema.fields]
    cols = [Array(pc.int32(), np.full(n, k, np.int32)), Array(pc.int64(), np.arange(n, dtype=np.int64)),
            *table.columns]
    return Table(pc.schema(fields), cols, n)


def test_spark_reads_every_variant(spark, tmp_path):
    cases = SPARK_CASES
    names = [c.key for c in cases]
    paths, expected = [], {n: [] for n in names}
    for k, variant in enumerate(VARIANTS):
        opts = dict(variant)
        kind = opts.pop("encodings", None)
        if kind:
            opts["column_encoding"] = _encodings(kind, opts["data_page_version"], cases)
        table, exp = make_columns(cases, N, nulls=True, seed=100 + k)
        path = tmp_path / f"variant{k}.parquet"
        pc.write_table(_with_variant(cases, table, k), path, row_group_size=120, data_page_size=1024, **opts)
        paths.append(str(path))
        for n in names:
            expected[n].extend(exp[n])
    df = spark.read.parquet(*paths).orderBy("variant", "id")
    rows = _collect(df, cases, names)
    assert len(rows) == N * len(VARIANTS)
    _check(rows, cases, names, expected, "variants")


def test_spark_reads_int96_timestamps(spark, tmp_path):
    day_us = 86_400_000_000
    cases = [Case("ts", pc.timestamp("us", utc=True), "INT96",
                  ints_maker(np.int64, -200 * 365 * day_us, 200 * 365 * day_us, [0, -1, 1]),
                  pa_type("timestamp", "ns"), {"use_deprecated_int96_timestamps": True}),
             Case("local", pc.timestamp("ms"), "INT96",
                  ints_maker(np.int64, -10**12, 10**12, [0, 1]), pa_type("timestamp", "ns"),
                  {"use_deprecated_int96_timestamps": True})]
    table, expected = make_columns(cases, N, nulls=True, seed=7)
    path = tmp_path / "int96.parquet"
    pc.write_table(table, path, use_deprecated_int96_timestamps=True, compression="snappy")
    df = spark.read.parquet(str(path))
    assert [f.dataType.typeName() for f in df.schema] == ["timestamp", "timestamp"]
    rows = [tuple(_canon(v) for v in r)
            for r in df.selectExpr("unix_micros(ts)", "unix_micros(local)").collect()]
    _check(rows, cases, ["ts", "local"], expected, "INT96", int96=True)


def test_spark_reads_everything_on(spark, tmp_path):
    path = tmp_path / "everything.parquet"
    cases, names, expected = write_everything(path)
    keep = [(c, n) for c, n in zip(cases, names) if n in SPARK_DDL]
    ddl = ", ".join(f"`{n}` {SPARK_DDL[n]}" for _, n in keep)
    df = spark.read.schema(ddl).parquet(str(path)).orderBy("id")
    kc, kn = [c for c, _ in keep], [n for _, n in keep]
    rows = _collect(df, kc, kn)
    _check(rows, kc, kn, expected, "everything-on")


def test_spark_filters_with_our_page_index_and_bloom_filters(spark, tmp_path):
    """parquet-java filters our file with its statistics, column index (small pages) and Bloom filters.

    Spark pushes these predicates to parquet-java, which reads our ColumnIndex / OffsetIndex to skip
    pages and our split-block filters to skip row groups: a malformed index or filter would fail
    the read or lose rows.
    """
    n = 50_000
    rng = np.random.default_rng(12)
    keys = rng.permutation(n).astype(np.int64) * 31 + 7
    path = tmp_path / "indexed.parquet"
    pc.write_table({"id": np.arange(n), "key": keys, "s": np.array([f"s{i % 97}" for i in range(n)], dtype=object)},
                   path, row_group_size=10_000, data_page_size=1024,
                   bloom_filter_options={"key": {"fpp": 0.01}})
    df = spark.read.parquet(str(path))
    assert [r.id for r in df.filter("id = 31337").collect()] == [31337]
    assert df.filter("id >= 12000 and id < 12345").count() == 345
    k = int(keys[4242])
    assert [r.id for r in df.filter(f"key = {k}").collect()] == [4242]
    assert df.filter(f"key = {k + 1}").count() == 0
    assert df.filter("s = 's5' and id < 1000").count() == len([i for i in range(1000) if i % 97 == 5])
