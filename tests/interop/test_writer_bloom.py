"""Bloom filters written by our writer, checked by other implementations.

* duckdb's ``parquet_bloom_probe`` reads our filters: it never excludes a row
  group holding the value, and excludes most row groups for absent values;
* pyarrow (which writes split-block filters too) inserts the same values into
  a filter of the same size: the bitsets must be identical byte for byte;
* our own reader finds every value, and the measured false-positive rate
  stays near the requested one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.bloom_filter import optimal_num_bytes, parse_filter

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")


def _bitset(path: Path, row_group: int, column: int) -> bytes:
    meta = pq.read_metadata(path).row_group(row_group).column(column).to_dict()
    raw = Path(path).read_bytes()
    off, length = meta["bloom_filter_offset"], meta["bloom_filter_length"]
    bf, _ = parse_filter(raw, off, off + length)
    return bf.bitset()


def _probe(path: Path, column: str, value) -> list[bool]:
    rows = duckdb.execute("select row_group_id, bloom_filter_excludes from parquet_bloom_probe(?, ?, ?)"
                          " order by row_group_id", [str(path), column, value]).fetchall()
    return [excl for _, excl in rows]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    rng = np.random.default_rng(5)
    n = 30_000
    table = {
        "i64": rng.integers(0, 10**12, n),                       # distinct: dictionary falls back
        "i32": rng.integers(0, 500, n).astype(np.int32),         # few values: dictionary covers the chunk
        "f64": rng.standard_normal(n),
        "s": np.array([f"key-{k}" for k in rng.integers(0, 5000, n)], dtype=object),
    }
    path = tmp_path_factory.mktemp("bloom") / "b.parquet"
    pc.write_table(table, path, row_group_size=10_000, dictionary_pagesize_limit=16_384,
                   bloom_filter_options={"i64": True, "i32": {"fpp": 0.01}, "f64": True,
                                         "s": {"fpp": 0.02}})
    return path, table


def test_duckdb_finds_present_values_and_excludes_absent_ones(written):
    path, table = written
    rng = np.random.default_rng(1)
    for rg in range(3):
        part = {k: v[rg * 10_000:(rg + 1) * 10_000] for k, v in table.items()}
        for v in rng.choice(part["i64"], 20):
            assert _probe(path, "i64", int(v))[rg] is False
        for v in rng.choice(part["s"], 20):
            assert _probe(path, "s", str(v))[rg] is False
    absent_int = [int(v) for v in rng.integers(10**12, 2 * 10**12, 200)]
    absent_str = [f"nope-{k}" for k in range(200)]
    excluded = sum(sum(_probe(path, "i64", v)) for v in absent_int) + \
        sum(sum(_probe(path, "s", v)) for v in absent_str)
    assert excluded >= 0.9 * 2 * 200 * 3, excluded


def test_our_reader_finds_every_value_and_fpp_is_near_the_target(written):
    path, table = written
    pf = pc.ParquetFile(path)
    for rg in range(3):
        part = {k: v[rg * 10_000:(rg + 1) * 10_000] for k, v in table.items()}
        for col in table:
            bf = pf.bloom_filter(rg, col)
            assert bf is not None
            assert bool(np.all(bf.check(part[col] if col != "s" else list(part[col]))))
        bf = pf.bloom_filter(rg, "i32")
        absent = np.arange(1000, 101_000, dtype=np.int32)
        assert float(np.mean(bf.check(absent))) < 0.03   # requested 1 %
    assert pc.read_table(path).num_rows == 30_000
    assert pq.read_table(path).column("s").to_pylist() == list(table["s"])


def test_filters_are_sized_for_each_chunks_exact_distinct_count(written):
    path, table = written
    md = pq.read_metadata(path)
    for rg in range(3):
        part = table["i32"][rg * 10_000:(rg + 1) * 10_000]
        ndv = len(np.unique(part))
        assert len(_bitset(path, rg, 1)) == optimal_num_bytes(ndv, 0.01)
        part = table["s"][rg * 10_000:(rg + 1) * 10_000]
        assert len(_bitset(path, rg, 3)) == optimal_num_bytes(len(set(part)), 0.02)
        assert md.row_group(rg).column(0).to_dict()["bloom_filter_length"] > 0


@pytest.mark.parametrize("kind", ["int64", "int32", "double", "string", "binary16"])
def test_bitset_identical_to_pyarrows_for_the_same_values_and_size(tmp_path, kind):
    rng = np.random.default_rng(11)
    n = 5000
    arrays = {
        "int64": pa.array(rng.integers(-10**15, 10**15, n)),
        "int32": pa.array(rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)),
        "double": pa.array(rng.standard_normal(n)),
        "string": pa.array([f"s{k}" * int(k % 7) for k in rng.integers(0, 10**6, n)]),
        "binary16": pa.array([bytes(r) for r in rng.integers(0, 256, (n, 16), dtype=np.uint8)],
                             pa.binary(16)),
    }
    at = pa.table({"x": arrays[kind]})
    theirs = tmp_path / "pa.parquet"
    pq.write_table(at, theirs, use_dictionary=False, bloom_filter_options={"x": {"ndv": n, "fpp": 0.05}})
    size = len(_bitset(theirs, 0, 0))
    ours = tmp_path / "pc.parquet"
    # same size: a cap of their size with an ndv that asks for more
    pc.write_table(at, ours, bloom_filter_options={"x": {"ndv": 10 * n, "fpp": 0.05, "max_bytes": size}})
    assert _bitset(ours, 0, 0) == _bitset(theirs, 0, 0)


def test_bloom_options_are_checked_before_writing(tmp_path):
    schema = pc.schema([pc.field("b", pc.bool_()), pc.field("x", pc.int64())])
    cases = [({"b": True}, "BOOLEAN"), ({"y": True}, "no column"), ({"x": {"nvd": 3}}, "unknown key"),
             ({"x": {"fpp": 1.5}}, "between 0 and 1"), ({"x": {"max_bytes": 8}}, "at least 32"),
             ({"x": "yes"}, "bool or a dict")]
    for opts, msg in cases:
        with pytest.raises((ValueError, TypeError), match=msg):
            pc.ParquetWriter(tmp_path / "x.parquet", schema, bloom_filter_options=opts)
    assert list(tmp_path.iterdir()) == []


def test_no_filter_unless_asked(tmp_path):
    path = tmp_path / "n.parquet"
    pc.write_table({"x": np.arange(100)}, path)
    assert pq.read_metadata(path).row_group(0).column(0).to_dict()["bloom_filter_offset"] is None
    assert pc.ParquetFile(path).bloom_filter(0, "x") is None
