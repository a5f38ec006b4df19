"""The Spark mapping names a Spark type for every TypeId, without pyspark.

Names as Spark's ``DataType.jsonValue()`` spells them; the choices follow
Spark 4's built-in Parquet reader (see ``spark_adapter.core.types``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from parquet_core.schema.types import DataType, TypeId as T
from spark_adapter.core.types import UnsupportedSparkType, spark_type_name

from tests._support.type_samples import SAMPLES

SPARK = {
    T.NULL: "void", T.BOOL: "boolean", T.INT8: "byte", T.INT16: "short", T.INT32: "integer",
    T.INT64: "long", T.UINT8: "short", T.UINT16: "integer", T.UINT32: "long", T.UINT64: "decimal(20,0)",
    T.FLOAT16: "float", T.FLOAT32: "float", T.FLOAT64: "double", T.DATE: "date", T.TIME: "time(6)",
    T.TIMESTAMP: "timestamp", T.INT96: "timestamp", T.DECIMAL: "decimal(9,2)",
    T.STRING: "string", T.JSON: "string", T.ENUM: "string",
    T.BINARY: "binary", T.BSON: "binary", T.GEOMETRY: "binary", T.GEOGRAPHY: "binary",
    T.FIXED_SIZE_BINARY: "binary", T.UUID: "binary", T.INTERVAL: "binary",
    T.LIST: "array", T.MAP: "map", T.STRUCT: "struct",
    T.VARIANT: None, T.NESTED: None,
}


def test_every_type_id_has_a_row() -> None:
    assert set(SPARK) == set(T)


@pytest.mark.parametrize("tid", list(T), ids=str)
def test_spark_type_name(tid: T) -> None:
    dt = SAMPLES[tid][0]
    if SPARK[tid] is None:
        with pytest.raises(UnsupportedSparkType, match="'c'"):
            spark_type_name(dt, "c")
    else:
        assert spark_type_name(dt, "c") == SPARK[tid]


def test_parameters() -> None:
    assert spark_type_name(DataType("timestamp", unit="ns")) == "timestamp_ntz"
    assert spark_type_name(DataType("time", unit="ms")) == "time(3)"
    assert spark_type_name(DataType("decimal", precision=38, scale=0)) == "decimal(38,0)"
    with pytest.raises(UnsupportedSparkType, match="at most 38 digits"):
        spark_type_name(DataType("decimal", precision=39, scale=0))
    with pytest.raises(UnsupportedSparkType, match="time unit"):
        spark_type_name(DataType("time", unit="s"))


def test_importing_the_mapping_needs_no_pyspark() -> None:
    code = "import sys, spark_adapter.core.types; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[3])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
