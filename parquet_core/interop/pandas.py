"""pandas DataFrame / Series to parquet_core, without importing pandas.

Objects are used through their public methods only (``isna``, ``to_numpy``,
``dt.tz_convert``...).  A DataFrame goes through pyarrow when it is
installed (``pa.Table.from_pandas(df)``, then
:func:`parquet_core.interop.arrow.table_from_arrow`), so types, the index
(a RangeIndex in the metadata, any other index as columns) and the
``pandas`` and ``ARROW:schema`` metadata are what pyarrow would write.

Without pyarrow, or when pyarrow refuses a frame (a column mixing ints and
strings...), each column is converted on its own by
:func:`column_from_series`; our own inference then names the offending
column and row.  That route writes no pandas metadata, so it refuses what
only the metadata could bring back (an index other than the default
``RangeIndex``; categorical, zoned, timedelta, period, interval and sparse
columns) rather than writing it lossily; the error names the
``parquet-core[pandas]`` extra.

pandas semantics apply to missing values on both routes: ``None``, ``NaN``,
``NaT`` and ``pd.NA`` (whatever ``Series.isna`` flags) are nulls, also in
float columns.  Column names become ``str(name)``, as in pyarrow.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.interop.ingest import as_table
from parquet_core.table.ingest_numpy import array_from_numpy

__all__ = ["table_from_pandas", "table_to_pandas", "column_from_series"]


def _arrow_module() -> ModuleType | None:
    """``parquet_core.interop.arrow`` when pyarrow is importable, else ``None``."""
    try:
        from parquet_core.interop import arrow
    except ImportError:
        return None
    return arrow


def table_from_pandas(df: Any, schema: Schema | list[Field] | None = None, *,
                      validate_utf8: bool = True) -> Table:
    """Convert a pandas DataFrame (with its index, as pyarrow keeps it) to a :class:`Table`.

    Raises
    ------
    ParquetSchemaError
        For duplicate column names and data that cannot be stored.
    UnsupportedFeatureError
        Without pyarrow's conversion, for an index or dtype only pandas
        metadata could keep.
    """
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        dup = next(n for i, n in enumerate(names) if n in names[:i])
        raise ParquetSchemaError(f"column {dup!r} appears more than once")
    arrow = _arrow_module()
    if arrow is not None and schema is not None:
        target = schema if isinstance(schema, Schema) else Schema(list(schema))
        kept = _with_schema(arrow, df, names, target, validate_utf8)
        if kept is not None:
            return kept
    if arrow is not None:
        converted = arrow.arrow_from_pandas(df)
        if converted is not None:
            return as_table(converted, schema, validate_utf8=validate_utf8)
    _check_plain_frame(df, names, pyarrow_refused=arrow is not None)
    columns = {name: df.iloc[:, i] for i, name in enumerate(names)}
    return as_table(columns, schema, validate_utf8=validate_utf8)


def _index_names(df: Any) -> list[str]:
    """The column names pyarrow gives the index levels (``__index_level_N__`` when unnamed)."""
    return [f"__index_level_{i}__" if n is None else str(n) for i, n in enumerate(df.index.names)]


def _default_index(df: Any) -> bool:
    index = df.index
    return type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1 \
        and index.name is None


def _with_schema(arrow: ModuleType, df: Any, names: list[str], target: Schema,
                 validate_utf8: bool) -> Table | None:
    """*df* cast to *target* keeping the ``pandas`` metadata, as pyarrow keeps it, or None.

    As ``pa.Table.from_pandas(df, schema=...)``: the index is stored when the
    schema names its column(s) (``idx``, ``__index_level_0__``), and the
    pandas metadata records the frame's own dtypes (a zone, a nullable
    integer, a categorical written as its values) over the schema's types.
    Unlike pyarrow, nothing is dropped silently: a data column the schema
    lacks, or an index other than the default RangeIndex that the schema
    does not name, is refused.  None when pyarrow cannot convert the frame to
    the schema's Arrow types (our own cast then names the column and row).
    """
    index = _index_names(df)
    for f in target:
        if f.name not in names and f.name not in index:
            raise ParquetSchemaError(f"column {f.name!r} is in the schema but not in the data")
    for name in names:
        if name not in target.names:
            raise ParquetSchemaError(f"column {name!r} is in the data but not in the schema")
    stored = [n for n in index if n in target.names]
    if stored != index and not (not stored and _default_index(df)):
        raise ParquetSchemaError(
            f"the frame's index ({type(df.index).__name__}, stored as {index}) is not in the "
            f"schema and would be lost: add the index column(s) to the schema, or "
            f"reset_index(drop=True) first")
    converted = arrow.arrow_from_pandas(df, target)
    if converted is None:
        return None
    first = arrow.table_from_arrow(converted, validate_utf8=False)   # checked by the cast below
    # the pandas and ARROW:schema keys; the writer keeps ARROW:schema only where it
    # describes the types the file gets (see interop/stored_schema.py)
    return as_table(first, target, validate_utf8=validate_utf8).replace_schema_metadata(first.metadata)


def table_to_pandas(table: Table, **kwargs: Any) -> Any:
    """Convert a :class:`Table` to a DataFrame, through Arrow (:func:`Table.to_arrow`).

    The ``pandas`` metadata of a table read from a file restores the index,
    column index names and dtypes, as ``pyarrow.parquet`` does.  *kwargs* are
    ``pyarrow.Table.to_pandas``'s (``types_mapper``, ``timestamp_as_object``...).

    Raises
    ------
    UnsupportedFeatureError
        When pyarrow or pandas is not installed (naming the extra to install).
    """
    try:
        import pandas  # noqa: F401 - only to say which package is missing
        from parquet_core.interop.arrow import table_to_arrow
    except ImportError as exc:
        raise UnsupportedFeatureError(
            f"to_pandas() needs pandas and pyarrow ({exc}); install the 'parquet-core[pandas]' extra"
        ) from exc
    return table_to_arrow(table).to_pandas(**kwargs)   # pyarrow's keywords (types_mapper, ...)


#: dtype kinds whose meaning lives only in the pandas / Arrow metadata
_METADATA_ONLY = ("category", "period", "interval", "Sparse", "timedelta64")


def _check_plain_frame(df: Any, names: list[str], pyarrow_refused: bool) -> None:
    """Refuse what the column-by-column route would write lossily."""
    why = ("pyarrow could not convert this frame" if pyarrow_refused
           else "pyarrow is not installed; install the 'parquet-core[pandas]' extra")
    index = df.index
    default = type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1 \
        and index.name is None
    if not default:
        raise UnsupportedFeatureError(
            f"the frame's index ({type(index).__name__}) can only be stored with pandas metadata, "
            f"which needs pyarrow's conversion ({why}); reset_index() first to store it as columns")
    for name, dtype in zip(names, df.dtypes):
        text = str(dtype)
        zoned = getattr(dtype, "tz", None) is not None and str(dtype.tz) != "UTC"
        if zoned or any(text.startswith(k) for k in _METADATA_ONLY):
            raise UnsupportedFeatureError(
                f"column {name!r}: dtype {text} can only be stored with pandas metadata, "
                f"which needs pyarrow's conversion ({why})")


def column_from_series(s: Any, name: str) -> Any:
    """Return a column :func:`parquet_core.table.ingest.as_table` accepts for a Series.

    That is a numpy array (masked where ``isna``), an object array with
    ``None`` for nulls, an :class:`Array` (tz-aware timestamps, stored as
    UTC) or, for pyarrow-backed dtypes, the pyarrow array itself.
    """
    dtype = s.dtype
    null = np.asarray(s.isna().to_numpy(), dtype=bool)
    if hasattr(dtype, "pyarrow_dtype"):
        return s.array.__arrow_array__()
    if getattr(dtype, "tz", None) is not None:
        naive = s.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
        arr = array_from_numpy(np.ma.masked_array(naive, mask=null), name)
        return Array(DataType("timestamp", unit=arr.type.unit, tz="UTC"), arr.values, arr.validity)
    numpy_dtype = dtype if isinstance(dtype, np.dtype) else getattr(dtype, "numpy_dtype", None)
    if isinstance(dtype, np.dtype):
        values = s.to_numpy()
    elif numpy_dtype is not None and numpy_dtype.kind in "biuf":
        values = s.to_numpy(dtype=numpy_dtype, na_value=numpy_dtype.type(0))
    else:
        values = s.to_numpy(dtype=object)
    if values.dtype == object:
        values = values.copy()
        values[null] = None
        return values
    return np.ma.masked_array(values, mask=null) if null.any() else values
