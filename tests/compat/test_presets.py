"""Writer presets: ``compatible_with=`` picks options the target reads and refuses the rest."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.metadata.features import load_table

pq = pytest.importorskip("pyarrow.parquet")


def _spark_measured() -> bool:
    return "logical.FLOAT16" in load_table()["readers"].get("spark", {}).get("features", {})


def test_spark_stores_microseconds(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    schema = pc.schema([pc.field("t", pc.timestamp("ns"))])
    pc.write_table({"t": [dt.datetime(2020, 1, 1, 1, 2, 3, 4)]}, str(path), schema=schema,
                   compatible_with="spark-3.5")
    assert str(pq.read_schema(path).field("t").type) == "timestamp[us]"
    assert pq.read_table(path).column("t").to_pylist() == [dt.datetime(2020, 1, 1, 1, 2, 3, 4)]


def test_spark_refuses_sub_microsecond_digits(tmp_path: Path) -> None:
    schema = pc.schema([pc.field("t", pc.timestamp("ns"))])
    with pytest.raises(pc.ParquetSchemaError):
        pc.write_table({"t": [pc.NanoDatetime(2020, 1, 1, nanosecond=5)]}, str(tmp_path / "t.parquet"),
                       schema=schema, compatible_with="spark")
    assert not (tmp_path / "t.parquet").exists()


def test_explicit_option_the_target_lacks_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.parquet"
    # parquet-java reads BYTE_STREAM_SPLIT on INT64 from 1.14 (Spark 4.0), not Spark 3.5's 1.13.1
    with pytest.raises(ValueError, match="compatible_with='spark-3.5'.*BYTE_STREAM_SPLIT.int64"):
        pc.write_table({"i": [1, 2]}, str(path), column_encoding="byte_stream_split",
                       compatible_with="spark-3.5")
    assert not path.exists()
    pc.write_table({"i": [1, 2]}, str(path), column_encoding="byte_stream_split", compatible_with="spark-4.0")
    assert pq.read_table(path).column("i").to_pylist() == [1, 2]
    with pytest.raises(ValueError, match="codec.LZO"):        # pyarrow has no LZO codec
        pc.write_table({"i": [1]}, str(path), compression="lzo", compatible_with="pyarrow")


def test_column_type_the_target_lacks_is_refused(tmp_path: Path) -> None:
    # the package ships the table: a missing measurement is a defect of it, not a reason to skip
    assert _spark_measured(), "parquet_core/_data/compat_table.json lost its Spark measurement"
    schema = pc.schema([pc.field("h", pc.float16())])
    with pytest.raises(pc.ParquetSchemaError, match="logical.FLOAT16"):
        pc.write_table({"h": [1.5]}, str(tmp_path / "h.parquet"), schema=schema, compatible_with="spark-3.5")
    pc.write_table({"h": [1.5]}, str(tmp_path / "h.parquet"), schema=schema, compatible_with="pyarrow")


def test_unknown_target(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="compatible_with"):
        pc.write_table({"i": [1]}, str(tmp_path / "x.parquet"), compatible_with="oracle-9")
