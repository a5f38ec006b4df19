"""Logical storage -> physical values: the inverse of to_storage, and pyarrow's bytes."""

from __future__ import annotations

import datetime as dt
import io
import struct
from decimal import Context, Decimal

import numpy as np
import pytest

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema import build as b
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.schema.physical import epoch_to_int96, to_physical
from parquet_core.schema.pyvalues import py_values, to_storage
from parquet_core.thrift import pt
from parquet_core.schema.temporal import JULIAN_EPOCH_DAY, int96_to_epoch

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 500
I64 = np.iinfo(np.int64)
_CTX = Context(prec=100)


def _dec(unscaled: int, scale: int) -> Decimal:
    return Decimal(unscaled).scaleb(-scale, _CTX)


def _rng() -> np.random.Generator:
    return np.random.default_rng(20240611)


def _desc(dtype, **kw):  # type: ignore[no-untyped-def]
    """The column descriptor the read path builds for a one-column schema of *dtype*."""
    return SchemaDescriptor(schema_to_elements(b.schema([("c", dtype)]), **kw)).column(0)


def _ints(dtype: type, rng: np.random.Generator) -> np.ndarray:
    info = np.iinfo(dtype)
    edge = np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dtype)
    return np.concatenate([edge, rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)])


def _byte_arrays(rng: np.random.Generator) -> ByteArrays:
    lens = rng.integers(0, 20, N)
    return ByteArrays.from_pylist([rng.bytes(int(n)) for n in lens])


def _phys(dtype, values, ptype, width=None):  # type: ignore[no-untyped-def]
    """to_physical with an explicit target: a bare leaf element named "c"."""
    return to_physical(pt.SchemaElement(name="c", type=int(ptype), type_length=width), dtype, values)


def _round_trip(dtype, values, **kw):  # type: ignore[no-untyped-def]
    desc = _desc(dtype, **kw)
    phys = to_physical(desc, dtype, values)
    return desc, phys, to_storage(desc.data_type, phys)


def _same(a, c) -> bool:  # type: ignore[no-untyped-def]
    if isinstance(a, ByteArrays):
        return a.to_pylist() == c.to_pylist()
    a, c = np.asarray(a), np.asarray(c)
    return a.dtype == c.dtype and a.shape == c.shape and a.tobytes() == c.tobytes()


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64"])
def test_integers_round_trip(name: str) -> None:
    values = _ints(getattr(np, name), _rng())
    desc, phys, back = _round_trip(getattr(b, name)(), values)
    assert phys.dtype == (np.int64 if name.endswith("64") else np.int32)
    assert _same(back, values)


def test_unsigned_are_bit_reinterpreted() -> None:
    u64 = np.array([2**64 - 1, 2**63, 2**63 - 1, 0], dtype=np.uint64)
    assert _phys(b.uint64(), u64, PhysicalType.INT64).tolist() == [-1, -2**63, 2**63 - 1, 0]
    u32 = np.array([2**32 - 1, 2**31, 5], dtype=np.uint32)
    assert _phys(b.uint32(), u32, PhysicalType.INT32).tolist() == [-1, -2**31, 5]


def test_floats_round_trip_bitwise() -> None:
    rng = _rng()
    special = [np.inf, -np.inf, np.nan, -0.0, 0.0]
    for dtype, np_type in [(b.float16(), np.float16), (b.float32(), np.float32),
                           (b.float64(), np.float64)]:
        values = np.concatenate([np.array(special, np_type), rng.standard_normal(N).astype(np_type)])
        desc, phys, back = _round_trip(dtype, values)
        assert _same(back, values)
    f16 = _phys(b.float16(), np.array([1.0, -2.0], np.float16),
                      PhysicalType.FIXED_LEN_BYTE_ARRAY, 2)
    assert f16.tolist() == [[0x00, 0x3C], [0x00, 0xC0]]  # IEEE 754 binary16, little-endian


