"""Decode column chunks: dictionary, levels and values of every page.

Values are decoded per *run* of consecutive pages, not per page, and land in
one output for the whole column (all the chunks read together):

* dictionary-encoded pages: each page's index stream is checked and its runs
  found when the page is added (:func:`~parquet_core.encodings.rle_hybrid.scan_dictionary_indices`),
  the indices of the run's pages are expanded together as narrow codes
  (:func:`~parquet_core.encodings.rle_hybrid.expand_dictionary_index_codes`:
  one or two bytes an index, one window copy per run) and resolved with one
  gather per run, written straight into the output (``np.take(out=)``); when
  the codes path refuses a run (an index past the dictionary, a damaged page,
  indices of more than 16 bits), the int32 index path
  (:func:`~parquet_core.encodings.rle_hybrid.expand_dictionary_index_pages`)
  expands them and its error names the page;
* PLAIN pages of a fixed-width type: each page's bytes are checked for
  length and copied into the preallocated output, with no per-page array;
* PLAIN BYTE_ARRAY pages: the run is decoded as one stream
  (:func:`decode_plain_byte_arrays_multi`); when a BYTE_ARRAY column has
  several runs (a chunk's dictionary-encoded pages, then its PLAIN fallback
  pages; several chunks), each run is located first (the dictionary
  indices, the PLAIN values' starts: :func:`plan_plain_byte_arrays_multi`)
  and its bytes copied straight into one output
  (:meth:`~parquet_core._kernels.binary.BytesPlan.join`), not decoded
  into parts and joined by another copy;
* DELTA_BYTE_ARRAY BYTE_ARRAY pages: the run is decoded together
  (:func:`~parquet_core.encodings.delta_byte_array.decode_delta_byte_arrays_together`:
  both length streams of every page at once, the prefixes of the whole run
  resolved in one pass); any bad page sends the run page by page, whose error
  names it;
* PLAIN BOOLEAN pages: each page's bytes are checked for length and kept;
  the run is unpacked by one call, each page's padding bits dropped;
* any other encoding (delta, byte stream split, booleans...): decoded page
  by page, then copied into the output.

A chunk may switch to another encoding midway (a writer's dictionary
fallback); values still come out in page order.  Definition levels of a flat
page without nulls are recognised from their bytes (one RLE run of the
maximum level) and kept as a count, so such pages cost no level decoding.
A flat optional column (maximum definition level 1) holds its pages back
until the end of the chunk (or a dictionary page, or a few MB of held
bytes) and decodes the definition levels of all of them at once, straight
to a validity bitmap (:func:`~parquet_core.encodings.rle_validity.decode_validity`):
its levels come out as an int8 array of 0/1, a view of that bitmap.

:func:`iter_chunk_pieces` decodes the same pages one at a time, for readers
that yield batches before the chunk is done.
"""

from __future__ import annotations

from dataclasses import replace
from enum import IntEnum
from typing import Any, Iterable, Iterator, cast

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays, BytesPlan
from parquet_core._kernels.counting import is_counting
from parquet_core.column.data import ChunkDictionary, ColumnData
from parquet_core.column.levels import read_levels_v1, read_levels_v2
from parquet_core.column.outputs import output_array, output_rows
from parquet_core.column.page_slices import slice_pages
from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings import decode_values, empty_values
from parquet_core.encodings.delta_binary_packed import (
    delta_binary_packed_page_header,
    expand_delta_binary_packed_pages,
    expand_held_delta_binary_packed_pages,
    scan_held_delta_binary_packed_page,
)
from parquet_core.encodings.delta_byte_array import (
    FrontCodedPages,
    decode_delta_byte_array,
    decode_delta_byte_arrays_together,
    prepare_delta_byte_arrays,
)
from parquet_core.encodings.dictionary import build_dictionary
from parquet_core.encodings.plain import (
    decode_plain_byte_array,
    decode_plain_byte_arrays_multi,
    plan_plain_byte_arrays_multi,
)
from parquet_core.encodings.rle_hybrid import (
    expand_dictionary_index_codes,
    expand_dictionary_index_pages,
    scan_dictionary_indices,
)
from parquet_core.encodings.rle_validity import decode_validity
from parquet_core.errors import ParquetError, ParquetFormatError, add_page_context, out_of_memory
from parquet_core.page.model import DataPageV1, DataPageV2, DictionaryPage, Page
from parquet_core.schema.descriptor import ColumnDescriptor

__all__ = ["PIECE_MAX_HELD", "PendingRange", "decode_plain_byte_arrays_multi", "iter_chunk_pieces",
           "read_column_chunk", "read_column_chunks", "read_page_range"]

_DICT_ENCODINGS = frozenset((int(Encoding.PLAIN_DICTIONARY), int(Encoding.RLE_DICTIONARY)))
_PLAIN = int(Encoding.PLAIN)
_RLE = int(Encoding.RLE)
_DBP = int(Encoding.DELTA_BINARY_PACKED)
_DBP_TYPES = frozenset((PhysicalType.INT32, PhysicalType.INT64))

#: numpy dtype of the 1-D fixed-width physical types
_DTYPES: dict[int, np.dtype[Any]] = {PhysicalType.INT32: np.dtype("<i4"), PhysicalType.INT64: np.dtype("<i8"),
           PhysicalType.FLOAT: np.dtype("<f4"), PhysicalType.DOUBLE: np.dtype("<f8")}

#: PLAIN BYTE_ARRAY pages are decoded together in runs of up to this many bytes
#: (their bodies are held until then); larger pages are decoded on their own.
_DEFER_MAX_RUN = 16 << 20
_DEFER_MAX_PAGE = 4 << 20
#: Dictionary-index pages of at most this many values are scanned when added and
#: expanded together per run (larger pages gain nothing from it: decoded on their own).
_SCAN_MAX_COUNT = 1 << 16
#: Pages of a flat optional column are held for one batched level decode
#: until their bodies reach this many bytes.
_HOLD_MAX_BYTES = 16 << 20



class RunKind(IntEnum):
    """What the pages of one value run hold (see :class:`_Run`)."""

    DICT = 0     # dictionary indices (with the run's dictionary)
    FIXED = 1    # PLAIN fixed-width values
    BYTES = 2    # PLAIN byte arrays, decoded together
    DONE = 3     # values decoded already
    BOOLS = 4    # PLAIN booleans
    DELTA = 5    # DELTA_BINARY_PACKED pages, unpacked together
    FRONT = 6    # DELTA_BYTE_ARRAY byte arrays, decoded together


_DICT, _FIXED, _BYTES, _DONE, _BOOLS, _DELTA = (RunKind.DICT, RunKind.FIXED, RunKind.BYTES, RunKind.DONE,
                                                RunKind.BOOLS, RunKind.DELTA)
_FRONT = RunKind.FRONT


#: Encodings of BYTE_ARRAY pages whose values are decoded a run of pages at a time.
_HELD_BYTES = {int(Encoding.PLAIN): _BYTES, int(Encoding.DELTA_BYTE_ARRAY): _FRONT}

