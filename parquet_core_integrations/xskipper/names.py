"""Names in an xskipper metadata store: index columns, table and file identifiers, directories.

* Index column names (v2+): each source column ``c`` is escaped as
  ``c.replace("#", "##").replace(".", "$#$")``; the name is the escaped
  columns joined by ``_``, then ``_<index name>_``, then their lengths (in
  UTF-16 code units, as Java counts) joined by ``-``.  v1 joined the raw
  columns with ``_``; v0 with ``:``; neither had the lengths.
* Table identifier of a dataset path: the path part of the URI only (scheme
  and authority dropped), duplicate slashes collapsed, one trailing ``/``
  removed; nothing is percent-decoded.
* The metadata directory is ``<base>/<sha256 hex of the identifier>``.
* A data file's id is ``<path part of its URI>#<modification time in ms>``.
"""

from __future__ import annotations

import hashlib
import os
import re

__all__ = ["CURRENT_VERSION", "column_name", "file_id", "metadata_dir", "split_file_id", "table_identifier",
           "uri_path"]

CURRENT_VERSION = 4
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _java_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def column_name(cols: list[str], index_name: str, version: int = CURRENT_VERSION) -> str:
    """The metadata column of an index over *cols* (already lower-cased) in format *version*."""
    if not cols:
        raise ValueError("an index needs at least one column")
    if version == 0:
        return ":".join(cols) + "_" + index_name
    if version == 1:
        return "_".join(cols) + "_" + index_name
    if 2 <= version <= CURRENT_VERSION:
        escaped = [c.replace("#", "##").replace(".", "$#$") for c in cols]
        return "_".join(escaped) + "_" + index_name + "_" + "-".join(str(_java_len(c)) for c in escaped)
    raise ValueError(f"metadata version {version} is not between 0 and {CURRENT_VERSION}")


def uri_path(uri: str) -> str:
    """The path part of *uri* (``s3a://b/x/`` -> ``/x/``, ``file:/tmp/d`` -> ``/tmp/d``)."""
    m = _SCHEME.match(uri)
    if m and not re.match(r"^[A-Za-z]:[\\/]", uri):  # not a Windows drive letter
        rest = uri[m.end():]
        if rest.startswith("//"):
            slash = rest.find("/", 2)
            rest = rest[slash:] if slash >= 0 else ""
        uri = rest
    uri = re.sub(r"/{2,}", "/", uri)
    return uri


def table_identifier(dataset_path: str) -> str:
    """xskipper's default identifier of a dataset path (see the module docstring)."""
    path = uri_path(dataset_path)
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return path


def metadata_dir(md_base: str, dataset_path: str) -> str:
    """``<md_base>/<sha256 hex of the table identifier>``."""
    digest = hashlib.sha256(table_identifier(dataset_path).encode("utf-8")).hexdigest()
    return os.path.join(md_base, digest)


def file_id(path: str, mtime_ms: int | None = None) -> str:
    """``<path>#<mtime ms>``; *mtime_ms* defaults to the local file's modification time."""
    if mtime_ms is None:
        mtime_ms = os.stat(path).st_mtime_ns // 1_000_000
    return f"{uri_path(path)}#{int(mtime_ms)}"


def split_file_id(fid: str) -> tuple[str, int | None]:
    """``(path, mtime ms)`` of a file id (``None`` when it carries no ``#<digits>`` suffix)."""
    path, sep, tail = fid.rpartition("#")
    if sep and tail.isdigit():
        return path, int(tail)
    return fid, None
