"""Split-block Bloom filters (SBBF), as parquet-format ``BloomFilter.md`` defines them.

Modules, lowest first:

* :mod:`~parquet_core.bloom_filter.xxh64` - XXH64 over whole arrays (fixed
  widths and byte arrays), no per-value loop;
* :mod:`~parquet_core.bloom_filter.hashing` - physical values -> the hashes
  writers insert (PLAIN bytes, byte arrays without their length prefix);
* :mod:`~parquet_core.bloom_filter.sizing` - filter size from the number of
  distinct values and the false-positive rate; the spec's table;
* :mod:`~parquet_core.bloom_filter.sbbf` - :class:`SplitBlockBloomFilter`:
  vectorised insert and check;
* :mod:`~parquet_core.bloom_filter.header` - header + bitset bytes.

Reading a filter out of a file is :meth:`parquet_core.ParquetFile.bloom_filter`.
"""

from __future__ import annotations

from parquet_core.bloom_filter.hashing import hash_values
from parquet_core.bloom_filter.header import parse_filter, parse_header, serialize_filter
from parquet_core.bloom_filter.sbbf import SALT, SplitBlockBloomFilter
from parquet_core.bloom_filter.sizing import (
    DEFAULT_MAX_BYTES,
    SPEC_TABLE,
    bits_per_value,
    model_fpp,
    optimal_num_bytes,
)
from parquet_core.bloom_filter.xxh64 import xxh64_byte_arrays, xxh64_bytes, xxh64_rows, xxh64_u32, xxh64_u64

__all__ = [
    "SplitBlockBloomFilter", "SALT", "hash_values",
    "parse_filter", "parse_header", "serialize_filter",
    "DEFAULT_MAX_BYTES", "SPEC_TABLE", "bits_per_value", "model_fpp", "optimal_num_bytes",
    "xxh64_u32", "xxh64_u64", "xxh64_rows", "xxh64_byte_arrays", "xxh64_bytes",
]
