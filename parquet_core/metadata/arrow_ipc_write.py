"""Writing ``ARROW:schema`` without pyarrow: an Arrow IPC Schema message from format strings.

The input is a tree of :class:`~parquet_core.arrow_c.export.SchemaNode`
(the Arrow C Data Interface's description of a field: a format string such
as ``"tDn"`` or ``"tsu:Europe/Oslo"``, a name, flags, metadata, children, a
dictionary); the output is what ``pa.Schema.serialize()`` gives, base64
encoded, as pyarrow stores it in the footer.  The flatbuffer layout read by
:mod:`parquet_core.metadata.arrow_ipc` is written here front to back: a
table is preceded by its vtable (so its signed offset to it is positive)
and followed by the strings, vectors and tables it points to (forward
unsigned offsets); every scalar sits at a multiple of its size from the
buffer's start, as flatbuffer verifiers check.

Formats without an IPC type here (unions, run-end encoded, list views,
month and day-time intervals) raise :class:`UnsupportedFeatureError`.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

from parquet_core.arrow_c.export import SchemaNode
from parquet_core.arrow_c.structs import FLAG_DICTIONARY_ORDERED, FLAG_MAP_KEYS_SORTED, FLAG_NULLABLE
from parquet_core.errors import UnsupportedFeatureError

__all__ = ["encode_schema_nodes"]

_V5 = 4           # MetadataVersion.V5
_HEADER_SCHEMA = 1
_UNITS = {"s": 0, "m": 1, "u": 2, "n": 3}
_INTS = {"c": (8, True), "C": (8, False), "s": (16, True), "S": (16, False), "i": (32, True),
         "I": (32, False), "l": (64, True), "L": (64, False)}
_FLOATS = {"e": 0, "f": 1, "g": 2}
_EMPTY = {"n": 1, "b": 6, "z": 4, "u": 5, "Z": 19, "U": 20, "vz": 23, "vu": 24, "+l": 12, "+L": 21,
          "+s": 13}


class _Table:
    """A flatbuffer table: ``slots[i]`` is None (absent), ``(fmt, value)`` for a scalar
    (struct format letter) or ``("ref", child)`` for a string, vector or table."""

    def __init__(self, slots: list[Any]) -> None:
        self.slots = slots


class _Vector:
    def __init__(self, items: list[Any]) -> None:
        self.items = items


class _Writer:
    def __init__(self) -> None:
        self.buf = bytearray(4)   # the root offset, patched at the end

    def _pad(self, align: int) -> None:
        self.buf.extend(b"\0" * (-len(self.buf) % align))

    def _patch(self, at: int, target: int) -> None:
        struct.pack_into("<I", self.buf, at, target - at)

    def obj(self, item: Any) -> int:
        if isinstance(item, _Table):
            return self._table(item)
        if isinstance(item, _Vector):
            return self._vector(item)
        return self._string(item)

    def _string(self, text: str | bytes) -> int:
        raw = text.encode("utf-8") if isinstance(text, str) else text
        self._pad(4)
        pos = len(self.buf)
        self.buf.extend(struct.pack("<I", len(raw)) + raw + b"\0")
        return pos

    def _vector(self, vec: _Vector) -> int:
        self._pad(4)
        pos = len(self.buf)
        self.buf.extend(struct.pack("<I", len(vec.items)) + b"\0" * (4 * len(vec.items)))
        for i, item in enumerate(vec.items):
            self._patch(pos + 4 + 4 * i, self.obj(item))
        return pos

    def _table(self, table: _Table) -> int:
        present = [(i, s) for i, s in enumerate(table.slots) if s is not None]
        # inline layout after the 4-byte vtable offset: 8-byte scalars first (from offset 8),
        # then 4-byte ones and references, then 2 and 1 byte ones: each aligned to its size
        def size(slot: Any) -> int:
            return 4 if slot[0] == "ref" else struct.calcsize("<" + slot[0])
        order = sorted(present, key=lambda p: -size(p[1]))
        offsets: dict[int, int] = {}
        at = 8 if any(size(s) == 8 for _, s in present) else 4
        for i, s in order:
            w = size(s)
            at += -at % w
            offsets[i] = at
            at += w
        table_size = at + (-at % 4)
        vtable = struct.pack(f"<HH{len(table.slots)}H", 4 + 2 * len(table.slots), table_size,
                             *[offsets.get(i, 0) for i in range(len(table.slots))])
        self._pad(2)
        vpos = len(self.buf)
        self.buf.extend(vtable)
        self._pad(8)
        pos = len(self.buf)
        body = bytearray(table_size)
        struct.pack_into("<i", body, 0, pos - vpos)
        for i, s in present:
            if s[0] != "ref":
                struct.pack_into("<" + s[0], body, offsets[i], s[1])
        self.buf.extend(body)
        for i, s in present:
            if s[0] == "ref":
                self._patch(pos + offsets[i], self.obj(s[1]))
        return pos

    def finish(self, root: _Table) -> bytes:
        self._patch(0, self._table(root))
        self._pad(8)
        return bytes(self.buf)


def _key_values(meta: dict[bytes, bytes] | None) -> _Vector | None:
    if not meta:
        return None
    return _Vector([_Table([("ref", k), ("ref", v)]) for k, v in meta.items()])


def _type(fmt: str, node: SchemaNode, column: str) -> tuple[int, _Table]:
    """The ``Type`` union tag and table of format *fmt*."""
    if fmt in _EMPTY:
        return _EMPTY[fmt], _Table([])
    if fmt in _INTS:
        bits, signed = _INTS[fmt]
        return 2, _Table([("i", bits), ("B", int(signed))])
    if fmt in _FLOATS:
        return 3, _Table([("h", _FLOATS[fmt])])
    if fmt.startswith("d:"):
        parts = [int(p) for p in fmt[2:].split(",")]
        return 7, _Table([("i", parts[0]), ("i", parts[1]), ("i", parts[2] if len(parts) > 2 else 128)])
    if fmt.startswith("w:"):
        return 15, _Table([("i", int(fmt[2:]))])
    if fmt.startswith("+w:"):
        return 16, _Table([("i", int(fmt[3:]))])
    if fmt in ("tdD", "tdm"):
        return 8, _Table([("h", 0 if fmt == "tdD" else 1)])
    if fmt in ("tts", "ttm", "ttu", "ttn"):
        return 9, _Table([("h", _UNITS[fmt[2]]), ("i", 32 if fmt[2] in "sm" else 64)])
    if fmt.startswith("ts") and len(fmt) >= 4 and fmt[2] in _UNITS and fmt[3] == ":":
        tz = fmt[4:]
        return 10, _Table([("h", _UNITS[fmt[2]]), ("ref", tz) if tz else None])
    if fmt.startswith("tD") and len(fmt) == 3 and fmt[2] in _UNITS:
        return 18, _Table([("h", _UNITS[fmt[2]])])
    if fmt == "tin":
        return 11, _Table([("h", 2)])   # IntervalUnit.MONTH_DAY_NANO
    if fmt == "+m":
        return 17, _Table([("B", int(bool(node.flags & FLAG_MAP_KEYS_SORTED)))])
    from parquet_core.schema.arrow_format import describe_format

    raise UnsupportedFeatureError(f"column {column!r}: cannot record Arrow type {describe_format(fmt)} "
                                  "in ARROW:schema")


def _field(node: SchemaNode, next_id: list[int], column: str) -> _Table:
    dictionary = None
    fmt = node.format
    if node.dictionary is not None:
        bits, signed = _INTS[node.format]
        dictionary = _Table([("q", next_id[0]), ("ref", _Table([("i", bits), ("B", int(signed))])),
                             ("B", int(bool(node.flags & FLAG_DICTIONARY_ORDERED)))])
        next_id[0] += 1
        value = node.dictionary
        fmt = value.format
        children = value.children
    else:
        children = node.children
    tag, type_table = _type(fmt, node, column)
    kids = _Vector([_field(c, next_id, f"{column}.{c.name}") for c in children])
    return _Table([("ref", node.name), ("B", int(bool(node.flags & FLAG_NULLABLE))), ("B", tag),
                   ("ref", type_table), ("ref", dictionary) if dictionary is not None else None,
                   ("ref", kids), ("ref", _key_values(node.metadata)) if node.metadata else None])


def encode_schema_nodes(fields: list[SchemaNode], metadata: dict[bytes, bytes] | None = None) -> bytes:
    """The ``ARROW:schema`` value (base64 of the IPC Schema message) of top-level *fields*
    with schema *metadata* (``pandas``...).

    Raises
    ------
    UnsupportedFeatureError
        For a format without an IPC type here, naming the column.
    """
    next_id = [0]
    schema = _Table([None, ("ref", _Vector([_field(f, next_id, f.name) for f in fields])),
                     ("ref", _key_values(metadata)) if metadata else None])
    message = _Table([("h", _V5), ("B", _HEADER_SCHEMA), ("ref", schema), ("q", 0)])
    flat = _Writer().finish(message)
    return base64.b64encode(b"\xff\xff\xff\xff" + struct.pack("<i", len(flat)) + flat)
