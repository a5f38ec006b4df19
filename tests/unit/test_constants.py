"""Our spec enums and constants agree with the generated IDL and the spec."""

from __future__ import annotations

import pytest

from parquet_core import constants as c
from parquet_core.thrift import pt


#: Members added from the current spec before thrift_defs is regenerated from
#: its IDL (a parallel branch adds them there; drop entries once it lands).
AHEAD_OF_IDL = {("Encoding", "ALP"): 10}


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
        if member.name not in generated and (ours.__name__, member.name) in AHEAD_OF_IDL:
            assert AHEAD_OF_IDL[ours.__name__, member.name] == member.value, member
            continue
        assert generated[member.name] == member.value, member
    # every member of the IDL enum that the engine relies on exists here too
    missing = set(generated) - {m.name for m in ours} - {"VECTOR"}
    assert not missing


def test_magic_and_footer_layout() -> None:
    assert c.MAGIC == b"PAR1" and c.MAGIC_ENCRYPTED == b"PARE" and c.FOOTER_SIZE_BYTES == 8
