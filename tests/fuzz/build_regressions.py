"""Rebuild the hand-made regression files in ``tests/fuzz/regressions/``.

Each file is a small seed with one footer value rewritten by the fuzzer's own
walker (:mod:`tests.fuzz.mutate`), so how it was made stays reviewable::

    python -m tests.fuzz.build_regressions

Files found by a campaign are copied there directly instead (see README.md).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from tests.fuzz.mutate import layout_of, set_int

HERE = Path(__file__).parent / "regressions"


def set_field(data: bytes, path: str, value: int) -> bytes:
    """Set the integer field at ``path`` (as the walker names it) to ``value``."""
    lay = layout_of(data)
    item = next(i for i in lay.items if i.kind == "int" and i.path == path)
    return set_int(data, lay, item, value)


def tiny_page_index_file() -> bytes:
    """Ten int64 rows in two pages, with a column index and an offset index."""
    import parquet_core as pc

    sink = io.BytesIO()
    pc.write_table({"id": list(range(10))}, sink, compression="none", write_page_index=True,
                   data_page_row_count_limit=5)
    return sink.getvalue()


def lz4_raw_file() -> bytes:
    """One LZ4_RAW column chunk of one plain data page, and no page index after it."""
    import parquet_core as pc

    sink = io.BytesIO()
    pc.write_table({"id": list(range(100))}, sink, compression="lz4_raw", write_page_index=False,
                   use_dictionary=False)
    return sink.getvalue()


def grown_page_size(data: bytes, value: int) -> bytes:
    """Set the only page's ``uncompressed_page_size``, growing the chunk's size by the bytes the
    varint gained, so the page still lies inside its chunk (nothing else follows the chunk)."""
    lay = layout_of(data)
    item = next(i for i in lay.items if i.kind == "int" and i.path.endswith("page[0].uncompressed_page_size"))
    out = set_int(data, lay, item, value)
    grown = len(out) - len(data)
    return set_field(out, "row_groups[0].columns[0].meta_data.total_compressed_size",
                     int(next(i for i in lay.items if i.kind == "int" and
                              i.path == "row_groups[0].columns[0].meta_data.total_compressed_size").value) + grown)


def decimal_file() -> bytes:
    """A decimal(4, 2) column; from the corpus when present, else written here."""
    root = os.environ.get("PARQUET_TEST_DATA")
    if root and (Path(root) / "int32_decimal.parquet").is_file():
        return (Path(root) / "int32_decimal.parquet").read_bytes()
    raise SystemExit("set PARQUET_TEST_DATA to the parquet-testing data folder")


def build() -> dict[str, bytes]:
    out = {}
    # scale far above precision: decimal(4, 2147483647)
    out["known-decimal-scale-2147483647.parquet"] = set_field(decimal_file(), "schema[1].scale", 2**31 - 1)
    # found by the campaign (seed 20240603): a negative scale, decimal(4, -2147483648)
    out["decimal-scale-negative-int32-min.parquet"] = set_field(decimal_file(), "schema[1].scale", -(2**31))
    # an LZ4_RAW page declaring 2**31-1 uncompressed bytes (lz4 allocates the declared size up front)
    out["lz4raw-page-declares-2gib-uncompressed.parquet"] = grown_page_size(lz4_raw_file(), 2**31 - 1)
    small = tiny_page_index_file()
    # a row group declaring a negative row count, read with filters (page-index path)
    out["known-rowgroup-num-rows-minus-2-filters.parquet"] = set_field(small, "row_groups[0].num_rows", -2)
    # a row group declaring 2**63-1 rows, read with filters (page-index path)
    out["known-rowgroup-num-rows-int64-max-filters.parquet"] = set_field(small, "row_groups[0].num_rows",
                                                                         2**63 - 1)
    return out


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for name, data in build().items():
        (HERE / name).write_bytes(data)
        print(f"wrote {HERE / name} ({len(data)} bytes)")
