"""Random-access byte sources: ``read_at(offset, size)`` with no shared seek state.

A source is a filesystem path (read with ``os.pread`` where available), an
in-memory ``bytes``-like object, or any binary file-like object with
``seek``/``read`` (seeked under a lock, so one source is safe to share).
"""

from __future__ import annotations

import io
import mmap
import os
import stat
import threading
from typing import Any, Protocol

from parquet_core.constants import FOOTER_READ_SIZE
from parquet_core.errors import ParquetFormatError, quoted

__all__ = ["RandomAccessSource", "open_source", "open_regular_file", "resolve_below", "buffer_bytes"]


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
    """A file on disk, memory-mapped when possible, else read with positional reads; a file
    of at most :data:`~parquet_core.constants.FOOTER_READ_SIZE` bytes is read whole at once.

    With a mapping, ``read_at`` returns views of the mapped file, so
    uncompressed pages are decoded without a copy.  Arrays that still view
    the mapping keep it alive after :meth:`close` (the mapping is then
    released when they are garbage-collected).
    """

    def __init__(self, path: str | os.PathLike[str], fd: int | None = None) -> None:
        self.path = os.fspath(path)
        self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0)) if fd is None else fd
        self.size = os.fstat(self._fd).st_size
        self._map: mmap.mmap | None = None
        self._view: memoryview | None = None
        if 0 < self.size <= FOOTER_READ_SIZE and hasattr(os, "pread"):
            # The footer read takes the whole of a file this small anyway: one read of it
            # costs less than mapping it (the mapping, its page faults and unmapping at
            # close: ~15 us of a small file's ~1 ms read, in a folder of thousands).
            try:
                data = os.pread(self._fd, self.size, 0)
            except OSError:   # pragma: no cover - the mapping (or the reads) below decide
                data = b""
            if len(data) == self.size:
                self._view = memoryview(data)
        if self.size > 0 and self._view is None:
            try:
                self._map = mmap.mmap(self._fd, 0, access=mmap.ACCESS_READ)
                self._view = memoryview(self._map)
            except (OSError, ValueError):  # pragma: no cover - e.g. special files
                self._map = None

    def sibling(self, relative: str) -> FileSource:
        """A file below this one's folder (``relative`` uses ``/``), for ``ColumnChunk.file_path``.

        Symbolic links are resolved first, and the target must still lie
        below the folder and be a regular file (:func:`open_regular_file`).
        """
        return sibling_file(self.path, relative)

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


def sibling_file(path: str, relative: str) -> FileSource:
    """The file *relative* (``/``-separated) below the folder of the file *path*, opened as
    :meth:`FileSource.sibling` opens it (links resolved, kept below the folder, a regular file)."""
    return FileSource(*open_regular_file(resolve_below(os.path.dirname(path), relative)))


def resolve_below(folder: str, relative: str) -> str:
    """The real path of *relative* (``/``-separated) under *folder*, symbolic links resolved.

    Raises
    ------
    ParquetFormatError
        When the resolved path is not below the resolved *folder* (a ``..``
        or a symbolic link leading out of it).
    """
    base = os.path.realpath(folder or os.curdir)
    target = os.path.realpath(os.path.join(base, *relative.split("/")))
    if target == base or os.path.commonpath([base, target]) != base:
        raise ParquetFormatError(f"{quoted(target)} is not below the folder {quoted(base)} (after resolving links)")
    return target


def open_regular_file(path: str) -> tuple[str, int]:
    """Open *path* for reading only if it is a regular file; return ``(path, fd)``.

    The path is stat'ed first (a FIFO, a device or a folder is refused
    without being opened), then opened non-blocking (a FIFO swapped in
    meanwhile cannot block the open) and the open descriptor is stat'ed
    again.

    Raises
    ------
    OSError
        When the file cannot be stat'ed or opened, or is not a regular file.
    """
    def refuse(mode: int) -> OSError:
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else \
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) \
            else "a special file"
        return OSError(f"{kind}, not a regular file: {quoted(path)}")

    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise refuse(mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise refuse(mode)
    except BaseException:
        os.close(fd)
        raise
    return path, fd


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
