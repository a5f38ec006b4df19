"""The types a table's columns take in the file, given the writer's format options.

A writer may store a column in a different type than the table holds, as
``pyarrow.parquet.write_table`` does (measured with pyarrow 26)::

    option                            table type          file type
    --------------------------------  ------------------  -----------------------------
    version="1.0"                     uint32              int64 (no UINT_32 in 1.x)
    version="1.0" / "2.4"             timestamp[ns, tz]   timestamp[us, tz]
    coerce_timestamps="ms" / "us"     timestamp[*, tz]    timestamp[unit, tz]
    (any)                             timestamp[s, tz]    timestamp[ms, tz] (no seconds unit)
    use_deprecated_int96_timestamps   timestamp[*, tz]    unchanged (stored as INT96;
                                                          coerce_timestamps is ignored)
    flavor="spark"                    field "a b"         field "a_b" (top level only)
    write_time_adjusted_to_utc=True   time[unit]          time[unit] isAdjustedToUTC=true

The rules apply at any depth (list elements, map keys and values, struct
members), except the renaming, which pyarrow applies to top-level names only.
Everything else, TIME(NANOS) included, is written as in 2.6.

This module only maps types; the values are converted (and lossy unit
changes refused) by :mod:`parquet_core.table.file_values`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from parquet_core.schema.types import DataType, Schema, TypeId

__all__ = ["FORMAT_VERSIONS", "file_schema", "file_type", "spark_field_name"]

#: The values of the ``version`` writer option, and the ``FileMetaData.version`` each writes.
FORMAT_VERSIONS = {"1.0": 1, "2.4": 2, "2.6": 2}

#: Characters Spark's (Hive-derived) schema parser refuses in a column name; pyarrow's
#: ``flavor="spark"`` replaces each with ``_``.
_SPARK_UNSAFE = re.compile("[ ,;{}()\n\t=]")


def spark_field_name(name: str) -> str:
    """Return *name* with every character Spark refuses replaced by ``_``."""
    return _SPARK_UNSAFE.sub("_", name)


def file_type(dt: DataType, *, version: str = "2.6", coerce_timestamps: str | None = None,
              int96_timestamps: bool = False, time_adjusted_to_utc: bool = False) -> DataType:
    """Return the type a column of type *dt* is stored as (see the module table).

    Parameters
    ----------
    dt:
        The table's type of the column (nested types are mapped member by member).
    version:
        ``"1.0"``, ``"2.4"`` or ``"2.6"``.
    coerce_timestamps:
        ``None`` (keep the unit, except nanoseconds before 2.6), ``"ms"`` or ``"us"``.
    int96_timestamps:
        Timestamps are stored as INT96, which holds any unit: no coercion.
    time_adjusted_to_utc:
        TIME columns are stored with ``isAdjustedToUTC=true`` (pyarrow's
        ``write_time_adjusted_to_utc``).
    """
    if dt.id is TypeId.VARIANT:    # shredded members keep the spec's types (no unit coercion)
        return dt
    if dt.is_nested:
        fields = tuple(replace(f, type=file_type(f.type, version=version, coerce_timestamps=coerce_timestamps,
                                                 int96_timestamps=int96_timestamps,
                                                 time_adjusted_to_utc=time_adjusted_to_utc))
                       for f in dt.fields)
        return dt if fields == dt.fields else replace(dt, fields=fields)
    if dt.id is TypeId.TIME and time_adjusted_to_utc and dt.tz is None:
        return replace(dt, tz="UTC")
    if dt.id is TypeId.UINT32 and version == "1.0":
        return DataType("int64")
    if dt.id is TypeId.TIMESTAMP and dt.unit == "s":   # Parquet has no seconds: milliseconds, as pyarrow
        dt = replace(dt, unit="ms")
    if dt.id is TypeId.TIMESTAMP and not int96_timestamps:
        unit = coerce_timestamps
        if unit is None and dt.unit == "ns" and version != "2.6":
            unit = "us"
        if unit is not None and unit != dt.unit:
            return replace(dt, unit=unit)
    return dt


def file_schema(schema: Schema, *, version: str = "2.6", coerce_timestamps: str | None = None,
                int96_timestamps: bool = False, flavor: str | None = None,
                time_adjusted_to_utc: bool = False) -> Schema:
    """Return *schema* as the file stores it: types by :func:`file_type`, names by *flavor*.

    Raises
    ------
    ValueError
        If ``flavor="spark"`` maps two top-level names to the same name.
    """
    out = []
    for f in schema:
        name = spark_field_name(f.name) if flavor == "spark" else f.name
        dt = file_type(f.type, version=version, coerce_timestamps=coerce_timestamps,
                       int96_timestamps=int96_timestamps, time_adjusted_to_utc=time_adjusted_to_utc)
        out.append(f if (name, dt) == (f.name, f.type) else replace(f, name=name, type=dt))
    names = [f.name for f in out]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        sources = [f.name for f, g in zip(schema, out) if g.name == dup]
        raise ValueError(f"flavor='spark': columns {sources} would all be named {dup!r} in the file")
    return Schema(out)
