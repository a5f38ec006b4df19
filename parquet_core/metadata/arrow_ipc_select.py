"""Keeping some top-level fields of an ``ARROW:schema`` value, without pyarrow.

``write_to_dataset`` leaves the partition columns out of its files; their
``ARROW:schema`` must then describe the other columns only, exactly as the
input described them (zones, durations, dictionaries, extension types,
field metadata).  Rather than decoding every Arrow type and writing it again,
:func:`select_schema_fields` builds a new small front for the flatbuffer read
by :mod:`parquet_core.metadata.arrow_ipc`::

    root offset | new Message | new Schema | new [Field] vector | pad to 8 | original bytes

The new Message and Schema tables copy the original's scalars (metadata
version, endianness...) and point, with forward unsigned offsets, into the
original bytes placed after them: the kept ``Field`` tables, the schema's
``custom_metadata`` and ``features`` are reused as they are.  The copy starts
at a multiple of 8, as the original did, so every scalar in it keeps its
alignment.  Fields that are not kept stay in the copy, unreferenced.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Sequence

from parquet_core.errors import ParquetSchemaError
from parquet_core.metadata.arrow_ipc import _HEADER_SCHEMA, _Buffer, _Malformed, _schema_message
from parquet_core.metadata.arrow_ipc_write import _Table, _Vector, _Writer

__all__ = ["ArrowSchemaSelectError", "select_schema_fields"]

#: Message { version: i16, header_type: u8, header: table, bodyLength: i64, custom_metadata }
_MESSAGE = ("h", "B", "header", "q", "ref")
#: Schema { endianness: i16, fields: [Field], custom_metadata: [KeyValue], features: [i64] }
_SCHEMA = ("h", "fields", "ref", "ref")


class ArrowSchemaSelectError(ParquetSchemaError):
    """An ``ARROW:schema`` value whose fields cannot be selected (unreadable, or a
    name missing or ambiguous)."""


class _Original:
    """A reference to position *pos* of the original flatbuffer (placed after the new front)."""

    def __init__(self, pos: int) -> None:
        self.pos = pos


class _FrontWriter(_Writer):
    """:class:`_Writer` whose references may point into the original bytes appended last."""

    def __init__(self) -> None:
        super().__init__()
        self.late: list[tuple[int, int]] = []   # (where the offset is stored, original position)

    def obj(self, item: object) -> int:
        if isinstance(item, _Original):
            return -1 - item.pos
        return super().obj(item)

    def _patch(self, at: int, target: int) -> None:
        if target < 0:
            self.late.append((at, -1 - target))
        else:
            super()._patch(at, target)

    def finish_with(self, root: _Table, original: bytes) -> bytes:
        self._patch(0, self._table(root))
        self._pad(8)
        base = len(self.buf)
        self.buf.extend(original)
        for at, pos in self.late:
            struct.pack_into("<I", self.buf, at, base + pos - at)
        self._pad(8)
        return bytes(self.buf)


def _slots(buf: _Buffer, table: int, kinds: tuple[str, ...], what: str) -> list[tuple[str, int] | None]:
    """The present slots of *table* as (kind, absolute position); refuses unknown slots."""
    vtable = table - buf.i32(table)
    count = (struct.unpack_from("<H", buf.data, vtable)[0] - 4) // 2 if vtable >= 0 else -1
    if count < 0:
        raise _Malformed
    for extra in range(len(kinds), count):
        if buf.table_field(table, extra) is not None:
            raise ArrowSchemaSelectError(f"ARROW:schema: the {what} table has a field (#{extra}) this "
                                         "reader does not know; cannot keep it")
    out: list[tuple[str, int] | None] = []
    for i, kind in enumerate(kinds):
        at = buf.table_field(table, i)
        out.append(None if at is None else (kind, at))
    return out


def _copy(buf: _Buffer, slot: tuple[str, int] | None, replace: dict[str, object]) -> object:
    if slot is None:
        return None
    kind, at = slot
    if kind in replace:
        return ("ref", replace[kind])
    if kind == "ref":
        return ("ref", _Original(buf.deref(at)))
    size = struct.calcsize("<" + kind)
    if at + size > len(buf.data):
        raise _Malformed
    return (kind, struct.unpack_from("<" + kind, buf.data, at)[0])


def select_schema_fields(encoded: bytes | str, keep: Sequence[str]) -> bytes:
    """The ``ARROW:schema`` value *encoded* (base64 of an IPC Schema message) with only
    the top-level fields named *keep*, in that order; everything else it holds (each kept
    field whole, the schema's metadata, endianness and features, the metadata version)
    is kept as it is.  The result is base64, framed as *encoded* was.

    Raises
    ------
    ArrowSchemaSelectError
        When *encoded* is not a readable Schema message, has table fields unknown here,
        or a name of *keep* is missing from it or appears in it more than once.
    """
    try:
        text = encoded.encode("ascii") if isinstance(encoded, str) else encoded
        marker = base64.b64decode(text, validate=False)[:4] == b"\xff\xff\xff\xff"
        buf = _schema_message(text)
        message = buf.deref(0)
        kind = buf.table_field(message, 1)
        header = buf.table_field(message, 2)
        if kind is None or buf.u8(kind) != _HEADER_SCHEMA or header is None:
            raise ArrowSchemaSelectError("ARROW:schema: the value is not an Arrow IPC Schema message")
        schema = buf.deref(header)
        fields_at = buf.table_field(schema, 1)
        positions = [] if fields_at is None else buf.vector(fields_at)
        by_name: dict[str, list[int]] = {}
        for pos in positions:
            name_at = buf.table_field(pos, 0)
            by_name.setdefault("" if name_at is None else buf.string(name_at), []).append(pos)
        chosen = []
        for name in keep:
            found = by_name.get(name, [])
            if len(found) != 1:
                problem = "has no field" if not found else f"has {len(found)} fields"
                raise ArrowSchemaSelectError(f"ARROW:schema {problem} named {name!r}; cannot keep it alone")
            chosen.append(_Original(found[0]))
        new_schema = _Table([_copy(buf, s, {"fields": _Vector(chosen)})
                             for s in _slots(buf, schema, _SCHEMA, "Schema")])
        if new_schema.slots[1] is None:
            new_schema.slots[1] = ("ref", _Vector(chosen))
        new_message = _Table([_copy(buf, s, {"header": new_schema})
                              for s in _slots(buf, message, _MESSAGE, "Message")])
        flat = _FrontWriter().finish_with(new_message, buf.data)
    except (_Malformed, binascii.Error, ValueError, struct.error, UnicodeDecodeError) as exc:
        if isinstance(exc, ArrowSchemaSelectError):
            raise
        raise ArrowSchemaSelectError("ARROW:schema: the value is not a readable Arrow IPC Schema "
                                     "message") from None
    framed = (b"\xff\xff\xff\xff" if marker else b"") + struct.pack("<i", len(flat)) + flat
    return base64.b64encode(framed)
