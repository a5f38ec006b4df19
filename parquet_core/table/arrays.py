"""Columns backed by numpy buffers, and the :class:`Table` that groups them.

An :class:`Array` has a :class:`DataType`, a ``values`` buffer laid out per
the table in :mod:`parquet_core.schema.types` with one slot per row (null
slots hold zeros / empty strings), and an optional boolean ``validity``
mask (True = present).  Conversion to Python objects happens only in
:meth:`Array.to_pylist`, the edge of the engine.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.pyvalues import py_values
from parquet_core.schema.types import DataType, Field, Schema, TypeId, unhandled_type

__all__ = ["Array", "Table"]

# numpy (kind, itemsize) each flat type is stored in; see parquet_core.schema.types
_STORAGE: dict[TypeId, tuple[tuple[str, int], ...]] = {
    TypeId.BOOL: (("b", 1),), TypeId.INT8: (("i", 1),), TypeId.INT16: (("i", 2),), TypeId.INT32: (("i", 4),),
    TypeId.INT64: (("i", 8),), TypeId.UINT8: (("u", 1),), TypeId.UINT16: (("u", 2),),
    TypeId.UINT32: (("u", 4),),
    TypeId.UINT64: (("u", 8),), TypeId.FLOAT16: (("f", 2),), TypeId.FLOAT32: (("f", 4),),
    TypeId.FLOAT64: (("f", 8),), TypeId.DATE: (("i", 4),), TypeId.TIMESTAMP: (("i", 8),),
}
_BYTE_ARRAY_TYPES = frozenset([TypeId.STRING, TypeId.JSON, TypeId.ENUM, TypeId.BINARY, TypeId.BSON,
                               TypeId.GEOMETRY, TypeId.GEOGRAPHY])
_FIXED_WIDTH = {TypeId.UUID: 16, TypeId.INTERVAL: 12, TypeId.INT96: 12}


def _check_storage(dt: DataType, values: Any, validity: Any) -> None:
    """Refuse a buffer that does not hold *dt*'s storage (one dtype check, no value loop).

    This is what keeps a column's declared type and its data in agreement, so
    that no writer can store values other than those the table shows.
    """
    tid = dt.id
    if tid in _BYTE_ARRAY_TYPES or (tid is TypeId.DECIMAL and isinstance(values, ByteArrays)):
        ok = isinstance(values, ByteArrays)
    elif not isinstance(values, np.ndarray):
        ok = False
    elif tid in _STORAGE:
        ok = values.ndim == 1 and (values.dtype.kind, values.dtype.itemsize) in _STORAGE[tid]
    elif tid is TypeId.TIME:
        ok = values.ndim == 1 and values.dtype.kind == "i" and \
            values.dtype.itemsize == (4 if dt.unit == "ms" else 8)
    elif tid is TypeId.DECIMAL:
        ok = (values.ndim == 1 and values.dtype.kind == "i" and values.dtype.itemsize == 8) or \
            (values.ndim == 2 and values.dtype == np.uint8)
    elif tid in _FIXED_WIDTH or tid is TypeId.FIXED_SIZE_BINARY:
        width = _FIXED_WIDTH.get(tid, dt.byte_width)
        ok = values.ndim == 2 and values.dtype == np.uint8 and values.shape[1] == width
    elif tid is TypeId.NULL:   # its slots are never read
        ok = values.ndim == 1
    else:
        unhandled_type(dt, "Array storage check")
    if not ok:
        got = type(values).__name__ if not isinstance(values, np.ndarray) else \
            f"ndarray[{values.dtype}, ndim={values.ndim}{', width=' + str(values.shape[1]) if values.ndim == 2 else ''}]"
        raise ParquetSchemaError(f"an Array of type {dt} cannot hold a {got} buffer")
    if validity is not None and (not isinstance(validity, np.ndarray) or validity.dtype != np.bool_
                                 or validity.shape != (len(values),)):
        raise ParquetSchemaError(f"the validity of an Array of type {dt} must be a bool array "
                                 f"with one slot per value ({len(values)})")


class Array:
    """One column of values with an optional validity mask.

    Parameters
    ----------
    type:
        The column's :class:`DataType`.
    values:
        numpy array, ``(n, w)`` uint8 array or :class:`ByteArrays`, one slot per row.
    validity:
        Boolean mask, True where a value is present; ``None`` when no nulls.
    """

    __slots__ = ("type", "values", "validity")

    def __init__(self, type: DataType, values: Any, validity: npt.NDArray[np.bool_] | None = None) -> None:
        if not type.is_nested:
            _check_storage(type, values, validity)
        self.type = type
        self.values = values
        self.validity = validity

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"<Array {self.type} length={len(self)} nulls={self.null_count}>"

    @property
    def null_count(self) -> int:
        """Number of null slots."""
        return 0 if self.validity is None else int(len(self.validity) - np.count_nonzero(self.validity))

    def is_null(self) -> npt.NDArray[np.bool_]:
        """Boolean mask, True where the slot is null."""
        if self.validity is None:
            return np.zeros(len(self), dtype=bool)
        return ~self.validity

    def to_pylist(self) -> list[Any]:
        """Return the values as Python objects, ``None`` for nulls."""
        out = py_values(self.type, self.values)
        if self.validity is not None:
            for i in np.flatnonzero(~self.validity).tolist():
                out[i] = None
        return out

    @property
    def offsets(self) -> npt.NDArray[np.int64] | None:
        """Value offsets (n + 1) of variable-length data, else ``None``."""
        return self.values.offsets if isinstance(self.values, ByteArrays) else None

    @property
    def data(self) -> npt.NDArray[np.uint8] | None:
        """Concatenated bytes of variable-length data, else ``None``."""
        return self.values.data if isinstance(self.values, ByteArrays) else None

    def to_numpy(self) -> Any:
        """Return the values buffer (nulls are filler; see :attr:`validity`)."""
        return self.values

    def slice(self, start: int, stop: int) -> Array:
        """Return rows ``start:stop``."""
        v = self.values.slice(start, stop) if isinstance(self.values, ByteArrays) else self.values[start:stop]
        m = None if self.validity is None else self.validity[start:stop]
        return Array(self.type, v, m)

    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[object, object]:
        """The Arrow PyCapsule interface: ``(arrow_schema, arrow_array)`` capsules of this
        column, over its numpy buffers (see :mod:`parquet_core.table.arrow_c_export`).
        *requested_schema* is accepted and ignored, as the interface allows."""
        from parquet_core.table.arrow_c_export import column_capsules

        return column_capsules(self)

    @staticmethod
    def concat(parts: list[Array]) -> Array:
        """Concatenate arrays of one type."""
        if len(parts) == 1:
            return parts[0]
        if type(parts[0]) is not Array:  # nested arrays concatenate their own way
            return type(parts[0]).concat(parts)
        dt = parts[0].type
        if isinstance(parts[0].values, ByteArrays):
            values: Any = ByteArrays.concat([p.values for p in parts])
        else:
            values = np.concatenate([p.values for p in parts])
        if all(p.validity is None for p in parts):
            return Array(dt, values, None)
        mask = np.concatenate([p.validity if p.validity is not None else np.ones(len(p), bool)
                               for p in parts])
        return Array(dt, values, mask)


class Table:
    """Named columns of equal length."""

    __slots__ = ("_schema", "_columns", "_num_rows", "_metadata")

    def __init__(self, schema: Schema, columns: list[Array], num_rows: int | None = None, *,
                 metadata: dict[bytes, bytes] | None = None) -> None:
        self._metadata = metadata   # key/value metadata: see the metadata property
        if len(schema) != len(columns):
            raise ValueError("schema and columns differ in length")
        n = num_rows if num_rows is not None else (len(columns[0]) if columns else 0)
        for f, c in zip(schema, columns):
            if len(c) != n:
                raise ValueError(f"column {f.name!r} has {len(c)} rows, expected {n}")
        self._schema = schema
        self._columns = columns
        self._num_rows = n

    @property
    def num_rows(self) -> int:
        """Number of rows."""
        return self._num_rows

    @property
    def metadata(self) -> dict[bytes, bytes] | None:
        """The file's key/value metadata, for a table read whole from one file
        (:meth:`ParquetFile.read`, :func:`read_table`); else None.  ``to_arrow``
        uses its ``ARROW:schema`` entry as pyarrow does (see ``interop/arrow.py``)."""
        return self._metadata

    def replace_schema_metadata(self, metadata: Mapping[Any, str | bytes] | None = None) -> Table:
        """The same columns with *metadata* as the key/value metadata (None: none), as
        pyarrow's ``Table.replace_schema_metadata``; ``str`` keys and values are UTF-8 encoded."""
        def raw(v: str | bytes) -> bytes:
            return v.encode() if isinstance(v, str) else bytes(v)
        kv = None if metadata is None else {raw(k): raw(v) for k, v in metadata.items()}
        return Table(self._schema, self._columns, self._num_rows, metadata=kv)

    @property
    def num_columns(self) -> int:
        """Number of columns."""
        return len(self._columns)

    @property
    def column_names(self) -> list[str]:
        """Column names in order."""
        return self._schema.names

    @property
    def schema(self) -> Schema:
        """The table's :class:`Schema`."""
        return self._schema

    @property
    def columns(self) -> list[Array]:
        """The columns in order."""
        return list(self._columns)

    def column(self, name_or_index: str | int) -> Array:
        """Return a column by position, or by a name only one column has.

        Raises
        ------
        KeyError
            For a name no column has.
        ParquetSchemaError
            For a name several columns have (a file may repeat a name): pick by position.
        """
        if isinstance(name_or_index, int):
            return self._columns[name_or_index]
        try:
            return self._columns[self._schema.index(name_or_index)]
        except KeyError:
            raise KeyError(f"no column named {name_or_index!r}; the columns are "
                           f"{self._schema.names}") from None

    def __getitem__(self, key: str | int) -> Array:
        return self.column(key)

    @property
    def shape(self) -> tuple[int, int]:
        """``(num_rows, num_columns)``, as pyarrow's ``Table.shape``."""
        return self._num_rows, len(self._columns)

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns' buffers (values, offsets, validity masks, children).

        Our layout is not Arrow's (a bool or a validity slot takes a byte, offsets are
        64-bit), so this equals pyarrow's ``nbytes`` only for fixed-width columns
        without nulls; buffers shared by several columns or slices count for each.
        """
        return sum(_array_nbytes(c) for c in self._columns)

    def _index(self, key: str | int) -> int:
        if isinstance(key, int) and not isinstance(key, bool):
            if not -len(self._columns) <= key < len(self._columns):
                raise IndexError(f"column index {key} out of range for {len(self._columns)} columns")
            return key % len(self._columns)
        if not isinstance(key, str):
            raise TypeError(f"a column is named by a str or an int, not {type(key).__name__}")
        names = self._schema.names
        if names.count(key) != 1:
            raise KeyError(f"no column named {key!r}; the columns are {names}") if key not in names \
                else KeyError(f"column name {key!r} is ambiguous")
        return names.index(key)

    def _with_columns(self, indices: list[int], names: list[str] | None = None) -> Table:
        fields = [self._schema.field(i) for i in indices]
        if names is not None:
            fields = [Field(n, f.type, f.nullable, field_id=f.field_id) for n, f in zip(names, fields)]
        out = Table(Schema(fields), [self._columns[i] for i in indices], self._num_rows)
        out._metadata = self._metadata
        if self._metadata and names is None and indices != list(range(len(self._columns))):
            out._metadata = narrowed_metadata(self._metadata, out._schema.names)
        return out

    def select(self, columns: list[str | int]) -> Table:
        """The table of *columns* (names or positions), in that order, as pyarrow's
        ``Table.select``; the metadata is kept (its ``ARROW:schema`` entry with only
        those fields: see :func:`narrowed_metadata`).

        Raises
        ------
        KeyError
            For a name the table does not have.
        """
        return self._with_columns([self._index(c) for c in columns])

    def drop_columns(self, columns: str | list[str]) -> Table:
        """The table without *columns* (one name or a list), as pyarrow's ``drop_columns``.

        Raises
        ------
        KeyError
            For a name the table does not have (nothing is dropped then).
        """
        names = [columns] if isinstance(columns, str) else list(columns)
        have = set(self._schema.names)
        missing = [n for n in names if n not in have]
        if missing:
            raise KeyError(f"cannot drop {missing}: no such columns; the columns are {self._schema.names}")
        dropped = set(names)
        return self._with_columns([i for i, n in enumerate(self._schema.names) if n not in dropped])

    drop = drop_columns

    def rename_columns(self, names: list[str] | dict[str, str]) -> Table:
        """The table with its columns renamed, as pyarrow's ``rename_columns``: a list of
        new names (one per column) or a mapping ``{old: new}`` (other columns keep theirs).

        The key/value metadata is dropped, as pyarrow 26 does (its ``ARROW:schema`` and
        ``pandas`` entries name the old columns).

        Raises
        ------
        ValueError
            For a list of the wrong length.
        KeyError
            For a mapping naming a column the table does not have.
        """
        old = self._schema.names
        if isinstance(names, dict):
            missing = [k for k in names if k not in old]
            if missing:
                raise KeyError(f"cannot rename {missing}: no such columns; the columns are {old}")
            new = [names.get(n, n) for n in old]
        else:
            new = list(names)
            if len(new) != len(old):
                raise ValueError(f"rename_columns needs {len(old)} names, got {len(new)}")
        if not all(isinstance(n, str) for n in new):
            raise TypeError("column names must be str")
        out = self._with_columns(list(range(len(old))), new)
        out._metadata = None
        return out

    def __len__(self) -> int:
        return self._num_rows

    def __repr__(self) -> str:
        return f"<Table {self._num_rows} rows x {len(self._columns)} columns>\n{self._schema}"

    def _unique_names(self, what: str) -> list[str]:
        """The column names, refusing names several columns share (a dict would keep one)."""
        names = self._schema.names
        for name in names:
            if len(found := self._schema.positions(name)) > 1:
                raise ParquetSchemaError(
                    f"{what}: column name {name!r} is shared by the columns at positions "
                    f"{', '.join(map(str, found))} and a dict keeps one of them; use column(i)")
        return names

    def to_pydict(self) -> dict[str, list[Any]]:
        """Return ``{name: [python values]}`` (``ParquetSchemaError`` when names repeat)."""
        names = self._unique_names("to_pydict")
        return {n: c.to_pylist() for n, c in zip(names, self._columns)}

    def to_pylist(self) -> list[dict[str, Any]]:
        """Return one ``{name: value}`` dict per row (``ParquetSchemaError`` when names repeat)."""
        names = self._unique_names("to_pylist")
        cols = [c.to_pylist() for c in self._columns]
        return [dict(zip(names, row)) for row in zip(*cols)] if cols else [{}] * self._num_rows

    def slice(self, offset: int = 0, length: int | None = None) -> Table:
        """Return *length* rows (default: all the rest) from row *offset*, as pyarrow's
        ``Table.slice``; both are clipped to the table.

        Raises
        ------
        IndexError
            For a negative offset or length (as pyarrow).
        """
        if offset < 0:
            raise IndexError(f"slice: offset must be non-negative, got {offset}")
        if length is not None and length < 0:
            raise IndexError(f"slice: length must be non-negative, got {length}")
        start = min(offset, self._num_rows)
        return self.slice_rows(start, self._num_rows if length is None else start + length)

    def slice_rows(self, start: int, stop: int) -> Table:
        """Return rows ``start:stop`` (*stop* clipped to the table)."""
        stop = min(stop, self._num_rows)
        return Table(self._schema, [c.slice(start, stop) for c in self._columns], max(stop - start, 0),
                     metadata=self._metadata)

    def take(self, indices: Any) -> Table:
        """Return the rows at *indices* (integers in ``[0, num_rows)``, in that order,
        repeats allowed), as pyarrow's ``Table.take``.

        Raises
        ------
        IndexError
            For an index outside ``[0, num_rows)``.
        """
        from parquet_core.table.select import take

        idx = np.asarray(indices)
        if idx.size and idx.dtype.kind not in "iu":
            raise TypeError(f"take needs integer indices, got {idx.dtype}")
        idx = idx.astype(np.int64, copy=False).reshape(-1)
        if idx.size and (int(idx.max()) >= self._num_rows or int(idx.min()) < 0):
            raise IndexError(f"take: an index is out of range for {self._num_rows} rows")
        return take(self, idx)

    def filter(self, mask: Any, null_selection_behavior: str = "drop") -> Table:
        """Return the rows where the boolean *mask* (one entry per row) is True, as pyarrow's
        ``Table.filter`` with a mask: a numpy or Python sequence of bools, a boolean
        :class:`Array`, or a pyarrow boolean array.  A null entry drops its row
        (``null_selection_behavior="drop"``) or gives a row of nulls ("emit_null" is
        refused: our rows cannot be all-null in non-nullable columns).  For an
        :class:`~parquet_core.Expression`, build the mask with
        :func:`parquet_core.predicate.filter_mask` (SQL semantics: null is not True).
        """
        from parquet_core.table.select import filter_table

        if null_selection_behavior != "drop":
            raise ValueError(f"filter: null_selection_behavior={null_selection_behavior!r} is not "
                             f"supported; only 'drop'")
        if isinstance(mask, Array):
            if mask.type.id is not TypeId.BOOL:
                raise TypeError(f"filter needs a boolean mask, got a {mask.type} array")
            values = np.asarray(mask.values, dtype=np.bool_)
            mask = values if mask.validity is None else values & mask.validity
        elif hasattr(mask, "to_pylist") and not isinstance(mask, np.ndarray):   # a pyarrow array
            items = mask.to_pylist()
            if any(v is not None and not isinstance(v, (bool, np.bool_)) for v in items):
                raise TypeError("filter needs a boolean mask")
            mask = np.array([v is True for v in items], dtype=np.bool_)
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            raise TypeError(f"filter needs a boolean mask, got {mask.dtype}")
        return filter_table(self, mask)

    def sort_by(self, sorting: Any, **kwargs: Any) -> Table:
        """Return the rows ordered by *sorting*, as pyarrow's ``Table.sort_by``: a column name
        (ascending) or ``[(name, "ascending" | "descending"), ...]``; nulls last (see
        :mod:`parquet_core.table.sort`).  pyarrow's ``null_placement="at_end"`` is accepted;
        "at_start" is refused."""
        from parquet_core.table.select import take
        from parquet_core.table.sort import sort_indices

        placement = kwargs.pop("null_placement", "at_end")
        if kwargs or placement != "at_end":
            bad = f"null_placement={placement!r}" if placement != "at_end" else ", ".join(kwargs)
            raise ValueError(f"sort_by: {bad} is not supported (nulls sort last)")
        return take(self, sort_indices(self, sorting))

    def to_batches(self, max_chunksize: int | None = None) -> list[Table]:
        """The table as a list of batches of at most *max_chunksize* rows, as pyarrow's
        ``Table.to_batches`` (our batches are Tables; one for the whole table by default)."""
        if max_chunksize is None or self._num_rows == 0:
            return [self]
        if max_chunksize <= 0:
            raise ValueError(f"max_chunksize must be positive, got {max_chunksize}")
        return list(self.iter_slices(max_chunksize))

    def combine_chunks(self) -> Table:
        """The table itself: its columns are always contiguous (one chunk each)."""
        return self

    def cast(self, target_schema: Schema, safe: bool | None = None, options: Any = None) -> Table:
        """The table with each column cast to *target_schema*'s type (ours, or any schema with
        ``__arrow_c_schema__``: a pyarrow Schema), as pyarrow's ``Table.cast`` (the names must
        match, in order).  Our casts are always exact
        (:mod:`parquet_core.table.coerce`): a value that would change raises
        ParquetSchemaError naming the column and row, also with ``safe=False``.
        """
        from parquet_core.table.coerce import cast_array

        if options is not None:
            raise ValueError("cast: pyarrow's CastOptions are not supported; our casts are exact")
        metadata = None
        if not isinstance(target_schema, Schema) and hasattr(target_schema, "__arrow_c_schema__"):
            # a pyarrow (or nanoarrow...) schema, through the Arrow C Data Interface; its Arrow
            # types (large and view types, zones...) kept as an ARROW:schema entry, which
            # to_arrow() restores them from, as for a file
            from parquet_core.arrow_c.consume import import_schema
            from parquet_core.metadata.arrow_ipc_write import encode_schema_nodes
            from parquet_core.schema.arrow_format import schema_from_node

            node = import_schema(target_schema.__arrow_c_schema__())
            target_schema = schema_from_node(node)
            metadata = {k: v for k, v in (node.metadata or {}).items() if k != b"ARROW:schema"}
            metadata[b"ARROW:schema"] = encode_schema_nodes(node.children, metadata or None)
        if list(target_schema.names) != list(self._schema.names):
            raise ValueError(f"cast: the target schema's names {list(target_schema.names)} do not "
                             f"match the table's {list(self._schema.names)}")
        columns = [cast_array(c, f) for c, f in zip(self._columns, target_schema)]
        return Table(target_schema, columns, self._num_rows, metadata=metadata)

    def iter_slices(self, size: int) -> Iterator[Table]:
        """Yield consecutive row slices of at most *size* rows."""
        for start in range(0, self._num_rows, size):
            yield self.slice_rows(start, start + size)

    @classmethod
    def from_pydict(cls, mapping: Any, schema: Schema | None = None) -> Table:
        """Build a table from ``{column name: values}`` (lists, numpy arrays...), as pyarrow's
        ``Table.from_pydict``: types are inferred, or values are cast to *schema*.

        Raises
        ------
        ParquetSchemaError
            When the values do not fit the schema or cannot be inferred.
        """
        from parquet_core.interop.ingest import as_table  # pyarrow / pandas columns too

        if not hasattr(mapping, "keys"):
            raise TypeError(f"from_pydict needs a mapping, not {type(mapping).__name__}")
        return as_table(dict(mapping), schema)

    @classmethod
    def from_pylist(cls, rows: list[dict[str, Any]], schema: Schema | None = None) -> Table:
        """Build a table from a list of row dicts, as pyarrow's ``Table.from_pylist``: the
        columns are the keys of the first row (or *schema*'s names); a missing key is null."""
        names = list(schema.names) if schema is not None else list(rows[0]) if rows else []
        return cls.from_pydict({n: [r.get(n) for r in rows] for n in names}, schema)

    @staticmethod
    def concat(tables: list[Table], schema: Schema | None = None, *,
               promote_options: str = "none") -> Table:
        """Concatenate tables row-wise, matching columns by name.

        Parameters
        ----------
        tables:
            The tables; with none, *schema* gives the empty result's columns.
        schema:
            Only used when *tables* is empty.
        promote_options:
            ``"none"`` (schemas must be equal), ``"default"`` (unite columns,
            fill missing ones with nulls, resolve ``null`` types) or
            ``"permissive"`` (also widen types), as ``pyarrow.concat_tables``;
            see :mod:`parquet_core.table.concat`.

        Raises
        ------
        ParquetSchemaError
            When the schemas differ beyond what *promote_options* allows,
            naming the column and both types; or a value would not survive
            widening.
        """
        from parquet_core.table.concat import concat_tables

        if not tables:
            if schema is None:
                raise ValueError("cannot concatenate no tables without a schema")
            from parquet_core.table.assemble import empty_column

            return Table(schema, [empty_column(f) for f in schema], 0)
        return concat_tables(tables, promote_options)

    def to_arrow(self):
        """Return a ``pyarrow.Table`` (needs pyarrow; imported lazily)."""
        from parquet_core.interop.arrow import table_to_arrow

        return table_to_arrow(self)

    def to_pandas(self, **kwargs: Any):
        """Return a ``pandas.DataFrame``, the one pyarrow's ``to_pandas`` gives, with pandas
        alone (docs/pandas.md); keywords are pyarrow's ``Table.to_pandas``' (values other
        than their defaults, such as ``types_mapper``, need pyarrow)."""
        from parquet_core.interop.pandas import table_to_pandas

        return table_to_pandas(self, **kwargs)

    def __arrow_c_stream__(self, requested_schema: Any = None) -> object:
        """The Arrow PyCapsule interface: an ``arrow_array_stream`` capsule giving this table
        as one record batch, zero-copy over its numpy buffers, so that polars
        (``pl.DataFrame(table)``), duckdb (``duckdb.sql("select * from table")``) and
        pyarrow (``pa.table(table)``) read it without pyarrow being needed here.
        *requested_schema* is accepted and ignored, as the interface allows."""
        from parquet_core.table.arrow_c_export import table_stream_capsule

        return table_stream_capsule(self)

    def __arrow_c_schema__(self) -> object:
        """The Arrow PyCapsule interface: an ``arrow_schema`` capsule of the table's schema
        (a struct of its columns, as the stream gives it)."""
        from parquet_core.table.arrow_c_export import table_schema_capsule

        return table_schema_capsule(self)

    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[object, object]:
        """The Arrow PyCapsule interface: the table as one record batch (a struct array)."""
        from parquet_core.table.arrow_c_export import table_capsules

        return table_capsules(self)

    def equals(self, other: Table, check_metadata: bool = False) -> bool:
        """True when both tables hold the same schema and Python values (and, with
        *check_metadata*, the same key/value metadata), as pyarrow's ``Table.equals``."""
        if not isinstance(other, Table):
            raise TypeError(f"equals: expected a Table, got {type(other).__name__}")
        if check_metadata and (self._metadata or None) != (other._metadata or None):
            return False
        # column by column, so two columns sharing a name are both compared
        return self._schema == other._schema and \
            all(x.to_pylist() == y.to_pylist() for x, y in zip(self._columns, other._columns))


def _array_nbytes(arr: Any) -> int:
    """Bytes of an array's buffers, its children's included."""
    total = 0 if arr.validity is None else int(arr.validity.nbytes)
    values = arr.values
    offsets = getattr(arr, "offsets", None)
    if isinstance(values, ByteArrays):
        lo, hi = int(values.offsets[0]), int(values.offsets[-1])
        return total + int(values.offsets.nbytes) + (hi - lo)
    if isinstance(offsets, np.ndarray):          # a list or map: offsets into one child
        total += int(offsets.nbytes)
    if isinstance(values, Array):
        return total + _array_nbytes(values)
    if isinstance(values, tuple):                # a struct's children
        return total + sum(_array_nbytes(c) for c in values)
    return total + int(np.asarray(values).nbytes)


_EMPTY_DTYPES = {
    TypeId.NULL: np.int8, TypeId.BOOL: np.bool_, TypeId.INT8: np.int8, TypeId.INT16: np.int16,
    TypeId.INT32: np.int32,
    TypeId.INT64: np.int64, TypeId.UINT8: np.uint8, TypeId.UINT16: np.uint16, TypeId.UINT32: np.uint32,
    TypeId.UINT64: np.uint64,
    TypeId.FLOAT16: np.float16, TypeId.FLOAT32: np.float32, TypeId.FLOAT64: np.float64, TypeId.DATE: np.int32,
    TypeId.TIMESTAMP: np.int64,
}


def empty_array(field: Field) -> Array:
    """Return a zero-length array of *field*'s type, in that type's storage."""
    dt = field.type
    tid = dt.id
    if tid in _BYTE_ARRAY_TYPES:
        return Array(dt, ByteArrays.empty())
    if tid in _EMPTY_DTYPES:
        return Array(dt, np.zeros(0, dtype=_EMPTY_DTYPES[tid]))
    if dt.id is TypeId.TIME:
        return Array(dt, np.zeros(0, dtype=np.int32 if dt.unit == "ms" else np.int64))
    if dt.id is TypeId.DECIMAL:
        if dt.byte_width is not None:
            return Array(dt, np.zeros((0, dt.byte_width), dtype=np.uint8))
        if (dt.precision or 0) > 18:     # BYTE_ARRAY storage
            return Array(dt, ByteArrays.empty())
        return Array(dt, np.zeros(0, dtype=np.int64))
    if dt.id is TypeId.INT96:
        return Array(dt, np.zeros((0, 12), dtype=np.uint8))
    if tid in _FIXED_WIDTH or tid is TypeId.FIXED_SIZE_BINARY:
        return Array(dt, np.zeros((0, _FIXED_WIDTH.get(tid, dt.byte_width)), dtype=np.uint8))
    unhandled_type(dt, "empty_array")   # nested types: see table.assemble.empty_column


def narrowed_metadata(metadata: Mapping[bytes, bytes], keep: list[str]) -> dict[bytes, bytes] | None:
    """Key/value *metadata* of a table for its columns *keep* (a selection of them): the keys
    as they are (``pandas`` too, as pyarrow's ``select`` keeps the schema's metadata whole)
    and ``ARROW:schema`` with only the fields *keep*, in that order
    (:func:`~parquet_core.metadata.arrow_ipc_select.select_schema_fields`, no pyarrow needed);
    left out when it does not have each of them exactly once (it would describe other columns)."""
    from parquet_core.metadata.arrow_ipc_select import ArrowSchemaSelectError, select_schema_fields

    out = dict(metadata)
    encoded = out.pop(b"ARROW:schema", None)
    if encoded is not None:
        try:
            out[b"ARROW:schema"] = select_schema_fields(encoded, keep)
        except ArrowSchemaSelectError:
            pass
    return out or None
