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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _ctypes import CFuncPtr

__all__ = ["ArrowSchema", "ArrowArray", "ArrowArrayStream", "RELEASE", "GET_SCHEMA", "GET_NEXT",
           "GET_LAST_ERROR", "CAPSULE_DESTRUCTOR", "FLAG_DICTIONARY_ORDERED", "FLAG_NULLABLE",
           "FLAG_MAP_KEYS_SORTED", "SCHEMA_NAME", "ARRAY_NAME", "STREAM_NAME", "capsule_new",
           "capsule_pointer", "raw_malloc", "raw_free", "call_release", "keep_forever"]

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

# Our own prototypes of the C API calls (PYFUNCTYPE: called with the GIL held, a Python
# error they set is raised), so that nothing here changes ctypes.pythonapi's shared
# function objects, whose argtypes other code may set its own way.
_api = ctypes.pythonapi
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, c_void_p, c_void_p, c_void_p)(("PyCapsule_New", _api))
_capsule_get = ctypes.PYFUNCTYPE(c_void_p, ctypes.py_object, c_char_p)(("PyCapsule_GetPointer", _api))
_capsule_valid = ctypes.PYFUNCTYPE(c_int, ctypes.py_object, c_char_p)(("PyCapsule_IsValid", _api))
_raw_malloc = ctypes.PYFUNCTYPE(c_void_p, c_size_t)(("PyMem_RawMalloc", _api))
_raw_free = ctypes.PYFUNCTYPE(None, c_void_p)(("PyMem_RawFree", _api))
# the destructor receives a capsule whose reference count is already 0: it must be
# passed on as a raw pointer, never as a Python object (that would revive it)
_get_pointer_raw = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_void_p)(("PyCapsule_GetPointer", _api))


_incref = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", _api))


def keep_forever(callback: Any) -> Any:
    """Give a C callback one reference nobody drops: a consumer may call a release
    callback (or CPython a capsule destructor) while the interpreter tears our modules
    down, and the code behind the pointer must still be there then."""
    _incref(callback)
    return callback


def raw_malloc(struct_type: type[ctypes.Structure]) -> int:
    """Zeroed C memory for one *struct_type* (freed by :func:`raw_free`)."""
    size = ctypes.sizeof(struct_type)
    address = _raw_malloc(size)
    if not address:
        raise MemoryError(f"cannot allocate {size} bytes for an {struct_type.__name__}")
    ctypes.memset(address, 0, size)
    return int(address)


def raw_free(address: int) -> None:
    _raw_free(address)


def call_release(address: int, struct_type: type[ctypes.Structure]) -> None:
    """Call the struct's release callback when it has one (not yet released)."""
    struct = struct_type.from_address(address)
    if struct.release:
        RELEASE(struct.release)(address)


def _destructor(struct_type: type[ctypes.Structure], name: ctypes.Array) -> CFuncPtr:
    def destroy(capsule: int) -> None:
        address = _get_pointer_raw(capsule, ctypes.addressof(name))
        if address:
            call_release(address, struct_type)   # unless the consumer moved or released it
            raw_free(address)

    return keep_forever(CAPSULE_DESTRUCTOR(destroy))


_DESTRUCTORS = {SCHEMA_NAME.value: _destructor(ArrowSchema, SCHEMA_NAME),
                ARRAY_NAME.value: _destructor(ArrowArray, ARRAY_NAME),
                STREAM_NAME.value: _destructor(ArrowArrayStream, STREAM_NAME)}


def capsule_new(address: int, name: ctypes.Array) -> object:
    """A capsule owning the malloc'ed struct at *address*: its destructor releases the
    struct if nobody did, then frees it."""
    destructor = _DESTRUCTORS[name.value]
    return _capsule_new(address, ctypes.addressof(name), ctypes.cast(destructor, c_void_p).value)


def capsule_pointer(capsule: object, name: ctypes.Array) -> int:
    """The struct address inside *capsule*, refusing a capsule of another name."""
    if type(capsule).__name__ != "PyCapsule" or not _capsule_valid(capsule, name.value):
        raise TypeError(f"expected a PyCapsule named {name.value.decode()!r}, got {capsule!r}")
    return int(_capsule_get(capsule, name.value))

