"""Seed files for the fuzzer: the parquet-testing corpus and files our own writer produces.

Corpus files come from ``$PARQUET_TEST_DATA`` (absent: only our own files are
used, and :func:`corpus_seeds` says why).  The regression files
(``regressions/``, hostile footers among them) are seeds too.  Our files cover what the corpus
exercises only partly: several row groups, page indexes, a Bloom filter,
dictionary and plain chunks, nested columns, decimals, v2 pages, CRCs.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import uuid
from decimal import Decimal
from pathlib import Path

__all__ = ["Seed", "corpus_seeds", "written_seeds", "regression_seeds", "all_seeds"]

#: the files past campaigns and hostile-footer issues turned up (see build_regressions.py)
REGRESSIONS = Path(__file__).parent / "regressions"



class Seed:
    """One seed file: a short name and its bytes."""

    __slots__ = ("name", "data")

    def __init__(self, name: str, data: bytes) -> None:
        self.name, self.data = name, data

    def __repr__(self) -> str:
        return f"Seed({self.name!r}, {len(self.data)} bytes)"


def corpus_seeds(max_bytes: int = 2 * 1024 * 1024) -> tuple[list[Seed], str | None]:
    """The corpus's ``.parquet`` files up to ``max_bytes``, and why none were found (or None)."""
    root = os.environ.get("PARQUET_TEST_DATA")
    if not root:
        return [], "PARQUET_TEST_DATA is not set: corpus seeds skipped"
    base = Path(root)
    if not base.is_dir():
        return [], f"PARQUET_TEST_DATA={root} is not a directory: corpus seeds skipped"
    out = []
    # encrypted files are read without keys, and only those with a plaintext footer are kept: their
    # metadata is readable and their encrypted columns must end in a ParquetEncryptionError (an
    # encrypted footer only ever gives that error at once)
    for p in sorted([*base.rglob("*.parquet"), *base.rglob("*.parquet.encrypted")]):
        if not p.is_file() or p.stat().st_size > max_bytes:
            continue
        data = p.read_bytes()
        if p.name.endswith(".encrypted") and data[-4:] != b"PAR1":
            continue
        if _decoded_bytes(data) > MAX_DECODED_BYTES:
            continue
        out.append(Seed(f"corpus/{p.relative_to(base)}", data))
    return out, None


#: a seed that legitimately decodes to more than this would hit the workers' memory limit
#: (large_string_map.brotli.parquet holds one value of over 2 GiB)
MAX_DECODED_BYTES = 256 * 1024 * 1024


def _decoded_bytes(data: bytes) -> int:
    """The row groups' declared uncompressed size, or 0 when the footer cannot be read."""
    import parquet_core as pc

    try:
        md = pc.read_metadata(data)
        return sum(max(0, md.row_group(i).total_byte_size) for i in range(md.num_row_groups))
    except pc.ParquetError:
        return 0


def _write(data: object, schema: object = None, **options: object) -> bytes:
    import parquet_core as pc

    sink = io.BytesIO()
    pc.write_table(data, sink, schema, **options)
    return sink.getvalue()


