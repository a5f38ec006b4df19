"""Which files a path means: a file, a folder (recursive), a glob, or a list of them.

Litter is skipped the way Spark and pyarrow skip it: every file or folder
whose name starts with ``_`` or ``.`` below the root (``_SUCCESS``, ``.crc``
files, ``_temporary/``, ``_delta_log/``, our own ``.<name>...pqcore-tmp``
temporary files) and Hadoop's in-flight copies ending in ``._COPYING_``.
``_metadata`` and ``_common_metadata`` at the root are not data, but are
remembered: the dataset plans from them (see ``dataset.py``).

The *root* is where partition folders start: the folder given, the fixed
prefix of a glob without its trailing ``key=value`` folders (``ds/k=a/*/*.parquet``
-> ``ds``, so ``k`` is a column), a file's own folder, or the common folder of a list.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from typing import Any, Sequence

from parquet_core.file.filesystem import FileSystem, LocalFileSystem

__all__ = ["Discovery", "discover", "is_hidden", "list_data_files", "DEFAULT_IGNORE_PREFIXES"]

DEFAULT_IGNORE_PREFIXES = (".", "_")
_GLOB_CHARS = "*?["


def is_hidden(name: str, prefixes: Sequence[str] = DEFAULT_IGNORE_PREFIXES) -> bool:
    """A name Spark and pyarrow leave out of a listing."""
    return name.startswith(tuple(prefixes)) or name.endswith("._COPYING_")


@dataclass
class Discovery:
    """The data files (sorted ``(path, size)``), the root, and the summary files found there."""

    files: list[tuple[str, int]]
    root: str | None
    metadata_path: str | None = None
    common_metadata_path: str | None = None
    relative: dict[str, list[str]] = field(default_factory=dict)   # path -> folders below the root
    from_summary: bool = False      # the files are to be taken from _metadata


def list_data_files(folder: str, fs: FileSystem | None = None,
                    ignore_prefixes: Sequence[str] = DEFAULT_IGNORE_PREFIXES) -> list[tuple[str, int]]:
    """Every data file below *folder* (recursive, sorted), without litter: ``(path, size)``.

    The one listing rule shared by :class:`ParquetDataset` and the Spark adapter.
    Summary files (``_metadata``...) are litter here: :func:`discover` picks them up itself.
    """
    fs = fs or LocalFileSystem()
    out = []
    for p, size in fs.find(folder):
        below = _rel_parts(fs, folder, p)
        name = os.path.basename(p) if isinstance(fs, LocalFileSystem) else posixpath.basename(p)
        if is_hidden(name, ignore_prefixes) or any(is_hidden(b, ignore_prefixes) for b in below):
            continue
        out.append((p, size))
    return out


def _split(fs: FileSystem, path: str) -> list[str]:
    if isinstance(fs, LocalFileSystem):
        return [p for p in os.path.normpath(path).split(os.sep) if p]
    return [p for p in path.split("/") if p]


def _rel_parts(fs: FileSystem, root: str | None, path: str) -> list[str]:
    """The folder names between *root* and the file *path* (string slicing: this runs per file)."""
    if root is None:
        return []
    local = isinstance(fs, LocalFileSystem)
    sep = os.sep if local else "/"
    d = os.path.dirname(path) if local else posixpath.dirname(path)
    r = root.rstrip(sep) if root not in (sep, "") else root
    if d == r:
        return []
    if r in ("", sep):
        rest = d.lstrip(sep)
    elif d.startswith(r + sep):
        rest = d[len(r) + 1:]
    elif local:
        rel = os.path.relpath(d, root)
        return [] if rel == "." else rel.split(os.sep)
    else:
        return []
    return rest.split(sep) if rest else []


def _has_magic(path: str) -> bool:
    return any(c in path for c in _GLOB_CHARS)


def _glob_root(fs: FileSystem, pattern: str) -> str:
    parts = pattern.split(fs.sep if isinstance(fs, LocalFileSystem) else "/")
    fixed = []
    for p in parts:
        if _has_magic(p):
            break
        fixed.append(p)
    # ds/k=a/*.parquet: the k=a folder is a partition of the dataset at ds, not its root
    while len(fixed) > 1 and "=" in fixed[-1]:
        fixed.pop()
    joined = (os.sep if isinstance(fs, LocalFileSystem) else "/").join(fixed)
    return joined or ("." if isinstance(fs, LocalFileSystem) else "")


def discover(fs: FileSystem, paths: Sequence[str], ignore_prefixes: Sequence[str] = DEFAULT_IGNORE_PREFIXES,
             use_summary: bool = True) -> Discovery:
    """List the data files *paths* mean.

    A single folder holding ``_metadata`` is not listed when *use_summary*: its
    files are the ones ``_metadata`` names (as pyarrow's ``parquet_dataset`` and
    Dask do), filled in by the dataset (``files`` is then empty, ``from_summary`` True).

    Raises
    ------
    FileNotFoundError
        A path that does not exist (and matches nothing as a glob).
    """
    local = isinstance(fs, LocalFileSystem)
    files: dict[str, int] = {}
    rels: dict[str, list[str]] = {}
    roots: list[str] = []
    meta = common = None

    def add_tree(folder: str, root: str) -> None:
        nonlocal meta, common
        for p, size in fs.find(folder):
            below = _rel_parts(fs, folder, p)
            name = os.path.basename(p) if local else posixpath.basename(p)
            if name == "_metadata" and not below and folder == root:
                meta = p
                continue
            if name == "_common_metadata" and not below and folder == root:
                common = p
                continue
            if is_hidden(name, ignore_prefixes) or any(is_hidden(b, ignore_prefixes) for b in below):
                continue
            files[p] = size
            rels[p] = _rel_parts(fs, root, p)

    if use_summary and len(paths) == 1 and not _has_magic(paths[0]):
        folder = os.path.abspath(paths[0]) if local else paths[0]
        summary = fs.join(folder, "_metadata")
        if fs.kind(summary) == "file":
            common = fs.join(folder, "_common_metadata")
            return Discovery([], folder, summary, common if fs.kind(common) == "file" else None,
                             from_summary=True)
    for raw in paths:
        path = os.path.abspath(raw) if local and not _has_magic(raw) else raw
        kind = fs.kind(path)
        if kind == "directory":
            roots.append(path)
            add_tree(path, path)
        elif kind == "file":
            parent = os.path.dirname(path) if local else posixpath.dirname(path)
            roots.append(parent)
            size = _size_of(fs, path)
            files[path] = size
            rels[path] = []
        elif _has_magic(raw):
            root = _glob_root(fs, raw)
            if local:
                root = os.path.abspath(root)
            matches = fs.glob(os.path.abspath(raw) if local and not os.path.isabs(raw) else raw)
            if not matches:
                raise FileNotFoundError(f"no file matches {fs.display(raw)!r}")
            roots.append(root)
            for m in matches:
                name = os.path.basename(m) if local else posixpath.basename(m)
                below = _rel_parts(fs, root, m)
                if is_hidden(name, ignore_prefixes) or any(is_hidden(b, ignore_prefixes) for b in below):
                    continue
                if fs.kind(m) == "directory":
                    for p, size in fs.find(m):
                        sub = _rel_parts(fs, m, p)
                        pname = os.path.basename(p) if local else posixpath.basename(p)
                        if is_hidden(pname, ignore_prefixes) or any(is_hidden(b, ignore_prefixes) for b in sub):
                            continue
                        files[p] = size
                        rels[p] = _rel_parts(fs, root, p)
                else:
                    files[m] = _size_of(fs, m)
                    rels[m] = below
        else:
            raise FileNotFoundError(f"no such file or folder: {fs.display(raw)!r}")
    root = None
    if len(roots) == 1:
        root = roots[0]
    elif roots:
        root = _common_folder(fs, roots)
        for p in files:
            rels[p] = _rel_parts(fs, root, p)
    if len(paths) != 1:
        meta = common = None         # summary files describe one folder read as a whole
    return Discovery(sorted(files.items()), root, meta, common, rels)


def _size_of(fs: FileSystem, path: str) -> int:
    if isinstance(fs, LocalFileSystem):
        return os.path.getsize(path)
    return int(fs.fs.size(path))  # type: ignore[attr-defined]


def _common_folder(fs: FileSystem, roots: list[str]) -> str | None:
    if isinstance(fs, LocalFileSystem):
        try:
            return os.path.commonpath(roots)
        except ValueError:
            return None
    split = [r.rstrip("/").split("/") for r in roots]
    common: list[str] = []
    for parts in zip(*split):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common)


def relative_parts(fs: Any, root: str | None, path: str) -> list[str]:
    """Public form of the folder split (used by the Spark adapter)."""
    return _rel_parts(fs, root, path)
