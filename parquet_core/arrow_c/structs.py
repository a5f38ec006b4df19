"""The C structs of the Arrow C Data / C Stream interfaces, the callback types,
and the PyCapsule calls of the Arrow PyCapsule interface.

Layouts follow the interface specification (``arrow/c/abi.h``).  Pointer
fields are kept as ``c_void_p`` so that nothing here ties a C pointer to the
lifetime of a ctypes object by accident: the exporter keeps its buffers alive
itself, and strings and metadata are read with :func:`ctypes.string_at`.
"""

from __future__ import annotations

import ctypes
from ctypes import c_char_p, c_int, c_int64, c_size_t, c_void_p

__all__ = ["ArrowSchema", "ArrowArray", "ArrowArrayStream", "RELEASE", "GET_SCHEMA", "GET_NEXT",
           "GET_LAST_ERROR", "CAPSULE_DESTRUCTOR", "FLAG_DICTIONARY_ORDERED", "FLAG_NULLABLE",
           "FLAG_MAP_KEYS_SORTED", "SCHEMA_NAME", "ARRAY_NAME", "STREAM_NAME", "capsule_new",
           "capsule_pointer", "raw_malloc", "raw_free", "call_release"]

FLAG_DICTIONARY_ORDERED = 1
FLAG_NULLABLE = 2
FLAG_MAP_KEYS_SORTED = 4


class ArrowSchema(ctypes.Structure):
    _fields_ = [("format", c_void_p), ("name", c_void_p), ("metadata", c_void_p), ("flags", c_int64),
                ("n_children", c_int64), ("children", c_void_p), ("dictionary", c_void_p),
                ("release", c_void_p), ("private_data", c_void_p)]


class ArrowArray(ctypes.Structure):
    _fields_ = [("length", c_int64), ("null_count", c_int64), ("offset", c_int64), ("n_buffers", c_int64),
                ("n_children", c_int64), ("buffers", c_void_p), ("children", c_void_p),
                ("dictionary", c_void_p), ("release", c_void_p), ("private_data", c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    _fields_ = [("get_schema", c_void_p), ("get_next", c_void_p), ("get_last_error", c_void_p),
                ("release", c_void_p), ("private_data", c_void_p)]


#: ``void release(struct*)``: the same C signature for the three structs
RELEASE = ctypes.CFUNCTYPE(None, c_void_p)
GET_SCHEMA = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p)
GET_NEXT = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p)
GET_LAST_ERROR = ctypes.CFUNCTYPE(c_void_p, c_void_p)
#: ``void destructor(PyObject *capsule)``, called by CPython with the GIL held
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)

# Capsule names (module-level buffers: a capsule keeps a pointer to its name)
SCHEMA_NAME = ctypes.create_string_buffer(b"arrow_schema")
ARRAY_NAME = ctypes.create_string_buffer(b"arrow_array")
STREAM_NAME = ctypes.create_string_buffer(b"arrow_array_stream")

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [c_void_p, c_void_p, c_void_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, c_char_p]
_api.PyCapsule_IsValid.restype = c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, c_char_p]
_api.PyMem_RawMalloc.restype = c_void_p
_api.PyMem_RawMalloc.argtypes = [c_size_t]
_api.PyMem_RawFree.restype = None
_api.PyMem_RawFree.argtypes = [c_void_p]
# the destructor receives a capsule whose reference count is already 0: it must be
# passed on as a raw pointer, never as a Python object (that would revive it)
_get_pointer_raw = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_void_p)(("PyCapsule_GetPointer", _api))


def raw_malloc(struct_type: type) -> int:
    """Zeroed C memory for one *struct_type* (freed by :func:`raw_free`)."""
    size = ctypes.sizeof(struct_type)
    address = _api.PyMem_RawMalloc(size)
    if not address:
        raise MemoryError(f"cannot allocate {size} bytes for an {struct_type.__name__}")
    ctypes.memset(address, 0, size)
    return int(address)


def raw_free(address: int) -> None:
    _api.PyMem_RawFree(address)


def call_release(address: int, struct_type: type) -> None:
    """Call the struct's release callback when it has one (not yet released)."""
    struct = struct_type.from_address(address)
    if struct.release:
        RELEASE(struct.release)(address)


def _destructor(struct_type: type, name: ctypes.Array) -> "ctypes._CFuncPtr":  # type: ignore[name-defined]
    def destroy(capsule: int) -> None:
        address = _get_pointer_raw(capsule, ctypes.addressof(name))
        if address:
            call_release(address, struct_type)   # unless the consumer moved or released it
            raw_free(address)

    return CAPSULE_DESTRUCTOR(destroy)


_DESTRUCTORS = {SCHEMA_NAME.value: _destructor(ArrowSchema, SCHEMA_NAME),
                ARRAY_NAME.value: _destructor(ArrowArray, ARRAY_NAME),
                STREAM_NAME.value: _destructor(ArrowArrayStream, STREAM_NAME)}


def capsule_new(address: int, name: ctypes.Array) -> object:
    """A capsule owning the malloc'ed struct at *address*: its destructor releases the
    struct if nobody did, then frees it."""
    destructor = _DESTRUCTORS[name.value]
    return _api.PyCapsule_New(address, ctypes.addressof(name), ctypes.cast(destructor, c_void_p).value)


def capsule_pointer(capsule: object, name: ctypes.Array) -> int:
    """The struct address inside *capsule*, refusing a capsule of another name."""
    if type(capsule).__name__ != "PyCapsule" or not _api.PyCapsule_IsValid(capsule, name.value):
        raise TypeError(f"expected a PyCapsule named {name.value.decode()!r}, got {capsule!r}")
    return int(_api.PyCapsule_GetPointer(capsule, name.value))

