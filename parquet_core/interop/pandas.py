"""pandas DataFrames in and out of parquet_core: the entry points.

A DataFrame is converted by our own code (:mod:`~parquet_core.interop.pandas_in`:
pandas and numpy only, whether or not pyarrow is installed), giving the
columns, index and ``pandas`` / ``ARROW:schema`` metadata pyarrow's
``from_pandas`` gives; :func:`table_to_pandas` converts back
(:mod:`~parquet_core.interop.pandas_out`) to the frame pyarrow's
``to_pandas`` gives.  pyarrow is used only for what only it converts
(pyarrow-backed dtypes; ``to_pandas`` keywords
such as ``types_mapper``) and, when installed, for an explicit ``schema=``
(pyarrow's ``from_pandas(df, schema=...)``); without it those raise naming
pyarrow, or (``schema=``) each column is cast on its own.

pandas semantics apply to missing values: ``None``, ``NaN``, ``NaT`` and
``pd.NA`` (whatever ``Series.isna`` flags) are nulls, also in float columns.
Column names become ``str(name)``, as in pyarrow.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError
from parquet_core.interop.ingest import as_table
from parquet_core.interop.pandas_in import NotPandasConvertible, frame_to_table, refuse_sparse
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table
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

    The conversion is our own (:mod:`parquet_core.interop.pandas_in`, pandas
    and numpy only); pyarrow's ``from_pandas`` is used for what only it can
    convert (pyarrow-backed dtypes) and, when
    installed, for an explicit *schema* (whose pandas metadata is pyarrow's).

    Raises
    ------
    ParquetSchemaError
        For duplicate column names and data that cannot be stored.
    UnsupportedFeatureError
        Without pyarrow, for a dtype only pyarrow converts; for a sparse column (which
        pyarrow refuses too).
    """
    names = [str(c) for c in df.columns]
    for name, dtype in zip(names, df.dtypes):
        refuse_sparse(dtype, name)
    if len(set(names)) != len(names):
        dup = next(n for i, n in enumerate(names) if n in names[:i])
        raise ParquetSchemaError(f"column {dup!r} appears more than once")
    arrow = _arrow_module()
    target = None if schema is None else schema if isinstance(schema, Schema) else Schema(list(schema))
    if arrow is not None and target is not None:
        kept = _with_schema(arrow, df, names, target, validate_utf8)
        if kept is not None:
            return kept
    if target is not None:
        return _cast_to_schema(df, names, target, validate_utf8, pyarrow_missing=arrow is None)
    try:
        return frame_to_table(df)
    except NotPandasConvertible:
        if arrow is None:
            raise
        converted = arrow.arrow_from_pandas(df)
        if converted is None:
            raise
        return as_table(converted, schema, validate_utf8=validate_utf8)


def _cast_to_schema(df: Any, names: list[str], target: Schema, validate_utf8: bool,
                    pyarrow_missing: bool) -> Table:
    """Without pyarrow's conversion: each stored column (data, or an index level the schema
    names) cast straight to *target*'s type, with the ``pandas`` metadata of the frame."""
    _check_schema_names(df, names, target)
    import pandas as pd

    index = _index_names(df)
    columns = {}
    for f in target:
        if f.name in names:
            columns[f.name] = column_from_series(df.iloc[:, names.index(f.name)], f.name)
        else:
            level = df.index.get_level_values(index.index(f.name))
            columns[f.name] = column_from_series(pd.Series(level, copy=False), f.name)
    table = as_table(columns, target, validate_utf8=validate_utf8)
    try:
        converted = frame_to_table(df)
    except (ParquetSchemaError, UnsupportedFeatureError):
        # values only the schema's types hold (an int beyond 64 bits as a decimal...): the
        # data is stored without pandas metadata, which only a default index can do without
        if not _default_index(df):
            raise
        return table
    table._metadata = {k: v for k, v in (converted.metadata or {}).items() if k != b"ARROW:schema"}
    return table


def _index_names(df: Any) -> list[str]:
    """The column names pyarrow gives the index levels (``__index_level_N__`` when unnamed)."""
    return [f"__index_level_{i}__" if n is None else str(n) for i, n in enumerate(df.index.names)]


def _default_index(df: Any) -> bool:
    index = df.index
    return type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1 \
        and index.name is None


def _check_schema_names(df: Any, names: list[str], target: Schema) -> None:
    """Refuse a schema that lacks a data column, names a column the frame lacks, or
    would drop an index other than the default RangeIndex."""
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
    _check_schema_names(df, names, target)
    converted = arrow.arrow_from_pandas(df, target)
    if converted is None:
        return None
    first = arrow.table_from_arrow(converted, validate_utf8=False)   # checked by the cast below
    # the pandas and ARROW:schema keys; the writer keeps ARROW:schema only where it
    # describes the types the file gets (see interop/stored_schema.py)
    return as_table(first, target, validate_utf8=validate_utf8).replace_schema_metadata(first.metadata)


#: ``pyarrow.Table.to_pandas`` keywords and the values our own conversion gives
_DEFAULTS = {"use_threads": None, "date_as_object": True, "strings_to_categorical": False,
             "categories": None, "zero_copy_only": False, "integer_object_nulls": False,
             "timestamp_as_object": False, "split_blocks": None, "self_destruct": None,
             "deduplicate_objects": None, "coerce_temporal_nanoseconds": False, "maps_as_pydicts": None,
             "types_mapper": None, "memory_pool": None}


def table_to_pandas(table: Table, **kwargs: Any) -> Any:
    """Convert a :class:`Table` to a DataFrame, with pandas alone (no pyarrow).

    The frame is the one ``pyarrow.Table.to_pandas()`` gives (see
    :mod:`parquet_core.interop.pandas_out`); the ``pandas`` metadata of a
    table read from a file restores the index, column labels and dtypes.
    *kwargs* are ``pyarrow.Table.to_pandas``'s: ``ignore_metadata`` and the
    others at their defaults are ours; other values (``types_mapper``,
    ``timestamp_as_object=True``...) are handed to pyarrow.

    Raises
    ------
    UnsupportedFeatureError
        When pandas is not installed, or a keyword or dtype needs pyarrow and
        it is not installed (naming it).
    """
    try:
        import pandas  # noqa: F401 - only to say which package is missing
    except ImportError as exc:
        raise UnsupportedFeatureError(
            f"to_pandas() needs pandas ({exc}); install the 'parquet-core[pandas]' extra") from exc
    ignore_metadata = bool(kwargs.pop("ignore_metadata", False))
    other = {k: v for k, v in kwargs.items() if k not in _DEFAULTS or _DEFAULTS[k] is not v
             and _DEFAULTS[k] != v}
    from parquet_core.interop.pandas_meta import loads
    from parquet_core.interop.pandas_out import needs_pyarrow, table_to_frame

    meta = None if ignore_metadata else loads((table.metadata or {}).get(b"pandas"))
    if not other and needs_pyarrow(meta) is None:
        return table_to_frame(table, ignore_metadata=ignore_metadata)
    try:
        from parquet_core.interop.arrow import table_to_arrow
    except ImportError as exc:
        if other:
            raise UnsupportedFeatureError(
                f"to_pandas({', '.join(sorted(other))}=...) needs pyarrow ({exc}); without it, "
                f"call to_pandas() with pyarrow's defaults") from exc
        return table_to_frame(table, ignore_metadata=ignore_metadata)   # names the column
    return table_to_arrow(table).to_pandas(ignore_metadata=ignore_metadata, **kwargs)


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
