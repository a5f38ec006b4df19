"""``pc.check`` finds no error in files written by us and by other writers.

Ours: every type of the write matrix (``tests/interop/writer_cases.py``) in
every encoding it allows, v1 and v2 pages, with and without nulls, with page
indexes, checksums, size statistics and Bloom filters; plus the all-features
file.  Others: pyarrow (same matrix through its own writer), duckdb, polars,
fastparquet.  Warnings are allowed only under a declared rule.
"""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.validation import RULES
from tests.interop.writer_cases import CASES, make_columns, options_for, to_arrow_table, write_everything

N = 400


def assert_clean(report: pc.CheckReport) -> None:
    errors = [str(f) for f in report.errors]
    assert report.readable and not errors, "\n".join(errors)
    for f in report.findings:
        assert f.rule in RULES, f


def _by_encoding() -> list[tuple[str, list]]:
    groups: dict[str, list] = {}
    for case in CASES:
        for enc in (("dict",) if case.dictionary else ()) + case.encodings:
            groups.setdefault(enc, []).append(case)
    return sorted(groups.items())


GROUPS = _by_encoding()


@pytest.mark.parametrize("nulls", [False, True], ids=["required", "nulls"])
@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("enc,cases", GROUPS, ids=[g for g, _ in GROUPS])
def test_our_write_matrix(tmp_path, enc, cases, version, nulls):
    # INT96 timestamps are a file-wide switch: keep those cases apart
    plain = [c for c in cases if not c.options]
    table, _ = make_columns(plain, N, nulls=nulls, seed=len(enc))
    names = [c.key for c in plain]
    enc_opts = {"use_dictionary": True} if enc == "dict" else {
        "use_dictionary": False, "column_encoding": {n: enc for n in names}}
    bloom = {c.key: True for c in plain if c.physical not in ("BOOLEAN",) and c.type.name != "null"}
    path = tmp_path / "m.parquet"
    pc.write_table(table, path, data_page_version=version, compression="snappy", data_page_size=512,
                   row_group_size=150, write_page_checksum=True, bloom_filter_options=bloom,
                   dictionary_pagesize_limit=256, **options_for(plain, **enc_opts))
    assert_clean(pc.check(path))


def test_our_int96_timestamps(tmp_path):
    cases = [c for c in CASES if c.options]
    table, _ = make_columns(cases, N, nulls=True, seed=7)
    path = tmp_path / "i.parquet"
    pc.write_table(table, path, **options_for(cases))
    assert_clean(pc.check(path))


def test_our_everything_file(tmp_path):
    path = tmp_path / "all.parquet"
    write_everything(path)
    report = pc.check(path)
    assert_clean(report)
    assert not report.warnings, [str(f) for f in report.warnings]


pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("dictionary", [True, False], ids=["dict", "plain"])
def test_pyarrow_written(tmp_path, version, dictionary):
    cases = [c for c in CASES if c.arrow is not None and not c.options and c.type.name not in ("null",)]
    table, _ = make_columns(cases, N, nulls=True, seed=3)
    at = to_arrow_table(cases, table)
    path = tmp_path / "pa.parquet"
    pq.write_table(at, path, data_page_version=version, use_dictionary=dictionary, write_page_index=True,
                   write_page_checksum=True, data_page_size=512, row_group_size=150,
                   sorting_columns=None, store_schema=True)
    assert_clean(pc.check(path))


def test_pyarrow_nested_bloom_sorted(tmp_path):
    n = 300
    rng = np.random.default_rng(1)
    ids = np.arange(n)
    lists = [None if i % 7 == 0 else [int(x) for x in rng.integers(0, 9, i % 4)] for i in range(n)]
    structs = [None if i % 5 == 0 else {"x": i, "s": None if i % 3 == 0 else f"s{i % 11}"} for i in range(n)]
    maps = [None if i % 6 == 0 else [("k", i), ("j", None)] for i in range(n)]
    t = pa.table({"id": ids, "l": lists, "st": structs,
                  "m": pa.array(maps, pa.map_(pa.string(), pa.int64())),
                  "f": rng.normal(size=n), "s": [f"v{i % 13}" for i in range(n)]})
    path = tmp_path / "nested.parquet"
    pq.write_table(t, path, write_page_index=True, data_page_size=256, row_group_size=100,
                   sorting_columns=[pq.SortingColumn(0)],
                   bloom_filter_options={"s": {"ndv": 20, "fpp": 0.05}, "id": True})
    assert_clean(pc.check(path))


def test_duckdb_written(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    duckdb.execute(f"""copy (select i, i::varchar || 'x' as s, [i, i + 1] as l, {{'a': i, 'b': 'q'}} as st,
                   case when i % 3 = 0 then null else i * 1.5 end as d, (i % 7)::decimal(10, 2) as dec,
                   [i, null, 3]::INTEGER[3] as arr,
                   date '2020-01-01' + i::int as dt, uuid() as u from range(5000) t(i))
                   to '{path}' (format parquet, row_group_size 2000)""")
    assert_clean(pc.check(path))


def test_polars_written(tmp_path):
    pl = pytest.importorskip("polars")
    path = tmp_path / "polars.parquet"
    df = pl.DataFrame({"i": list(range(3000)), "s": [f"x{i % 50}" if i % 9 else None for i in range(3000)],
                       "l": [[i, i] for i in range(3000)], "f": [i / 3 for i in range(3000)]})
    df.write_parquet(path, statistics=True, row_group_size=1000)
    assert_clean(pc.check(path))


def test_fastparquet_written(tmp_path):
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    path = tmp_path / "fp.parquet"
    df = pd.DataFrame({"i": np.arange(1000), "s": [f"x{i % 30}" for i in range(1000)],
                       "f": np.linspace(0, 1, 1000), "o": [None if i % 4 == 0 else f"o{i}" for i in range(1000)]})
    fastparquet.write(str(path), df, row_group_offsets=400, stats=True)
    report = pc.check(path)
    assert_clean(report)
    fixed = tmp_path / "fp_fixed.parquet"
    fastparquet.write(str(fixed), df[["s"]], fixed_text={"s": 3})
    report = pc.check(fixed)
    assert_clean(report)
    assert "schema.string-on-flba" in report.rules("warning")
