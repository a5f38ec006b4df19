"""Variant binary codec: golden vectors from the spec tables, a round trip, malformed input."""

from __future__ import annotations

import datetime as dt
import math
import struct
import uuid
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

import parquet_core as pc
from parquet_core.variant import NULL, decode, encode
from parquet_core.variant.encoding import decode_metadata, encode_metadata

EMPTY = b"\x01\x00\x00"          # version 1, one-byte offsets, no keys
UTC = dt.timezone.utc


def _le(v: int, n: int) -> bytes:
    return v.to_bytes(n, "little", signed=True)


# (value bytes, expected Python value) built by hand from the primitive table
# of VariantEncoding.md: first byte = type id << 2 (basic type 0).
PRIMITIVES = [
    (b"\x00", NULL),
    (b"\x04", True),
    (b"\x08", False),
    (b"\x0c" + _le(-5, 1), -5),
    (b"\x10" + _le(0x1234, 2), 0x1234),
    (b"\x14" + _le(-70000, 4), -70000),
    (b"\x18" + _le(-(2 ** 63), 8), -(2 ** 63)),
    (b"\x1c" + struct.pack("<d", 1.5e300), 1.5e300),
    (b"\x20\x01" + _le(15, 4), Decimal("1.5")),
    (b"\x20\x00" + _le(-999999999, 4), Decimal(-999999999)),
    (b"\x24\x02" + _le(-123456789012345678, 8), Decimal("-1234567890123456.78")),
    (b"\x28\x26" + _le(10 ** 38 - 1, 16), Decimal("0." + "9" * 38)),
    (b"\x28\x00" + _le(-(10 ** 38 - 1), 16), Decimal(-(10 ** 38 - 1))),
    (b"\x2c" + _le(19723, 4), dt.date(2024, 1, 1)),
    (b"\x2c" + _le(-1, 4), dt.date(1969, 12, 31)),
    (b"\x30" + _le(1_704_067_200_000_001, 8), dt.datetime(2024, 1, 1, 0, 0, 0, 1, tzinfo=UTC)),
    (b"\x34" + _le(-1, 8), dt.datetime(1969, 12, 31, 23, 59, 59, 999999)),
    (b"\x38" + struct.pack("<f", 0.25), 0.25),
    (b"\x3c" + _le(3, 4) + b"\x00\xff\x01", b"\x00\xff\x01"),
    (b"\x3c" + _le(0, 4), b""),
    (b"\x40" + _le(5, 4) + "héllo".encode()[:5], "héll"),
    (b"\x44" + _le(3_723_000_004, 8), dt.time(1, 2, 3, 4)),
    (b"\x48" + _le(1_704_067_200_000_000_007, 8),
     pc.NanoDatetime(2024, 1, 1, tzinfo=UTC, nanosecond=7)),
    (b"\x4c" + _le(1_704_067_200_000_001_000, 8), dt.datetime(2024, 1, 1, 0, 0, 0, 1)),
    (b"\x50" + bytes(range(16)), uuid.UUID(bytes=bytes(range(16)))),
    (b"\x01", ""),                                   # short string, length 0
    (bytes([3 << 2 | 1]) + b"abc", "abc"),
    (bytes([63 << 2 | 1]) + b"x" * 63, "x" * 63),
]


@pytest.mark.parametrize("value, expected", PRIMITIVES)
def test_primitive_golden(value: bytes, expected: object) -> None:
    got = decode(EMPTY, value)
    assert got == expected and type(got) is type(expected)
    if isinstance(expected, dt.datetime):
        assert got.tzinfo == expected.tzinfo and got.isoformat() == expected.isoformat()


def test_metadata_golden() -> None:
    assert decode_metadata(EMPTY) == ()
    # sorted, 1-byte offsets: ["a", "bc"]
    assert decode_metadata(b"\x11\x02\x00\x01\x03abc") == ("a", "bc")
    # 2-byte offsets (offset_size_minus_one = 1 -> bit 6), unsorted flag, reserved bit 5 set
    assert decode_metadata(b"\x61\x02\x00\x00\x00\x01\x00\x02\x00zy") == ("z", "y")
    assert encode_metadata(["a", "bc"]) == b"\x11\x02\x00\x01\x03abc"
    assert encode_metadata([]) == b"\x11\x00\x00"


