"""Writer knowledge: known writer bugs recognised from ``created_by``, reported as warnings naming the bug.

The engine's own fix-ups live in :mod:`parquet_core.metadata.compat`; the
rules here report them (and a few more the engine needs no fix-up for), so
that a file's known quirks are visible.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import Encoding as E
from parquet_core.constants import PhysicalType as P
from parquet_core.errors import quoted
from parquet_core.metadata.compat import chunk_length_padding
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import WARNING, rule

__all__ = ["short_chunk_size", "check_writer", "empty_page_in_offset_index", "arrow_dba_unencoded_bytes",
           "unsigned_deprecated_bounds"]

PARQUET_816 = rule("writers.parquet-816", WARNING, "PARQUET-816",
                   "parquet-mr <= 1.2.8 left the dictionary page header out of total_compressed_size (read with padding)")
PARQUET_251 = rule("writers.parquet-251", WARNING, "PARQUET-251 / PARQUET-686",
                   "parquet-mr < 1.8.0 (and writers without created_by) computed BYTE_ARRAY min/max with a signed "
                   "byte order; those statistics are not used")
PARQUET_2078 = rule("writers.parquet-2078", WARNING, "PARQUET-2078",
                    "parquet-mr 1.12.0/1.12.1 could write a wrong RowGroup.file_offset (readers planning splits by it "
                    "lose or duplicate row groups)")
RS_NUM_ROWS = rule("writers.parquet-rs-num-rows", WARNING, "parquet-rs 0.x",
                   "early parquet-rs (before 1.0) left FileMetaData.num_rows at 0; the row groups' counts are used")
ARROW_INT96_STATS = rule("writers.int96-statistics", WARNING, "PARQUET-1065",
                         "INT96 columns with min/max statistics: INT96 has no defined order, the bounds mean nothing")

ARROW_EMPTY_PAGE = rule("writers.arrow-empty-page", WARNING, "parquet.thrift OffsetIndex.page_locations",
                        "parquet-cpp-arrow (pyarrow, seen in 26.0.1) can write a data page of 0 values in a repeated "
                        "column (write_batch_size=1, small pages); with a page index its first_row_index repeats the "
                        "next page's, where the spec requires a strict increase. Readers should skip pages without "
                        "values")
ARROW_DBA_UNENCODED = rule("writers.arrow-delta-byte-array-unencoded-bytes", WARNING,
                           "parquet.thrift SizeStatistics.unencoded_byte_array_data_bytes",
                           "parquet-cpp-arrow >= 19.0.0 (pyarrow; seen in 26.0.1) leaves out of "
                           "unencoded_byte_array_data_bytes (size statistics and offset index) every DELTA_BYTE_ARRAY "
                           "value that is a prefix of the value before it (an empty suffix, e.g. a repeated value): the "
                           "count is too small. Readers should take it as a lower bound, not as the values' size")
FASTPARQUET_UNSIGNED = rule("writers.fastparquet-unsigned-deprecated-bounds", WARNING, "parquet.thrift Statistics.min",
                            "fastparquet (seen in 2026.5.0) writes only the deprecated Statistics.min/max for unsigned "
                            "integer and string/binary columns, ordered unsigned, where the spec defines those fields "
                            "by signed comparison. Readers must not use them (no bounds)")


def _arrow(ck: Checker) -> bool:
    w = ck.writer
    return w is not None and w.application == "parquet-cpp-arrow"


def empty_page_in_offset_index(ck: Checker, ch: ChunkState, page: Any, message: str) -> bool:
    """True (and a warning) when an empty page repeating a first_row_index is parquet-cpp-arrow's."""
    if not _arrow(ck):
        return False
    ck.report_chunk(ARROW_EMPTY_PAGE, ch, f"{message} (written by {ck.raw.created_by!r})", page=page.ordinal,
                    offset=page.offset)
    return True


def arrow_dba_unencoded_bytes(ck: Checker, ch: ChunkState, claimed: int, pages: list[Any], what: str,
                              page: Any = None) -> bool:
    """True (and a warning) when a too-small unencoded byte count is parquet-cpp-arrow's DELTA_BYTE_ARRAY bug.

    The count is recomputed the way that writer gets it: per data page (its
    encoder starts afresh on each page), a DELTA_BYTE_ARRAY value adds its
    length unless it is a prefix of the value before it; other pages add all
    their bytes.  Only an exact match is the bug.
    """
    if not _arrow(ck) or ck.writer.version < (19, 0, 0):
        return False
    if not any(_encoding(p) == E.DELTA_BYTE_ARRAY for p in pages):
        return False
    expected = 0
    for p in pages:
        if p.values is None or not isinstance(p.values, ByteArrays):
            return False
        expected += _arrow_dba_count(p.values) if _encoding(p) == E.DELTA_BYTE_ARRAY else _bytes(p.values)
    if claimed != expected:
        return False
    actual = sum(_bytes(p.values) for p in pages)
    ck.report_chunk(ARROW_DBA_UNENCODED, ch, f"{what} is {claimed}, the values hold {actual} bytes: the "
                    f"DELTA_BYTE_ARRAY values repeating a prefix of the one before are not counted "
                    f"(written by {ck.raw.created_by!r})", page=None if page is None else page.ordinal,
                    offset=None if page is None else page.offset)
    return True


def _encoding(p: Any) -> int:
    sub = p.header.data_page_header or p.header.data_page_header_v2
    return sub.encoding


def _bytes(values: ByteArrays) -> int:
    return int(values.offsets[-1] - values.offsets[0])


