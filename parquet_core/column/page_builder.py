"""Build the pages of one column chunk: dictionary page, then one data page per span.

The second step of :func:`parquet_core.column.writer.write_column_chunk`.
For each :class:`~parquet_core.column.chunk_layout.PageSpan` the builder
encodes the levels (RLE hybrid; a column without nulls writes one run
without materialising its levels) and the values (dictionary indices
while the dictionary covers the span, the fallback encoding after), feeds
the chunk's statistics and level histograms, and hands the parts to
:mod:`parquet_core.page.writer`, which compresses, checksums, encrypts and
frames them.  What a page contributes to the chunk's metadata comes back
as a :class:`BuiltPage`; offsets are the metadata builder's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.chunk_layout import PageSpan
from parquet_core.column.data import ColumnData
from parquet_core.compression import get_codec
from parquet_core.constants import Encoding, PageType, PhysicalType
from parquet_core.encodings import encode_values
from parquet_core.encodings.rle_hybrid_encoder import (
    encode_dictionary_index_pages,
    encode_dictionary_indices,
    encode_level_pages,
    encode_level_run,
    encode_levels_v1,
    encode_levels_v2,
)
from parquet_core.encryption.context import PLAINTEXT, ChunkEncryption
from parquet_core.errors import ParquetError
from parquet_core.metadata.geospatial import GeospatialStatsBuilder
from parquet_core.metadata.stats_builder import StatisticsBuilder, level_histogram
from parquet_core.options import ColumnOptions, WriterOptions
from parquet_core.page.writer import WrittenPage, data_page_v1, data_page_v2, dictionary_page
from parquet_core.schema.descriptor import ColumnDescriptor

__all__ = ["BuiltPage", "DictionaryPlan", "PageBuilder", "default_encoding", "slice_values"]


def default_encoding(physical_type: int, data_page_version: int) -> int:
    """The value encoding used when no dictionary is (or can no longer be) used."""
    if physical_type == PhysicalType.BOOLEAN and data_page_version == 2:
        return Encoding.RLE
    return Encoding.PLAIN


def slice_values(values: Any, start: int, stop: int) -> Any:
    """Values ``start:stop`` of any physical representation."""
    return values.slice(start, stop) if isinstance(values, ByteArrays) else values[start:stop]


@dataclass(frozen=True, slots=True)
class DictionaryPlan:
    """The dictionary of a chunk: its entries, the index of each covered value, the cutoff.

    Values ``0:cutoff`` are dictionary encoded; the rest use the fallback
    encoding, from a page boundary on.
    """

    dictionary: Any
    indices: Any
    cutoff: int


@dataclass(frozen=True, slots=True)
class BuiltPage:
    """A data page and what it adds to the chunk's metadata and page index."""

    page: WrittenPage
    page_type: int
    encoding: int
    span: PageSpan
    null_count: int
    def_histogram: Any
    rep_histogram: Any
    unencoded_bytes: int | None
    bounds: tuple[bytes, bytes] | None
    nan_count: int | None


