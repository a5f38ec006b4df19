"""Random-access byte sources: ``read_at(offset, size)`` with no shared seek state.

A source is a filesystem path (read with ``os.pread`` where available), an
in-memory ``bytes``-like object, or any binary file-like object with
``seek``/``read`` (seeked under a lock, so one source is safe to share).
"""

from __future__ import annotations

import io
import mmap
import os
import threading
from typing import Any, Protocol

from parquet_core.errors import ParquetFormatError

__all__ = ["RandomAccessSource", "open_source", "buffer_bytes"]


class RandomAccessSource(Protocol):
    """Anything that can read ``size`` bytes at ``offset``."""

    size: int

    def read_at(self, offset: int, size: int) -> memoryview:
        """Return exactly *size* bytes starting at *offset*."""
        ...

    def close(self) -> None:
        """Release resources."""
        ...


def _check(offset: int, size: int, total: int) -> None:
    if offset < 0 or size < 0 or offset + size > total:
        raise ParquetFormatError(
            f"read of {size} bytes at offset {offset} is outside the file ({total} bytes)")


class BufferSource:
    """An in-memory buffer."""

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self._buf = memoryview(data).cast("B")
        self.size = len(self._buf)

    def read_at(self, offset: int, size: int) -> memoryview:
        _check(offset, size, self.size)
        return self._buf[offset:offset + size]

    def close(self) -> None:
        pass


class FileSource:
    """A file on disk, memory-mapped when possible, else read with positional reads.

    With a mapping, ``read_at`` returns views of the mapped file, so
    uncompressed pages are decoded without a copy.  Arrays that still view
    the mapping keep it alive after :meth:`close` (the mapping is then
    released when they are garbage-collected).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        self.size = os.fstat(self._fd).st_size
        self._map: mmap.mmap | None = None
        self._view: memoryview | None = None
        if self.size > 0:
            try:
                self._map = mmap.mmap(self._fd, 0, access=mmap.ACCESS_READ)
                self._view = memoryview(self._map)
            except (OSError, ValueError):  # pragma: no cover - e.g. special files
                self._map = None

    def sibling(self, relative: str) -> "FileSource":
        """A file beside this one (``relative`` uses ``/``), for ``ColumnChunk.file_path``."""
        return FileSource(os.path.join(os.path.dirname(self.path), *relative.split("/")))

    def read_at(self, offset: int, size: int) -> memoryview:
        _check(offset, size, self.size)
        if self._view is not None:
            return self._view[offset:offset + size]
        if hasattr(os, "pread"):
            data = os.pread(self._fd, size, offset)
        else:  # pragma: no cover - Windows
            os.lseek(self._fd, offset, os.SEEK_SET)
            data = os.read(self._fd, size)
        if len(data) != size:
            raise ParquetFormatError(f"short read at offset {offset}: {len(data)} of {size} bytes")
        return memoryview(data)

    def close(self) -> None:
        if self._view is not None:
            self._view.release()
            self._view = None
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:
                pass  # arrays still view the mapping; it is freed with them
            self._map = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        if not hasattr(self, "_view"):  # __init__ failed before it finished (e.g. no such file)
            fd = getattr(self, "_fd", -1)
            if fd >= 0:
                os.close(fd)
            return
        try:
            self.close()
        except OSError:
            pass


class FileObjectSource:
    """A binary file-like object with ``seek``/``read``; seeks are serialised."""

    def __init__(self, fobj: Any) -> None:
        self._f = fobj
        self._lock = threading.Lock()
        with self._lock:
            self.size = fobj.seek(0, io.SEEK_END)

    def read_at(self, offset: int, size: int) -> memoryview:
        _check(offset, size, self.size)
        with self._lock:
            self._f.seek(offset)
            data = self._f.read(size)
        if len(data) != size:
            raise ParquetFormatError(f"short read at offset {offset}: {len(data)} of {size} bytes")
        return memoryview(data)

    def close(self) -> None:
        pass  # the caller owns the file object


def open_source(source: Any) -> tuple[RandomAccessSource, bool]:
    """Wrap *source*; return it and whether we own it (and must close it).

    Raises
    ------
    TypeError
        If *source* is neither a path, a bytes-like object nor a file object.
    """
    if isinstance(source, (str, os.PathLike)):
        return FileSource(source), True
    if isinstance(source, (bytes, bytearray, memoryview)):
        return BufferSource(source), True
    if hasattr(source, "read_at") and hasattr(source, "size") and not callable(source.size):
        return source, False      # already a RandomAccessSource (its opener closes it)
    if hasattr(source, "seek") and hasattr(source, "read"):
        # a Python file object, or pyarrow's NativeFile / BufferReader / memory map (whose
        # ``size()`` is a method and ``read_at`` takes its arguments the other way round)
        return FileObjectSource(source), False
    data = buffer_bytes(source)
    if data is not None:          # pyarrow's Buffer, numpy arrays of bytes, mmap objects
        return BufferSource(data), True
    raise TypeError(f"cannot read Parquet from a {type(source).__name__}; "
                    "pass a path, bytes, a buffer or a binary file object")


def buffer_bytes(source: Any) -> memoryview | bytes | None:
    """The bytes of an object with the buffer protocol (a pyarrow Buffer included) or a
    ``to_pybytes()`` method, without importing pyarrow; None for anything else."""
    if isinstance(source, (str, os.PathLike)):
        return None
    try:
        return memoryview(source).cast("B")
    except TypeError:
        pass
    to_pybytes = getattr(source, "to_pybytes", None)
    if callable(to_pybytes):
        data = to_pybytes()
        if isinstance(data, bytes):
            return data
    return None
