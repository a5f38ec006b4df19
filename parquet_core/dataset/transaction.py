"""One ``write_to_dataset`` call as a transaction: staged files, locks, a commit record.

The names and the reader's rule are in ``commit_markers.py``; the steps here::

    stage       every new file written complete under a hidden name     (no lock)
    lock        ``_pqcore.lock`` of every partition folder written       (sorted; waits)
                (+ the root's for "error", + ``_pqcore-metadata.lock`` when
                the root has ``_metadata`` / ``_common_metadata``)
    clean up    what dead writers left (see :func:`clean_up`)
    decide      list the locked folders: the files to replace, or "error"'s refusal
    mark        a marker per folder (names added, files replaced)
    COMMIT      the record ``_pqcore-commit.<txn>.json`` at the root
    generation  on a store, ``_pqcore-generation`` at the root rewritten (the
                txn and a random token): a reader compares it before and after
                its listing, as it compares the root folder's times locally
    roll forward  staged -> final names (a rename; on object stores a copy), the new
                ``_metadata``, then the replaced files deleted, the markers, the record
    unlock

Before the commit a failure (or a kill) leaves only hidden files, which the
writer (or, after a kill, the next write) removes; after it, the write has
happened and is finished by whoever comes next if the writer dies.

Locks are files created exclusively: ``O_CREAT | O_EXCL`` on the local disk,
``pipe_file(mode="create")`` on fsspec stores (a conditional PUT on S3;
memory:// creates are serialised within the process); a store without that
mode gets a check-then-put, which two writers can both pass.  A lock names
its writer (``<host>.<pid>.<random>``): a lock, or any file, of a writer on
this host whose process is gone is stale and is taken over; a lock of a
writer on another host is waited for (:data:`LOCK_TIMEOUT` seconds) and then
refused, naming the file to delete if that writer died.
"""

from __future__ import annotations

import json
import os
import posixpath
import secrets
import threading
import time
from typing import Iterable

from parquet_core.dataset.commit_markers import (
    ABSENT,
    GENERATION_NAME,
    LOCK_NAME,
    METADATA_LOCK_NAME,
    TXN,
    is_internal,
    is_marker,
    marker_name,
    parse_txn,
    read_json,
    record_name,
    record_path,
    staged_name,
)
from parquet_core.errors import DatasetWriteConflictError
from parquet_core.file.filesystem import FileSystem, LocalFileSystem, store_errors
from parquet_core.file.sink import TEMP_SUFFIX, PathSink, host_tag, is_stale_temp_name, owner_is_dead

__all__ = ["Transaction", "clean_up", "LOCK_TIMEOUT", "txn_is_dead"]

#: Seconds a writer waits for another writer's lock before it gives up.
LOCK_TIMEOUT = 60.0
_POLL = 0.02

_BROKEN = ".broken."                    # <lock>.broken.<txn>: a stale lock being removed
_LIVE: set[str] = set()                 # the transactions of this process still running
_LIVE_GUARD = threading.Lock()
_CREATE_GUARD = threading.Lock()        # exclusive creates on stores, one at a time in this process


def txn_is_dead(txn: str) -> bool:
    """True when the writer named *txn* surely no longer runs (same host, no such process,
    or this process and not one of its running writes)."""
    m = TXN.fullmatch(txn)
    if m is None:
        return False
    pid = int(m["pid"])
    if m["host"] == host_tag() and pid == os.getpid():
        with _LIVE_GUARD:
            return txn not in _LIVE
    return owner_is_dead(m["host"], pid)


# -- file operations on either kind of file system ------------------------------------------

def _local(fs: FileSystem) -> bool:
    return isinstance(fs, LocalFileSystem)


def _name(fs: FileSystem, path: str) -> str:
    return os.path.basename(path) if _local(fs) else posixpath.basename(path)


def _dirname(fs: FileSystem, path: str) -> str:
    return os.path.dirname(path) if _local(fs) else posixpath.dirname(path)


def _read(fs: FileSystem, path: str) -> bytes | None:
    """The bytes at *path*, None when there is no such file (any other failure is raised)."""
    try:
        if _local(fs):
            with open(path, "rb") as f:
                return f.read()
        with store_errors(fs.fs, path, "reading"):  # type: ignore[attr-defined]
            return bytes(fs.fs.cat_file(path))  # type: ignore[attr-defined]
    except ABSENT:
        return None


def _exists(fs: FileSystem, path: str) -> bool:
    return fs.kind(path) == "file"


