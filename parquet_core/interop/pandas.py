"""pandas DataFrame / Series to parquet_core, without importing pandas.

Objects are used through their public methods only (``isna``, ``to_numpy``,
``dt.tz_convert``...).  A DataFrame goes through pyarrow when it is
installed (``pa.Table.from_pandas(df, preserve_index=False)``, then
:func:`parquet_core.interop.arrow.table_from_arrow`), so types match what
pyarrow would write.  Without pyarrow, or when pyarrow refuses a frame (a
column mixing ints and strings...), each column is converted on its own by
:func:`column_from_series`; our own inference then names the offending
column and row.

pandas semantics apply to missing values on both routes: ``None``, ``NaN``,
``NaT`` and ``pd.NA`` (whatever ``Series.isna`` flags) are nulls, also in
float columns.  Column names become ``str(name)``, as in pyarrow.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.ingest import as_table
from parquet_core.table.ingest_numpy import array_from_numpy

__all__ = ["table_from_pandas", "column_from_series"]


def _arrow_module() -> ModuleType | None:
    """``parquet_core.interop.arrow`` when pyarrow is importable, else ``None``."""
    try:
        from parquet_core.interop import arrow
    except ImportError:
        return None
    return arrow


def table_from_pandas(df: Any, schema: Schema | list[Field] | None = None, *,
                      validate_utf8: bool = True) -> Table:
    """Convert a pandas DataFrame (its index is dropped) to a :class:`Table`.

    Raises
    ------
    ParquetSchemaError
        For duplicate column names and data that cannot be stored.
    """
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        dup = next(n for i, n in enumerate(names) if n in names[:i])
        raise ParquetSchemaError(f"column {dup!r} appears more than once")
    arrow = _arrow_module()
    if arrow is not None:
        converted = arrow.arrow_from_pandas(df)
        if converted is not None:
            return as_table(converted, schema, validate_utf8=validate_utf8)
    columns = {name: df.iloc[:, i] for i, name in enumerate(names)}
    return as_table(columns, schema, validate_utf8=validate_utf8)


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
