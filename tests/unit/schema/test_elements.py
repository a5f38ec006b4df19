"""Schema -> SchemaElement list: the read path's inverse, and what pyarrow writes."""

from __future__ import annotations

import io
import struct

import pytest

from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.schema import build as b
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.schema.types import DataType
from parquet_core.thrift import pt, serialize

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

#: Every writable type; the pyarrow equivalent where pyarrow can write it.
TYPES = [
    (b.null(), pa.null()), (b.bool_(), pa.bool_()),
    (b.int8(), pa.int8()), (b.int16(), pa.int16()), (b.int32(), pa.int32()),
    (b.int64(), pa.int64()), (b.uint8(), pa.uint8()), (b.uint16(), pa.uint16()),
    (b.uint32(), pa.uint32()), (b.uint64(), pa.uint64()),
    (b.float16(), pa.float16()), (b.float32(), pa.float32()), (b.float64(), pa.float64()),
    (b.string(), pa.string()), (b.binary(), pa.binary()), (b.json_(), pa.json_()),
    (b.bson(), None), (b.enum(), None), (b.interval(), None), (b.int96(), None),
    (b.fixed_size_binary(1), pa.binary(1)), (b.fixed_size_binary(13), pa.binary(13)),
    (b.uuid(), pa.uuid()),
    (b.decimal(1, 0), pa.decimal128(1, 0)), (b.decimal(9, 9), pa.decimal128(9, 9)),
    (b.decimal(10, 2), pa.decimal128(10, 2)), (b.decimal(18, 3), pa.decimal128(18, 3)),
    (b.decimal(19, 0), pa.decimal128(19, 0)), (b.decimal(38, 20), pa.decimal128(38, 20)),
    (b.decimal(39, 1), pa.decimal256(39, 1)), (b.decimal(76, 5), pa.decimal256(76, 5)),
    (b.decimal(4, 1, byte_width=2), None), (b.decimal(20, 1, byte_width=16), None),
    (DataType("decimal", precision=40, scale=2), None),  # BYTE_ARRAY, as the reader returns it
    (b.date32(), pa.date32()),
    (b.time32("ms"), pa.time32("ms")), (b.time64("us"), pa.time64("us")),
    (b.time64("ns"), pa.time64("ns")),
    (b.time("ms", utc=True), None), (b.time("us", utc=True), None), (b.time("ns", utc=True), None),
    (b.timestamp("ms"), pa.timestamp("ms")), (b.timestamp("us"), pa.timestamp("us")),
    (b.timestamp("ns"), pa.timestamp("ns")), (b.timestamp("ms", "UTC"), pa.timestamp("ms", "UTC")),
    (b.timestamp("us", "UTC"), pa.timestamp("us", "UTC")),
    (b.timestamp("ns", "UTC"), pa.timestamp("ns", "UTC")),
    (b.timestamp("us", "Asia/Tokyo"), pa.timestamp("us", "Asia/Tokyo")),
]


def _schema(types, nullable=True):  # type: ignore[no-untyped-def]
    return b.schema([b.field(f"c{i}", dt, nullable or dt.name == "null")
                     for i, (dt, _) in enumerate(types)])


@pytest.mark.parametrize("nullable", [True, False])
def test_read_path_gives_back_every_type(nullable: bool) -> None:
    s = _schema(TYPES, nullable)
    els = schema_to_elements(s)
    assert els[0].name == "schema" and els[0].num_children == len(TYPES)
    assert els[0].type is None and els[0].repetition_type is None
    desc = SchemaDescriptor(els)
    assert len(desc) == len(TYPES)
    for f, col in zip(s, desc):
        assert col.path == (f.name,)
        assert col.data_type == f.type, f
        want = Repetition.OPTIONAL if f.nullable else Repetition.REQUIRED
        assert col.repetition == want and col.max_definition_level == int(f.nullable)
        assert col.max_repetition_level == 0


def test_int96_timestamps_read_back_as_int96() -> None:
    s = b.schema([("a", b.timestamp("ms")), ("b", b.timestamp("ns", "UTC")), ("c", b.date32())])
    els = schema_to_elements(s, int96_timestamps=True)
    for el in els[1:3]:
        assert el.type == PhysicalType.INT96 and el.logicalType is None and el.converted_type is None
    assert [c.data_type for c in SchemaDescriptor(els)] == [b.int96(), b.int96(), b.date32()]


def test_errors() -> None:
    from parquet_core.schema.types import Field, Schema

    with pytest.raises(ValueError, match="duplicate"):
        schema_to_elements(Schema([Field("a", b.int8()), Field("a", b.int8())]))
    with pytest.raises(ValueError):
        schema_to_elements(Schema([Field("a", DataType("nested"))]))
    with pytest.raises(ValueError, match="nullable"):
        schema_to_elements(Schema([Field("a", b.null(), nullable=False)]))
    with pytest.raises(TypeError):
        schema_to_elements([Field("a", b.int8())])  # type: ignore[arg-type]


_COMPARED = ("type", "type_length", "repetition_type", "converted_type", "scale", "precision",
             "logicalType", "num_children", "field_id")


def _pyarrow_elements(arrow_types, **kw):  # type: ignore[no-untyped-def]
    from parquet_core import read_metadata

    fields = [pa.field(f"c{i}", t) for i, t in enumerate(arrow_types)]
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([], schema=pa.schema(fields)), buf, **kw)
    return read_metadata(buf.getvalue()).raw.schema


def _is_local_time(dt) -> bool:  # type: ignore[no-untyped-def]
    return dt.name == "time" and dt.tz is None and dt.unit in ("ms", "us")


