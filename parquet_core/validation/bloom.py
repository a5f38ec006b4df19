"""Bloom filter rules: header, placement, size, and every value of the chunk present.

Spec: BloomFilter.md ("File Format", "Sizing an SBBF").  Filters are read
with the engine's reader (``file/bloom_filter_reader.py``).
"""

from __future__ import annotations

import numpy as np

from parquet_core.bloom_filter.hashing import hash_values
from parquet_core.constants import PhysicalType as P
from parquet_core.encryption.context import chunk_decryption
from parquet_core.errors import ParquetEncryptionError, ParquetError
from parquet_core.file.bloom_filter_reader import read_bloom_filter
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import ERROR, WARNING, rule

__all__ = ["check_bloom_headers", "check_chunk_values"]

_BF = "BloomFilter.md#file-format"
HEADER = rule("bloom.header", ERROR, _BF, "a Bloom filter lies inside the file and its header (BLOCK, XXHASH, UNCOMPRESSED, "
              "numBytes a whole number of 32-byte blocks) decodes, followed by its bitset")
LENGTH = rule("bloom.length", ERROR, "parquet.thrift ColumnMetaData.bloom_filter_length", "bloom_filter_length, when set, is the header plus the bitset")
OVERLAP = rule("bloom.overlap", ERROR, _BF, "a Bloom filter does not overlap column chunk data")
SIZE = rule("bloom.size", WARNING, "BloomFilter.md#sizing-an-sbbf", "a bitset size is a power of two between 32 bytes and 128 MiB (what other readers accept)")
MISSING = rule("bloom.missing-value", ERROR, "BloomFilter.md#technical-approach", "every value of the chunk is in its Bloom filter (else readers skip row groups holding it)")

_MAX = 128 * 1024 * 1024


def check_bloom_headers(ck: Checker) -> None:
    """Read each chunk's filter (header and bitset)."""
    spans = [(c.start, c.start + c.length) for row in ck.chunks for c in row if c is not None and c.meta is not None]
    for ch in ck.iter_chunks():
        off = ch.meta.bloom_filter_offset
        if off is None or ch.wrapper is None:
            continue
        if any(s <= off < e for s, e in spans):
            ck.report_chunk(OVERLAP, ch, f"the Bloom filter at {off} lies inside column chunk data", offset=off)
            continue
        try:
            bf = read_bloom_filter(ck.source, ch.wrapper)
        except ParquetEncryptionError as exc:
            from parquet_core.validation.encryption import MODULE

            ck.report_chunk(MODULE, ch, str(exc), offset=off)
            continue
        except ParquetError as exc:
            ck.report_chunk(HEADER, ch, str(exc), offset=off)
            continue
        if bf is None:   # (read_bloom_filter finds none only without an offset)
            continue
        ch.bloom = bf
        n = bf.num_bytes
        if n & (n - 1) or n > _MAX:
            ck.report_chunk(SIZE, ch, f"the bitset has {n} bytes, not a power of two up to {_MAX}", offset=off)
        length = ch.meta.bloom_filter_length
        if length is not None and not chunk_decryption(ch.wrapper).encrypted:
            from parquet_core.bloom_filter import parse_header

            try:
                _, hlen = parse_header(ck.source.read_at(off, min(length, ck.size - off)))
                if length != hlen + n:
                    ck.report_chunk(LENGTH, ch, f"bloom_filter_length is {length}; header and bitset take {hlen + n}",
                                    offset=off)
            except ParquetError:
                pass   # the reader accepted it: a header cut by a short length is reported above


def check_chunk_values(ck: Checker, ch: ChunkState) -> None:
    """Every non-null value of the chunk must be found in its filter."""
    bf = ch.bloom
    if bf is None or ch.values is None or len(ch.values) == 0 or ch.desc.physical_type == P.BOOLEAN:
        return
    hashes = hash_values(ch.values, ch.desc.physical_type, ch.desc.type_length)
    found = bf.check_hashes(hashes)
    if not found.all():
        missing = int(np.count_nonzero(~found))
        first = int(np.flatnonzero(~found)[0])
        ck.report_chunk(MISSING, ch, f"{missing} of {len(found)} values are not in the Bloom filter (first: value "
                        f"#{first})", offset=ch.meta.bloom_filter_offset)
