"""Which schema each name gives, against pyarrow's meaning of the same names.

pyarrow: ``ParquetFile.schema_arrow`` and ``read_schema`` are the table schema;
``FileMetaData.schema`` is the Parquet (leaf) schema.  Ours agree; our
``ParquetFile.schema`` is the table schema (pyarrow's is the Parquet schema),
and the Parquet schema is also ``ParquetFile.schema_descriptor``.
"""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.types import Schema


def _file() -> bytes:
    table = pa.table({
        "id": pa.array([1, 2, None], pa.int64()),
        "tags": pa.array([["a"], [], None], pa.list_(pa.string())),
        "point": pa.array([{"x": 1.0, "y": 2.0}, None, {"x": 3.0, "y": None}],
                          pa.struct([("x", pa.float64()), ("y", pa.float64())])),
    })
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def test_schema_names_match_pyarrow_meanings() -> None:
    data = _file()
    theirs = pq.ParquetFile(io.BytesIO(data))
    ours = pc.ParquetFile(data)
    # the table schema
    assert isinstance(ours.schema_arrow, Schema)
    assert ours.schema_arrow is ours.schema
    assert ours.schema_arrow.names == theirs.schema_arrow.names
    assert pc.read_schema(data).names == theirs.schema_arrow.names
    # the Parquet schema: one entry per leaf, same dotted paths
    assert isinstance(ours.metadata.schema, SchemaDescriptor)
    assert ours.schema_descriptor is ours.metadata.schema
    assert len(ours.metadata.schema) == len(theirs.metadata.schema) == len(theirs.schema)
    assert [c.dotted_path for c in ours.metadata.schema] == \
        [theirs.metadata.schema.column(i).path for i in range(len(theirs.metadata.schema))]