def test_elements_match_pyarrow() -> None:
    """pyarrow 2.6 with integer decimals writes the same leaves, apart from one documented case.

    pyarrow writes no converted type for a local (not UTC-adjusted) TIME in
    ms/us; LogicalTypes.md's forward-compatibility table says writers must
    write TIME_MILLIS / TIME_MICROS for those too, so we do.
    """
    pairs = [(dt, at) for dt, at in TYPES if at is not None]
    theirs = _pyarrow_elements([at for _, at in pairs], version="2.6",
                               store_decimal_as_integer=True)
    ours = schema_to_elements(_schema(pairs))
    assert theirs[0].num_children == ours[0].num_children
    for (dt, _), mine, other in zip(pairs, ours[1:], theirs[1:]):
        for attr in _COMPARED:
            a, o = getattr(mine, attr), getattr(other, attr)
            if attr == "converted_type" and _is_local_time(dt):
                assert o is None
                assert a == (ConvertedType.TIME_MILLIS if dt.unit == "ms" else ConvertedType.TIME_MICROS)
                continue
            assert a == o, (dt, attr, a, o)


def test_fixed_width_decimals_match_pyarrow_default() -> None:
    """pyarrow's default stores every decimal as the narrowest FIXED_LEN_BYTE_ARRAY."""
    precisions = list(range(1, 77))
    theirs = _pyarrow_elements([pa.decimal128(p, p // 3) if p <= 38 else pa.decimal256(p, p // 3)
                                for p in precisions])
    ours = schema_to_elements(b.schema([
        (f"c{p}", b.decimal(p, p // 3, byte_width=b.decimal_byte_width(p))) for p in precisions]))
    for mine, other in zip(ours[1:], theirs[1:]):
        for attr in _COMPARED:
            assert getattr(mine, attr) == getattr(other, attr), (mine.name, attr)


def test_int96_elements_match_pyarrow() -> None:
    units = ["ms", "us", "ns"]
    theirs = _pyarrow_elements([pa.timestamp(u) for u in units] + [pa.timestamp("us", "UTC")],
                               use_deprecated_int96_timestamps=True)
    ours = schema_to_elements(b.schema([(f"c{i}", b.timestamp(u)) for i, u in enumerate(units)]
                                       + [("c3", b.timestamp("us", "UTC"))]),
                              int96_timestamps=True)
    for mine, other in zip(ours[1:], theirs[1:]):
        for attr in _COMPARED:
            assert getattr(mine, attr) == getattr(other, attr), (mine.name, attr)


def test_spec_annotations_pyarrow_cannot_write() -> None:
    """ENUM, BSON, INTERVAL and UTC-adjusted TIME, straight from LogicalTypes.md."""
    s = b.schema([("e", b.enum()), ("b", b.bson()), ("i", b.interval()),
                  ("t1", b.time("ms", utc=True)), ("t2", b.time("us", utc=True)),
                  ("t3", b.time("ns", utc=True))])
    e, bs, iv, t1, t2, t3 = schema_to_elements(s)[1:]
    assert (e.type, e.converted_type, e.logicalType) == (
        PhysicalType.BYTE_ARRAY, ConvertedType.ENUM, pt.LogicalType(ENUM=pt.EnumType()))
    assert (bs.type, bs.converted_type, bs.logicalType) == (
        PhysicalType.BYTE_ARRAY, ConvertedType.BSON, pt.LogicalType(BSON=pt.BsonType()))
    assert (iv.type, iv.type_length, iv.converted_type, iv.logicalType) == (
        PhysicalType.FIXED_LEN_BYTE_ARRAY, 12, ConvertedType.INTERVAL, None)
    assert (t1.type, t1.converted_type) == (PhysicalType.INT32, ConvertedType.TIME_MILLIS)
    assert (t2.type, t2.converted_type) == (PhysicalType.INT64, ConvertedType.TIME_MICROS)
    assert (t3.type, t3.converted_type) == (PhysicalType.INT64, None)
    assert t1.logicalType.TIME.isAdjustedToUTC and t3.logicalType.TIME.unit.NANOS is not None


def test_byte_array_decimal() -> None:
    (el,) = schema_to_elements(b.schema([("d", DataType("decimal", precision=40, scale=2))]))[1:]
    assert (el.type, el.type_length, el.converted_type, el.scale, el.precision) == (
        PhysicalType.BYTE_ARRAY, None, ConvertedType.DECIMAL, 2, 40)
    assert el.logicalType == pt.LogicalType(DECIMAL=pt.DecimalType(scale=2, precision=40))


def _footer_only_file(elements) -> bytes:  # type: ignore[no-untyped-def]
    meta = pt.FileMetaData(version=2, schema=elements, num_rows=0, row_groups=[])
    footer = serialize(meta)
    return b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1"


def test_pyarrow_reads_our_schema_as_its_own() -> None:
    """pyarrow derives the same Arrow schema from our elements as from the ones it writes."""
    pairs = [(dt, at) for dt, at in TYPES if at is not None]
    ours = pq.read_schema(io.BytesIO(_footer_only_file(schema_to_elements(_schema(pairs)))))
    buf = io.BytesIO()
    fields = [pa.field(f"c{i}", at) for i, (_, at) in enumerate(pairs)]
    pq.write_table(pa.Table.from_pylist([], schema=pa.schema(fields)), buf, version="2.6",
                   store_decimal_as_integer=True, store_schema=False)
    theirs = pq.read_schema(io.BytesIO(buf.getvalue()))
    assert ours.remove_metadata() == theirs.remove_metadata()
