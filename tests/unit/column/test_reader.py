"""Column chunk decoding on hand-built pages: dictionaries, levels, fallbacks."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from parquet_core.column.reader import read_column_chunk
from parquet_core.constants import Encoding, PhysicalType, Repetition
from parquet_core.encodings.rle_hybrid import encode_rle_hybrid
from parquet_core.errors import ParquetFormatError
from parquet_core.page.model import DataPageV1, DataPageV2, DictionaryPage
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.thrift import pt


def _desc(rep=Repetition.OPTIONAL):
    return SchemaDescriptor([pt.SchemaElement(name="m", num_children=1),
                             pt.SchemaElement(name="x", type=PhysicalType.INT32, repetition_type=rep)]).column(0)


def _dict(values):
    return DictionaryPage(len(values), Encoding.PLAIN, struct.pack(f"<{len(values)}i", *values), 0, 0)


def _indices(idx, width=3):
    return bytes([width]) + encode_rle_hybrid(np.array(idx), width)


def _levels_v1(levels):
    body = encode_rle_hybrid(np.array(levels), 1)
    return struct.pack("<I", len(body)) + body


def test_dictionary_then_plain_fallback_with_nulls() -> None:
    p1 = DataPageV1(4, Encoding.RLE_DICTIONARY, Encoding.RLE, Encoding.RLE,
                    _levels_v1([1, 0, 1, 1]) + _indices([2, 0, 1]), 0, 0)
    p2 = DataPageV1(2, Encoding.PLAIN, Encoding.RLE, Encoding.RLE,
                    _levels_v1([0, 1]) + struct.pack("<i", 99), 1, 0)
    data = read_column_chunk([_dict([10, 20, 30]), p1, p2], _desc())
    assert data.values.tolist() == [30, 10, 20, 99]
    assert data.def_levels.tolist() == [1, 0, 1, 1, 0, 1]
    assert data.num_levels == 6


def test_index_out_of_range() -> None:
    page = DataPageV1(2, Encoding.RLE_DICTIONARY, Encoding.RLE, Encoding.RLE,
                      _levels_v1([1, 1]) + _indices([0, 5]), 0, 0)
    with pytest.raises(ParquetFormatError, match="out of range") as info:
        read_column_chunk([_dict([1, 2]), page], _desc())
    assert "page 0" in " ".join(info.value.__notes__)


def test_dictionary_page_missing() -> None:
    page = DataPageV1(1, Encoding.RLE_DICTIONARY, Encoding.RLE, Encoding.RLE,
                      _levels_v1([1]) + _indices([0]), 0, 0)
    with pytest.raises(ParquetFormatError, match="no dictionary"):
        read_column_chunk([page], _desc())


def test_level_above_maximum() -> None:
    nested = SchemaDescriptor([
        pt.SchemaElement(name="m", num_children=1),
        pt.SchemaElement(name="g", repetition_type=Repetition.OPTIONAL, num_children=1),
        pt.SchemaElement(name="x", type=PhysicalType.INT32, repetition_type=Repetition.OPTIONAL),
    ]).column(0)
    body = encode_rle_hybrid(np.array([3, 2]), 2)
    page = DataPageV1(2, Encoding.PLAIN, Encoding.RLE, Encoding.RLE,
                      struct.pack("<I", len(body)) + body + b"\0" * 8, 0, 0)
    with pytest.raises(ParquetFormatError, match="exceeds"):
        read_column_chunk([page], nested)


def test_v2_required_page_with_nulls_is_rejected() -> None:
    page = DataPageV2(1, 1, 1, Encoding.PLAIN, b"", b"", struct.pack("<i", 1), 0, 0)
    with pytest.raises(ParquetFormatError, match="nulls"):
        read_column_chunk([page], _desc(Repetition.REQUIRED))


def test_truncated_plain_values() -> None:
    page = DataPageV1(3, Encoding.PLAIN, Encoding.RLE, Encoding.RLE,
                      _levels_v1([1, 1, 1]) + struct.pack("<i", 1), 0, 0)
    with pytest.raises(ParquetFormatError):
        read_column_chunk([page], _desc())


def test_chunk_decoder_fields_are_declared_and_written_by_its_methods() -> None:
    """Issue 34: the decoder's state is declared (``__slots__``, annotated) and its page loop,
    piece cutting and page notes are methods, not module functions writing its fields."""
    from parquet_core.column import reader as column_reader
    dec = column_reader._ChunkDecoder(_desc(), keep_dictionary=True)
    assert not hasattr(dec, "__dict__")
    assert set(column_reader._ChunkDecoder.__slots__) == set(column_reader._ChunkDecoder.__annotations__)
    with pytest.raises(AttributeError):
        dec.undeclared = 1   # type: ignore[attr-defined]
    assert not hasattr(column_reader, "_piece") and not hasattr(column_reader, "_decode_page")
    dec.start_chunk()
    dec.decode_page(_dict([10, 20, 30]))
    page = DataPageV1(3, Encoding.RLE_DICTIONARY, Encoding.RLE, Encoding.RLE,
                      _levels_v1([1, 0, 1]) + _indices([2, 0]), 1, 40)
    dec.decode_page(page)
    data = dec.piece(page)
    assert data.values.tolist() == [30, 10]     # the dictionary's values 2 and 0
    assert data.dictionaries is not None and dec.num_levels == 0
    bad = DataPageV1(1, Encoding.RLE_DICTIONARY, Encoding.RLE, Encoding.RLE,
                     _levels_v1([1]) + _indices([5]), 2, 90)
    dec.decode_page(bad)
    with pytest.raises(ParquetFormatError, match="dictionary index 5 out of range") as info:
        dec.piece(bad)
    assert info.value.__notes__ == ["at page 2 (file offset 90)"]
