"""Read a column chunk's Bloom filter from a file and look logical values up in it.

Where the filter is (``ColumnMetaData``)::

    bloom_filter_offset   first byte of the BloomFilterHeader
    bloom_filter_length   header + bitset, when the writer recorded it (newer writers)

With a length the filter is fetched with one positional read.  Without it
(parquet-java before 1.13 and others) a small window is read to parse the
header, then the bitset with a second read.  Either way nothing is read or
allocated beyond what the file holds. In an encrypted column the header
and the bitset are two GCM modules, one after the other.

:class:`ColumnBloomFilter` pairs the filter with its column so that lookups
can be written with Python values of the column's logical type (``str`` for
STRING, ``int`` for any integer, ``Decimal``, ``datetime``...).  They are
converted with the writer's own conversion (``table.ingest`` then
``schema.physical.to_physical``), so the bytes hashed are the PLAIN bytes a
writer hashed.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.bloom_filter import SplitBlockBloomFilter, parse_filter, parse_header
from parquet_core.constants import PhysicalType
from parquet_core.encryption.context import ChunkDecryption, chunk_decryption
from parquet_core.encryption.modules import ModuleType
from parquet_core.errors import (
    ParquetEncryptionError,
    ParquetError,
    ParquetFormatError,
    ParquetSchemaError,
    add_context,
)
from parquet_core.file.source import RandomAccessSource
from parquet_core.interop.ingest import as_array
from parquet_core.metadata.wrappers import ColumnChunkMetadata
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.physical import to_physical
from parquet_core.schema.types import DataType, Field, TypeId

__all__ = ["ColumnBloomFilter", "read_bloom_filter"]

#: First read when the length is unknown: the four-field header takes 15 to 18 bytes.
_HEADER_WINDOW = 256
#: Second try, for a header padded with fields we do not know.
_HEADER_WINDOW_MAX = 64 * 1024


def read_bloom_filter(source: RandomAccessSource, chunk: ColumnChunkMetadata) -> SplitBlockBloomFilter | None:
    """The chunk's filter, or None when the writer stored none.

    Raises
    ------
    ParquetFormatError, UnsupportedFeatureError
        A bad offset or length, a malformed header, a truncated bitset, or an
        unknown algorithm, hash or compression; notes name the column, row
        group and offset.
    ParquetEncryptionError
        An encrypted filter (header and bitset, two GCM modules) fails to
        authenticate or is truncated.
    """
    offset = chunk.bloom_filter_offset
    if offset is None:
        return None
    length = chunk.bloom_filter_length
    try:
        if offset < 0 or offset >= source.size:
            raise ParquetFormatError(f"Bloom filter offset {offset} is outside the file "
                                     f"({source.size} bytes)")
        crypto = chunk_decryption(chunk)
        if crypto.encrypted:   # two length-prefixed modules, not one header + bitset run
            return _read_encrypted(source, offset, length, crypto)
        if length is not None:
            if length <= 0 or length > source.size - offset:
                raise ParquetFormatError(f"Bloom filter length {length} at offset {offset} does not "
                                         f"fit the file ({source.size} bytes)")
            return parse_filter(source.read_at(offset, length))[0]
        return _read_without_length(source, offset)
    except ParquetError as exc:
        add_context(exc, column=chunk.path_in_schema, row_group=chunk.row_group, file_offset=offset)
        raise


def _module_at(source: RandomAccessSource, offset: int, end: int, what: str) -> bytes:
    """The stored bytes of the encrypted module at *offset* (its length field says how many)."""
    if end - offset < 4:
        raise ParquetEncryptionError(f"encrypted {what} at offset {offset} is truncated")
    size = 4 + int.from_bytes(bytes(source.read_at(offset, 4)), "little")
    if size > end - offset:
        raise ParquetEncryptionError(f"encrypted {what} at offset {offset} claims {size} bytes, "
                                     f"only {end - offset} are available")
    return bytes(source.read_at(offset, size))


def _read_encrypted(source: RandomAccessSource, offset: int, length: int | None,
                    decryptor: ChunkDecryption) -> SplitBlockBloomFilter:
    """An encrypted filter: a GCM module holding the header, then one holding the bitset."""
    end = source.size if length is None else offset + length
    if length is not None and (length <= 0 or end > source.size):
        raise ParquetFormatError(f"Bloom filter length {length} at offset {offset} does not "
                                 f"fit the file ({source.size} bytes)")
    module = _module_at(source, offset, end, "Bloom filter header")
    header, _ = decryptor.decrypt(module, ModuleType.BLOOM_FILTER_HEADER, where="Bloom filter header")
    num_bytes, _ = parse_header(header)
    module = _module_at(source, offset + len(module), end, "Bloom filter bitset")
    bitset, _ = decryptor.decrypt(module, ModuleType.BLOOM_FILTER_BITSET, where="Bloom filter bitset")
    if len(bitset) != num_bytes:
        raise ParquetEncryptionError(f"decrypted Bloom filter bitset is {len(bitset)} bytes, its header "
                                     f"says {num_bytes}")
    return SplitBlockBloomFilter.from_bitset(bitset)


def _read_without_length(source: RandomAccessSource, offset: int) -> SplitBlockBloomFilter:
    left = source.size - offset
    window = min(_HEADER_WINDOW, left)
    try:
        num_bytes, hlen = parse_header(source.read_at(offset, window))
    except ParquetFormatError:
        if window == left:
            raise
        window = min(_HEADER_WINDOW_MAX, left)
        num_bytes, hlen = parse_header(source.read_at(offset, window))
    if num_bytes > left - hlen:
        raise ParquetFormatError(f"truncated Bloom filter: the header claims a {num_bytes}-byte "
                                 f"bitset, the file has {left - hlen} bytes after it")
    return SplitBlockBloomFilter.from_bitset(source.read_at(offset + hlen, num_bytes))


class ColumnBloomFilter:
    """A column chunk's Bloom filter, answering lookups of logical values.

    Attributes
    ----------
    filter:
        The :class:`SplitBlockBloomFilter` read from the file.
    descriptor:
        The column it belongs to.
    """

    def __init__(self, bloom: SplitBlockBloomFilter, descriptor: ColumnDescriptor) -> None:
        self.filter = bloom
        self.descriptor = descriptor

    @property
    def num_bytes(self) -> int:
        """Bitset size in bytes."""
        return self.filter.num_bytes

    def might_contain(self, value: Any) -> bool:
        """False when *value* is certainly not in the column chunk, else True.

        ``None`` is never in a filter (nulls are not inserted), nor is a value
        the column's type cannot hold (300 in an int8 column, 2.5 in an
        integer column, text in a number column).
        """
        return bool(self.check([value])[0])

    def check(self, values: Iterable[Any]) -> npt.NDArray[np.bool_]:
        """:meth:`might_contain` for every value (a list, or a numpy array of storage values)."""
        if isinstance(values, ByteArrays) or (
                isinstance(values, np.ndarray) and values.dtype != object
                and not np.ma.isMaskedArray(values)):
            return self._check_present(values, len(values))
        # masked entries of a masked array become None
        items = values.tolist() if isinstance(values, np.ndarray) else list(values)
        out = np.zeros(len(items), dtype=np.bool_)
        # Lookup values are few and come as Python objects: one pass to drop nulls.
        present = [i for i, v in enumerate(items) if v is not None]
        if not present:
            return out
        chosen = [items[i] for i in present]
        try:
            out[present] = self._check_present(chosen, len(chosen))
        except ParquetSchemaError:
            # Some value does not fit the column: it cannot be in it.  Sort
            # them out one by one (this only happens with unfit values).
            for i, v in zip(present, chosen):
                try:
                    out[i] = self._check_present([v], 1)[0]
                except ParquetSchemaError:
                    out[i] = False
        return out

    def check_physical(self, values: Any) -> npt.NDArray[np.bool_]:
        """Look up physical values (as the read path returns them) bit for bit."""
        d = self.descriptor
        return self.filter.check(values, d.physical_type, d.type_length)

    # -- conversion -------------------------------------------------------
    def _lookup_type(self, values: Any) -> DataType:
        d = self.descriptor
        if d.physical_type == PhysicalType.INT96 and d.data_type.id is TypeId.INT96 and not (
                isinstance(values, np.ndarray) and values.ndim == 2):
            return DataType("timestamp", unit="ns")  # INT96 is looked up by its timestamp
        return d.data_type

    def _check_present(self, values: Any, n: int) -> npt.NDArray[np.bool_]:
        if n == 0:
            return np.zeros(0, dtype=np.bool_)
        d = self.descriptor
        dt = self._lookup_type(values)
        arr = as_array(values, d.dotted_path, Field(d.dotted_path, dt, True))
        physical = to_physical(d, arr.type, arr.values)
        hit = self.check_physical(physical)
        if arr.validity is not None:  # nulls (NaT, masked slots...) are never in a filter
            hit &= arr.validity
        if d.physical_type in (PhysicalType.FLOAT, PhysicalType.DOUBLE):
            # 0.0 == -0.0 but their bytes, hence hashes, differ: try the other sign too.
            zero = np.flatnonzero(physical == 0)
            if len(zero):
                hit[zero] |= self.check_physical(-physical[zero])
        return hit

    def __repr__(self) -> str:
        return f"<ColumnBloomFilter {self.descriptor.dotted_path}: {self.filter.num_bytes} bytes>"
