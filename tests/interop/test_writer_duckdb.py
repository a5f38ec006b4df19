"""duckdb, a third independent reader, reads what the writer produces.

A representative set: every type in one file (v1/v2, dictionary on/off),
every non-dictionary encoding (v1/v2), every codec (v1/v2), and the file
with every feature on at once.  Values are compared exactly: temporal
columns are turned into integers inside duckdb (``epoch_*``, date
differences, the text of TIME values), intervals into their parts.

duckdb limitations, so left out (not writer defects): the BSON converted
type ("Unsupported converted type (20)"), and BYTE_STREAM_SPLIT on
FIXED_LEN_BYTE_ARRAY (duckdb decodes it for FLOAT, DOUBLE, INT32, INT64
only).  DECIMAL(76) is read by duckdb as DOUBLE, so it is compared
approximately.
"""

from __future__ import annotations

import math
import struct

import pytest

import parquet_core as pc
from tests.interop.writer_cases import (
    BY_KEY, CASES, CODECS, EVERYTHING_CASES, Case, fkey, make_columns,
    options_for, unscaled, write_everything,
)

duckdb = pytest.importorskip("duckdb")

N = 300
DUCK_CASES = [c for c in CASES if c.key != "bson"]


def _time_units(text: str, unit: str) -> int:
    """'HH:MM:SS[.fraction][+zone]' -> count of *unit* since midnight."""
    clock = text.split("+")[0].split("-")[0]
    hms, _, frac = clock.partition(".")
    h, m, s = (int(x) for x in hms.split(":"))
    ns = ((h * 60 + m) * 60 + s) * 10**9 + int((frac + "000000000")[:9])
    return ns // {"ms": 10**6, "us": 10**3, "ns": 1}[unit]


def _select(case: Case, name: str) -> str:
    """The SQL expression that brings the column to its canonical form inside duckdb."""
    q = f'"{name}"'
    t = case.type.name
    if t == "date":
        return f"({q} - DATE '1970-01-01')"
    if t == "time":
        return f"CAST({q} AS VARCHAR)"
    if t == "int96" or case.options.get("use_deprecated_int96_timestamps"):
        return f"epoch_us({q})"                      # duckdb keeps INT96 to the microsecond
    if t == "timestamp":
        return f"epoch_{case.type.unit}({q})"
    if t == "interval":
        return (f"[datepart('year', {q}) * 12 + datepart('month', {q}), datepart('day', {q}), "
                f"datepart('hour', {q}) * 3600000000 + datepart('minute', {q}) * 60000000 "
                f"+ datepart('microseconds', {q})]")
    return q


