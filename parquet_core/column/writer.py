"""Write one column chunk: dictionary choice, page split, levels, values, statistics.

The inverse of :mod:`parquet_core.column.reader`.  :func:`write_column_chunk`
takes a leaf's :class:`ColumnData` (non-null physical values plus levels)
and returns the chunk's bytes with its ``ColumnMetaData`` and the page-index
entries; ``file/`` decides where the bytes go.  Three parts, as arrow-rs
and Arrow C++ divide a column writer::

    write_column_chunk                    this module: the dictionary plan, then
      chunk_layout.ChunkLayout            records -> level slots -> values; page spans
      page_builder.PageBuilder            dictionary page; per span: levels, values,
                                          statistics, page.writer (codec, CRC, crypto)
      chunk_metadata.ChunkMetadataBuilder offsets, encodings, ColumnMetaData, size
                                          statistics, page index entries -> ChunkResult
      _bloom_filter                       the chunk's split-block Bloom filter

Decisions, in order:

1. **Dictionary.** When enabled, the distinct values are found once
   (:func:`parquet_core.encodings.dictionary.build_dictionary` on a probe,
   then :func:`~parquet_core.encodings.dictionary.extend_dictionary` with
   the rest, so no value is hashed twice).  Fixed-width values are probed
   on their first 4,096: if a dictionary plus indices would not be smaller
   than PLAIN there (mostly distinct values), the chunk is written without
   one, as parquet-java decides on its first page.
   If their PLAIN size passes ``dictionary_pagesize_limit``, the chunk keeps
   the dictionary for the longest prefix whose distinct values fit and
   switches to the fallback encoding from there on (one forced page break),
   the same behaviour readers expect from parquet-java and Arrow.  A
   dictionary the values arrive with (a categorical, an Arrow dictionary
   array) is written whole whatever the limit, as pyarrow writes it.
2. **Pages.** A page ends at the last record boundary before it would pass
   ``data_page_size`` bytes of (estimated) encoded values or
   ``data_page_row_count_limit`` records.  Records are rows for flat
   columns and start at repetition level 0 for nested ones, so a record
   never straddles two pages.
3. **Per page**: levels and values are encoded, statistics and level
   histograms gathered, and :mod:`parquet_core.page.writer` builds the bytes.

A chunk depends on nothing outside its own data and options, so ``file/``
may build the chunks of a row group in threads, each at offset 0, and
move them into place afterwards (:meth:`ChunkResult.rebase`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.bloom_filter import SplitBlockBloomFilter, hash_values
from parquet_core.bloom_filter.header import make_header
from parquet_core.column.chunk_layout import ChunkLayout, page_bounds
from parquet_core.column.chunk_metadata import ChunkMetadataBuilder, ChunkResult
from parquet_core.column.data import ChunkDictionary, ColumnData
from parquet_core.column.page_builder import DictionaryPlan, PageBuilder, default_encoding, slice_values
from parquet_core.constants import PhysicalType
from parquet_core.encodings.dictionary import (
    build_dictionary,
    count_distinct,
    dictionary_byte_size,
    dictionary_prefix_sizes,
    extend_dictionary,
    same_entries,
)
from parquet_core.encryption.context import PLAINTEXT, ChunkEncryption
from parquet_core.errors import ParquetSchemaError
from parquet_core.options import ColumnOptions, WriterOptions
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.thrift.codec import serialize

__all__ = ["ChunkResult", "write_column_chunk", "default_encoding"]

_FIXED_WIDTH: dict[int, int] = {PhysicalType.INT32: 4, PhysicalType.INT64: 8, PhysicalType.INT96: 12,
                PhysicalType.FLOAT: 4, PhysicalType.DOUBLE: 8}
#: Fewest values a dictionary prefix is first built on.
_MIN_PROBE = 4096
#: A page's size is an i32 in its header (PageHeader.uncompressed_page_size).
_MAX_PAGE_BYTES = 2**31 - 1
_slice = slice_values


def _window(values: Any, start: int, stop: int) -> Any:
    """Values ``start:stop`` without copying (ByteArrays offsets need not start at 0)."""
    if isinstance(values, ByteArrays):
        return ByteArrays(values.offsets[start:stop + 1], values.data)
    return values[start:stop]
_page_bounds = page_bounds


def _value_costs(values: Any, ptype: int, type_length: int | None) -> npt.NDArray[np.int64]:
    """Estimated PLAIN bytes of each value (byte arrays pay their length prefix)."""
    n = len(values)
    if isinstance(values, ByteArrays):
        costs = values.lengths()
        costs += 4   # in place: one value-sized array
        return costs
    if ptype == PhysicalType.BOOLEAN:
        return np.ones(n, dtype=np.int64)  # 1/8 byte really; kept integral
    width = _FIXED_WIDTH.get(ptype, type_length or 1)
    return np.full(n, width, dtype=np.int64)


def _given_plan(given: tuple[ChunkDictionary, ...], desc: ColumnDescriptor
                ) -> tuple[Any, npt.NDArray[np.int32], int] | None:
    """The plan of a chunk that arrives dictionary-encoded (an Arrow dictionary array).

    The dictionary is written as given: every entry in its order, unused
    ones included, and the indices as given, with no hashing.  As in pyarrow,
    the first run's dictionary covers the runs that share it; values after a
    run with another dictionary fall back (a chunked Arrow array whose
    chunks have different dictionaries).

    ``dictionary_pagesize_limit`` does not apply: like pyarrow (checked on
    pyarrow 26: 200k categories under a 1000-byte limit give one 9 MB
    dictionary page and RLE_DICTIONARY data pages), the given dictionary is
    written whole, since a fallback would lose the category order and the
    unused categories on read.  Only a dictionary no page can hold (its
    size must fit the header's int32) is refused.
    """
    first = given[0].values
    size = dictionary_byte_size(first, desc.physical_type, desc.type_length)
    if size > _MAX_PAGE_BYTES:
        raise ParquetSchemaError(
            f"column {desc.dotted_path!r}: its dictionary ({len(first)} entries, {size} bytes "
            f"PLAIN) is larger than one Parquet page can hold ({_MAX_PAGE_BYTES} bytes)")
    parts, cutoff = [], 0
    for run in given:   # one step per Arrow chunk
        if not same_entries(run.values, first):
            break
        parts.append(run.indices)
        cutoff += len(run.indices)
    indices = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return first, indices.astype(np.int32, copy=False), cutoff


def _dictionary_plan(values: Any, opts: ColumnOptions, wopts: WriterOptions,
                     desc: ColumnDescriptor, given: tuple[ChunkDictionary, ...] | None = None
                     ) -> tuple[Any, npt.NDArray[Any], int] | None:
    """Return (dictionary, indices of the dictionary prefix, cutoff) or None.

    ``cutoff`` is the number of leading values covered by the dictionary.
    *given* is the dictionary the values arrived encoded with, if any
    (see :func:`_given_plan`).

    Entries are numbered in order of first appearance, so the dictionary of
    any prefix of the values is a prefix of the whole chunk's dictionary.
    The dictionary is therefore built on a growing prefix of the values:
    a high-cardinality column passes ``dictionary_pagesize_limit`` after a
    small part of a row group, and hashing stops soon after that instead of
    covering every value.  Each step hashes only the values the steps
    before did not cover and extends their dictionary
    (:func:`~parquet_core.encodings.dictionary.extend_dictionary`), so every
    value is hashed once.  The result is the same as building it on the
    whole chunk at once.
    """
    n = len(values)
    if not opts.use_dictionary or desc.physical_type == PhysicalType.BOOLEAN:
        return None
    ptype = desc.physical_type
    limit = wopts.dictionary_pagesize_limit
    if given and ptype == PhysicalType.BYTE_ARRAY:
        return _given_plan(given, desc)
    if n == 0:
        return None
    # Fixed-width values are grouped whole at once: the hash grouping stops by
    # itself soon after the budget, and a small range of keys takes the direct
    # table, which costs little whatever the count.  Strings are packed and
    # hashed before grouping, so they start on a prefix long enough to pass
    # the limit if its values were all distinct.
    strings = isinstance(values, ByteArrays)
    if strings:
        mean_cost = (len(values.data) + 4 * n) / n
        m = min(n, max(_MIN_PROBE, int(2.0 * limit / max(mean_cost, 1.0))))
    else:
        m = n if n <= 2 * _MIN_PROBE else _MIN_PROBE
    probe = not strings and m < n
    width = _FIXED_WIDTH.get(PhysicalType(ptype), desc.type_length or 1)
    budget: int | None = limit
    if probe and m * width <= limit:
        # the probe cannot pass the size limit, so the hashing below would reach the
        # "does a dictionary pay" test with every distinct value of the probe: counting
        # them by a sort is cheaper, and a column of measurements (the common case that
        # does not pay) is then never hashed at all
        distinct = count_distinct(_window(values, 0, m), ptype)
        if distinct is not None and not _dictionary_pays(distinct, m, width):
            return None
        if distinct is not None and distinct * width * (n / m) <= limit:
            # the probe pays and its distinct values are few (the loop's test below, on
            # the dictionary of the probe that the count already sized): the loop would
            # group the probe only to find that and group every value again; group them
            # at once, as it would then (first-appearance order: the same dictionary)
            m, probe, budget = n, False, None
    # indices in their narrow type (uint8 for at most 256 entries): the index encoder
    # packs them as they are, with no int32 copy made and narrowed again
    dictionary, indices = build_dictionary(_window(values, 0, m), ptype, budget=budget, narrow=True)
    done = m
    while True:
        sizes = dictionary_prefix_sizes(dictionary, ptype, desc.type_length)
        total = int(sizes[-1])
        if total > limit or len(indices) < done:
            break
        if probe and not _dictionary_pays(len(dictionary), m, width):
            return None
        probe = False
        if done == n:
            return dictionary, indices, n
        # strings double unless the distinct values so far are few
        few = total * (n / done) <= limit
        m = n if few or not strings else min(n, 2 * done)
        # few distinct values so far: the rest is unlikely to pass the limit, so it
        # is grouped without the budget's bookkeeping (passing it is still caught
        # below, from the whole dictionary)
        if strings:
            more, more_indices = build_dictionary(_window(values, done, m), ptype,
                                                  budget=None if few else limit, narrow=True)
            dictionary, indices = extend_dictionary(dictionary, indices, more, more_indices, ptype,
                                                    narrow=True)
        else:
            # fixed-width keys cost the same whether the probe is grouped again or not:
            # one grouping of values[:m] spares the remap and join of two runs' indices
            dictionary, indices = build_dictionary(_window(values, 0, m), ptype,
                                                   budget=None if few else limit, narrow=True)
        done = m
    fits = int(np.searchsorted(sizes, limit, side="right")) - 1
    if fits == 0:
        return None
    cutoff = int(np.argmax(indices == fits))  # first value of the first entry that does not fit
    return _slice(dictionary, 0, fits), indices[:cutoff], cutoff


def _dictionary_pays(entries: int, count: int, width: int) -> bool:
    """Whether *count* fixed-width values with *entries* distinct ones take fewer bytes as a
    dictionary plus bit-packed indices than PLAIN (parquet-mr's first-page test: a column of
    mostly distinct values, such as measurements, is written PLAIN without hashing the rest)."""
    bits = max(int(entries - 1).bit_length(), 1)
    return entries * width + (count * bits + 7) // 8 < count * width


def _bloom_filter(values: Any, desc: ColumnDescriptor, opts: ColumnOptions,
                  plan: tuple[Any, Any, int] | None, crypt: ChunkEncryption = PLAINTEXT) -> bytes:
    """The chunk's split-block Bloom filter, serialized (header + bitset, each
    its own encrypted module in an encrypted chunk).

    A dictionary holds each of its values once, so only its entries (and the
    values after a fallback) are hashed.  Without a given ``ndv`` the filter
    is sized for the chunk's exact number of distinct values: the
    dictionary's size when it covers the chunk, else the distinct hashes.
    """
    ptype, width = desc.physical_type, desc.type_length
    if plan is None:
        hashes = hash_values(values, ptype, width)
        exact = None
    else:
        dictionary, _, cutoff = plan
        hashes = hash_values(dictionary, ptype, width)
        exact = len(dictionary)
        if cutoff < len(values):
            rest = hash_values(_slice(values, cutoff, len(values)), ptype, width)
            hashes = np.concatenate((hashes, rest))
            exact = None
    ndv = opts.bloom_filter_ndv
    if ndv is None:
        ndv = exact if exact is not None else int(np.unique(hashes).size)
    bf = SplitBlockBloomFilter.for_ndv(ndv, opts.bloom_filter_fpp, opts.bloom_filter_max_bytes)
    bf.insert_hashes(hashes)
    return crypt.bloom_filter(serialize(make_header(bf.num_bytes)), bf.bitset())


def write_column_chunk(data: ColumnData, desc: ColumnDescriptor, opts: ColumnOptions,
                       wopts: WriterOptions, chunk_offset: int,
                       crypt: ChunkEncryption = PLAINTEXT,
                       emit: Callable[[bytes], Any] | None = None) -> ChunkResult:
    """Encode one leaf's data of one row group into pages.

    Parameters
    ----------
    data:
        Non-null physical values and levels (``def_levels`` may be ``None``
        when there are no nulls; ``rep_levels`` ``None`` for flat leaves).
    desc:
        The leaf.
    opts, wopts:
        The leaf's resolved options and the file-wide ones.
    chunk_offset:
        Absolute file offset where the chunk's first byte will be written.
    crypt:
        The chunk's :class:`~parquet_core.encryption.context.ChunkEncryption`
        (:data:`~parquet_core.encryption.context.PLAINTEXT` for a plaintext
        chunk). Sizes and offsets (metadata, offset index) count the modules
        as stored.
    emit:
        If given, each page is handed to it as soon as it is encoded (the
        caller writes it at ``chunk_offset`` and on), and the result's
        ``pages`` is empty: a chunk's pages are never all held in memory.
    """
    values = data.values
    layout = ChunkLayout(data, desc)
    raw = _dictionary_plan(values, opts, wopts, desc, data.dictionaries)
    plan = None if raw is None else DictionaryPlan(*raw)
    meta = ChunkMetadataBuilder(desc, opts, wopts, chunk_offset, emit)
    builder = PageBuilder(data, desc, opts, wopts, plan, crypt, meta.stats, meta.geo)
    costs, forced = _page_costs(values, desc, plan, layout)
    spans = layout.pages(costs, wopts.data_page_size, wopts.data_page_row_count_limit, forced)
    del costs   # one int64 per value: not held while the pages are encoded
    if spans:
        # an encrypted page's AAD must hold its ordinal: fail before encoding any page
        crypt.check_page_ordinal(len(spans) - 1)
    if plan is not None:
        meta.add_dictionary_page(builder.dictionary_page())
        builder.encode_index_pages([sp for sp in spans if forced is None or sp.r1 <= forced])
    builder.encode_level_pages(spans)
    for span in spans:
        encoded = plan is not None and (forced is None or span.r1 <= forced)
        meta.add_data_page(builder.data_page(span, encoded))
    bloom = _bloom_filter(values, desc, opts, raw, crypt) if opts.bloom_filter else None
    return meta.finish(layout.num_slots, bloom)


def _page_costs(values: Any, desc: ColumnDescriptor, plan: DictionaryPlan | None,
                layout: ChunkLayout) -> tuple[npt.NDArray[np.int64] | int, int | None]:
    """Estimated encoded bytes of each value (one int when all are the same), and the
    record where a fallback starts (or None)."""
    if plan is None:
        if not isinstance(values, ByteArrays):
            # every value of a fixed-width type costs the same (see _value_costs)
            ptype = desc.physical_type
            return (1 if ptype == PhysicalType.BOOLEAN else
                    _FIXED_WIDTH.get(ptype, desc.type_length or 1)), None
        return _value_costs(values, desc.physical_type, desc.type_length), None
    n, cutoff = len(values), plan.cutoff
    bits = max(int(len(plan.dictionary) - 1).bit_length(), 1)
    if cutoff >= n:
        return max(bits // 8, 1), None
    costs = np.full(n, max(bits // 8, 1), dtype=np.int64)
    if isinstance(values, ByteArrays):
        # the fallback values' lengths written straight into their costs (a sliced copy of
        # their offsets and a lengths array would each be as large)
        rest = costs[cutoff:]
        np.subtract(values.offsets[cutoff + 1:], values.offsets[cutoff:-1], out=rest)
        rest += 4
    else:
        costs[cutoff:] = _value_costs(_slice(values, cutoff, n), desc.physical_type, desc.type_length)
    # the record holding the first value past the dictionary prefix starts the fallback
    return costs, layout.record_of_value(cutoff)
