"""``pqc check`` on valid files that pyarrow, duckdb, polars and fastparquet write with unusual options.

No error, and no warning the spec does not support (``tests/check/real_writers.py``
says which are allowed and why); the writer bugs found are named rules
(``writers.*``).  Each writer's files are checked together; every rule hit is
tallied and printed (``pytest -s`` or ``-rA`` shows the table).  Spark's files:
``tests/spark/test_check_spark_written.py``.
"""

from __future__ import annotations

import itertools

import pytest

from tests.check.real_writers import HITS, N, assert_spec_clean, columns, summary

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def arrow_table(n: int = N):
    c = columns(n)
    types = {"dec": pa.decimal128(9, 2), "m": pa.map_(pa.string(), pa.int64()), "null_s": pa.string(),
             "null_i": pa.int32(), "i32": pa.int32(), "b": pa.binary(), "ts": pa.timestamp("us")}
    t = pa.table({k: pa.array(v, types.get(k)) for k, v in c.items()})
    fixed = pa.array([bytes([i % 256, 7]) for i in range(n)], pa.binary(2))
    return t.append_column("fx", fixed)


#: pyarrow options, each a file: codecs, page versions, dictionary on/off, tiny pages, page index,
#: CRC, encodings, Bloom filters, sorting columns, format versions, content-defined chunking.
PYARROW_CASES = {
    "none-v1-format-1.0": dict(compression="none", version="1.0"),
    "snappy-v2-plain-crc": dict(use_dictionary=False, data_page_version="2.0", write_page_checksum=True),
    "gzip-v1-plain-index": dict(compression="gzip", use_dictionary=False, write_page_index=True),
    "brotli-v2-format-2.4": dict(compression="brotli", data_page_version="2.0", version="2.4"),
    "zstd-decimal-as-int-no-stats": dict(compression="zstd", store_decimal_as_integer=True, write_statistics=False,
                                         write_page_index=True),
    "lz4-v2-cdc": dict(compression="lz4", data_page_version="2.0", use_content_defined_chunking=True),
    "tiny-pages-index-v1": dict(data_page_size=64, write_batch_size=1, write_page_index=True),
    "tiny-pages-index-v2": dict(data_page_size=64, write_batch_size=7, write_page_index=True,
                                data_page_version="2.0", write_page_checksum=True),
    "tiny-pages-plain-index": dict(data_page_size=32, use_dictionary=False, write_page_index=True,
                                   max_rows_per_page=9),
    "tiny-dict-fallback": dict(dictionary_pagesize_limit=16, data_page_size=128, write_page_index=True),
    "delta-encodings": dict(use_dictionary=False, write_page_index=True,
                            column_encoding={"i64": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
                                             "s": "DELTA_BYTE_ARRAY", "b": "DELTA_LENGTH_BYTE_ARRAY",
                                             "ls.list.element": "DELTA_BYTE_ARRAY", "fx": "DELTA_BYTE_ARRAY"}),
    "byte-stream-split-v2": dict(use_dictionary=False, use_byte_stream_split=["f64", "i64", "fx"],
                                 data_page_version="2.0"),
    "bloom-sorted-small-row-groups": dict(
        bloom_filter_options={"s": {"ndv": 10}, "i64": {"ndv": 50, "fpp": 0.01}, "b": {"ndv": 8}},
        sorting_columns=[pq.SortingColumn(0)], row_group_size=40, write_page_index=True, write_page_checksum=True),
}

#: Options that make a page per row or so: written with fewer columns, to keep the test fast.
NARROW = {"tiny-pages-index-v1": ["i64", "li", "m"], "tiny-pages-index-v2": ["i64", "s", "li", "ls", "m", "st"],
          "tiny-pages-plain-index": ["i64", "s", "li", "ls", "m", "st"]}


def test_pyarrow_files(tmp_path):
    t = arrow_table()
    files = {}
    for name, opts in PYARROW_CASES.items():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(t.select(NARROW[name]) if name in NARROW else t, path, **opts)
        files[f"pyarrow:{name}"] = path
    for name, opts in {"empty": {}, "empty-plain-index": dict(use_dictionary=False, write_page_index=True),
                       "empty-v2-bloom": dict(data_page_version="2.0", bloom_filter_options={"s": {"ndv": 10}})}.items():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(t.slice(0, 0), path, **opts)
        files[f"pyarrow:{name}"] = path
    path = tmp_path / "all-null.parquet"
    pq.write_table(pa.table({"n": pa.nulls(N), "s": pa.nulls(N, pa.string()),
                             "l": pa.nulls(N, pa.list_(pa.int32()))}), path, write_page_index=True)
    files["pyarrow:all-null"] = path
    assert_spec_clean(files)


DUCKDB_SELECT = """
    select i::bigint as i64, case when i % 5 = 0 then null else (i * 7) % 50 - 25 end::int as i32,
           case when i % 9 = 0 then null else i / 3 end::double as f64, i % 3 = 0 as flag,
           case when i % 11 = 0 then null else ['alpha', 'alphabet', 'beta', '', 'gamma'][i % 5 + 1] end as s,
           (i * 3 - 100)::decimal(9, 2) as dec, date '2020-01-01' + i::int as day,
           case when i % 7 = 0 then null else range(i % 5) end as li,
           {'a': i, 't': case when i % 3 = 0 then null else 't' || (i % 4) end} as st,
           map(['k' || (i % 3)], [i]) as m, null::varchar as null_s, null::int as null_i,
           uuid() as u, i::hugeint * 1000000000000 as h, (i % 7)::float as fl,
           case when i % 4 = 0 then 'nan'::double else i / 7 end as nan_d
    from range({n}) t(i)
"""

