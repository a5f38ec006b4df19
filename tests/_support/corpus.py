"""Where the parquet-testing corpus is (tests/conftest.py documents how to get it)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CORRUPT_CHECKSUM", "DEFAULT_CORPUS", "FILES", "INT96_FILE", "ORACLE_CANNOT_READ", "corpus_dir",
           "flat_columns"]

#: ../shared/parquet-testing/data next to this checkout
DEFAULT_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "parquet-testing" / "data"


def corpus_dir() -> Path:
    """The parquet-testing ``data`` directory (``PARQUET_TEST_DATA`` overrides)."""
    return Path(os.environ.get("PARQUET_TEST_DATA", str(DEFAULT_CORPUS)))


#: Files whose page checksums are wrong on purpose (read without verification).
CORRUPT_CHECKSUM = {"datapage_v1-corrupt-checksum.parquet",
                    "rle-dict-uncompressed-corrupt-checksum.parquet"}
#: Nested files pyarrow itself cannot read: see tests/conformance/test_nested_corpus.py.
ORACLE_CANNOT_READ = {"incorrect_map_schema.parquet", "large_string_map.brotli.parquet"}
INT96_FILE = "int96_from_spark.parquet"


def _all_files() -> list[str]:
    d = corpus_dir()
    if not d.is_dir():
        return []
    return sorted(str(p.relative_to(d)) for p in d.rglob("*.parquet"))


#: Every .parquet file of the corpus, relative to :func:`corpus_dir` (empty without it).
FILES = _all_files()


def flat_columns(path: Path) -> tuple[list[str], list[str]]:
    """Top-level column names split into (flat, nested), per pyarrow's schema."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    flat = [f.name for f in schema if not pa.types.is_nested(f.type)]
    nested = [f.name for f in schema if pa.types.is_nested(f.type)]
    return flat, nested
