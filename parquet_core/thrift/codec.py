"""Read and write Parquet metadata structs with the Thrift compact protocol.

Every metadata structure of a Parquet file (the footer ``FileMetaData``, page
headers, column and offset indexes, Bloom filter headers, crypto metadata) is
a Thrift struct serialized with the *compact* protocol.  Its layout, briefly:

* A struct is a run of fields closed by a single ``0x00`` stop byte.  Each
  field starts with a header byte: the high nibble is the field id minus the
  previous field id (1..15), the low nibble is the wire type.  When the id
  jump does not fit in a nibble, the high nibble is 0 and the full id follows
  as a zigzag varint.
* Booleans that are struct fields live entirely in the type nibble (1 = true,
  2 = false); inside containers they take one byte each.
* ``i16``/``i32``/``i64`` (and enums) are zigzag-encoded ULEB128 varints,
  ``i8`` is one raw byte, ``double`` is 8 little-endian bytes.
* ``binary``/``string`` is a varint byte length followed by the bytes.
* A list or set starts with one byte: element count in the high nibble (15
  means "a varint count follows") and element type in the low nibble.
* A union is encoded exactly like a struct with at most one field set.

Nothing in the encoding says how long a struct is, so :func:`parse` reports
how many bytes it consumed; a page header, for example, is immediately
followed by the page body.

Because a length read from a corrupt or hostile file could claim gigabytes,
:func:`parse` never lets a string or container claim more elements than there
are bytes left in the input (every compact element takes at least one byte),
and every decoding failure is reported as
:class:`~parquet_core.errors.ParquetFormatError`.  Unknown field ids and
unknown union members are skipped, as the format requires.

The C extension ``thrift.protocol.fastbinary`` is used when it is importable;
otherwise the pure Python protocol does the same work, about five to ten
times more slowly.  The two agree on every well-formed input.  On malformed
input both raise, with two known exceptions in the C decoder, which are
harmless for memory but can turn garbage into a "successful" parse:

* it reads the varint of an ``i32`` value or of a length with at most five
  bytes and silently drops bits above 32, so ``2**32 + 5`` becomes ``5``
  (the pure path here rejects any value outside the declared width);
* its size limits are fixed when decoding starts, so a claim is compared with
  the whole window rather than with the bytes left at that point.

Invalid UTF-8 in ``string`` fields is replaced with U+FFFD on both paths.
"""

from __future__ import annotations

import struct
from typing import Any, Final, Protocol, TypeVar

from thrift.protocol.TCompactProtocol import TCompactProtocol, TCompactProtocolAccelerated
from thrift.protocol.TProtocol import checkIntegerLimits
from thrift.Thrift import TException
from thrift.transport.TTransport import TMemoryBuffer

from parquet_core.errors import ParquetFormatError

try:  # pragma: no cover - depends on how thrift was installed
    from thrift.protocol import fastbinary as _fastbinary  # noqa: F401
except ImportError:  # pragma: no cover
    HAVE_ACCELERATED: bool = False
else:
    HAVE_ACCELERATED = True

__all__ = ["HAVE_ACCELERATED", "DECODE_ERRORS", "Buffer", "parse", "serialize", "check_required"]


class _ThriftStruct(Protocol):
    """A (generated) Thrift struct class: made with no arguments, then read from a protocol."""

    def read(self, iprot: Any) -> None: ...


T = TypeVar("T", bound=_ThriftStruct)

#: Anything :func:`parse` accepts as input.
Buffer = bytes | bytearray | memoryview

#: Inputs that are not ``bytes`` must be copied before decoding (the transport
#: needs an ``io.BytesIO``).  To keep repeated header parses over one large
#: buffer cheap, only this many bytes are copied on the first attempt; the
#: whole remaining window is used only if that attempt fails.
_FIRST_WINDOW: Final = 64 * 1024

#: Decoding failures that mean "these bytes are not a valid struct".  Both
#: protocol implementations raise a mix of these on malformed input:
#: TProtocolException/TTransportException (limits, bad types, depth),
#: EOFError (truncation), struct.error (short double), KeyError/IndexError
#: (an undefined compact type code), AssertionError (the pure protocol's
#: state checks), OverflowError/ValueError/TypeError (out-of-range lengths,
#: unknown type codes in the C decoder; ValueError also covers
#: UnicodeDecodeError) and RecursionError (pathological nesting).
DECODE_ERRORS: Final = (
    TException,
    EOFError,
    struct.error,
    ValueError,  # includes UnicodeDecodeError
    TypeError,
    KeyError,
    IndexError,
    AssertionError,
    OverflowError,
    RecursionError,
)


