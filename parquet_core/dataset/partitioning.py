"""Partition columns from folder names: Hive ``key=value`` and Drill-style bare folders.

Reading, as ``pyarrow.dataset`` reads (``partitioning="hive"``):

* every ``key=value`` folder between the dataset root and a file is a
  partition column (:func:`parse_hive_folder`, the one folder-name parser the
  Spark adapter uses too); key and value are URL-decoded as UTF-8 (``%2F`` ->
  ``/``, ``%C3%A9`` -> ``é``), which also decodes Spark's escapes (Spark
  escapes only ASCII characters, each as one ``%XX``, and writes other
  characters as they are; Spark's own reader decodes ``%XX`` as one Latin-1
  character, so it reads pyarrow's escaped non-ASCII values wrongly);
  ``__HIVE_DEFAULT_PARTITION__`` is null;
* inferred types (:func:`infer_partition_type`): ``int32`` when every
  non-null value of the column is an integer that fits, ``null`` when every
  value is null, else ``string`` (pyarrow's inference; a value beyond int32
  makes the column a string, as in pyarrow); ``flavor="spark"`` infers as
  Spark's file sources do (``spark.sql.sources.partitionColumnTypeInference``):
  int32, int64, decimal(p, 0), float64, date, timestamp, else string;
* ``Partitioning("hive", inference="spark")`` types the columns Spark's way
  in Python reads too (``time_zone=``: the zone of timestamp folder text);
* one conversion of folder text into values (:func:`parse_partition_value`,
  ``pc.parse_partition_value``) serves both inferences, given schemas and the
  Spark adapter: integers of every width, floats, ``bool``, ``date``,
  ``timestamp`` (a wall-clock time in the given zone for UTC-adjusted types),
  ``decimal`` (never rounded), ``string``, ``binary``; bad text raises
  ParquetSchemaError naming the column and the value;
* ``partitioning=<Schema>`` gives the types (any of those);
  ``partitioning=["a", "b"]`` names bare folders
  (``2024/05/file``), level by level, as strings unless inferred as int32;
  ``partitioning=None`` reads no partition columns.

Writing (``write_to_dataset``): ``key=value`` with the value URL-encoded as
pyarrow encodes it (everything but ``A-Z a-z 0-9 - . _ ~`` becomes ``%XX``
of its UTF-8 bytes), null as ``__HIVE_DEFAULT_PARTITION__``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import itertools
import re
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema import build
from parquet_core.schema.types import FLOAT_IDS, INTEGER_IDS, DataType, Field, Schema, TypeId

if TYPE_CHECKING:
    from parquet_core.table.arrays import Array

# numpy and the table layer are imported where values become arrays: parsing folder names and
# inferring types (what a Spark planner does) needs neither

__all__ = ["Partitioning", "DEFAULT_PARTITION_NAME", "partition_segment", "resolve_partitioning",
           "encode_value", "decode_value", "parse_hive_folder", "infer_partition_type",
           "parse_partition_value"]

_STRING_BINARY_IDS = frozenset([TypeId.STRING, TypeId.BINARY])

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"
_INT = re.compile(r"[+-]?[0-9]+\Z")
_PA_INT = re.compile(r"-?[0-9]+\Z")     # pyarrow's integer parse takes no leading '+'
_INT32 = (-(2**31), 2**31 - 1)


def encode_value(text: str) -> str:
    """URL-encode one folder name part as pyarrow does (only unreserved characters are kept)."""
    return urllib.parse.quote(text, safe="")


def decode_value(text: str) -> str:
    """Undo ``%XX`` escapes, the bytes read as UTF-8 (invalid sequences become U+FFFD)."""
    return urllib.parse.unquote(text)


@functools.lru_cache(maxsize=1 << 16)
def parse_hive_folder(name: str) -> tuple[str, str | None] | None:
    """``(column, value)`` of one Hive ``key=value`` folder name, both URL-decoded (UTF-8);
    the value is None for ``__HIVE_DEFAULT_PARTITION__``.  None when *name* is not a
    partition folder (no ``=``, or an empty key).  The one parser of folder names, used by
    the dataset layer and by the Spark adapter.  Cached: the files of a dataset repeat the
    same few folder names."""
    key, eq, raw = name.partition("=")
    if not eq or not key:
        return None
    return decode_value(key), None if raw == DEFAULT_PARTITION_NAME else decode_value(raw)


# --------------------------------------------------------------------------- type inference
# Spark's rules (PartitioningUtils.inferPartitionColumnValue, re-derived from its behaviour)
_BIGDEC = re.compile(r"[+-]?(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?\Z")
_DOUBLE = re.compile(r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?\Z")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
# ``yyyy-MM-dd HH:mm:ss[.S]``: at most ONE fraction digit (Spark infers "10:00:00.12" as a string)
_TS_INFER = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9])?\Z")
_INT64 = (-(2**63), 2**63 - 1)
_SPARK_NUMERIC = frozenset([TypeId.INT32, TypeId.INT64, TypeId.DECIMAL, TypeId.FLOAT64])
_SPARK_INT_WIDTH = {TypeId.INT32: 10, TypeId.INT64: 20}   # decimal digits of Spark's int and bigint


def _spark_digits(t: DataType) -> int:
    """The decimal digits a Spark int, bigint or decimal holds."""
    if t.id is TypeId.DECIMAL and t.precision is not None:
        return t.precision
    return _SPARK_INT_WIDTH[t.id]


def _valid_date(m: re.Match[str] | None) -> bool:
    if m is None:
        return False
    try:
        dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


def _clock_fields(m: re.Match[str]) -> tuple[int, int, int, int, int, int]:
    """Year, month, day, hour, minute and second: the first six groups of a timestamp match."""
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)),
            int(m.group(4)), int(m.group(5)), int(m.group(6)))


def _valid_timestamp(m: re.Match[str] | None) -> bool:
    if m is None:
        return False
    try:
        dt.datetime(*_clock_fields(m))
    except ValueError:
        return False
    return True


def _spark_type_of(text: str) -> DataType:
    """The type Spark infers for one decoded folder value."""
    if _INT.match(text):
        v = int(text)
        if _INT32[0] <= v <= _INT32[1]:
            return DataType("int32")
        if _INT64[0] <= v <= _INT64[1]:
            return DataType("int64")
    m = _BIGDEC.match(text)
    if m is not None:
        frac = m.group(2) if m.group(1) is not None else m.group(3)
        if len(frac or "") - int(m.group(4) or 0) <= 0:   # BigDecimal scale <= 0: an integer
            digits = len(str(abs(int(decimal.Decimal(text)))))
            if digits <= 38:
                return build.decimal(digits, 0)
    if _DOUBLE.match(text.strip()):
        return DataType("float64")
    if _valid_timestamp(_TS_INFER.match(text)):
        return build.timestamp("us", utc=True)
    if _valid_date(_DATE.match(text)):
        return DataType("date")
    return DataType("string")


def _spark_widen(a: DataType, b: DataType) -> DataType:
    """Spark's common type of two inferred partition types (numbers widen, date+timestamp is a
    timestamp, anything else a string)."""
    if a == b or b.id is TypeId.NULL:
        return a
    if a.id is TypeId.NULL:
        return b
    if a.id in _SPARK_NUMERIC and b.id in _SPARK_NUMERIC:
        if TypeId.FLOAT64 in (a.id, b.id):
            return DataType("float64")
        if TypeId.DECIMAL in (a.id, b.id):
            p = max(_spark_digits(x) for x in (a, b))
            return build.decimal(p, 0) if p <= 38 else DataType("float64")
        return DataType("int64")
    if {a.id, b.id} == {TypeId.DATE, TypeId.TIMESTAMP}:
        return build.timestamp("us", utc=True)
    return DataType("string")


def infer_partition_type(values: Sequence[str | None], flavor: str = "pyarrow") -> DataType:
    """The type of a partition column from its decoded folder values (None: null).

    ``flavor="pyarrow"``: ``int32`` when every non-null value is an integer that fits,
    ``null`` when every value is null (``string`` when there is none), else ``string``.
    ``flavor="spark"``: Spark's inference (``int32``, ``int64``, ``decimal(p, 0)``,
    ``float64``, ``date``, ``timestamp[us, UTC]`` for ``yyyy-MM-dd HH:mm:ss[.S]``, else
    ``string``), widened over the values as Spark widens them.
    """
    seen = [v for v in values if v is not None]
    if flavor == "pyarrow":
        if not seen:
            return DataType("null") if values else DataType("string")
        if all(_PA_INT.match(v) and _INT32[0] <= int(v) <= _INT32[1] for v in set(seen)):
            return DataType("int32")
        return DataType("string")
    if flavor != "spark":
        raise ValueError(f"flavor must be 'pyarrow' or 'spark', not {flavor!r}")
    typ = DataType("null")
    for v in seen:
        typ = _spark_widen(typ, _spark_type_of(v))
        if typ.id is TypeId.STRING:
            break
    return typ


def partition_segment(name: str, value: Any) -> str:
    """``key=value`` for one partition column (value already formatted as text, or None)."""
    return f"{encode_value(name)}={DEFAULT_PARTITION_NAME if value is None else encode_value(value)}"


@dataclass(frozen=True)
class Partitioning:
    """How folder names become columns.

    ``flavor`` is ``"hive"`` (``key=value``) or ``"directory"`` (bare folders
    named by ``names``); ``schema`` holds the partition fields once known
    (given types, or inferred from the files found).  ``inference`` is the type
    inference of columns without a given type (:func:`infer_partition_type`):
    ``"pyarrow"`` (int32 or string) or ``"spark"`` (Spark's types, e.g. for a
    folder Spark's ``partitionBy`` wrote); ``time_zone`` is the zone the text of
    UTC-adjusted timestamp columns is in (Spark's session time zone; None: UTC).
    """

    flavor: str
    names: tuple[str, ...] = ()
    given: Schema | None = None
    schema: Schema | None = None
    inference: str = "pyarrow"
    time_zone: str | None = None

    def __post_init__(self) -> None:
        if self.flavor not in ("hive", "directory"):
            raise ValueError(f"Partitioning flavor must be 'hive' or 'directory', not {self.flavor!r}")
        if self.inference not in ("pyarrow", "spark"):
            raise ValueError(f"Partitioning inference must be 'pyarrow' or 'spark', not {self.inference!r}")

    def parse(self, segments: Sequence[str]) -> list[tuple[str, str | None]]:
        """``[(column, decoded value or None)]`` for the folders between the root and a file."""
        out: list[tuple[str, str | None]] = []
        if self.flavor == "hive":
            for seg in segments:
                parsed = parse_hive_folder(seg)
                if parsed is not None:
                    out.append(parsed)
            return out
        for name, seg in zip(self.names, segments):
            out.append((name, None if seg == DEFAULT_PARTITION_NAME else decode_value(seg)))
        return out

    def folder_values(self, folders: Iterable[Sequence[str]]) -> list[list[tuple[str, str | None]]]:
        """What :meth:`infer` needs of files whose folders below the root are *folders* (one
        list per file): the same inference as from each file's :meth:`parse`, cheaper.
        Hive: each distinct folder name parsed once, the distinct ``(column, value)`` pairs
        in the order they first occur (one list); directory: each distinct list once (the
        files of one folder share one list)."""
        if self.flavor == "hive":
            names = dict.fromkeys(itertools.chain.from_iterable(folders))
            return [[pv for pv in map(parse_hive_folder, names) if pv is not None]]
        return [self.parse(f) for f in {id(f): f for f in folders}.values()]

    def infer(self, parsed: Sequence[Sequence[tuple[str, str | None]]]) -> Partitioning:
        """This partitioning with :attr:`schema` set from the values of every file."""
        order: list[str] = list(self.names) if self.flavor == "directory" else []
        values: dict[str, list[str | None]] = {n: [] for n in order}
        # each distinct (column, value) once, in the order they first occur: the inference
        # depends on which values a column has, not on how many files have them
        for name, value in dict.fromkeys(itertools.chain.from_iterable(parsed)):
            if name not in values:
                order.append(name)
                values[name] = []
            values[name].append(value)
        given = {f.name: f for f in self.given} if self.given is not None else {}
        fields = []
        for name in order:
            if name in given:
                fields.append(Field(name, given[name].type, True))
                continue
            fields.append(Field(name, infer_partition_type(values[name], flavor=self.inference), True))
        return Partitioning(self.flavor, tuple(order) if self.flavor == "directory" else self.names,
                            self.given, Schema(fields), self.inference, self.time_zone)

    def arrays(self, spec: Sequence[tuple[str, str | None]]) -> dict[str, Array]:
        """One-row arrays of a file's partition values, typed by :attr:`schema` (cached per value)."""
        assert self.schema is not None
        got = dict(spec)
        return {f.name: self._typed(f, got.get(f.name)) for f in self.schema}

    def _typed(self, f: Field, raw: str | None) -> Array:
        """*raw* as a one-row array of *f*'s type, made once per (column, folder value)."""
        cache = self.__dict__.setdefault("_typed_values", {})
        arr = cache.get((f.name, raw))
        if arr is None:
            arr = cache[(f.name, raw)] = typed_value(raw, f, self.time_zone)
        return arr

    def table(self, specs: Sequence[Sequence[tuple[str, str | None]]]) -> Any:
        """A table with one row per file: its partition values (for pruning all files at once)."""
        import numpy as np

        from parquet_core.table.arrays import Array, Table
        from parquet_core.table.select import take_array

        assert self.schema is not None
        per_file = [dict(s) for s in specs]
        cols = []
        for f in self.schema:
            if not per_file:
                cols.append(typed_value(None, f, self.time_zone).slice(0, 0))
                continue
            # each distinct value typed once, then taken per file (the files of a dataset
            # repeat a few folder values; one Python step per file to find its value's index)
            index: dict[str | None, int] = {}
            codes = np.fromiter((index.setdefault(got.get(f.name), len(index)) for got in per_file),
                                dtype=np.int64, count=len(per_file))
            distinct = [self._typed(f, raw) for raw in index]
            cols.append(take_array(distinct[0] if len(distinct) == 1 else Array.concat(distinct), codes))
        return Table(self.schema, cols, len(specs))


# --------------------------------------------------------------------------- text -> value
# The one conversion of a folder's text into a typed value, for both policies (and for the
# Spark adapter, through ``pc.parse_partition_value``).
_INT_RANGE = {TypeId.INT8: (-(2**7), 2**7 - 1), TypeId.INT16: (-(2**15), 2**15 - 1),
              TypeId.INT32: _INT32, TypeId.INT64: (-(2**63), 2**63 - 1),
              TypeId.UINT8: (0, 2**8 - 1), TypeId.UINT16: (0, 2**16 - 1),
              TypeId.UINT32: (0, 2**32 - 1), TypeId.UINT64: (0, 2**64 - 1)}
# Java's Double.parseDouble forms (Spark's) and Python's str(float) forms ("inf", "nan")
_FLOAT_TEXT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?"
                         r"|NaN|nan|Infinity|inf|infinity)\Z")
# Spark's timestamp text (``yyyy-MM-dd HH:mm:ss[.fraction]``; ``T`` as isoformat writes it too)
_TS_TEXT = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-9]{2})"
                      r"(?:\.([0-9]{1,9}))?\Z")
_UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def _parse_date(text: str) -> dt.date:
    m = _DATE.match(text)
    if m is None:
        raise ValueError("expected yyyy-MM-dd")
    return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def _parse_timestamp(text: str, t: DataType, tz: str | None) -> dt.datetime:
    m = _TS_TEXT.match(text)
    if m is None:
        if _DATE.match(text) is None:
            raise ValueError("expected yyyy-MM-dd HH:mm:ss[.fraction] or yyyy-MM-dd")
        d = _parse_date(text)                 # a date alone is midnight (Spark widens date to timestamp)
        fields = (d.year, d.month, d.day, 0, 0, 0)
        frac = ""
    else:
        fields = _clock_fields(m)
        frac = m.group(7) or ""
    digits = _UNIT_DIGITS.get(t.unit or "us", 6)
    if frac[digits:].strip("0"):
        raise ValueError(f"more fraction digits than a {t.unit} timestamp holds")
    frac = frac[:digits].ljust(9, "0")
    value: dt.datetime = dt.datetime(*fields, int(frac[:6]))
    if t.tz is not None:
        # the text is a wall-clock time in *tz* (Spark: the session time zone), stored as UTC
        from zoneinfo import ZoneInfo

        try:
            zone = ZoneInfo(tz or "UTC")
        except (ValueError, KeyError) as exc:   # ZoneInfoNotFoundError is a KeyError
            raise ValueError(f"unknown time zone {tz!r} ({exc})") from None
        value = value.replace(tzinfo=zone).astimezone(dt.timezone.utc)
    if frac[6:] != "000":
        from parquet_core.schema.nanos import NanoDatetime

        value = NanoDatetime.from_datetime(value, int(frac[6:]))
    return value


