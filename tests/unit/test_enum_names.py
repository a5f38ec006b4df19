"""One spelling for enum values across the package: the spec name, ``UNKNOWN(n)`` otherwise."""

from __future__ import annotations

from parquet_core.constants import CompressionCodec, Encoding, PageType, enum_name, known_value
from parquet_core.errors import add_note, has_note
from parquet_core.thrift import pt


def test_names_from_the_spec_for_both_kinds_of_enum() -> None:
    # parquet.thrift: RLE_DICTIONARY = 8, DATA_PAGE_V2 = 3, ZSTD = 6
    assert enum_name(Encoding, 8) == enum_name(pt.Encoding, 8) == "RLE_DICTIONARY"
    assert enum_name(PageType, 3) == enum_name(pt.PageType, 3) == "DATA_PAGE_V2"
    assert enum_name(CompressionCodec, 6) == "ZSTD"


def test_unknown_values_spelled_one_way() -> None:
    assert enum_name(Encoding, 99) == enum_name(pt.Encoding, 99) == "UNKNOWN(99)"
    assert enum_name(Encoding, None) is None
    assert not known_value(Encoding, 99) and not known_value(Encoding, None) and known_value(Encoding, 0)


def test_encoding_messages_use_the_same_spelling() -> None:
    from parquet_core.encodings import _name   # the encoders' message helper
    assert _name(Encoding, 0) == "PLAIN (0)"
    assert _name(Encoding, 42) == "UNKNOWN(42)"


def test_notes_through_one_helper() -> None:
    exc = ValueError("x")
    assert add_note(exc, "at page 3 (file offset 4)") is exc
    assert exc.__notes__ == ["at page 3 (file offset 4)"]
    assert has_note(exc, "at page") and not has_note(exc, "in column")
