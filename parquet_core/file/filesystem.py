"""Where files live: the local disk, or any fsspec file system (S3, GCS, Azure, memory...).

Every entry point takes a path in one of three forms:

* a local path (``"data/t.parquet"``, ``pathlib.Path``, ``"file:///abs/t"``);
* a URL fsspec knows (``"s3://bucket/t"``, ``"gs://..."``, ``"abfs://..."``,
  ``"memory://..."``), with ``storage_options=`` passed to the file system;
* a path inside ``filesystem=``, an fsspec ``AbstractFileSystem`` instance
  (or a ``pyarrow.fs.FileSystem``, wrapped by fsspec's ``ArrowFSWrapper``).

:func:`resolve_filesystem` turns that into a :class:`FileSystem` (ours,
small) and plain paths.  fsspec is optional (``pip install
"parquet-core[fsspec]"``, ``[s3]`` adds s3fs); it is imported only when a URL
or a ``filesystem=`` is given, and a URL without it raises
:class:`FilesystemUnavailableError` naming the extra to install.

Writing to a store (:class:`StoreSink`) buffers the file in memory and puts
it with one ``pipe_file`` call after the footer: on object stores (S3, GCS,
Azure Blob) a single PUT is atomic, so readers see the whole object or
nothing and a failed write leaves no object.  On file systems where fsspec's
``pipe_file`` is not atomic (e.g. SFTP) a crash during that one call can
leave a partial file; local paths never go through fsspec (``file/sink.py``
writes a temporary file and renames it).

When a store's client gives up on a request after its own retries, what it
raises (botocore, aiohttp, urllib3... exceptions that are not ``OSError``)
reaches the caller as :class:`StoreRequestError`, an ``OSError`` naming the
file, with the client's exception as its ``__cause__`` (:func:`store_errors`).
"""

from __future__ import annotations

import io
import os
import posixpath
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

from parquet_core.constants import FOOTER_READ_SIZE as _FOOTER_READ_SIZE
from parquet_core.errors import ParquetError, ParquetFormatError, UnsupportedFeatureError, quoted
from parquet_core.file.sink import PathSink, Sink
from parquet_core.file.source import FileSource, RandomAccessSource

__all__ = [
    "FileSystem", "LocalFileSystem", "FsspecFileSystem", "FilesystemUnavailableError", "IOStats",
    "StoreSource", "StoreSink", "StoreRequestError", "store_errors", "resolve_filesystem", "is_url",
    "coalesce_ranges",
]

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")

#: Bytes read from the end of a stored file at once: the footer of most files fits, so
#: opening a file costs one request (a second one only for a larger footer).
FOOTER_READ_SIZE = _FOOTER_READ_SIZE
#: Ranges closer than this are fetched as one request (the gap is read and dropped).
HOLE_SIZE_LIMIT = 8 * 1024
#: A coalesced request never grows past this.
RANGE_SIZE_LIMIT = 32 * 1024 * 1024
#: Requests in flight at once for one read.
MAX_CONCURRENCY = 8


class FilesystemUnavailableError(UnsupportedFeatureError, ImportError):
    """A URL or ``filesystem=`` needs a package that is not installed; names the extra."""


class StoreRequestError(OSError):
    """A request to a store failed for good (its client's retries ran out); names the file."""

    def __init__(self, message: str) -> None:   # one argument: OSError would read two as errno
        super().__init__(message)


#: Top-level packages whose exceptions are a store client's transport failures.
_CLIENT_PACKAGES = frozenset({"botocore", "aiobotocore", "aiohttp", "urllib3", "requests", "s3fs",
                              "gcsfs", "adlfs", "google", "azure", "fsspec", "http"})


def _is_client_error(exc: BaseException) -> bool:
    if isinstance(exc, (OSError, ParquetError)):
        return False
    module = (type(exc).__module__ or "").split(".")[0]
    return module in _CLIENT_PACKAGES


def _shown(fs: Any, path: str) -> str:
    try:
        return str(fs.unstrip_protocol(path))
    except Exception:   # noqa: BLE001 - only for a message
        return path


@contextmanager
def store_errors(fs: Any, path: str, action: str) -> Iterator[None]:
    """Turn a store client's own exception raised inside into a :class:`StoreRequestError`
    naming *path*; an ``OSError`` with an errno and no file gets *path* as its ``filename``;
    anything else passes unchanged."""
    try:
        yield
    except OSError as exc:
        # s3fs turns a final 503 / 500 into OSError(errno, text), naming no file: name it
        if exc.errno is not None and exc.filename is None and path not in str(exc):
            exc.filename = _shown(fs, path)
        raise
    except Exception as exc:
        if not _is_client_error(exc):
            raise
        shown = _shown(fs, path)
        raise StoreRequestError(f"{action} {shown!r} failed: the store client gave up: "
                                f"{type(exc).__name__}: {exc}") from exc


