"""Conversion of a validated table to its file types: exact, or refused naming the row,
or truncated toward zero when allowed (pyarrow 26's rounding: -1001 ns -> -1 us)."""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.schema.file_types import file_schema
from parquet_core.table.file_values import to_file_table

NS = pc.timestamp("ns")


def _table(values, dt=NS):
    return pc.Table(pc.schema([pc.field("t", dt)]),
                    [pc.Array(dt, np.array([0 if v is None else v for v in values], dtype=np.int64),
                              np.array([v is not None for v in values]))])


def test_exact_values_change_unit():
    t = _table([1_000, None, -5_000])
    out = to_file_table(t, file_schema(t.schema, coerce_timestamps="us"))
    assert out.schema.field(0).type == pc.timestamp("us")
    assert out.column(0).values[[0, 2]].tolist() == [1, -5]
    assert out.column(0).validity.tolist() == [True, False, True]


def test_lossy_value_names_column_and_row_and_hint():
    t = _table([1_000, None, 2_500, 7])
    with pytest.raises(pc.ParquetSchemaError, match="column 't', row 2") as info:
        to_file_table(t, file_schema(t.schema, version="2.4"), hint="use the option")
    assert info.value.__notes__ == ["use the option"]


def test_null_slots_never_count_as_lossy():
    t = pc.Table(pc.schema([pc.field("t", NS)]),
                 [pc.Array(NS, np.array([1_000, 1_234], dtype=np.int64), np.array([True, False]))])
    out = to_file_table(t, file_schema(t.schema, version="2.4"))
    assert out.column(0).to_pylist()[1] is None


def test_truncation_is_toward_zero():
    t = _table([-1_001, -1_999, 1_999, -1, None])
    out = to_file_table(t, file_schema(t.schema, coerce_timestamps="us"), allow_truncated_timestamps=True)
    assert out.column(0).values[:4].tolist() == [-1, -1, 1, 0]


def test_uint32_widens_exactly():
    dt = pc.uint32()
    t = pc.Table(pc.schema([pc.field("u", dt)]), [pc.Array(dt, np.array([0, 2**32 - 1], dtype=np.uint32))])
    out = to_file_table(t, file_schema(t.schema, version="1.0"))
    assert out.column(0).values.dtype == np.int64 and out.column(0).values.tolist() == [0, 2**32 - 1]
