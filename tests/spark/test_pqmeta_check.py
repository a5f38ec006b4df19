"""``format("pqmeta").option("level", "check")``: the validator over every file of a folder."""

from __future__ import annotations

import os
import shutil

import pytest

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

CORRUPT = "rle-dict-uncompressed-corrupt-checksum.parquet"


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    data = os.environ.get("PARQUET_TEST_DATA")
    if not data or not os.path.exists(os.path.join(data, CORRUPT)):
        pytest.skip("PARQUET_TEST_DATA with the corrupt-checksum file is needed")
    root = tmp_path_factory.mktemp("lake")
    for i in range(2):
        pq.write_table(pa.table({"x": list(range(i, i + 50))}), root / f"clean-{i}.parquet")
    shutil.copy(os.path.join(data, CORRUPT), root / "corrupt.parquet")
    (root / "junk.parquet").write_bytes(b"not a parquet file at all")
    return root


def _expect(rows):
    by_file = {}
    for r in rows:
        by_file.setdefault(os.path.basename(r["path"]), []).append(r)
    # clean files written by pyarrow: one ok row each
    for name in ("clean-0.parquet", "clean-1.parquet"):
        (row,) = by_file[name]
        assert row["severity"] == "ok" and row["ok"] is True and row["readable"] is True
    # parquet-testing documents both columns' page CRCs as wrong in this file
    crc = [r for r in by_file["corrupt.parquet"] if r["rule"] == "pages.crc"]
    assert sorted(r["column_path"] for r in crc) == ["binary_field", "long_field"]
    assert all(r["severity"] == "error" and r["ok"] is False for r in crc)
    # no Parquet magic: not readable at all, and said so as an error
    junk = by_file["junk.parquet"]
    assert junk and all(r["readable"] is False for r in junk)
    assert any(r["severity"] == "error" for r in junk)


def test_check_rows_without_spark(lake):
    from spark_adapter.pqmeta.rows import level_rows

    rows = [r for p in sorted(lake.iterdir()) for r in level_rows("check", str(p), {"checkLevel": "pages"})]
    _expect(rows)


@pytest.mark.spark
def test_pqmeta_check_level_sweeps_a_folder(pqcore_spark, lake):
    df = (pqcore_spark.read.format("pqmeta").option("level", "check").option("checkLevel", "pages")
          .load(str(lake)))
    rows = [r.asDict() for r in df.collect()]
    _expect(rows)
    assert {r["check_level"] for r in rows} == {"pages"}
