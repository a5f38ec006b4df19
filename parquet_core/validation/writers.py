"""Writer knowledge: known writer bugs recognised from ``created_by``, reported as warnings naming the bug.

The engine's own fix-ups live in :mod:`parquet_core.metadata.compat`; the
rules here report them (and a few more the engine needs no fix-up for), so
that a file's known quirks are visible.
"""

from __future__ import annotations

from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import WARNING, rule
from parquet_core.constants import PhysicalType as P
from parquet_core.metadata.compat import chunk_length_padding
from parquet_core.errors import quoted

__all__ = ["short_chunk_size", "check_writer"]

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
