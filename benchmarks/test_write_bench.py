"""Smoke tests for the write benchmark harness (no timing assertions, ever).

The default ``pytest`` run collects these with the suite (``testpaths``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchmarks import _harness, read_bench_data, write_bench
from benchmarks import write_variants as wv
from benchmarks.write_check import check_layout, check_values, enc_label, page_layout

STATUSES = {"ok", "FAILED", "WRONG", "LAYOUT", "n/a"}


def _variant(name: str) -> wv.WriteVariant:
    return next(v for v in wv.ALL_VARIANTS if v.name == name)


@pytest.fixture(scope="module")
def source() -> pa.Table:
    return read_bench_data.make_table(3000, seed=3).combine_chunks()


def test_engines_get_the_same_settings() -> None:
    for v in wv.ALL_VARIANTS:
        pc = wv.pc_options(v, 1000, True)
        pa_ = wv.pa_options(v, 1000, True)
        assert set(pc) == set(pa_)
        for k in pc:
            if k == "column_encoding":
                assert {c: e.upper() for c, e in pc[k].items()} == pa_[k]
            else:
                assert pc[k] == pa_[k], (v.name, k)
        if not v.use_dictionary:  # every column's encoding spelled out
            assert set(pc["column_encoding"]) == set(read_bench_data.COLUMNS)
        assert pc.get("compression_level") == wv.LEVELS[v.compression]


def test_fastparquet_options_say_what_it_cannot_do() -> None:
    for name in ("delta_binary_packed", "byte_stream_split", "rle_bool", "dict_snappy_v2", "dict_lz4"):
        kw, note = wv.fp_options(_variant(name), 1000)
        assert kw is None and "cannot" in note
    kw, _ = wv.fp_options(_variant("plain_zstd"), 1000)
    assert kw is not None and kw["stats"] is True


def test_check_values_catches_changed_value_and_null(source: pa.Table, tmp_path: Path) -> None:
    good = tmp_path / "good.parquet"
    pq.write_table(source, good)
    assert check_values(good, source)[0]
    i = source.column_names.index("int64")
    vals = source.column("int64").to_pylist()
    vals[17] += 1
    bad = tmp_path / "bad.parquet"
    pq.write_table(source.set_column(i, "int64", pa.array(vals, pa.int64())), bad)
    ok, detail, _ = check_values(bad, source)
    assert not ok and "int64" in detail and "row 17" in detail
    j = source.column_names.index("str_low")
    strs = source.column("str_low").to_pylist()
    strs[5] = None
    nulled = tmp_path / "nulled.parquet"
    pq.write_table(source.set_column(j, "str_low", pa.array(strs, pa.string())), nulled)
    ok, detail, _ = check_values(nulled, source)
    assert not ok and "row 5" in detail


def test_check_values_accepts_categorical_strings(source: pa.Table, tmp_path: Path) -> None:
    import fastparquet

    p = tmp_path / "fp.parquet"
    kw, _ = wv.fp_options(_variant("dict_snappy"), 1 << 20)
    fastparquet.write(str(p), wv.fp_frame(source, dictionary=True), **kw)
    assert check_values(p, source)[0]
    assert check_layout(page_layout(p), _variant("dict_snappy")) == (True, "ok")


def test_check_layout_against_pyarrow_files(source: pa.Table, tmp_path: Path) -> None:
    p = tmp_path / "bss.parquet"
    v = _variant("byte_stream_split")
    pq.write_table(source, p, **wv.pa_options(v, 1 << 20, True))
    layout = page_layout(p)
    assert check_layout(layout, v) == (True, "ok")
    assert enc_label(layout["float64"]) == "BSS"
    ok, detail = check_layout(layout, _variant("plain_none"))
    assert not ok and "BYTE_STREAM_SPLIT" in detail  # asked for PLAIN
    assert not check_layout(layout, _variant("plain_zstd"))[0]  # codec
    assert not check_layout(layout, _variant("plain_none_v2"))[0]  # page version
    d = tmp_path / "dict.parquet"
    pq.write_table(source, d, **wv.pa_options(_variant("dict_none"), 1 << 20, True))
    assert not check_layout(page_layout(d), _variant("plain_none"))[0]  # dictionary when off


@pytest.mark.slow
def test_end_to_end_smoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no garbage collection before each timed call (see test_read_bench): no time is looked at
    monkeypatch.setattr(_harness.gc, "collect", lambda *a: 0)
    out = tmp_path / "w.json"
    res = write_bench.main(["--rows", "3000", "--repeats", "1", "--cache-dir", str(tmp_path / "c"),
                            "--out-dir", str(tmp_path / "o"), "--json", str(out),
                            "--per-column", "dict_snappy", "--profile", "worst"])
    loaded = json.loads(out.read_text())
    assert [v["name"] for v in loaded["variants"]] == [v.name for v in wv.VARIANTS]
    rows = res["variants"] + res["per_column"]["rows"]
    assert len(res["per_column"]["rows"]) == len(read_bench_data.COLUMNS)
    for row in rows:
        for e, cell in row["engines"].items():
            assert cell["status"] in STATUSES, (e, cell)
            if cell["status"] != "ok":
                assert cell.get("error")
            if e in ("pa1", "paMT"):  # the reference writer always passes its own checks
                assert cell["status"] == "ok", cell
                assert cell["check"]["status"] == "ok"
    assert not list((tmp_path / "o").glob("*.parquet"))  # written files are removed
    if res["inputs"] and not res["inputs"].get("error"):
        assert {r["input"] for r in res["inputs"]["rows"]} == set(write_bench.INPUT_KINDS)
