"""The logical shape of a top-level field: structs, lists and maps over leaf columns.

A :class:`Shape` describes one node of a column as a reader sees it, and the
levels that find its slots in any leaf below it.  Two numbers place a node:

* ``slot_rep`` / ``slot_def``: a level entry (of any leaf below the node)
  starts a new slot of the node when its repetition level is at most
  ``slot_rep`` and its definition level at least ``slot_def``.  These are the
  levels of the nearest repeated ancestor (0 / 0 at the top: one slot per
  record).
* ``def_level``: the slot holds a value (is not null) when the definition
  level reaches it.

Lists and maps add one repetition: an entry is an *element* when its
repetition level is at most ``slot_rep + 1`` and its definition level at
least ``elem_def`` (the level of the repeated field); a present list slot
below ``elem_def`` is empty.

The LIST and MAP backward-compatibility rules of the format's
LogicalTypes.md are applied here:

* a repeated field outside any LIST/MAP group is a required list of
  required elements of that field's type;
* for a LIST group whose repeated child is a primitive, a group of several
  fields, a group whose only field is repeated, or a group named ``array``
  or ``<list name>_tuple``, the repeated child itself is the (required)
  element; otherwise its single field is the element (the 3-level form);
* a MAP or MAP_KEY_VALUE group's repeated child holds the key (first field,
  whatever its name or repetition) and the value (second field, optional);
  a map without a value field is read as a list of its keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Callable

from parquet_core.constants import ConvertedType, Repetition
from parquet_core.errors import ParquetSchemaError, quoted
from parquet_core.schema.file_ref import FILE_ANNOTATION, check_file_ref, is_file_group
from parquet_core.schema.tree import SchemaNode
from parquet_core.schema.types import DataType, Field
from parquet_core.schema.variant_layout import check_layout

if TYPE_CHECKING:
    from parquet_core.schema.descriptor import ColumnDescriptor

__all__ = ["Shape", "ShapeKind", "build_shape", "prune_shape", "row_leaf", "top_level_field"]


class ShapeKind(str, Enum):
    """What a :class:`Shape` node is (a ``str`` enum: ``ShapeKind.LEAF == "leaf"``)."""

    LEAF = "leaf"        # one column chunk (any flat DataType, variant members too)
    STRUCT = "struct"    # a group of children (struct, variant, FILE)
    LIST = "list"        # one repeated child (the element)
    MAP = "map"          # one repeated key/value child

    def __str__(self) -> str:
        return self.value


@dataclass(eq=False, slots=True)
class Shape:
    """One node of a field's logical tree (see the module docstring)."""

    kind: ShapeKind
    name: str
    nullable: bool
    def_level: int
    slot_def: int
    slot_rep: int
    data_type: DataType
    children: list[Shape] = field(default_factory=list)
    column: int = -1               # leaf index in the schema descriptor (leaves only)
    elem_def: int = 0              # lists and maps: level of the repeated field
    field_id: int | None = None    # the node's SchemaElement.field_id, carried to its Field

    @property
    def leaves(self) -> list[int]:
        """Leaf column indexes below this node, in schema order."""
        if self.kind is ShapeKind.LEAF:
            return [self.column]
        return [c for child in self.children for c in child.leaves]

    @property
    def is_flat(self) -> bool:
        """True for a top-level primitive without repetition."""
        return self.kind is ShapeKind.LEAF and self.slot_rep == 0 and self.slot_def == 0

    def as_field(self) -> Field:
        """The :class:`Field` this node shows as."""
        return Field(self.name, self.data_type, self.nullable, field_id=self.field_id)


def _annotation(node: SchemaNode) -> str | None:
    """``"LIST"``, ``"MAP"`` (MAP_KEY_VALUE included), ``"VARIANT"`` or ``None``."""
    el = node.element
    lt = getattr(el, "logicalType", None)
    if lt is not None:
        if getattr(lt, "LIST", None) is not None:
            return "LIST"
        if getattr(lt, "MAP", None) is not None:
            return "MAP"
        if getattr(lt, "VARIANT", None) is not None:
            return "VARIANT"
    ct = el.converted_type
    if ct == ConvertedType.LIST:
        return "LIST"
    if ct in (ConvertedType.MAP, ConvertedType.MAP_KEY_VALUE):
        return "MAP"
    return None