# PLAIN BYTE_ARRAY over several pages: ``encodings.plain.decode_plain_byte_arrays_multi``
# (imported above) walks every page of a run in one pass; each page's values are read
# from its own buffer only, so bytes after a page's values never become values.


# ---------------------------------------------------------------------------------------
# Level fast path
# ---------------------------------------------------------------------------------------

_FULL_RUNS: dict[tuple[int, int], bytes] = {}


def _full_run(n: int, level: int) -> bytes:
    """The RLE-hybrid bytes of one RLE run of *n* copies of *level* (< 256)."""
    key = (n, level)
    got = _FULL_RUNS.get(key)
    if got is None:
        h = n << 1
        out = bytearray()
        while h >= 0x80:
            out.append((h & 0x7F) | 0x80)
            h >>= 7
        out.append(h)
        out.append(level)
        got = bytes(out)
        if len(_FULL_RUNS) < 4096:
            _FULL_RUNS[key] = got
    return got


_FULL_RUNS_V1: dict[tuple[int, int], bytes] = {}


def _no_nulls_v1(buf: memoryview, pos: int, encoding: int, max_def: int, n: int) -> int:
    """End of the v1 definition levels at *pos* if they are one run of *max_def* covering
    the page exactly (as writers store a page without nulls), else -1."""
    if encoding != _RLE or max_def > 255:
        return -1
    key = (n, max_def)
    want = _FULL_RUNS_V1.get(key)
    if want is None:
        # the 4-byte length of the stream, then the stream: compared in one go
        run = _full_run(n, max_def)
        want = len(run).to_bytes(4, "little") + run
        if len(_FULL_RUNS_V1) < 4096:
            _FULL_RUNS_V1[key] = want
    stop = pos + len(want)
    # a short buffer gives a shorter slice, which never equals *want*
    return stop if buf[pos:stop] == want else -1


def _v1_level_stream(buf: memoryview, n: int) -> tuple[memoryview, int]:
    """The RLE level stream at the start of a v1 page body (without its 4-byte length)
    and the position after it; the same checks as :func:`read_levels_v1`."""
    size = len(buf)
    if size < 4:
        raise ParquetFormatError(
            f"v1 level stream at byte 0: no room for its 4-byte length ({size} bytes)")
    length = int.from_bytes(buf[:4], "little")
    if 4 + length > size:
        raise ParquetFormatError(
            f"v1 level stream at byte 0 declares {length} bytes, only {size - 4} remain")
    return buf[4:4 + length], 4 + length


# ---------------------------------------------------------------------------------------
# The decoder
# ---------------------------------------------------------------------------------------


class _Run:
    """Values of consecutive pages that are decoded together."""

    __slots__ = ("kind", "dictionary", "parts", "counts", "where", "total", "nbytes", "values")

    def __init__(self, kind: RunKind, dictionary: Any = None) -> None:
        self.kind = kind
        self.dictionary = dictionary
        self.parts: list[Any] = []      # index arrays, page byte views or decoded values
        self.counts: list[int] = []     # _BYTES: values per page
        self.where: list[tuple[int, int]] = []  # _BYTES: (ordinal, offset) per page
        self.total = 0
        self.nbytes = 0                 # _BYTES: bytes of the held page bodies
        self.values: Any = None         # materialised values, once computed

    def indices(self) -> npt.NDArray[np.integer]:
        p = self.parts
        if len(p) != 1 or type(p[0]) is tuple:
            self.parts = p = [_expand_indices(p, self.where, len(self.dictionary)) if p
                              else np.zeros(0, dtype=np.int32)]
            self.where = []
        return p[0]


def _expand_indices(parts: list[Any], where: list[tuple[int, int]], size: int) -> npt.NDArray[np.integer]:
    """The indices of a run's pages in one array: pages decoded already (arrays) as they
    are, runs of scanned pages (tuples) expanded together and checked against the
    dictionary's *size*; an index out of range names its page."""
    out: list[npt.NDArray[np.integer]] = []
    i, n = 0, len(parts)
    while i < n:
        if type(parts[i]) is not tuple:
            out.append(parts[i])
            i += 1
            continue
        j = i + 1
        while j < n and type(parts[j]) is tuple:
            j += 1
        try:
            idx = expand_dictionary_index_pages(parts[i:j])
        except ParquetFormatError as exc:
            k = getattr(exc, "page_index", None)
            if k is not None:       # a page whose RLE value is checked only now
                add_page_context(exc, *where[i + k])
            raise
        if idx.size and int(idx[-1] if is_counting(idx) else idx.max()) >= size:
            # which page: the first whose own maximum is out of range
            counts = [p[3] for p in parts[i:j]]
            firsts = np.cumsum([0] + counts[:-1])
            bad = int(np.flatnonzero(np.maximum.reduceat(idx, firsts) >= size)[0])
            page_max = int(idx[firsts[bad]:firsts[bad] + counts[bad]].max())
            err = ParquetFormatError(f"dictionary index {page_max} out of range for a dictionary "
                                     f"of {size} values")
            add_page_context(err, *where[i + bad])
            raise err
        out.append(idx)
        i = j
    return out[0] if len(out) == 1 else np.concatenate(out)


def _lookup_values(run: _Run, out: npt.NDArray[Any] | None) -> npt.NDArray[Any] | None:
    """The values of a run of scanned dictionary-index pages of a fixed-width
    dictionary, taken at their indices as narrow codes (:func:`_codes`) into *out* when
    given, or None: then the indices are expanded and taken, which checks them and
    names a page in error."""
    if type(run.dictionary) is not np.ndarray:
        return None
    codes = _codes(run)
    return None if codes is None else _take_dictionary(run.dictionary, codes, out)


def _codes(run: _Run) -> npt.NDArray[Any] | None:
    """The indices of a run of scanned dictionary-index pages as narrow codes, all inside
    its dictionary (see :func:`expand_dictionary_index_codes`), or None (then the index
    path expands and checks them, naming a page in error)."""
    parts = run.parts
    if not parts or any(type(p) is not tuple for p in parts):
        return None
    try:
        return expand_dictionary_index_codes(parts, len(run.dictionary))
    except ParquetFormatError:
        return None     # the index path raises it again, naming the page


def _take_dictionary(dictionary: npt.NDArray[Any], idx: npt.NDArray[np.integer],
                     out: npt.NDArray[Any] | None) -> npt.NDArray[Any]:
    """The entries of a fixed-width *dictionary* at *idx* (checked in range), into *out*
    when given.

    Indices that count up by one are a slice of the dictionary, copied as such: a
    column of distinct values dictionary-encoded until the dictionary fills up (as
    parquet-mr writes Spark's timestamps and ids) has entries in order of first
    appearance, so its indices are 0, 1, 2...  Checked by the two ends first (free),
    then by one comparison; any other indices are taken.
    """
    n = len(idx)
    if n > 1 and n <= len(dictionary):
        first = int(idx[0])
        if is_counting(idx) or int(idx[-1]) == first + n - 1 and \
                np.array_equal(idx, np.arange(first, first + n, dtype=idx.dtype)):
            if out is None:
                return dictionary[first:first + n].copy()
            out[...] = dictionary[first:first + n]
            return out
    if n >= 2 * _GATHER_BLOCK and idx.dtype != np.intp:
        if out is None:
            out = np.empty((n, *dictionary.shape[1:]), dtype=dictionary.dtype)
        if _gather_pairs(dictionary, idx, out):
            return out
        return _gather_in_blocks(dictionary, idx, out)
    if out is None:
        return np.take(dictionary, idx, axis=0)
    # indices were checked against the dictionary (never negative), so clipping
    # changes nothing and spares numpy a buffered copy
    return np.take(dictionary, idx, axis=0, out=out, mode="clip")


