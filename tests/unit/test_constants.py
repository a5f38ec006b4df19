"""Our spec enums and constants agree with the generated IDL and the spec."""

from __future__ import annotations

import pytest

from parquet_core import constants as c
from parquet_core.thrift import pt


@pytest.mark.parametrize("ours, theirs", [
    (c.PhysicalType, pt.Type),
    (c.ConvertedType, pt.ConvertedType),
    (c.Repetition, pt.FieldRepetitionType),
    (c.Encoding, pt.Encoding),
    (c.CompressionCodec, pt.CompressionCodec),
    (c.PageType, pt.PageType),
    (c.BoundaryOrder, pt.BoundaryOrder),
])
def test_enum_matches_idl(ours, theirs) -> None:
    generated = {k: v for k, v in theirs._NAMES_TO_VALUES.items()}
    for member in ours:
        assert generated[member.name] == member.value, member
    # every member of the IDL enum that the engine relies on exists here too
    missing = set(generated) - {m.name for m in ours}
    assert not missing


def test_idl_matches_released_format() -> None:
    # parquet-format (see thrift_defs/SOURCE.md): LogicalType 19 is FILE, the
    # unreleased VECTOR proposal is not in the released IDL, ALP is encoding 10.
    spec = {fid: (name, cls) for fid, _, name, cls, _ in
            (s for s in pt.LogicalType.thrift_spec if s is not None)}
    assert spec[19][0] == "FILE" and spec[19][1][0] is pt.FileType
    assert spec[16][0] == "VARIANT" and spec[17][0] == "GEOMETRY" and spec[18][0] == "GEOGRAPHY"
    assert pt.Encoding._NAMES_TO_VALUES["ALP"] == 10 == c.Encoding.ALP
    assert "VECTOR" not in pt.FieldRepetitionType._NAMES_TO_VALUES
    assert not hasattr(pt, "VectorType")
    assert "vector_length" not in {s[2] for s in pt.SchemaElement.thrift_spec if s}
    assert {s[2] for s in pt.ColumnOrder.thrift_spec if s} == {
        "TYPE_ORDER", "IEEE_754_TOTAL_ORDER", "INT96_TIMESTAMP_ORDER"}
    assert pt.Statistics.thrift_spec[9][2] == "nan_count"
    assert pt.ColumnIndex.thrift_spec[8][2] == "nan_counts"


def test_magic_and_footer_layout() -> None:
    assert c.MAGIC == b"PAR1" and c.MAGIC_ENCRYPTED == b"PARE" and c.FOOTER_SIZE_BYTES == 8
