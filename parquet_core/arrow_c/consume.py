"""Read Arrow C structs handed over in PyCapsules (the consumer side).

:func:`import_schema` copies an ``arrow_schema`` into plain
:class:`~parquet_core.arrow_c.export.SchemaNode` s and releases it.
:func:`import_array` *moves* an ``arrow_array`` out of its capsule (the
capsule's struct is marked released, as the interface allows) into an
:class:`ImportedArray` tree; :meth:`ImportedArray.buffer` gives numpy views
of the producer's memory.  Every view keeps a :class:`_Owner` alive, whose
finalizer calls the producer's release callback once, when the last view
(and the tree) is gone -- so no data is copied here and none outlives its
producer.  :class:`StreamReader` pulls the batches of an
``arrow_array_stream`` one at a time the same way.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any, Iterator

import numpy as np

from parquet_core.arrow_c.export import SchemaNode
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
    capsule_pointer,
)
from parquet_core.errors import ParquetError, ParquetFormatError

__all__ = ["import_schema", "import_array", "ImportedArray", "StreamReader", "ArrowStreamError"]


class ArrowStreamError(ParquetError):
    """The producer of an Arrow C stream reported an error."""


def _decode_metadata(address: int | None) -> dict[bytes, bytes] | None:
    if not address:
        return None
    (count,) = struct.unpack("=i", ctypes.string_at(address, 4))
    pos, out = address + 4, {}
    for _ in range(count):
        (klen,) = struct.unpack("=i", ctypes.string_at(pos, 4))
        key = ctypes.string_at(pos + 4, klen)
        pos += 4 + klen
        (vlen,) = struct.unpack("=i", ctypes.string_at(pos, 4))
        out[key] = ctypes.string_at(pos + 4, vlen)
        pos += 4 + vlen
    return out


def read_schema(address: int) -> SchemaNode:
    """A copy of the ArrowSchema at *address* (not released here)."""
    s = ArrowSchema.from_address(address)
    if not s.release:
        raise ValueError("the ArrowSchema was already released")
    children = []
    if s.n_children:
        pointers = (ctypes.c_void_p * s.n_children).from_address(s.children)
        children = [read_schema(p) for p in pointers]
    return SchemaNode(
        format=ctypes.string_at(s.format).decode(),
        name=ctypes.string_at(s.name).decode("utf-8", "replace") if s.name else "",
        flags=int(s.flags), metadata=_decode_metadata(s.metadata), children=children,
        dictionary=read_schema(s.dictionary) if s.dictionary else None)


def _release(address: int, struct_type: type[ctypes.Structure]) -> None:
    target = struct_type.from_address(address)
    if target.release:
        RELEASE(target.release)(address)


def import_schema(capsule: object) -> SchemaNode:
    """Copy the schema in an ``arrow_schema`` capsule, then release it."""
    address = capsule_pointer(capsule, SCHEMA_NAME)
    try:
        return read_schema(address)
    finally:
        _release(address, ArrowSchema)


class _Owner:
    """Holds a moved ArrowArray and releases it when the last view of its memory dies."""

    __slots__ = ("struct", "__weakref__")

    def __init__(self, moved: ArrowArray) -> None:
        self.struct = moved

    def __del__(self) -> None:
        if self.struct.release:
            RELEASE(self.struct.release)(ctypes.addressof(self.struct))


class ImportedArray:
    """One Arrow array (or child) of an imported tree; its memory belongs to the producer."""

    __slots__ = ("length", "null_count", "offset", "n_buffers", "_buffers", "children", "dictionary",
                 "_owner")

    def __init__(self, address: int, owner: _Owner) -> None:
        a = ArrowArray.from_address(address)
        self.length, self.null_count, self.offset = int(a.length), int(a.null_count), int(a.offset)
        self.n_buffers = int(a.n_buffers)
        self._buffers = list((ctypes.c_void_p * self.n_buffers).from_address(a.buffers)) \
            if self.n_buffers else []
        self._owner = owner
        kids = (ctypes.c_void_p * a.n_children).from_address(a.children) if a.n_children else []
        self.children = [ImportedArray(p, owner) for p in kids]
        self.dictionary = ImportedArray(a.dictionary, owner) if a.dictionary else None

    def has_buffer(self, index: int) -> bool:
        return index < self.n_buffers and bool(self._buffers[index])

    def buffer(self, index: int, dtype: Any, count: int) -> np.ndarray:
        """numpy view of the first *count* items of buffer *index* (zeros when it is NULL
        and *count* is 0).  The view keeps the producer's memory alive."""
        dtype = np.dtype(dtype)
        address = self._buffers[index] if index < self.n_buffers else None
        if not address:
            if count:
                raise ParquetFormatError(f"malformed Arrow array: buffer {index} is NULL but "
                                         f"{count} values are needed")
            return np.zeros(0, dtype=dtype)
        raw = (ctypes.c_uint8 * (count * dtype.itemsize)).from_address(address)
        raw.owner = self._owner
        return np.frombuffer(raw, dtype=dtype, count=count)

    def buffer_address(self, index: int) -> int:
        return int(self._buffers[index] or 0)


