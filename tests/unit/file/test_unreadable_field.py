"""A top-level group the reader cannot lay out (here a MAP-annotated group without a
repeated field): the file opens, its schema shows the field, the other fields read, and
any read that asks for the field raises ParquetSchemaError saying why (never an empty or
placeholder column)."""

from __future__ import annotations

import io
import struct
from typing import Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse, serialize


def _broken_map_file(row_groups: bool = True) -> bytes:
    table = pa.table({"id": [1, 2, 3], "s": pa.array([{"a": 1}, {"a": 2}, {"a": 3}])})
    if not row_groups:
        table = table.slice(0, 0)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    data = sink.getvalue()
    (flen,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - flen
    meta, _ = parse(data[start:-8], pt.FileMetaData)
    group = next(el for el in meta.schema if el.name == "s")
    group.logicalType = pt.LogicalType(MAP=pt.MapType())     # its one child is not repeated
    footer = serialize(meta)
    return data[:start] + footer + struct.pack("<I", len(footer)) + b"PAR1"


def test_the_other_fields_read() -> None:
    pf = pc.ParquetFile(_broken_map_file())
    assert pf.schema_arrow.names == ["id", "s"]
    assert pf.read(columns=["id"]).column("id").to_pylist() == [1, 2, 3]
    assert [b.num_rows for b in pf.iter_batches(columns=["id"])] == [3]


@pytest.mark.parametrize("read", [
    lambda pf: pf.read(),
    lambda pf: pf.read(columns=["s"]),
    lambda pf: pf.read(columns=["s.a"]),
    lambda pf: pf.read_row_group(0),
    lambda pf: pf.read(filters=[("id", ">", 1)]),
    lambda pf: list(pf.iter_batches()),
], ids=["read", "columns", "leaf", "row group", "filtered", "batches"])
def test_reading_the_field_says_why(read: Callable[[pc.ParquetFile], object]) -> None:
    pf = pc.ParquetFile(_broken_map_file())
    with pytest.raises(pc.ParquetSchemaError, match="MAP-annotated group 's'") as info:
        read(pf)
    assert "in the schema, field s" in getattr(info.value, "__notes__", [])   # the file's field name


def test_no_row_groups_still_refuses_the_field() -> None:
    pf = pc.ParquetFile(_broken_map_file(row_groups=False))
    assert pf.read(columns=["id"]).num_rows == 0
    with pytest.raises(pc.ParquetSchemaError, match="MAP-annotated group 's'"):
        pf.read(columns=["s"])


def test_each_read_raises_its_own_error() -> None:
    pf = pc.ParquetFile(_broken_map_file())
    errors = []
    for _ in range(2):
        with pytest.raises(pc.ParquetSchemaError) as info:
            pf.read()
        errors.append(info.value)
    assert errors[0] is not errors[1]
    assert errors[0].__notes__ == errors[1].__notes__