def put(fs: FileSystem, path: str, data: bytes, sync: bool = True) -> None:
    """Write a small file whole (temporary file + rename locally, one PUT on a store).

    Without *sync* the local file is not flushed to the device first: markers and records
    only have to survive the writer's death, not the machine's (the data files are synced)."""
    if not _local(fs):
        with store_errors(fs.fs, path, "writing"):  # type: ignore[attr-defined]
            fs.fs.pipe_file(path, data)  # type: ignore[attr-defined]
        return
    if sync:
        sink = PathSink(path)
        try:
            sink.write(data)
            sink.commit()
        except BaseException:
            sink.abort()
            raise
        return
    tmp = f"{path}.{host_tag()}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        fs.rm(tmp)
        raise


def _put_exclusive(fs: FileSystem, path: str, data: bytes) -> bool:
    """Create *path* holding *data* unless it exists; False when it does."""
    if _local(fs):
        # written under a private name first, then hard-linked to *path*: the link appears
        # whole or not at all, so a writer killed here never leaves an empty lock that names
        # no owner (O_EXCL then a write could, and such a lock was waited on for ever)
        tmp = f"{path}.{host_tag()}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            try:
                os.link(tmp, path)
                return True
            except FileExistsError:
                return False
            except OSError:                   # a file system without hard links
                pass
        finally:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return True
    store = fs.fs  # type: ignore[attr-defined]
    with _CREATE_GUARD, store_errors(store, path, "creating"):
        try:
            store.pipe_file(path, data, mode="create")
        except FileExistsError:
            return False
        except TypeError:            # an fsspec without mode=: check, then put (not atomic)
            if store.exists(path):
                return False
            store.pipe_file(path, data)
        except OSError as exc:       # s3fs reports a failed precondition as an OSError
            if "PreconditionFailed" in str(exc) or "412" in str(exc):
                return False
            raise
    return True


def rename(fs: FileSystem, src: str, dst: str) -> None:
    """Give *src* the name *dst*, replacing it (atomic locally; a copy and a delete on stores)."""
    if _local(fs):
        os.replace(src, dst)
    else:
        with store_errors(fs.fs, dst, "renaming to"):  # type: ignore[attr-defined]
            fs.fs.mv(src, dst)  # type: ignore[attr-defined]


# -- locks ------------------------------------------------------------------------------------

def _owner(fs: FileSystem, path: str) -> str | None:
    data = _read(fs, path)
    return None if data is None else data.decode("utf-8", "replace").strip()


def _break_lock(fs: FileSystem, path: str, owner: str, me: str) -> None:
    """Remove the stale lock *path* of the dead writer *owner* (never a live writer's)."""
    if not _local(fs):
        if _owner(fs, path) == owner:
            fs.rm(path)
        return
    moved = f"{path}{_BROKEN}{me}"
    try:
        os.rename(path, moved)            # of several writers breaking it, one moves it
    except FileNotFoundError:
        return
    if _owner(fs, moved) != owner:        # a live writer's lock, made after the stale one went
        try:
            os.link(moved, path)
        except OSError:
            pass
    fs.rm(moved)


#: Seconds after which a lock that still names no writer is taken to be a dead writer's
#: (only the create-then-write fallback, on a file system without hard links, can leave one).
_EMPTY_LOCK_AGE = 10.0


def _empty_lock_is_stale(fs: FileSystem, path: str) -> bool:
    if not _local(fs):
        return False
    try:
        return time.time() - os.stat(path).st_mtime > _EMPTY_LOCK_AGE
    except FileNotFoundError:
        return True


def acquire_lock(fs: FileSystem, path: str, me: str, wait: bool = True) -> None:
    """Take the lock file *path* for the writer *me*.

    Raises
    ------
    DatasetWriteConflictError
        Another writer holds it (after :data:`LOCK_TIMEOUT` seconds, at once without *wait*).
    """
    deadline = time.monotonic() + LOCK_TIMEOUT
    retries = 0                           # at once, when the lock went or was stale
    while True:
        if _put_exclusive(fs, path, me.encode()):
            return
        owner = _owner(fs, path)
        if retries < 5 and (owner is None or (owner and txn_is_dead(owner))
                            or (owner == "" and _empty_lock_is_stale(fs, path))):
            retries += 1
            if owner is not None:
                _break_lock(fs, path, owner, me)
            continue
        if not wait or time.monotonic() > deadline:
            folder = fs.display(_dirname(fs, path))
            waited = f" for {LOCK_TIMEOUT:g} s" if wait else ""
            raise DatasetWriteConflictError(
                f"{folder!r} is being written by another writer ({owner or 'starting'}); waited{waited} "
                f"for its lock {fs.display(path)!r}. If that writer died on another host, delete the lock")
        time.sleep(_POLL)


# -- the transaction --------------------------------------------------------------------------

