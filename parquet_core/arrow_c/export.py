"""Fill Arrow C structs from plain descriptions, and hand them out as PyCapsules.

A :class:`SchemaNode` describes one Arrow field (format string, name, flags,
metadata, children, dictionary); an :class:`ArrayNode` one array (length,
null count, buffers as numpy arrays or ``None``, children, dictionary).  The
exporter points the C structs at the numpy buffers themselves (no copy).

Ownership: every filled struct -- the top-level one and each child -- gets
its own entry in ``_LIVE`` (its ``private_data`` is the key), holding the
numpy buffers, the C strings and the memory of its children's structs.  The
struct's release callback releases the children not yet released (a consumer
may have moved one out and release it later: it then has its own entry),
drops the entry, and marks the struct released.  A second release of the
same struct finds ``release`` NULL and is never called; the callback also
ignores a key it no longer knows.  Top-level structs live in C memory owned
by their capsule (see :func:`parquet_core.arrow_c.structs.capsule_new`).
"""

from __future__ import annotations

import ctypes
import errno
import itertools
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from parquet_core.arrow_c.structs import (
    ARRAY_NAME,
    GET_LAST_ERROR,
    GET_NEXT,
    GET_SCHEMA,
    RELEASE,
    SCHEMA_NAME,
    STREAM_NAME,
    ArrowArray,
    ArrowArrayStream,
    ArrowSchema,
    capsule_new,
    keep_forever,
    raw_free,
    raw_malloc,
)

__all__ = ["SchemaNode", "ArrayNode", "export_schema", "export_array", "export_stream", "live_exports"]


@dataclass
class SchemaNode:
    """One Arrow field: ``format`` as the C Data Interface spells it (``"l"``, ``"tsu:UTC"``...)."""

    format: str
    name: str = ""
    flags: int = 0
    metadata: dict[bytes, bytes] | None = None
    children: list[SchemaNode] = field(default_factory=list)
    dictionary: SchemaNode | None = None


@dataclass
class ArrayNode:
    """One Arrow array: ``buffers`` in the order the format's layout lists them."""

    length: int
    null_count: int
    buffers: list[Any]
    children: list[ArrayNode] = field(default_factory=list)
    dictionary: ArrayNode | None = None
    offset: int = 0


_LIVE: dict[int, Any] = {}   # private_data key -> what keeps that struct's memory alive
_KEYS = itertools.count(1)


def live_exports() -> int:
    """How many exported structs are not released yet (for leak tests)."""
    return len(_LIVE)


def encode_metadata(metadata: dict[bytes, bytes] | None) -> bytes | None:
    """The C Data Interface's metadata bytes: int32 count, then int32-length keys and values."""
    if not metadata:
        return None
    out = [struct.pack("=i", len(metadata))]
    for k, v in metadata.items():
        out += [struct.pack("=i", len(k)), k, struct.pack("=i", len(v)), v]
    return b"".join(out)


def _release_children(children: Any, count: int, dictionary: Any) -> None:
    for i in range(count):
        child = children[i]
        if child.release:
            RELEASE(child.release)(ctypes.addressof(child))
    if dictionary is not None and dictionary.release:
        RELEASE(dictionary.release)(ctypes.addressof(dictionary))


def _make_release(struct_type: type[ctypes.Structure]) -> Any:
    def release(address: int) -> None:
        target = struct_type.from_address(address)
        entry = _LIVE.pop(target.private_data or 0, None)
        if entry is not None:
            _release_children(entry["children"], entry["n_children"], entry["dictionary"])
        target.release = None
        target.private_data = None

    return keep_forever(RELEASE(release))


_RELEASE_SCHEMA = _make_release(ArrowSchema)
_RELEASE_ARRAY = _make_release(ArrowArray)
_RELEASE_SCHEMA_ADDRESS = ctypes.cast(_RELEASE_SCHEMA, ctypes.c_void_p).value
_RELEASE_ARRAY_ADDRESS = ctypes.cast(_RELEASE_ARRAY, ctypes.c_void_p).value


def _children(nodes: list[Any], struct_type: type[ctypes.Structure], fill: Callable[[Any, Any], None],
              entry: dict[str, Any]) -> int | None:
    """Fill child structs (memory kept in *entry*); return the pointer array's address.
    If one fails, those filled already are released before the error goes on."""
    structs = (struct_type * len(nodes))()
    pointers = (ctypes.c_void_p * len(nodes))()
    try:
        for i, node in enumerate(nodes):
            fill(structs[i], node)
            pointers[i] = ctypes.addressof(structs[i])
    except BaseException:
        _release_children(structs, len(nodes), None)
        raise
    entry["children"], entry["pointers"], entry["n_children"] = structs, pointers, len(nodes)
    return ctypes.addressof(pointers) if nodes else None


def fill_schema(target: ArrowSchema, node: SchemaNode) -> None:
    """Fill *target* (anywhere in memory) from *node*, with its own release callback."""
    entry: dict[str, Any] = {"dictionary": None}
    fmt = ctypes.create_string_buffer(node.format.encode())
    name = ctypes.create_string_buffer(node.name.encode())
    meta_bytes = encode_metadata(node.metadata)
    meta = None if meta_bytes is None else ctypes.create_string_buffer(meta_bytes, len(meta_bytes))
    entry["strings"] = (fmt, name, meta)
    children = _children(node.children, ArrowSchema, fill_schema, entry)
    if node.dictionary is not None:
        entry["dictionary"] = ArrowSchema()
        try:
            fill_schema(entry["dictionary"], node.dictionary)
        except BaseException:
            _release_children(entry["children"], entry["n_children"], None)
            raise
    key = next(_KEYS)
    _LIVE[key] = entry
    target.format = ctypes.addressof(fmt)
    target.name = ctypes.addressof(name)
    target.metadata = None if meta is None else ctypes.addressof(meta)
    target.flags = node.flags
    target.n_children = len(node.children)
    target.children = children
    target.dictionary = None if entry["dictionary"] is None else ctypes.addressof(entry["dictionary"])
    target.private_data = key
    target.release = _RELEASE_SCHEMA_ADDRESS