def _whole_buffer(arr: npt.NDArray[Any]) -> bool:
    """Whether *arr* spans all of the memory it views (a dictionary decompressed into a
    buffer of its own, not a view into a chunk's bytes that would keep them alive)."""
    base = arr.base
    if base is None:
        return True
    if type(base) is memoryview:
        base = base.obj
    if isinstance(base, np.ndarray):
        return base.nbytes == arr.nbytes
    if isinstance(base, (bytes, bytearray)):
        return len(base) == arr.nbytes
    return False


#: Large gathers convert their indices to numpy's index type this many at a time.
_GATHER_BLOCK = 1 << 15


def _gather_in_blocks(dictionary: npt.NDArray[Any], idx: npt.NDArray[np.integer],
                      out: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``np.take(dictionary, idx, axis=0, out=out)`` for int32 (or narrower) indices
    checked in range, a block of :data:`_GATHER_BLOCK` indices at a time.

    ``np.take`` first converts the whole index array to ``intp``: a fresh array of
    8 bytes per value, whose page faults cost more than the gather itself (1M
    indices into 8-byte values: ~5 ms against ~2 ms).  Here the conversion goes
    through one small scratch buffer that stays in cache.
    """
    n = len(idx)
    step = _GATHER_BLOCK
    scratch = np.empty(step, dtype=np.intp)
    for i in range(0, n, step):
        j = min(i + step, n)
        block = scratch[:j - i]
        np.copyto(block, idx[i:j], casting="unsafe")
        # in range (checked by the callers), so clipping changes nothing
        np.take(dictionary, block, axis=0, out=out[i:j], mode="clip")
    return out


#: :func:`_gather_pairs` serves dictionaries of at most this many entries (its table of
#: pairs has ``(entries - 1) * 257 + 1`` rows: 3,856 of 16 bytes at most, kept in cache).
_PAIR_MAX_ENTRIES = 16


def _gather_pairs(dictionary: npt.NDArray[Any], idx: npt.NDArray[np.integer],
                  out: npt.NDArray[Any]) -> bool:
    """:func:`_gather_in_blocks` two values a step, for one-byte codes (checked in range)
    into a small dictionary of 1 to 8-byte values: True when done, False (nothing
    written) for any other case.

    Two neighbouring codes read as one little-endian ``uint16`` ``a + 256 * b`` index a
    table whose row ``a + 256 * b`` holds the entries ``a`` and ``b`` side by side, so one
    gather of 2-value elements writes the output: half the elements, and numpy's take
    costs per element more than per byte (300,000 codes into a float64 dictionary of 8:
    ~160 against ~235 us; the table costs a few us).  Rows whose ``a`` or ``b`` is past the
    dictionary are never read (the codes are in range) and hold its last entry.
    """
    k = len(dictionary)
    isz = dictionary.itemsize
    if idx.dtype != np.uint8 or dictionary.ndim != 1 or not 0 < k <= _PAIR_MAX_ENTRIES \
            or isz not in (1, 2, 4, 8) or out.ndim != 1 or not out.flags.c_contiguous \
            or out.dtype != dictionary.dtype or not idx.flags.c_contiguous:
        return False
    rows = (k - 1) * 257 + 1
    at = np.arange(rows, dtype=np.intp)
    table = np.empty((rows, 2), dtype=dictionary.dtype)
    np.take(dictionary, np.minimum(at & 255, k - 1), out=table[:, 0])
    np.take(dictionary, np.minimum(at >> 8, k - 1), out=table[:, 1])
    pair = np.dtype((np.void, 2 * isz))
    table_pairs = table.view(pair).reshape(rows)
    n = len(idx)
    half = n >> 1
    codes = idx[:2 * half].view("<u2")
    dst = out[:2 * half].view(pair)
    step = _GATHER_BLOCK
    scratch = np.empty(min(step, half), dtype=np.intp)
    for i in range(0, half, step):
        j = min(i + step, half)
        block = scratch[:j - i]
        np.copyto(block, codes[i:j], casting="unsafe")
        np.take(table_pairs, block, out=dst[i:j], mode="clip")
    if n & 1:
        out[n - 1] = dictionary[idx[n - 1]]
    return True


def _v2_levels(buf: Any, max_level: int, n: int, what: str) -> npt.NDArray[np.int16]:
    """A v2 page's levels: decoded from its stream, or the decoded levels a small page cut
    from a big one carries (:mod:`parquet_core.column.page_slices`, checked there)."""
    if isinstance(buf, np.ndarray):
        if buf.dtype != np.int16 or buf.size != n:
            raise ParquetFormatError(f"{what} levels: {buf.size} decoded, the page has {n}")
        return buf
    return read_levels_v2(memoryview(buf), max_level, n, what)


def _view(buf: Any) -> memoryview:
    """*buf* as a flat byte memoryview (``len`` counts bytes)."""
    view = buf if type(buf) is memoryview else memoryview(buf)
    if view.itemsize != 1 or view.ndim != 1:
        view = view.cast("B")
    return view


def _page_error(exc: Exception) -> ParquetError:
    """The ParquetError that replaces an exception of numpy or Python raised while decoding
    (a MemoryError: the decoded values did not fit in memory)."""
    if isinstance(exc, MemoryError):
        return out_of_memory(exc, "decoding a column chunk")
    return ParquetFormatError(f"malformed page: {exc}")


class _ChunkDecoder:
    """Accumulates the decoded pages of one column (one or more chunks).

    Its state is written by its own methods only: :meth:`decode_pages` /
    :meth:`decode_page` take pages, :meth:`piece` hands back what the pages
    since the last piece decoded to.
    """

    __slots__ = ("desc", "keep_dictionary", "ptype", "max_def", "max_rep", "dtype", "width", "bools",
                 "batch_indices", "dictionary", "runs", "chunk_first_run", "fell_back", "dict_pages",
                 "defs", "reps", "num_levels", "ordinal", "offset", "bits", "held", "held_bytes")

    desc: ColumnDescriptor
    keep_dictionary: bool
    ptype: int                  # the PhysicalType
    max_def: int
    max_rep: int
    dtype: np.dtype[Any] | None
    width: int                  # byte width of a PLAIN value when the type is fixed-width (else 0)
    bools: bool                 # PLAIN booleans unpacked per run of pages
    batch_indices: bool         # dictionary indices expanded per run of pages
    dictionary: Any             # the current chunk's dictionary values
    runs: list[_Run]
    chunk_first_run: int        # the first run of the current chunk
    fell_back: bool             # this chunk holds pages in another encoding
    dict_pages: int             # dictionary pages seen in this chunk
    # Definition levels per page; an int stands for a page without nulls.
    defs: list[npt.NDArray[np.int16] | npt.NDArray[np.bool_] | int]
    reps: list[npt.NDArray[np.int16]]
    num_levels: int
    ordinal: int                # ordinal and file offset of the page being decoded
    offset: int
    bits: bool                  # flat optional column: levels decoded for several pages at once
    # the pages held for that batched decode, as (level stream or None when the page has no
    # nulls, levels, value encoding, value bytes, ordinal, offset)
    held: list[tuple[memoryview | None, int, int, Any, int, int]]
    held_bytes: int

    def __init__(self, desc: ColumnDescriptor, keep_dictionary: bool = False) -> None:
        self.desc = desc
        self.keep_dictionary = keep_dictionary
        pt = desc.physical_type
        self.ptype = pt
        self.max_def = desc.max_definition_level
        self.max_rep = desc.max_repetition_level
        self.dtype = _DTYPES.get(pt)
        tl = desc.type_length
        if self.dtype is not None:
            self.width = self.dtype.itemsize
        elif pt == PhysicalType.INT96:
            self.width = 12
        elif pt == PhysicalType.FIXED_LEN_BYTE_ARRAY and tl is not None and tl > 0:
            self.width = tl
        else:
            self.width = 0
        self.bools = pt == PhysicalType.BOOLEAN
        self.batch_indices = True
        self.dictionary = None
        self.runs = []
        self.chunk_first_run = 0
        self.fell_back = False
        self.dict_pages = 0
        self.defs = []
        self.reps = []
        self.num_levels = 0
        self.ordinal = 0
        self.offset = 0
        self.bits = self.max_rep == 0 and self.max_def == 1
        self.held = []
        self.held_bytes = 0

    # -- chunks ------------------------------------------------------------------------

    def start_chunk(self) -> None:
        self.dictionary = None
        self.fell_back = False
        self.dict_pages = 0
        self.chunk_first_run = len(self.runs)

    def add_dictionary(self, page: DictionaryPage) -> None:
        if page.encoding not in (Encoding.PLAIN, Encoding.PLAIN_DICTIONARY):
            raise ParquetFormatError(f"dictionary page in encoding {page.encoding}; PLAIN expected")
        d = self.desc
        self.dictionary = decode_values(Encoding.PLAIN, page.body, page.num_values,
                                        d.physical_type, d.type_length)
        self.dict_pages += 1
        if self.dict_pages > 1:
            self.fell_back = True   # values of one chunk under two dictionaries

    # -- values ------------------------------------------------------------------------

    def _run(self, kind: RunKind, dictionary: Any = None) -> _Run:
        runs = self.runs
        if runs and len(runs) > self.chunk_first_run:
            last = runs[-1]
            if last.kind == kind and last.dictionary is dictionary:
                return last
        run = _Run(kind, dictionary)
        runs.append(run)
        return run

    def add_values(self, encoding: int, buf: Any, count: int) -> None:
        if encoding in _DICT_ENCODINGS:
            dictionary = self.dictionary
            if dictionary is None:
                raise ParquetFormatError("dictionary-encoded page but the chunk has no dictionary page")
            if self.batch_indices and 0 < count <= _SCAN_MAX_COUNT:
                # checked and scanned now (errors name this page), expanded with the
                # other pages of the run (_Run.indices)
                scanned = scan_dictionary_indices(buf, count)
                if scanned is not None:
                    run = self._run(_DICT, dictionary)
                    run.parts.append(scanned)
                    run.where.append((self.ordinal, self.offset))
                    run.total += count
                    return
            d = self.desc
            indices = decode_values(encoding, buf, count, d.physical_type, d.type_length)
            # RLE-decoded indices are never negative, so the maximum is the only check.
            if count and int(indices.max()) >= len(dictionary):
                raise ParquetFormatError(
                    f"dictionary index {int(indices.max())} out of range for a dictionary "
                    f"of {len(dictionary)} values")
            run = self._run(_DICT, dictionary)
            run.parts.append(indices)
            run.where.append((self.ordinal, self.offset))
            run.total += count
            return
        self.fell_back = True
        if count == 0:
            decode_values(encoding, b"", 0, self.ptype, self.desc.type_length)  # checks the encoding
            return
        if encoding == _PLAIN:
            width = self.width
            if width:
                nbytes = count * width
                if len(buf) < nbytes:
                    raise ParquetFormatError(
                        f"PLAIN {PhysicalType(self.ptype).name}: {count} values need {nbytes} bytes, "
                        f"the page has {len(buf)}")
                run = self._run(_FIXED)
                run.parts.append(buf[:nbytes])
                run.total += count
                return
            if self.bools and len(buf) >= (count + 7) >> 3:
                # bit-packed booleans: the bytes of each page, unpacked once per run
                run = self._run(_BOOLS)
                run.parts.append(buf[:(count + 7) >> 3])
                run.counts.append(count)
                run.total += count
                return
        if encoding in _HELD_BYTES and self.ptype == PhysicalType.BYTE_ARRAY \
                and len(buf) < _DEFER_MAX_PAGE:
            run = self._run(_HELD_BYTES[encoding])
            run.parts.append(buf)
            run.counts.append(count)
            run.where.append((self.ordinal, self.offset))
            run.total += count
            run.nbytes += len(buf)
            if run.nbytes >= _DEFER_MAX_RUN:
                # decode now, releasing the page bodies (bounds the memory held)
                values = self._decode_bytes(run)
                run.kind, run.parts, run.counts, run.where = _DONE, [values], [], []
            return
        if encoding == _DBP and self.ptype in _DBP_TYPES:
            # the stream header checked now; the blocks of all pages of the run are
            # checked and unpacked together (errors still name the page: _expand_delta)
            held = delta_binary_packed_page_header(buf, count, self.dtype)
            if held is not None:
                run = self._run(_DELTA)
                run.parts.append(held)
                run.where.append((self.ordinal, self.offset))
                run.total += count
                return
        d = self.desc
        run = self._run(_DONE)
        run.parts.append(decode_values(encoding, buf, count, d.physical_type, d.type_length))
        run.total += count

    # -- levels ------------------------------------------------------------------------

    def add_v1(self, page: DataPageV1) -> None:
        buf = _view(page.body)
        n = page.num_values
        pos = 0
        reps = None
        max_def = self.max_def
        if self.bits and page.definition_level_encoding == _RLE:
            # what _hold does, written out (once per page of a flat optional column)
            stop = _no_nulls_v1(buf, 0, _RLE, 1, n)
            if stop >= 0:
                stream = None
            else:
                stream, stop = _v1_level_stream(buf, n)
                if not n:
                    stream = None
            self.held.append((stream, n, page.encoding, buf[stop:], self.ordinal, self.offset))
            self.held_bytes += len(buf)
            self.num_levels += n
            return
        self.flush()
        if self.max_rep > 0:
            reps, pos = read_levels_v1(buf, pos, page.repetition_level_encoding,
                                       self.max_rep, n, "repetition")
        elif max_def > 0:
            stop = _no_nulls_v1(buf, pos, page.definition_level_encoding, max_def, n)
            if stop >= 0:
                self.defs.append(n)
                self.num_levels += n
                self.add_values(page.encoding, buf[stop:], n)
                return
        non_null = n
        if max_def > 0:
            defs, pos = read_levels_v1(buf, pos, page.definition_level_encoding,
                                       max_def, n, "definition")
            non_null = self._add_defs(defs, reps is None, n)
        if reps is not None:
            self.reps.append(reps)
        self.num_levels += n
        self.add_values(page.encoding, buf[pos:], non_null)

    def add_v2(self, page: DataPageV2) -> None:
        n = page.num_values
        max_def = self.max_def
        if self.bits:
            dl = page.definition_levels
            values = _view(page.values)
            if len(dl) <= 6 and bytes(dl) == _full_run(n, 1) or n == 0:
                self._hold(None, n, page.encoding, values, len(values))
            else:
                self._hold(_view(dl), n, page.encoding, values, len(values) + len(dl))
            return
        self.flush()
        reps = None
        if self.max_rep > 0:
            reps = _v2_levels(page.repetition_levels, self.max_rep, n, "repetition")
        non_null = n
        if max_def > 0:
            dl = page.definition_levels
            if reps is None and max_def < 256 and len(dl) <= 6 and bytes(dl) == _full_run(n, max_def):
                self.defs.append(n)
            else:
                defs = _v2_levels(dl, max_def, n, "definition")
                non_null = self._add_defs(defs, reps is None, n)
        elif page.num_nulls:
            raise ParquetFormatError("v2 page reports nulls in a required column")
        if reps is not None:
            self.reps.append(reps)
        self.num_levels += n
        self.add_values(page.encoding, _view(page.values), non_null)

    # -- held pages (flat optional columns) ----------------------------------------------

    def _hold(self, stream: memoryview | None, n: int, encoding: int, values: Any, nbytes: int) -> None:
        self.held.append((stream, n, encoding, values, self.ordinal, self.offset))
        self.held_bytes += nbytes
        self.num_levels += n

    def flush(self) -> None:
        """Decode the held pages: their levels in one batch, then their values in order.

        An error names the page it comes from (and is marked so that the
        caller does not name another page as well).
        """
        held = self.held
        if not held:
            return
        self.held = []
        self.held_bytes = 0
        with_nulls = [h for h in held if h[0] is not None]
        batch = None
        if with_nulls:
            try:
                batch = decode_validity([s for s, *_ in with_nulls if s is not None],
                                        [h[1] for h in with_nulls])
            except (ValueError, IndexError, OverflowError):
                batch = None    # the page-by-page decoder below gives the result or the error
            except MemoryError as exc:
                err: ParquetError = out_of_memory(exc, "decoding definition levels")
                add_page_context(err, held[0][4], held[0][5], held[-1][4])
                raise err from exc
        pos = 0
        k = 0
        width = self.width
        whole = batch is not None and len(with_nulls) == len(held)
        if batch is not None:
            valid, counts = batch[0], batch[1].tolist()
        if whole:
            # every held page has nulls: their levels are the batch's validity, kept whole
            # (not one slice per page, joined again by levels())
            self.defs.append(valid)
        for stream, n, encoding, values, ordinal, offset in held:
            try:
                if stream is None:
                    self.defs.append(n)
                    present = n
                elif batch is not None:
                    if not whole:
                        self.defs.append(valid[pos:pos + n])
                    present = counts[k]
                    pos += n
                    k += 1
                else:
                    self.ordinal, self.offset = ordinal, offset
                    defs = read_levels_v2(stream, 1, n, "definition")
                    present = int(np.count_nonzero(defs))
                    self.defs.append(n if present == n else defs)
                if encoding == _PLAIN and width and present and len(values) >= present * width:
                    # a PLAIN page of a fixed-width type (small-page files have many): what
                    # add_values does, its length check above, without the calls
                    runs = self.runs
                    run = runs[-1] if len(runs) > self.chunk_first_run else None
                    if run is None or run.kind != _FIXED:
                        run = self._run(_FIXED)
                    run.parts.append(values[:present * width])
                    run.total += present
                    self.fell_back = True
                    continue
                self.ordinal, self.offset = ordinal, offset
                self.add_values(encoding, values, present)
            except ParquetError as exc:
                add_page_context(exc, ordinal, offset)
                raise
            except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
                err = _page_error(exc)
                add_page_context(err, ordinal, offset)
                raise err from exc

    def _add_defs(self, defs: npt.NDArray[np.int16], flat: bool, n: int) -> int:
        """Keep a page's definition levels; return its number of non-null values."""
        non_null = int(np.count_nonzero(defs == self.max_def))
        # all present: keep just the count (flat columns without nulls)
        self.defs.append(n if flat and non_null == n else defs)
        return non_null

    # -- output ------------------------------------------------------------------------

    def _materialise(self, run: _Run) -> Any:
        """The values of one run on their own (cached)."""
        if run.values is not None:
            return run.values
        kind = run.kind
        vals: Any
        if kind == _DICT:
            dictionary = run.dictionary
            # a slice of the read's arena, when one was planned for this column (one
            # allocation for the read's columns: column.outputs); it would go unused
            # otherwise, so the dictionary is then copied into it
            out = None
            if type(dictionary) is np.ndarray:
                if dictionary.ndim == 1:
                    out = output_array(run.total, dictionary.dtype)
                elif self.ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY and dictionary.ndim == 2 and \
                        dictionary.dtype == np.uint8:       # rows of type_length bytes
                    out = output_rows(run.total, dictionary.shape[1])
            got = _lookup_values(run, out)
            if got is not None:
                run.values = got
                return got
            idx = _codes(run) if isinstance(dictionary, ByteArrays) else None
            if idx is None:
                idx = run.indices()
            if isinstance(dictionary, ByteArrays):
                vals = dictionary.take(idx)
            else:
                if out is None and not self.keep_dictionary and len(idx) == len(dictionary) \
                        and is_counting(idx) and _whole_buffer(dictionary):
                    # every entry once, in order (distinct values): the values are the
                    # dictionary (only this run holds it, and it holds nothing else: no copy)
                    vals = dictionary
                else:
                    vals = _take_dictionary(dictionary, idx, out)
        elif kind in (_BYTES, _FRONT):
            vals = self._decode_bytes(run)
        elif kind == _BOOLS:
            vals = _unpack_booleans(run.parts, run.counts, run.total)
        elif kind == _DELTA:
            vals = self._expand_delta(run)
        elif kind == _FIXED:
            parts = run.parts
            # one page: a view of its bytes, as decode_plain gives; else one writable copy
            raw = np.frombuffer(parts[0] if len(parts) == 1 else bytearray().join(parts), dtype=np.uint8)
            vals = raw.view(self.dtype) if self.dtype is not None else raw.reshape(run.total, self.width)
        else:
            vals = _concat(run.parts, self.desc)
        run.values = vals
        return vals

    def _expand_delta(self, run: _Run) -> Any:
        """The values of a run of DELTA_BINARY_PACKED pages: all blocks checked in one
        pass; when a check fails, the pages are checked one by one, so the error is the
        one a page-by-page read raises, naming its page."""
        vals = expand_held_delta_binary_packed_pages(run.parts, self.dtype)
        if vals is not None:
            return vals
        scanned = []
        for held, (ordinal, offset) in zip(run.parts, run.where):
            try:
                scanned.append(scan_held_delta_binary_packed_page(held, self.dtype))
            except ParquetError as exc:
                add_page_context(exc, ordinal, offset)
                raise
            except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
                err = _page_error(exc)
                add_page_context(err, ordinal, offset)
                raise err from exc
        return expand_delta_binary_packed_pages(scanned, self.dtype)

    def _decode_bytes(self, run: _Run) -> ByteArrays:
        """The byte arrays of a run of PLAIN or DELTA_BYTE_ARRAY pages, decoded together;
        on an error, page by page, so the error names its page."""
        front = run.kind == _FRONT
        if front:
            if len(run.parts) > 1:
                got = decode_delta_byte_arrays_together(run.parts, run.counts)
                if got is not None:
                    return got
        else:
            try:
                return decode_plain_byte_arrays_multi(run.parts, run.counts)
            except ParquetError as exc:
                if len(run.parts) == 1:   # otherwise the pages were decoded one by one below
                    add_page_context(exc, *run.where[0])
                    raise
        out: list[ByteArrays] = []
        for buf, count, where in zip(run.parts, run.counts, run.where):
            try:
                out.append(cast(ByteArrays, decode_delta_byte_array(buf, count)) if front
                           else decode_plain_byte_array(buf, count)[0])
            except ParquetError as exc:
                add_page_context(exc, *where)
                raise
        return ByteArrays.concat(out)

    def _bytes_plan(self, run: _Run) -> BytesPlan | None:
        """The byte arrays of one run of a BYTE_ARRAY column, located, not copied yet:
        dictionary indices (checked) and PLAIN pages; any other run is decoded."""
        if run.values is None:
            if run.kind == _DICT and isinstance(run.dictionary, ByteArrays):
                # narrow codes when they apply (as _materialise takes them), else the
                # index path, which names a page whose index is bad
                codes = _codes(run)
                return run.dictionary.take_plan(run.indices() if codes is None else codes)
            if run.kind == _BYTES:
                try:
                    return plan_plain_byte_arrays_multi(run.parts, run.counts)
                except ParquetError:
                    pass    # decoded below, page by page: the error names its page
        values = self._materialise(run)
        if isinstance(values, ByteArrays):
            return values.as_plan()
        return None     # (not byte arrays: joined as before)

    def values_of(self, runs: list[_Run]) -> Any:
        """The values of *runs*, in order, in one output."""
        if not runs:
            return empty_values(self.ptype, self.desc.type_length)
        if len(runs) == 1:
            return self._materialise(runs[0])
        width = self.width
        if self.ptype == PhysicalType.BYTE_ARRAY:
            # each run located first, then copied straight into one output (a chunk's
            # dictionary-encoded pages and its PLAIN fallback pages, or several chunks)
            plans = [self._bytes_plan(r) for r in runs]
            if all(p is not None for p in plans):
                return BytesPlan.join(cast("list[BytesPlan]", plans))
            return _concat([self._materialise(r) for r in runs], self.desc)
        if not width:     # BOOLEAN, FIXED_LEN_BYTE_ARRAY(0)
            return _concat([self._materialise(r) for r in runs], self.desc)
        total = sum(r.total for r in runs)
        if self.dtype is not None:
            out = np.empty(total, dtype=self.dtype)
        else:
            out = np.empty((total, width), dtype=np.uint8)
        raw = out.reshape(-1).view(np.uint8).data
        pos = 0
        for run in runs:
            n = run.total
            if run.values is not None:
                out[pos:pos + n] = run.values
            elif run.kind == _FIXED:
                b = pos * width
                for part in run.parts:      # one slice copy per page
                    e = b + len(part)
                    raw[b:e] = part
                    b = e
            elif run.kind == _DICT:
                # each chunk's run (its own dictionary) as narrow codes when they apply,
                # as one row group's read takes them; else the index path, which names a
                # page whose index is bad
                part = out[pos:pos + n]
                if _lookup_values(run, part) is None:
                    _take_dictionary(run.dictionary, run.indices(), part)
            else:
                out[pos:pos + n] = self._materialise(run)
            pos += n
        return out

    def chunk_dictionary(self, num_levels: int) -> ChunkDictionary:
        """The dictionary and indices of the current chunk.

        Matches what pyarrow's dictionary reader gives: the dictionary page
        as stored; when the chunk has no dictionary page, or falls back to
        another encoding, the values not in it are appended in order of first
        appearance and equal values share the first such entry.
        """
        self.flush()
        d = self.desc
        runs = self.runs[self.chunk_first_run:]
        if self.dictionary is not None and not self.fell_back:
            idx = _concat_indices([r.indices() for r in runs])
            return ChunkDictionary(self.dictionary, idx, num_levels)
        values = self.values_of(runs)
        if len(runs) > 1:   # cache the chunk's values as one run for the final output
            merged = _Run(_DONE)
            merged.total, merged.values = len(values), values
            self.runs[self.chunk_first_run:] = [merged]
        base = self.dictionary if self.dictionary is not None else empty_values(d.physical_type, d.type_length)
        merged_dict, codes = build_dictionary(_concat([base, values], d) if len(base) else values,
                                              d.physical_type, d.type_length)
        return ChunkDictionary(merged_dict, codes[len(base):].astype(np.int32, copy=False), num_levels)

    def levels(self) -> tuple[npt.NDArray[np.int8] | npt.NDArray[np.int16] | None,
                              npt.NDArray[np.int16] | None]:
        self.flush()
        defs: npt.NDArray[np.int8] | npt.NDArray[np.int16] | None = None
        parts = self.defs
        if self.max_def > 0 and (self.max_rep > 0 or not all(type(p) is int for p in parts)):
            total = self.num_levels
            if self.bits and len(parts) == 1 and not isinstance(first := parts[0], int):
                # (a dtype test does not narrow an array's type: the other parts are int16 levels)
                defs = (first.view(np.int8) if first.dtype == np.bool_
                        else cast("npt.NDArray[np.int16]", first))
                return defs, None
            # a flat optional column: its levels are 0/1, as int8 (a view of the validity)
            defs = np.empty(total, dtype=np.int8 if self.bits else np.int16)
            pos = 0
            m = self.max_def
            for p in parts:
                if isinstance(p, int):
                    defs[pos:pos + p] = m
                    pos += p
                else:
                    defs[pos:pos + len(p)] = p
                    pos += len(p)
        reps = _cat_levels(self.reps) if self.max_rep > 0 else None
        return defs, reps

    def finish(self) -> ColumnData:
        defs, reps = self.levels()
        return ColumnData(self.values_of(self.runs), defs, reps, self.num_levels)

    def pending_front(self) -> PendingRange | None:
        """The decoded pages as a :class:`PendingRange` when their values are one run of
        DELTA_BYTE_ARRAY pages (one or more) that decode together (else None:
        :meth:`finish` decodes them, or raises the error of the first bad page)."""
        runs = self.runs
        if len(runs) != 1 or self.keep_dictionary:
            return None
        run = runs[0]
        if run.kind != _FRONT or run.values is not None or not run.parts:
            return None
        pages = prepare_delta_byte_arrays(run.parts, run.counts)
        if pages is None:
            return None
        defs, reps = self.levels()
        return PendingRange(pages, defs, reps, self.num_levels)

    def reset_pieces(self) -> None:
        """Forget decoded values and levels (the dictionary is kept): start a new piece."""
        self.runs = []
        self.chunk_first_run = 0
        self.defs = []
        self.reps = []
        self.num_levels = 0
        self.held = []
        self.held_bytes = 0

    # -- pages -------------------------------------------------------------------------

    def decode_pages(self, pages: Iterable[Page]) -> None:
        """Decode every page of one chunk (after :meth:`start_chunk`)."""
        for page in pages:
            self.decode_page(page)

    def decode_page(self, page: Page) -> None:
        """Decode one page; an error is noted with the page unless a deeper reader named it."""
        if self.held and (isinstance(page, DictionaryPage) or self.held_bytes >= _HOLD_MAX_BYTES):
            self.flush()     # held pages use the dictionary before this one; the note names them
        try:
            if isinstance(page, DataPageV1):
                self.ordinal, self.offset = page.ordinal, page.offset
                self.add_v1(page)
            elif isinstance(page, DictionaryPage):
                self.add_dictionary(page)
            else:
                self.ordinal, self.offset = page.ordinal, page.offset
                self.add_v2(page)
        except ParquetError as exc:
            add_page_context(exc, page.ordinal, page.offset)
            raise
        except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
            err = _page_error(exc)
            add_page_context(err, page.ordinal, page.offset)
            raise err from exc

    def piece(self, page: Any) -> ColumnData:
        """The decoded pages since the last piece as one piece; *page* (the last of them) is
        named by an error that no earlier page claimed."""
        self.flush()
        n = self.num_levels
        try:
            kept = self.chunk_dictionary(n) if self.keep_dictionary else None
            data = self.finish()
        except ParquetError as exc:
            add_page_context(exc, page.ordinal, page.offset)
            raise
        except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
            err = _page_error(exc)
            add_page_context(err, page.ordinal, page.offset)
            raise err from exc
        if kept is not None:
            data = replace(data, dictionaries=(kept,))
        self.reset_pieces()
        self.fell_back = False
        self.dict_pages = min(self.dict_pages, 1)
        return data


def _unpack_booleans(parts: list[Any], counts: list[int], total: int) -> npt.NDArray[np.bool_]:
    """PLAIN booleans of several pages: *parts* holds each page's ``ceil(count / 8)`` bytes
    (checked when the page was added); one unpack, then each page's padding bits dropped."""
    raw = np.frombuffer(parts[0] if len(parts) == 1 else b"".join(parts), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little").view(np.bool_)
    cnt = np.asarray(counts, dtype=np.int64)
    if len(parts) == 1 or not (cnt[:-1] & 7).any():
        return bits[:total]     # only the last page may end inside a byte
    # output value j of page p is bit (j - out_start[p]) of that page's bytes
    bit_starts = np.zeros(len(cnt), dtype=np.int64)
    np.cumsum(((cnt[:-1] + 7) >> 3) << 3, out=bit_starts[1:])
    out_starts = np.zeros(len(cnt), dtype=np.int64)
    np.cumsum(cnt[:-1], out=out_starts[1:])
    idx = np.arange(total, dtype=np.int64) + np.repeat(bit_starts - out_starts, cnt)
    return bits[idx]


def _concat(parts: list[Any], desc: ColumnDescriptor) -> Any:
    if not parts:
        return empty_values(desc.physical_type, desc.type_length)
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], ByteArrays):
        return ByteArrays.concat(parts)
    return np.concatenate(parts)


