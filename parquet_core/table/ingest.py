"""Turn user data into a :class:`Table`, inferring or enforcing a schema.

:func:`as_table` is the front door of the write path.  It accepts

* a :class:`Table` (returned as is, or cast to *schema*);
* a mapping ``{name: column}``, a column being a numpy array (``numpy.ma``
  masks are nulls; see :mod:`parquet_core.table.ingest_numpy`), a list or
  other sequence of Python values (``None`` is null; see
  :mod:`parquet_core.table.infer`; lists and dicts make nested columns, see
  :mod:`parquet_core.table.ingest_nested`), an :class:`Array`, a pyarrow
  array or a pandas Series;
* a pandas DataFrame (through pyarrow when it is installed, else column by
  column; see :mod:`parquet_core.interop.pandas`);
* a pyarrow Table or RecordBatch (:func:`parquet_core.interop.arrow.table_from_arrow`);
* any other object exposing the Arrow PyCapsule interface (``__arrow_c_stream__`` or
  ``__arrow_c_array__``: a polars DataFrame, a duckdb relation...), read through the
  Arrow C Data Interface without pyarrow (:mod:`parquet_core.table.arrow_c_import`);
  a column may be such an object too (a polars Series).

pandas and pyarrow objects are recognised here by the module their type comes
from, but converted by the caller's *foreign* converters
(:class:`ForeignInput`): ``parquet_core.interop`` sits above this layer and
passes them down (:func:`parquet_core.interop.ingest.as_table`, the front door
the writer and the facade use).  Without them such an object is refused with
a TypeError, never read as a generic sequence.

With a *schema*, every column is cast to its field's type by
:func:`parquet_core.table.coerce.cast_array`, which refuses (never rounds)
what does not fit, and the result follows the schema's column order.  Data
that does not match raises :class:`ParquetSchemaError` naming the column and,
for values, the first offending row (counted from 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import numpy as np

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.arrow_c_import import column_from_capsules, has_capsule, table_from_capsules
from parquet_core.table.coerce import cast_array
from parquet_core.table.infer import array_from_pylist
from parquet_core.table.ingest_nested import looks_nested, nested_from_pylist
from parquet_core.table.ingest_numpy import array_from_numpy

__all__ = ["as_table", "as_array", "ForeignInput", "foreign_module"]

#: Sized objects that are values, not columns.
_NOT_COLUMNS = (str, bytes, bytearray, memoryview, Mapping)


class ForeignInput(Protocol):
    """Converters for other libraries' objects, handed down by ``parquet_core.interop``."""

    def table(self, data: Any, schema: Schema | None, validate_utf8: bool) -> Table:
        """A pyarrow Table / RecordBatch or a pandas DataFrame as a Table (cast to *schema*)."""

    def column(self, col: Any, name: str, check_arrow_text: bool) -> tuple[Any, bool]:
        """A pyarrow array or pandas Series as an :class:`Array` or numpy array, with the
        flag "its text is known to be valid UTF-8"."""


def foreign_module(obj: Any) -> str | None:
    """The top-level module of *obj*'s type when it is ``"pyarrow"`` or ``"pandas"``, else None."""
    module = type(obj).__module__.split(".")[0]
    return module if module in ("pyarrow", "pandas") else None


def _refuse(obj: Any) -> TypeError:
    return TypeError(f"{type(obj).__module__}.{type(obj).__name__} needs parquet_core.interop's converters: "
                     "use parquet_core.as_table (or Table.from_pydict, write_table...)")


def as_table(data: Any, schema: Schema | list[Field] | None = None, *, validate_utf8: bool = True,
             foreign: ForeignInput | None = None) -> Table:
    """Build a :class:`Table` from *data*, inferring the schema or enforcing *schema*.

    Parameters
    ----------
    data:
        A Table, a mapping of column name to column, a pandas DataFrame, or a
        pyarrow Table / RecordBatch (the last two, and pyarrow / pandas
        columns, need *foreign*).
    schema:
        Optional :class:`Schema` (or list of :class:`Field`); its fields must
        name exactly the data's columns.
    validate_utf8:
        Check that string / json / enum values are valid UTF-8.  Text this
        function encodes itself from Python ``str`` is valid by construction.
    foreign:
        The pyarrow / pandas converters (:mod:`parquet_core.interop.ingest`).

    Returns
    -------
    Table

    Raises
    ------
    ParquetSchemaError
        When the data does not fit the schema, cannot be inferred, or has
        columns of different lengths.
    UnsupportedFeatureError
        For Arrow types without a parquet_core counterpart (unions, list views).
    TypeError, ValueError
        For inputs of an unsupported kind or a malformed schema.
    """
    target = _as_schema(schema)
    if isinstance(data, Table):
        if target is None:
            return data
        return _build({f.name: c for f, c in zip(data.schema, data.columns)}, target, validate_utf8, foreign)
    module = foreign_module(data)
    if module == "pyarrow" or (module == "pandas" and hasattr(data, "columns") and hasattr(data, "iloc")):
        if foreign is None:
            raise _refuse(data)
        return foreign.table(data, target, validate_utf8)
    if isinstance(data, Mapping):
        return _build(data, target, validate_utf8, foreign)
    if has_capsule(data):   # polars, duckdb, ...: the Arrow PyCapsule interface, no pyarrow
        table = table_from_capsules(data, validate_utf8=validate_utf8 and target is None)
        return table if target is None else as_table(table, target, validate_utf8=validate_utf8)
    raise TypeError(f"cannot build a table from {type(data).__name__}; pass a mapping of "
                    "columns, a Table, a pandas DataFrame, a pyarrow Table or an object with "
                    "__arrow_c_stream__ / __arrow_c_array__ (polars, duckdb...)")