class _BoundedCompactProtocol(TCompactProtocol):
    """Pure Python compact protocol that checks claimed sizes against the input.

    The stock protocol compares a claimed string or container size with a
    fixed limit.  This subclass compares it with the bytes actually left
    before the end of the window, which is exact and never larger.  It also
    decodes ``string`` fields leniently, as the C extension does, and rejects
    integers wider than their declared type.
    """

    def __init__(self, trans: TMemoryBuffer, end: int) -> None:
        super().__init__(trans, string_length_limit=None, container_length_limit=None)
        self._end = end

    def _check_claim(self, length: int) -> None:
        left = self._end - self.trans.cstringio_buf.tell()
        self._check_length(left, length)

    _check_string_length = _check_claim
    _check_container_length = _check_claim

    def readString(self) -> str:  # noqa: N802 - thrift's method name
        # Match fastbinary, which substitutes U+FFFD for invalid UTF-8
        # instead of failing; some writers store non-UTF-8 metadata.  This
        # also lets skip() pass over unknown binary fields holding non-UTF-8.
        return self.readBinary().decode("utf-8", errors="replace")

    # The stock pure protocol returns whatever the varint holds, so an i32
    # field could come back as 2**40.  Reject values outside the declared
    # width instead.
    def readI16(self) -> int:  # noqa: N802
        value: int = super().readI16()
        checkIntegerLimits(value, 16)
        return value

    def readI32(self) -> int:  # noqa: N802
        value: int = super().readI32()
        checkIntegerLimits(value, 32)
        return value

    def readI64(self) -> int:  # noqa: N802
        value: int = super().readI64()
        checkIntegerLimits(value, 64)
        return value


def _resolve_accelerated(requested: bool | None) -> bool:
    """Turn the ``accelerated`` argument into a definite choice."""
    if requested is None:
        return HAVE_ACCELERATED
    if requested and not HAVE_ACCELERATED:
        raise RuntimeError("thrift's fastbinary C extension is not available")
    return requested


def _window_bytes(buf: bytes | memoryview, offset: int, end: int) -> tuple[bytes, int]:
    """Return ``(data, start)`` such that ``data[start:]`` begins the struct.

    ``bytes`` input is shared, not copied; a (flat, unsigned byte) memoryview
    is copied from *offset* to *end*.
    """
    if isinstance(buf, bytes):
        return buf, offset
    return buf[offset:end].tobytes(), 0


def _decode(data: bytes, start: int, window: int, cls: type[T], accelerated: bool) -> tuple[T, int]:
    """Decode one *cls* from ``data[start:]``, reading at most *window* bytes."""
    trans = TMemoryBuffer(data, start)
    if accelerated:
        # fastbinary reads both limits from these attributes once, when it
        # starts decoding, so they bound claims by the whole window.
        proto: TCompactProtocol = TCompactProtocolAccelerated(
            trans,
            string_length_limit=window,
            container_length_limit=window,
            fallback=False,
        )
    else:
        proto = _BoundedCompactProtocol(trans, start + window)
    obj = cls()
    obj.read(proto)
    consumed = trans.cstringio_buf.tell() - start
    if consumed > window:
        # Only possible when shared ``bytes`` extend past the caller's limit.
        raise EOFError(f"struct needs {consumed} bytes, only {window} allowed")
    return obj, consumed


