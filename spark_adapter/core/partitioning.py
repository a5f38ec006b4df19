"""Hive-style partition folders (``key=value``), as Spark reads and writes them.

Reading (``PartitioningUtils`` in Spark, re-derived from its observed behaviour):

* each data file's folders are walked upward from the file to the base path
  (the loaded directory, the parent of a loaded file, or the ``basePath``
  option); every ``key=value`` folder on the way is a partition column, and
  a plain folder above one of them ends the walk; all walks that found
  columns must end at the same folder;
* every file must end up with the same column names in the same order;
* with type inference (the default) a column gets the narrowest type that
  holds all its values: int, bigint, decimal(p,0) (integers too wide for
  bigint, or an exponent without a fraction, e.g. ``1.0E10``), double, date
  (``yyyy-MM-dd``), timestamp (``yyyy-MM-dd HH:mm:ss`` with at most one
  fraction digit, Spark's pattern), else string;
  ``__HIVE_DEFAULT_PARTITION__`` is null; mixed types widen (int+bigint ->
  bigint, numbers -> double, date+timestamp -> timestamp) or fall back to
  string.  Without inference every column is a string.

Writing: the value is cast to text the way Spark does and escaped with
``%XX`` for the characters Spark escapes; null and the empty string become
``__HIVE_DEFAULT_PARTITION__``.

Timestamps in folder names carry no zone, Spark uses its session time zone.
The writer takes it from Spark's Arrow batches; the reader cannot see it and
uses the ``timeZone`` option (default UTC).

Pure standard library (plus pyspark types): runs on the driver.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from pyspark.sql.types import (
    BooleanType, ByteType, DataType, DateType, DecimalType, DoubleType, FloatType, IntegerType,
    LongType, NullType, ShortType, StringType, TimestampNTZType, TimestampType,
)

__all__ = [
    "DEFAULT_PARTITION_NAME", "escape_path_name", "unescape_path_name", "partition_dir_name",
    "parse_partition_dirs", "infer_partition_types", "partition_value", "format_partition_value",
]

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"

# The ASCII characters Spark's ExternalCatalogUtils escapes in folder names.
_ESCAPED = frozenset([chr(c) for c in range(1, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))
_HEX2 = re.compile(r"%([0-9A-Fa-f]{2})")

_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_BIGDEC_RE = re.compile(r"[+-]?(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?\Z")
_DOUBLE_RE = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?\Z")
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_TS_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?\Z")
# inference follows Spark's pattern ``yyyy-MM-dd HH:mm:ss[.S]``: at most ONE fraction digit
# (Spark infers its own "10:00:00.12" folders as strings)
_TS_INFER_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9])?\Z")

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


def escape_path_name(text: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def unescape_path_name(text: str) -> str:
    return _HEX2.sub(lambda m: chr(int(m.group(1), 16)), text)


# ----------------------------------------------------------------------------- reading
def parse_partition_dirs(files: Sequence[str], base_paths: Iterable[str]) -> list[list[tuple[str, str]]]:
    """For each file, its ``[(column, raw value), ...]`` from the folders between it and its base path.

    Raises ValueError when the files disagree on the partition columns.
    """
    bases = {os.path.normpath(b) for b in base_paths}
    specs: list[list[tuple[str, str]]] = []
    roots: set[str] = set()  # where the walks of partitioned files stopped
    for f in files:
        spec: list[tuple[str, str]] = []
        cur = os.path.dirname(os.path.normpath(f))
        # walk upward, one folder per step, until a base path or a non-partition folder
        while cur not in bases:
            name = os.path.basename(cur)
            if "=" in name:
                key, _, raw = name.partition("=")
                key = unescape_path_name(key)
                if not key or not raw:
                    raise ValueError(f"pqcore: empty partition column name or value in folder {cur!r}")
                spec.append((key, raw))
            elif spec:  # a plain folder above partition folders ends the walk
                break
            # (a plain folder below them is skipped, as Spark does for t/a=1/sub/file)
            parent = os.path.dirname(cur)
            if parent == cur:
                break
            cur = parent
        specs.append(spec[::-1])
        if spec:
            roots.add(cur)
    names = {tuple(k for k, _ in s) for s in specs}
    if len(roots) > 1:
        raise ValueError(
            f"pqcore: [CONFLICTING_DIRECTORY_STRUCTURES] partition folders start at several roots "
            f"{sorted(roots)[:5]}; set the basePath option to the table's root")
    if len(names) > 1:
        shown = sorted("/".join(n) or "<none>" for n in names)
        raise ValueError(
            "pqcore: conflicting partition folder structures (every file must sit under the same "
            f"key=value folders): {shown}; set the basePath option if the table root is higher up")
    return specs


def _infer_one(raw: str) -> DataType:
    if raw == DEFAULT_PARTITION_NAME:
        return NullType()
    if _INT_RE.match(raw):
        v = int(raw)
        if _INT32[0] <= v <= _INT32[1]:
            return IntegerType()
        if _INT64[0] <= v <= _INT64[1]:
            return LongType()
    m = _BIGDEC_RE.match(raw)
    if m and _scale(m) <= 0:  # an integer too wide for bigint, or e.g. 1.0E10
        digits = len(str(abs(int(decimal.Decimal(raw)))))
        if digits <= 38:
            return DecimalType(digits, 0)
    if _DOUBLE_RE.match(raw.strip()):
        return DoubleType()
    text = unescape_path_name(raw)
    if _TS_INFER_RE.match(text) and _timestamp_parts(text) is not None:
        return TimestampType()
    if _DATE_RE.match(text) and _date(text) is not None:
        return DateType()
    return StringType()


def _scale(m: re.Match) -> int:
    """BigDecimal's scale of a matched literal: fraction digits minus the exponent."""
    frac = m.group(2) if m.group(1) is not None else m.group(3)
    return len(frac or "") - int(m.group(4) or 0)


