"""Read the field names of an ``ARROW:schema`` footer value, without pyarrow.

pyarrow stores the Arrow schema it wrote as base64 of an Arrow IPC
``Message`` (optionally behind the 0xFFFFFFFF continuation marker and a
length), whose header is a ``Schema`` flatbuffer.  Only what the check
needs is read: the top-level fields' names and child counts.  Flatbuffer
layout: a table starts with an int32 back-offset to its vtable; the vtable
holds uint16 sizes and then one uint16 offset per field (0: absent);
offsets to tables, vectors and strings are uint32, relative to where they
are stored.
"""

from __future__ import annotations

import base64
import binascii
import struct

from parquet_core.errors import ParquetFormatError

__all__ = ["arrow_fields"]

_SCHEMA_HEADER = 1   # MessageHeader.Schema


class _Buf:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def u32(self, pos: int) -> int:
        if not 0 <= pos <= len(self.data) - 4:
            raise ParquetFormatError(f"ARROW:schema: offset {pos} outside the {len(self.data)}-byte message")
        return int(struct.unpack_from("<I", self.data, pos)[0])

    def field(self, table: int, index: int) -> int | None:
        """Position of field *index* of the table at *table*, or None when absent."""
        vtable = table - struct.unpack_from("<i", self.data, table)[0]
        size = struct.unpack_from("<H", self.data, vtable)[0]
        if 4 + 2 * index >= size:
            return None
        off = struct.unpack_from("<H", self.data, vtable + 4 + 2 * index)[0]
        return None if off == 0 else table + off

    def deref(self, pos: int) -> int:
        return pos + self.u32(pos)

    def vector(self, pos: int) -> list[int]:
        start = self.deref(pos)
        n = self.u32(start)
        if n > len(self.data) // 4:
            raise ParquetFormatError(f"ARROW:schema: vector of {n} entries in a {len(self.data)}-byte message")
        return [self.deref(start + 4 + 4 * i) for i in range(n)]

    def string(self, pos: int) -> str:
        start = self.deref(pos)
        n = self.u32(start)
        return self.data[start + 4:start + 4 + n].decode("utf-8")


def arrow_fields(value: bytes) -> list[tuple[str, int]]:
    """``(name, number of children)`` of each top-level field of an ``ARROW:schema`` value.

    Raises
    ------
    ParquetFormatError
        The value is not base64 of an IPC message holding a schema.
    """
    try:
        raw = base64.b64decode(value, validate=True)
        pos = 8 if raw[:4] == b"\xff\xff\xff\xff" else 4
        length = struct.unpack_from("<i", raw, pos - 4)[0]
        buf = _Buf(raw[pos:pos + length])
        msg = buf.deref(0)
        kind = buf.field(msg, 1)
        header = buf.field(msg, 2)
        if kind is None or buf.data[kind] != _SCHEMA_HEADER or header is None:
            raise ParquetFormatError("ARROW:schema: the IPC message does not hold a schema")
        schema = buf.deref(header)
        fields = buf.field(schema, 1)
        out = []
        for f in ([] if fields is None else buf.vector(fields)):
            name = buf.field(f, 0)
            children = buf.field(f, 5)
            out.append(("" if name is None else buf.string(name), 0 if children is None else len(buf.vector(children))))
        return out
    except (binascii.Error, struct.error, IndexError, UnicodeDecodeError, ValueError) as exc:
        raise ParquetFormatError(f"ARROW:schema does not decode: {exc}") from exc