def _move_array(address: int) -> ArrowArray:
    """Move the ArrowArray at *address* into memory we own; the source is marked released."""
    moved = ArrowArray()
    ctypes.memmove(ctypes.addressof(moved), address, ctypes.sizeof(ArrowArray))
    ArrowArray.from_address(address).release = None
    return moved


def _adopt(address: int) -> ImportedArray:
    if not ArrowArray.from_address(address).release:
        raise ValueError("the ArrowArray was already released")
    moved = _move_array(address)
    return ImportedArray(ctypes.addressof(moved), _Owner(moved))


def import_array(capsule: object) -> ImportedArray:
    """Take the array out of an ``arrow_array`` capsule (released when no longer used)."""
    return _adopt(capsule_pointer(capsule, ARRAY_NAME))


class StreamReader:
    """The batches of an ``arrow_array_stream`` capsule, pulled one at a time.

    The stream is moved out of its capsule; :meth:`close` (or the end of
    iteration, or garbage collection) releases it.  Batches stay valid after
    that, each released when its last view dies.
    """

    def __init__(self, capsule: object) -> None:
        address = capsule_pointer(capsule, STREAM_NAME)
        source = ArrowArrayStream.from_address(address)
        if not source.release:
            raise ValueError("the ArrowArrayStream was already released")
        self._stream = ArrowArrayStream()
        ctypes.memmove(ctypes.addressof(self._stream), address, ctypes.sizeof(ArrowArrayStream))
        source.release = None
        self.schema = self._read_schema()

    def _check(self, code: int, what: str) -> None:
        if code:
            message = GET_LAST_ERROR(self._stream.get_last_error)(ctypes.addressof(self._stream))
            detail = ctypes.string_at(message).decode("utf-8", "replace") if message else f"error code {code}"
            self.close()
            raise ArrowStreamError(f"the Arrow stream failed in {what}: {detail}")

    def _read_schema(self) -> SchemaNode:
        out = ArrowSchema()
        self._check(GET_SCHEMA(self._stream.get_schema)(ctypes.addressof(self._stream),
                                                         ctypes.addressof(out)), "get_schema")
        try:
            return read_schema(ctypes.addressof(out))
        finally:
            _release(ctypes.addressof(out), ArrowSchema)

    def __iter__(self) -> Iterator[ImportedArray]:
        try:
            while self._stream.release:
                out = ArrowArray()
                self._check(GET_NEXT(self._stream.get_next)(ctypes.addressof(self._stream),
                                                             ctypes.addressof(out)), "get_next")
                if not out.release:   # end of stream
                    break
                yield ImportedArray(ctypes.addressof(out), _Owner(out))
        finally:
            self.close()

    def close(self) -> None:
        """Release the stream (a no-op when done already)."""
        if self._stream.release:
            RELEASE(self._stream.release)(ctypes.addressof(self._stream))

    def __del__(self) -> None:
        self.close()