def as_array(column: Any, name: str = "?", field: Field | None = None, *, validate_utf8: bool = True,
             foreign: ForeignInput | None = None) -> Array:
    """Build one column's :class:`Array`, inferred, or cast to *field* when given
    (a pyarrow array or pandas Series needs *foreign*, as for :func:`as_table`).

    Raises
    ------
    ParquetSchemaError
        When the values cannot be inferred or do not fit *field*.
    """
    ints_as_decimal = field is not None and field.type.id is TypeId.DECIMAL
    # without a field nothing casts the column later, so Arrow text is checked on the way in
    target = None if field is None or not field.type.is_nested else field.type
    arr, trusted = _column_array(column, name, ints_as_decimal, validate_utf8 and field is None,
                                 target, foreign)
    if field is None:
        return arr
    return cast_array(arr, field, validate_utf8=validate_utf8, trusted_text=trusted)


def _as_schema(schema: Any) -> Schema | None:
    if schema is None or isinstance(schema, Schema):
        fields = None if schema is None else schema.fields
    elif isinstance(schema, (list, tuple)) and all(isinstance(f, Field) for f in schema):
        fields = list(schema)
    else:
        raise TypeError(f"schema must be a parquet_core Schema or a list of Field, got {type(schema).__name__}")
    if fields is None:
        return None
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise ValueError(f"schema names a column twice: {names}")
    return schema if isinstance(schema, Schema) else Schema(fields)


def _build(columns: Mapping[Any, Any], schema: Schema | None, validate_utf8: bool,
           foreign: ForeignInput | None) -> Table:
    names = list(columns.keys())
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"column names must be str, got {name!r}")
    if schema is not None:
        missing = [f.name for f in schema if f.name not in columns]
        if missing:
            raise ParquetSchemaError(f"column {missing[0]!r} is in the schema but not in the data")
        known = set(schema.names)    # once: a wide table's check was quadratic
        extra = [n for n in names if n not in known]
        if extra:
            raise ParquetSchemaError(f"column {extra[0]!r} is in the data but not in the schema")
        names = schema.names
    _check_lengths({n: columns[n] for n in names if hasattr(columns[n], "__len__")
                    and not isinstance(columns[n], _NOT_COLUMNS)})
    fields, arrays = [], []
    for i, name in enumerate(names):
        field = None if schema is None else schema.field(i)
        arr = as_array(columns[name], name, field, validate_utf8=validate_utf8, foreign=foreign)
        fields.append(field or Field(name, arr.type, nullable=True))
        arrays.append(arr)
    num_rows = _check_lengths(dict(zip(names, arrays)))  # iterators are known only now
    return Table(Schema(fields), arrays, num_rows)


def _check_lengths(columns: Mapping[str, Any]) -> int:
    """Return the common length, refusing the first column whose length differs."""
    first, n = None, 0
    for name, col in columns.items():
        if first is None:
            first, n = name, len(col)
        elif len(col) != n:
            raise ParquetSchemaError(f"column {name!r} has {len(col)} rows, column {first!r} has {n}")
    return n


def _column_array(col: Any, name: str, ints_as_decimal: bool, check_arrow_text: bool,
                  nested: DataType | None = None, foreign: ForeignInput | None = None) -> tuple[Array, bool]:
    """Convert one column; the flag says its text was encoded here from ``str`` (valid UTF-8)."""
    if isinstance(col, Array):
        return col, False
    if isinstance(col, np.ndarray) and col.dtype.kind == "O" and col.ndim == 1 \
            and (nested is not None or looks_nested(col.tolist())):
        return nested_from_pylist(col.tolist(), name, nested), True
    if isinstance(col, np.ndarray):
        return array_from_numpy(col, name, ints_as_decimal=ints_as_decimal), col.dtype.kind in "UO"
    module = foreign_module(col)
    if module == "pyarrow" or (module == "pandas" and hasattr(col, "isna")):
        if foreign is None:
            raise _refuse(col)
        converted, trusted = foreign.column(col, name, check_arrow_text)
        if isinstance(converted, Array):
            return converted, trusted
        # a Series comes back as numpy / Python values: converted as any other column
        return _column_array(converted, name, ints_as_decimal, check_arrow_text, nested, foreign)
    if module is None and has_capsule(col):   # a polars Series, an Arrow array of another library
        return column_from_capsules(col, name, validate_utf8=check_arrow_text), check_arrow_text
    if isinstance(col, _NOT_COLUMNS) or not isinstance(col, Iterable):
        raise TypeError(f"column {name!r}: expected an array or a sequence of values, "
                        f"got {type(col).__name__}")
    values = list(col)
    if nested is not None or looks_nested(values):
        return nested_from_pylist(values, name, nested), True
    return array_from_pylist(values, name, ints_as_decimal=ints_as_decimal), True