@dataclass
class IOStats:
    """Requests and bytes fetched from a file system (shared by the sources of one read)."""

    requests: int = 0
    bytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, nbytes: int, requests: int = 1) -> None:
        with self._lock:
            self.requests += requests
            self.bytes += nbytes

    def reset(self) -> None:
        with self._lock:
            self.requests = 0
            self.bytes = 0


def is_url(path: Any) -> bool:
    """True for ``scheme://...`` strings other than ``file://``."""
    if not isinstance(path, str):
        return False
    m = _URL.match(path)
    return m is not None and m.group(1).lower() != "file"


def _local_path(path: Any) -> str:
    text = os.fspath(path)
    if text.startswith("file://"):
        return text[len("file://"):] or "/"
    return text


def coalesce_ranges(ranges: Iterable[tuple[int, int]], hole: int = HOLE_SIZE_LIMIT,
                    limit: int = RANGE_SIZE_LIMIT) -> list[tuple[int, int]]:
    """Merge ``(offset, size)`` ranges whose gap is at most *hole* bytes, up to *limit* bytes each.

    Returns sorted ``(offset, size)`` requests covering every input range.
    """
    out: list[list[int]] = []
    for start, size in sorted((int(s), int(n)) for s, n in ranges if n > 0):
        end = start + size
        if out and start - out[-1][1] <= hole and max(end, out[-1][1]) - out[-1][0] <= limit:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e - s) for s, e in out]


class FileSystem:
    """What datasets need of a file system; paths use ``/`` (or ``os.sep`` locally)."""

    protocol = "file"
    sep = os.sep
    #: The paths are local files (``os.stat`` finds them): our local file system, or an
    #: fsspec one that is the local disk underneath (fsspec's ``LocalFileSystem``, a pyarrow
    #: ``LocalFileSystem`` through ``ArrowFSWrapper``).
    local_disk = False

    def join(self, *parts: str) -> str:
        raise NotImplementedError

    def kind(self, path: str) -> str | None:
        """``"file"``, ``"directory"`` or None when nothing is there."""
        raise NotImplementedError

    def find(self, root: str) -> list[tuple[str, int]]:
        """Every file below *root* (recursive), as ``(path, size)``, sorted by path."""
        raise NotImplementedError

    def find_times(self, root: str) -> list[tuple[str, int, int | None]]:
        """:meth:`find` with each file's modification time in ns where the listing gives
        it for free (None where it does not)."""
        return [(p, size, None) for p, size in self.find(root)]

    def glob(self, pattern: str) -> list[str]:
        raise NotImplementedError

    def open_source(self, path: str, size: int | None = None, stats: IOStats | None = None) -> RandomAccessSource:
        raise NotImplementedError

    def open_sink(self, path: str) -> Sink:
        raise NotImplementedError

    def makedirs(self, path: str) -> None:
        raise NotImplementedError

    def rm(self, path: str) -> None:
        raise NotImplementedError

    def display(self, path: str) -> str:
        """The path as the user would write it (with the URL scheme for a store)."""
        return path


#: Where fsspec stores put a file's modification time in a listing (S3, Azure, GCS, the
#: generic key, memory://)
_TIME_KEYS = ("LastModified", "last_modified", "updated", "mtime", "created")


def listed_time(info: dict[str, Any]) -> int | None:
    """A listing entry's modification time in ns since the epoch, or None (absent, unparsable)."""
    import datetime as _dt

    for key in _TIME_KEYS:
        value = info.get(key)
        if value is None:
            continue
        try:
            if isinstance(value, str):
                value = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            if isinstance(value, _dt.datetime):
                if value.tzinfo is None:
                    value = value.replace(tzinfo=_dt.timezone.utc)
                return int(value.timestamp() * 1e6) * 1000
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(value * 1e9)
        except (ValueError, OverflowError, OSError):
            return None
    return None


