"""How much memory a page, or a column chunk, may ask for: :class:`PageLimits`.

Sizes and counts in page headers and column metadata are declarations: a
126-byte file can declare 2**31 null rows in one RLE run, and a 65 KB zstd
page can honestly inflate to 2 GiB.  A read checks each declaration against
these limits *before* allocating anything for it:

* a page's ``uncompressed_page_size`` and ``compressed_page_size`` against
  ``max_page_bytes`` (:class:`~parquet_core.errors.ParquetResourceError`), and
  its uncompressed size against its chunk's ``total_uncompressed_size`` (a
  page larger than the chunk that holds it: :class:`ParquetFormatError`);
* a data page's value count (and, for whole-chunk reads, the chunk's) times
  the bytes one value slot takes once decoded against ``max_decoded_bytes``.

The limits come from :class:`~parquet_core.options.ReaderOptions`; the error
names the option to raise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetFormatError, ParquetResourceError
from parquet_core.options.reader import DEFAULT_MAX_DECODED_BYTES, DEFAULT_MAX_PAGE_BYTES

__all__ = ["PageLimits", "DEFAULT_LIMITS", "slot_bytes"]

#: decoded bytes of one value of the fixed-width physical types
_WIDTHS = {PhysicalType.BOOLEAN: 1, PhysicalType.INT32: 4, PhysicalType.INT64: 8, PhysicalType.INT96: 12,
           PhysicalType.FLOAT: 4, PhysicalType.DOUBLE: 8}


def slot_bytes(desc: Any) -> int:
    """Bytes one value slot of the column *desc* takes once decoded, at least: its value's
    width (a variable-length value: its 4-byte offset; a null takes a value's room in the
    output too) and 2 bytes per level kind (levels decode to int16)."""
    ptype = desc.physical_type
    width = _WIDTHS.get(ptype)
    if width is None:
        tl = desc.type_length
        width = tl if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY and tl and tl > 0 else 4
    return width + 2 * (desc.max_definition_level > 0) + 2 * (desc.max_repetition_level > 0)


@dataclass(frozen=True, slots=True)
class PageLimits:
    """The limits one column chunk is read under (see the module docstring).

    ``slot_bytes == 0`` leaves value counts unchecked (a page read without its
    column, as inspection does); ``chunk_bytes`` None (or not positive) leaves the
    chunk's ``total_uncompressed_size`` out.
    """

    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES
    max_decoded_bytes: int = DEFAULT_MAX_DECODED_BYTES
    slot_bytes: int = 0
    chunk_bytes: int | None = None

    @classmethod
    def of(cls, options: Any, desc: Any = None, chunk_bytes: int | None = None) -> PageLimits:
        """The limits of *options* (a ReaderOptions, or None: the defaults) for a chunk of
        column *desc* whose metadata declares *chunk_bytes* uncompressed."""
        page = DEFAULT_MAX_PAGE_BYTES if options is None else options.max_page_bytes
        decoded = DEFAULT_MAX_DECODED_BYTES if options is None else options.max_decoded_bytes
        return cls(page, decoded, 0 if desc is None else slot_bytes(desc), chunk_bytes)

    def check_page(self, csize: int, usize: int) -> None:
        """A page's declared sizes (both known to be >= 0)."""
        cap = self.max_page_bytes
        if usize > cap or csize > cap:
            what, size = ("uncompressed", usize) if usize > cap else ("stored", csize)
            raise ParquetResourceError(
                f"page declares {size} {what} bytes, more than max_page_bytes={cap}; raise "
                "it to read the page: max_page_bytes= of the read (or of its ReaderOptions)")
        chunk = self.chunk_bytes
        if chunk is not None and 0 < chunk < usize:
            raise ParquetFormatError(
                f"page declares {usize} uncompressed bytes, more than its column chunk's "
                f"total_uncompressed_size ({chunk})")

    def check_count(self, count: int, what: str = "page") -> None:
        """A page's (or a chunk's, *what*) declared value count, before anything is decoded."""
        per = self.slot_bytes
        if per and count * per > self.max_decoded_bytes:
            raise ParquetResourceError(
                f"{what} declares {count} values, about {count * per} bytes once decoded ({per} per value), "
                f"more than max_decoded_bytes={self.max_decoded_bytes}; raise it to read "
                "them: max_decoded_bytes= of the read (or of its ReaderOptions)")


#: The default limits, values unchecked (no column known).
DEFAULT_LIMITS = PageLimits()
