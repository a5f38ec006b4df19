"""Where written bytes go: an append-only sink that knows its offset.

Writing to a *path* never exposes a partial file: bytes go to a hidden
temporary file in the target's directory (same file system, so the final
``os.replace`` is atomic) and the target appears, or is replaced, only when
:meth:`PathSink.commit` runs after the footer is written.  :meth:`abort`
(called on any exception) removes the temporary file and leaves an existing
target untouched.

Temporary files and who removes them
------------------------------------
A temporary file is named ``.<target name>.<host>.<pid>.<random>.pqcore-tmp``:
the host and process id of the writer that owns it.  It is removed

* by :meth:`PathSink.commit` (renamed into place) or :meth:`PathSink.abort`;
* when the writer is garbage-collected without being closed, or when the
  interpreter exits normally with it still open (a ``weakref.finalize``,
  which also runs at exit);
* after a process was killed (``SIGKILL``, power loss: nothing of the dead
  process can run), by the next write to the same target from any process
  on the same host: it deletes the target's temporary files whose host is
  this one and whose process no longer exists.  A file named after a live
  process, or after another host (a shared file system), is never touched,
  so a writer cannot lose the file another writer is still filling.
"""

from __future__ import annotations

import os
import re
import socket
import tempfile
import weakref
from typing import Any, BinaryIO

__all__ = ["Sink", "PathSink", "FileObjectSink", "open_sink", "remove_stale_temp_files", "is_stale_temp_name",
           "owner_is_dead", "host_tag", "TEMP_SUFFIX"]


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
        base = os.path.basename(self.path)
        remove_stale_temp_files(directory, base)
        fd, self.tmp_path = tempfile.mkstemp(
            prefix=f".{base}.{_host_tag()}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=directory)
        self._file: BinaryIO | None = os.fdopen(fd, "wb", buffering=1 << 20)
        # Runs if this sink is garbage-collected, or the interpreter exits, before
        # commit or abort; holds the file object and path, never the sink itself.
        self._cleanup = weakref.finalize(self, _discard, self._file, self.tmp_path)
        self.offset = 0

    def write(self, data: bytes | memoryview) -> int:
        if self._file is None:
            raise ValueError("the sink is already closed")
        start = self.offset
        self._file.write(data)
        self.offset += len(data)
        return start

    def commit(self) -> None:
        if self._file is None:
            return
        f, self._file = self._file, None
        self._cleanup.detach()
        try:
            f.flush()
            os.fsync(f.fileno())
            f.close()
            mode = _default_mode()
            os.chmod(self.tmp_path, mode)
            os.replace(self.tmp_path, self.path)
        except BaseException:
            _discard(f, self.tmp_path)
            raise

    def abort(self) -> None:
        if self._file is not None:
            f, self._file = self._file, None
            self._cleanup.detach()
            _discard(f, self.tmp_path)
        else:
            _unlink(self.tmp_path)


TEMP_SUFFIX = ".pqcore-tmp"
# ".<target>.<host>.<pid>.<random>.pqcore-tmp"; the host tag has no dots.
_TEMP_NAME = re.compile(r"\.(?P<host>[^.]+)\.(?P<pid>[0-9]+)\.[^.]+" + re.escape(TEMP_SUFFIX) + "$")


def _host_tag() -> str:
    """This host's name, reduced to characters that cannot be confused with the separators."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"


def host_tag() -> str:
    """This host's name as it appears in temporary file names (no dots)."""
    return _host_tag()


def owner_is_dead(host: str, pid: int) -> bool:
    """True only when *host* is this host and no process *pid* exists (a writer that cannot
    clean up after itself any more); another host's writer is never known to be dead."""
    return host == _host_tag() and not _process_exists(pid)


def is_stale_temp_name(name: str) -> bool:
    """A temporary file name (any target) made on this host by a process that no longer exists."""
    if not name.endswith(TEMP_SUFFIX):
        return False
    m = _TEMP_NAME.search(name)
    return m is not None and owner_is_dead(m["host"], int(m["pid"]))


def _process_exists(pid: int) -> bool:
    if pid <= 0:
        return True  # not a real process id: treat it as alive, never delete on it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else (or cannot tell: keep the file)
    return True


def remove_stale_temp_files(directory: str, target_name: str) -> list[str]:
    """Delete the temporary files left next to *target_name* by dead writers on this host.

    A file counts as stale only when its name says it was made on this host by a
    process that no longer exists (see the module docstring); anything else is
    left alone.  Returns the paths removed.  Errors (a file removed meanwhile, no
    permission) are ignored: cleaning up is best effort and never fails a write.
    """
    prefix = f".{target_name}"
    host = _host_tag()
    removed: list[str] = []
    try:
        entries = os.scandir(directory)
    except OSError:
        return removed
    with entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)):
                continue
            m = _TEMP_NAME.fullmatch(name[len(prefix):])
            if m is None or m["host"] != host or _process_exists(int(m["pid"])):
                continue
            try:
                os.unlink(entry.path)
                removed.append(entry.path)
            except OSError:
                pass
    return removed


def _discard(f: BinaryIO, path: str) -> None:
    try:
        f.close()
    except OSError:
        pass
    _unlink(path)


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
    except OSError:
        pass


def open_sink(where: Any, filesystem: Any = None, storage_options: Any = None) -> Sink:
    """Return a sink for a path, a URL / path in *filesystem*, or a writable binary file object."""
    if filesystem is not None or storage_options or (isinstance(where, str) and "://" in where
                                                     and not where.startswith("file://")):
        from parquet_core.file.filesystem import resolve_filesystem  # fsspec stores: imported on demand

        if not isinstance(where, (str, os.PathLike)):
            raise TypeError("filesystem= and storage_options= need a path, not a "
                            f"{type(where).__name__}")
        fs, (path,) = resolve_filesystem([where], filesystem, storage_options)
        return fs.open_sink(path)
    if isinstance(where, str) and where.startswith("file://"):
        where = where[len("file://"):]
    if isinstance(where, (str, os.PathLike)):
        return PathSink(where)
    if hasattr(where, "write"):
        return FileObjectSink(where)
    raise TypeError(f"cannot write Parquet to {type(where).__name__}; pass a path or a binary file object")
