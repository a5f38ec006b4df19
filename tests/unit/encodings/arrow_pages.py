"""Test helper: pull raw page payloads out of single-column files written by pyarrow.

pyarrow is an independent writer, so its pages are good golden vectors for
the decoders.  Only the Thrift compact protocol needed to walk page headers
is implemented here (a generic struct reader, ~50 lines), independent of
``parquet_core.thrift`` so these tests exercise the encodings alone.
Files are written uncompressed; with data page v2 the levels have explicit
byte lengths, so the values section is simply the page body past them.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["Page", "arrow_pages", "write_column"]


class _Compact:
    """The subset of the Thrift compact protocol that page headers use."""

    def __init__(self, data: bytes, pos: int) -> None:
        self.data = data
        self.pos = pos

    def byte(self) -> int:
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        u = self.varint()
        return (u >> 1) ^ -(u & 1)

    def value(self, ctype: int) -> Any:
        if ctype in (1, 2):  # bool encoded in the field header
            return ctype == 1
        if ctype == 3:
            return self.byte()
        if ctype in (4, 5, 6):
            return self.zigzag()
        if ctype == 7:
            self.pos += 8
            return None
        if ctype == 8:
            n = self.varint()
            self.pos += n
            return self.data[self.pos - n:self.pos]
        if ctype in (9, 10):
            head = self.byte()
            size = head >> 4
            if size == 15:
                size = self.varint()
            etype = head & 0x0F
            return [self.byte() == 1 if etype in (1, 2) else self.value(etype)
                    for _ in range(size)]
        if ctype == 11:
            size = self.varint()
            if size:
                kv = self.byte()
                for _ in range(size):
                    self.value(kv >> 4)
                    self.value(kv & 0x0F)
            return None
        if ctype == 12:
            return self.struct()
        raise ValueError(f"unknown compact type {ctype}")

    def struct(self) -> dict[int, Any]:
        out: dict[int, Any] = {}
        fid = 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            delta = head >> 4
            fid = fid + delta if delta else self.zigzag()
            out[fid] = self.value(head & 0x0F)


@dataclass
class Page:
    """One page of a column chunk, with its values section cut out."""

    kind: str               # "dictionary", "v1" or "v2"
    encoding: int
    num_values: int         # values in the page, nulls included
    num_nulls: int | None   # v2 only
    values: bytes           # the values section (the whole body for v1 pages)
    body: bytes


def write_column(array: pa.Array, **options: Any) -> bytes:
    """Write ``array`` as column ``x`` of an uncompressed file; return the file bytes.

    The column is REQUIRED unless the array has nulls, so v1 pages of
    null-free data have no level streams and their body is the values section.
    """
    sink = io.BytesIO()
    opts: dict[str, Any] = {"compression": "NONE", "write_statistics": False}
    opts.update(options)
    field = pa.field("x", array.type, nullable=array.null_count > 0)
    pq.write_table(pa.Table.from_arrays([array], schema=pa.schema([field])), sink, **opts)
    return sink.getvalue()


def arrow_pages(array: pa.Array, **options: Any) -> list[Page]:
    """Write ``array`` with pyarrow and return the pages of its single column chunk."""
    options.setdefault("data_page_version", "2.0")
    data = write_column(array, **options)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    pages: list[Page] = []
    for rg in range(meta.num_row_groups):
        col = meta.row_group(rg).column(0)
        pos = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
        stop = pos + col.total_compressed_size
        while pos < stop:
            reader = _Compact(data, pos)
            header = reader.struct()
            start = reader.pos
            body = data[start:start + header[3]]
            pos = start + header[3]
            ptype = header[1]
            if ptype == 2:
                d = header[7]
                pages.append(Page("dictionary", d[2], d[1], None, body, body))
            elif ptype == 0:
                d = header[5]
                pages.append(Page("v1", d[2], d[1], None, body, body))
            elif ptype == 3:
                d = header[8]
                skip = d.get(5, 0) + d.get(6, 0)
                pages.append(Page("v2", d[4], d[1], d[2], body[skip:], body))
    return pages
