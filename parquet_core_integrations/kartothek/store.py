"""Where a dataset lives: a local directory, or any fsspec URL when fsspec is installed.

A store maps flat string keys (``/`` separates "directories") to bytes,
like Kartothek's key-value stores.  Local writes go to a temporary file
beside the target and are renamed into place, so a reader never sees a
half-written file; :meth:`LocalStore.commit` additionally serialises
metadata commits with an exclusive lock file.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
import uuid as _uuid
from typing import Any, Callable, Iterator

from parquet_core_integrations.kartothek.errors import (
    ConcurrentWriteError,
    DatasetExistsError,
    KartothekError,
)

__all__ = ["Store", "LocalStore", "FsspecStore", "open_store"]

#: a commit lock older than this was left by a crashed writer (a commit takes milliseconds)
STALE_LOCK_SECONDS = 600


class Store:
    """Minimal key-value protocol used by the reader and writers."""

    def get(self, key: str) -> bytes:
        raise NotImplementedError

    def exists(self, key: str) -> bool:
        raise NotImplementedError

    def put(self, key: str, data: bytes) -> None:
        raise NotImplementedError

    def delete(self, key: str) -> None:
        raise NotImplementedError

    def keys(self, prefix: str) -> list[str]:
        """Every key starting with *prefix*."""
        raise NotImplementedError

    def source(self, key: str) -> Any:
        """Something ``pc.ParquetFile`` opens: a path or bytes."""
        return self.get(key)

    def write_with(self, key: str, write: Callable[[Any], None]) -> None:
        """Call ``write(target)`` to produce the object at *key* (a Parquet writer)."""
        buf = io.BytesIO()
        write(buf)
        self.put(key, buf.getvalue())

    @contextlib.contextmanager
    def commit_lock(self, name: str) -> Iterator[None]:
        """Held while metadata files are checked and replaced (no-op where unsupported)."""
        yield

    def commit(self, key: str, data: bytes, expected: dict[str, bytes | None], lock: str) -> None:
        """Write the metadata file *key* if every key of *expected* still holds what was read.

        ``expected[k] is None`` means *k* must not exist (a new dataset, or
        the other metadata format); otherwise it is the content read before
        the change.  *lock* names the dataset's commit lock.
        """
        with self.commit_lock(lock):
            for k, before in expected.items():
                current = self.get(k) if self.exists(k) else None
                if current == before:
                    continue
                if before is None:
                    raise DatasetExistsError(f"{k} exists: another writer created or changed the dataset; "
                                             "nothing of this write is visible")
                raise ConcurrentWriteError(
                    f"{k} changed since it was read: another writer committed; nothing of this "
                    "write is visible, retry on the new version")
            self.put(key, data)


class LocalStore(Store):
    """Keys are paths relative to a root directory, created by the first write (as
    Kartothek's own file-system stores create theirs); a root that is a file is an error."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.abspath(os.fspath(root))
        if os.path.exists(self.root) and not os.path.isdir(self.root):
            raise KartothekError(f"store root {self.root!r} is not a directory")

    def __repr__(self) -> str:
        return f"LocalStore({self.root!r})"

    def path(self, key: str) -> str:
        if key.startswith("/") or ".." in key.split("/"):
            raise KartothekError(f"key {key!r} escapes the store root")
        return os.path.join(self.root, *key.split("/"))

    def get(self, key: str) -> bytes:
        with open(self.path(key), "rb") as f:
            return f.read()

    def exists(self, key: str) -> bool:
        return os.path.isfile(self.path(key))

    def source(self, key: str) -> Any:
        return self.path(key)

    def put(self, key: str, data: bytes) -> None:
        path = self.path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def write_with(self, key: str, write: Callable[[Any], None]) -> None:
        path = self.path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write(path)           # parquet_core writes beside the path and renames

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path(key))
        self._prune_dirs(os.path.dirname(self.path(key)))

    def _prune_dirs(self, directory: str) -> None:
        while directory != self.root and directory.startswith(self.root):
            try:
                os.rmdir(directory)
            except OSError:
                return
            directory = os.path.dirname(directory)

    def keys(self, prefix: str) -> list[str]:
        head, _, _ = prefix.rpartition("/")
        base = self.path(head) if head else self.root
        out = []
        for dirpath, _dirs, files in os.walk(base):
            rel = os.path.relpath(dirpath, self.root)
            rel = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            for name in files:
                key = rel + name
                if key.startswith(prefix) and not name.startswith(".tmp-"):
                    out.append(key)
        return sorted(out)

    @contextlib.contextmanager
    def commit_lock(self, name: str) -> Iterator[None]:
        lock = self.path(f".{name}.commit-lock")
        os.makedirs(self.root, exist_ok=True)
        with contextlib.suppress(OSError):      # a lock left by a crashed writer
            if time.time() - os.stat(lock).st_mtime > STALE_LOCK_SECONDS:
                os.unlink(lock)
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise ConcurrentWriteError(f"dataset {name!r} is being committed by another writer "
                                       f"({lock} exists)") from None
        try:
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            yield
        finally:
            with contextlib.suppress(OSError):
                os.unlink(lock)


class FsspecStore(Store):
    """Keys under a root of an fsspec file system (object stores put whole objects atomically)."""

    def __init__(self, url: str) -> None:
        try:
            import fsspec
        except ImportError as exc:
            raise KartothekError(f"store {url!r} needs fsspec (pip install fsspec)") from exc
        self.fs, root = fsspec.core.url_to_fs(url)
        self.root = root.rstrip("/")

    def path(self, key: str) -> str:
        return f"{self.root}/{key}"

    def get(self, key: str) -> bytes:
        return self.fs.cat_file(self.path(key))

    def exists(self, key: str) -> bool:
        return self.fs.isfile(self.path(key))

    def put(self, key: str, data: bytes) -> None:
        path = self.path(key)
        tmp = f"{path}.tmp-{_uuid.uuid4().hex}"
        self.fs.pipe_file(tmp, data)
        self.fs.mv(tmp, path)

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm_file(self.path(key))

    def keys(self, prefix: str) -> list[str]:
        head, _, _ = prefix.rpartition("/")
        base = self.path(head) if head else self.root
        try:
            found = self.fs.find(base)
        except FileNotFoundError:
            return []
        root = self.fs._strip_protocol(self.root).rstrip("/") + "/"
        keys = [p[len(root):] for p in (self.fs._strip_protocol(p) for p in found) if p.startswith(root)]
        return sorted(k for k in keys if k.startswith(prefix) and ".tmp-" not in k)


def open_store(store: Any) -> Store:
    """A :class:`Store` for a directory path, a ``file://``/``hfs://`` URL, an fsspec URL or a Store."""
    if isinstance(store, Store):
        return store
    if isinstance(store, os.PathLike):
        return LocalStore(store)
    if not isinstance(store, str):
        raise TypeError(f"store must be a path, a URL or a Store, got {type(store).__name__}")
    for scheme in ("hfs://", "file://"):
        if store.startswith(scheme):
            return LocalStore(store[len(scheme):])
    if "://" in store:
        return FsspecStore(store)
    return LocalStore(store)
