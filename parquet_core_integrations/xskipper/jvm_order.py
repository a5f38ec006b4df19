"""The element order of a ValueList cell as xskipper stores it.

xskipper collects a file's distinct values in a Scala 2.12
``mutable.HashSet`` (open addressing, 32 initial slots, load factor 0.45,
linear probing, doubled when full) and stores them in slot order.  A slot
is chosen from the element's Java ``hashCode``: ``byteswap32`` (multiply by
0x9E3775CD, reverse the bytes, multiply again), rotated right by the number
of one bits in ``slots - 1``, and its top ``log2(slots)`` bits taken.  On
growth the old slots are re-inserted in slot order.

Replaying the insertions (values in row order) gives the same order.  Java
``hashCode`` per Spark type: String (UTF-16 units, ``31*h + c``), Double
and Float (their bits), Integer/Short/Byte (the value), Long and Timestamp
millis (``v ^ v >>> 32``), Boolean (1231 / 1237), Date (UTC midnight
millis), BigDecimal (``31 * unscaled.hashCode() + scale``).  Binary values
hash by identity in the JVM, so their order is not reproducible: first seen
is kept.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
from decimal import Decimal
from typing import Any, Callable, Sequence

__all__ = ["jvm_set_order"]

_M = 0xFFFFFFFF
_EPOCH = dt.datetime(1970, 1, 1)


def _long_hash(v: int) -> int:
    u = v & 0xFFFFFFFFFFFFFFFF
    return (u ^ (u >> 32)) & _M


def _string_hash(s: str) -> int:
    raw = s.encode("utf-16-be", "surrogatepass")
    h = 0
    for (unit,) in struct.iter_unpack(">H", raw):  # Java's String.hashCode is sequential
        h = (31 * h + unit) & _M
    return h


def _double_hash(d: float) -> int:
    bits = 0x7FF8000000000000 if math.isnan(d) else struct.unpack(">Q", struct.pack(">d", d))[0]
    return _long_hash(bits)


def _float_hash(d: float) -> int:
    return 0x7FC00000 if math.isnan(d) else struct.unpack(">I", struct.pack(">f", d))[0]


def _millis(v: dt.datetime) -> int:
    if v.tzinfo is not None:
        v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    delta = v - _EPOCH
    return (delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds) // 1000


def _decimal_hash(d: Decimal, scale: int) -> int:
    unscaled = int(d.scaleb(scale))
    mag, h = abs(unscaled), 0
    words = []
    while mag:
        words.append(mag & _M)
        mag >>= 32
    for w in reversed(words):  # BigInteger.hashCode over big-endian int words
        h = (31 * h + w) & _M
    h = (h * (1 if unscaled > 0 else -1 if unscaled < 0 else 0)) & _M
    return (31 * h + scale) & _M


def _hasher(spark_type: str) -> Callable[[Any], int] | None:
    if spark_type == "string":
        return _string_hash
    if spark_type == "double":
        return _double_hash
    if spark_type == "float":
        return _float_hash
    if spark_type in ("integer", "short", "byte"):
        return lambda v: int(v) & _M
    if spark_type == "long":
        return lambda v: _long_hash(int(v))
    if spark_type == "boolean":
        return lambda v: 1231 if v else 1237
    if spark_type == "timestamp":
        return lambda v: _long_hash(_millis(v))
    if spark_type == "date":
        return lambda v: _long_hash((v - dt.date(1970, 1, 1)).days * 86_400_000)
    m = re.match(r"^decimal\((\d+),(-?\d+)\)$", spark_type or "")
    if m:
        scale = int(m.group(2))
        return lambda v: _decimal_hash(Decimal(v), scale)
    return None


def _byteswap32(v: int) -> int:
    h = (v * 0x9E3775CD) & _M
    h = int.from_bytes(h.to_bytes(4, "big"), "little")
    return (h * 0x9E3775CD) & _M


def jvm_set_order(values: Sequence[Any], spark_type: str | None) -> list[Any]:
    """The distinct *values* (in row order) in the order xskipper's hash set stores them."""
    distinct = list(dict.fromkeys(values))
    hasher = _hasher(spark_type or "")
    if hasher is None or len(distinct) < 2:
        return distinct
    hashes = [hasher(v) for v in distinct]  # per value: Java hashCode semantics differ by type
    table: list[int | None] = [None] * 32

    def place(tab: list[int | None], k: int) -> None:
        bits = len(tab).bit_length() - 1
        i = _byteswap32(hashes[k])
        i = ((i >> bits) | (i << (32 - bits))) & _M
        slot = (i >> (32 - bits)) & (len(tab) - 1)
        while tab[slot] is not None:  # linear probing, as the Scala table does
            slot = (slot + 1) % len(tab)
        tab[slot] = k

    for size, k in enumerate(range(len(distinct)), start=1):  # distinct values only: re-adding one is a no-op
        place(table, k)
        if size >= len(table) * 450 // 1000:
            old, table = table, [None] * (2 * len(table))
            for e in old:
                if e is not None:
                    place(table, e)
    return [distinct[k] for k in table if k is not None]