class _Builder:
    def __init__(self, leaf_index: Callable[[SchemaNode], int],
                 leaf_type: Callable[[int], DataType]) -> None:
        self.leaf_index = leaf_index
        self.leaf_type = leaf_type

    def node(self, node: SchemaNode, path: tuple[str, ...], d: int, r: int,
             sd: int, sr: int) -> Shape | None:
        """A child of a struct (or the root) with its own repetition."""
        rep = node.repetition
        if rep == Repetition.REPEATED:
            # Unannotated repeated field: a required list of required elements.
            elem = self.required(node, path, d + 1, r + 1, d + 1, r + 1)
            return None if elem is None else self.list_of(node.name, False, d, sd, sr, d + 1, elem)
        nullable = rep == Repetition.OPTIONAL
        return self.typed(node, path, d + 1 if nullable else d, r, sd, sr, nullable)

    def required(self, node: SchemaNode, path: tuple[str, ...], d: int, r: int,
                 sd: int, sr: int) -> Shape | None:
        """A repeated node read as a required element (its repetition already counted)."""
        return self.typed(node, path, d, r, sd, sr, False)

    def typed(self, node: SchemaNode, path: tuple[str, ...], d: int, r: int, sd: int, sr: int,
              nullable: bool) -> Shape | None:
        """*node* present at definition level *d*; build by its annotation."""
        shape = self._typed(node, path, d, r, sd, sr, nullable)
        if shape is not None:
            # the field this node stands for keeps the node's id (a list element, a
            # struct member, a map key or value), as pyarrow's reader keeps it
            shape.field_id = node.element.field_id
        return shape

    def _typed(self, node: SchemaNode, path: tuple[str, ...], d: int, r: int, sd: int, sr: int,
               nullable: bool) -> Shape | None:
        if node.is_leaf:
            col = self.leaf_index(node)     # by the node: sibling names may repeat
            return Shape(ShapeKind.LEAF, node.name, nullable, d, sd, sr, self.leaf_type(col), column=col)
        ann = _annotation(node)
        if ann == "LIST":
            return self.list_group(node, path, d, r, sd, sr, nullable)
        if ann == "MAP":
            return self.map_group(node, path, d, r, sd, sr, nullable)
        kids = [k for c in node.children if (k := self.node(c, path + (c.name,), d, r, sd, sr)) is not None]
        if not kids:
            return None  # a group without columns holds no data
        shape = self.struct_of(node.name, nullable, d, sd, sr, kids)
        if is_file_group(node.element) and len(kids) == len(node.children):
            shape = _as_file_group(shape)
        if ann == "VARIANT":
            # the group keeps its stored members; the type says how to read them
            shape.data_type = DataType("variant", fields=shape.data_type.fields)
            try:
                check_layout(shape.data_type, ".".join(path))
            except ValueError as exc:
                raise ParquetSchemaError(f"VARIANT-annotated group: {exc}") from None
        return shape

    def _repeated_child(self, node: SchemaNode, what: str) -> SchemaNode:
        if len(node.children) != 1 or node.children[0].repetition != Repetition.REPEATED:
            raise ParquetSchemaError(
                f"{what}-annotated group {quoted(node.name)} must hold exactly one repeated field")
        return node.children[0]

    def list_group(self, node: SchemaNode, path: tuple[str, ...], d: int, r: int,
                   sd: int, sr: int, nullable: bool) -> Shape | None:
        rep = self._repeated_child(node, "LIST")
        rpath = path + (rep.name,)
        ed, er = d + 1, r + 1
        kids = rep.children
        if rep.is_leaf or len(kids) > 1 \
                or (len(kids) == 1 and kids[0].repetition == Repetition.REPEATED) \
                or rep.name in ("array", node.name + "_tuple"):
            elem = self.required(rep, rpath, ed, er, ed, er)      # rules 1-4
        elif not kids:
            return None
        else:
            elem = self.node(kids[0], rpath + (kids[0].name,), ed, er, ed, er)  # 3-level
        return None if elem is None else self.list_of(node.name, nullable, d, sd, sr, ed, elem)

    def map_group(self, node: SchemaNode, path: tuple[str, ...], d: int, r: int,
                  sd: int, sr: int, nullable: bool) -> Shape | None:
        kv = self._repeated_child(node, "MAP")
        if kv.is_leaf:
            raise ParquetSchemaError(f"MAP-annotated group {quoted(node.name)}: its repeated field is not a group")
        kpath = path + (kv.name,)
        ed, er = d + 1, r + 1
        kids = [k for c in kv.children if (k := self.node(c, kpath + (c.name,), ed, er, ed, er)) is not None]
        if len(kv.children) > 2:
            raise ParquetSchemaError(
                f"MAP-annotated group {quoted(node.name)}: key_value holds {len(kv.children)} fields")
        if not kids:
            return None
        if len(kids) == 1:
            return self.list_of(node.name, nullable, d, sd, sr, ed, kids[0])
        key, value = kids
        key.name, value.name = "key", "value"  # found by position, whatever the file calls them
        return self.map_of(node.name, nullable, d, sd, sr, ed, key, value)

    @staticmethod
    def map_of(name: str, nullable: bool, d: int, sd: int, sr: int, ed: int,
               key: Shape, value: Shape) -> Shape:
        dt = DataType("map", fields=(key.as_field(), value.as_field()))
        return Shape(ShapeKind.MAP, name, nullable, d, sd, sr, dt, [key, value], elem_def=ed)

    @staticmethod
    def list_of(name: str, nullable: bool, d: int, sd: int, sr: int, ed: int, elem: Shape) -> Shape:
        dt = DataType("list", fields=(elem.as_field(),))
        return Shape(ShapeKind.LIST, name, nullable, d, sd, sr, dt, [elem], elem_def=ed)

    @staticmethod
    def struct_of(name: str, nullable: bool, d: int, sd: int, sr: int, kids: list[Shape]) -> Shape:
        dt = DataType("struct", fields=tuple(k.as_field() for k in kids))
        return Shape(ShapeKind.STRUCT, name, nullable, d, sd, sr, dt, kids)


