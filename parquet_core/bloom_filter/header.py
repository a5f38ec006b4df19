"""A Bloom filter as stored in a file: a thrift header, then the bitset.

::

    bloom_filter_offset
    v
    | BloomFilterHeader (thrift compact)             | bitset: numBytes bytes |
    | numBytes | algorithm | hash | compression      | block 0 | block 1 | ...  |

The header's three unions have one member each in the spec today:
``algorithm.BLOCK`` (split block), ``hash.XXHASH`` (XXH64, seed 0) and
``compression.UNCOMPRESSED``.  A union whose member is unknown to us parses
as an empty union and is refused with :class:`UnsupportedFeatureError`; a
missing required field, a size that is not a whole number of 32-byte blocks,
or a bitset running past the bytes available is a
:class:`ParquetFormatError`.  The claimed size is checked against the bytes
actually present before anything is allocated.
"""

from __future__ import annotations

from typing import Any

from parquet_core.bloom_filter.sbbf import MAX_NUM_BYTES, SplitBlockBloomFilter
from parquet_core.bloom_filter.sizing import BYTES_PER_BLOCK
from parquet_core.errors import ParquetFormatError, UnsupportedFeatureError, add_context
from parquet_core.thrift import parse, pt, serialize

__all__ = ["make_header", "serialize_filter", "parse_header", "parse_filter"]


def make_header(num_bytes: int) -> Any:
    """The ``pt.BloomFilterHeader`` of a split-block, XXH64, uncompressed bitset."""
    return pt.BloomFilterHeader(
        numBytes=num_bytes,
        algorithm=pt.BloomFilterAlgorithm(BLOCK=pt.SplitBlockAlgorithm()),
        hash=pt.BloomFilterHash(XXHASH=pt.XxHash()),
        compression=pt.BloomFilterCompression(UNCOMPRESSED=pt.Uncompressed()),
    )


def serialize_filter(bf: SplitBlockBloomFilter) -> bytes:
    """Header followed by the bitset, ready to be written at ``bloom_filter_offset``."""
    return serialize(make_header(bf.num_bytes)) + bf.bitset()


def _check_header(h: Any) -> int:
    """Validate a parsed header; return its ``numBytes``."""
    for name in ("numBytes", "algorithm", "hash", "compression"):
        if getattr(h, name) is None:
            raise ParquetFormatError(f"Bloom filter header: required field {name!r} is missing")
    if h.algorithm.BLOCK is None:
        raise UnsupportedFeatureError("Bloom filter algorithm is not split-block (unknown union member)")
    if h.hash.XXHASH is None:
        raise UnsupportedFeatureError("Bloom filter hash is not XXH64 (unknown union member)")
    if h.compression.UNCOMPRESSED is None:
        raise UnsupportedFeatureError("Bloom filter bitset is compressed with an unknown method")
    n = int(h.numBytes)
    if n < BYTES_PER_BLOCK or n % BYTES_PER_BLOCK or n > MAX_NUM_BYTES:
        raise ParquetFormatError(
            f"Bloom filter header: numBytes {n} is not a whole number of 32-byte blocks")
    return n


def parse_header(buf: Any, offset: int = 0, limit: int | None = None) -> tuple[int, int]:
    """Parse and check a header at *offset* of *buf*.

    Returns
    -------
    tuple of (int, int)
        The bitset size ``numBytes`` and the header's own length in bytes.

    Raises
    ------
    ParquetFormatError, UnsupportedFeatureError
        See the module notes.
    """
    header, used = parse(buf, pt.BloomFilterHeader, offset=offset, limit=limit)
    return _check_header(header), used


def parse_filter(buf: Any, offset: int = 0, limit: int | None = None,
                 *, file_offset: int | None = None) -> tuple[SplitBlockBloomFilter, int]:
    """Parse a header and its bitset from ``buf[offset:offset + limit]``.

    Parameters
    ----------
    buf:
        Bytes-like input.
    offset:
        Where the header starts in *buf*.
    limit:
        Bytes available from *offset* (default: to the end of *buf*).
    file_offset:
        Position of ``buf[offset]`` in its file, for error notes.

    Returns
    -------
    tuple of (SplitBlockBloomFilter, int)
        The filter (its bitset copied) and the bytes consumed, header included.
    """
    view = memoryview(buf).cast("B")
    end = len(view) if limit is None else min(len(view), offset + limit)
    try:
        if offset < 0 or offset > end:
            raise ParquetFormatError(f"Bloom filter offset {offset} is outside the {end} bytes given")
        num_bytes, hlen = parse_header(view, offset, end - offset)
        start = offset + hlen
        if num_bytes > end - start:
            raise ParquetFormatError(
                f"truncated Bloom filter: the header claims a {num_bytes}-byte bitset, "
                f"{end - start} bytes follow it")
        bf = SplitBlockBloomFilter.from_bitset(view[start:start + num_bytes])
    except (ParquetFormatError, UnsupportedFeatureError) as exc:
        if file_offset is not None:
            add_context(exc, file_offset=file_offset)
        raise
    return bf, hlen + num_bytes