class Transaction:
    """The files one write adds and replaces, and the steps that make them visible."""

    def __init__(self, fs: FileSystem, root: str) -> None:
        self.fs = fs
        self.root = root
        self.txn = f"{host_tag()}.{os.getpid()}.{secrets.token_hex(6)}"
        with _LIVE_GUARD:
            _LIVE.add(self.txn)
        self.adds: dict[str, list[str]] = {}        # folder -> names added
        self.removes: dict[str, list[str]] = {}     # folder -> files replaced (relative, "/")
        self.summary: list[str] = []                # "_metadata" when it is rewritten
        self.locks: list[str] = []
        self.marked: list[str] = []
        self.committed = False

    def staged(self, folder: str, name: str) -> str:
        return self.fs.join(folder, staged_name(self.txn, name))

    def add(self, folder: str, name: str) -> str:
        """Note a new file; the hidden path to write it to."""
        self.adds.setdefault(folder, []).append(name)
        return self.staged(folder, name)

    def lock(self, path: str, wait: bool = True) -> None:
        if path not in self.locks:
            acquire_lock(self.fs, path, self.txn, wait)
            self.locks.append(path)

    def folders(self) -> list[str]:
        return sorted(set(self.adds) | set(self.removes))

    def _up(self, folder: str) -> int:
        rel = _relative(self.fs, self.root, folder)
        return len(rel.split("/")) if rel else 0

    def commit(self) -> None:
        """Write the markers, then the record: from here on the write has happened."""
        fs = self.fs
        for folder in self.folders():
            body = {"txn": self.txn, "up": self._up(folder), "add": self.adds.get(folder, []),
                    "remove": self.removes.get(folder, [])}
            self.marked.append(folder)
            put(fs, fs.join(folder, marker_name(self.txn)), json.dumps(body).encode(), sync=False)
        record = {"txn": self.txn, "folders": [_relative(fs, self.root, f) for f in self.folders()],
                  "summary": self.summary}
        put(fs, fs.join(self.root, record_name(self.txn)), json.dumps(record).encode(), sync=False)
        self.committed = True
        new_generation(fs, self.root, self.txn)

    def roll_forward(self) -> None:
        changes = {f: (self.adds.get(f, []), self.removes.get(f, [])) for f in self.folders()}
        _roll_forward(self.fs, self.root, self.txn, changes, self.summary)

    def rollback(self) -> None:
        """Remove everything this write made (before its commit nothing of it was visible).
        Best effort: what cannot be removed now is a dead writer's litter for the next write."""
        fs = self.fs
        # the record first: if it was written after all (an error after the bytes went), the
        # write is undone; if it cannot be removed, the next write finds it and rolls forward
        paths = [fs.join(self.root, record_name(self.txn))]
        paths += [self.staged(folder, name) for folder, names in self.adds.items() for name in names]
        paths += [self.staged(self.root, name) for name in self.summary]
        paths += [fs.join(folder, marker_name(self.txn)) for folder in self.marked]
        for path in paths:
            try:
                fs.rm(path)
            except Exception:  # noqa: BLE001 - the error that stopped the write is the one to raise
                break

    def close(self) -> None:
        """Release the locks; from now on what is left of this write is a dead writer's."""
        try:
            for path in reversed(self.locks):
                self.fs.rm(path)
        except Exception:  # noqa: BLE001 - a lock left behind is stale from here on
            pass
        finally:
            self.locks = []
            with _LIVE_GUARD:
                _LIVE.discard(self.txn)


def new_generation(fs: FileSystem, root: str, txn: str) -> None:
    """On a store, rewrite *root*'s generation object with bytes no commit wrote before.

    After the commit record and before the roll-forward: a reader that read it before its
    listing and reads it again after sees a change whenever a commit's record or roll-forward
    fell inside the listing (the record without it, in the moment before the rewrite, changes
    no file: marker folders are read through one answer per write, ``commit_markers.py``).
    Not on the local disk (also through fsspec: ``fs.local_disk``, the readers' own test),
    whose root folder's times do this job (a store's prefix has none)."""
    if fs.local_disk:
        return
    body = {"txn": txn, "token": secrets.token_hex(8), "time": time.time()}
    put(fs, fs.join(root, GENERATION_NAME), json.dumps(body).encode())


def _relative(fs: FileSystem, root: str, folder: str) -> str:
    """*folder* below *root*, "/"-separated ("" for the root itself)."""
    sep = fs.sep
    r = root.rstrip(sep)
    if folder.rstrip(sep) == r:
        return ""
    rest = folder[len(r) + 1:] if folder.startswith(r + sep) else os.path.relpath(folder, root)
    return rest.replace(os.sep, "/") if _local(fs) else rest