def _widen(a: DataType, b: DataType) -> DataType:
    if a == b or isinstance(b, NullType):
        return a
    if isinstance(a, NullType):
        return b
    order = (IntegerType, LongType, DecimalType, DoubleType)
    if isinstance(a, order) and isinstance(b, order):
        if isinstance(a, DoubleType) or isinstance(b, DoubleType):
            return DoubleType()
        if isinstance(a, DecimalType) or isinstance(b, DecimalType):
            width = {IntegerType: 10, LongType: 20}
            pa_ = a.precision if isinstance(a, DecimalType) else width[type(a)]
            pb = b.precision if isinstance(b, DecimalType) else width[type(b)]
            p = max(pa_, pb)
            return DecimalType(p, 0) if p <= 38 else DoubleType()
        return LongType()
    if {type(a), type(b)} == {DateType, TimestampType}:
        return TimestampType()
    return StringType()


def infer_partition_types(specs: Sequence[Sequence[tuple[str, str]]], infer: bool = True) -> list[tuple[str, DataType]]:
    """The partition columns (names in folder order) and their Spark types."""
    if not specs or not specs[0]:
        return []
    names = [k for k, _ in specs[0]]
    out = []
    for i, name in enumerate(names):
        typ: DataType = NullType()
        for spec in specs:
            raw = spec[i][1]
            if not infer:
                typ = StringType()
                break
            typ = _widen(typ, _infer_one(raw))
        out.append((name, typ))
    return out


def _date(text: str) -> dt.date | None:
    m = _DATE_RE.match(text)
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
    except ValueError:
        return None


def _timestamp_parts(text: str) -> tuple[dt.datetime, int] | None:
    m = _TS_RE.match(text)
    if not m:
        return None
    try:
        base = dt.datetime(*(int(m.group(i)) for i in range(1, 7)))
    except ValueError:
        return None
    micros = int((m.group(7) or "").ljust(6, "0")[:6])
    return base, micros


def partition_value(raw: str, typ: DataType, tz: str = "UTC") -> Any:
    """The Python value of one raw (escaped) folder value as *typ* (``None`` for the default name)."""
    if raw == DEFAULT_PARTITION_NAME or isinstance(typ, NullType):
        return None
    text = unescape_path_name(raw)
    try:
        if isinstance(typ, (IntegerType, LongType, ShortType, ByteType)):
            return int(text)
        if isinstance(typ, DecimalType):
            return decimal.Decimal(text).quantize(decimal.Decimal(1).scaleb(-typ.scale))
        if isinstance(typ, (DoubleType, FloatType)):
            t = text.strip().rstrip("fFdD")
            return float(t.replace("Infinity", "inf"))
        if isinstance(typ, DateType):
            d = _date(text)
            if d is None:
                raise ValueError("not a yyyy-MM-dd date")
            return d
        if isinstance(typ, (TimestampType, TimestampNTZType)):
            parts = _timestamp_parts(text)
            if parts is None:
                d = _date(text)
                if d is None:
                    raise ValueError("not a yyyy-MM-dd HH:mm:ss timestamp")
                parts = (dt.datetime(d.year, d.month, d.day), 0)
            value = parts[0].replace(microsecond=parts[1])
            if isinstance(typ, TimestampType):
                value = value.replace(tzinfo=ZoneInfo(tz)).astimezone(dt.timezone.utc)
            return value
        if isinstance(typ, BooleanType):
            if text.lower() in ("true", "false"):
                return text.lower() == "true"
            raise ValueError("not a boolean")
        if isinstance(typ, StringType):
            return text
    except (ValueError, ArithmeticError) as exc:
        raise ValueError(f"pqcore: partition value {text!r} is not a valid {typ.simpleString()}: {exc}") from None
    raise TypeError(f"pqcore: partition columns of type {typ.simpleString()} are not supported")


# ----------------------------------------------------------------------------- writing
def _java_float(x: float, single: bool) -> str:
    """Java's ``Double.toString`` / ``Float.toString`` (what Spark's cast to string prints)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    import numpy as np

    v = np.float32(x) if single else np.float64(x)
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        text = np.format_float_positional(v, unique=True, trim="0")
        return text
    mant, _, exp = np.format_float_scientific(v, unique=True, trim="0").partition("e")
    return f"{mant}E{int(exp)}"


def format_partition_value(value: Any, typ: DataType, tz: str = "UTC") -> str:
    """The text Spark's cast to string gives for a partition value (not escaped)."""
    if isinstance(typ, BooleanType):
        return "true" if value else "false"
    if isinstance(typ, (ByteType, ShortType, IntegerType, LongType)):
        return str(int(value))
    if isinstance(typ, (FloatType, DoubleType)):
        return _java_float(float(value), isinstance(typ, FloatType))
    if isinstance(typ, DecimalType):
        return format(value, "f")
    if isinstance(typ, DateType):
        return value.isoformat()
    if isinstance(typ, (TimestampType, TimestampNTZType)):
        if isinstance(typ, TimestampType):
            value = value.astimezone(ZoneInfo(tz))
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        if value.microsecond:
            text += ("." + f"{value.microsecond:06d}").rstrip("0")
        return text
    if isinstance(typ, StringType):
        return value
    raise TypeError(f"pqcore: cannot partition by a column of type {typ.simpleString()}")


def partition_dir_name(name: str, value: Any, typ: DataType, tz: str = "UTC") -> str:
    """``key=value`` for one partition column, escaped like Spark; null or '' -> the default name."""
    text = None if value is None else format_partition_value(value, typ, tz)
    return f"{escape_path_name(name)}={escape_path_name(text) if text else DEFAULT_PARTITION_NAME}"