def _cat_levels(parts: list[npt.NDArray[np.int16]]) -> npt.NDArray[np.int16]:
    if not parts:
        return np.zeros(0, dtype=np.int16)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _concat_indices(parts: list[npt.NDArray[np.integer]]) -> npt.NDArray[np.int32]:
    if not parts:
        return np.zeros(0, dtype=np.int32)
    idx = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return idx.astype(np.int32, copy=False)


# ---------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------


def read_column_chunk(pages: Iterable[Page], desc: ColumnDescriptor) -> ColumnData:
    """Decode every page of a chunk into one :class:`ColumnData`.

    Raises
    ------
    ParquetFormatError
        On malformed levels or values; a note names the page ordinal.
    """
    return read_column_chunks([pages], desc)[0]


def read_page_range(pages: Iterable[Page], desc: ColumnDescriptor, defer: bool = False
                    ) -> ColumnData | PendingRange:
    """Decode a run of consecutive data pages of one chunk on their own (after the chunk's
    dictionary page, if it has one, given first): what
    :func:`read_column_chunk` gives for those pages within the whole chunk (data pages are
    independent given the dictionary; a DELTA_BYTE_ARRAY page starts from an empty prefix).
    The values decoded for several ranges of a chunk, joined in order, are the chunk's
    values; the chunk-level checks (its value and record counts) are the caller's.
    Dictionaries are not kept (``keep_dictionary``: a chunk's dictionary runs are the
    whole chunk's).  With *defer*, a range whose values are DELTA_BYTE_ARRAY pages decoded
    together comes back as a :class:`PendingRange` (its bytes not yet written)."""
    dec = _ChunkDecoder(desc)
    dec.start_chunk()
    dec.decode_pages(pages)
    dec.flush()
    try:
        if defer:
            pending = dec.pending_front()
            if pending is not None:
                return pending
        return dec.finish()
    except ParquetError:
        raise
    except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
        raise _page_error(exc) from exc