def test_bytes_like_round_trip() -> None:
    rng = _rng()
    for dtype in [b.string(), b.binary(), b.json_(), b.enum(), b.bson()]:
        values = _byte_arrays(rng)
        _, phys, back = _round_trip(dtype, values)
        assert phys is values and _same(back, values)
    for dtype, w in [(b.uuid(), 16), (b.interval(), 12), (b.fixed_size_binary(3), 3),
                     (b.int96(), 12)]:
        values = rng.integers(0, 256, (N, w), dtype=np.uint8)
        _, phys, back = _round_trip(dtype, values)
        assert phys.shape == (N, w) and _same(back, values)
    # equal-length ByteArrays are accepted for fixed-width columns
    ba = ByteArrays.from_pylist([bytes(range(i, i + 16)) for i in range(5)])
    assert _phys(b.uuid(), ba, PhysicalType.FIXED_LEN_BYTE_ARRAY, 16).tolist() == [
        list(range(i, i + 16)) for i in range(5)]


def test_temporal_round_trip() -> None:
    rng = _rng()
    cases = [(b.date32(), np.int32), (b.time32("ms"), np.int32), (b.time64("us"), np.int64),
             (b.time64("ns"), np.int64), (b.time("us", utc=True), np.int64)]
    cases += [(b.timestamp(u, tz), np.int64) for u in ("ms", "us", "ns") for tz in (None, "UTC")]
    for dtype, np_type in cases:
        values = _ints(np_type, rng)
        _, phys, back = _round_trip(dtype, values)
        assert _same(back, values)
    _, phys, back = _round_trip(b.null(), np.zeros(7, np.int8))
    assert phys.dtype == np.int32 and not phys.any() and len(back) == 7


def _unscaled(p: int, rng: np.random.Generator) -> list[int]:
    top = 10 ** p - 1
    edge = [top, -top, 0, 1, -1, 127, -128, 128, -129, 255, -256]
    edge = [v for v in edge if abs(v) <= top]
    return edge + [int(x) for x in rng.integers(-(2**62), 2**62, N)] if p > 18 else \
        edge + [int(x) for x in rng.integers(-top, top, N, endpoint=True)]


def _wide(p: int, rng: np.random.Generator) -> list[int]:
    """Unscaled values spread over the whole precision, not just int64."""
    top = 10 ** p - 1
    vals = _unscaled(p, rng)
    vals += [int.from_bytes(rng.bytes(32), "big") % (2 * top + 1) - top for _ in range(N)]
    return vals


def _be_matrix(ints: list[int], w: int) -> np.ndarray:
    raw = b"".join(v.to_bytes(w, "big", signed=True) for v in ints)
    return np.frombuffer(raw, np.uint8).reshape(len(ints), w)


@pytest.mark.parametrize("p,s", [(1, 0), (9, 2), (10, 10), (18, 4), (19, 0), (38, 5), (76, 20)])
def test_decimals_round_trip(p: int, s: int) -> None:
    rng = _rng()
    dtype = b.decimal(p, s)
    ints = _wide(p, rng) if p > 18 else _unscaled(p, rng)
    expected = [_dec(v, s) for v in ints]
    storage = np.array(ints, np.int64) if p <= 18 else _be_matrix(ints, dtype.byte_width)
    desc, phys, back = _round_trip(dtype, storage)
    want_type = {True: PhysicalType.INT32, False: PhysicalType.INT64}[p <= 9] if p <= 18 \
        else PhysicalType.FIXED_LEN_BYTE_ARRAY
    assert desc.physical_type == want_type
    assert _same(back, storage)
    assert py_values(desc.data_type, back) == expected