def test_object_golden_values_out_of_key_order() -> None:
    # {"a": 1, "b": 2}: ids [a, b] in key order, but b's value is stored first
    meta = b"\x11\x02\x00\x01\x02ab"
    value = b"\x02\x02\x00\x01\x02\x00\x04" + b"\x0c\x02" + b"\x0c\x01"
    assert decode(meta, value) == {"a": 1, "b": 2}


def test_object_and_array_large_headers() -> None:
    meta = b"\x11\x01\x00\x01k"
    # object, is_large, 2-byte ids, 3-byte offsets: {"k": 7}
    obj = bytes([2 | ((1 << 4 | 1 << 2 | 2) << 2)]) + _le(1, 4) + b"\x00\x00" \
        + b"\x00\x00\x00\x02\x00\x00" + b"\x0c\x07"
    assert decode(meta, obj) == {"k": 7}
    # array, is_large, 4-byte offsets: [True, False]
    arr = bytes([3 | ((1 << 2 | 3) << 2)]) + _le(2, 4) + _le(0, 4) + _le(1, 4) + _le(2, 4) + b"\x04\x08"
    assert decode(meta, arr) == [True, False]
    assert decode(meta, b"\x03\x00\x00") == []
    assert decode(meta, b"\x02\x00\x00") == {}


def test_spark_written_bytes() -> None:
    """Bytes Spark 4.3 wrote for parse_json('{"a": 1, "b": [1, 2.5, "x", null, true], "c": {"d": 1e300}}')."""
    meta = b"\x01\x04\x00\x01\x02\x03\x04abcd"
    value = (b"\x02\x03\x00\x01\x02\x00\x02\x16$\x0c\x01\x03\x05\x00\x02\x08\n\x0b\x0c\x0c\x01 "
             b"\x01\x19\x00\x00\x00\x05x\x00\x04\x02\x01\x03\x00\t\x1c\x9cu\x00\x88<\xe47~")
    assert decode(meta, value) == {"a": 1, "b": [1, Decimal("2.5"), "x", NULL, True], "c": {"d": 1e300}}
    assert decode(meta, value, null=None)["b"][3] is None


def test_encode_golden() -> None:
    assert encode(None) == (b"\x11\x00\x00", b"\x00")
    assert encode(5)[1] == b"\x0c\x05"
    assert encode(300)[1] == b"\x10" + _le(300, 2)
    assert encode(2 ** 40)[1] == b"\x18" + _le(2 ** 40, 8)
    assert encode(2 ** 64)[1] == b"\x28\x00" + _le(2 ** 64, 16)     # past int64: decimal16
    assert encode(Decimal("1.50"))[1] == b"\x20\x02" + _le(150, 4)
    assert encode(Decimal("1E+3"))[1] == b"\x20\x00" + _le(1000, 4)
    assert encode("x" * 64)[1] == b"\x40" + _le(64, 4) + b"x" * 64
    meta, value = encode({"c": 3, "b": 2, "a": 1})
    assert meta == b"\x11\x03\x00\x01\x02\x03abc"
    assert value == b"\x02\x03\x00\x01\x02\x00\x02\x04\x06" + b"\x0c\x01\x0c\x02\x0c\x03"


def test_encode_large_object_and_array() -> None:
    obj = {f"k{i:04d}": i for i in range(300)}
    meta, value = encode(obj)
    assert value[0] == 2 | ((1 << 4 | 1 << 2 | 1) << 2)   # is_large, 2-byte ids, 2-byte offsets
    assert decode(meta, value) == obj
    arr = list(range(1000))
    meta, value = encode(arr)
    assert value[0] & 3 == 3 and (value[0] >> 2) & 4
    assert decode(meta, value) == arr


def test_null_kinds_are_distinct() -> None:
    assert NULL is not None and not NULL and repr(NULL) == "VariantNull"
    assert decode(*encode(NULL)) is NULL
    assert pc.variant.NULL is NULL


def test_callable_namespace() -> None:
    assert pc.variant() == pc.variant.variant_type()
    assert str(pc.variant()) == "variant"
    assert pc.variant.decode(*pc.variant.encode([1, "a"])) == [1, "a"]