class PendingRange:
    """A page range (:func:`read_page_range` with *defer*) decoded but for its values'
    bytes: DELTA_BYTE_ARRAY pages, checked and their lengths decoded, whose bytes
    (:attr:`nbytes` of them) :meth:`resolve` writes where the caller says: the ranges of
    one chunk fill one output side by side, with no copy to join them."""

    __slots__ = ("pages", "def_levels", "rep_levels", "num_levels")

    def __init__(self, pages: FrontCodedPages, def_levels: Any, rep_levels: Any, num_levels: int) -> None:
        self.pages, self.def_levels, self.rep_levels, self.num_levels = pages, def_levels, rep_levels, num_levels

    def __len__(self) -> int:
        """The number of values (non-null)."""
        return len(self.pages)

    @property
    def nbytes(self) -> int:
        return self.pages.nbytes

    def resolve(self, out: npt.NDArray[np.uint8] | None = None) -> ByteArrays:
        """The values, their bytes in *out* (exactly :attr:`nbytes`) when given."""
        try:
            return self.pages.resolve(out)
        except ParquetError:
            raise
        except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
            raise _page_error(exc) from exc

    def finish(self) -> ColumnData:
        """What :func:`read_page_range` without *defer* gives."""
        return ColumnData(self.resolve(), self.def_levels, self.rep_levels, self.num_levels)


