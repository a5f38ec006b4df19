"""Rebuild the hostile-size regression files in ``tests/fuzz/memory_regressions/``.

Issue 29, item 4: files whose declarations (an RLE run, a list, a page that honestly
inflates, a page larger than its chunk) ask for gigabytes.  Built by
:mod:`tests.unit.file.hostile_sizes`; kept apart from ``regressions/`` (whose
builder is :mod:`tests.fuzz.build_regressions`) and read by
``tests/fuzz/test_memory_regressions.py`` the same way::

    python -m tests.fuzz.build_memory_regressions
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.file.hostile_sizes import MAX_INT32, long_list_file, null_run_file, zeros_page_file

HERE = Path(__file__).parent / "memory_regressions"


def build() -> dict[str, tuple[bytes, str]]:
    two_gib = (1 << 31) - 4096   # a multiple of 4 that a page header can declare
    # (a brotli page inflating to 2 GiB, 3 KB, is left out: every operation of the fuzzer
    # decompresses it up to the 2 GiB limit, about 4 minutes in all; the unit tests cover brotli)
    return {
        "rle-run-declares-2gib-null-rows": (
            null_run_file(MAX_INT32),
            "one RLE run declaring 2**31-1 null rows (the file: about 120 bytes): reads allocated 4+ GiB and died with "
            "MemoryError (check: check.internal); refused by ReaderOptions.max_decoded_bytes before allocating"),
        "list-of-2gib-null-elements": (
            long_list_file(MAX_INT32),
            "one list of 2**31-1 null elements (levels as RLE runs): reads allocated 4+ GiB and died with "
            "MemoryError; refused by ReaderOptions.max_decoded_bytes before allocating"),
        "zstd-page-inflates-to-2gib": (
            zeros_page_file(two_gib, "zstd"),
            "a zstd page of about 65 KB that honestly inflates to 2 GiB of zeros: MemoryError under the "
            "2 GiB limit; now a ParquetResourceError (out of memory), or a refusal with a lowered "
            "max_page_bytes"),
        "page-larger-than-its-chunk": (
            zeros_page_file(1 << 20, "zstd", chunk_uncompressed=1000),
            "a 1 MiB page in a chunk whose total_uncompressed_size says 1000: was inflated anyway; now a "
            "ParquetFormatError"),
    }


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for name, (data, bug) in build().items():
        (HERE / f"{name}.parquet").write_bytes(data)
        (HERE / f"{name}.json").write_text(json.dumps({"built_by": "tests/fuzz/build_memory_regressions.py",
                                                      "bug": bug}, indent=2) + "\n")
        print(f"wrote {HERE / name}.parquet ({len(data)} bytes)")
