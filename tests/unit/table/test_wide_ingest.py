"""Wide tables (issue 32): building a table against a schema, or dropping columns, looks at
the schema's names once, not once per column (a 500-column write rebuilt the name list 500
times)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import parquet_core as pc
from parquet_core.schema.types import Schema
from parquet_core.table.ingest import as_table


@pytest.fixture()
def counted(monkeypatch):
    calls = {"n": 0}
    original = Schema.names

    def names(self):
        calls["n"] += 1
        return original.fget(self)
    monkeypatch.setattr(Schema, "names", property(names))
    return calls


def _schema(n):
    return pc.Table.from_pydict({f"c{i}": np.zeros(3) for i in range(n)}).schema


def test_build_against_schema_reads_names_a_fixed_number_of_times(counted):
    schema = _schema(40)
    counted["n"] = 0
    t = as_table({f"c{i}": np.arange(3.0) + i for i in range(40)}, schema)
    assert counted["n"] <= 3
    expected = pa.table({f"c{i}": np.arange(3.0) + i for i in range(40)})
    assert t.to_arrow().equals(expected)


def test_build_against_schema_still_refuses_an_extra_column():
    with pytest.raises(pc.ParquetSchemaError, match="'zz' is in the data but not in the schema"):
        as_table({"c0": np.zeros(3), "c1": np.zeros(3), "zz": np.zeros(3)}, _schema(2))


def test_drop_reads_names_a_fixed_number_of_times(counted):
    t = pc.Table.from_pydict({f"c{i}": np.arange(3) for i in range(40)})
    counted["n"] = 0
    out = t.drop([f"c{i}" for i in range(0, 40, 2)])
    assert counted["n"] <= 3
    assert out.column_names == [f"c{i}" for i in range(1, 40, 2)]
    with pytest.raises(KeyError, match="no such columns"):
        t.drop(["nope"])
