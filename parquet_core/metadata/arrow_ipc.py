"""Just enough of Arrow's IPC schema message to read facts from ``ARROW:schema``.

pyarrow stores the Arrow schema of the data it writes in the footer key
``ARROW:schema``: base64 of an IPC *Schema message*, a FlatBuffers table.
The reader needs one fact from it on every read of such a file (which
top-level columns were dictionaries), and importing pyarrow for that would
cost more than the read; so this module walks the FlatBuffers bytes itself.

::

    base64 -> [0xFFFFFFFF] len: i32 | Message (flatbuffer root)
    Message  { version: i16 @0, header_type: u8 @1, header: table @2, ... }   header_type 1 = Schema
    Schema   { endianness: i16 @0, fields: [Field] @1, ... }
    Field    { name: string @0, nullable: bool @1, type_type: u8 @2, type: table @3,
               dictionary: DictionaryEncoding @4, children: [Field] @5, ... }

A FlatBuffers table starts with an i32 *back* offset to its vtable; the vtable
holds u16 byte offsets of each field inside the table (0: absent).  Offsets to
tables, vectors and strings are u32, relative to where they are stored.  A
dictionary field's ``type`` is the type of the dictionary's *values*.

Every offset is bounds-checked; anything malformed gives "no facts" (an
empty result), as a garbled ``ARROW:schema`` is ignored by readers.
"""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass

__all__ = ["dictionary_field_names", "file_schema_key_values", "BINARY_LIKE_TYPES", "FieldFacts",
           "schema_field_facts", "widen_dictionary_fields"]

# Arrow's ``Type`` union tags (Schema.fbs) of the binary and string types.
_BINARY, _UTF8, _LARGE_BINARY, _LARGE_UTF8 = 4, 5, 19, 20
BINARY_LIKE_TYPES = frozenset({_BINARY, _UTF8, _LARGE_BINARY, _LARGE_UTF8})
_HEADER_SCHEMA = 1


class _Malformed(Exception):
    pass