def _as_file_group(shape: Shape) -> Shape:
    """*shape* marked FILE when its members are the spec's; else left a plain struct."""
    dt = replace(shape.data_type, annotation=FILE_ANNOTATION)
    try:
        check_file_ref(dt)
    except ValueError:
        return shape     # not a FILE group the spec describes: keep the struct
    shape.data_type = dt
    return shape


def build_shape(node: SchemaNode, leaf_index: Callable[[SchemaNode], int],
                leaf_type: Callable[[int], DataType]) -> Shape | None:
    """The shape of top-level field *node* (``None`` for a group without columns).

    *leaf_index* maps a leaf node to its column index (``SchemaDescriptor.leaf_of``:
    by the node, not its path, which fields sharing a name would make ambiguous),
    *leaf_type* a column index to its value type.

    Raises
    ------
    ParquetSchemaError
        For LIST/MAP groups that break the layouts the format allows.
    """
    return _Builder(leaf_index, leaf_type).node(node, (node.name,), 0, 0, 0, 0)


def prune_shape(shape: Shape, keep: set[int]) -> Shape | None:
    """Copy of *shape* with only the leaves in *keep* (``None`` if none is left).

    A map that loses its key or its value becomes a list of structs holding
    what is left, as pyarrow does.
    """
    if shape.kind is ShapeKind.LEAF:
        return shape if shape.column in keep else None
    kids = [k for k in (prune_shape(c, keep) for c in shape.children) if k is not None]
    if not kids:
        return None
    if len(kids) == len(shape.children) and all(a is b for a, b in zip(kids, shape.children)):
        return shape
    out = _pruned(shape, kids)
    out.field_id = shape.field_id
    return out


def _pruned(shape: Shape, kids: list[Shape]) -> Shape:
    b = _Builder
    if shape.kind is ShapeKind.STRUCT:
        out = b.struct_of(shape.name, shape.nullable, shape.def_level, shape.slot_def,
                          shape.slot_rep, kids)
        if shape.data_type.annotation is not None:   # a projected FILE group is still one
            out.data_type = replace(out.data_type, annotation=shape.data_type.annotation)
        return out
    if shape.kind is ShapeKind.LIST:
        return b.list_of(shape.name, shape.nullable, shape.def_level, shape.slot_def,
                         shape.slot_rep, shape.elem_def, kids[0])
    if shape.kind is not ShapeKind.MAP:   # leaves are kept or dropped whole by prune_shape
        raise AssertionError(f"no pruning for a {shape.kind} shape")
    if len(kids) == 2:
        return b.map_of(shape.name, shape.nullable, shape.def_level, shape.slot_def, shape.slot_rep,
                        shape.elem_def, kids[0], kids[1])
    # a map with one side left: a list of one-field structs
    kid = kids[0]
    entry = b.struct_of(shape.name, False, shape.elem_def, shape.elem_def, shape.slot_rep + 1, [kid])
    return b.list_of(shape.name, shape.nullable, shape.def_level, shape.slot_def, shape.slot_rep,
                     shape.elem_def, entry)


def row_leaf(desc: ColumnDescriptor) -> bool:
    """Whether a leaf is a top-level primitive: one value slot per row, a field of its own."""
    return desc.is_flat


def top_level_field(shape: Shape, desc: ColumnDescriptor, nullable: bool, field_id: int | None) -> Field:
    """The :class:`Field` a top-level *shape* reads as (*desc*: its first leaf)."""
    if shape.is_flat:
        return Field(shape.name, desc.data_type, nullable, desc.path, field_id)
    return Field(shape.name, shape.data_type, shape.nullable, (shape.name,), field_id)
