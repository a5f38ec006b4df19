"""Pages after header parsing, CRC check and decompression.

::

    column chunk = [dictionary page] data page [data page ...]
    page         = PageHeader (thrift compact) | body (compressed_page_size bytes)

    data page v1 body (all of it compressed):
        [rep levels: 4-byte LE length | RLE hybrid]   if max_rep > 0
        [def levels: 4-byte LE length | RLE hybrid]   if max_def > 0
        values
    data page v2 body:
        rep levels (RLE hybrid, repetition_levels_byte_length bytes, never compressed)
        def levels (RLE hybrid, definition_levels_byte_length bytes, never compressed)
        values (compressed unless is_compressed is false)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Not frozen: a frozen dataclass's __init__ goes through object.__setattr__
# per field (about 1.1 us per page against 0.3 us), which small-page files
# pay once per page.  Pages are treated as immutable all the same.

__all__ = ["DictionaryPage", "DataPageV1", "DataPageV2", "Page"]


@dataclass(slots=True)
class DictionaryPage:
    """The dictionary of a chunk: ``num_values`` values in ``encoding`` (PLAIN)."""

    num_values: int
    encoding: int
    body: bytes | memoryview
    ordinal: int
    offset: int


@dataclass(slots=True)
class DataPageV1:
    """A v1 data page; ``body`` holds levels and values, decompressed."""

    num_values: int
    encoding: int
    definition_level_encoding: int
    repetition_level_encoding: int
    body: bytes | memoryview
    ordinal: int
    offset: int


@dataclass(slots=True)
class DataPageV2:
    """A v2 data page: levels kept apart from the (decompressed) values."""

    num_values: int
    num_nulls: int
    num_rows: int
    encoding: int
    repetition_levels: bytes | memoryview | Any   # or decoded int16 levels (a cut page)
    definition_levels: bytes | memoryview | Any
    values: bytes | memoryview
    ordinal: int
    offset: int


Page = DictionaryPage | DataPageV1 | DataPageV2
