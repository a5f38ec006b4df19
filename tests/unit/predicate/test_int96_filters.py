"""Filters on INT96 timestamps: exact rows, and pruning by INT96_TIMESTAMP_ORDER bounds.

Expected rows: the spec's order (parquet.thrift ColumnOrder: the day as a
signed LE int32, then the nanoseconds as a signed LE int64), computed here
with Python ints from the raw bytes; pyarrow's millisecond reading agrees
on every ordinary value (Spark's file also holds one garbage value, which
pyarrow wraps around and which only the spec's rule places).
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc

LITERALS = [dt.datetime(2024, 1, 1, 1, 0), dt.datetime(2024, 6, 1), dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
            dt.datetime(2024, 12, 30, 23, 0, tzinfo=dt.timezone.utc), np.datetime64("9999-12-31T03:00:00")]
OPS = ["<", "<=", "==", "!=", ">", ">="]


def _ms(v) -> int:
    if isinstance(v, np.datetime64):
        return int(v.astype("datetime64[ms]").astype(np.int64))
    v = v.replace(tzinfo=None) if v.tzinfo else v
    return (v - dt.datetime(1970, 1, 1)) // dt.timedelta(milliseconds=1)


_F = {"<": tuple.__lt__, "<=": tuple.__le__, "==": tuple.__eq__, "!=": tuple.__ne__,
      ">": tuple.__gt__, ">=": tuple.__ge__}


def _key(raw: bytes) -> tuple[int, int]:
    return int.from_bytes(raw[8:], "little", signed=True), int.from_bytes(raw[:8], "little", signed=True)


def _lit_key(lit) -> tuple[int, int]:
    day, ms = divmod(_ms(lit), 86_400_000)
    return day + 2_440_588, ms * 1_000_000


def _expected(path, op: str, lit) -> list[int]:
    arr = pc.read_table(path).columns[0]
    raws = [None if not ok else bytes(r) for r, ok in zip(arr.values, ~arr.is_null())]
    want = [i for i, r in enumerate(raws) if r is not None and _F[op](_key(r), _lit_key(lit))]
    # pyarrow agrees on every value inside datetime's range
    ms = pq.read_table(path, coerce_int96_timestamp_unit="ms").column(0).cast(pa.int64()).to_pylist()
    sane = [i for i, v in enumerate(ms) if v is not None and abs(v) < 253402300800000]
    f = {"<": int.__lt__, "<=": int.__le__, "==": int.__eq__, "!=": int.__ne__, ">": int.__gt__, ">=": int.__ge__}[op]
    assert [i for i in sane if f(ms[i], _ms(lit))] == [i for i in want if i in sane]
    return want


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("lit", LITERALS, ids=str)
def test_spark_file_rows_exact(corpus, op, lit):
    path = corpus / "int96_from_spark.parquet"
    table = pc.read_table(path, filters=[("a", op, lit)])
    full = pc.read_table(path).column("a").values
    got_rows = [bytes(r) for r in table.column("a").values]
    want = [bytes(full[i]) for i in _expected(path, op, lit)]
    assert got_rows == want


@pytest.fixture()
def int96_file(tmp_path):
    # three row groups of disjoint years, small pages: the bounds can prune both
    ts = [dt.datetime(y, m, 1, 12) for y in (1900, 2000, 2100) for m in range(1, 13)]
    ts[5] = None
    schema = pc.schema([pc.field("t", pc.timestamp("us"))])
    path = tmp_path / "int96.parquet"
    pc.write_table({"t": ts}, path, schema=schema, use_deprecated_int96_timestamps=True,
                   int96_statistics=True, row_group_size=12, data_page_row_count_limit=4)
    return path


@pytest.mark.parametrize("op,lit,groups", [
    (">", dt.datetime(2050, 1, 1), [2]),
    ("<", dt.datetime(1950, 1, 1), [0]),
    ("==", dt.datetime(2000, 3, 1, 12), [1]),
    (">=", dt.datetime(1800, 1, 1), [0, 1, 2]),
    ("==", dt.datetime(2000, 3, 1, 13), []),         # the page index: no page holds it
    ("<", dt.datetime(1800, 1, 1), []),
])
def test_written_bounds_prune(int96_file, op, lit, groups):
    pf = pc.ParquetFile(int96_file)
    report = pf.explain([("t", op, lit)])
    assert report.kept == groups
    got = pf.read(filters=[("t", op, lit)]).num_rows
    assert got == len(_expected(int96_file, op, lit))


def test_written_page_index_prunes_pages(int96_file):
    pf = pc.ParquetFile(int96_file)
    report = pf.explain(pc.col("t") == dt.datetime(2000, 3, 1, 12))
    _, _, plans = __import__("parquet_core.file.pushdown", fromlist=["x"]).plan_row_groups(
        pf.planner, pc.col("t") == dt.datetime(2000, 3, 1, 12))
    assert report.kept == [1] and plans[0].rows is not None
    assert int(plans[0].rows.sum()) == 4          # one page of four rows


def test_int96_needs_a_datetime(corpus):
    with pytest.raises(ValueError):
        pc.read_table(corpus / "int96_from_spark.parquet", filters=[("a", ">", 5)])