def _parse_decimal(text: str, t: DataType) -> decimal.Decimal:
    if _BIGDEC.match(text) is None:
        raise ValueError("not a decimal number")
    ctx = decimal.Context(prec=200, traps=[decimal.InvalidOperation, decimal.Inexact])
    scale = t.scale or 0
    try:
        value = ctx.quantize(decimal.Decimal(text), decimal.Decimal(1).scaleb(-scale))
    except decimal.Inexact:
        raise ValueError(f"has more than {scale} digits after the point") from None
    except decimal.InvalidOperation:
        raise ValueError("out of range") from None
    if len(value.as_tuple().digits) > (t.precision or 38) and value != 0:
        raise ValueError(f"more than {t.precision} digits")
    return value


def parse_partition_value(text: str | None, type: DataType, column: str = "?",
                          tz: str | None = None) -> Any:
    """The Python value of one decoded folder value *text* as *type* (None for null, or for
    ``__HIVE_DEFAULT_PARTITION__``): the one text -> value conversion of partition folders,
    for both inference policies and the Spark adapter.

    * integers of every width (``[+-]digits``, range-checked), ``float16/32/64`` (decimal
      or exponent forms, Java's ``NaN`` / ``Infinity`` and a ``d``/``f`` suffix as Spark
      writes them, Python's ``inf`` / ``nan``), ``bool`` (``true`` / ``false``, any case);
    * ``date`` (``yyyy-MM-dd``), ``timestamp`` (``yyyy-MM-dd HH:mm:ss[.fraction]``, up to
      the type's unit; a ``T`` separator or a date alone are accepted too; nanosecond
      units give a :class:`NanoDatetime`).  For a UTC-adjusted timestamp the text is a
      wall-clock time in zone *tz* (an IANA name; None: UTC), Spark's session time zone,
      and the value is an aware UTC ``datetime``;
    * ``decimal(p, s)`` (no rounding: a value needing more than *s* fraction digits or
      more than *p* digits is refused), ``string``, ``binary`` (the text's UTF-8 bytes).

    Raises
    ------
    ParquetSchemaError
        When *text* is not a valid value of *type* (naming *column* and the text), or the
        type cannot be a partition column.
    """
    if text is None or text == DEFAULT_PARTITION_NAME or type.id is TypeId.NULL:
        return None
    tid = type.id
    try:
        if tid in INTEGER_IDS:
            if _INT.match(text) is None:
                raise ValueError("not an integer")
            value: Any = int(text)
            lo, hi = _INT_RANGE[tid]
            if not lo <= value <= hi:
                raise ValueError(f"out of range [{lo}, {hi}]")
            return value
        if tid in FLOAT_IDS:
            t = text.strip()
            if _FLOAT_TEXT.match(t) is None:
                raise ValueError("not a number")
            return float(t.rstrip("fFdD") if t[-1:] in "fFdD" and not t.endswith("inf") else t)
        if tid is TypeId.BOOL:
            if text.lower() not in ("true", "false"):
                raise ValueError("expected true or false")
            return text.lower() == "true"
        if tid is TypeId.DATE:
            return _parse_date(text)
        if tid is TypeId.TIMESTAMP:
            return _parse_timestamp(text, type, tz)
        if tid is TypeId.DECIMAL:
            return _parse_decimal(text, type)
        if tid is TypeId.STRING:
            return text
        if tid is TypeId.BINARY:
            return text.encode("utf-8")
    except ValueError as exc:
        raise ParquetSchemaError(f"partition column {column!r}: folder value {text!r} is not "
                                 f"a valid {type} ({exc})") from None
    raise ParquetSchemaError(f"partition column {column!r}: type {type} cannot be a partition "
                             "column (integers, floats, bool, date, timestamp, decimal, string, binary)")


