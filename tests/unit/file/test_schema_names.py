"""Which schema each name gives, against pyarrow's meaning of the same names.

pyarrow: ``ParquetFile.schema`` and ``FileMetaData.schema`` are the Parquet
(leaf) schema; ``ParquetFile.schema_arrow`` and ``read_schema`` are the table
schema.  Ours agree (``ParquetFile.schema_descriptor`` is another name for the
Parquet schema).  The Parquet schema's API (``names``, ``column(i)``, ``len``,
``equals``, ``to_arrow_schema``) is checked against pyarrow's ``ParquetSchema``
on files pyarrow writes and on the conformance corpus.
"""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetError
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.types import Schema


def _write(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def _file() -> bytes:
    return _write(pa.table({
        "id": pa.array([1, 2, None], pa.int64()),
        "tags": pa.array([["a"], [], None], pa.list_(pa.string())),
        "point": pa.array([{"x": 1.0, "y": 2.0}, None, {"x": 3.0, "y": None}],
                          pa.struct([("x", pa.float64()), ("y", pa.float64())])),
    }))


def _nested() -> bytes:
    return _write(pa.table({
        "a": pa.array([1], pa.int32()),
        "s": pa.array([{"x": 1, "y": [1, 2]}]),
        "l": pa.array([[1]]),
        "m": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int32())),
        "d": pa.array([1], pa.decimal128(5, 2)),
        "f": pa.array([b"ab"], pa.binary(2)),
        "ll": pa.array([[[1, None], None]], pa.list_(pa.list_(pa.int8()))),
    }))


def _flat() -> bytes:
    return _write(pa.table({"i": [1, 2], "s": ["a", None], "b": [True, False],
                            "t": pa.array([1, 2], pa.timestamp("ms"))}))


def test_schema_names_match_pyarrow_meanings() -> None:
    data = _file()
    theirs = pq.ParquetFile(io.BytesIO(data))
    ours = pc.ParquetFile(data)
    # the table schema
    assert isinstance(ours.schema_arrow, Schema)
    assert ours.schema_arrow.names == theirs.schema_arrow.names
    assert pc.read_schema(data).names == theirs.schema_arrow.names
    # the Parquet schema, under both of pyarrow's names for it
    assert isinstance(theirs.schema, pq.ParquetSchema)
    assert isinstance(ours.schema, SchemaDescriptor)
    assert ours.schema is ours.metadata.schema
    assert ours.schema_descriptor is ours.schema
    assert len(ours.schema) == len(theirs.metadata.schema) == len(theirs.schema)
    assert [c.dotted_path for c in ours.schema] == \
        [theirs.schema.column(i).path for i in range(len(theirs.schema))]


def _assert_like_pyarrow(data: bytes) -> None:
    ours = pc.ParquetFile(data).schema
    theirs = pq.ParquetFile(io.BytesIO(data)).schema
    assert len(ours) == len(theirs)
    assert ours.names == theirs.names   # leaf names, not dotted paths
    for i in range(len(theirs)):
        mine, col = ours.column(i), theirs.column(i)
        assert mine.name == col.name
        assert mine.dotted_path == col.path
        assert PhysicalType(mine.physical_type).name == col.physical_type
        assert mine.max_definition_level == col.max_definition_level
        assert mine.max_repetition_level == col.max_repetition_level
    # to_arrow_schema: the table schema, the same as schema_arrow, named as pyarrow's
    table_schema = ours.to_arrow_schema()
    assert isinstance(table_schema, Schema)
    assert table_schema == pc.ParquetFile(data).schema_arrow
    assert table_schema is ours.to_arrow_schema()   # built once
    assert table_schema.names == theirs.to_arrow_schema().names


@pytest.mark.parametrize("make", [_flat, _file, _nested])
def test_parquet_schema_api_matches_pyarrow(make) -> None:  # type: ignore[no-untyped-def]
    _assert_like_pyarrow(make())


def test_parquet_schema_api_matches_pyarrow_on_corpus(corpus: Path) -> None:
    checked = 0
    for path in sorted(corpus.glob("*.parquet")):
        data = path.read_bytes()
        try:
            _ = pq.ParquetFile(io.BytesIO(data)).schema
            _ = pc.ParquetFile(data).schema_arrow
        except (pa.ArrowException, OSError, ParquetError):
            continue   # files one side cannot open are the corpus tests' business
        _assert_like_pyarrow(data)
        checked += 1
    assert checked > 20


def test_equality_follows_pyarrow() -> None:
    a, b, c = _nested(), _nested(), _flat()
    ours = [pc.ParquetFile(x).schema for x in (a, b, c)]
    theirs = [pq.ParquetFile(io.BytesIO(x)).schema for x in (a, b, c)]
    assert (ours[0] == ours[1]) is theirs[0].equals(theirs[1]) is True
    assert (ours[0] == ours[2]) is theirs[0].equals(theirs[2]) is False
    assert ours[0].equals(ours[1]) and not ours[0].equals(ours[2])
    assert hash(ours[0]) == hash(ours[1])
    assert ours[0] != "not a schema"
    with pytest.raises(TypeError):
        ours[0].equals("not a schema")  # type: ignore[arg-type]


def test_repr_shows_the_tree_as_pyarrow_prints_it() -> None:
    data = _nested()
    text = repr(pc.ParquetFile(data).schema)
    theirs = str(pq.ParquetFile(io.BytesIO(data)).schema)
    theirs = theirs[theirs.index("\n") + 1:]   # pyarrow's first line is the object's address
    # same lines once pyarrow's field ids and its annotation spelling are set aside
    def shape(s: str) -> list[tuple[int, str, str, str]]:
        out = []
        for line in s.strip().splitlines():
            words = [w for w in line.split() if not w.startswith("field_id=")]
            if words == ["}"]:
                out.append((len(line) - len(line.lstrip()), "}", "", ""))
                continue
            out.append((len(line) - len(line.lstrip()), words[0], words[1], words[2].rstrip(";")))
        return out
    assert shape(text) == shape(theirs)
