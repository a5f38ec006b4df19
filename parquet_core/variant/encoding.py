"""Variant binary encoding: ``metadata`` + ``value`` bytes <-> Python values.

Spec: parquet-format ``VariantEncoding.md``.  A Variant is two byte strings.
The *metadata* holds the dictionary of object keys::

    header   1 byte   bits 0-3 version (1), bit 4 sorted_strings,
                      bits 6-7 offset_size - 1 (bit 5 reserved)
    dictionary_size   offset_size bytes, little-endian
    offsets           (dictionary_size + 1) x offset_size bytes
    bytes             the UTF-8 keys, back to back

The *value* starts with one byte, ``basic_type | value_header << 2``::

    basic_type 0  primitive      header = type id (table in the spec, 0..20)
    basic_type 1  short string   header = length (0..63), then the UTF-8 bytes
    basic_type 2  object         header = is_large << 4 | id_size-1 << 2 | offset_size-1
                  num_elements (1 or 4 bytes), field ids, num_elements + 1 offsets, values
    basic_type 3  array          header = is_large << 2 | offset_size-1
                  num_elements (1 or 4 bytes), num_elements + 1 offsets, values

Python values, both ways:

=================================  ==========================================
Variant                            Python
=================================  ==========================================
null                               :data:`NULL` (``None`` is SQL NULL)
boolean                            ``bool``
int8, int16, int32, int64          ``int`` (encode picks the narrowest)
double / float                     ``float`` (encode: double; ``numpy.float32``
                                   encodes as float)
decimal4 / decimal8 / decimal16    ``decimal.Decimal`` (encode: by digits/scale;
                                   ``int`` beyond int64 becomes decimal16)
date                               ``datetime.date``
timestamp / timestamp ntz (us)     ``datetime`` aware (UTC) / naive
timestamp / timestamp ntz (ns)     ``datetime`` or :class:`NanoDatetime`
time ntz (us)                      ``datetime.time``
binary                             ``bytes``
string / short string              ``str``
uuid                               ``uuid.UUID``
object                             ``dict`` (str keys, in key order)
array                              ``list`` (encode also takes ``tuple``)
=================================  ==========================================

Edge cases handled: empty metadata dictionary (``01 00 00``), empty objects
and arrays, ``is_large`` and 1..4-byte ids and offsets, object values stored
out of key order, timestamps outside ``datetime``'s years (returned as
:class:`RawTemporal`, as elsewhere in the engine), unknown primitive type ids
(:class:`UnsupportedFeatureError`), duplicate keys and every out-of-bounds
length or offset (:class:`ParquetFormatError`).

Decoding a value is a walk over its bytes, one Python call per nested
value: a Variant is self-describing per row (every row may have another
shape), so there is no column-wide layout to vectorise over.  The column
level work that *can* be shared is: metadata dictionaries are parsed once
per distinct metadata byte string (see :func:`decode_column`).
"""

from __future__ import annotations

import datetime as _dt
import struct
import uuid as _uuid
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import Any, Callable, Sequence

import numpy as np

from parquet_core.errors import ParquetFormatError, UnsupportedFeatureError
from parquet_core.schema.temporal import times_to_py, timestamps_to_py

__all__ = ["NULL", "VariantNull", "decode", "decode_metadata", "decode_value", "encode",
           "encode_metadata", "encode_value", "collect_keys", "MAX_DEPTH"]

_DEC_CTX = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
#: Deepest nesting of arrays/objects decoded or encoded (guards the recursion).
MAX_DEPTH = 500
_VERSION = 1
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _EPOCH.replace(tzinfo=_dt.timezone.utc)
_US = _dt.timedelta(microseconds=1)


class VariantNull:
    """The Variant null (``00``): a present value that is null, unlike SQL NULL (``None``)."""

    __slots__ = ()
    _instance: VariantNull | None = None

    def __new__(cls) -> VariantNull:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "VariantNull"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> Any:
        return (VariantNull, ())


#: The one Variant null value.
NULL = VariantNull()


def _err(msg: str) -> ParquetFormatError:
    return ParquetFormatError(f"malformed variant: {msg}")