#: duckdb COPY options, each a file: codecs, format versions, small row groups, dictionary off, Bloom.
DUCKDB_CASES = {
    **{f"codec-{c}": f"compression {c}" for c in ("uncompressed", "snappy", "gzip", "zstd", "lz4", "brotli")},
    "v2": "parquet_version v2",
    "v2-zstd-small-rg": "parquet_version v2, compression zstd, row_group_size 16",
    "small-row-groups": "row_group_size 10",
    "no-dictionary": "dictionary_size_limit 1",
    "bloom-off": "write_bloom_filter false",
    "page-size": "string_dictionary_page_size_limit 16, row_group_size 40",
}


def test_duckdb_files(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    files = {}
    con = duckdb.connect()
    for name, opts in DUCKDB_CASES.items():
        path = tmp_path / f"{name}.parquet"
        con.execute(f"copy ({DUCKDB_SELECT.replace('{n}', str(N))}) to '{path}' (format parquet, {opts})")
        files[f"duckdb:{name}"] = path
    # one row: a chunk of one NaN, which duckdb counts as a distinct value
    for name, n, opts in (("empty", 0, ""), ("one-row", 1, ", dictionary_size_limit 1")):
        path = tmp_path / f"{name}.parquet"
        con.execute(f"copy ({DUCKDB_SELECT.replace('{n}', str(n))}) to '{path}' (format parquet{opts})")
        files[f"duckdb:{name}"] = path
    assert_spec_clean(files)


def test_polars_files(tmp_path):
    pl = pytest.importorskip("polars")
    df = pl.from_arrow(arrow_table().drop_columns(["m", "fx"]))
    files = {}
    for codec, stats, rg, page in (("uncompressed", True, None, None), ("snappy", False, 40, 256),
                                   ("gzip", True, 50, None), ("brotli", "full", None, 128),
                                   ("zstd", True, 30, 64), ("lz4", True, None, None)):
        path = tmp_path / f"{codec}.parquet"
        df.write_parquet(path, compression=codec, statistics=stats, row_group_size=rg, data_page_size=page)
        files[f"polars:{codec}-stats={stats}-rg={rg}-page={page}"] = path
    path = tmp_path / "tiny-pages.parquet"   # page statistics with bounds on all-null pages
    df.select(["i32", "s", "li"]).write_parquet(path, row_group_size=7, data_page_size=32)
    files["polars:tiny-pages"] = path
    path = tmp_path / "empty.parquet"
    df.head(0).write_parquet(path)
    files["polars:empty"] = path
    path = tmp_path / "all-null.parquet"
    pl.DataFrame({"n": pl.Series([None] * N, dtype=pl.Int64), "s": pl.Series([None] * N, dtype=pl.String),
                  "l": pl.Series([None] * N, dtype=pl.List(pl.Int32))}).write_parquet(path)
    files["polars:all-null"] = path
    assert_spec_clean(files)


def test_fastparquet_files(tmp_path):
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    c = columns()
    df = pd.DataFrame({k: c[k] for k in ("i64", "f64", "flag", "s", "day", "ts")})
    df["day"] = pd.to_datetime(df["day"])
    df["i32"] = pd.array(c["i32"], dtype="Int32")
    df["null_s"] = pd.Series([None] * N, dtype=object)
    # unsigned and non-ASCII values: signed and unsigned order disagree on their extremes
    df["u64"] = np.array([i if i % 2 else 2**63 + i for i in range(N)], dtype=np.uint64)
    df["u16"] = np.arange(N, dtype=np.uint16)
    df["name"] = [["Ana", "Émile", "bob", "Zoë"][i % 4] for i in range(N)]
    files = {}
    for name, kw in {
        "default": {},
        "gzip-rg": dict(compression="GZIP", row_group_offsets=30),
        "zstd-int96": dict(compression="ZSTD", times="int96"),
        "brotli-no-stats": dict(compression="BROTLI", stats=False),
        "all-stats": dict(stats=True),
        "lz4-no-nulls-flag": dict(compression="LZ4", has_nulls=["s", "null_s", "i32", "f64"]),
        "lz4-raw-zstd": dict(compression={"s": "ZSTD", "_default": "LZ4_RAW"}),
        "bytes-utf8": dict(object_encoding={"s": "utf8", "null_s": "utf8", "name": "utf8"}),
        "fixed-text": dict(fixed_text={"s": 8}, object_encoding={"s": "utf8", "null_s": "utf8", "name": "utf8"}),
    }.items():
        path = tmp_path / f"{name}.parquet"
        frame = df.fillna({"s": ""}) if name == "fixed-text" else df
        fastparquet.write(str(path), frame, **kw)
        files[f"fastparquet:{name}"] = path
    path = tmp_path / "empty.parquet"
    fastparquet.write(str(path), df.iloc[:0])
    files["fastparquet:empty"] = path
    assert_spec_clean(files)


def test_print_rules_hit():
    """The tally of the tests above (run them together to see it all)."""
    print(summary())
    assert all(rule for rule in HITS)
