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
])
def test_enum_matches_idl(ours, theirs) -> None:
    generated = {k: v for k, v in theirs._NAMES_TO_VALUES.items()}
    for member in ours:
        assert generated[member.name] == member.value, member
    # every member of the IDL enum that the engine relies on exists here too
    missing = set(generated) - {m.name for m in ours} - {"VECTOR"}
    assert not missing


def test_magic_and_footer_layout() -> None:
    assert c.MAGIC == b"PAR1" and c.MAGIC_ENCRYPTED == b"PARE" and c.FOOTER_SIZE_BYTES == 8