def _uint(buf: bytes, pos: int, size: int, end: int, what: str) -> int:
    if pos < 0 or pos + size > end:
        raise _err(f"{what} at byte {pos} runs past the end ({end} bytes)")
    return int.from_bytes(buf[pos:pos + size], "little")


# ---------------------------------------------------------------------------
# metadata

def decode_metadata(metadata: bytes) -> tuple[str, ...]:
    """Return the key dictionary of a Variant *metadata* byte string.

    Raises
    ------
    ParquetFormatError
        Truncated header, sizes or offsets; offsets out of order or out of
        bounds; keys that are not UTF-8.
    UnsupportedFeatureError
        A metadata version other than 1.
    """
    buf = bytes(metadata)
    n = len(buf)
    if n == 0:
        raise _err("empty metadata")
    header = buf[0]
    if header & 0x0F != _VERSION:
        raise UnsupportedFeatureError(f"variant metadata version {header & 0x0F} (only 1 is supported)")
    osize = (header >> 6) + 1
    count = _uint(buf, 1, osize, n, "dictionary size")
    start = 1 + osize * (count + 2)
    if start > n:
        raise _err(f"dictionary of {count} keys needs {start} bytes, metadata has {n}")
    offs = np.frombuffer(buf, dtype=np.uint8, count=osize * (count + 1), offset=1 + osize)
    offs = offs.reshape(count + 1, osize).astype(np.int64)
    offs = (offs << (8 * np.arange(osize, dtype=np.int64))).sum(axis=1)
    if offs[0] != 0 or np.any(np.diff(offs) < 0) or start + int(offs[-1]) > n:
        raise _err("metadata offsets are not ascending from 0 within the metadata")
    try:
        return tuple(buf[start + a:start + b].decode("utf-8")
                     for a, b in zip(offs[:-1].tolist(), offs[1:].tolist()))
    except UnicodeDecodeError as exc:
        raise _err("metadata key is not UTF-8") from exc


def _size_for(n: int) -> int:
    return 1 if n < 1 << 8 else 2 if n < 1 << 16 else 3 if n < 1 << 24 else 4


def encode_metadata(keys: Sequence[str]) -> bytes:
    """Encode a key dictionary (flagged sorted when *keys* are sorted and unique)."""
    raw = [k.encode("utf-8") for k in keys]
    total = sum(len(r) for r in raw)
    osize = _size_for(max(total, len(raw)))
    sorted_flag = all(a < b for a, b in zip(raw, raw[1:]))
    out = bytearray([_VERSION | (sorted_flag << 4) | ((osize - 1) << 6)])
    out += len(raw).to_bytes(osize, "little")
    pos = 0
    out += pos.to_bytes(osize, "little")
    for r in raw:
        pos += len(r)
        out += pos.to_bytes(osize, "little")
    for r in raw:
        out += r
    return bytes(out)


# ---------------------------------------------------------------------------
# value decoding

def _ts(raw: int, unit: str, tz: str | None) -> Any:
    return timestamps_to_py(np.array([raw], dtype=np.int64), unit, tz)[0]


def _date(days: int) -> Any:
    if -719162 <= days <= 2932896:
        return _dt.date(1970, 1, 1) + _dt.timedelta(days=days)
    return days


def _decimal(buf: bytes, pos: int, end: int, width: int) -> Decimal:
    scale = _uint(buf, pos, 1, end, "decimal scale")
    if scale > 38:
        raise _err(f"decimal scale {scale} is above 38")
    unscaled = int.from_bytes(buf[pos + 1:pos + 1 + width], "little", signed=True)
    return Decimal(unscaled).scaleb(-scale, _DEC_CTX)


