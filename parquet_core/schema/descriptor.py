"""Leaf column descriptors: path, physical and logical type, level maxima.

``max_definition_level`` counts the OPTIONAL and REPEATED fields on the path
from the root to the leaf (inclusive); ``max_repetition_level`` counts the
REPEATED ones.  Columns are always identified by their full path tuple, never
by the leaf name alone (two leaves may share a name in different groups).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from parquet_core.constants import PhysicalType, Repetition
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.logical import data_type_of
from parquet_core.schema.tree import SchemaNode, parse_schema_tree
from parquet_core.schema.types import DataType

__all__ = ["ColumnDescriptor", "SchemaDescriptor"]


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
        self._by_path: dict[tuple[str, ...], int] = {}
        self._by_top: dict[str, list[int]] = {}
        self._collect(self.root, (), 0, 0, is_root=True)

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
            if el.type not in PhysicalType.__members__.values():
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
            self._by_path[path] = len(self.columns)
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
        """Return the leaf index of a path tuple (``KeyError`` if absent)."""
        return self._by_path[path]

    @property
    def top_level_fields(self) -> list[SchemaNode]:
        """The root's children (the columns a table shows)."""
        return self.root.children

    def leaves_under(self, name: str) -> list[int]:
        """Return the leaf indexes whose path starts with top-level field *name*."""
        return list(self._by_top.get(name, []))