class PageBuilder:
    """Encodes a chunk's pages; feeds *stats* and *geo* (owned by the metadata builder)."""

    def __init__(self, data: ColumnData, desc: ColumnDescriptor, opts: ColumnOptions,
                 wopts: WriterOptions, plan: DictionaryPlan | None, crypt: ChunkEncryption = PLAINTEXT,
                 stats: StatisticsBuilder | None = None,
                 geo: GeospatialStatsBuilder | None = None) -> None:
        self.data, self.desc, self.wopts, self.plan = data, desc, wopts, plan
        self.crypt, self.stats, self.geo = crypt, stats, geo
        self.codec = get_codec(opts.compression)
        self.level = opts.compression_level
        ptype = desc.physical_type
        self.fallback = opts.encoding if opts.encoding is not None else \
            default_encoding(ptype, wopts.data_page_version)
        self.v2 = wopts.data_page_version == 2
        self.max_def, self.max_rep = desc.max_definition_level, desc.max_repetition_level
        # no nulls: every page's definition levels are one run of max_def, written
        # and counted without materialising them
        self.all_defined = data.def_levels is None and self.max_def > 0
        self.is_byte_array = ptype == PhysicalType.BYTE_ARRAY
        #: index page bodies encoded ahead, by the page's first value (see encode_index_pages)
        self._index_bodies: dict[int, bytes] = {}
        #: (repetition, definition) level streams encoded ahead, by the page's first slot
        self._level_bodies: dict[int, tuple[bytes | None, bytes | None]] = {}
        #: each index page's smallest and largest dictionary entries, by the page's first value
        #: (see _page_extremes)
        self._extremes: dict[int, Any] = {}

    def encode_level_pages(self, spans: list[PageSpan]) -> None:
        """Encode the levels of every page at once (see :func:`encode_level_pages`)."""
        data = self.data
        if not spans or (data.rep_levels is None and (data.def_levels is None or self.all_defined)):
            return
        bounds = [spans[0].s0] + [sp.s1 for sp in spans]
        if any(sp.s0 != prev for sp, prev in zip(spans, bounds)):
            return
        rel = np.asarray(bounds, dtype=np.int64) - bounds[0]
        prefix = not self.v2

        def pages(levels: Any, max_level: int) -> list[bytes | None]:
            if levels is None:
                return [None] * len(spans)
            return list(encode_level_pages(levels[bounds[0]:bounds[-1]], rel, max_level,
                                           length_prefix=prefix))
        reps = pages(data.rep_levels, self.max_rep)
        defs = pages(None if self.all_defined else data.def_levels, self.max_def)
        self._level_bodies = {sp.s0: rd for sp, rd in zip(spans, zip(reps, defs))}

    def encode_index_pages(self, spans: list[PageSpan]) -> None:
        """Encode the dictionary indices of the dictionary-encoded *spans* at once.

        One :func:`encode_dictionary_index_pages` call for the chunk instead of
        one encoder call per page (the same bytes); :meth:`data_page` then
        takes each page's body from here.
        """
        plan = self.plan
        if plan is None or not spans:
            return
        bounds = [spans[0].v0] + [sp.v1 for sp in spans]
        if any(sp.v0 != prev for sp, prev in zip(spans, bounds)):
            return                  # not contiguous: leave them to the per-page encoder
        indices = plan.indices[bounds[0]:bounds[-1]]
        rel = np.asarray(bounds, dtype=np.int64) - bounds[0]
        bodies = encode_dictionary_index_pages(indices, rel, len(plan.dictionary))
        self._index_bodies = {sp.v0: body for sp, body in zip(spans, bodies)}
        self._extremes = self._page_extremes(indices, rel, spans)

    def _page_extremes(self, indices: Any, rel: Any, spans: list[PageSpan]) -> dict[int, Any]:
        """Each page's smallest and largest dictionary entry (a page's bounds), for pages of
        byte indices into a dictionary the statistics can order (numbers in their own order
        without NaN, unsigned bytes); else none.

        The page's min/max over its values would read every value of every page (8 bytes
        each for int64 and doubles, from memory: the chunk passed through the dictionary and
        index encoder since); instead every index is mapped to its entry's rank by one byte
        translation over the chunk and the ranks' min/max are taken per page (one byte each);
        a dictionary of at most 8 entries needs no translation: each page ORs ``1 << index``
        into one byte, the set of entries it holds, whose extreme ranks are then looked up.
        """
        plan, stats = self.plan, self.stats
        if stats is None or self.geo is not None or plan is None or indices.dtype != np.uint8 \
                or len(plan.dictionary) > 256:
            return {}
        order = stats.entry_order(plan.dictionary)
        if order is None:
            return {}
        full = np.flatnonzero(np.diff(rel) > 0)
        if not full.size:
            return {}
        starts = rel[full]
        d = order.size
        rank = np.zeros(256 if d > 8 else d, dtype=np.uint8)
        rank[order] = np.arange(d, dtype=np.uint8)
        if d <= 8:
            # at most 8 entries: each page's set of entries as one byte (bit c: entry c
            # occurs), an OR over the page of 1 << index, then the ranks of its set bits
            present = np.bitwise_or.reduceat(np.left_shift(np.uint8(1), indices), starts)
            has = (present[:, None] >> np.arange(d, dtype=np.uint8)[None, :]) & np.uint8(1) == 1
            lo = np.where(has, rank[None, :], np.uint8(255)).min(axis=1)
            hi = np.where(has, rank[None, :], np.uint8(0)).max(axis=1)
        else:
            ranks = np.frombuffer(indices.tobytes().translate(rank.tobytes()), dtype=np.uint8)
            lo, hi = np.minimum.reduceat(ranks, starts), np.maximum.reduceat(ranks, starts)
        ends = order[np.stack((lo, hi), axis=1)]
        entries = plan.dictionary
        if isinstance(entries, ByteArrays):
            return {spans[j].v0: entries.take(pair) for j, pair in zip(full.tolist(), ends)}
        pairs = entries[ends]
        return {spans[j].v0: pairs[i] for i, j in enumerate(full.tolist())}

    def dictionary_page(self) -> WrittenPage:
        """The chunk's dictionary page (PLAIN entries); needs a plan."""
        assert self.plan is not None
        entries = self.plan.dictionary
        body = encode_values(Encoding.PLAIN, entries, self.desc.physical_type, self.desc.type_length)
        return dictionary_page(body, len(entries), self.codec, self.level,
                               checksum=self.wopts.write_page_checksum, crypt=self.crypt)

    def _values_body(self, span: PageSpan, dictionary_encoded: bool) -> tuple[int, bytes, Any, Any, bool]:
        """(encoding, encoded values, values for min/max, every value of the page or None,
        whether the values for min/max also stand for every value: the page's extreme
        entries of a NaN-free dictionary, whose NaN count is the page's, none)."""
        values = self.data.values
        if dictionary_encoded:
            plan = self.plan
            assert plan is not None
            page_indices = plan.indices[span.v0:span.v1]
            nvals = span.num_values
            stat_values = self._extremes.pop(span.v0, None)
            numeric = isinstance(plan.dictionary, np.ndarray) and plan.dictionary.ndim == 1 \
                and plan.dictionary.dtype.kind in "iuf"
            if stat_values is not None:
                pass
            elif 2 * len(plan.dictionary) <= nvals and self.stats is not None and not numeric:
                # min/max over the page's distinct entries equal those over its
                # values, and a small dictionary makes them far cheaper for strings
                # and fixed-length bytes; numbers are left to data_page, which takes
                # min/max over the page's values (a vectorised pass there is several
                # times cheaper than the bincount finding the distinct entries)
                used = np.flatnonzero(np.bincount(page_indices, minlength=len(plan.dictionary)))
                stat_values = plan.dictionary.take(used) if isinstance(plan.dictionary, ByteArrays) \
                    else plan.dictionary[used]
            # the bit width is stated per page: size it by this page's largest
            # index (entries are numbered by first appearance, so early pages
            # need fewer bits than the whole dictionary)
            body = self._index_bodies.pop(span.v0, None)
            if body is None:
                width_for = int(page_indices.max()) + 1 if nvals else len(plan.dictionary)
                body = encode_dictionary_indices(page_indices, width_for)
            return Encoding.RLE_DICTIONARY, body, stat_values, None, stat_values is not None and numeric
        page_values = slice_values(values, span.v0, span.v1)
        try:
            body = encode_values(self.fallback, page_values, self.desc.physical_type,
                                 self.desc.type_length)
        except ParquetError:   # a ValueError too, but already the right class
            raise
        except ValueError as exc:
            raise ValueError(f"column {self.desc.dotted_path}: {exc}") from None
        return self.fallback, body, page_values, page_values, False

    def data_page(self, span: PageSpan, dictionary_encoded: bool) -> BuiltPage:
        """Encode the page of *span* (dictionary indices, or the fallback encoding)."""
        data, stats = self.data, self.stats
        defs, reps = data.def_levels, data.rep_levels
        nslots = span.num_slots
        nulls = nslots - span.num_values if defs is not None else 0
        enc, body, stat_values, page_values, whole = self._values_body(span, dictionary_encoded)
        needs_all = self.geo is not None or (stats is not None and not whole
                                             and (stat_values is None or stats.floating))
        if page_values is None and needs_all:
            page_values = slice_values(data.values, span.v0, span.v1)
        if stat_values is None:
            stat_values = page_values
        if self.geo is not None:
            self.geo.update(page_values)
        page_stats = None
        if stats is not None:
            stats.update(stat_values, nulls, page_values)
            if self.wopts.write_page_statistics:
                page_stats = stats.page_statistics()
        page_defs = None if defs is None else defs[span.s0:span.s1]
        page_reps = None if reps is None else reps[span.s0:span.s1]
        if self.all_defined:
            dh: Any = [0] * self.max_def + [nslots]
        else:
            dh = None if page_defs is None else level_histogram(page_defs, self.max_def)
        rh = None if page_reps is None else level_histogram(page_reps, self.max_rep)
        unencoded = None
        if self.is_byte_array:
            offs = data.values.offsets
            unencoded = int(offs[span.v1]) - int(offs[span.v0])
        crypt, checksum = self.crypt, self.wopts.write_page_checksum
        max_def, max_rep = self.max_def, self.max_rep
        ahead_r, ahead_d = self._level_bodies.pop(span.s0, (None, None))
        if self.v2:
            rl = b"" if page_reps is None else ahead_r if ahead_r is not None \
                else encode_levels_v2(page_reps, max_rep)
            dl = encode_level_run(nslots, max_def, max_def, length_prefix=False) if self.all_defined \
                else b"" if page_defs is None else ahead_d if ahead_d is not None \
                else encode_levels_v2(page_defs, max_def)
            page = data_page_v2(rl, dl, body, num_values=nslots, num_nulls=nulls,
                                num_rows=span.num_rows, encoding=enc, codec=self.codec,
                                level=self.level, statistics=page_stats, checksum=checksum,
                                crypt=crypt, ordinal=span.ordinal)
            page_type = PageType.DATA_PAGE_V2
        else:
            rl = b"" if page_reps is None else ahead_r if ahead_r is not None \
                else encode_levels_v1(page_reps, max_rep)
            dl = encode_level_run(nslots, max_def, max_def, length_prefix=True) if self.all_defined \
                else b"" if page_defs is None else ahead_d if ahead_d is not None \
                else encode_levels_v1(page_defs, max_def)
            page = data_page_v1(rl, dl, body, num_values=nslots, encoding=enc, codec=self.codec,
                                level=self.level, statistics=page_stats, checksum=checksum,
                                crypt=crypt, ordinal=span.ordinal)
            page_type = PageType.DATA_PAGE
        return BuiltPage(page=page, page_type=page_type, encoding=enc, span=span, null_count=nulls,
                         def_histogram=dh, rep_histogram=rh, unencoded_bytes=unencoded,
                         bounds=stats.page_bounds() if stats is not None else None,
                         nan_count=stats.page_nan_count if stats is not None else None)
