"""Decode a column chunk page by page: one :class:`ColumnData` per data page.

INTEGRATION NOTE: a stop-gap for streaming reads (``iter_batches``).  The
column layer is gaining ``column.reader.iter_chunk_pieces(pages, desc,
keep_dictionary=False)`` with the same contract; when it lands, the one
import in ``parquet_core/file/batches.py`` switches to it and this module can
go.  It is built only from the public decoders (``encodings.decode_values``,
``column.levels``) and the page model, so it decodes exactly what
``column.reader.read_column_chunks`` decodes.

Each piece holds one data page's levels and non-null values (dictionary
indices already gathered through the chunk's dictionary).  With
*keep_dictionary* a piece also carries its run
(:class:`~parquet_core.column.data.ChunkDictionary`): the chunk's dictionary
and the page's indices, or, for a page in another encoding (a writer's
dictionary fallback), a dictionary built from the page's values.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ChunkDictionary, ColumnData
from parquet_core.column.levels import read_levels_v1, read_levels_v2
from parquet_core.constants import Encoding
from parquet_core.encodings import decode_values
from parquet_core.encodings.dictionary import build_dictionary
from parquet_core.errors import ParquetError, ParquetFormatError
from parquet_core.page.model import DataPageV1, DataPageV2, DictionaryPage, Page
from parquet_core.schema.descriptor import ColumnDescriptor

__all__ = ["iter_chunk_pieces"]

_DICT_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


def _take(dictionary: Any, indices: npt.NDArray[np.integer]) -> Any:
    if isinstance(dictionary, ByteArrays):
        return dictionary.take(indices)
    return dictionary.take(indices, axis=0)


class _PieceDecoder:
    def __init__(self, desc: ColumnDescriptor, keep_dictionary: bool) -> None:
        self.desc = desc
        self.keep = keep_dictionary
        self.dictionary: Any = None

    def set_dictionary(self, page: DictionaryPage) -> None:
        if page.encoding not in (Encoding.PLAIN, Encoding.PLAIN_DICTIONARY):
            raise ParquetFormatError(f"dictionary page in encoding {page.encoding}; PLAIN expected")
        d = self.desc
        self.dictionary = decode_values(Encoding.PLAIN, page.body, page.num_values, d.physical_type,
                                        d.type_length)

    def levels(self, page: DataPageV1 | DataPageV2) -> tuple[Any, Any, Any]:
        """(definition levels, repetition levels, values buffer) of a data page."""
        d = self.desc
        reps = defs = None
        if isinstance(page, DataPageV1):
            buf = memoryview(page.body)
            pos = 0
            if d.max_repetition_level > 0:
                reps, pos = read_levels_v1(buf, pos, page.repetition_level_encoding,
                                           d.max_repetition_level, page.num_values, "repetition")
            if d.max_definition_level > 0:
                defs, pos = read_levels_v1(buf, pos, page.definition_level_encoding,
                                           d.max_definition_level, page.num_values, "definition")
            return defs, reps, buf[pos:]
        if d.max_repetition_level > 0:
            reps = read_levels_v2(memoryview(page.repetition_levels), d.max_repetition_level,
                                  page.num_values, "repetition")
        if d.max_definition_level > 0:
            defs = read_levels_v2(memoryview(page.definition_levels), d.max_definition_level,
                                  page.num_values, "definition")
        elif page.num_nulls:
            raise ParquetFormatError("v2 page reports nulls in a required column")
        return defs, reps, memoryview(page.values)

    def piece(self, page: DataPageV1 | DataPageV2) -> ColumnData:
        d = self.desc
        n = page.num_values
        defs, reps, buf = self.levels(page)
        count = n if defs is None else int(np.count_nonzero(defs == d.max_definition_level))
        run = None
        if page.encoding in _DICT_ENCODINGS:
            if self.dictionary is None:
                raise ParquetFormatError("dictionary-encoded page but the chunk has no dictionary page")
            indices = decode_values(page.encoding, buf, count, d.physical_type, d.type_length)
            # decoded indices are never negative: the maximum is the only check
            if len(indices) and int(indices.max()) >= len(self.dictionary):
                raise ParquetFormatError(f"dictionary index {int(indices.max())} out of range for a "
                                         f"dictionary of {len(self.dictionary)} values")
            values = _take(self.dictionary, indices)
            if self.keep:
                run = ChunkDictionary(self.dictionary, indices.astype(np.int32, copy=False), n)
        else:
            values = decode_values(page.encoding, buf, count, d.physical_type, d.type_length)
            if self.keep:
                merged, codes = build_dictionary(values, d.physical_type, d.type_length)
                run = ChunkDictionary(merged, codes.astype(np.int32, copy=False), n)
        if defs is not None and reps is None and count == n:
            defs = None    # an unrepeated page without nulls: ColumnData's convention
        return ColumnData(values, defs, reps, n, None if run is None else (run,))


def iter_chunk_pieces(pages: Iterable[Page], desc: ColumnDescriptor,
                      keep_dictionary: bool = False) -> Iterator[ColumnData]:
    """Yield one :class:`ColumnData` per data page of one column chunk, in order.

    Raises
    ------
    ParquetFormatError
        On malformed levels or values; a note names the page ordinal and offset.
    """
    dec = _PieceDecoder(desc, keep_dictionary)
    for page in pages:
        try:
            if isinstance(page, DictionaryPage):
                dec.set_dictionary(page)
                continue
            piece = dec.piece(page)
        except ParquetError as exc:
            exc.add_note(f"while decoding page {page.ordinal} at file offset {page.offset}")
            raise
        except (ValueError, IndexError, TypeError, OverflowError) as exc:
            err = ParquetFormatError(f"malformed page: {exc}")
            err.add_note(f"while decoding page {page.ordinal} at file offset {page.offset}")
            raise err from exc
        yield piece