def typed_value(raw: str | None, field: Field, tz: str | None = None) -> Array:
    """A one-row :class:`Array` holding *raw* converted to *field*'s type
    (:func:`parse_partition_value`)."""
    from parquet_core.table.ingest import as_array

    value = parse_partition_value(raw, field.type, field.name, tz)
    return as_array([value], field.name, Field(field.name, field.type, True))


def repeat(one: Array, n: int) -> Array:
    """*one* (a one-row array) repeated *n* times."""
    import numpy as np

    from parquet_core.table.select import take_array

    return take_array(one, np.zeros(n, dtype=np.int64))


def resolve_partitioning(partitioning: Any) -> Partitioning | None:
    """Turn ``partitioning=`` (``"hive"``, a Schema, a list of names, None) into a Partitioning."""
    if partitioning is None:
        return None
    if isinstance(partitioning, Partitioning):
        return Partitioning(partitioning.flavor, partitioning.names,
                            partitioning.given or partitioning.schema, None,
                            partitioning.inference, partitioning.time_zone)
    if isinstance(partitioning, str):
        if partitioning != "hive":
            raise ValueError(f"partitioning must be 'hive', a schema, a list of names or None, "
                             f"not {partitioning!r}")
        return Partitioning("hive")
    if isinstance(partitioning, Schema):
        return Partitioning("hive", (), partitioning)
    if hasattr(partitioning, "names") and hasattr(partitioning, "field") and hasattr(partitioning, "types"):
        from parquet_core.interop.arrow import schema_from_arrow  # a pyarrow schema

        return Partitioning("hive", (), schema_from_arrow(partitioning))
    if isinstance(partitioning, (list, tuple)) and all(isinstance(n, str) for n in partitioning):
        return Partitioning("directory", tuple(partitioning))
    raise TypeError(f"partitioning must be 'hive', a pc.Schema, a list of names or None, "
                    f"not {type(partitioning).__name__}")