def _canon(case: Case, v):
    """duckdb's Python value -> the canonical form (see writer_cases)."""
    t = case.type.name
    if v is None or (t == "interval" and v[0] is None):
        return None
    if t == "time":
        return _time_units(v, case.type.unit)
    if t == "interval":
        months, days, micros = v
        return struct.pack("<III", months, days, micros // 1000)
    if t == "decimal":
        return unscaled(v, case.type.scale) if not isinstance(v, float) else v
    if t in ("float16", "float32", "float64"):
        return fkey(v)
    if t == "uuid":
        return v.bytes
    if isinstance(v, str):
        return v.encode()
    return v


def _expected(case: Case, values: list) -> list:
    if case.type.name == "int96" or case.options.get("use_deprecated_int96_timestamps"):
        return [None if v is None else v // 1000 for v in values]
    if case.type.name == "decimal" and case.type.precision > 38:
        return [None if v is None else v / 10**case.type.scale for v in values]
    return values


def assert_duckdb_reads(path, cases: list[Case], expected: dict, names: list[str] | None = None) -> None:
    names = names or [c.key for c in cases]
    sql = "select " + ", ".join(_select(c, n) for c, n in zip(cases, names)) + " from read_parquet(?)"
    rows = duckdb.execute(sql, [str(path)]).fetchall()
    for j, (case, name) in enumerate(zip(cases, names)):
        got = [_canon(case, r[j]) for r in rows]
        want = _expected(case, expected[name])
        assert len(got) == len(want), f"duckdb {name}: {len(got)} rows, expected {len(want)}"
        if case.type.name == "decimal" and case.type.precision > 38:
            bad = [i for i, (a, b) in enumerate(zip(got, want))
                   if (a is None) != (b is None) or (a is not None and not math.isclose(a, b, rel_tol=1e-12))]
        else:
            bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert not bad, (f"duckdb column {name}: {len(bad)} values differ, first at row {bad[0]}: "
                         f"got {got[bad[0]]!r}, expected {want[bad[0]]!r}")


@pytest.mark.parametrize("dictionary", [True, False], ids=["dict", "nodict"])
@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_duckdb_reads_every_type(tmp_path, version, dictionary):
    cases = [c for c in DUCK_CASES if not c.options]
    table, expected = make_columns(cases, N, nulls=True, seed=31)
    path = tmp_path / "types.parquet"
    pc.write_table(table, path, data_page_version=version, use_dictionary=dictionary, data_page_size=2048)
    assert_duckdb_reads(path, cases, expected)


def test_duckdb_reads_int96_timestamps(tmp_path):
    cases = [BY_KEY["ts_us_as_int96"]]
    table, expected = make_columns(cases, N, nulls=True, seed=32)
    path = tmp_path / "int96.parquet"
    pc.write_table(table, path, **options_for(cases))
    assert_duckdb_reads(path, cases, expected)


_DUCK_UNSUPPORTED = {("FIXED_LEN_BYTE_ARRAY", "byte_stream_split")}
ENCODINGS = ["plain", "rle", "delta_binary_packed", "delta_length_byte_array", "delta_byte_array",
             "byte_stream_split"]


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_duckdb_reads_every_encoding(tmp_path, encoding, version):
    cases = [c for c in DUCK_CASES if not c.options and encoding in c.encodings
             and (c.physical, encoding) not in _DUCK_UNSUPPORTED and c.type.name != "null"]
    table, expected = make_columns(cases, N, nulls=True, seed=33)
    path = tmp_path / "enc.parquet"
    pc.write_table(table, path, data_page_version=version, data_page_size=1024,
                   column_encoding={c.key: encoding for c in cases})
    assert_duckdb_reads(path, cases, expected)


CODEC_CASES = [BY_KEY[k] for k in ("bool", "i32", "i64", "f64", "str", "bin", "fixed5", "dec38_5",
                                   "ts_ns_utc", "date")]


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("codec", CODECS)
def test_duckdb_reads_every_codec(tmp_path, codec, version):
    table, expected = make_columns(CODEC_CASES, N, nulls=True, seed=34)
    path = tmp_path / "codec.parquet"
    pc.write_table(table, path, compression=codec, data_page_version=version, data_page_size=1024)
    assert_duckdb_reads(path, CODEC_CASES, expected)


def test_duckdb_reads_dictionary_fallback_and_row_groups(tmp_path):
    cases = [BY_KEY[k] for k in ("str", "i64", "f64", "dec18_4")]
    table, expected = make_columns(cases, 3000, nulls=True, seed=35)
    path = tmp_path / "fb.parquet"
    pc.write_table(table, path, dictionary_pagesize_limit=256, data_page_size=512, row_group_size=700)
    assert_duckdb_reads(path, cases, expected)


def test_duckdb_reads_everything_on(tmp_path):
    path = tmp_path / "everything.parquet"
    cases, names, expected = write_everything(path)
    assert len(cases) == len(EVERYTHING_CASES) + 1       # the id column
    assert_duckdb_reads(path, cases, expected, names)
    kv = dict(duckdb.execute("select decode(key), decode(value) from parquet_kv_metadata(?)",
                             [str(path)]).fetchall())
    assert kv.get("origin") == "parquet-core writer tests"
