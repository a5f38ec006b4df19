"""Corrupted corpus files raise ParquetError (or read), never another exception.

A bounded, seeded mutation run: random byte overwrites anywhere in small
corpus files (footer, page headers, page data), then a full read of every
column (nested ones included).  Anything but success or a ParquetError is a bug.
"""

from __future__ import annotations

import random
from pathlib import Path

import parquet_core as pc


def _readable_columns(pf: pc.ParquetFile) -> list[str]:
    return [f.name for f in pf.schema_arrow if f.type.name != "nested"]


def test_random_corruptions_raise_parquet_errors(corpus: Path) -> None:
    # large_string_map is 4 KB of brotli that decodes to 2 GiB: too slow to read 100 times.
    files = sorted(p for p in corpus.glob("*.parquet")
                   if p.stat().st_size < 100_000 and p.name != "large_string_map.brotli.parquet")
    blobs = {p.name: p.read_bytes() for p in files}
    rng = random.Random(20261122)
    failures: list[str] = []
    for _ in range(1500):
        name = rng.choice(sorted(blobs))
        data = bytearray(blobs[name])
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            pf = pc.ParquetFile(bytes(data))
            md = pf.metadata
            for i in range(md.num_row_groups):
                for j in range(md.num_columns):
                    md.row_group(i).column(j).to_dict()
            pf.read(_readable_columns(pf))
        except pc.ParquetError:
            pass
        except Exception as exc:  # noqa: BLE001 - the point is to catch everything else
            failures.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures[:10])
