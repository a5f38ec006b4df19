"""Type factories, field() and schema(): parameters, validation, pyarrow naming."""

from __future__ import annotations

import io
import math

import pytest

from parquet_core.schema import build as b
from parquet_core.schema.types import DataType, Field, Schema

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_plain_factories() -> None:
    for fn, name in [(b.null, "null"), (b.bool_, "bool"), (b.int8, "int8"), (b.int16, "int16"),
                     (b.int32, "int32"), (b.int64, "int64"), (b.uint8, "uint8"),
                     (b.uint16, "uint16"), (b.uint32, "uint32"), (b.uint64, "uint64"),
                     (b.float16, "float16"), (b.float32, "float32"), (b.float64, "float64"),
                     (b.string, "string"), (b.utf8, "string"), (b.binary, "binary"),
                     (b.json_, "json"), (b.bson, "bson"), (b.enum, "enum"),
                     (b.date32, "date"), (b.date, "date"), (b.int96, "int96")]:
        assert fn() == DataType(name)
    assert b.uuid() == DataType("uuid", byte_width=16)
    assert b.interval() == DataType("interval", byte_width=12)
    assert b.fixed_size_binary(7) == DataType("fixed_size_binary", byte_width=7)


def test_temporal_factories() -> None:
    assert b.time32("ms") == DataType("time", unit="ms")
    assert b.time64("ns") == DataType("time", unit="ns")
    assert b.time("us", utc=True) == DataType("time", unit="us", tz="UTC")
    assert b.timestamp("ms") == DataType("timestamp", unit="ms")
    assert b.timestamp("us", "UTC") == DataType("timestamp", unit="us", tz="UTC")
    assert b.timestamp("ns", utc=True) == DataType("timestamp", unit="ns", tz="UTC")
    # any zone means "adjusted to UTC"; the name has no place in Parquet
    assert b.timestamp("us", "America/New_York") == b.timestamp("us", utc=True)
    assert b.timestamp("us", utc=False) == b.timestamp("us")


@pytest.mark.parametrize("call", [
    lambda: b.time32("us"), lambda: b.time64("ms"), lambda: b.time("s"),
    lambda: b.timestamp("s"), lambda: b.timestamp("us", ""),
    lambda: b.timestamp("us", "UTC", utc=False), lambda: b.fixed_size_binary(0),
    lambda: b.fixed_size_binary(True), lambda: b.decimal(0, 0), lambda: b.decimal(77, 0),
    lambda: b.decimal(5, 6), lambda: b.decimal(5, -1), lambda: b.decimal(20, 2, byte_width=8),
    lambda: b.decimal128(39, 0), lambda: b.decimal(5.0, 1),
])
def test_invalid_parameters(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        call()


def _spec_digits(n: int) -> int:
    """LogicalTypes.md: n bytes hold floor(log10(2**(8n-1) - 1)) digits (exact integer form)."""
    return len(str(2 ** (8 * n - 1) - 1)) - 1


def test_decimal_byte_width_follows_the_spec_formula() -> None:
    for n in range(1, 4):
        assert _spec_digits(n) == math.floor(math.log10(2 ** (8 * n - 1) - 1))
    for p in range(1, b.MAX_DECIMAL_PRECISION + 1):
        n = b.decimal_byte_width(p)
        assert _spec_digits(n) >= p and (n == 1 or _spec_digits(n - 1) < p)


def test_decimal_byte_width_matches_pyarrow() -> None:
    """pyarrow writes every decimal as the narrowest FIXED_LEN_BYTE_ARRAY by default."""
    from parquet_core import read_metadata

    fields = [pa.field(f"d{p}", pa.decimal128(p, 0) if p <= 38 else pa.decimal256(p, 0))
              for p in range(1, 77)]
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([], schema=pa.schema(fields)), buf)
    leaves = read_metadata(buf.getvalue()).raw.schema[1:]
    assert [el.type_length for el in leaves] == [b.decimal_byte_width(p) for p in range(1, 77)]


def test_decimal_storage_choice() -> None:
    assert b.decimal(9, 2) == DataType("decimal", precision=9, scale=2)
    assert b.decimal(18, 0).byte_width is None
    assert b.decimal(19, 4) == DataType("decimal", precision=19, scale=4, byte_width=9)
    assert b.decimal(38).byte_width == 16 and b.decimal256(76).byte_width == 32
    assert b.decimal(5, 2, byte_width=3).byte_width == 3
    assert b.decimal128(38, 10) == b.decimal(38, 10)


def test_factories_name_the_same_arrow_types() -> None:
    """Where pyarrow has the factory, ours maps to the same Arrow type."""
    from parquet_core.interop.arrow_types import arrow_type

    same = ["null", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
            "uint64", "float16", "float32", "float64", "string", "utf8", "binary", "date32"]
    for name in same:
        assert arrow_type(getattr(b, name)()) == getattr(pa, name)(), name
    assert arrow_type(b.fixed_size_binary(5)) == pa.binary(5)
    assert arrow_type(b.decimal128(20, 3)) == pa.decimal128(20, 3)
    assert arrow_type(b.decimal256(50, 3)) == pa.decimal256(50, 3)
    assert arrow_type(b.time32("ms")) == pa.time32("ms")
    assert arrow_type(b.time64("ns")) == pa.time64("ns")
    assert arrow_type(b.timestamp("ms")) == pa.timestamp("ms")
    assert arrow_type(b.timestamp("us", "UTC")) == pa.timestamp("us", "UTC")


def test_field_and_schema() -> None:
    f = b.field("a", b.int32(), nullable=False)
    assert f == Field("a", DataType("int32"), False, ("a",))
    s = b.schema([f, ("b", b.string())])
    assert isinstance(s, Schema) and s.names == ["a", "b"]
    assert s.field("b") == Field("b", DataType("string"), True, ("b",))
    with pytest.raises(ValueError, match="duplicate"):
        b.schema([("a", b.int8()), ("a", b.int16())])
    with pytest.raises(TypeError):
        b.schema([("a", b.int8(), True)])
    with pytest.raises(ValueError):
        b.field("", b.int8())
    with pytest.raises(ValueError, match="nullable"):
        b.field("n", b.null(), nullable=False)
    with pytest.raises(TypeError):
        b.field("x", "int8")  # type: ignore[arg-type]


def test_check_type_rejects_what_cannot_be_written() -> None:
    for dt in [DataType("nested"), DataType("geometry", crs=""), DataType("decimal"),
               DataType("geography", algorithm="planar"), DataType("geometry", algorithm="karney"),
               DataType("timestamp", unit="s"), DataType("uuid", byte_width=8),
               DataType("int8", unit="ms"), DataType("decimal", precision=20, scale=21),
               DataType("decimal", precision=20, scale=1, byte_width=4)]:
        with pytest.raises(ValueError):
            b.check_type(dt)
    assert b.check_type(DataType("decimal", precision=20, scale=1, byte_width=9))
    # what the reader returns for a BYTE_ARRAY decimal is writable as such
    assert b.check_type(DataType("decimal", precision=20, scale=1))


def test_geospatial_types_keep_crs_and_algorithm() -> None:
    assert b.geometry() == DataType("geometry")
    assert b.geometry("srid:4326") == DataType("geometry", crs="srid:4326")
    assert b.geography("OGC:CRS84", "karney") == DataType("geography", crs="OGC:CRS84", algorithm="karney")
    assert str(b.geography(algorithm="vincenty")) == "geography(vincenty)"
    with pytest.raises(ValueError, match="edge interpolation"):
        b.geography(algorithm="planar")
