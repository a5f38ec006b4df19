"""The file's columns by name: top-level fields, their shapes, and leaf lookup.

Built once from the schema.  Resolves the names users pass (``columns=``,
filter columns, ``"a.b"`` leaf paths, variant field paths) to top-level
fields with their :class:`~parquet_core.schema.nested.Shape` and to leaf
indexes; the readers and the pruning planner work with those.

Fields are kept by position and leaves found by their schema node, never by
name alone: a file may give several fields one name (pyarrow writes
``names=["a", "b", "a"]``), and each must still read its own leaves.  A name
that several fields share resolves to none of them (``ParquetSchemaError``).

A top-level group the reader cannot lay out (a malformed LIST, MAP or VARIANT
group) still shows in the schema, as a field of type ``NESTED``; asking for its
shape (selecting it, filtering on it) raises the :class:`ParquetSchemaError` that
says why.  The readers below only ever see shapes.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

from parquet_core.errors import ParquetSchemaError, add_context, add_note
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.schema.descriptor import TABLE_SCHEMA, SchemaDescriptor
from parquet_core.schema.nested import Shape, build_shape, prune_shape, row_leaf, top_level_field
from parquet_core.schema.tree import SchemaNode
from parquet_core.schema.types import DataType, Field, Schema, TypeId, ambiguous_name

__all__ = ["FileColumns", "Selected"]

#: A field to read and its shape.
Selected = tuple[Field, Shape]


def _unreadable_field(node: SchemaNode) -> Field:
    """A group the reader cannot lay out (its error is raised when it is read)."""
    return Field(node.name, DataType(TypeId.NESTED), node.repetition != 0, (node.name,))


def _type_of(d: SchemaDescriptor) -> Callable[[int], DataType]:
    return lambda i: d.column(i).data_type


class _Layout(NamedTuple):
    """The table's top-level fields, by position: each one's schema node and shape (None
    for a field the reader cannot lay out, with its error in *errors*)."""

    fields: list[Field]
    nodes: list[SchemaNode]
    shapes: list[Shape | None]
    errors: dict[int, ParquetSchemaError]


def _layout(d: SchemaDescriptor) -> _Layout:
    """The table's top-level fields and their shapes (or the error that stops one being read),
    worked out once per descriptor (files with the same schema share one: see
    ``metadata/wrappers.py``); each caller gets its own lists.

    Fields are kept by position: a file may give several top-level fields one name.
    """
    done: _Layout | None = d.__dict__.get("_file_layout")
    if done is None:
        done = d.__dict__["_file_layout"] = _build_layout(d)
    return _Layout(list(done.fields), list(done.nodes), list(done.shapes), dict(done.errors))


def _build_layout(d: SchemaDescriptor) -> _Layout:
    out = _Layout([], [], [], {})
    for node in d.top_level_fields:
        leaves = d.leaves_of(node)
        if not leaves:
            continue  # a group without columns holds no data
        out.nodes.append(node)
        try:
            shape = build_shape(node, d.leaf_of, _type_of(d))
        except ParquetSchemaError as exc:
            add_context(exc, part="the schema", field=node.name)
            out.errors[len(out.shapes)] = exc
            out.shapes.append(None)
            out.fields.append(_unreadable_field(node))
            continue
        assert shape is not None  # the node has leaves
        out.shapes.append(shape)
        out.fields.append(top_level_field(shape, d.column(leaves[0]), node.repetition != 0,
                                          node.element.field_id))
    return out


class FileSchema(Schema):
    """A file's table schema (``ParquetFile.schema_arrow``, ``read_schema``) with the footer's
    key/value ``metadata``, so that :meth:`to_arrow` gives the types its ``ARROW:schema``
    records (dictionaries, time zones, durations...), as ``pyarrow.parquet.read_schema`` does."""

    __slots__ = ("_footer",)

    def __init__(self, fields: list[Field], footer: Any) -> None:
        super().__init__(fields)
        self._footer = footer       # decoded lazily: opening a file does not read its key/values

    @property
    def metadata(self) -> dict[bytes, bytes]:
        """The footer's key/values (``ARROW:schema``, ``pandas``...)."""
        return self._footer.metadata


def table_schema(d: SchemaDescriptor) -> Schema:
    """The table schema a Parquet schema reads as (``SchemaDescriptor.to_arrow_schema``)."""
    return Schema(_layout(d).fields)


TABLE_SCHEMA[:] = [table_schema]   # the schema layer cannot import this one: see descriptor.py


class _ShapesByName(Mapping[str, Shape]):
    """Top-level name -> its shape; looking up a name several fields share, or a field the
    reader cannot lay out, raises :class:`ParquetSchemaError`."""

    def __init__(self, schema: Schema, shape: Callable[[int], Shape]) -> None:
        self._schema = schema
        self._shape = shape

    def __getitem__(self, name: str) -> Shape:
        return self._shape(self._schema.index(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and bool(self._schema.positions(name))

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._schema.names))

    def __len__(self) -> int:
        return len(set(self._schema.names))


def _shape(shapes: list[Shape | None], errors: dict[int, ParquetSchemaError], pos: int) -> Shape:
    """:meth:`FileColumns.shape`."""
    shape = shapes[pos]
    if shape is None:
        stored = errors[pos]
        err = ParquetSchemaError(*stored.args)
        for note in getattr(stored, "__notes__", ()):
            add_note(err, note)
        raise err
    return shape


