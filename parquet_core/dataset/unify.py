"""One schema for many files: missing columns are null, narrow numbers widen, conflicts name both files.

Only these differences are reconciled (anything else raises
:class:`ParquetSchemaError` naming the column, both types and both files):

* a column missing from some files (it reads as nulls there; the field
  becomes nullable);
* signed integers of different widths (``int32`` + ``int64`` -> ``int64``),
  unsigned likewise, and ``float32`` + ``float64`` -> ``float64``;
* a ``null``-typed column and any type;
* nullability (the union is nullable if any file's field is).

This is deliberately narrower than ``concat_tables(promote_options=
"permissive")``: mixing integers with floats, or strings with numbers,
across the files of one dataset is almost always a bug in whatever wrote
them, and widening would change values silently.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array
from parquet_core.table.promote import TypeMismatch, common_type

__all__ = ["SchemaUnifier", "check_unique_names", "conform", "wider_type"]


def wider_type(a: DataType, b: DataType) -> DataType | None:
    """The common type of a column that two files type *a* and *b* (the ``"widen"`` rule of
    :func:`~parquet_core.table.promote.common_type`, the one promotion lattice), None when
    they do not unify."""
    try:
        return common_type(a, b, "widen")
    except TypeMismatch:
        return None


def check_unique_names(schema: Iterable[Field], path: str) -> None:
    """Refuse a file whose schema gives several columns one name (*path*: the file, for the
    message): a dataset matches the columns of its files by name, which cannot tell them apart."""
    names = [f.name for f in schema]
    if len(set(names)) == len(names):
        return      # the common case, without a count per name (quadratic in a wide schema)
    for name in dict.fromkeys(n for n in names if names.count(n) > 1):
        raise ParquetSchemaError(
            f"column name {name!r} appears {names.count(name)} times in {path!r} (at positions "
            f"{', '.join(str(i) for i, n in enumerate(names) if n == name)}): a dataset matches "
            "the columns of its files by name, so it cannot read this file; read it alone with "
            "ParquetFile, which reads columns by position")


class SchemaUnifier:
    """Accumulates file schemas; remembers which file set each column's type (for messages)."""

    def __init__(self) -> None:
        self.fields: dict[str, Field] = {}
        self.origin: dict[str, str] = {}
        self.count: dict[str, int] = {}
        self.files = 0

    def add(self, schema: Iterable[Field], path: str, times: int = 1) -> None:
        """Add one file's schema (*times* files' with this same schema, the first at *path*).

        Raises
        ------
        ParquetSchemaError
            When the schema gives several columns one name: a dataset matches its files'
            columns by name, which cannot tell them apart (read such a file alone with
            ``ParquetFile``, which reads its columns by position).
        """
        fields = list(schema)
        check_unique_names(fields, path)
        self.files += times
        for f in fields:
            self.count[f.name] = self.count.get(f.name, 0) + times
            old = self.fields.get(f.name)
            if old is None:
                self.fields[f.name] = Field(f.name, f.type, f.nullable, f.path, f.field_id)
                self.origin[f.name] = path
                continue
            wide = wider_type(old.type, f.type)
            if wide is None:
                raise ParquetSchemaError(
                    f"column {f.name!r} is {old.type} in {self.origin[f.name]!r} but {f.type} in "
                    f"{path!r}; pass schema= to read them as one type")
            if wide != old.type:
                self.origin[f.name] = path
            self.fields[f.name] = Field(f.name, wide, old.nullable or f.nullable, old.path, old.field_id)

    def schema(self) -> Schema:
        out = []
        for name, f in self.fields.items():
            nullable = f.nullable or self.count[name] < self.files
            out.append(Field(name, f.type, nullable, f.path, f.field_id))
        return Schema(out)


def check_against(target: Field, actual: Field, path: str) -> None:
    """Refuse a file column that cannot be read as *target* (``schema=`` or the dataset schema)."""
    if wider_type(target.type, actual.type) == target.type or actual.type.id is TypeId.NULL:
        return
    raise ParquetSchemaError(
        f"column {actual.name!r} is {actual.type} in {path!r}, which cannot be read as "
        f"{target.type} (the dataset's type)")


def conform(arr: Array | None, field: Field, n: int) -> Array:
    """*arr* as *field*'s type (widened), or *n* nulls when the file lacks the column."""
    from parquet_core.table.coerce import cast_array

    target = Field(field.name, field.type, True)
    if arr is None:
        return cast_array(Array(DataType("null"), np.zeros(n, np.int8), np.zeros(n, bool)), target)
    if arr.type == field.type:
        return arr
    return cast_array(arr, target)
