"""Small flat chunks (a PLAIN dictionary page and one data page, or one PLAIN page), decoded
in two steps so that the chunks of many small files can be finished together.

::

    simple_chunk_part(pages, desc)    one chunk: its pages checked, up to the values
                                      (the dictionary and the scanned indices, or the values)
    join_simple_parts(parts, desc)    the parts of several chunks of one column: the indices of
                                      every dictionary-encoded chunk expanded by one set of numpy
                                      calls, checked chunk by chunk, offset into the chunks'
                                      dictionaries joined end to end, and gathered by one take
    read_simple_chunk(pages, desc)    both steps for one chunk

A numpy call costs a few microseconds whatever its size, and a chunk of 2,000 values costs
a dozen of them to expand and gather: a folder of 300 small files paid that 1,500 times.
The chunks' values are the same whichever way they are joined (each chunk's indices point
into its own dictionary: the offsets added are the entries of the dictionaries before it).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.counting import is_counting
from parquet_core.column.data import ColumnData
from parquet_core.column.outputs import output_array
from parquet_core.column.reader import (
    _DICT_ENCODINGS,
    _DTYPES,
    _PLAIN,
    _full_run,
    _no_nulls_v1,
    _take_dictionary,
    _view,
    _whole_buffer,
)
from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings import decode_values
from parquet_core.encodings.plain import decode_plain_byte_array, decode_plain_byte_arrays_multi
from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    expand_dictionary_index_pages,
    indices_count_up,
    scan_dictionary_indices,
)
from parquet_core.errors import ParquetError
from parquet_core.page.model import DataPageV1, DataPageV2, DictionaryPage, Page
from parquet_core.schema.descriptor import ColumnDescriptor

__all__ = ["SimplePart", "simple_chunk_part", "join_simple_parts", "read_simple_chunk"]

#: Physical types decoded here (their PLAIN dictionaries are one numpy array or one ByteArrays).
_SIMPLE_TYPES = frozenset((PhysicalType.INT32, PhysicalType.INT64, PhysicalType.FLOAT, PhysicalType.DOUBLE,
                           PhysicalType.BYTE_ARRAY))

#: One chunk decoded up to its values: ``(n, values, None, None)`` when the values are known
#: (a PLAIN page, or indices 0..n-1 over a dictionary of n entries: the dictionary itself),
#: else ``(n, None, dictionary, indices)``, *indices* scanned by
#: :func:`~parquet_core.encodings.rle_hybrid.scan_dictionary_indices` (a tuple) or already
#: decoded (an int array).
SimplePart = tuple

_FAILS = (ParquetError, ValueError, IndexError, TypeError, OverflowError)


def read_simple_chunk(pages: list[Page], desc: ColumnDescriptor) -> ColumnData | None:
    """The chunk of a flat column stored as small files and wide tables hold it, decoded
    without the run machinery of :func:`~parquet_core.column.reader.read_column_chunks`: a
    PLAIN dictionary page and one data page (v1 or v2) of dictionary indices, or one PLAIN
    page of a fixed-width type; no nulls.  The same values and checks as that reader; None
    for any other chunk, and for a chunk that fails a check (that reader then raises the
    error, naming the page).

    Indices ``0 .. n-1`` over a dictionary of *n* entries (a column of distinct values)
    are told from their bytes (:func:`~parquet_core.encodings.rle_hybrid.indices_count_up`):
    the values are then the dictionary itself, neither unpacked nor gathered.
    """
    part = simple_chunk_part(pages, desc)
    return None if part is None else join_simple_parts([part], desc)


def simple_chunk_part(pages: list[Page], desc: ColumnDescriptor) -> SimplePart | None:
    """The first step of :func:`read_simple_chunk`: the pages checked and decoded up to the
    values (see :data:`SimplePart`), or None for a chunk of another shape or one that fails
    a check."""
    if desc.max_repetition_level or desc.max_definition_level > 1 or desc.physical_type not in _SIMPLE_TYPES:
        return None
    if len(pages) == 2:
        dpage, page = pages
        if type(dpage) is not DictionaryPage or dpage.encoding not in (_PLAIN, Encoding.PLAIN_DICTIONARY):
            return None
    elif len(pages) == 1:
        dpage, page = None, pages[0]
    else:
        return None
    n = page.num_values
    if not n:
        return None
    if type(page) is DataPageV1:
        buf = _view(page.body)
        stop = 0
        if desc.max_definition_level:
            stop = _no_nulls_v1(buf, 0, page.definition_level_encoding, 1, n)
            if stop < 0:
                return None     # nulls: the levels are decoded by the full reader
        if stop:
            buf = buf[stop:]
    elif type(page) is DataPageV2:
        if desc.max_definition_level:
            dl = page.definition_levels
            if len(dl) > 6 or bytes(dl) != _full_run(n, 1):
                return None     # nulls (or levels laid out otherwise): the full reader
        elif page.num_nulls:
            return None         # the full reader names the bad page
        buf = _view(page.values)
    else:
        return None
    encoding = page.encoding
    ptype = desc.physical_type
    dtype = _DTYPES.get(ptype)
    dictionary: Any
    try:
        if encoding == _PLAIN:
            if dpage is not None or dtype is None or len(buf) < n * dtype.itemsize:
                return None
            return n, np.frombuffer(buf, dtype=dtype, count=n), None, None
        if encoding not in _DICT_ENCODINGS or dpage is None:
            return None
        size = dpage.num_values
        body = dpage.body
        if dtype is not None and 0 <= size * dtype.itemsize <= len(body):
            dictionary = np.frombuffer(body, dtype=dtype, count=size)
        elif dtype is None and size >= 0:
            # byte arrays: decoded by join_simple_parts, the dictionaries of a run together
            dictionary = _Undecoded(body, size)
        else:
            dictionary = decode_values(_PLAIN, body, size, ptype, desc.type_length)
        if n == size and dtype is not None and indices_count_up(buf, n):
            # indices 0 .. n-1 (distinct values): the values are the dictionary, no copy
            # unless it views bytes it does not own (an uncompressed page of the file)
            return n, dictionary if _whole_buffer(dictionary) else dictionary.copy(), None, None
        # the page scanned as read_column_chunks does (runs of 504 values, as pyarrow
        # writes high-cardinality indices), expanded by join_simple_parts
        scanned = scan_dictionary_indices(buf, n)
        return n, None, dictionary, decode_dictionary_indices(buf, n) if scanned is None else scanned
    except _FAILS:
        return None


class _Undecoded:
    """A PLAIN BYTE_ARRAY dictionary page's body and entry count, decoded when joined
    (:func:`_dictionaries`): one decode for the dictionaries of a run of chunks."""

    __slots__ = ("body", "count")

    def __init__(self, body: Any, count: int) -> None:
        self.body = body
        self.count = count

    def __len__(self) -> int:
        return self.count


def _dictionaries(parts: Sequence[SimplePart]) -> Any:
    """The dictionaries of *parts*, one after another (those of byte arrays decoded by one
    call, with the checks of a page-by-page decode)."""
    dictionaries = [p[2] for p in parts]
    if type(dictionaries[0]) is _Undecoded:
        if len(dictionaries) == 1:
            return decode_plain_byte_array(dictionaries[0].body, dictionaries[0].count)[0]
        return decode_plain_byte_arrays_multi([d.body for d in dictionaries], [d.count for d in dictionaries])
    return dictionaries[0] if len(dictionaries) == 1 else np.concatenate(dictionaries)


def join_simple_parts(parts: Sequence[SimplePart], desc: ColumnDescriptor) -> ColumnData | None:
    """The values of several chunks of one column (:func:`simple_chunk_part` each, at least
    one), in order, as one ColumnData; None when a chunk fails a check here (an index
    outside its dictionary, a bad run of indices): the caller reads the chunks again through
    the full reader, which names the page."""
    try:
        pieces: list[Any] = []
        pending: list[SimplePart] = []
        for part in parts:
            if part[1] is not None:
                if pending:
                    pieces.append(_gathered(pending))
                    pending = []
                pieces.append(part[1])
            else:
                pending.append(part)
        if pending:
            pieces.append(_gathered(pending))
    except _FAILS:
        return None
    if any(p is None for p in pieces):
        return None
    if len(pieces) == 1:
        values = pieces[0]
    elif isinstance(pieces[0], ByteArrays):
        values = ByteArrays.concat(pieces)
    else:
        values = np.concatenate(pieces)
    return ColumnData(values, None, None, sum(p[0] for p in parts))


def _indices(parts: Sequence[SimplePart]) -> npt.NDArray[np.integer]:
    """The indices of dictionary-encoded *parts*, one after another: runs of scanned pages
    expanded by one call each."""
    out: list[npt.NDArray[np.integer]] = []
    scanned: list[Any] = []
    for part in parts:
        idx = part[3]
        if isinstance(idx, tuple):
            scanned.append(idx)
            continue
        if scanned:
            out.append(expand_dictionary_index_pages(scanned))
            scanned = []
        out.append(idx)
    if scanned:
        out.append(expand_dictionary_index_pages(scanned))
    return out[0] if len(out) == 1 else np.concatenate(out)


def _gathered(parts: Sequence[SimplePart]) -> Any:
    """The values of dictionary-encoded *parts* (None when an index is outside its chunk's
    dictionary)."""
    idx = _indices(parts)
    if len(parts) == 1:
        if int(idx[-1] if is_counting(idx) else idx.max()) >= len(parts[0][2]):
            return None
        dictionary = _dictionaries(parts)
        if isinstance(dictionary, ByteArrays):
            return dictionary.take(idx)
        out = output_array(len(idx), dictionary.dtype) if dictionary.ndim == 1 else None
        return _take_dictionary(dictionary, idx, out)
    counts = np.fromiter((p[0] for p in parts), dtype=np.int64, count=len(parts))
    sizes = np.fromiter((len(p[2]) for p in parts), dtype=np.int64, count=len(parts))
    starts = np.zeros(len(parts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    # each chunk's largest index against its own dictionary (every chunk has values)
    if (np.maximum.reduceat(idx, starts) >= sizes).any():
        return None
    # each chunk's indices moved past the entries of the dictionaries before it
    bases = np.zeros(len(parts), dtype=np.int64)
    np.cumsum(sizes[:-1], out=bases[1:])
    moved = idx + np.repeat(bases, counts)
    dictionary = _dictionaries(parts)
    if isinstance(dictionary, ByteArrays):
        return dictionary.take(moved)
    return dictionary.take(moved, axis=0)