# -- malformed input ---------------------------------------------------------

@pytest.mark.parametrize("meta", [b"", b"\x01", b"\x01\x02\x00\x01", b"\x01\x01\x00\x05a",
                                  b"\x01\x02\x00\x02\x01ab", b"\x01\x01\x00\x01\xff"])
def test_bad_metadata(meta: bytes) -> None:
    with pytest.raises(pc.ParquetFormatError):
        decode_metadata(meta)


def test_unsupported_versions_and_types() -> None:
    with pytest.raises(pc.UnsupportedFeatureError):
        decode_metadata(b"\x02\x00\x00")
    with pytest.raises(pc.UnsupportedFeatureError):
        decode(EMPTY, bytes([21 << 2]))


@pytest.mark.parametrize("value", [
    b"", b"\x0c", b"\x14\x00\x00", b"\x1d\x61",               # truncated primitives / short string
    b"\x3c\x05\x00\x00\x00ab", b"\x40\xff\xff\xff\x7fab",      # binary/string overruns
    b"\x20\x27\x00\x00\x00\x00",                              # decimal scale 39
    b"\x40\x02\x00\x00\x00\xff\xfe",                        # string not UTF-8
    b"\x02\x01\x05\x00\x02\x0c\x01",                          # field id out of range
    b"\x02\x02\x00\x00\x00\x02\x04\x0c\x01\x0c\x02",          # duplicate key
    b"\x02\x05\x00",                                          # object header truncated
    b"\x03\x02\x00\x01\x09\x04\x08",                          # array offsets past the end
    b"\x03\x02\x00\x02\x01\x04\x08",                          # array offsets descending
])
def test_bad_values(value: bytes) -> None:
    meta = b"\x11\x01\x00\x01a"
    with pytest.raises(pc.ParquetFormatError):
        decode(meta, value)


def test_too_deep() -> None:
    deep: object = 1
    for _ in range(600):
        deep = [deep]
    with pytest.raises(ValueError):
        encode(deep)
    value = b"\x03\x01\x00\x02" * 600 + b"\x0c\x01"     # hand-built 600-deep arrays
    with pytest.raises(pc.ParquetFormatError):
        decode(EMPTY, value)


def test_encode_rejects() -> None:
    with pytest.raises(TypeError):
        encode({1: 2})
    with pytest.raises(TypeError):
        encode(object())
    with pytest.raises(ValueError):
        encode(Decimal("NaN"))
    with pytest.raises(ValueError):
        encode(10 ** 40)
    with pytest.raises(ValueError):
        encode(pc.NanoTime(1, 2, 3, nanosecond=5))


# -- round trip ----------------------------------------------------------------

_scalars = st.one_of(
    st.none(), st.just(NULL), st.booleans(),
    st.integers(-(2 ** 63), 2 ** 63 - 1), st.integers(-(10 ** 38) + 1, 10 ** 38 - 1),
    st.floats(allow_nan=False), st.decimals(allow_nan=False, allow_infinity=False, places=4,
                                            min_value=Decimal("-1e30"), max_value=Decimal("1e30")),
    st.text(), st.binary(), st.dates(), st.datetimes(),
    st.datetimes(timezones=st.just(UTC)), st.times(), st.uuids(),
)
_values = st.recursive(_scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=6), st.dictionaries(st.text(max_size=8), kids, max_size=6)), max_leaves=30)


def _expected(v: object) -> object:
    if v is None:
        return NULL
    if isinstance(v, (list, tuple)):
        return [_expected(x) for x in v]
    if isinstance(v, dict):
        return {k: _expected(x) for k, x in v.items()}
    return v


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_values)
def test_round_trip(v: object) -> None:
    meta, value = encode(v)
    got = decode(meta, value)
    assert got == _expected(v)
    assert encode(got) == (meta, value)      # canonical: encoding the decoded value is stable


def test_float_specials() -> None:
    assert math.isnan(decode(*encode(float("nan"))))
    neg = decode(*encode(-0.0))
    assert neg == 0.0 and math.copysign(1, neg) == -1
    assert decode(*encode(float("inf"))) == float("inf")