class _Buffer:
    """Bounds-checked little-endian reads over one flatbuffer."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def _unpack(self, fmt: str, pos: int) -> int:
        size = struct.calcsize(fmt)
        if pos < 0 or pos + size > len(self.data):
            raise _Malformed
        return int(struct.unpack_from(fmt, self.data, pos)[0])

    def table_field(self, table: int, index: int) -> int | None:
        """Absolute position of field *index* of the table at *table*, or None when absent."""
        vtable = table - self._unpack("<i", table)
        vsize = self._unpack("<H", vtable)
        slot = 4 + 2 * index
        if slot + 2 > vsize:
            return None
        rel = self._unpack("<H", vtable + slot)
        return table + rel if rel else None

    def deref(self, pos: int) -> int:
        """Follow the u32 offset stored at *pos*."""
        return pos + self._unpack("<I", pos)

    def u8(self, pos: int) -> int:
        return self._unpack("<B", pos)

    def vector(self, pos: int) -> list[int]:
        """Positions of the tables in the vector of offsets that *pos* points to."""
        start = self.deref(pos)
        n = self._unpack("<I", start)
        if n > (len(self.data) - start) // 4:
            raise _Malformed
        return [self.deref(start + 4 + 4 * i) for i in range(n)]

    def i16(self, pos: int) -> int:
        return self._unpack("<h", pos)

    def i32(self, pos: int) -> int:
        return self._unpack("<i", pos)

    def string(self, pos: int) -> str:
        start = self.deref(pos)
        n = self._unpack("<I", start)
        if start + 4 + n > len(self.data):
            raise _Malformed
        return self.data[start + 4:start + 4 + n].decode("utf-8", "replace")


def _schema_message(encoded: bytes | str) -> _Buffer:
    try:
        raw = base64.b64decode(encoded, validate=False)
    except (binascii.Error, ValueError):
        raise _Malformed from None
    if raw[:4] == b"\xff\xff\xff\xff":   # the continuation marker of IPC format >= 0.15
        raw = raw[4:]
    if len(raw) < 8:
        raise _Malformed
    (length,) = struct.unpack_from("<i", raw, 0)
    if length <= 0 or 4 + length > len(raw):
        raise _Malformed
    return _Buffer(raw[4:4 + length])


def dictionary_field_names(encoded: bytes | str) -> set[str]:
    """Top-level fields that an ``ARROW:schema`` value records as string or binary dictionaries.

    Returns an empty set for a value that is not a readable schema message.
    """
    try:
        buf = _schema_message(encoded)
        message = buf.deref(0)
        kind = buf.table_field(message, 1)
        header = buf.table_field(message, 2)
        if kind is None or buf.u8(kind) != _HEADER_SCHEMA or header is None:
            return set()
        schema = buf.deref(header)
        fields = buf.table_field(schema, 1)
        if fields is None:
            return set()
        names = set()
        for field in buf.vector(fields):
            name, type_tag, dictionary = (buf.table_field(field, i) for i in (0, 2, 4))
            if name is not None and type_tag is not None and dictionary is not None \
                    and buf.u8(type_tag) in BINARY_LIKE_TYPES:
                names.add(buf.string(name))
        return names
    except _Malformed:
        return set()


def file_schema_key_values(data: bytes) -> list[tuple[str, str]] | None:
    """The schema's custom metadata of an Arrow IPC *file* (``ARROW1`` ... footer ``ARROW1``),
    in order and with repeated keys kept (pyarrow's ``schema.metadata`` is a dict, which
    loses both); None for bytes that are not such a file.

    The file ends with ``Footer`` (flatbuffer) | i32 footer length | ``ARROW1``;
    ``Footer { version @0, schema: Schema @1, ... }``, ``Schema { ..., custom_metadata:
    [KeyValue] @2 }``, ``KeyValue { key: string @0, value: string @1 }``.
    """
    if len(data) < 16 or data[:6] != b"ARROW1" or data[-6:] != b"ARROW1":
        return None
    (length,) = struct.unpack_from("<i", data, len(data) - 10)
    start = len(data) - 10 - length
    if length <= 0 or start < 8:
        return None
    try:
        buf = _Buffer(data[start:start + length])
        footer = buf.deref(0)
        schema_at = buf.table_field(footer, 1)
        if schema_at is None:
            return None
        schema = buf.deref(schema_at)
        kv_at = buf.table_field(schema, 2)
        if kv_at is None:
            return []
        out = []
        for kv in buf.vector(kv_at):
            key, value = buf.table_field(kv, 0), buf.table_field(kv, 1)
            out.append(("" if key is None else buf.string(key), "" if value is None else buf.string(value)))
        return out
    except _Malformed:
        return None


#: Arrow's ``Type`` union tags (Schema.fbs) by name, for :class:`FieldFacts`.
TYPE_TAGS = {1: "null", 2: "int", 3: "float", 4: "binary", 5: "utf8", 6: "bool", 7: "decimal", 8: "date",
             9: "time", 10: "timestamp", 11: "interval", 12: "list", 13: "struct", 14: "union",
             15: "fixed_size_binary", 16: "fixed_size_list", 17: "map", 18: "duration",
             19: "large_binary", 20: "large_utf8", 21: "large_list", 22: "run_end_encoded",
             23: "binary_view", 24: "utf8_view", 25: "list_view", 26: "large_list_view"}
#: ``TimeUnit`` values, as the unit names numpy and pandas use.
_UNITS = {0: "s", 1: "ms", 2: "us", 3: "ns"}


@dataclass(frozen=True)
class FieldFacts:
    """What an ``ARROW:schema`` field says beyond Parquet's own types.

    ``kind`` is the Arrow type's name (:data:`TYPE_TAGS`; for a dictionary,
    that of its values); ``unit`` the time unit of a timestamp or duration
    (``"s"``, ``"ms"``, ``"us"``, ``"ns"``); ``tz`` a timestamp's zone;
    ``dictionary`` is True for a dictionary, with ``ordered`` and
    ``index_bits`` / ``index_signed`` its index type; ``extension`` the
    ``ARROW:extension:name`` of the field (``extension_metadata`` its
    ``ARROW:extension:metadata``); ``children`` the nested fields';
    ``bits`` the width of an int or float (0 otherwise).
    """

    name: str
    kind: str
    unit: str | None = None
    tz: str | None = None
    dictionary: bool = False
    ordered: bool = False
    index_bits: int = 32
    index_signed: bool = True
    extension: str | None = None
    children: tuple[FieldFacts, ...] = ()
    bits: int = 0
    extension_metadata: str | None = None


def _key_values(buf: _Buffer, table: int, index: int) -> dict[str, str]:
    at = buf.table_field(table, index)
    out = {}
    if at is not None:
        for kv in buf.vector(at):
            key, value = buf.table_field(kv, 0), buf.table_field(kv, 1)
            if key is not None:
                out[buf.string(key)] = "" if value is None else buf.string(value)
    return out


def _field_facts(buf: _Buffer, field: int, depth: int) -> FieldFacts:
    if depth > 64:
        raise _Malformed
    name_at, tag_at, type_at, dict_at, kids_at = (buf.table_field(field, i) for i in (0, 2, 3, 4, 5))
    kind = TYPE_TAGS.get(buf.u8(tag_at) if tag_at is not None else 0, "unknown")
    unit = tz = None
    bits = 0
    if type_at is not None and kind in ("int", "float"):
        table = buf.deref(type_at)
        at = buf.table_field(table, 0)
        if kind == "int":
            bits = buf.i32(at) if at is not None else 0
        else:   # Precision: HALF, SINGLE, DOUBLE
            bits = {0: 16, 1: 32, 2: 64}.get(buf.i16(at) if at is not None else 0, 0)
    if type_at is not None and kind in ("timestamp", "duration"):
        table = buf.deref(type_at)
        unit_at = buf.table_field(table, 0)
        # an absent field holds its default: SECOND for Timestamp, MILLISECOND for Duration
        default = 0 if kind == "timestamp" else 1
        unit = _UNITS.get(buf.i16(unit_at) if unit_at is not None else default)
        if kind == "timestamp":
            tz_at = buf.table_field(table, 1)
            tz = buf.string(tz_at) if tz_at is not None else None
    dictionary, ordered, index_bits, signed = dict_at is not None, False, 32, True
    if dict_at is not None:
        encoding = buf.deref(dict_at)
        index_at, ordered_at = buf.table_field(encoding, 1), buf.table_field(encoding, 2)
        ordered = bool(buf.u8(ordered_at)) if ordered_at is not None else False
        if index_at is not None:
            int_type = buf.deref(index_at)
            width_at, signed_at = buf.table_field(int_type, 0), buf.table_field(int_type, 1)
            index_bits = buf.i32(width_at) if width_at is not None else 32
            signed = bool(buf.u8(signed_at)) if signed_at is not None else False
    custom = _key_values(buf, field, 6)
    extension = custom.get("ARROW:extension:name")
    children = tuple(_field_facts(buf, k, depth + 1) for k in buf.vector(kids_at)) if kids_at is not None \
        else ()
    return FieldFacts("" if name_at is None else buf.string(name_at), kind, unit, tz, dictionary, ordered,
                      index_bits, signed, extension, children, bits,
                      custom.get("ARROW:extension:metadata") if extension is not None else None)


def schema_field_facts(encoded: bytes | str) -> list[FieldFacts] | None:
    """The top-level fields of an ``ARROW:schema`` value (see :class:`FieldFacts`), or
    None for a value that is not a readable schema message."""
    try:
        buf = _schema_message(encoded)
        message = buf.deref(0)
        kind = buf.table_field(message, 1)
        header = buf.table_field(message, 2)
        if kind is None or buf.u8(kind) != _HEADER_SCHEMA or header is None:
            return None
        schema = buf.deref(header)
        fields = buf.table_field(schema, 1)
        return [] if fields is None else [_field_facts(buf, f, 0) for f in buf.vector(fields)]
    except (_Malformed, UnicodeDecodeError):
        return None


#: binary_type's wide types: the type tag each of Binary / Utf8 becomes
_WIDE_TAGS = {"large_binary": {4: 19, 5: 20}, "binary_view": {4: 23, 5: 24}}


def widen_dictionary_fields(encoded: bytes | str, binary: str) -> bytes | None:
    """The ``ARROW:schema`` value *encoded* with its top-level string and binary dictionary
    fields recorded as plain large (``binary="large_binary"``) or view (``"binary_view"``)
    types, as pyarrow reads such a file with that ``binary_type`` (it keeps no dictionary
    for them then); None when there is none to change or the value is unreadable.

    The flatbuffer is patched in place: each such field's type tag is changed (Binary and
    Utf8 and their wide forms all have empty type tables) and the field gets a copy of its
    vtable, appended at the end, without the ``dictionary`` slot (vtables may be shared).
    """
    wide = _WIDE_TAGS.get(binary)
    if wide is None:
        return None
    try:
        marker = base64.b64decode(encoded, validate=False)[:4] == b"\xff\xff\xff\xff"
        buf = _schema_message(encoded)
        message = buf.deref(0)
        kind, header = buf.table_field(message, 1), buf.table_field(message, 2)
        if kind is None or buf.u8(kind) != _HEADER_SCHEMA or header is None:
            return None
        fields = buf.table_field(buf.deref(header), 1)
        if fields is None:
            return None
        patch = []
        for field in buf.vector(fields):
            tag, dictionary = buf.table_field(field, 2), buf.table_field(field, 4)
            if tag is not None and dictionary is not None and buf.u8(tag) in wide:
                patch.append((field, tag))
        if not patch:
            return None
        fb = bytearray(buf.data)
        for field, tag in patch:
            fb[tag] = wide[buf.u8(tag)]
            vtable = field - buf.i32(field)
            size = struct.unpack_from("<H", fb, vtable)[0]
            copy = bytearray(fb[vtable:vtable + size])
            if 4 + 2 * 4 + 2 <= size:
                struct.pack_into("<H", copy, 4 + 2 * 4, 0)    # slot 4: dictionary
            while len(fb) % 4:
                fb.append(0)
            at = len(fb)
            fb += copy
            struct.pack_into("<i", fb, field, field - at)      # vtable = table - soffset
        while len(fb) % 8:
            fb.append(0)
    except (_Malformed, binascii.Error, ValueError, struct.error):
        return None
    framed = (b"\xff\xff\xff\xff" if marker else b"") + struct.pack("<i", len(fb)) + bytes(fb)
    return base64.b64encode(framed)
