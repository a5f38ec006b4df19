"""Decode one column chunk: dictionary, levels and values of every page.

Dictionary-encoded pages yield indices; they are collected and resolved with
one vectorised gather per run of dictionary pages, so a chunk that is
dictionary-encoded throughout costs one ``take``.  A chunk may switch to
another encoding midway (a writer's dictionary fallback); values then come
back in page order from both kinds of page.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

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

__all__ = ["read_column_chunk", "read_column_chunks"]

_DICT_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


def _take(dictionary: Any, indices: npt.NDArray[np.integer]) -> Any:
    """Gather dictionary values; indices were bounds-checked page by page."""
    if isinstance(dictionary, ByteArrays):
        return dictionary.take(indices)
    return dictionary.take(indices, axis=0)


def _concat(parts: list[Any], desc: ColumnDescriptor) -> Any:
    if not parts:
        return decode_values(Encoding.PLAIN, b"", 0, desc.physical_type, desc.type_length)
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], ByteArrays):
        return ByteArrays.concat(parts)
    return np.concatenate(parts)


class _ChunkDecoder:
    """Accumulates the decoded pages of one chunk."""

    def __init__(self, desc: ColumnDescriptor, keep_dictionary: bool = False) -> None:
        self.desc = desc
        self.keep_dictionary = keep_dictionary
        self.chunk_indices: list[npt.NDArray[np.integer]] = []   # kept: the chunk's resolved indices
        self.fell_back = False     # the chunk holds pages in another encoding
        self.dictionary: Any = None
        self.parts: list[Any] = []          # decoded values, page order
        self.pending: list[npt.NDArray[np.integer]] = []  # dictionary indices not yet resolved
        # Definition levels per page; an int stands for a page without nulls.
        self.defs: list[npt.NDArray[np.int16] | int] = []
        self.reps: list[npt.NDArray[np.int16]] = []
        self.num_levels = 0

    def flush(self) -> None:
        if self.pending:
            idx = self.pending[0] if len(self.pending) == 1 else np.concatenate(self.pending)
            self.parts.append(_take(self.dictionary, idx))
            if self.keep_dictionary:
                self.chunk_indices.append(idx)
            self.pending = []

    def add_dictionary(self, page: DictionaryPage) -> None:
        if page.encoding not in (Encoding.PLAIN, Encoding.PLAIN_DICTIONARY):
            raise ParquetFormatError(f"dictionary page in encoding {page.encoding}; PLAIN expected")
        self.flush()
        d = self.desc
        self.dictionary = decode_values(Encoding.PLAIN, page.body, page.num_values,
                                        d.physical_type, d.type_length)

    def add_values(self, encoding: int, buf: Any, count: int) -> None:
        d = self.desc
        if encoding in _DICT_ENCODINGS:
            if self.dictionary is None:
                raise ParquetFormatError("dictionary-encoded page but the chunk has no dictionary page")
            indices = decode_values(encoding, buf, count, d.physical_type, d.type_length)
            # RLE-decoded indices are never negative, so the maximum is the only check.
            if len(indices) and int(indices.max()) >= len(self.dictionary):
                raise ParquetFormatError(
                    f"dictionary index {int(indices.max())} out of range for a dictionary "
                    f"of {len(self.dictionary)} values")
            self.pending.append(indices)
            return
        self.flush()
        self.fell_back = True
        self.parts.append(decode_values(encoding, buf, count, d.physical_type, d.type_length))

    def chunk_dictionary(self, first_part: int, num_levels: int) -> ChunkDictionary:
        """The dictionary and indices of the chunk whose values start at ``parts[first_part]``.

        Matches what pyarrow's dictionary reader gives: the dictionary page
        as stored; when the chunk has no dictionary page, or falls back to
        another encoding, the values not in it are appended in order of first
        appearance and equal values share the first such entry.
        """
        d = self.desc
        if self.dictionary is not None and not self.fell_back:
            idx = _concat_indices(self.chunk_indices)
            return ChunkDictionary(self.dictionary, idx, num_levels)
        values = _concat(self.parts[first_part:], d)
        base = self.dictionary if self.dictionary is not None else _concat([], d)
        merged, codes = build_dictionary(_concat([base, values], d) if len(base) else values,
                                         d.physical_type, d.type_length)
        return ChunkDictionary(merged, codes[len(base):].astype(np.int32, copy=False), num_levels)

    def start_chunk(self) -> None:
        self.dictionary = None
        self.chunk_indices = []
        self.fell_back = False

    def _non_null(self, defs: npt.NDArray[np.int16] | None, n: int) -> int:
        if defs is None:
            return n
        return int(np.count_nonzero(defs == self.desc.max_definition_level))

    def add_v1(self, page: DataPageV1) -> None:
        d = self.desc
        buf = memoryview(page.body)
        pos = 0
        reps = defs = None
        if d.max_repetition_level > 0:
            reps, pos = read_levels_v1(buf, pos, page.repetition_level_encoding,
                                       d.max_repetition_level, page.num_values, "repetition")
        if d.max_definition_level > 0:
            defs, pos = read_levels_v1(buf, pos, page.definition_level_encoding,
                                       d.max_definition_level, page.num_values, "definition")
        self._add_levels(defs, reps, page.num_values)
        self.add_values(page.encoding, buf[pos:], self._non_null(defs, page.num_values))

    def add_v2(self, page: DataPageV2) -> None:
        d = self.desc
        reps = defs = None
        if d.max_repetition_level > 0:
            reps = read_levels_v2(memoryview(page.repetition_levels), d.max_repetition_level,
                                  page.num_values, "repetition")
        if d.max_definition_level > 0:
            defs = read_levels_v2(memoryview(page.definition_levels), d.max_definition_level,
                                  page.num_values, "definition")
        self._add_levels(defs, reps, page.num_values)
        non_null = self._non_null(defs, page.num_values)
        if defs is None and page.num_nulls:
            raise ParquetFormatError("v2 page reports nulls in a required column")
        self.add_values(page.encoding, memoryview(page.values), non_null)

    def _add_levels(self, defs: Any, reps: Any, n: int) -> None:
        if defs is not None:
            if reps is None and not (defs != self.desc.max_definition_level).any():
                defs = n  # all present: keep just the count (flat columns without nulls)
            self.defs.append(defs)
        if reps is not None:
            self.reps.append(reps)
        self.num_levels += n

    def finish(self) -> ColumnData:
        self.flush()
        values = _concat(self.parts, self.desc)
        defs = None
        if self.desc.max_definition_level > 0 and not all(isinstance(d, int) for d in self.defs):
            m = self.desc.max_definition_level
            defs = _cat_levels([np.full(d, m, dtype=np.int16) if isinstance(d, int) else d
                                for d in self.defs])
        reps = _cat_levels(self.reps) if self.desc.max_repetition_level > 0 else None
        return ColumnData(values, defs, reps, self.num_levels)


def _cat_levels(parts: list[npt.NDArray[np.int16]]) -> npt.NDArray[np.int16]:
    if not parts:
        return np.zeros(0, dtype=np.int16)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def read_column_chunk(pages: Iterable[Page], desc: ColumnDescriptor) -> ColumnData:
    """Decode every page of a chunk into one :class:`ColumnData`.

    Raises
    ------
    ParquetFormatError
        On malformed levels or values; a note names the page ordinal.
    """
    return read_column_chunks([pages], desc)[0]


def read_column_chunks(chunks: Iterable[Iterable[Page]], desc: ColumnDescriptor,
                       keep_dictionary: bool = False) -> tuple[ColumnData, list[int]]:
    """Decode the chunks of one column from several row groups into one :class:`ColumnData`.

    Values of all the chunks are concatenated once, at the end, instead of
    once per chunk and again per table.  Each chunk has its own dictionary;
    with *keep_dictionary* each chunk's dictionary and indices are kept too
    (``ColumnData.dictionaries``, see :meth:`_ChunkDecoder.chunk_dictionary`).

    Returns
    -------
    tuple[ColumnData, list[int]]
        The decoded data and the number of level slots each chunk held.
    """
    dec = _ChunkDecoder(desc, keep_dictionary)
    per_chunk: list[int] = []
    kept: list[ChunkDictionary] = []
    for pages in chunks:
        before, first_part = dec.num_levels, len(dec.parts)
        dec.start_chunk()
        _decode_pages(dec, pages)
        dec.flush()
        per_chunk.append(dec.num_levels - before)
        if keep_dictionary:
            kept.append(dec.chunk_dictionary(first_part, per_chunk[-1]))
    data = dec.finish()
    if keep_dictionary:
        data = replace(data, dictionaries=tuple(kept))
    return data, per_chunk


def _concat_indices(parts: list[npt.NDArray[np.integer]]) -> npt.NDArray[np.int32]:
    if not parts:
        return np.zeros(0, dtype=np.int32)
    idx = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return idx.astype(np.int32, copy=False)


def _decode_pages(dec: _ChunkDecoder, pages: Iterable[Page]) -> None:
    for page in pages:
        try:
            if isinstance(page, DictionaryPage):
                dec.add_dictionary(page)
            elif isinstance(page, DataPageV1):
                dec.add_v1(page)
            else:
                dec.add_v2(page)
        except ParquetError as exc:
            exc.add_note(f"while decoding page {page.ordinal} at file offset {page.offset}")
            raise
        except (ValueError, IndexError, TypeError, OverflowError) as exc:
            err = ParquetFormatError(f"malformed page: {exc}")
            err.add_note(f"while decoding page {page.ordinal} at file offset {page.offset}")
            raise err from exc