class LocalFileSystem(FileSystem):
    """The local disk: memory-mapped reads, temporary-file-and-rename writes."""

    local_disk = True

    def join(self, *parts: str) -> str:
        return os.path.join(*parts)

    def kind(self, path: str) -> str | None:
        if os.path.isdir(path):
            return "directory"
        return "file" if os.path.exists(path) else None

    def find(self, root: str) -> list[tuple[str, int]]:
        out = []
        for d, dirs, files in os.walk(root, followlinks=True):
            dirs.sort()
            for name in files:
                p = os.path.join(d, name)
                try:
                    out.append((p, os.path.getsize(p)))
                except OSError:
                    continue  # removed while listing
        out.sort()
        return out

    def glob(self, pattern: str) -> list[str]:
        import glob as _glob

        return sorted(_glob.glob(pattern, recursive=True))

    def open_source(self, path: str, size: int | None = None, stats: IOStats | None = None) -> RandomAccessSource:
        src = FileSource(path)
        return src if stats is None else _CountingSource(src, stats)

    def open_sink(self, path: str) -> Sink:
        return PathSink(path)

    def makedirs(self, path: str) -> None:
        os.makedirs(path, exist_ok=True)

    def rm(self, path: str) -> None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


class _CountingSource:
    """A local source whose reads are counted (for ``explain()``)."""

    def __init__(self, inner: FileSource, stats: IOStats) -> None:
        self._inner = inner
        self._stats = stats
        self.size = inner.size
        self.path = inner.path

    def read_at(self, offset: int, size: int) -> memoryview:
        self._stats.add(size)
        return self._inner.read_at(offset, size)

    def sibling(self, relative: str) -> _CountingSource:
        return _CountingSource(self._inner.sibling(relative), self._stats)

    def close(self) -> None:
        self._inner.close()


#: A local source whose reads (and its siblings') are counted in an :class:`IOStats`.
CountingSource = _CountingSource


def _is_local_disk(fs: Any) -> bool:
    """Whether the fsspec file system *fs* is the local disk underneath (its paths are local
    paths): fsspec's ``LocalFileSystem`` (``file://``, ``local://``), or a pyarrow
    ``LocalFileSystem`` wrapped by ``ArrowFSWrapper``."""
    inner = getattr(fs, "fs", None) if type(fs).__name__ == "ArrowFSWrapper" else fs
    kind = type(inner)
    return kind.__name__ == "LocalFileSystem" and kind.__module__.split(".")[0] in ("fsspec", "pyarrow")