def _arrow_dba_count(values: ByteArrays) -> int:
    offsets = values.offsets
    data = values.data
    lengths = np.diff(offsets)
    if len(lengths) == 0:
        return 0
    counted = lengths.astype(np.int64)
    # a value can only be a prefix of the one before when it is not longer
    for i in np.flatnonzero(lengths[1:] <= lengths[:-1]) + 1:
        n = int(lengths[i])
        a, b = int(offsets[i]), int(offsets[i - 1])
        if data[a:a + n].tobytes() == data[b:b + n].tobytes():
            counted[i] = 0
    return int(counted.sum())


def unsigned_deprecated_bounds(ck: Checker, ch: ChunkState, st: Any, values: Any, what: str,
                               where: dict[str, Any]) -> bool:
    """True (and a warning) when fastparquet's deprecated min/max are the unsigned extremes, not the signed ones.

    Only when the values tell (the two orders give different extremes); else the
    caller reports the generic rule.
    """
    from parquet_core.metadata.stats_builder import encode_bound
    from parquet_core.validation.values import actual_bounds

    w = ck.writer
    if w is None or w.application != "fastparquet-python" or values is None or not len(values):
        return False
    ours = actual_bounds(ch, values)   # in the column's (unsigned) order
    signed = _signed_extremes(ch.desc, values)
    if ours is None or signed is None:
        return False
    lo, hi = encode_bound(ours[0], ch.desc), encode_bound(ours[1], ch.desc)
    if (bytes(st.min), bytes(st.max)) != (lo, hi) or (lo, hi) == signed:
        return False
    ck.report_chunk(FASTPARQUET_UNSIGNED, ch, f"{what}: the deprecated min/max {bytes(st.min)!r}/{bytes(st.max)!r} "
                    f"are the unsigned extremes; by signed comparison they are {signed[0]!r}/{signed[1]!r} "
                    f"(written by {ck.raw.created_by!r})", **where)
    return True


def _signed_extremes(desc: Any, values: Any) -> tuple[bytes, bytes] | None:
    """PLAIN bytes (no length prefix) of the smallest and largest value by signed comparison."""
    t = desc.physical_type
    if t in (P.INT32, P.INT64):
        arr = np.asarray(values)
        dtype = "<i4" if t == P.INT32 else "<i8"
        return arr.min().astype(dtype).tobytes(), arr.max().astype(dtype).tobytes()
    if isinstance(values, ByteArrays):
        items = [values.data[values.offsets[i]:values.offsets[i + 1]].tobytes() for i in range(len(values))]
    elif t == P.FIXED_LEN_BYTE_ARRAY:
        items = [bytes(r) for r in np.asarray(values)]
    else:
        return None

    def key(v: bytes) -> bytes:   # signed bytes compare like unsigned bytes with the top bit flipped
        return bytes(b ^ 0x80 for b in v)
    return min(items, key=key), max(items, key=key)


def short_chunk_size(ck: Checker, ch: ChunkState, actual: int, field: str = "total_compressed_size") -> bool:
    """True (and a PARQUET-816 warning) when a too-small chunk size is that known bug."""
    pad = chunk_length_padding(ck.writer) if ck.writer is not None else 0
    claimed = getattr(ch.meta, field)
    if pad and claimed < actual <= claimed + pad:
        ck.report_chunk(PARQUET_816, ch, f"{field} is {claimed}, the pages take {actual} bytes "
                        f"(written by {quoted(ck.raw.created_by)})")
        return True
    return False


def zero_num_rows(ck: Checker, total: int) -> bool:
    """True (and a warning) when num_rows 0 is the early parquet-rs bug."""
    w = ck.writer
    if w is not None and w.application == "parquet-rs" and w.version < (1, 0, 0):
        ck.report(RS_NUM_ROWS, f"FileMetaData.num_rows is 0, the row groups hold {total} rows "
                  f"(written by {quoted(ck.raw.created_by)})")
        return True
    return False


def check_writer(ck: Checker) -> None:
    """Footer-level writer-bug rules."""
    w = ck.writer
    if w is None:
        return
    binary_stats = [ch for ch in ck.iter_chunks()
                    if ch.meta.statistics is not None and ch.desc.physical_type == P.BYTE_ARRAY
                    and ch.meta.statistics.min is not None and ch.meta.statistics.min_value is None]
    if binary_stats and (w.application in ("", "parquet-mr") and w.version < (1, 8, 0)):
        ch = binary_stats[0]
        ck.report_chunk(PARQUET_251, ch, f"{len(binary_stats)} BYTE_ARRAY chunk(s) carry only the deprecated "
                        f"min/max, written by {quoted(ck.raw.created_by)}: their order is signed bytes, not the type's")
    if w.application == "parquet-mr" and (1, 12, 0) <= w.version < (1, 12, 2):
        for g, rg in enumerate(ck.raw.row_groups or []):
            row = ck.chunks[g] if g < len(ck.chunks) else []
            first = next((c for c in row if c is not None and c.meta is not None), None)
            if first is not None and rg.file_offset is not None and rg.file_offset != first.start:
                ck.report(PARQUET_2078, f"file_offset is {rg.file_offset}, the row group starts at {first.start} "
                          f"(written by {quoted(ck.raw.created_by)})", row_group=g, offset=rg.file_offset)
    for ch in ck.iter_chunks():
        st = ch.meta.statistics
        if ch.desc.physical_type == P.INT96 and st is not None and (st.min_value is not None or st.min is not None):
            ck.report_chunk(ARROW_INT96_STATS, ch, "INT96 chunk with min/max statistics (INT96 has no defined order)")