class FileColumns:
    """Top-level fields, their shapes and leaf lookup for one file's schema.

    Fields are read by position, so each keeps its own data even when a file
    gives several fields (top-level or inside a group) one name; a name that
    several fields share cannot pick one, and is refused where a name is asked
    for (``columns=``, filters, ``read_dictionary=``) with a
    :class:`ParquetSchemaError` naming the positions.
    """

    def __init__(self, metadata: FileMetadata) -> None:
        self.metadata = metadata
        self.descriptor = metadata.schema
        layout = _layout(self.descriptor)
        self.fields: list[Field] = layout.fields
        #: The top-level fields' schema nodes, by position.
        self.nodes: list[SchemaNode] = layout.nodes
        self._shapes = layout.shapes
        self._errors = layout.errors
        self.schema: Schema = FileSchema(self.fields, metadata)
        #: Top-level name -> its Shape (see :meth:`shape` for a field that has none).  Given
        #: the shapes, not this object's bound method: a cycle through it would keep the
        #: file's footer alive until the cyclic collector runs rather than until last used.
        self.shapes: Mapping[str, Shape] = _ShapesByName(self.schema, partial(_shape, self._shapes, self._errors))

    def shape(self, pos: int) -> Shape:
        """The shape of the top-level field at *pos*.

        Raises
        ------
        ParquetSchemaError
            For a group the reader cannot lay out (the error says why; a new one each time).
        """
        return _shape(self._shapes, self._errors, pos)

    # -- names -------------------------------------------------------------------
    def _top(self, name: str) -> int:
        """The position of the one top-level field called *name* (KeyError: none)."""
        return self.schema.index(name)

    def resolve(self, name: str) -> tuple[int, SchemaNode] | None:
        """The top-level position and the schema node a name (top-level or dotted path)
        stands for, or None when the file has no such field.

        Raises
        ------
        ParquetSchemaError
            When the name (or a part of its path) matches several fields.
        """
        if name in self.shapes:
            pos = self._top(name)
            return pos, self.nodes[pos]
        path = name.split(".")
        if path[0] not in self.shapes:
            return None
        pos = self._top(path[0])
        node = self.nodes[pos]
        for i, part in enumerate(path[1:], 2):
            found = [k for k, c in enumerate(node.children) if c.name == part]
            if not found:
                return None
            if len(found) > 1:
                raise ambiguous_name(".".join(path[:i]), found, " (the positions are among its siblings)")
            node = node.children[found[0]]
        return pos, node

    def select(self, columns: Sequence[str] | None) -> list[Selected]:
        """The fields to read: whole top-level fields, or ones pruned to dotted leaf paths.

        Like pyarrow's ``ParquetFile.read``: a name is a top-level field or a
        dotted prefix of leaf paths (``"a.b"``, ``"m.key_value.key"``); the
        result has one column per top-level field named, in order of first
        mention, holding only the selected leaves.  With no names every field
        is read, by position.
        """
        if columns is None:
            return [(field, self.shape(pos)) for pos, field in enumerate(self.fields)]
        if isinstance(columns, str):
            raise TypeError("columns must be a list of names, not a string")
        picked: dict[int, set[int] | None] = {}   # top-level position -> leaves (None: the whole field)
        for name in columns:
            found = self.resolve(name)
            if found is None:
                raise self.unknown_column(name)
            pos, node = found
            if node is self.nodes[pos]:
                picked[pos] = None
            elif pos not in picked:
                picked[pos] = set(self.descriptor.leaves_of(node))
            elif picked[pos] is not None:
                picked[pos].update(self.descriptor.leaves_of(node))  # type: ignore[union-attr]
        out: list[Selected] = []
        for pos, keep in picked.items():
            field, shape = self.fields[pos], self.shape(pos)
            if keep is None:
                out.append((field, shape))
                continue
            pruned = prune_shape(shape, keep)
            assert pruned is not None  # keep holds leaves of this field
            if pruned is shape:
                out.append((field, shape))
            else:
                out.append((Field(field.name, pruned.data_type, pruned.nullable, (field.name,)), pruned))
        return out

    @staticmethod
    def leaves_of(selected: Sequence[Selected]) -> list[int]:
        """Leaf indexes the selected fields read."""
        return sorted({i for _, s in selected for i in s.leaves})

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
            found = self.resolve(column)
            if found is None or not found[1].is_leaf:
                raise self.unknown_column(column, leaf=True)
            return schema.leaf_of(found[1])
        idx = int(column)
        if not 0 <= idx < len(schema):
            raise IndexError(f"leaf column index {idx} out of range (0..{len(schema) - 1})")
        return idx

    def leaf_index(self, name: str) -> int | None:
        """Leaf index of a column named in a filter (top-level name or dotted path).

        None for a top-level group (no single leaf) or a field inside a
        variant; ValueError when unknown, ParquetSchemaError when ambiguous.
        """
        schema = self.descriptor
        if name in self.shapes:
            leaves = schema.leaves_of(self.nodes[self._top(name)])
            desc = schema.column(leaves[0])
            return leaves[0] if len(leaves) == 1 and row_leaf(desc) else None
        from parquet_core.file.variant_paths import split_variant_path  # numpy and the predicates

        if split_variant_path(self.shapes, name) is not None:
            return None     # a field inside a variant: see parquet_core.file.variant_paths
        found = self.resolve(name)
        if found is None or not found[1].is_leaf:
            raise self.unknown_column(name)
        return schema.leaf_of(found[1])

    def needed_leaves(self, names: set[str] | None) -> list[int]:
        """Leaf indices under the given column names (all leaves for None): top-level
        names, dotted paths to leaves or groups, paths into variants."""
        schema = self.descriptor
        if names is None:
            return list(range(len(schema)))
        from parquet_core.file.variant_paths import split_variant_path  # numpy and the predicates

        idx: set[int] = set()
        for name in names:
            variant = split_variant_path(self.shapes, name)
            found = self.resolve(name if variant is None else variant[0])
            if found is None:
                raise self.unknown_column(name)
            idx.update(schema.leaves_of(found[1]))
        return sorted(idx)
