"""Legacy LIST and MAP layouts with real data, from pyarrow files whose footer is rewritten.

pyarrow writes only the standard 3-level LIST.  Each legacy layout of the
format's backward-compatibility rules has the same repetition and
definition levels as some standard layout, so the pages pyarrow wrote stay
valid when the footer's schema is rewritten into the legacy form (a group
level dropped, fields renamed, annotations changed).  The values must then
be the ones pyarrow was given, and pyarrow's own reading of the rewritten
file must agree.
"""

from __future__ import annotations

import io
from typing import Any, Callable

import pytest

import parquet_core as pc
from parquet_core.constants import ConvertedType, Repetition
from tests.conformance.oracle import assert_nested_matches
from tests.interop.footer_edit import edit_footer

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


class Node:
    """A schema element with its children, for editing the footer's flat list."""

    def __init__(self, el: Any, children: "list[Node]") -> None:
        self.el, self.children = el, children

    def child(self, name: str) -> "Node":
        return next(c for c in self.children if c.el.name == name)


def _tree(elements: list[Any]) -> Node:
    pos = 0

    def build() -> Node:
        nonlocal pos
        el = elements[pos]
        pos += 1
        return Node(el, [build() for _ in range(el.num_children or 0)])

    return build()


def _flatten(node: Node, out: list[Any], path: tuple[str, ...], leaves: list[list[str]]) -> None:
    node.el.num_children = len(node.children) if node.children else None
    out.append(node.el)
    if not node.children and node.el.type is not None:
        leaves.append(list(path))
    for c in node.children:
        _flatten(c, out, path + (c.el.name,), leaves)


def rewrite(data: bytes, edit: Callable[[Node], None]) -> bytes:
    """Rewrite the schema tree with *edit*; chunk paths follow the new leaf paths."""
    def apply(meta: Any) -> None:
        root = _tree(meta.schema)
        edit(root)
        elements: list[Any] = []
        leaves: list[list[str]] = []
        _flatten(root, elements, (), leaves)
        meta.schema = elements
        for rg in meta.row_groups:
            for chunk, path in zip(rg.columns, leaves):
                chunk.meta_data.path_in_schema = path
    return edit_footer(data, apply)


def drop_middle(group: Node, new_name: str | None = None) -> Node:
    """``group { repeated group list { X element } }`` -> ``group { repeated X <new_name> }``."""
    middle = group.children[0]
    element = middle.children[0]
    element.el.repetition_type = Repetition.REPEATED
    if new_name:
        element.el.name = new_name
    group.children = [element]
    return element


def unannotate(node: Node) -> None:
    node.el.converted_type = None
    node.el.logicalType = None


def _list(t: Any, nullable: bool = False) -> Any:
    return pa.list_(pa.field("element", t, nullable=nullable))


def _rule3(root: Node) -> None:
    outer = root.child("a")
    inner = drop_middle(outer, "array")        # repeated group array (LIST) { repeated group list {...} }
    drop_middle(inner, "array")                # ... { repeated int32 array }


def _unannotated(root: Node) -> None:
    a = root.child("a")
    element = a.children[0].children[0]
    element.el.name, element.el.repetition_type = "a", Repetition.REPEATED
    root.children[root.children.index(a)] = element


def _map_key_value(root: Node) -> None:
    m = root.child("m")
    m.el.converted_type, m.el.logicalType = ConvertedType.MAP_KEY_VALUE, None
    kv = m.children[0]
    kv.el.name = "map"
    kv.children[0].el.name, kv.children[1].el.name = "str", "num"


def _unannotated_struct_list(root: Node) -> None:
    a = root.child("a")
    element = a.children[0].children[0]          # required group element { x; y }
    element.el.name, element.el.repetition_type = "a", Repetition.REPEATED
    root.children[root.children.index(a)] = element


ROWS = 40


def _ints(i: int) -> Any:
    return None if i % 7 == 3 else [j * i for j in range(i % 4)]