# primitive type id -> (payload bytes, converter of the little-endian payload)
_FIXED: dict[int, tuple[int, Callable[[bytes], Any]]] = {
    3: (1, lambda b: int.from_bytes(b, "little", signed=True)),
    4: (2, lambda b: int.from_bytes(b, "little", signed=True)),
    5: (4, lambda b: int.from_bytes(b, "little", signed=True)),
    6: (8, lambda b: int.from_bytes(b, "little", signed=True)),
    7: (8, lambda b: struct.unpack("<d", b)[0]),
    11: (4, lambda b: _date(int.from_bytes(b, "little", signed=True))),
    12: (8, lambda b: _ts(int.from_bytes(b, "little", signed=True), "us", "UTC")),
    13: (8, lambda b: _ts(int.from_bytes(b, "little", signed=True), "us", None)),
    14: (4, lambda b: struct.unpack("<f", b)[0]),
    17: (8, lambda b: times_to_py(np.array([int.from_bytes(b, "little", signed=True)]), "us")[0]),
    18: (8, lambda b: _ts(int.from_bytes(b, "little", signed=True), "ns", "UTC")),
    19: (8, lambda b: _ts(int.from_bytes(b, "little", signed=True), "ns", None)),
    20: (16, lambda b: _uuid.UUID(bytes=bytes(b))),
}
_DECIMAL_WIDTH = {8: 4, 9: 8, 10: 16}


class _Decoder:
    """Walks one value; ``keys`` is the metadata dictionary."""

    __slots__ = ("buf", "keys", "null")

    def __init__(self, buf: bytes, keys: Sequence[str], null: Any) -> None:
        self.buf, self.keys, self.null = buf, keys, null

    def value(self, pos: int, end: int, depth: int) -> Any:
        buf = self.buf
        if pos >= end:
            raise _err(f"value at byte {pos} is empty")
        head = buf[pos]
        basic, hdr = head & 3, head >> 2
        if basic == 1:
            if pos + 1 + hdr > end:
                raise _err(f"short string of {hdr} bytes at byte {pos} runs past the end")
            return self.text(pos + 1, hdr)
        if basic == 0:
            return self.primitive(hdr, pos + 1, end)
        if depth >= MAX_DEPTH:
            raise _err(f"nested deeper than {MAX_DEPTH} levels")
        if basic == 2:
            return self.object(hdr, pos + 1, end, depth)
        return self.array(hdr, pos + 1, end, depth)

    def text(self, pos: int, size: int) -> str:
        try:
            return self.buf[pos:pos + size].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _err(f"string at byte {pos} is not UTF-8") from exc

    def primitive(self, tid: int, pos: int, end: int) -> Any:
        if tid == 0:
            return self.null
        if tid in (1, 2):
            return tid == 1
        fixed = _FIXED.get(tid)
        if fixed is not None:
            size, conv = fixed
            if pos + size > end:
                raise _err(f"primitive type {tid} needs {size} bytes at byte {pos}")
            return conv(self.buf[pos:pos + size])
        if tid in _DECIMAL_WIDTH:
            width = _DECIMAL_WIDTH[tid]
            if pos + 1 + width > end:
                raise _err(f"decimal{width} needs {1 + width} bytes at byte {pos}")
            return _decimal(self.buf, pos, end, width)
        if tid in (15, 16):
            size = _uint(self.buf, pos, 4, end, "length")
            if pos + 4 + size > end:
                raise _err(f"{'binary' if tid == 15 else 'string'} of {size} bytes at byte {pos} "
                           "runs past the end")
            if tid == 15:
                return self.buf[pos + 4:pos + 4 + size]
            return self.text(pos + 4, size)
        raise UnsupportedFeatureError(f"variant primitive type id {tid} is not known to this reader")

    def _layout(self, pos: int, end: int, large: bool, id_size: int, off_size: int,
                what: str) -> tuple[int, list[int], list[int], int]:
        """Parse count, ids and offsets; return (count, ids, offsets, first value byte)."""
        buf = self.buf
        count = _uint(buf, pos, 4 if large else 1, end, f"{what} size")
        pos += 4 if large else 1
        ids_end = pos + count * id_size
        data = ids_end + (count + 1) * off_size
        if data > end:
            raise _err(f"{what} of {count} elements needs {data - pos} header bytes at byte {pos}")
        ids = [int.from_bytes(buf[p:p + id_size], "little")
               for p in range(pos, ids_end, id_size)] if id_size else []
        offs = [int.from_bytes(buf[p:p + off_size], "little") for p in range(ids_end, data, off_size)]
        if offs[-1] > end - data:
            raise _err(f"{what} data of {offs[-1]} bytes at byte {data} runs past the end")
        return count, ids, offs, data

    def object(self, hdr: int, pos: int, end: int, depth: int) -> dict[str, Any]:
        count, ids, offs, data = self._layout(pos, end, bool(hdr & 0x10), ((hdr >> 2) & 3) + 1,
                                              (hdr & 3) + 1, "object")
        limit = data + offs[-1]
        out: dict[str, Any] = {}
        nkeys = len(self.keys)
        for i in range(count):
            fid = ids[i]
            if fid >= nkeys:
                raise _err(f"object field id {fid} is not in the {nkeys}-key dictionary")
            key = self.keys[fid]
            if key in out:
                raise _err(f"object has key {key!r} twice")
            if offs[i] >= offs[-1]:
                raise _err(f"object field {key!r} offset {offs[i]} is past the data end")
            out[key] = self.value(data + offs[i], limit, depth + 1)
        return out

    def array(self, hdr: int, pos: int, end: int, depth: int) -> list[Any]:
        count, _, offs, data = self._layout(pos, end, bool(hdr & 0x04), 0, (hdr & 3) + 1, "array")
        out = []
        for i in range(count):
            if not offs[i] <= offs[i + 1]:
                raise _err(f"array element {i} has offsets {offs[i]}..{offs[i + 1]}")
            out.append(self.value(data + offs[i], data + offs[i + 1], depth + 1))
        return out


