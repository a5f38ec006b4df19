"""Write one column chunk: dictionary choice, page split, levels, values, statistics.

The inverse of :mod:`parquet_core.column.reader`.  :func:`write_column_chunk`
takes a leaf's :class:`ColumnData` (non-null physical values plus levels)
and returns the chunk's bytes with its ``ColumnMetaData`` and the page-index
entries; ``file/`` decides where the bytes go.

Decisions, in order:

1. **Dictionary.** When enabled, the distinct values are found once for
   the whole chunk (:func:`parquet_core.encodings.dictionary.build_dictionary`).
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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.bloom_filter import SplitBlockBloomFilter, hash_values
from parquet_core.bloom_filter.header import make_header
from parquet_core.compression import get_codec
from parquet_core.constants import Encoding, PageType, PhysicalType
from parquet_core.column.data import ChunkDictionary, ColumnData
from parquet_core.encodings import encode_values
from parquet_core.encodings.dictionary import build_dictionary, dictionary_byte_size, \
    dictionary_prefix_sizes, same_entries
from parquet_core.encodings.rle_hybrid_encoder import (
    encode_dictionary_indices,
    encode_level_run,
    encode_levels_v1,
    encode_levels_v2,
)
from parquet_core.errors import ParquetSchemaError
from parquet_core.metadata.page_index import PageIndexBuilder
from parquet_core.metadata.geospatial import GeospatialStatsBuilder
from parquet_core.metadata.stats_builder import StatisticsBuilder, level_histogram
from parquet_core.options import ColumnOptions, WriterOptions
from parquet_core.page.writer import WrittenPage, data_page_v1, data_page_v2, dictionary_page
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize

__all__ = ["ChunkResult", "write_column_chunk", "default_encoding"]

_FIXED_WIDTH = {PhysicalType.INT32: 4, PhysicalType.INT64: 8, PhysicalType.INT96: 12,
                PhysicalType.FLOAT: 4, PhysicalType.DOUBLE: 8}
#: Fewest values a dictionary prefix is first built on.
_MIN_PROBE = 4096
#: A page's size is an i32 in its header (PageHeader.uncompressed_page_size).
_MAX_PAGE_BYTES = 2**31 - 1


@dataclass
class ChunkResult:
    """A written column chunk: its bytes, metadata and page-index entries."""

    pages: list[bytes]
    meta: Any                      # pt.ColumnMetaData (offsets absolute)
    column_index: Any | None       # pt.ColumnIndex or None
    offset_index: Any              # pt.OffsetIndex
    size: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    bloom_filter: bytes | None = None  # header + bitset (encrypted: two modules), placed by file/


def default_encoding(physical_type: int, data_page_version: int) -> int:
    """The value encoding used when no dictionary is (or can no longer be) used."""
    if physical_type == PhysicalType.BOOLEAN and data_page_version == 2:
        return Encoding.RLE
    return Encoding.PLAIN


def _slice(values: Any, start: int, stop: int) -> Any:
    return values.slice(start, stop) if isinstance(values, ByteArrays) else values[start:stop]


def _value_costs(values: Any, ptype: int, type_length: int | None) -> npt.NDArray[np.int64]:
    """Estimated PLAIN bytes of each value (byte arrays pay their length prefix)."""
    n = len(values)
    if isinstance(values, ByteArrays):
        return values.lengths() + 4
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
                     ) -> tuple[Any, npt.NDArray[np.int32], int] | None:
    """Return (dictionary, indices of the dictionary prefix, cutoff) or None.

    ``cutoff`` is the number of leading values covered by the dictionary.
    *given* is the dictionary the values arrived encoded with, if any
    (see :func:`_given_plan`).

    Entries are numbered in order of first appearance, so the dictionary of
    any prefix of the values is a prefix of the whole chunk's dictionary.
    The dictionary is therefore built on a growing prefix of the values:
    a high-cardinality column passes ``dictionary_pagesize_limit`` after a
    small part of a row group, and hashing stops soon after that instead of
    covering every value.  The result is the same as building it on the
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
    # a prefix long enough to pass the limit if its values were all distinct
    strings = isinstance(values, ByteArrays)
    if strings:
        mean_cost = (len(values.data) + 4 * n) / n
    else:
        mean_cost = float(_FIXED_WIDTH.get(ptype, desc.type_length or 1))
    m = min(n, max(_MIN_PROBE, int((2.0 if strings else 1.25) * limit / max(mean_cost, 1.0))))
    while True:
        dictionary, indices = build_dictionary(_slice(values, 0, m), ptype, budget=limit)
        sizes = dictionary_prefix_sizes(dictionary, ptype, desc.type_length)
        total = int(sizes[-1])
        if total > limit:
            break
        if m == n:
            return dictionary, indices.astype(np.int32, copy=False), n
        # Fixed-width values go to the whole chunk at once: their grouping stops
        # by itself at the budget.  Strings are hashed before grouping, so they
        # double unless the distinct values so far are few.
        m = n if not strings or total * (n / m) <= limit else min(n, 2 * m)
    fits = int(np.searchsorted(sizes, limit, side="right")) - 1
    if fits == 0:
        return None
    cutoff = int(np.argmax(indices == fits))  # first value of the first entry that does not fit
    return _slice(dictionary, 0, fits), indices[:cutoff].astype(np.int32, copy=False), cutoff