def _buffer_address(buf: Any) -> int | None:
    if buf is None:
        return None
    if not isinstance(buf, np.ndarray) or not buf.flags.c_contiguous:
        raise TypeError("an exported buffer must be a C-contiguous numpy array")
    # numpy gives a valid (non-NULL) address for an empty buffer too; consumers that
    # read offsets of an empty string or list array rely on that
    return int(buf.ctypes.data)


def fill_array(target: ArrowArray, node: ArrayNode) -> None:
    """Fill *target* from *node*: its buffers are the numpy arrays themselves."""
    entry: dict[str, Any] = {"dictionary": None, "buffers": list(node.buffers)}
    addresses = (ctypes.c_void_p * max(len(node.buffers), 1))(*[_buffer_address(b) for b in node.buffers])
    entry["addresses"] = addresses
    children = _children(node.children, ArrowArray, fill_array, entry)
    if node.dictionary is not None:
        entry["dictionary"] = ArrowArray()
        try:
            fill_array(entry["dictionary"], node.dictionary)
        except BaseException:
            _release_children(entry["children"], entry["n_children"], None)
            raise
    key = next(_KEYS)
    _LIVE[key] = entry
    target.length = node.length
    target.null_count = node.null_count
    target.offset = node.offset
    target.n_buffers = len(node.buffers)
    target.n_children = len(node.children)
    target.buffers = ctypes.addressof(addresses)
    target.children = children
    target.dictionary = None if entry["dictionary"] is None else ctypes.addressof(entry["dictionary"])
    target.private_data = key
    target.release = _RELEASE_ARRAY_ADDRESS


def _export(struct_type: type[ctypes.Structure], fill: Callable[[Any, Any], None], node: Any, name: Any) -> object:
    address = raw_malloc(struct_type)
    try:
        fill(struct_type.from_address(address), node)
    except BaseException:
        raw_free(address)
        raise
    return capsule_new(address, name)


def export_schema(node: SchemaNode) -> object:
    """An ``arrow_schema`` PyCapsule of *node*."""
    return _export(ArrowSchema, fill_schema, node, SCHEMA_NAME)


def export_array(node: ArrayNode) -> object:
    """An ``arrow_array`` PyCapsule of *node*."""
    return _export(ArrowArray, fill_array, node, ARRAY_NAME)


# ---------------------------------------------------------------- streams

class _Stream:
    """What a stream's private_data stands for: its schema and its batches."""

    def __init__(self, schema: SchemaNode, batches: Iterator[ArrayNode]) -> None:
        self.schema = schema
        self.batches = batches
        self.error = ctypes.create_string_buffer(1)


def _stream_of(address: int) -> _Stream | None:
    entry = _LIVE.get(ArrowArrayStream.from_address(address).private_data or 0)
    return entry["stream"] if entry is not None else None


def _failed(stream: _Stream, exc: BaseException) -> int:
    stream.error = ctypes.create_string_buffer(f"{type(exc).__name__}: {exc}".encode())
    return errno.EIO


def _get_schema(address: int, out: int) -> int:
    stream = _stream_of(address)
    if stream is None:
        return errno.EINVAL
    try:
        fill_schema(ArrowSchema.from_address(out), stream.schema)
    except Exception as exc:   # a callback must not raise into C
        return _failed(stream, exc)
    return 0


def _get_next(address: int, out: int) -> int:
    stream = _stream_of(address)
    if stream is None:
        return errno.EINVAL
    target = ArrowArray.from_address(out)
    try:
        node = next(stream.batches, None)
        if node is None:   # end of stream: a released (all-zero) struct
            ctypes.memset(out, 0, ctypes.sizeof(ArrowArray))
        else:
            fill_array(target, node)
    except Exception as exc:
        return _failed(stream, exc)
    return 0


def _get_last_error(address: int) -> int | None:
    stream = _stream_of(address)
    if stream is None or not stream.error.value:
        return None
    return ctypes.addressof(stream.error)


def _release_stream(address: int) -> None:
    target = ArrowArrayStream.from_address(address)
    entry = _LIVE.pop(target.private_data or 0, None)
    if entry is not None:
        close = getattr(entry["stream"].batches, "close", None)
        if close is not None:
            close()
    target.release = None
    target.private_data = None


_STREAM_CALLBACKS = tuple(keep_forever(cb) for cb in (
    GET_SCHEMA(_get_schema), GET_NEXT(_get_next), GET_LAST_ERROR(_get_last_error), RELEASE(_release_stream)))
_STREAM_ADDRESSES = [ctypes.cast(cb, ctypes.c_void_p).value for cb in _STREAM_CALLBACKS]


def export_stream(schema: SchemaNode, batches: Iterator[ArrayNode]) -> object:
    """An ``arrow_array_stream`` PyCapsule: *schema*, then each batch (a struct array
    per the schema) pulled from *batches* when the consumer asks for it."""
    address = raw_malloc(ArrowArrayStream)
    key = next(_KEYS)
    _LIVE[key] = {"stream": _Stream(schema, iter(batches))}
    target = ArrowArrayStream.from_address(address)
    target.get_schema, target.get_next, target.get_last_error, target.release = _STREAM_ADDRESSES
    target.private_data = key
    return capsule_new(address, STREAM_NAME)