def _roll_forward(fs: FileSystem, root: str, txn: str, changes: dict[str, tuple[list[str], list[str]]],
                  summary: Iterable[str], finish: bool = True) -> None:
    """Finish a committed write (again, if it was interrupted: every step can be repeated).

    Without *finish*, only the folders in *changes* are finished (their markers go, so a
    reader lists them as they are); the summary and the record are left for whoever
    finishes the other folders."""
    for folder, (adds, _) in changes.items():
        for name in adds:
            src = fs.join(folder, staged_name(txn, name))
            if _exists(fs, src):
                rename(fs, src, fs.join(folder, name))
    if finish:
        for name in summary:       # the new _metadata names files that all exist now
            src = fs.join(root, staged_name(txn, name))
            if _exists(fs, src):
                rename(fs, src, fs.join(root, name))
    for folder, (adds, removes) in changes.items():
        kept = set(adds)
        for rel in removes:
            if rel not in kept:
                fs.rm(fs.join(folder, *rel.split("/")))
    for folder in changes:
        fs.rm(fs.join(folder, marker_name(txn)))
    if finish:
        fs.rm(fs.join(root, record_name(txn)))


# -- what dead writers left -------------------------------------------------------------------

def clean_up(fs: FileSystem, listing: Iterable[tuple[str, int]], me: Transaction) -> bool:
    """Remove or finish what dead writers left among *listing* (every file below the root).

    * temporary files of single-file writes (``*.pqcore-tmp``) of dead processes: deleted;
    * stale locks: deleted;
    * an uncommitted write (no record): its staged files and markers deleted;
    * a committed one: rolled forward folder by folder, each under its lock (a folder a
      live writer holds is left for a later write; the new ``_metadata`` and the record go
      with the last folder).  A folder is finished whole or not at all, so each is read
      as the committed version either way.

    Returns True when something was changed.
    """
    by_txn: dict[str, list[str]] = {}
    changed = False
    for path, _ in listing:
        name = _name(fs, path)
        if not is_internal(name):
            continue
        if is_stale_temp_name(name):
            fs.rm(path)
            changed = True
            continue
        if name.startswith((LOCK_NAME + _BROKEN, METADATA_LOCK_NAME + _BROKEN)):   # a dead breaker's
            if txn_is_dead(name.rsplit(_BROKEN, 1)[1]):
                fs.rm(path)
                changed = True
            continue
        if name in (LOCK_NAME, METADATA_LOCK_NAME):
            if path in me.locks:
                continue
            owner = _owner(fs, path)
            if owner and owner != me.txn and txn_is_dead(owner):
                _break_lock(fs, path, owner, me.txn)
                changed = True
            continue
        txn = parse_txn(name)
        if txn is not None and txn != me.txn and txn_is_dead(txn):
            by_txn.setdefault(txn, []).append(path)
    for txn, paths in by_txn.items():
        changed |= _clean_txn(fs, txn, paths, me)
    return changed


def _clean_txn(fs: FileSystem, txn: str, paths: list[str], me: Transaction) -> bool:
    markers = [p for p in paths if is_marker(_name(fs, p))]
    bodies = [read_json(fs, p) for p in markers]
    if any(body is None for body in bodies):
        return False                      # gone meanwhile, or unreadable: never guess
    record = None
    for p, body in zip(markers, bodies):
        candidate = record_path(fs, _dirname(fs, p), body)  # type: ignore[arg-type]
        if _exists(fs, candidate):
            record = candidate
            break
    if record is None:
        record = next((p for p in paths if _name(fs, p) == record_name(txn)), None)
    if record is None:
        for p in paths:                   # staged files first, then markers
            if p not in markers:
                fs.rm(p)
        for p in markers:
            fs.rm(p)
        return True
    body = read_json(fs, record)
    if body is None:
        return False
    root = _dirname(fs, record)
    folders = [fs.join(root, *rel.split("/")) if rel else root for rel in body.get("folders", [])]
    summary = list(body.get("summary", []))
    held = []
    for folder in sorted(folders):
        try:
            me.lock(fs.join(folder, LOCK_NAME), wait=False)
            held.append(folder)
        except DatasetWriteConflictError:
            pass                          # a live writer is there: its part is left for later
    complete = len(held) == len(folders)
    if complete and summary:
        try:
            me.lock(fs.join(root, METADATA_LOCK_NAME), wait=False)
        except DatasetWriteConflictError:
            complete = False
    changes: dict[str, tuple[list[str], list[str]]] = {}
    for folder in held:
        marker = read_json(fs, fs.join(folder, marker_name(txn)))
        if marker is not None:
            changes[folder] = (list(marker.get("add", [])), list(marker.get("remove", [])))
    if changes or complete:
        new_generation(fs, root, me.txn)    # its writer may have died before its own
    _roll_forward(fs, root, txn, changes, summary, finish=complete)
    return bool(changes) or complete