def read_column_chunks(chunks: Iterable[Iterable[Page]], desc: ColumnDescriptor,
                       keep_dictionary: bool = False) -> tuple[ColumnData, list[int]]:
    """Decode the chunks of one column from several row groups into one :class:`ColumnData`.

    Values of all the chunks land in one output, allocated once at the end.
    Each chunk has its own dictionary; with *keep_dictionary* each chunk's
    dictionary and indices are kept too (``ColumnData.dictionaries``, see
    :meth:`_ChunkDecoder.chunk_dictionary`).

    Returns
    -------
    tuple[ColumnData, list[int]]
        The decoded data and the number of level slots each chunk held.
    """
    dec = _ChunkDecoder(desc, keep_dictionary)
    per_chunk: list[int] = []
    kept: list[ChunkDictionary] = []
    run_ends: list[int] = []    # each chunk's runs end here (runs never span two chunks)
    for pages in chunks:
        before = dec.num_levels
        dec.start_chunk()
        dec.decode_pages(pages)
        dec.flush()
        per_chunk.append(dec.num_levels - before)
        if keep_dictionary:
            kept.append(dec.chunk_dictionary(per_chunk[-1]))
        run_ends.append(len(dec.runs))
    try:
        try:
            data = dec.finish()
        except ParquetError:    # already the right class (they are ValueErrors too)
            raise
        except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
            raise _page_error(exc) from exc
    except ParquetError as exc:
        if len(run_ends) > 1:
            exc.chunk_index = _failing_chunk(dec, run_ends)  # type: ignore[attr-defined]
        raise
    if keep_dictionary:
        data = replace(data, dictionaries=tuple(kept))
    return data, per_chunk