def parse(
    buf: Buffer,
    cls: type[T],
    *,
    offset: int = 0,
    limit: int | None = None,
    accelerated: bool | None = None,
) -> tuple[T, int]:
    """Decode one compact-protocol struct from a buffer.

    Parameters
    ----------
    buf : bytes, bytearray or memoryview
        Input bytes.  ``bytes`` are used in place; other buffers are copied
        (a bounded window first, see the module notes).
    cls : type
        Generated struct class to decode, e.g. ``pt.FileMetaData``.
    offset : int, default 0
        Position in *buf* where the struct starts.
    limit : int or None, default None
        Largest number of bytes the struct may occupy, counted from
        *offset*.  ``None`` (or a value past the end) means "up to the end of
        *buf*".
    accelerated : bool or None, default None
        Use the C ``fastbinary`` decoder (``True``), the pure Python one
        (``False``), or the C one when available (``None``).

    Returns
    -------
    tuple of (object, int)
        The decoded struct and the number of bytes it occupied.

    Raises
    ------
    ParquetFormatError
        The bytes are truncated or malformed, or claim a string or container
        larger than the bytes that remain.
    ValueError
        *offset* or *limit* is negative, or *offset* is past the end of *buf*.
    RuntimeError
        ``accelerated=True`` but the C extension is not installed.
    """
    # ``bytes`` are decoded in place; anything else is viewed as flat bytes
    # (this also makes offsets count bytes for non-byte memoryviews).
    source: bytes | memoryview = buf if type(buf) is bytes else memoryview(buf).cast("B")
    size = len(source)
    try:
        if offset < 0 or offset > size:
            raise ValueError(f"offset {offset} outside a buffer of {size} bytes")
        if limit is not None and limit < 0:
            raise ValueError(f"limit must not be negative, got {limit}")
        use_c = _resolve_accelerated(accelerated)
        window = size - offset if limit is None else min(limit, size - offset)
        try:
            if isinstance(source, memoryview) and window > _FIRST_WINDOW:
                # Most structs (page headers above all) are small: try a
                # cheap prefix before copying a possibly huge remainder.
                try:
                    data, start = _window_bytes(source, offset, offset + _FIRST_WINDOW)
                    return _decode(data, start, _FIRST_WINDOW, cls, use_c)
                except DECODE_ERRORS:
                    pass
            data, start = _window_bytes(source, offset, offset + window)
            return _decode(data, start, window, cls, use_c)
        except DECODE_ERRORS as exc:
            reason = str(exc) or type(exc).__name__
            raise ParquetFormatError(
                f"cannot decode thrift {cls.__name__} at offset {offset}: {reason}"
            ) from exc
    finally:
        if isinstance(source, memoryview):
            source.release()


def serialize(obj: Any, *, accelerated: bool | None = None) -> bytes:
    """Encode a generated struct with the compact protocol.

    Parameters
    ----------
    obj : object
        An instance of a generated struct class, e.g. ``pt.PageHeader``.
    accelerated : bool or None, default None
        As for :func:`parse`.

    Returns
    -------
    bytes
        The encoded struct, stop byte included.

    Raises
    ------
    ValueError
        A value does not fit its declared type (e.g. an ``i32`` overflow).
    TypeError
        A field holds a value of the wrong Python type.

    Notes
    -----
    Unset (``None``) fields are simply left out, including required ones;
    call :func:`check_required` first to catch incomplete metadata.

    The C encoder is more forgiving than the pure one: it accepts ``bytes``
    for ``string`` fields and ``str`` (encoded as UTF-8) for ``binary``
    fields, where the pure encoder raises :class:`TypeError`.  Pass the
    declared types to get the same result on both paths.
    """
    accelerated = _resolve_accelerated(accelerated)
    cls = type(obj)
    name = cls.__name__
    spec = getattr(cls, "thrift_spec", None) if accelerated else None
    try:
        if spec is not None:
            # what a generated struct's write() does on the accelerated protocol, without
            # making a buffer and a protocol for it (a page header is serialized per page)
            return _fastbinary.encode_compact(obj, [cls, spec])
        trans = TMemoryBuffer()
        proto = TCompactProtocolAccelerated(trans, fallback=False) if accelerated else TCompactProtocol(trans)
        obj.write(proto)
    except (TException, struct.error, OverflowError) as exc:
        raise ValueError(f"cannot encode thrift {name}: {exc}") from exc
    except AttributeError as exc:
        # e.g. ``None`` or a plain value where a struct is expected
        raise TypeError(f"cannot encode thrift {name}: {exc}") from exc
    return trans.getvalue()


def check_required(obj: Any) -> None:
    """Check that every required field is set, recursively.

    The generated ``validate()`` methods only look at their own struct; this
    walks all nested structs and lists of structs as well.

    Parameters
    ----------
    obj : object
        A generated struct instance.

    Raises
    ------
    ParquetFormatError
        A required field is missing; the message names the path to it.

    Notes
    -----
    Meant for metadata just read from a file, hence the error type.  The
    walk is in Python and costs roughly half as much as decoding the same
    footer with the C extension, so :func:`parse` does not do it for you.
    """
    _check_required(obj, type(obj).__name__)


def _check_required(obj: Any, path: str) -> None:
    try:
        obj.validate()
    except TException as exc:
        raise ParquetFormatError(f"{path}: {exc}") from exc
    for field in obj.thrift_spec:
        if field is None:
            continue
        value = getattr(obj, field[2])
        if value is None:
            continue
        if hasattr(value, "thrift_spec"):
            _check_required(value, f"{path}.{field[2]}")
        elif isinstance(value, list) and value and hasattr(value[0], "thrift_spec"):
            for i, item in enumerate(value):
                _check_required(item, f"{path}.{field[2]}[{i}]")
