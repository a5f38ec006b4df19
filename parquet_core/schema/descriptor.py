"""Leaf column descriptors: path, physical and logical type, level maxima.

``max_definition_level`` counts the OPTIONAL and REPEATED fields on the path
from the root to the leaf (inclusive); ``max_repetition_level`` counts the
REPEATED ones.  Columns are always identified by their full path tuple, never
by the leaf name alone (two leaves may share a name in different groups).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from parquet_core.constants import PhysicalType, Repetition
from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError
from parquet_core.schema.logical import data_type_of
from parquet_core.schema.tree import SchemaNode, parse_schema_tree
from parquet_core.schema.types import DataType, Schema

__all__ = ["ColumnDescriptor", "SchemaDescriptor", "TABLE_SCHEMA"]

#: How :meth:`SchemaDescriptor.to_arrow_schema` builds the table schema.  The
#: conversion needs the table layer (it sits above this one), so the file layer
#: (``parquet_core.file.columns``) registers it here when it is imported.
TABLE_SCHEMA: list[Callable[[SchemaDescriptor], Schema]] = []

_REPETITION_WORDS: dict[int, str] = {Repetition.REQUIRED: "required", Repetition.OPTIONAL: "optional",
                     Repetition.REPEATED: "repeated"}
_GROUP_CONVERTED = {1: "Map", 2: "MapKeyValue", 3: "List"}
#: The physical type codes (a set: the members' view is searched one by one)
_PHYSICAL_TYPES = frozenset(PhysicalType.__members__.values())


@dataclass(frozen=True, slots=True)
class ColumnDescriptor:
    """Everything needed to decode one leaf column."""

    path: tuple[str, ...]
    physical_type: int
    type_length: int | None
    data_type: DataType
    max_definition_level: int
    max_repetition_level: int
    repetition: int
    element: Any

    @property
    def name(self) -> str:
        """The leaf's own name (the last part of its path), as pyarrow's ``ColumnSchema.name``."""
        return self.path[-1]

    @property
    def dotted_path(self) -> str:
        """The path joined with dots, as users write it (``a.b.c``)."""
        return ".".join(self.path)

    @property
    def is_flat(self) -> bool:
        """True when the leaf is a top-level primitive (no groups above it)."""
        return len(self.path) == 1 and self.repetition != Repetition.REPEATED


class SchemaDescriptor:
    """The schema of a file: the tree plus an ordered list of leaf descriptors."""

    def __init__(self, elements: list[Any]) -> None:
        self.root: SchemaNode = parse_schema_tree(elements)
        self.columns: list[ColumnDescriptor] = []
        #: path -> the leaves with that path (several when names repeat among siblings)
        self._by_path: dict[tuple[str, ...], list[int]] = {}
        self._by_top: dict[str, list[int]] = {}
        self._table_schema: Schema | None = None
        self._collect(self.root, (), 0, 0, is_root=True)
        #: id of a leaf node -> its index: the way to a leaf whatever names repeat
        self._by_node: dict[int, int] = self._number_leaves()

    @property
    def repeated_leaves(self) -> list[bool]:
        """Per leaf, whether it has repetition (``max_repetition_level > 0``); worked out once
        (a footer's counts are checked against it once per row group)."""
        flags: list[bool] | None = self.__dict__.get("_repeated_leaves")
        if flags is None or len(flags) != len(self.columns):
            flags = self.__dict__["_repeated_leaves"] = [c.max_repetition_level != 0 for c in self.columns]
        return flags

    @property
    def leaf_types(self) -> list[int]:
        """Per leaf, its physical type code; worked out once (a footer's chunks are checked
        against it once per row group)."""
        codes: list[int] | None = self.__dict__.get("_leaf_types")
        if codes is None or len(codes) != len(self.columns):
            codes = self.__dict__["_leaf_types"] = [c.physical_type for c in self.columns]
        return codes

    def _number_leaves(self) -> dict[int, int]:
        """Each leaf node's index, keyed by the node's identity (leaves are numbered in
        pre-order, as :meth:`_collect` lists them)."""
        leaves = (n for n in self.root.walk() if n is not self.root and n.is_leaf)
        return {id(n): i for i, n in enumerate(leaves)}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_by_node"]       # identities do not survive pickling: renumbered on load
        state.pop("_file_layout", None)     # the file layer's cache (file/columns.py): rebuilt
        state.pop("_shared_statistics_decoders", None)   # the metadata layer's (metadata/wrappers.py)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._by_node = self._number_leaves()

    def _collect(self, node: SchemaNode, path: tuple[str, ...], d: int, r: int,
                 is_root: bool = False) -> None:
        if not is_root:
            path = path + (node.name,)
            if node.repetition == Repetition.OPTIONAL:
                d += 1
            elif node.repetition == Repetition.REPEATED:
                d += 1
                r += 1
        if not is_root and node.is_leaf:
            el = node.element
            try:
                known = el.type in _PHYSICAL_TYPES
            except TypeError:   # unhashable: not a type code either
                known = False
            if not known:
                raise ParquetSchemaError(f"column {'.'.join(path)}: unknown physical type {el.type}")
            if node.element.repetition_type not in (None, 0, 1, 2):
                raise ParquetSchemaError(
                    f"column {'.'.join(path)}: unknown repetition {node.element.repetition_type}")
            if el.type == PhysicalType.FIXED_LEN_BYTE_ARRAY and (
                    el.type_length is None or el.type_length < 0):
                raise ParquetSchemaError(
                    f"column {'.'.join(path)}: FIXED_LEN_BYTE_ARRAY without a valid type_length")
            desc = ColumnDescriptor(
                path=path, physical_type=int(el.type), type_length=el.type_length,
                data_type=data_type_of(el), max_definition_level=d,
                max_repetition_level=r, repetition=node.repetition, element=el)
            self._by_path.setdefault(path, []).append(len(self.columns))
            self._by_top.setdefault(path[0], []).append(len(self.columns))
            self.columns.append(desc)
            return
        for child in node.children:
            self._collect(child, path, d, r)

    def __len__(self) -> int:
        return len(self.columns)

    def __iter__(self) -> Iterator[ColumnDescriptor]:
        return iter(self.columns)

    def column(self, i: int) -> ColumnDescriptor:
        """Return the i-th leaf."""
        return self.columns[i]

    def index_of(self, path: tuple[str, ...]) -> int:
        """Return the leaf index of a path tuple.

        Raises
        ------
        KeyError
            When no leaf has that path.
        ParquetSchemaError
            When several leaves do (sibling fields sharing a name): see :meth:`leaf_of`.
        """
        found = self._by_path[path]
        if len(found) > 1:
            raise ParquetSchemaError(
                f"column path {'.'.join(path)!r} is ambiguous: {len(found)} leaf columns have it, "
                f"at leaf positions {', '.join(map(str, found))}")
        return found[0]

    def leaf_of(self, node: SchemaNode) -> int:
        """The index of leaf *node* of this schema's tree (by identity, so repeated names do
        not matter)."""
        return self._by_node[id(node)]

    @property
    def top_level_fields(self) -> list[SchemaNode]:
        """The root's children (the columns a table shows)."""
        return self.root.children

    def leaves_under(self, name: str) -> list[int]:
        """Return the leaf indexes whose path starts with top-level field *name* (those of
        every top-level field with that name)."""
        return list(self._by_top.get(name, []))

    def leaves_of(self, node: SchemaNode) -> list[int]:
        """The leaf indexes below *node* (a node of this schema's tree), in order."""
        if node.is_leaf:
            return [self.leaf_of(node)]
        return [i for child in node.children for i in self.leaves_of(child)]

    # -- the parts of pyarrow's ``ParquetSchema`` users reach for --------------------
    @property
    def names(self) -> list[str]:
        """The leaves' own names in order (``["x", "element"]``, not dotted paths), as pyarrow."""
        return [c.path[-1] for c in self.columns]

    def to_arrow_schema(self) -> Schema:
        """The table schema (a :class:`~parquet_core.Schema`) this Parquet schema reads as.

        The same object as ``ParquetFile.schema_arrow`` for a file's schema.
        """
        if self._table_schema is None:
            if not TABLE_SCHEMA:
                raise UnsupportedFeatureError(
                    "to_arrow_schema needs parquet_core.file (import parquet_core.file or "
                    "use pc.ParquetFile(...).schema_arrow)")
            self._table_schema = TABLE_SCHEMA[0](self)
        return self._table_schema

    def equals(self, other: SchemaDescriptor) -> bool:
        """True when both describe the same tree (names, repetitions, types, annotations)."""
        if not isinstance(other, SchemaDescriptor):
            raise TypeError(f"cannot compare a SchemaDescriptor with {type(other).__name__}")
        return self == other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SchemaDescriptor):
            return NotImplemented
        return self is other or self.root == other.root

    def __hash__(self) -> int:
        return hash(tuple((c.path, c.physical_type) for c in self.columns))

    def __repr__(self) -> str:
        lines: list[str] = []
        self._render(self.root, (), lines, is_root=True)
        return "\n".join(lines)

    def _render(self, node: SchemaNode, path: tuple[str, ...], lines: list[str],
                is_root: bool = False) -> None:
        """One line per leaf and a brace block per group, in the footer's order."""
        el = node.element
        pad = "" if is_root else "  " * (len(path) + 1)
        if not is_root:
            path = path + (node.name,)
        rep = "required" if is_root else _REPETITION_WORDS.get(node.repetition, str(node.repetition))
        field_id = "" if el.field_id is None else f" field_id={el.field_id}"
        if is_root or not node.is_leaf:
            note = ""
            logical = el.logicalType
            if logical is not None and getattr(logical, "LIST", None) is not None:
                note = " (List)"
            elif logical is not None and getattr(logical, "MAP", None) is not None:
                note = " (Map)"
            elif el.converted_type in _GROUP_CONVERTED:
                note = f" ({_GROUP_CONVERTED[el.converted_type]})"
            lines.append(f"{pad}{rep} group{field_id} {node.name}{note} {{")
            for child in node.children:
                self._render(child, path, lines)
            lines.append(pad + "}")
            return
        kind = "binary" if el.type == PhysicalType.BYTE_ARRAY else PhysicalType(el.type).name.lower()
        if el.type == PhysicalType.FIXED_LEN_BYTE_ARRAY:
            kind += f"({el.type_length})"
        leaf = self.columns[self.leaf_of(node)]
        annotated = el.logicalType is not None or el.converted_type is not None
        note = f" ({leaf.data_type})" if annotated else ""   # as pyarrow: only annotated leaves
        lines.append(f"{pad}{rep} {kind}{field_id} {node.name}{note};")