def _failing_chunk(dec: _ChunkDecoder, run_ends: list[int]) -> int | None:
    """Which chunk's values fail to decode (an error of the deferred decode, which joins
    every chunk's runs at the end, so that its row group is named): each chunk's runs
    decoded again on their own, on the error path only."""
    start = 0
    for i, end in enumerate(run_ends):
        try:
            dec.values_of(dec.runs[start:end])
        except (ParquetError, ValueError, IndexError, TypeError, OverflowError):
            return i
        start = end
    return None


def iter_chunk_pieces(pages: Iterable[Page], desc: ColumnDescriptor,
                      keep_dictionary: bool = False, min_levels: int = 1) -> Iterator[ColumnData]:
    """Decode a chunk piece by piece: one :class:`ColumnData` per data page, or per run of
    consecutive data pages holding at least *min_levels* levels (the last piece of the
    chunk may hold fewer).

    The dictionary page is decoded once and used by every data page after it; a
    piece never spans a dictionary page.  Concatenating the pieces' values and
    levels gives what :func:`read_column_chunk` returns for the same pages; a
    reader that yields batches can stop after the pages of its first batch
    (joining the pages of a piece here, in one output, costs less than
    decoding them one by one and joining the pieces).  With *keep_dictionary*
    each piece carries its :class:`ChunkDictionary` (the chunk's dictionary for
    dictionary-encoded pages; after pages in another encoding, that dictionary
    followed by their new values).
    """
    dec = _ChunkDecoder(desc, keep_dictionary)
    dec.start_chunk()
    if min_levels > 1:
        pages = slice_pages(pages, desc, min_levels)    # a big page decoded a batch at a time
    levels = 0          # declared by the headers of the data pages not yet yielded
    held = 0            # their bytes
    # Batches read several small pages at once: a piece costs a set of numpy calls whatever
    # its size, so a small page (_joins) joins the piece while it holds fewer than
    # _ahead_levels() levels and _AHEAD_HELD page bytes (small batches of small pages: one
    # piece per chunk of a few hundred thousand narrow values, not one per batch).  A big
    # page, or one sliced for a batch, ends the piece as before.
    ahead = min_levels > 1
    cap = _ahead_levels(dec.width)
    last: Page | None = None
    for page in pages:
        if isinstance(page, DictionaryPage) and levels:
            yield dec.piece(last)
            levels = held = 0
        dec.decode_page(page)
        if isinstance(page, DictionaryPage):
            cap = _ahead_levels(dec.width, dec.dictionary)
            continue
        last = page
        levels += max(int(page.num_values), 1)
        size = _page_bytes(page) if ahead else 0
        held += size
        if levels >= min_levels:
            if ahead and _joins(page, size) and levels < cap and held < _AHEAD_HELD:
                continue
            yield dec.piece(page)
            levels = held = 0
    if levels:
        yield dec.piece(last)


