"""Arrow C Data Interface input that is malformed, or holds values our types cannot,
is refused with a ParquetError naming the column (never read past its buffers)."""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.arrow_c import ArrayNode, SchemaNode, export_stream
from parquet_core.errors import ParquetFormatError, ParquetSchemaError


class Producer:
    def __init__(self, column: SchemaNode, array: ArrayNode, length: int):
        self.schema = SchemaNode("+s", "", 0, children=[column])
        self.batch = ArrayNode(length, 0, [None], [array])

    def __arrow_c_stream__(self, requested_schema=None):
        return export_stream(self.schema, iter([self.batch]))


def _ints(*values: int) -> ArrayNode:
    return ArrayNode(len(values), 0, [None, np.array(values, "<i8")])


def _strings(*values: bytes, fmt_offsets: str = "<i4") -> ArrayNode:
    offsets = np.cumsum([0] + [len(v) for v in values]).astype(fmt_offsets)
    return ArrayNode(len(values), 0, [None, offsets, np.frombuffer(b"".join(values) or b"\0", np.uint8)])


@pytest.mark.parametrize("column, array, match", [
    (SchemaNode("+l", "c", 2), ArrayNode(1, 0, [None, np.array([0, 1], "<i4")]), "children"),
    (SchemaNode("+m", "c", 2, children=[SchemaNode("l", "e")]),
     ArrayNode(1, 0, [None, np.array([0, 1], "<i4")], [_ints(1)]), "key and value"),
    (SchemaNode("d:x,2", "c", 2), _ints(1), "number"),
    (SchemaNode("d:5,2,100", "c", 2), _ints(1), "decimal"),
    (SchemaNode("l", "c", 2), ArrayNode(3, 0, [None, None]), "NULL"),
    (SchemaNode("i", "c", 2, dictionary=SchemaNode("u", "")), ArrayNode(1, 0, [None, np.zeros(1, "<i4")]),
     "dictionary"),
])
def test_malformed_input_is_a_format_error(column, array, match):
    with pytest.raises(ParquetFormatError, match=match):
        pc.as_table(Producer(column, array, array.length))


def test_a_batch_with_missing_columns():
    producer = Producer(SchemaNode("l", "c", 2), _ints(1), 1)
    producer.batch = ArrayNode(1, 0, [None], [])
    with pytest.raises(ParquetFormatError, match="columns"):
        pc.as_table(producer)


def test_a_view_pointing_outside_its_buffers():
    view = np.zeros(16, np.uint8)
    view[0:4] = np.frombuffer(np.int32(20).tobytes(), np.uint8)       # 20 bytes: not inline
    view[12:16] = np.frombuffer(np.int32(10).tobytes(), np.uint8)     # at offset 10 of buffer 0
    data = np.zeros(16, np.uint8)                                     # ... which holds 16
    array = ArrayNode(1, 0, [None, view, data, np.array([16], "<i8")])
    with pytest.raises(ParquetFormatError, match="outside"):
        pc.as_table(Producer(SchemaNode("vz", "c", 2), array, 1))


def test_values_our_types_cannot_hold():
    with pytest.raises(ParquetSchemaError, match="UTF-8"):
        pc.as_table(Producer(SchemaNode("u", "c", 2), _strings(b"ok", b"\xff\xfe"), 2))
    with pytest.raises(ParquetSchemaError, match="overflows"):
        pc.as_table(Producer(SchemaNode("tss:", "c", 2), _ints(1, 2**62), 2))
    with pytest.raises(ParquetSchemaError, match="out of range"):
        dictionary = _strings(b"a")
        indices = ArrayNode(2, 0, [None, np.array([0, 3], "<i4")], dictionary=dictionary)
        pc.as_table(Producer(SchemaNode("i", "c", 2, dictionary=SchemaNode("u", "")), indices, 2))


def test_nulls_in_a_non_nullable_column():
    validity = np.packbits([True, False], bitorder="little")
    array = ArrayNode(2, 1, [validity, np.array([1, 0], "<i8")])
    with pytest.raises(ParquetSchemaError, match="non-nullable"):
        pc.as_table(Producer(SchemaNode("l", "c", 0), array, 2))
    assert pc.as_table(Producer(SchemaNode("l", "c", 2), array, 2)).column("c").to_pylist() == [1, None]