def check_stored_values(stored: Any, folder: Any, name: str, path: str) -> None:
    """Refuse a file that stores the partition column *name* with values other than its
    folder's (``k=1/part.parquet`` holding ``k = 2``): neither value can be trusted.

    *stored* is the file's column (rows of this file only) and *folder* the one-row
    array of the folder value, both of the column's dataset type (nulls match a null
    folder value, ``__HIVE_DEFAULT_PARTITION__``).

    Raises
    ------
    ParquetSchemaError
        Naming the file, the column, the folder value and a stored value that differs.
    """
    import numpy as np

    from parquet_core.errors import ParquetSchemaError
    from parquet_core.predicate import col, filter_mask
    from parquet_core.schema.types import Field, Schema
    from parquet_core.table.arrays import Table

    n = len(stored)
    if not n:
        return
    value = folder.to_pylist()[0]
    table = Table(Schema([Field(name, stored.type, True)]), [stored], n)
    if value is None:
        bad = np.flatnonzero(filter_mask(~col(name).is_null(), table))
    else:
        bad = np.flatnonzero(~filter_mask(col(name) == value, table))
    if bad.size:
        found = stored.slice(int(bad[0]), int(bad[0]) + 1).to_pylist()[0]
        shown = "null (__HIVE_DEFAULT_PARTITION__)" if value is None else repr(value)
        raise ParquetSchemaError(
            f"{path!r} stores column {name!r} with the value {found!r}, but its partition folder says "
            f"{name}={shown}: the folder value and the stored values disagree, and neither is taken")