def _bloom_filter(values: Any, desc: ColumnDescriptor, opts: ColumnOptions,
                  plan: tuple[Any, Any, int] | None, crypt: Any = None) -> bytes:
    """The chunk's split-block Bloom filter, serialized (header + bitset, each
    its own encrypted module when *crypt* is given).

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
    header = serialize(make_header(bf.num_bytes))
    if crypt is not None:
        return crypt.bloom_filter(header, bf.bitset())
    return header + bf.bitset()


def _page_bounds(cum: npt.NDArray[np.int64], page_bytes: int, page_rows: int,
                 forced: int | None) -> list[tuple[int, int]]:
    """Split records into pages; return (first record, end record) pairs.

    ``cum`` holds the cumulative cost before each record plus the total
    (length = records + 1).  A Python loop per *page* (not per value).
    """
    nrec = len(cum) - 1
    bounds = []
    r0 = 0
    while r0 < nrec:
        r1 = min(r0 + page_rows, nrec)
        by_bytes = int(np.searchsorted(cum, cum[r0] + page_bytes, side="right")) - 1
        r1 = min(r1, max(by_bytes, r0 + 1))
        if forced is not None and r0 < forced < r1:
            r1 = forced
        bounds.append((r0, r1))
        r0 = r1
    return bounds


def write_column_chunk(data: ColumnData, desc: ColumnDescriptor, opts: ColumnOptions,
                       wopts: WriterOptions, chunk_offset: int, crypt: Any = None) -> ChunkResult:
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
        The chunk's :class:`~parquet_core.file.encryptor.ChunkEncryptor`, or
        None for a plaintext chunk. Sizes and offsets (metadata, offset
        index) then count the encrypted modules as stored.
    """
    ptype = desc.physical_type
    values = data.values
    nslots = data.num_levels
    max_def, max_rep = desc.max_definition_level, desc.max_repetition_level
    v2 = wopts.data_page_version == 2
    codec = get_codec(opts.compression)
    level = opts.compression_level
    fallback = opts.encoding if opts.encoding is not None else default_encoding(ptype, wopts.data_page_version)

    defs = data.def_levels
    # no nulls: every page's definition levels are one run of max_def, written
    # and counted without materialising them
    all_defined = defs is None and max_def > 0
    reps = data.rep_levels
    present = None if defs is None else defs == max_def
    # value index of the first value at or after each slot (n + 1 entries), and
    # each record's first slot plus the total; None where they are the identity
    # (no nulls: a slot per value; flat: a slot per record), so common columns
    # never build or gather through arrays of 0, 1, 2, ...
    value_at: npt.NDArray[np.int64] | None = None
    if present is not None:
        value_at = np.zeros(nslots + 1, dtype=np.int64)
        np.cumsum(present, out=value_at[1:])
    described = nslots if value_at is None else int(value_at[-1])
    if described != len(values):
        raise ParquetSchemaError(
            f"column {desc.dotted_path}: levels describe {described} values, got {len(values)}")
    record_starts = None if reps is None else \
        np.append(np.flatnonzero(reps == 0), nslots).astype(np.int64)

    def slot_of(record: int) -> int:
        return record if record_starts is None else int(record_starts[record])

    def value_of(slot: int) -> int:
        return slot if value_at is None else int(value_at[slot])

    plan = _dictionary_plan(values, opts, wopts, desc, data.dictionaries)
    pages: list[bytes] = []
    encodings: list[int] = []
    enc_stats: dict[tuple[int, int], int] = {}
    offset = chunk_offset
    dict_offset = None
    total_uncompressed = 0

    def emit(page: WrittenPage, ptype_: int, enc: int) -> int:
        nonlocal offset, total_uncompressed
        start = offset
        pages.append(page.data)
        offset += page.compressed_size
        total_uncompressed += page.uncompressed_size
        enc_stats[(ptype_, enc)] = enc_stats.get((ptype_, enc), 0) + 1
        if enc not in encodings:
            encodings.append(enc)
        return start

    forced = None
    if plan is not None:
        dictionary, indices, cutoff = plan
        dict_body = encode_values(Encoding.PLAIN, dictionary, ptype, desc.type_length)
        dict_offset = emit(dictionary_page(dict_body, len(dictionary), codec, level,
                                           checksum=wopts.write_page_checksum, crypt=crypt),
                           PageType.DICTIONARY_PAGE, Encoding.PLAIN)
        bits = max(int(len(dictionary) - 1).bit_length(), 1)
        costs = np.full(len(values), 1, dtype=np.int64)
        costs[:cutoff] = max(bits // 8, 1)
        if cutoff < len(values):
            costs[cutoff:] = _value_costs(_slice(values, cutoff, len(values)), ptype, desc.type_length)
            # the first slot whose value is past the dictionary prefix starts the fallback
            slot = cutoff if value_at is None else int(np.searchsorted(value_at, cutoff, side="right")) - 1
            rec = slot if record_starts is None else int(np.searchsorted(record_starts, slot, side="right")) - 1
            forced = rec
    else:
        costs = _value_costs(values, ptype, desc.type_length)
        cutoff = 0
    value_cost = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(costs, out=value_cost[1:])
    slot_cost = value_cost if value_at is None else value_cost[value_at]
    record_cost = slot_cost if record_starts is None else slot_cost[record_starts]

    bounds = _page_bounds(record_cost, wopts.data_page_size,
                          wopts.data_page_row_count_limit, forced)
    if crypt is not None and bounds:
        # every page's AAD must hold its ordinal: fail before encoding any page
        crypt.check_page_ordinal(len(bounds) - 1)
    order = wopts.column_order(desc)
    stats = StatisticsBuilder(desc, truncate_length=opts.statistics_truncate_length,
                              column_order=order) if opts.write_statistics else None
    geo_kind = desc.data_type.name if desc.data_type.name in ("geometry", "geography") else None
    geo = GeospatialStatsBuilder(geography=geo_kind == "geography") \
        if geo_kind is not None and opts.write_statistics else None
    index = PageIndexBuilder(desc, truncate_length=opts.column_index_truncate_length,
                             with_bounds=opts.write_statistics, column_order=order)
    first_data_offset = None
    is_byte_array = ptype == PhysicalType.BYTE_ARRAY
    unencoded_total = 0
    def_hist = np.zeros(max_def + 1, dtype=np.int64) if max_def > 0 else None
    rep_hist = np.zeros(max_rep + 1, dtype=np.int64) if max_rep > 0 else None

    for ordinal, (r0, r1) in enumerate(bounds):
        s0, s1 = slot_of(r0), slot_of(r1)
        v0, v1 = value_of(s0), value_of(s1)
        page_values = _slice(values, v0, v1)
        page_defs = None if defs is None else defs[s0:s1]
        page_reps = None if reps is None else reps[s0:s1]
        nvals = v1 - v0
        nulls = (s1 - s0) - nvals if defs is not None else 0
        stat_values = page_values
        if plan is not None and (forced is None or r1 <= forced):
            enc = Encoding.RLE_DICTIONARY
            page_indices = indices[v0:v1]
            if 2 * len(plan[0]) <= nvals:
                # min/max over the page's distinct entries equal those over its
                # values, and a small dictionary makes them far cheaper
                used = np.flatnonzero(np.bincount(page_indices, minlength=len(plan[0])))
                stat_values = plan[0].take(used) if isinstance(plan[0], ByteArrays) \
                    else plan[0][used]
            # the bit width is stated per page: size it by this page's largest
            # index (entries are numbered by first appearance, so early pages
            # need fewer bits than the whole dictionary)
            width_for = int(page_indices.max()) + 1 if nvals else len(plan[0])
            body = encode_dictionary_indices(page_indices, width_for)
        else:
            enc = fallback
            try:
                body = encode_values(fallback, page_values, ptype, desc.type_length)
            except ValueError as exc:
                raise ValueError(f"column {desc.dotted_path}: {exc}") from None
        page_stats = None
        if geo is not None:
            geo.update(page_values)
        if stats is not None:
            stats.update(stat_values, nulls, page_values)
            if wopts.write_page_statistics:
                page_stats = stats.page_statistics()
        if all_defined:
            dh = [0] * max_def + [s1 - s0]
        else:
            dh = None if page_defs is None else level_histogram(page_defs, max_def)
        rh = None if page_reps is None else level_histogram(page_reps, max_rep)
        if dh is not None and def_hist is not None:
            def_hist += dh
        if rh is not None and rep_hist is not None:
            rep_hist += rh
        unencoded = int(page_values.lengths().sum()) if is_byte_array else None
        if unencoded is not None:
            unencoded_total += unencoded
        if v2:
            rl = b"" if page_reps is None else encode_levels_v2(page_reps, max_rep)
            dl = encode_level_run(s1 - s0, max_def, max_def, length_prefix=False) if all_defined \
                else b"" if page_defs is None else encode_levels_v2(page_defs, max_def)
            page = data_page_v2(rl, dl, body, num_values=s1 - s0, num_nulls=nulls, num_rows=r1 - r0,
                                encoding=enc, codec=codec, level=level, statistics=page_stats,
                                checksum=wopts.write_page_checksum, crypt=crypt, ordinal=ordinal)
            ptype_ = PageType.DATA_PAGE_V2
        else:
            rl = b"" if page_reps is None else encode_levels_v1(page_reps, max_rep)
            dl = encode_level_run(s1 - s0, max_def, max_def, length_prefix=True) if all_defined \
                else b"" if page_defs is None else encode_levels_v1(page_defs, max_def)
            page = data_page_v1(rl, dl, body, num_values=s1 - s0, encoding=enc, codec=codec,
                                level=level, statistics=page_stats,
                                checksum=wopts.write_page_checksum, crypt=crypt, ordinal=ordinal)
            ptype_ = PageType.DATA_PAGE
        start = emit(page, ptype_, enc)
        if first_data_offset is None:
            first_data_offset = start
        index.add_page(offset=start, compressed_size=page.compressed_size, first_row=r0,
                       null_count=nulls, num_values=nvals,
                       bounds=stats.page_bounds() if stats is not None else None,
                       def_histogram=dh, rep_histogram=rh, unencoded_bytes=unencoded,
                       nan_count=stats.page_nan_count if stats is not None else None)

    if max_def > 0 or max_rep > 0:
        if Encoding.RLE not in encodings:
            encodings.append(Encoding.RLE)
    if first_data_offset is None:  # pragma: no cover - every chunk has at least one page
        first_data_offset = offset

    meta = pt.ColumnMetaData(
        type=ptype, encodings=sorted(set(encodings)), path_in_schema=list(desc.path),
        codec=opts.compression, num_values=nslots,
        total_uncompressed_size=total_uncompressed, total_compressed_size=offset - chunk_offset,
        data_page_offset=first_data_offset, dictionary_page_offset=dict_offset,
        statistics=stats.chunk_statistics() if stats is not None else None,
        encoding_stats=[pt.PageEncodingStats(page_type=p, encoding=e, count=c)
                        for (p, e), c in enc_stats.items()])
    if geo is not None:
        meta.geospatial_statistics = geo.result(with_bbox=geo_kind == "geometry").to_thrift()
    if wopts.write_size_statistics:
        meta.size_statistics = pt.SizeStatistics(
            unencoded_byte_array_data_bytes=unencoded_total if is_byte_array else None,
            definition_level_histogram=None if def_hist is None else def_hist.tolist(),
            repetition_level_histogram=None if rep_hist is None else rep_hist.tolist())
    if opts.key_value_metadata:
        meta.key_value_metadata = [pt.KeyValue(key=k, value=v) for k, v in opts.key_value_metadata.items()]
    bloom = _bloom_filter(values, desc, opts, plan, crypt) if opts.bloom_filter else None
    return ChunkResult(pages=pages, meta=meta, column_index=index.column_index(),
                       offset_index=index.offset_index(), size=offset - chunk_offset, bloom_filter=bloom)
