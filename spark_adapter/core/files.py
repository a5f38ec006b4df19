"""Which files a ``load(...)`` call means, mirroring Spark's file listing.

Spark's ``InMemoryFileIndex`` lists a directory recursively and leaves out
every file or directory whose name starts with ``_`` or ``.`` (``_SUCCESS``,
``_metadata``, ``.crc`` files, ``_temporary/``...) and in-flight copies
ending in ``._COPYING_``.  It does not look at extensions: every other file
is read as Parquet.  A path that does not exist but contains glob characters
is expanded like Spark's ``globPath``.  The ``pathGlobFilter`` option filters
file names with a glob, as in Spark.

Partition columns come from ``key=value`` folders between each file and its
base path (:func:`list_files_and_bases`; see ``partitioning.py``): a loaded
directory (or each directory a glob expands to) is a base path, a loaded
file's parent is one, and the ``basePath`` option replaces them all, as in
Spark.

The listing rule (recursive, litter skipped) is parquet_core's own
(``pc.list_data_files`` and ``pc.is_hidden``, the code ``pc.read_table(folder)``
runs), so ``pc.read_table(folder)`` and ``spark.read.format("pqcore").load(folder)``
read the same files.

This module is imported on the driver only.
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os
from collections.abc import Iterable, Mapping

__all__ = ["is_hidden", "local_path", "list_files", "list_files_and_bases", "paths_from_options"]


def is_hidden(name: str) -> bool:
    """Spark's ``shouldFilterOutPathName`` for the names we can meet locally (parquet_core's rule)."""
    import parquet_core as pc

    return pc.is_hidden(name)


def local_path(path: str) -> str:
    """Strip a ``file:`` scheme; reject other schemes (no remote file systems yet)."""
    if path.startswith("file://"):
        return path[len("file://"):] or "/"
    if path.startswith("file:"):
        return path[len("file:"):]
    scheme, sep, _ = path.partition("://")
    if sep and scheme.isalnum():
        raise ValueError(f"pqcore reads local files only, got {path!r}")
    return path


def paths_from_options(options: Mapping[str, str]) -> list[str]:
    """The paths of ``load(path)`` (``options["path"]``) and ``load([p1, p2])``
    (``options["paths"]``, a JSON list), in that order."""
    out: list[str] = []
    path = options.get("path")
    if path:
        out.append(path)
    raw = options.get("paths")
    if raw:
        try:
            extra = json.loads(raw)
        except ValueError:
            extra = [raw]
        if isinstance(extra, str):
            extra = [extra]
        out.extend(str(p) for p in extra)
    return out


def _walk(directory: str) -> Iterable[str]:
    import parquet_core as pc

    return [p for p, _ in pc.list_data_files(directory)]


def list_files(paths: Iterable[str], glob_filter: str | None = None) -> list[str]:
    """Every data file under *paths*, sorted per path, without duplicates.

    Raises
    ------
    FileNotFoundError
        A path that does not exist and matches nothing as a glob (Spark's
        ``PATH_NOT_FOUND``).
    """
    return list_files_and_bases(paths, glob_filter)[0]


def list_files_and_bases(paths: Iterable[str], glob_filter: str | None = None,
                         base_path: str | None = None) -> tuple[list[str], list[str]]:
    """``(files, base paths)``: the files as :func:`list_files`, and where partition folders start."""
    seen = set()
    out: list[str] = []
    bases: list[str] = []
    for raw in paths:
        path = local_path(raw)
        if os.path.exists(path):
            matches = [path]
        elif glob.has_magic(path):
            matches = sorted(glob.glob(path))
            if not matches:
                raise FileNotFoundError(f"[PATH_NOT_FOUND] Path does not exist: {raw}")
        else:
            raise FileNotFoundError(f"[PATH_NOT_FOUND] Path does not exist: {raw}")
        for m in matches:
            is_dir = os.path.isdir(m)
            bases.append(os.path.abspath(m if is_dir else os.path.dirname(os.path.abspath(m))))
            found = _walk(m) if is_dir else [m]
            for f in found:
                if glob_filter and not fnmatch.fnmatchcase(os.path.basename(f), glob_filter):
                    continue
                key = os.path.abspath(f)
                if key not in seen:
                    seen.add(key)
                    out.append(key)
    if base_path:
        root = os.path.abspath(local_path(base_path))
        outside = [f for f in out if os.path.commonpath([root, f]) != root]
        if outside:
            raise ValueError(f"pqcore: basePath {base_path!r} is not a parent of {outside[0]!r}")
        bases = [root]
    return out, bases
