"""The schema tree, rebuilt from the footer's flat depth-first SchemaElement list.

The footer stores the schema as a pre-order list: each group element says
how many children follow it (``num_children``); leaves have none.  The first
element is the root (the "message"); its repetition is ignored.

A :class:`SchemaNode` keeps the raw ``pt.SchemaElement`` and its children;
:class:`parquet_core.schema.descriptor.SchemaDescriptor` derives the leaf
columns (paths and level maxima) from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from parquet_core.constants import Repetition
from parquet_core.errors import ParquetSchemaError, quoted

__all__ = ["SchemaNode", "parse_schema_tree"]

#: A schema deeper than this is certainly corrupt (and would exhaust recursion).
MAX_SCHEMA_DEPTH = 256


@dataclass(slots=True)
class SchemaNode:
    """One element of the schema tree."""

    element: Any
    children: list[SchemaNode] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The field name."""
        return str(self.element.name)

    @property
    def is_leaf(self) -> bool:
        """True for primitive columns (no ``num_children``)."""
        return not self.element.num_children and self.element.type is not None

    @property
    def repetition(self) -> int:
        """REQUIRED, OPTIONAL or REPEATED (``REQUIRED`` when unset)."""
        rt = self.element.repetition_type
        return Repetition.REQUIRED if rt is None else int(rt)

    def walk(self) -> Iterator[SchemaNode]:
        """Yield this node and its descendants in pre-order."""
        yield self
        for child in self.children:
            yield from child.walk()


def parse_schema_tree(elements: list[Any]) -> SchemaNode:
    """Rebuild the tree from the flat list in ``FileMetaData.schema``.

    Raises
    ------
    ParquetSchemaError
        If the list is empty, a ``num_children`` runs past its end, elements
        are left over, or a leaf has no physical type.
    """
    if not elements:
        raise ParquetSchemaError("the footer's schema is empty")
    pos = 0

    def build(depth: int) -> SchemaNode:
        nonlocal pos
        if pos >= len(elements):
            raise ParquetSchemaError(
                f"schema element list ends early: a group declares more children "
                f"than the {len(elements)} elements present")
        if depth > MAX_SCHEMA_DEPTH:
            raise ParquetSchemaError(f"schema nesting deeper than {MAX_SCHEMA_DEPTH}")
        el = elements[pos]
        pos += 1
        if el.name is None:
            raise ParquetSchemaError(f"schema element {pos - 1} has no name")
        node = SchemaNode(el)
        n = el.num_children or 0
        if n < 0:
            raise ParquetSchemaError(f"schema element {quoted(el.name)} has num_children={n}")
        if n > len(elements) - pos:
            raise ParquetSchemaError(
                f"schema element list ends early: {quoted(el.name)} declares {n} children but "
                f"only {len(elements) - pos} elements follow")
        if n == 0 and el.type is None and depth > 0:
            # An empty group: legal in some writers' output but carries no column.
            return node
        for _ in range(n):
            node.children.append(build(depth + 1))
        return node

    root = build(0)
    if pos != len(elements):
        raise ParquetSchemaError(
            f"schema has {len(elements) - pos} elements not reachable from the root")
    if root.is_leaf:
        raise ParquetSchemaError("the schema root must be a group")
    return root