CASES = {
    # rule 1: optional group a (LIST) { repeated int32 element }
    "rule1_repeated_primitive": (
        _list(pa.int32()), [_ints(i) for i in range(ROWS)], lambda r: drop_middle(r.child("a"))),
    # rule 2: optional group a (LIST) { repeated group element { x; y } }
    "rule2_group_of_two": (
        _list(pa.struct([("x", pa.int32()), ("y", pa.string())])),
        [None if i % 5 == 0 else [{"x": i, "y": None if i % 3 else str(i)}] * (i % 3) for i in range(ROWS)],
        lambda r: drop_middle(r.child("a"))),
    # rule 3: optional group a (LIST) { repeated group array (LIST) { repeated int32 array } }
    "rule3_nested_two_level": (
        _list(_list(pa.int32())), [None if i % 6 == 0 else [[i] * (i % 3)] * (i % 4) for i in range(ROWS)],
        _rule3),
    # rule 4: repeated group named "array" / "<name>_tuple" holding one field
    "rule4_array": (
        _list(pa.struct([pa.field("x", pa.int64(), nullable=False)])),
        [[{"x": i}] * (i % 3) for i in range(ROWS)], lambda r: drop_middle(r.child("a"), "array")),
    "rule4_tuple": (
        _list(pa.struct([pa.field("x", pa.int64(), nullable=True)])),
        [[{"x": i if i % 2 else None}] * (i % 3) for i in range(ROWS)],
        lambda r: drop_middle(r.child("a"), "a_tuple")),
    # an unannotated repeated primitive at the top: a required list of required ints
    "unannotated_primitive": (
        _list(pa.int32()), [[i] * (i % 3) for i in range(ROWS)], _unannotated),
    # an unannotated repeated group at the top: a required list of required structs
    "unannotated_group": (
        _list(pa.struct([pa.field("x", pa.int32(), nullable=False), ("y", pa.string())])),
        [[{"x": i, "y": "v"}] * (i % 3) for i in range(ROWS)], _unannotated_struct_list),
}


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_legacy_list_layouts(case: str, version: str) -> None:
    typ, values, edit = CASES[case]
    nullable = not case.startswith("unannotated")
    table = pa.Table.from_arrays([pa.array(values, type=typ)],
                                 schema=pa.schema([pa.field("a", typ, nullable=nullable)]))
    buf = io.BytesIO()
    pq.write_table(table, buf, data_page_version=version, data_page_size=64, write_batch_size=3)
    data = rewrite(buf.getvalue(), edit)
    ours = pc.read_table(data)
    assert ours.column("a").type.name == "list"
    got = ours.column("a").to_pylist()
    assert_nested_matches(got, values, f"{case}: given values")
    theirs = pq.read_table(io.BytesIO(data)).column("a").to_pylist()
    assert_nested_matches(got, theirs, f"{case}: pyarrow's reading")


def test_map_key_value_misnamed_layout() -> None:
    values = [None, [], [("a", 1), ("b", None)], [("c", 3)]] * 5
    typ = pa.map_(pa.string(), pa.int32())
    buf = io.BytesIO()
    pq.write_table(pa.table({"m": pa.array(values, type=typ)}), buf)
    data = rewrite(buf.getvalue(), _map_key_value)
    assert pc.ParquetFile(data).schema_descriptor.column(0).path == ("m", "map", "str")
    col = pc.read_table(data).column("m")
    assert str(col.type) == "map<string, int32>"
    assert col.to_pylist() == values
    assert pq.read_table(io.BytesIO(data)).column("m").to_pylist() == values


def test_broken_list_layout_fails_only_when_read() -> None:
    """A LIST group that is not repeated inside: the file opens, other columns read, it raises."""
    buf = io.BytesIO()
    pq.write_table(pa.table({"id": [1, 2], "a": pa.array([[1], []], type=_list(pa.int32()))}), buf)

    def break_list(root: Node) -> None:
        root.child("a").children[0].el.repetition_type = Repetition.REQUIRED

    data = rewrite(buf.getvalue(), break_list)
    pf = pc.ParquetFile(data)
    assert pf.read(columns=["id"]).column("id").to_pylist() == [1, 2]
    for cols in (["a"], ["a.list.element"], None):
        with pytest.raises(pc.ParquetSchemaError, match="exactly one repeated field"):
            pf.read(columns=cols)
