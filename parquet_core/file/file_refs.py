"""Resolve a FILE value (LogicalTypes.md, "FILE") to the bytes it refers to.

A FILE value is a dict with some of ``uri``, ``offset``, ``size``,
``content_type``, ``checksum`` and ``inline`` (see
:mod:`parquet_core.schema.file_ref`).  Which bytes it names depends on which
locator fields are *set* (non-null; a string field must also be non-empty)::

    inline  uri  offset  size   bytes
    ------  ---  ------  ----   ---------------------------------------------
    set     any  any     any    the inline bytes (locators are provenance only)
    -       set  -       -      the whole object at uri
    -       set  -       set    uri, [0, size)
    -       set  set     set    uri, [offset, offset + size)
    -       -    set     set    this Parquet file, [offset, offset + size)
    anything else               invalid (offset without size, size alone, nothing)

``checksum`` is ``<ALGORITHM>:<digest>``; MD5, CRC32, CRC32C and SHA-256
digests (lowercase hex) are recomputed over the resolved bytes.  ETAG is an
object-store token that cannot be recomputed, and unknown algorithms are
ignored, both as the spec says.

Choices the spec leaves open: a relative ``uri`` is resolved against the
Parquet file's own location (RFC 3986 reference resolution with the file as
the base), and needs that location; ``file:`` URIs and plain paths are read
directly, any other scheme through ``fsspec`` (an optional dependency).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from typing import Any, Callable, Mapping
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

from parquet_core.errors import (
    CodecUnavailableError,
    ParquetError,
    ParquetFormatError,
    UnsupportedFeatureError,
    quoted,
)
from parquet_core.file.source import open_regular_file

__all__ = ["resolve_file_ref", "verify_checksum"]


def _set(value: Mapping[str, Any], name: str) -> Any:
    v = value.get(name)
    if v is None or (isinstance(v, str) and v == ""):
        return None
    return v


def _crc32c_hex(data: bytes) -> str:
    try:
        import crc32c
    except ImportError:
        raise CodecUnavailableError("CRC32C (file checksums)", "crc32c") from None
    return f"{crc32c.crc32c(data) & 0xFFFFFFFF:08x}"


#: Recomputable checksum algorithms (LogicalTypes.md, FILE, "checksum"), lowercase hex.
_DIGESTS: dict[str, Callable[[bytes], str]] = {
    "MD5": lambda b: hashlib.md5(b).hexdigest(),
    "CRC32": lambda b: f"{zlib.crc32(b) & 0xFFFFFFFF:08x}",
    "CRC32C": _crc32c_hex,
    "SHA-256": lambda b: hashlib.sha256(b).hexdigest(),
}


def verify_checksum(data: bytes, checksum: str | None) -> bool:
    """Check *data* against a FILE ``checksum``; True when it was checked.

    Returns False (nothing checked) for no checksum, ``ETAG`` and unknown
    algorithms.

    Raises
    ------
    ParquetFormatError
        When the recomputed digest differs, or the token has no ``:``.
    """
    if not checksum:
        return False
    algo, sep, digest = checksum.partition(":")
    if not sep:
        raise ParquetFormatError(f"FILE checksum {quoted(checksum)} is not '<algorithm>:<digest>'")
    compute = _DIGESTS.get(algo.upper())
    if compute is None:
        return False
    actual = compute(bytes(data))
    if actual != digest.strip().lower():
        raise ParquetFormatError(
            f"FILE checksum mismatch: {quoted(algo)}:{actual} computed, {quoted(checksum)} stored")
    return True


def _self_bytes(source: Any, offset: int, size: int) -> bytes:
    """[offset, offset + size) of the Parquet file itself."""
    src = getattr(source, "_source", None)  # a ParquetFile: reuse its open source
    if src is None:
        from parquet_core.file.source import open_source

        src, owned = open_source(source)
    else:
        owned = False
    try:
        if offset + size > src.size:
            raise ParquetFormatError(
                f"FILE self-reference [{offset}, {offset + size}) lies outside the file "
                f"({src.size} bytes)")
        return bytes(src.read_at(offset, size))
    finally:
        if owned:
            src.close()


def _base_uri(source: Any) -> str | None:
    path = getattr(source, "_path", None) if not isinstance(source, (str, os.PathLike)) \
        else os.fspath(source)
    if not isinstance(path, str):
        return None
    if "://" in path:
        return path
    return "file://" + os.path.abspath(path).replace(os.sep, "/")


def _join(base: str, ref: str) -> str:
    """RFC 3986 reference resolution for any scheme.

    ``urljoin`` only resolves against schemes it lists (http, file...), and
    returns *ref* unchanged for ``s3://`` or ``memory://`` bases; the
    algorithm does not depend on the scheme, so run it under ``http`` and
    put the real scheme back.
    """
    scheme, sep, rest = base.partition("://")
    if not sep:
        return urljoin(base, ref)
    joined = urljoin("http://" + rest, ref)
    return scheme + joined[len("http"):]


def _external_bytes(uri: str, offset: int, size: int | None, source: Any,
                    filesystem: Any) -> bytes:
    parsed = urlparse(uri)
    if not parsed.scheme or len(parsed.scheme) == 1:    # relative, or a Windows drive letter
        base = _base_uri(source)
        if base is None:
            raise ValueError(f"FILE uri {quoted(uri)} is relative: pass the Parquet file's path as "
                             "source so it can be resolved")
        uri = _join(base, uri)
        parsed = urlparse(uri)
    if filesystem is not None:
        opener = lambda: filesystem.open(parsed.path if parsed.scheme == "file" else uri, "rb")  # noqa: E731
    elif parsed.scheme == "file":
        path = url2pathname(parsed.path)
        opener = lambda: os.fdopen(open_regular_file(path)[1], "rb")  # noqa: E731 - never a FIFO or device
    else:
        try:
            import fsspec
        except ImportError:
            raise UnsupportedFeatureError(
                f"reading FILE uri {quoted(uri)} needs fsspec: pip install fsspec") from None
        opener = lambda: fsspec.open(uri, "rb").open()  # noqa: E731
    try:
        with opener() as f:
            f.seek(offset)
            data = f.read() if size is None else f.read(size)
    except OSError as exc:
        # not a ParquetFormatError: an I/O failure is no invalid value, invalid="null" must not hide it
        raise ParquetError(f"FILE uri {quoted(uri)} cannot be read: {exc}") from exc
    if size is not None and len(data) != size:
        raise ParquetFormatError(f"FILE uri {quoted(uri)}: range [{offset}, {offset + size}) "
                                 f"runs past the end of the object ({len(data)} bytes read)")
    return bytes(data)


def resolve_file_ref(value: Mapping[str, Any] | None, source: Any = None, *,
                     filesystem: Any = None, check: bool = True,
                     invalid: str = "raise") -> bytes | None:
    """Return the bytes a FILE value refers to (see the module docstring).

    Parameters
    ----------
    value:
        One FILE value as read (a dict; members a group does not define may
        be missing), or ``None`` for a null value (returns ``None``).
    source:
        The Parquet file the value came from (a path or a
        :class:`~parquet_core.ParquetFile`): needed for self-references and
        relative URIs.
    filesystem:
        An fsspec-style filesystem to open URIs with, instead of choosing one
        by scheme.
    check:
        Verify ``checksum`` when it names a recomputable algorithm.
    invalid:
        ``"raise"`` (default) or ``"null"``: what to do with a value that
        resolves to nothing (the spec lets readers return null for it).

    Raises
    ------
    ParquetFormatError
        For an invalid value, a negative offset or size, a range outside the
        referenced data, or a checksum mismatch.
    UnsupportedFeatureError
        When a URI needs fsspec and it is not installed.
    """
    if invalid not in ("raise", "null"):
        raise ValueError(f"invalid must be 'raise' or 'null', got {invalid!r}")
    if value is None:
        return None
    inline, uri = _set(value, "inline"), _set(value, "uri")
    offset, size = _set(value, "offset"), _set(value, "size")
    try:
        if offset is not None and offset < 0:
            raise ParquetFormatError(f"FILE offset {offset} is negative")
        if size is not None and size < 0:
            raise ParquetFormatError(f"FILE size {size} is negative")
        if inline is not None:
            data = bytes(inline)
        elif offset is not None and size is None:
            raise ParquetFormatError("FILE value sets offset without size")
        elif uri is not None:
            data = _external_bytes(str(uri), offset or 0, size, source, filesystem)
        elif offset is not None:
            if source is None:
                raise ValueError("a FILE self-reference needs the Parquet file as source")
            data = _self_bytes(source, int(offset), int(size))
        else:
            raise ParquetFormatError("FILE value sets none of inline, uri and offset")
    except ParquetFormatError:
        if invalid == "null":
            return None
        raise
    if check:
        verify_checksum(data, _set(value, "checksum"))
    return data
