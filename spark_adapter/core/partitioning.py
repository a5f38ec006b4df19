"""Hive-style partition folders (``key=value``), as Spark reads and writes them.

Reading rests on ``parquet_core``'s one implementation (the same code
``pc.read_table(folder)`` runs, so Python and Spark agree on every folder):
files are listed by ``pc.list_data_files`` (see ``files.py``), each folder name
is parsed by ``pc.parse_hive_folder`` (``key=value``; key and value URL-decoded
as UTF-8; ``__HIVE_DEFAULT_PARTITION__`` is null) and a column's type comes
from ``pc.infer_partition_type(values, flavor="spark")``.  What stays here is
Spark's side of it:

* each data file's folders are walked upward from the file to the base path
  (the loaded directory, the parent of a loaded file, or the ``basePath``
  option); every ``key=value`` folder on the way is a partition column, and
  a plain folder above one of them ends the walk; all walks that found
  columns must end at the same folder;
* every file must end up with the same column names in the same order;
* with type inference (the default) a column gets the narrowest type that
  holds all its values, as Spark infers it: int, bigint, decimal(p,0)
  (integers too wide for bigint, or an exponent without a fraction, e.g.
  ``1.0E10``), double, date (``yyyy-MM-dd``), timestamp (``yyyy-MM-dd
  HH:mm:ss`` with at most one fraction digit, Spark's pattern), else string;
  mixed types widen (int+bigint -> bigint, numbers -> double, date+timestamp
  -> timestamp) or fall back to string.  Without inference every column is a
  string;
* values become the Python values of their Spark types (:func:`partition_value`, which is
  ``pc.parse_partition_value``, the dataset layer's one text -> value conversion, on the
  parquet_core type matching the Spark type).

Unescaping is UTF-8 (``%C3%A9`` is ``é``), as pyarrow writes non-ASCII values;
Spark's own reader turns each ``%XX`` into one Latin-1 character (``Ã©``), which
only matters for folders Spark did not write: Spark escapes ASCII characters
only and writes ``é`` as it is.

Writing: the value is cast to text the way Spark does and escaped with
``%XX`` for the characters Spark escapes; null and the empty string become
``__HIVE_DEFAULT_PARTITION__``.

Timestamps in folder names carry no zone, Spark uses its session time zone.
The writer takes it from Spark's Arrow batches; the reader's planning worker
cannot see it (the ``timeZone`` option, default UTC), its tasks read it from
their ``TaskContext`` (``spark.sql.session.timeZone``), unless the option is set.

Runs on the driver (and, for :func:`partition_value`, in the tasks).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NullType,
    ShortType,
    StringType,
    TimestampNTZType,
    TimestampType,
)

__all__ = [
    "DEFAULT_PARTITION_NAME", "escape_path_name", "unescape_path_name", "partition_dir_name",
    "parse_partition_dirs", "infer_partition_types", "partition_value", "format_partition_value",
]

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"

# The ASCII characters Spark's ExternalCatalogUtils escapes in folder names.
_ESCAPED = frozenset([chr(c) for c in range(1, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))



def _pc() -> Any:
    import parquet_core as pc

    return pc


def escape_path_name(text: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def unescape_path_name(text: str) -> str:
    """Undo ``%XX`` escapes as ``parquet_core`` does (UTF-8; see the module docstring)."""
    folder = _pc().parse_hive_folder("k=" + text)
    return DEFAULT_PARTITION_NAME if folder is None or folder[1] is None else folder[1]


# ----------------------------------------------------------------------------- reading
def parse_partition_dirs(files: Sequence[str], base_paths: Iterable[str]) -> list[list[tuple[str, str | None]]]:
    """For each file, its ``[(column, decoded value or None for null), ...]`` from the folders
    between it and its base path.

    Raises ValueError when the files disagree on the partition columns.
    """
    parse = _pc().parse_hive_folder
    bases = {os.path.normpath(b) for b in base_paths}
    specs: list[list[tuple[str, str | None]]] = []
    roots: set[str] = set()  # where the walks of partitioned files stopped
    for f in files:
        spec: list[tuple[str, str | None]] = []
        cur = os.path.dirname(os.path.normpath(f))
        # walk upward, one folder per step, until a base path or a non-partition folder
        while cur not in bases:
            name = os.path.basename(cur)
            if "=" in name:
                folder = parse(name)
                if folder is None or name.endswith("="):
                    raise ValueError(f"pqcore: empty partition column name or value in folder {cur!r}")
                spec.append(folder)
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


def _spark_type(typ: Any) -> DataType:
    """The Spark type of a type ``pc.infer_partition_type(..., flavor="spark")`` gives."""
    if typ.name == "null":
        return NullType()
    from spark_adapter.core.types import to_spark_type

    return to_spark_type(typ)


def infer_partition_types(specs: Sequence[Sequence[tuple[str, str | None]]],
                          infer: bool = True) -> list[tuple[str, DataType]]:
    """The partition columns (names in folder order) and their Spark types."""
    if not specs or not specs[0]:
        return []
    names = [k for k, _ in specs[0]]
    if not infer:
        return [(name, StringType()) for name in names]
    infer_type = _pc().infer_partition_type
    return [(name, _spark_type(infer_type([spec[i][1] for spec in specs], flavor="spark")))
            for i, name in enumerate(names)]


def _pc_type(typ: DataType) -> Any:
    """The parquet_core type whose folder text -> value conversion a Spark partition type uses
    (None when Spark's type cannot be a partition column here)."""
    pc = _pc()
    if isinstance(typ, DecimalType):
        return pc.decimal(typ.precision, typ.scale)
    if isinstance(typ, TimestampType):
        return pc.timestamp("us", tz="UTC")
    simple = {ByteType: pc.int8, ShortType: pc.int16, IntegerType: pc.int32, LongType: pc.int64,
              FloatType: pc.float32, DoubleType: pc.float64, BooleanType: pc.bool_, DateType: pc.date32,
              StringType: pc.string, BinaryType: pc.binary, NullType: pc.null}
    make = simple.get(type(typ))
    if make is not None:
        return make()
    if isinstance(typ, TimestampNTZType):
        return pc.timestamp("us")
    return None


def partition_value(text: str | None, typ: DataType, tz: str = "UTC", column: str = "?") -> Any:
    """The Python value of one decoded folder value as *typ* (``None`` for null):
    ``pc.parse_partition_value`` on the matching parquet_core type, timestamps read in
    zone *tz* (the session time zone a task sees, or the ``timeZone`` option).

    Raises ``ParquetSchemaError`` (a ``ParquetError``) on text that is not a *typ*, and
    TypeError for a type that cannot be a partition column."""
    target = _pc_type(typ)
    if target is None:
        raise TypeError(f"pqcore: partition columns of type {typ.simpleString()} are not supported")
    return _pc().parse_partition_value(text, target, column, tz=tz)


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
