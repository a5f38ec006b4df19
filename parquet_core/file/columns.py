"""The file's columns by name: top-level fields, their shapes, and leaf lookup.

Built once from the schema.  Resolves the names users pass (``columns=``,
filter columns, ``"a.b"`` leaf paths, variant field paths) to top-level
fields with their :class:`~parquet_core.schema.nested.Shape` and to leaf
indexes; the readers and the pruning planner work with those.
"""

from __future__ import annotations

from typing import Callable, Sequence

from parquet_core.errors import ParquetSchemaError
from parquet_core.file.variant_paths import split_variant_path
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.schema.descriptor import TABLE_SCHEMA, SchemaDescriptor
from parquet_core.schema.nested import Shape, build_shape, prune_shape
from parquet_core.schema.tree import SchemaNode
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.leaves import row_leaf, top_level_field

__all__ = ["FileColumns", "Selected"]

#: A field to read and its shape, or the schema error that stops it being read.
Selected = tuple[Field, "Shape | ParquetSchemaError"]


def _unreadable_field(node: SchemaNode) -> Field:
    """A group the reader cannot lay out (its error is raised when it is read)."""
    return Field(node.name, DataType(TypeId.NESTED), node.repetition != 0, (node.name,))


def _type_of(d: SchemaDescriptor) -> Callable[[int], DataType]:
    return lambda i: d.column(i).data_type


def _layout(d: SchemaDescriptor) -> tuple[list[Field], dict[str, Shape | ParquetSchemaError]]:
    """The table's top-level fields and their shapes (or the error that stops one being read)."""
    fields: list[Field] = []
    shapes: dict[str, Shape | ParquetSchemaError] = {}
    for node in d.top_level_fields:
        leaves = d.leaves_under(node.name)
        if not leaves:
            continue  # a group without columns holds no data
        try:
            shape = build_shape(node, d.index_of, _type_of(d))
        except ParquetSchemaError as exc:
            exc.add_note(f"in the schema of field {node.name!r}")
            shapes[node.name] = exc
            fields.append(_unreadable_field(node))
            continue
        assert shape is not None  # the node has leaves
        shapes[node.name] = shape
        fields.append(top_level_field(shape, d.column(leaves[0]), node.repetition != 0,
                                      node.element.field_id))
    return fields, shapes


def table_schema(d: SchemaDescriptor) -> Schema:
    """The table schema a Parquet schema reads as (``SchemaDescriptor.to_arrow_schema``)."""
    return Schema(_layout(d)[0])


TABLE_SCHEMA[:] = [table_schema]   # the schema layer cannot import this one: see descriptor.py


class FileColumns:
    """Top-level fields, their shapes and leaf lookup for one file's schema."""

    def __init__(self, metadata: FileMetadata) -> None:
        self.metadata = metadata
        self.descriptor = metadata.schema
        self.fields: list[Field]
        #: Top-level name -> its Shape, or the schema error that stops it being read.
        self.shapes: dict[str, Shape | ParquetSchemaError]
        self.fields, self.shapes = _layout(self.descriptor)
        self.schema = Schema(self.fields)

    # -- names -------------------------------------------------------------------
    def select(self, columns: Sequence[str] | None) -> list[Selected]:
        """The fields to read: whole top-level fields, or ones pruned to dotted leaf paths.

        Like pyarrow's ``ParquetFile.read``: a name is a top-level field or a
        dotted prefix of leaf paths (``"a.b"``, ``"m.key_value.key"``); the
        result has one column per top-level field named, in order of first
        mention, holding only the selected leaves.
        """
        if columns is None:
            return [(f, self.shapes[f.name]) for f in self.fields]
        if isinstance(columns, str):
            raise TypeError("columns must be a list of names, not a string")
        by_name = {f.name: f for f in self.fields}
        schema = self.descriptor
        picked: dict[str, set[int] | None] = {}   # None: the whole field
        for name in columns:
            if name in by_name:
                picked[name] = None
                continue
            path = tuple(name.split("."))
            top = path[0]
            leaves = [i for i in schema.leaves_under(top)
                      if schema.column(i).path[:len(path)] == path] if top in by_name else []
            if not leaves:
                raise self.unknown_column(name)
            if top not in picked:
                picked[top] = set(leaves)
            elif picked[top] is not None:
                picked[top].update(leaves)  # type: ignore[union-attr]
        out: list[Selected] = []
        for top, keep in picked.items():
            shape = self.shapes[top]
            pruned = shape if keep is None or isinstance(shape, ParquetSchemaError) \
                else prune_shape(shape, keep)
            assert pruned is not None  # keep holds leaves of this field
            if pruned is shape:
                out.append((by_name[top], shape))
            else:
                out.append((Field(top, pruned.data_type, pruned.nullable, (top,)), pruned))
        return out

    @staticmethod
    def leaves_of(selected: Sequence[Selected]) -> list[int]:
        """Leaf indexes the selected fields read."""
        return sorted({i for _, s in selected if not isinstance(s, ParquetSchemaError) for i in s.leaves})

    def unknown_column(self, name: str, leaf: bool = False) -> ValueError:
        """The error for a column name the file lacks, listing the names it has."""
        tops = [f.name for f in self.fields]
        leaves = [d.dotted_path for d in self.descriptor]
        if leaf or "." in name:
            return ValueError(f"no {'leaf ' if leaf else ''}column named {name!r} in the file; "
                              f"its columns are {tops}, its leaf columns {leaves}")
        return ValueError(f"no column named {name!r} in the file; its columns are {tops}")

    def leaf(self, column: str | int) -> int:
        """A leaf's index, from its dotted path (``"a"``, ``"a.b.c"``) or its index."""
        schema = self.descriptor
        if isinstance(column, str):
            try:
                return schema.index_of(tuple(column.split(".")))
            except KeyError:
                raise self.unknown_column(column, leaf=True) from None
        idx = int(column)
        if not 0 <= idx < len(schema):
            raise IndexError(f"leaf column index {idx} out of range (0..{len(schema) - 1})")
        return idx

    def leaf_index(self, name: str) -> int | None:
        """Leaf index of a column named in a filter (top-level name or dotted path).

        None for a top-level group (no single leaf) or a field inside a
        variant; ValueError when unknown.
        """
        schema = self.descriptor
        if name in self.shapes:
            leaves = schema.leaves_under(name)
            desc = schema.column(leaves[0])
            return leaves[0] if len(leaves) == 1 and row_leaf(desc) else None
        if split_variant_path(self.shapes, name) is not None:
            return None     # a field inside a variant: see parquet_core.file.variant_paths
        try:
            return schema.index_of(tuple(name.split(".")))
        except KeyError:
            raise self.unknown_column(name) from None

    def needed_leaves(self, names: set[str] | None) -> list[int]:
        """Leaf indices under the given column names (all leaves for None)."""
        schema = self.descriptor
        if names is None:
            return list(range(len(schema)))
        idx: set[int] = set()
        for name in names:
            variant = split_variant_path(self.shapes, name)
            if name in self.shapes or variant is not None:
                idx.update(schema.leaves_under(name if variant is None else variant[0]))
            else:
                found = self.leaf_index(name)
                if found is None:
                    raise self.unknown_column(name)
                idx.add(found)
        return sorted(idx)
