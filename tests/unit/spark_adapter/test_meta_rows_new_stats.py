"""The pqmeta row builders (pure Python, no Spark): nan_count, column orders, geospatial statistics."""

from __future__ import annotations

import os

import pytest

import parquet_core as pc
from spark_adapter.pqmeta.rows import column_rows, schema_rows

DATA = os.environ.get("PARQUET_TEST_DATA", "")


def test_orders_and_nan_counts(tmp_path):
    path = tmp_path / "f.parquet"
    pc.write_table({"x": [1.0, float("nan"), 2.0]}, path, float_column_order="ieee754_total_order")
    pf = pc.ParquetFile(path)
    row = column_rows(str(path), pf, {})[0]
    assert row["nan_count"] == 1 and row["column_order"] == "IEEE_754_TOTAL_ORDER"
    assert [r["column_order"] for r in schema_rows(str(path), pf, {}) if r["column_path"]] == ["IEEE_754_TOTAL_ORDER"]
    assert pf.metadata.row_group(0).column(0).to_dict()["nan_count"] == 1


@pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "geospatial")), reason="corpus not available")
def test_geospatial_columns():
    path = os.path.join(DATA, "geospatial", "crs-default.parquet")
    rows = column_rows(path, pc.ParquetFile(path), {})
    geo = [r for r in rows if r["column_path"] == "geometry"][0]
    # the values Arrow C++ stored (pyarrow's geo_statistics)
    assert geo["geospatial_types"] == [3]
    assert (geo["geo_bbox"]["xmin"], geo["geo_bbox"]["xmax"], geo["geo_bbox"]["ymin"], geo["geo_bbox"]["ymax"]) \
        == (-111.0, -104.0, 41.0, 45.0)
    assert geo["geo_bbox"]["zmin"] is None