def written_seeds() -> list[Seed]:
    """Small files written by ``parquet_core`` with the features the reader has paths for."""
    import parquet_core as pc

    n = 240
    ids = list(range(n))
    names = [None if i % 7 == 0 else f"name-{i % 13}" for i in ids]
    flat = {"id": ids, "name": names, "score": [i * 0.5 if i % 5 else None for i in ids],
            "flag": [i % 3 == 0 for i in ids]}
    out = [
        # several row groups, page index, small pages, a Bloom filter on one column
        Seed("ours/flat_pageindex_bloom", _write(flat, row_group_size=80, data_page_row_count_limit=20,
                                                  bloom_filter_options={"name": True}, compression="none")),
        # plain encodings, page statistics instead of a page index, CRCs
        Seed("ours/flat_plain_crc", _write(flat, use_dictionary=False, write_page_index=False,
                                            write_page_checksum=True, row_group_size=120,
                                            data_page_row_count_limit=40, compression="snappy")),
        # v2 pages, delta encodings
        Seed("ours/flat_v2_delta", _write({"id": ids, "name": names}, data_page_version="2.0",
                                           use_dictionary=False, row_group_size=100,
                                           column_encoding={"id": "delta_binary_packed",
                                                            "name": "delta_byte_array"},
                                           compression="zstd")),
    ]
    schema = pc.schema([pc.field("d", pc.decimal(9, 2)), pc.field("big", pc.decimal(20, 4)),
                        pc.field("day", pc.date32()), pc.field("ts", pc.timestamp("us", utc=True))])
    base = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    typed = {"d": [Decimal(i) / 4 if i % 9 else None for i in range(60)],
             "big": [Decimal(i * 1000) / 8 - 3 for i in range(60)],
             "day": [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(60)],
             "ts": [base + dt.timedelta(seconds=i) for i in range(60)]}
    # decimals, dates and timestamps with statistics and a page index
    out.append(Seed("ours/logical_types", _write(typed, schema, row_group_size=30, data_page_row_count_limit=10,
                                                 bloom_filter_options={"d": True}, compression="none")))
    nested_schema = pc.schema([
        pc.field("id", pc.int64()),
        pc.field("tags", pc.list_(pc.string())),
        pc.field("attrs", pc.map_(pc.string(), pc.int32())),
        pc.field("pt", pc.struct([pc.field("x", pc.float64()), pc.field("y", pc.int32())])),
    ])
    nested = {"id": list(range(40)),
              "tags": [None if i % 6 == 0 else [f"t{j}" for j in range(i % 4)] for i in range(40)],
              "attrs": [None if i % 5 == 0 else [(f"k{j}", j * i) for j in range(i % 3)] for i in range(40)],
              "pt": [None if i % 8 == 0 else {"x": i / 3, "y": i} for i in range(40)]}
    out.append(Seed("ours/nested", _write(nested, nested_schema, row_group_size=20, data_page_row_count_limit=7,
                                          compression="none")))
    # narrow ints, time, uuid, fixed-size binary, INT96 timestamps, float16, interval
    n = 30
    odd_schema = pc.schema([pc.field("i8", pc.int8()), pc.field("u16", pc.uint16()), pc.field("t", pc.time64("ns")),
                            pc.field("u", pc.uuid()), pc.field("fb", pc.fixed_size_binary(3)),
                            pc.field("ts96", pc.timestamp("ns")), pc.field("h", pc.float16()),
                            pc.field("iv", pc.interval())])
    odd = {"i8": [i - 15 for i in range(n)], "u16": [i * 2000 for i in range(n)],
           "t": [dt.time(1, 2, i % 60) for i in range(n)], "u": [uuid.UUID(int=i) for i in range(n)],
           "fb": [bytes([i, i, i]) for i in range(n)],
           "ts96": [dt.datetime(2020, 1, 1) + dt.timedelta(hours=i) for i in range(n)],
           "h": [i / 4 for i in range(n)], "iv": [pc.Interval(i, i, i) for i in range(n)]}
    out.append(Seed("ours/odd_types", _write(odd, odd_schema, use_deprecated_int96_timestamps=True,
                                             compression="none", row_group_size=15, data_page_row_count_limit=5,
                                             bloom_filter_options={"u": True, "fb": True})))
    return out


def regression_seeds(max_bytes: int = 2 * 1024 * 1024) -> list[Seed]:
    """The regression files (``regressions/*.parquet``) up to ``max_bytes``: mutants of a file that
    once found a bug are near that bug."""
    return [Seed(f"regressions/{p.name}", p.read_bytes()) for p in sorted(REGRESSIONS.glob("*.parquet"))
            if p.stat().st_size <= max_bytes]


def all_seeds(max_bytes: int = 2 * 1024 * 1024) -> tuple[list[Seed], str | None]:
    """Corpus seeds, our own, then the regression files; the second value explains a missing corpus."""
    corpus, why = corpus_seeds(max_bytes)
    return corpus + written_seeds() + regression_seeds(max_bytes), why
