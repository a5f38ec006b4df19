"""Commit markers of ``write_to_dataset``: their names, and how a folder listing honours them.

This is the whole reader side of dataset writes (``discovery.py`` calls
:func:`apply_markers`); the writer side is ``dataset/transaction.py``.

A write *T* (``<host>.<pid>.<random>``) leaves, while it runs, only hidden names:

* ``F/.pqcore.T.<name>.pqcore-staged`` - a new file of partition folder *F*,
  staged under a hidden name (pyarrow, Spark and our listing skip names
  starting with ``.``; DuckDB and polars do not, but their ``*.parquet`` globs
  miss the suffix);
* ``F/_pqcore-txn.T.json`` - *F*'s marker: ``{"txn", "up", "add", "remove"}``, the
  names *T* adds to *F*, the files (paths relative to *F*) it replaces, and how
  many folders up the dataset root is;
* ``root/_pqcore-commit.T.json`` - the commit record.  Its creation is the
  commit point: before it *T* never happened, after it *T* is the new version.
  After the record, staged files are renamed to their names, replaced files
  deleted, then the markers and at last the record are removed.

So a listing of *F* holding a marker is read as the old version while *T* has no
record (its staged files are hidden anyway), and as the new version once it has
one: the replaced files are left out and each added name is taken from its
staged file while that still exists, else from its final name.  A listing that
raced with the clean-up (finds neither, or a marker it saw is gone when read)
raises :class:`ListingRaced`, and ``discovery.py`` lists again; it also lists again
when a write committed while the dataset was listed (a commit between two folders of
one walk, which no marker shows when the walk met none):

* on the local disk, a commit record came or went in the root folder meanwhile (the
  root's times and inode changed);
* on a store (which has no folder times), ``root/_pqcore-generation`` changed: every
  commit on a store rewrites it right after its record, before the roll-forward, with
  its txn and a random token, so its bytes differ after every commit.  A reader reads
  it before and after its walk.  It is never removed; a dataset no transactional write
  ever committed to on a store has none.

Every name starting with ``_pqcore`` or ``.pqcore`` (and single-file writes'
``*.pqcore-tmp``) is ours and never data, whatever ``ignore_prefixes`` says.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from typing import Any

from parquet_core.errors import ParquetError
from parquet_core.file.filesystem import FileSystem, LocalFileSystem, store_errors
from parquet_core.file.sink import TEMP_SUFFIX

__all__ = ["ListingRaced", "is_internal", "is_marker", "apply_markers", "marker_name", "record_name", "staged_name",
           "parse_txn", "read_generation", "STAGED_PREFIX", "MARKER_PREFIX", "RECORD_PREFIX", "LOCK_NAME",
           "METADATA_LOCK_NAME", "GENERATION_NAME"]

STAGED_PREFIX = ".pqcore."
STAGED_SUFFIX = ".pqcore-staged"
MARKER_PREFIX = "_pqcore-txn."
RECORD_PREFIX = "_pqcore-commit."
LOCK_NAME = "_pqcore.lock"
METADATA_LOCK_NAME = "_pqcore-metadata.lock"
#: At a store dataset's root: rewritten by every commit (see the module docstring)
GENERATION_NAME = "_pqcore-generation"
_JSON = ".json"
_OURS = ("_pqcore", ".pqcore")
TXN = re.compile(r"(?P<host>[^.]+)\.(?P<pid>[0-9]+)\.(?P<rand>[0-9a-f]{12})")


def is_internal(name: str) -> bool:
    """A name our writers use for their own bookkeeping (never a data file)."""
    return name.startswith(_OURS) or name.endswith(TEMP_SUFFIX)


def is_marker(name: str) -> bool:
    return name.startswith(MARKER_PREFIX) and name.endswith(_JSON)


def marker_name(txn: str) -> str:
    return f"{MARKER_PREFIX}{txn}{_JSON}"


def record_name(txn: str) -> str:
    return f"{RECORD_PREFIX}{txn}{_JSON}"


def staged_name(txn: str, name: str) -> str:
    return f"{STAGED_PREFIX}{txn}.{name}{STAGED_SUFFIX}"


def parse_txn(name: str) -> str | None:
    """The write a name of ours belongs to (None: a lock, a temporary file, or not ours)."""
    for prefix in (STAGED_PREFIX, MARKER_PREFIX, RECORD_PREFIX):
        if name.startswith(prefix):
            m = TXN.match(name, len(prefix))
            return m.group(0) if m else None
    return None


def _dirname(fs: FileSystem, path: str) -> str:
    return os.path.dirname(path) if isinstance(fs, LocalFileSystem) else posixpath.dirname(path)


#: What "there is no such marker" looks like.  Any other OSError (a store that keeps failing,
#: a permission error) is raised: read as "absent", it could make a reader pick the wrong
#: version of a partition, or a writer miss another writer's lock.
ABSENT = (FileNotFoundError, NotADirectoryError, IsADirectoryError)


def _size(fs: FileSystem, path: str) -> int | None:
    """The size of the file at *path*, None when there is none."""
    if isinstance(fs, LocalFileSystem):
        try:
            return os.path.getsize(path) if os.path.isfile(path) else None
        except ABSENT:
            return None
    try:
        with store_errors(fs.fs, path, "reading"):  # type: ignore[attr-defined]
            info = fs.fs.info(path)  # type: ignore[attr-defined]
    except ABSENT:
        return None
    return None if info.get("type") == "directory" else int(info.get("size") or 0)


def read_json(fs: FileSystem, path: str) -> dict[str, Any] | None:
    """A marker or record; None when it is gone (its write finished meanwhile)."""
    try:
        if isinstance(fs, LocalFileSystem):
            with open(path, "rb") as f:
                data = f.read()
        else:
            with store_errors(fs.fs, path, "reading"):  # type: ignore[attr-defined]
                data = fs.fs.cat_file(path)  # type: ignore[attr-defined]
    except ABSENT:
        return None
    try:
        out = json.loads(data)
    except ValueError as exc:
        raise ParquetError(f"{fs.display(path)!r} is not a commit marker of parquet-core "
                           f"(bad JSON: {exc})") from exc
    if not isinstance(out, dict):
        raise ParquetError(f"{fs.display(path)!r} is not a commit marker of parquet-core")
    return out


#: Bytes of a generation object read at most (ours hold ~100)
_GENERATION_READ = 4096


def read_generation(fs: FileSystem, root: str) -> bytes | None:
    """The bytes of *root*'s generation object, None when it has none.  One GET: a ranged
    read (s3fs asks a whole-object read's size first, a HEAD more)."""
    path = fs.join(root, GENERATION_NAME)
    try:
        with store_errors(fs.fs, path, "reading"):  # type: ignore[attr-defined]
            return bytes(fs.fs.cat_file(path, start=0, end=_GENERATION_READ))  # type: ignore[attr-defined]
    except ABSENT:
        return None


def record_path(fs: FileSystem, folder: str, marker: dict[str, Any]) -> str:
    """The commit record a marker in *folder* refers to."""
    root = folder
    for _ in range(int(marker.get("up", 0))):
        root = _dirname(fs, root)
    return fs.join(root, record_name(str(marker["txn"])))


class ListingRaced(ParquetError):
    """A write changed a folder while it was being listed (a marker seen in the listing was
    gone when read, or a file a committed marker adds had moved on): the listing may hold
    parts of two versions.  The listing catches it and lists again (``discovery.py``)."""


def apply_markers(fs: FileSystem, markers: list[tuple[str, list[str]]], files: dict[str, Any],
                  rels: dict[str, list[str]] | None = None) -> None:
    """Make a listing (``files``: path -> size, ``rels``: path -> folders below the root) the
    committed version of every folder holding a marker (``(marker path, its folders below the
    root)``).  Only markers of committed writes change anything."""
    committed: dict[str, bool] = {}       # record path -> committed, asked once per write
    for path, below in markers:
        marker = read_json(fs, path)
        if marker is None:
            # its write finished meanwhile: the folder was listed part way through that
            # write's roll-forward (some files renamed, some replaced ones still there)
            raise ListingRaced(f"{fs.display(path)!r} was gone when read: a write finished "
                               "while its folder was listed")
        folder = _dirname(fs, path)
        record = record_path(fs, folder, marker)
        if record not in committed:
            # one answer for all the markers of one write: asked per marker, a commit made
            # between two of the questions would read one folder old and another new
            committed[record] = _size(fs, record) is not None
            if not committed[record] and _size(fs, path) is None:
                # no record, and the marker gone since it was read: the write committed and
                # finished meanwhile (its record goes after its markers), not "never committed"
                raise ListingRaced(f"{fs.display(path)!r} was gone when read again: a write "
                                   "finished while its folder was listed")
        if not committed[record]:
            continue                   # not committed: the listing is the old version
        txn = str(marker["txn"])
        for rel in marker.get("remove", []):
            _drop(files, rels, fs.join(folder, *rel.split("/")))
        for name in marker.get("add", []):
            final = fs.join(folder, name)
            staged = fs.join(folder, staged_name(txn, name))
            size = _size(fs, staged)
            if size is not None:
                _drop(files, rels, final)
                target = staged
            else:
                size = _size(fs, final)
                if size is None:
                    raise ListingRaced(
                        f"{fs.display(final)!r} vanished while the dataset was listed (a write "
                        "replaced it meanwhile)")
                target = final
            files[target] = size
            if rels is not None:
                rels[target] = list(below)


def _drop(files: dict[str, Any], rels: dict[str, list[str]] | None, path: str) -> None:
    files.pop(path, None)
    if rels is not None:
        rels.pop(path, None)
