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
