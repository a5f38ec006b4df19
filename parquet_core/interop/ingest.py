"""The write path's front door: any input (Python, numpy, pyarrow, pandas) as a :class:`Table`.

:mod:`parquet_core.table.ingest` builds tables from Python values, numpy
arrays and our own arrays; it recognises pyarrow and pandas objects but does
not convert them, because the converters (this package) sit above the table
layer.  The functions here pass those converters down, so the writer, the
dataset writer, Bloom filter look-ups and the facade's :func:`as_table`
accept every input :mod:`parquet_core.table.ingest` documents.

Importing this module imports neither pyarrow nor pandas: the converters load
:mod:`parquet_core.interop.arrow` / :mod:`parquet_core.interop.pandas` when an
object of theirs first arrives.
"""

from __future__ import annotations

from typing import Any, Iterator

from parquet_core.schema.types import Field, Schema
from parquet_core.table import ingest as _ingest
from parquet_core.table.arrays import Array, Table

__all__ = ["as_table", "as_array", "as_write_table", "input_stream", "FOREIGN"]


class _Converters:
    """:class:`parquet_core.table.ingest.ForeignInput` for pyarrow and pandas.

    *borrow*: pyarrow data keeps the buffers only the writer takes as they are
    (:func:`parquet_core.interop.arrow.table_from_arrow`), for :func:`as_write_table`.
    """

    def __init__(self, borrow: bool = False) -> None:
        self.borrow = borrow

    def table(self, data: Any, schema: Schema | None, validate_utf8: bool) -> Table:
        if _ingest.foreign_module(data) == "pyarrow":
            from parquet_core.interop.arrow import table_from_arrow

            if hasattr(data, "read_all") and not hasattr(data, "num_rows"):   # a RecordBatchReader
                data = data.read_all()

            table = table_from_arrow(data, validate_utf8=validate_utf8 and schema is None,
                                     borrow=self.borrow)
            return table if schema is None else as_table(table, schema, validate_utf8=validate_utf8)
        from parquet_core.interop.pandas import table_from_pandas

        return table_from_pandas(data, schema, validate_utf8=validate_utf8)

    def column(self, col: Any, name: str, check_arrow_text: bool) -> tuple[Any, bool]:
        if _ingest.foreign_module(col) == "pyarrow":
            from parquet_core.interop.arrow import array_from_arrow

            return (array_from_arrow(col, name, validate_utf8=check_arrow_text, borrow=self.borrow),
                    check_arrow_text)
        from parquet_core.interop.pandas import column_from_series

        return column_from_series(col, name), False


#: The converters :mod:`parquet_core.table.ingest` calls back for pyarrow / pandas objects.
FOREIGN = _Converters()
#: The same for the writer: Arrow buffers the leaves convert one column at a time are borrowed.
_WRITE_FOREIGN = _Converters(borrow=True)


def as_table(data: Any, schema: Schema | list[Field] | None = None, *, validate_utf8: bool = True) -> Table:
    """Build a :class:`Table` from *data*: a Table, a mapping ``{name: column}`` (numpy
    arrays, sequences of Python values, pyarrow arrays, pandas Series, polars Series...), a
    pandas DataFrame, a pyarrow Table / RecordBatch / RecordBatchReader, or any object with
    ``__arrow_c_stream__`` / ``__arrow_c_array__`` (a polars DataFrame, a duckdb relation:
    read through the Arrow C Data Interface, no pyarrow); the schema is inferred, or every column is
    cast to *schema* (refusing, never rounding, what does not fit).  A Table without a
    *schema* is returned as is.

    Raises
    ------
    ParquetSchemaError
        When the data does not fit the schema, cannot be inferred, or has columns of
        different lengths.
    TypeError, ValueError
        For inputs of an unsupported kind or a malformed schema.
    """
    return _ingest.as_table(data, schema, validate_utf8=validate_utf8, foreign=FOREIGN)


def as_write_table(data: Any, schema: Schema | list[Field] | None = None, *,
                   validate_utf8: bool = True) -> Table:
    """:func:`as_table` for the writer: its result goes only to
    :class:`~parquet_core.table.write_leaves.WriteLeaves`.

    Arrow string offsets and decimal words are borrowed rather than converted
    (:func:`parquet_core.interop.arrow.table_from_arrow`); each leaf converts its
    own when its chunk is encoded, so the write holds one column's converted
    values at a time instead of the whole table's (``benchmarks/write_memory_bench``).
    """
    return _ingest.as_table(data, schema, validate_utf8=validate_utf8, foreign=_WRITE_FOREIGN)


def as_array(column: Any, name: str = "?", field: Field | None = None, *, validate_utf8: bool = True) -> Array:
    """One column's :class:`Array` from any column :func:`as_table` accepts, inferred or
    cast to *field*."""
    return _ingest.as_array(column, name, field, validate_utf8=validate_utf8, foreign=FOREIGN)


def input_stream(data: Any, schema: Schema | None = None, *,
                 validate_utf8: bool = True) -> tuple[Any, Iterator[Table]] | None:
    """*data* as a stream of batches, when it is one: ``(schema, batches)``, else ``None``.

    A stream is a pyarrow ``RecordBatchReader`` (its batches converted by pyarrow, its
    schema the ``pyarrow.Schema``, whose ``ARROW:schema`` the writer stores) or any other
    object with ``__arrow_c_stream__`` that is not a table already in memory in a form
    :func:`as_table` converts whole (a pyarrow Table, a pandas DataFrame, our Table): a
    polars DataFrame, a duckdb relation... (schema: a :class:`Schema`).  Batches are
    pulled from the producer one at a time, each cast to *schema* when given, so that
    the writer never holds the whole input.
    """
    if isinstance(data, Table) or not hasattr(data, "__arrow_c_stream__"):
        return None
    module = _ingest.foreign_module(data)
    if module == "pandas" or (module == "pyarrow" and hasattr(data, "num_rows")):
        return None
    if module == "pyarrow":
        arrow_schema = data.schema
        return arrow_schema, (as_table(batch, schema, validate_utf8=validate_utf8) for batch in data)
    from parquet_core.table.arrow_c_import import iter_stream

    fields, batches = iter_stream(data, validate_utf8=validate_utf8 and schema is None)
    if schema is None:
        return fields, batches
    return schema, (as_table(batch, schema, validate_utf8=validate_utf8) for batch in batches)