#: :func:`iter_chunk_pieces` joins pages smaller than this many bytes of body, or holding
#: at least one value per two bytes (dictionary indices of up to ~16 bits: pyarrow's
#: 20,000-row page cap makes pages of 2-30 KB of them); other pages are read one per
#: piece, as a first batch reads about one page per column ...
_AHEAD_BYTES = 16 << 10
#: ... into pieces of up to this many bytes of page bodies (half the read-ahead window of
#: :mod:`parquet_core.file.chunk_reader`: the pages joined were read with the first) ...
_AHEAD_HELD = 128 << 10
#: (public: a chunk of at most this many uncompressed bytes is one piece, when its values
#: fit the levels cap below; ``file.batches`` plans output arenas for those)
PIECE_MAX_HELD = _AHEAD_HELD
#: ... and of up to this many levels for values of unknown decoded size (byte arrays
#: without a dictionary, booleans) ...
_AHEAD_LEVELS = 1 << 16
#: ... or, for fixed-width values and dictionary-encoded byte arrays, of up to about this
#: many decoded bytes: a small-page column of 300,000 rows is one piece (each piece costs
#: a set of numpy calls whatever its size).
_AHEAD_DECODED = 4 << 20


def _ahead_levels(width: int, dictionary: Any = None) -> int:
    """The most levels :func:`iter_chunk_pieces` joins into a piece of small pages, for
    values of *width* bytes (0: variable or bits); byte arrays decoded from *dictionary*
    take its mean entry plus an 8-byte offset each."""
    if not width and isinstance(dictionary, ByteArrays) and len(dictionary):
        width = 8 + -(-int(dictionary.offsets[-1] - dictionary.offsets[0]) // len(dictionary))
    return max(_AHEAD_LEVELS, _AHEAD_DECODED // width) if width else _AHEAD_LEVELS


def _joins(page: Any, size: int) -> bool:
    """Whether *page* (of *size* body bytes, :func:`_page_bytes`) may join the piece before it."""
    if size < _AHEAD_BYTES:
        return True
    return size < _SLICED and 2 * int(page.num_values) >= size


#: :func:`_page_bytes` of a page cut from a bigger one
_SLICED = 1 << 62


def _page_bytes(page: Any) -> int:
    """The bytes a v1 page holds (its decompressed body), or :data:`_SLICED` for a page cut
    from a bigger one (a batch's slice ends its piece; a v2 page, whose parts look like a
    cut page's, is taken for one)."""
    body = getattr(page, "body", None)
    if not isinstance(body, (bytes, bytearray, memoryview)):
        return _SLICED
    return len(body)