class FsspecFileSystem(FileSystem):
    """An fsspec file system; paths are without the protocol (``bucket/key``)."""

    sep = "/"

    def __init__(self, fs: Any) -> None:
        self.fs = fs
        proto = fs.protocol
        self.protocol = proto if isinstance(proto, str) else proto[0]
        self.local_disk = _is_local_disk(fs)

    def strip(self, path: str) -> str:
        return self.fs._strip_protocol(path)

    def join(self, *parts: str) -> str:
        return posixpath.join(*parts)

    def kind(self, path: str) -> str | None:
        try:
            with store_errors(self.fs, path, "looking up"):
                info = self.fs.info(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return "directory" if info.get("type") == "directory" else "file"

    def find(self, root: str) -> list[tuple[str, int]]:
        with store_errors(self.fs, root, "listing"):
            found = self.fs.find(root, detail=True)
        return sorted((self.strip(p), int(info.get("size") or 0)) for p, info in found.items()
                      if info.get("type", "file") != "directory")

    def find_times(self, root: str) -> list[tuple[str, int, int | None]]:
        with store_errors(self.fs, root, "listing"):
            found = self.fs.find(root, detail=True)
        return sorted((self.strip(p), int(info.get("size") or 0), listed_time(info)) for p, info in found.items()
                      if info.get("type", "file") != "directory")

    def glob(self, pattern: str) -> list[str]:
        with store_errors(self.fs, pattern, "listing"):
            found = self.fs.glob(pattern)
        return sorted(self.strip(p) for p in found)

    def open_source(self, path: str, size: int | None = None, stats: IOStats | None = None) -> RandomAccessSource:
        return StoreSource(self.fs, path, size, stats)

    def open_sink(self, path: str) -> Sink:
        return StoreSink(self.fs, path)

    def makedirs(self, path: str) -> None:
        try:
            with store_errors(self.fs, path, "creating"):
                self.fs.makedirs(path, exist_ok=True)
        except (NotImplementedError, FileExistsError):
            pass

    def rm(self, path: str) -> None:
        try:
            with store_errors(self.fs, path, "deleting"):
                self.fs.rm_file(path)
        except FileNotFoundError:
            pass

    def display(self, path: str) -> str:
        return path if "://" in path else f"{self.protocol}://{path}"


class StoreSource:
    """A file in an fsspec store, read with ranged requests.

    * The first read near the end fetches the last :data:`FOOTER_READ_SIZE`
      bytes at once and keeps them, so the tail, the footer length and (for
      most files) the whole footer and page indexes cost one request.
    * :meth:`prefetch` takes the ranges a read will need (column chunks,
      pages, indexes), coalesces neighbours (:func:`coalesce_ranges`) and
      fetches the requests concurrently; later ``read_at`` calls inside them
      are served from memory until :meth:`release`.
    * Every request is counted in :class:`IOStats`.
    """

    #: the leading magic is not fetched (one request saved); pyarrow and arrow-rs do not check it either
    remote = True

    def __init__(self, fs: Any, path: str, size: int | None = None, stats: IOStats | None = None) -> None:
        self.fs = fs
        self.path = path
        self.stats = stats if stats is not None else IOStats()
        if size is None:
            with store_errors(fs, path, "reading"):
                size = fs.size(path)
        self.size = int(size)
        self._cache: list[tuple[int, bytes]] = []     # (offset, bytes), prefetched
        self._tail: tuple[int, bytes] | None = None
        self._lock = threading.Lock()

    def sibling(self, relative: str) -> StoreSource:
        """A file beside this one (for ``ColumnChunk.file_path``); its size is asked once.

        Only a file is opened: a directory (or anything the store does not
        call a ``file``) raises ``OSError``.
        """
        path = posixpath.join(posixpath.dirname(self.path), relative)
        with store_errors(self.fs, path, "reading"):
            info = self.fs.info(path)
        if info.get("type") != "file":
            raise OSError(f"{info.get('type')!r} is not a file: {quoted(path)}")
        return StoreSource(self.fs, path, info.get("size"), self.stats)

    def _fetch(self, offset: int, size: int) -> bytes:
        with store_errors(self.fs, self.path, "reading"):
            data = self.fs.cat_file(self.path, start=offset, end=offset + size)
        self.stats.add(len(data))
        if len(data) != size:
            raise ParquetFormatError(f"short read at offset {offset}: {len(data)} of {size} bytes")
        return bytes(data)

    def _cached(self, offset: int, size: int) -> memoryview | None:
        spans = list(self._cache)
        if self._tail is not None:
            spans.append(self._tail)
        for start, buf in spans:
            if start <= offset and offset + size <= start + len(buf):
                return memoryview(buf)[offset - start:offset - start + size]
        return None

    def read_at(self, offset: int, size: int) -> memoryview:
        if offset < 0 or size < 0 or offset + size > self.size:
            raise ParquetFormatError(
                f"read of {size} bytes at offset {offset} is outside the file ({self.size} bytes)")
        hit = self._cached(offset, size)
        if hit is not None:
            return hit
        tail_start = max(0, self.size - FOOTER_READ_SIZE)
        if self._tail is None and offset >= tail_start:
            with self._lock:
                if self._tail is None:
                    self._tail = (tail_start, self._fetch(tail_start, self.size - tail_start))
            hit = self._cached(offset, size)
            if hit is not None:
                return hit
        if self._tail is not None and offset < self._tail[0] < offset + size:
            # a footer larger than the tail read: fetch only the part before the tail
            t0, tail = self._tail
            head = self._fetch(offset, t0 - offset)
            return memoryview(head + tail[:offset + size - t0])
        return memoryview(self._fetch(offset, size))

    def prefetch(self, ranges: Sequence[tuple[int, int]]) -> None:
        """Fetch *ranges* (``(offset, size)``) now: coalesced, concurrently, kept until :meth:`release`."""
        wanted = [(o, n) for o, n in ranges if n > 0 and self._cached(o, n) is None]
        requests = coalesce_ranges(wanted)
        if not requests:
            return
        if len(requests) == 1:
            o, n = requests[0]
            self._cache.append((o, self._fetch(o, n)))
            return
        with ThreadPoolExecutor(min(MAX_CONCURRENCY, len(requests))) as pool:
            bufs = list(pool.map(lambda r: self._fetch(*r), requests))
        self._cache.extend(zip((o for o, _ in requests), bufs))

    def release(self) -> None:
        """Drop prefetched ranges (the tail stays)."""
        self._cache = []

    def close(self) -> None:
        self._cache = []
        self._tail = None


class StoreSink(Sink):
    """Buffers a whole file in memory and puts it with one request on :meth:`commit`.

    On object stores one PUT is atomic (the object appears whole, or not at
    all), so a failed write leaves nothing behind and never replaces an
    existing object with a partial one.  The cost is memory: the file is
    held until it is complete.
    """

    def __init__(self, fs: Any, path: str) -> None:
        self.fs = fs
        self.path = path
        self._buf: io.BytesIO | None = io.BytesIO()
        self.offset = 0

    def write(self, data: bytes | memoryview) -> int:
        if self._buf is None:
            raise ValueError("the sink is already closed")
        start = self.offset
        self._buf.write(data)
        self.offset += len(data)
        return start

    def commit(self) -> None:
        if self._buf is None:
            return
        buf, self._buf = self._buf, None
        parent = posixpath.dirname(self.path)
        if parent:
            try:
                self.fs.makedirs(parent, exist_ok=True)
            except (NotImplementedError, FileExistsError, OSError):
                pass  # object stores have no folders
        with store_errors(self.fs, self.path, "writing"):
            self.fs.pipe_file(self.path, buf.getvalue())

    def abort(self) -> None:
        self._buf = None


#: What to install for a URL scheme whose fsspec package is missing.
_INSTALL_FOR = {
    "s3": '"parquet-core[s3]"', "s3a": '"parquet-core[s3]"',
    "gs": '"parquet-core[fsspec]" gcsfs', "gcs": '"parquet-core[fsspec]" gcsfs',
    "abfs": '"parquet-core[fsspec]" adlfs', "abfss": '"parquet-core[fsspec]" adlfs',
    "az": '"parquet-core[fsspec]" adlfs', "adl": '"parquet-core[fsspec]" adlfs',
}


def _import_fsspec(what: str) -> Any:
    try:
        import fsspec
    except ImportError as exc:
        raise FilesystemUnavailableError(
            f"{what} needs fsspec: pip install \"parquet-core[fsspec]\" "
            "(\"parquet-core[s3]\" for s3:// URLs)") from exc
    return fsspec


def _wrap_filesystem(filesystem: Any) -> FileSystem:
    if isinstance(filesystem, FileSystem):
        return filesystem
    if type(filesystem).__module__.startswith("pyarrow"):
        _import_fsspec("a pyarrow filesystem")
        from fsspec.implementations.arrow import ArrowFSWrapper

        return FsspecFileSystem(ArrowFSWrapper(filesystem))
    if hasattr(filesystem, "cat_file") and hasattr(filesystem, "_strip_protocol"):
        proto = filesystem.protocol
        if (proto if isinstance(proto, str) else proto[0]) in ("file", "local"):
            return LocalFileSystem()
        return FsspecFileSystem(filesystem)
    raise TypeError(f"filesystem must be an fsspec AbstractFileSystem (or a pyarrow FileSystem), "
                    f"not {type(filesystem).__name__}")


def resolve_filesystem(paths: Sequence[Any], filesystem: Any = None,
                       storage_options: dict[str, Any] | None = None) -> tuple[FileSystem, list[str]]:
    """The file system behind *paths* and the paths within it.

    All paths must be on one file system.  ``storage_options`` go to the
    fsspec file system a URL names.

    Raises
    ------
    FilesystemUnavailableError
        A URL, and fsspec (or the store's package, e.g. s3fs) is not installed.
    ValueError
        Paths on different file systems, or ``storage_options`` with neither a URL
        nor ... a file system to give them to.
    """
    texts = []
    for p in paths:
        if not isinstance(p, (str, os.PathLike)):
            raise TypeError(f"a path must be a str or os.PathLike, not {type(p).__name__}")
        texts.append(os.fspath(p))
    if filesystem is not None:
        if storage_options:
            raise ValueError("pass either filesystem= or storage_options=, not both")
        fs = _wrap_filesystem(filesystem)
        if isinstance(fs, FsspecFileSystem):
            return fs, [fs.strip(t) for t in texts]
        return fs, [_local_path(t) for t in texts]
    urls = [t for t in texts if is_url(t)]
    if not urls:
        if storage_options:
            raise ValueError("storage_options= applies to URLs (s3://, gs://, memory://...), not local paths")
        return LocalFileSystem(), [_local_path(t) for t in texts]
    if len(urls) != len(texts):
        raise ValueError("cannot mix local paths and URLs in one call")
    fsspec = _import_fsspec(f"the URL {urls[0]!r}")
    schemes = {_URL.match(u).group(1).lower() for u in urls}  # type: ignore[union-attr]
    if len(schemes) > 1:
        raise ValueError(f"all paths must use one file system, got schemes {sorted(schemes)}")
    try:
        fs, _ = fsspec.core.url_to_fs(urls[0], **(storage_options or {}))
    except ImportError as exc:
        scheme = schemes.pop()
        install = _INSTALL_FOR.get(scheme, '"parquet-core[fsspec]" and the fsspec package for ' + scheme)
        raise FilesystemUnavailableError(
            f"URLs {scheme}:// need a package that is not installed ({exc}); "
            f"pip install {install}") from exc
    wrapped = FsspecFileSystem(fs)
    return wrapped, [wrapped.strip(u) for u in urls]
