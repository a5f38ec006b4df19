"""Statistics decoding follows the spec's sort-order rules."""

from __future__ import annotations

import math
import struct

from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.metadata.statistics import SortOrder, decode_statistics, sort_order
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.thrift import pt


def _desc(ptype, **kw):
    root = pt.SchemaElement(name="m", num_children=1)
    leaf = pt.SchemaElement(name="c", type=ptype, repetition_type=Repetition.OPTIONAL, **kw)
    return SchemaDescriptor([root, leaf]).column(0)


def test_sort_orders() -> None:
    assert sort_order(_desc(PhysicalType.INT32)) == SortOrder.SIGNED
    assert sort_order(_desc(PhysicalType.INT32, converted_type=ConvertedType.UINT_32)) == SortOrder.UNSIGNED
    assert sort_order(_desc(PhysicalType.BYTE_ARRAY)) == SortOrder.UNSIGNED
    assert sort_order(_desc(PhysicalType.BYTE_ARRAY, converted_type=ConvertedType.DECIMAL,
                            precision=5, scale=1)) == SortOrder.SIGNED
    assert sort_order(_desc(PhysicalType.INT96)) == SortOrder.UNKNOWN


def test_legacy_min_max_ignored_for_unsigned_orders() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY, converted_type=ConvertedType.UTF8)
    st = decode_statistics(pt.Statistics(min=b"a", max=b"z", null_count=3), d, True)
    assert st.min is None and st.max is None and st.null_count == 3
    st = decode_statistics(pt.Statistics(min_value=b"a", max_value=b"\xc3\xa9"), d, True)
    assert (st.min, st.max) == ("a", "é")


def test_unsigned_min_value_needs_column_order() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY)
    assert decode_statistics(pt.Statistics(min_value=b"a", max_value=b"b"), d, False).min is None


def test_legacy_min_max_used_for_signed() -> None:
    d = _desc(PhysicalType.INT32)
    st = decode_statistics(pt.Statistics(min=struct.pack("<i", -5), max=struct.pack("<i", 7)), d, False)
    assert (st.min, st.max) == (-5, 7)


def test_uint_stats_read_unsigned() -> None:
    d = _desc(PhysicalType.INT64, converted_type=ConvertedType.UINT_64)
    st = decode_statistics(pt.Statistics(min_value=struct.pack("<q", 1),
                                         max_value=struct.pack("<q", -1)), d, True)
    assert (st.min, st.max) == (1, 2**64 - 1)


def test_float_rules() -> None:
    d = _desc(PhysicalType.DOUBLE)
    nan = struct.pack("<d", math.nan)
    assert not decode_statistics(pt.Statistics(min_value=nan, max_value=struct.pack("<d", 1.0)), d, True).has_min_max
    st = decode_statistics(pt.Statistics(min_value=struct.pack("<d", 0.0),
                                         max_value=struct.pack("<d", -0.0)), d, True)
    assert math.copysign(1, st.min) == -1 and math.copysign(1, st.max) == 1


def test_int96_stats_have_no_order() -> None:
    d = _desc(PhysicalType.INT96)
    st = decode_statistics(pt.Statistics(min_value=b"\0" * 12, max_value=b"\1" * 12, null_count=0), d, True)
    assert st.min is None and st.null_count == 0
