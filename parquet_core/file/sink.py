"""Where written bytes go: an append-only sink that knows its offset.

Writing to a *path* never exposes a partial file: bytes go to a hidden
temporary file in the target's directory (same file system, so the final
``os.replace`` is atomic) and the target appears, or is replaced, only when
:meth:`PathSink.commit` runs after the footer is written.  :meth:`abort`
(called on any exception) removes the temporary file and leaves an existing
target untouched.  A process killed mid-write leaves only the hidden
``.<name>.*.pqcore-tmp`` file behind, never a truncated target.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, BinaryIO

__all__ = ["Sink", "PathSink", "FileObjectSink", "open_sink"]


class Sink:
    """Append-only byte sink; :attr:`offset` is the next write position."""

    offset: int

    def write(self, data: bytes | memoryview) -> int:
        """Append *data*; return the offset it was written at."""
        raise NotImplementedError

    def commit(self) -> None:
        """Make the written bytes the final result."""

    def abort(self) -> None:
        """Discard what was written (best effort)."""


class PathSink(Sink):
    """Writes to a temporary sibling of *path*, renamed into place on commit."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"directory {directory!r} does not exist")
        if os.path.isdir(self.path):
            raise IsADirectoryError(f"{self.path!r} is a directory")
        fd, self.tmp_path = tempfile.mkstemp(
            prefix="." + os.path.basename(self.path) + ".", suffix=".pqcore-tmp", dir=directory)
        self._file: BinaryIO | None = os.fdopen(fd, "wb", buffering=1 << 20)
        self.offset = 0

    def write(self, data: bytes | memoryview) -> int:
        assert self._file is not None, "sink already closed"
        start = self.offset
        self._file.write(data)
        self.offset += len(data)
        return start

    def commit(self) -> None:
        if self._file is None:
            return
        f, self._file = self._file, None
        try:
            f.flush()
            os.fsync(f.fileno())
            f.close()
            mode = _default_mode()
            os.chmod(self.tmp_path, mode)
            os.replace(self.tmp_path, self.path)
        except BaseException:
            _unlink(self.tmp_path)
            raise

    def abort(self) -> None:
        if self._file is not None:
            f, self._file = self._file, None
            try:
                f.close()
            except OSError:
                pass
        _unlink(self.tmp_path)


class FileObjectSink(Sink):
    """Writes to an open binary file object (the caller owns it)."""

    def __init__(self, fobj: Any) -> None:
        self._file = fobj
        # offsets in the footer count from the first byte this sink writes
        self.offset = 0

    def write(self, data: bytes | memoryview) -> int:
        start = self.offset
        self._file.write(data)
        self.offset += len(data)
        return start

    def commit(self) -> None:
        flush = getattr(self._file, "flush", None)
        if flush is not None:
            flush()


def _default_mode() -> int:
    """Permissions a newly created file would get (mkstemp uses 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def open_sink(where: Any) -> Sink:
    """Return a sink for a path or a writable binary file object."""
    if isinstance(where, (str, os.PathLike)):
        return PathSink(where)
    if hasattr(where, "write"):
        return FileObjectSink(where)
    raise TypeError(f"cannot write Parquet to {type(where).__name__}; pass a path or a binary file object")