@pytest.mark.parametrize("p", [5, 18, 30, 76])
def test_decimal_layouts_from_any_storage(p: int) -> None:
    """int64, bytes of any width and ByteArrays all reach every physical layout."""
    rng = _rng()
    ints = _unscaled(p, rng) if p <= 18 else _wide(p, rng)
    minimal = [v.to_bytes(((v if v >= 0 else ~v).bit_length() // 8) + 1, "big", signed=True)
               for v in ints]
    sources = [ByteArrays.from_pylist(minimal), _be_matrix(ints, 40)]
    if p <= 18:
        sources.append(np.array(ints, np.int64))
    width = b.decimal_byte_width(p)
    targets = [(PhysicalType.FIXED_LEN_BYTE_ARRAY, width),
               (PhysicalType.FIXED_LEN_BYTE_ARRAY, 33), (PhysicalType.BYTE_ARRAY, None)]
    if p <= 18:
        targets += [(PhysicalType.INT64, None)] + ([(PhysicalType.INT32, None)] if p <= 9 else [])
    dtype = b.decimal(p, 3)
    for src in sources:
        for ptype, w in targets:
            phys = _phys(dtype, src, ptype, w)
            if ptype == PhysicalType.BYTE_ARRAY:
                assert phys.to_pylist() == minimal  # spec: the fewest bytes
            elif ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY:
                assert _same(phys, _be_matrix(ints, w))
            else:
                assert phys.tolist() == ints and phys.dtype == (
                    np.int32 if ptype == PhysicalType.INT32 else np.int64)


def test_byte_array_decimal_round_trip() -> None:
    """A BYTE_ARRAY decimal (as the reader returns it) goes back to the fewest bytes."""
    from parquet_core.schema.types import DataType

    ints = _wide(40, _rng())
    dtype = DataType("decimal", precision=40, scale=3)
    storage = ByteArrays.from_pylist([v.to_bytes(20, "big", signed=True) for v in ints])
    desc, phys, back = _round_trip(dtype, storage)
    assert desc.physical_type == PhysicalType.BYTE_ARRAY and desc.data_type == dtype
    assert py_values(dtype, back) == [_dec(v, 3) for v in ints]
    assert all(len(x) == ((v if v >= 0 else ~v).bit_length() // 8) + 1
               for x, v in zip(phys.to_pylist(), ints))


def test_int96_round_trip_extremes() -> None:
    rng = _rng()
    values = _ints(np.int64, rng)
    desc = _desc(b.timestamp("us", "UTC"), int96_timestamps=True)  # what a writer holds
    assert desc.physical_type == PhysicalType.INT96 and desc.data_type == b.int96()
    back, exact = int96_to_epoch(to_physical(desc, b.timestamp("us", "UTC"), values), "us")
    assert exact.all() and _same(back, values)
    # the reader flags ns values within 1 ms of the int64 limits as inexact; stay inside
    lim = (I64.max // 1000 - 1) * 1000
    ns = np.concatenate([[lim, -lim, -1, 0], rng.integers(-lim, lim, N)]).astype(np.int64)
    back, exact = int96_to_epoch(_phys(b.timestamp("ns"), ns, PhysicalType.INT96), "ns")
    assert exact.all() and _same(back, ns)
    lim = I64.max // 1000
    ms = np.concatenate([[lim, -lim, -1, 0], rng.integers(-lim, lim, N)]).astype(np.int64)
    back, exact = int96_to_epoch(epoch_to_int96(ms, "ms"), "ms")
    assert exact.all() and _same(back, ms)


def test_int96_layout_from_the_format_description() -> None:
    """nanos-of-day LE int64 + Julian day LE int32; 1970-01-01 is Julian day 2440588."""
    day_us = 86_400_000_000
    us = [0, -1, day_us + 5, -day_us * 800_000 + 7, day_us * 3_000_000 + 1]
    got = epoch_to_int96(np.array(us, np.int64), "us")
    for row, v in zip(got, us):
        days, rem = divmod(v, day_us)  # Python floors, like the legacy writers
        assert row.tobytes() == struct.pack("<qi", rem * 1000, days + JULIAN_EPOCH_DAY)


def test_conversion_errors() -> None:
    with pytest.raises(ParquetSchemaError, match="column 'c'.*position 1"):
        _phys(b.int8(), np.array([1, 300]), PhysicalType.INT32)
    with pytest.raises(ParquetSchemaError):
        _phys(b.uint32(), np.array([-1]), PhysicalType.INT32)
    with pytest.raises(ParquetSchemaError):
        _phys(b.decimal(9, 0), np.array([0, 2**40]), PhysicalType.INT32)
    with pytest.raises(ParquetSchemaError, match="more than 2 bytes"):
        _phys(b.decimal(4, 0), np.array([1, 40000]), PhysicalType.FIXED_LEN_BYTE_ARRAY, 2)
    with pytest.raises(ParquetSchemaError):
        _phys(b.decimal(30, 0), _be_matrix([2**70], 16), PhysicalType.INT64)
    with pytest.raises(ParquetSchemaError, match="INT96"):
        epoch_to_int96(np.array([I64.max]), "ms")
    with pytest.raises(ParquetSchemaError):
        _phys(b.uuid(), np.zeros((2, 8), np.uint8), PhysicalType.FIXED_LEN_BYTE_ARRAY, 16)
    with pytest.raises(TypeError):
        _phys(b.int32(), np.array([1.5]), PhysicalType.INT32)
    with pytest.raises(TypeError):
        _phys(b.string(), [b"a"], PhysicalType.BYTE_ARRAY)
    with pytest.raises(TypeError):
        _phys(b.bool_(), np.array([0, 1]), PhysicalType.BOOLEAN)
    with pytest.raises(ValueError):
        _phys(b.int8(), np.array([1], np.int8), PhysicalType.INT64)
    with pytest.raises(ValueError):
        _phys(b.string(), ByteArrays.empty(), PhysicalType.FIXED_LEN_BYTE_ARRAY, 4)
    with pytest.raises(ParquetSchemaError, match="column 'c'"):
        to_physical(_desc(b.uint8()), b.uint8(), np.array([256]))
    with pytest.raises(TypeError):
        to_physical(pt.SchemaElement(name="g", num_children=1), b.int8(), np.zeros(1, np.int8))


# -- golden physical values: what pyarrow writes for the same data ---------------------


def _pyarrow_physical(table, **kw):  # type: ignore[no-untyped-def]
    """Write *table* with pyarrow; return {name: (descriptor, raw physical values)}."""
    from parquet_core.column.reader import read_column_chunk
    from parquet_core import read_metadata
    from parquet_core.page.reader import iter_pages

    buf = io.BytesIO()
    pq.write_table(table, buf, use_dictionary=False, **kw)
    raw = buf.getvalue()
    meta = read_metadata(raw)
    out = {}
    for i, desc in enumerate(meta.schema):
        chunk = meta.row_group(0).column(i)
        start, length = chunk.byte_range(len(raw))
        pages = iter_pages(memoryview(raw)[start:start + length], chunk.codec_id, chunk.num_values)
        out[desc.path[0]] = (desc, read_column_chunk(pages, desc).values)
    return out


@pytest.mark.parametrize("as_integer", [True, False])
def test_decimal_bytes_match_pyarrow(as_integer: bool) -> None:
    rng = _rng()
    for p, s in [(5, 2), (9, 0), (15, 3), (18, 18), (20, 4), (38, 0), (50, 7), (76, 10)]:
        ints = _wide(p, rng) if p > 18 else _unscaled(p, rng)
        arrow_t = pa.decimal128(p, s) if p <= 38 else pa.decimal256(p, s)
        t = pa.table({"c": pa.array([_dec(v, s) for v in ints], arrow_t)})
        desc, theirs = _pyarrow_physical(t, store_decimal_as_integer=as_integer)["c"]
        dtype = b.decimal(p, s)
        values = np.array(ints, np.int64) if p <= 18 else _be_matrix(ints, dtype.byte_width)
        ours = to_physical(desc, dtype, values)
        assert _same(ours, theirs), (p, s)


def test_other_physical_values_match_pyarrow() -> None:
    rng = _rng()
    f16 = np.concatenate([np.array([np.inf, -0.0, 65504.0, -np.inf, 6e-8], np.float16),
                          rng.standard_normal(N).astype(np.float16)])
    uuids = [rng.bytes(16) for _ in range(N)]
    days = np.array([-719162, 0, 2932896, -1], np.int32)
    millis = np.array([0, 86_399_999], np.int32)
    cases = [  # (our type, our storage, the same data for pyarrow)
        (b.uint64(), _ints(np.uint64, rng), None), (b.uint32(), _ints(np.uint32, rng), None),
        (b.int8(), _ints(np.int8, rng), None), (b.uint16(), _ints(np.uint16, rng), None),
        (b.float16(), f16, None),
        (b.uuid(), np.frombuffer(b"".join(uuids), np.uint8).reshape(-1, 16),
         pa.array(uuids, pa.uuid())),
        (b.date32(), days, pa.array(days, pa.date32())),
        (b.time32("ms"), millis, pa.array(millis, pa.time32("ms"))),
    ]
    ns = _ints(np.int64, rng)
    cases += [(b.timestamp("ns", tz), ns, pa.array(ns, pa.timestamp("ns", tz))) for tz in (None, "UTC")]
    for dtype, values, arrow in cases:
        arrow = pa.array(values) if arrow is None else arrow
        desc, theirs = _pyarrow_physical(pa.table({"c": arrow}), version="2.6")["c"]
        assert desc.data_type == dtype
        assert _same(to_physical(desc, dtype, values), theirs), dtype


def test_int96_matches_pyarrow() -> None:
    rng = _rng()
    ns = _ints(np.int64, rng)
    base = dt.datetime(1900, 1, 1)
    us = np.array([(d - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
                   for d in (base, dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
                             dt.datetime(2262, 4, 11), dt.datetime(1677, 9, 22))], np.int64)
    for unit, values in [("ns", ns), ("us", us)]:
        t = pa.table({"c": pa.array(values, pa.timestamp(unit))})
        desc, theirs = _pyarrow_physical(t, use_deprecated_int96_timestamps=True)["c"]
        assert desc.physical_type == PhysicalType.INT96
        assert _same(_phys(b.timestamp(unit), values, PhysicalType.INT96), theirs), unit


def test_sliced_byte_arrays_and_empty_inputs() -> None:
    vals = [b"\x01\x2c", b"\xfe", b"", b"\x00\x80"]
    full = ByteArrays.from_pylist([b"\x7f\xff\xff"] + vals)
    sliced = ByteArrays(full.offsets[1:], full.data)  # offsets not starting at 0
    assert int(sliced.offsets[0]) != 0
    got = _phys(b.decimal(5, 0), sliced, PhysicalType.FIXED_LEN_BYTE_ARRAY, 3)
    assert _same(got, _be_matrix([300, -2, 0, 128], 3))
    full = ByteArrays.from_pylist([b"zz", b"ab", b"cd"])
    fixed = ByteArrays(full.offsets[1:], full.data)
    assert _phys(b.fixed_size_binary(2), fixed, PhysicalType.FIXED_LEN_BYTE_ARRAY, 2).tolist() == [
        [97, 98], [99, 100]]
    for dtype in [b.int8(), b.uint64(), b.decimal(30, 2), b.decimal(5, 1), b.timestamp("ms"),
                  b.date32(), b.float16(), b.uuid(), b.string(), b.bool_(), b.float64()]:
        desc = _desc(dtype)
        empty = ByteArrays.empty() if desc.physical_type == PhysicalType.BYTE_ARRAY else (
            np.zeros((0, desc.type_length), np.uint8) if dtype.byte_width else
            np.zeros(0, {"bool": np.bool_, "float16": np.float16, "float64": np.float64}.get(
                dtype.name, np.int64)))
        out = to_physical(desc, dtype, empty)
        assert len(out) == 0
    assert _phys(b.timestamp("us"), np.zeros(0, np.int64), PhysicalType.INT96).shape == (0, 12)
    assert len(_phys(b.decimal(30, 2), ByteArrays.empty(), PhysicalType.BYTE_ARRAY)) == 0


def test_byte_array_decimal_bytes_match_another_writer(corpus) -> None:  # type: ignore[no-untyped-def]
    """parquet-testing's byte_array_decimal.parquet (HVR): minimal big-endian bytes, 1.00..24.00."""
    from parquet_core.column.reader import read_column_chunk
    from parquet_core import read_metadata
    from parquet_core.page.reader import iter_pages

    raw = (corpus / "byte_array_decimal.parquet").read_bytes()
    meta = read_metadata(raw)
    desc, chunk = meta.schema.column(0), meta.row_group(0).column(0)
    start, length = chunk.byte_range(len(raw))
    theirs = read_column_chunk(iter_pages(memoryview(raw)[start:start + length], chunk.codec_id,
                                          chunk.num_values), desc).values
    ints = [int.from_bytes(v, "big", signed=True) for v in theirs.to_pylist()]
    assert ints == list(range(100, 2401, 100))
    ours = to_physical(desc, desc.data_type, np.array(ints, np.int64))
    assert ours.to_pylist() == theirs.to_pylist()