def decode_value(keys: Sequence[str], value: bytes, *, null: Any = NULL) -> Any:
    """Decode *value* bytes with an already decoded key dictionary (see :func:`decode`)."""
    buf = bytes(value)
    return _Decoder(buf, keys, null).value(0, len(buf), 0)


def decode(metadata: bytes, value: bytes, *, null: Any = NULL) -> Any:
    """Decode one Variant into a Python value (table in the module docstring).

    Parameters
    ----------
    metadata, value:
        The two byte strings of the Variant.
    null:
        What a Variant null becomes (default :data:`NULL`; pass ``None`` for JSON-like output).

    Raises
    ------
    ParquetFormatError
        Malformed bytes (truncations, bad offsets, bad UTF-8, duplicate keys).
    UnsupportedFeatureError
        Metadata version other than 1, or an unknown primitive type id.
    """
    return decode_value(decode_metadata(metadata), value, null=null)


# ---------------------------------------------------------------------------
# value encoding

def collect_keys(obj: Any, into: set[str], depth: int = 0) -> set[str]:
    """Add every object key found anywhere in *obj* to *into* and return it."""
    if depth > MAX_DEPTH:
        raise ValueError(f"variant value nested deeper than {MAX_DEPTH} levels")
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"variant object keys must be str, got {type(k).__name__}")
            into.add(k)
            collect_keys(v, into, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            collect_keys(v, into, depth + 1)
    return into


def _int_value(v: int) -> bytes:
    for tid, size in ((3, 1), (4, 2), (5, 4), (6, 8)):
        if -(1 << (8 * size - 1)) <= v < 1 << (8 * size - 1):
            return bytes([tid << 2]) + v.to_bytes(size, "little", signed=True)
    return _decimal_value(Decimal(v))


def _decimal_value(d: Decimal) -> bytes:
    sign, digits, exp = d.as_tuple()
    if not isinstance(exp, int):
        raise ValueError(f"variant decimals must be finite, got {d}")
    unscaled = int("".join(map(str, digits)) or "0")
    if exp > 0:            # 1E+3: no negative scales in Variant
        unscaled, exp = unscaled * 10 ** exp, 0
    scale = -exp
    if sign:
        unscaled = -unscaled
    precision = max(len(str(abs(unscaled))), scale)   # Spark sizes by max(precision, scale)
    if scale > 38 or precision > 38:
        raise ValueError(f"decimal {d} needs precision {precision}, scale {scale}; "
                         "Variant decimals stop at 38")
    tid, width = (8, 4) if precision <= 9 else (9, 8) if precision <= 18 else (10, 16)
    return bytes([tid << 2, scale]) + unscaled.to_bytes(width, "little", signed=True)


def _string_value(s: str) -> bytes:
    raw = s.encode("utf-8")
    if len(raw) < 64:
        return bytes([1 | len(raw) << 2]) + raw
    return bytes([16 << 2]) + len(raw).to_bytes(4, "little") + raw


def _temporal_value(v: Any) -> bytes:
    ns = getattr(v, "nanosecond", 0)
    if isinstance(v, _dt.datetime):
        # a plain copy: NanoDatetime arithmetic would carry the nanoseconds along
        v = _dt.datetime(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, v.tzinfo)
        if v.tzinfo is not None and v.utcoffset() is not None:
            us = (v - _EPOCH_UTC) // _US
            tid = 18 if ns else 12
        else:
            us = (v.replace(tzinfo=None) - _EPOCH) // _US
            tid = 19 if ns else 13
        count = us * 1000 + ns if ns else us
        return bytes([tid << 2]) + count.to_bytes(8, "little", signed=True)
    if isinstance(v, _dt.date):
        return bytes([11 << 2]) + (v - _dt.date(1970, 1, 1)).days.to_bytes(4, "little", signed=True)
    if ns:
        raise ValueError(f"{v!r}: Variant times stop at microseconds")
    us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    return bytes([17 << 2]) + us.to_bytes(8, "little", signed=True)


def _container(basic: int, count: int, ids: list[int], parts: list[bytes], id_size: int) -> bytes:
    offsets = [0]
    for p in parts:
        offsets.append(offsets[-1] + len(p))
    off_size = _size_for(offsets[-1])
    large = count > 255
    if basic == 2:
        hdr = (large << 4) | ((id_size - 1) << 2) | (off_size - 1)
    else:
        hdr = (large << 2) | (off_size - 1)
    out = bytearray([basic | hdr << 2])
    out += count.to_bytes(4 if large else 1, "little")
    for i in ids:
        out += i.to_bytes(id_size, "little")
    for o in offsets:
        out += o.to_bytes(off_size, "little")
    for p in parts:
        out += p
    return bytes(out)


def encode_value(obj: Any, key_ids: dict[str, int], depth: int = 0) -> bytes:
    """Encode *obj* as Variant value bytes; *key_ids* maps every key in it to its dictionary id.

    Raises
    ------
    TypeError
        For a Python type with no Variant equivalent.
    ValueError
        For values out of Variant's range (decimals past 38 digits, NaN
        decimals, integers past 38 digits, nanosecond times, too deep nesting).
    """
    if obj is None or obj is NULL:
        return b"\x00"
    if isinstance(obj, (bool, np.bool_)):
        return b"\x04" if obj else b"\x08"
    if isinstance(obj, (int, np.integer)):
        return _int_value(int(obj))
    if isinstance(obj, np.float32):
        return bytes([14 << 2]) + struct.pack("<f", float(obj))
    if isinstance(obj, (float, np.floating)):
        return bytes([7 << 2]) + struct.pack("<d", float(obj))
    if isinstance(obj, Decimal):
        return _decimal_value(obj)
    if isinstance(obj, str):
        return _string_value(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        raw = bytes(obj)
        return bytes([15 << 2]) + len(raw).to_bytes(4, "little") + raw
    if isinstance(obj, (_dt.date, _dt.time)):
        return _temporal_value(obj)
    if isinstance(obj, _uuid.UUID):
        return bytes([20 << 2]) + obj.bytes
    if depth >= MAX_DEPTH:
        raise ValueError(f"variant value nested deeper than {MAX_DEPTH} levels")
    if isinstance(obj, dict):
        # fields are listed in key order (UTF-8 byte order equals code point order)
        items = sorted(obj.items())
        ids = [key_ids[k] for k, _ in items]
        parts = [encode_value(v, key_ids, depth + 1) for _, v in items]
        return _container(2, len(items), ids, parts, _size_for(max(ids, default=0)))
    if isinstance(obj, (list, tuple)):
        parts = [encode_value(v, key_ids, depth + 1) for v in obj]
        return _container(3, len(parts), [], parts, 1)
    raise TypeError(f"cannot encode a {type(obj).__name__} as a Variant")


def encode(obj: Any) -> tuple[bytes, bytes]:
    """Encode a Python value as a Variant; return ``(metadata, value)``.

    The metadata dictionary holds every key of *obj*, sorted and unique.
    ``None`` and :data:`NULL` both encode as the Variant null.

    Raises
    ------
    TypeError, ValueError
        See :func:`encode_value`.
    """
    keys = sorted(collect_keys(obj, set()))
    return encode_metadata(keys), encode_value(obj, {k: i for i, k in enumerate(keys)})
