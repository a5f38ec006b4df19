"""``PARQUET:field_id`` of nested fields (list elements, struct members, map keys and values).

pyarrow writes a nested field's ``PARQUET:field_id`` metadata as the
``field_id`` of the Parquet node standing for that field (never on the
repeated ``list`` / ``key_value`` groups between), and its reader puts each
node's id back on the Arrow field, first among that field's metadata.  The
oracle is pyarrow: ``pq.read_schema`` of a file pyarrow wrote, against our
``to_arrow()`` of that file, and against ``pq.read_schema`` of the file we
write back from it.
"""

from __future__ import annotations

import io
import re

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _id(i: int, **more: str) -> dict[bytes, bytes]:
    return {b"PARQUET:field_id": str(i).encode(), **{k.encode(): v.encode() for k, v in more.items()}}


def _schema() -> "pa.Schema":
    return pa.schema([
        pa.field("l", pa.list_(pa.field("item", pa.int32(), metadata=_id(11))), metadata=_id(1)),
        pa.field("s", pa.struct([
            pa.field("a", pa.int64(), metadata=_id(21)),
            pa.field("b", pa.list_(pa.field("element", pa.string(), metadata=_id(23))), metadata=_id(22)),
        ]), metadata=_id(2)),
        pa.field("m", pa.map_(pa.field("key", pa.string(), nullable=False, metadata=_id(31)),
                              pa.field("value", pa.list_(pa.field("element", pa.float64(), metadata=_id(33))),
                                       metadata=_id(32, note="kept"))), metadata=_id(3)),
        pa.field("ls", pa.list_(pa.field("element", pa.struct([
            pa.field("x", pa.timestamp("ns", tz="Europe/Paris"), metadata=_id(43)),
            pa.field("y", pa.map_(pa.field("key", pa.int32(), nullable=False, metadata=_id(45)),
                                  pa.field("value", pa.string(), metadata=_id(46))), metadata=_id(44)),
        ]), metadata=_id(42))), metadata=_id(4)),
        # no id at the top, ids below; and a member without any
        pa.field("n", pa.struct([pa.field("p", pa.int32()), pa.field("q", pa.int32(), metadata=_id(52))])),
    ])


def _table() -> "pa.Table":
    rows = {
        "l": [[1, None, 3], None, []],
        "s": [{"a": 1, "b": ["x", None]}, None, {"a": None, "b": None}],
        "m": [[("k", [1.5, None])], None, [("j", None)]],
        "ls": [[{"x": 1_000_000_000, "y": [(1, "v")]}], [None], None],
        "n": [{"p": 1, "q": 2}, None, {"p": None, "q": 3}],
    }
    return pa.table(rows, schema=_schema())


def _write_theirs(table, **kw) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **kw)
    return sink.getvalue()


def _walk(t, out: list, where: str) -> None:
    """Every child field's (path, name, type, nullability, metadata) below type *t*.

    The name of a map's entries field is left out: pyarrow 26's reader names
    it after the map column, parquet_core's after Arrow's default
    (``entries``); nothing is stored under that name.
    """
    if pa.types.is_map(t):
        children = [("key", t.key_field), ("value", t.item_field)]
    elif pa.types.is_struct(t) or pa.types.is_list(t) or pa.types.is_large_list(t):
        children = [(t.field(i).name, t.field(i)) for i in range(t.num_fields)]
    else:
        return
    for label, f in children:
        path = f"{where}.{label}"
        out.append((path, f.name, _type_text(f.type), f.nullable, dict(f.metadata or {})))
        _walk(f.type, out, path)


def _type_text(t) -> str:
    return re.sub(r" \('[^']*'\)>", ">", str(t))   # the entries name again (see _walk)


def _described(schema) -> list:
    out: list = []
    for f in schema:
        out.append((f.name, f.name, _type_text(f.type), f.nullable, dict(f.metadata or {})))
        _walk(f.type, out, f.name)
    return out


def _nodes(data: bytes) -> str:
    """The Parquet schema as pyarrow prints it (names, repetitions, types, field ids)."""
    return str(pq.ParquetFile(io.BytesIO(data)).schema).split("\n", 1)[1]


def _same_schema(ours, theirs) -> None:
    assert _described(ours) == _described(theirs)
    # the metadata keys in pyarrow's order too (PARQUET:field_id first)
    assert [list(d[4]) for d in _described(ours)] == [list(d[4]) for d in _described(theirs)]


@pytest.mark.parametrize("store_schema", [True, False])
def test_to_arrow_gives_nested_field_ids_as_pyarrow_reads_them(store_schema):
    data = _write_theirs(_table(), store_schema=store_schema)
    ours = pc.read_table(io.BytesIO(data)).to_arrow()
    theirs = pq.read_table(io.BytesIO(data))
    _same_schema(ours.schema, theirs.schema)
    assert ours.to_pylist() == theirs.to_pylist()


@pytest.mark.parametrize("store_schema", [True, False])
@pytest.mark.parametrize("via", ["arrow", "table"])
def test_round_trip_keeps_nested_field_ids(store_schema, via):
    """Read by us, written back by us: the file reads like the one pyarrow wrote."""
    theirs = _write_theirs(_table(), store_schema=store_schema)
    table = pc.read_table(io.BytesIO(theirs))
    sink = io.BytesIO()
    pc.write_table(table.to_arrow() if via == "arrow" else table, sink, store_schema=store_schema)
    ours = sink.getvalue()
    _same_schema(pq.read_schema(io.BytesIO(ours)), pq.read_schema(io.BytesIO(theirs)))
    # the Parquet nodes carry the same ids (repeated groups none)
    assert _nodes(ours) == _nodes(theirs)


def test_writing_a_pyarrow_table_puts_ids_on_the_nodes_pyarrow_uses():
    table = _table()
    sink = io.BytesIO()
    pc.write_table(table, sink, store_schema=False)
    assert _nodes(sink.getvalue()) == _nodes(_write_theirs(table, store_schema=False))


def test_writer_given_a_pyarrow_schema_takes_its_nested_ids():
    sink = io.BytesIO()
    with pc.ParquetWriter(sink, _schema(), store_schema=False) as w:
        w.write_table(_table())
    _same_schema(pq.read_schema(io.BytesIO(sink.getvalue())),
                 pq.read_schema(io.BytesIO(_write_theirs(_table(), store_schema=False))))


def test_legacy_list_layouts_keep_the_element_id():
    table = _table()
    theirs = _write_theirs(table, store_schema=False, use_compliant_nested_type=False)
    got = pc.read_table(io.BytesIO(theirs)).to_arrow()
    _same_schema(got.schema, pq.read_schema(io.BytesIO(theirs)))
    sink = io.BytesIO()
    pc.write_table(table, sink, store_schema=False, legacy_list_layout=True)
    back = pq.read_schema(io.BytesIO(sink.getvalue()))
    assert back.field("l").type.value_field.metadata == {b"PARQUET:field_id": b"11"}
    assert back.field("s").type.field("b").type.value_field.metadata == {b"PARQUET:field_id": b"23"}


def test_selected_columns_keep_their_nested_ids():
    data = _write_theirs(_table(), store_schema=False)
    ours = pc.read_table(io.BytesIO(data), columns=["m", "ls"]).to_arrow()
    theirs = pq.read_table(io.BytesIO(data), columns=["m", "ls"])
    _same_schema(ours.schema, theirs.schema)


def test_parquet_core_schema_with_nested_ids():
    schema = pc.schema([
        pc.field("l", pc.list_(pc.field("element", pc.int32(), field_id=7)), field_id=6),
        pc.field("m", pc.map_(pc.field("key", pc.string(), False, field_id=9),
                              pc.field("value", pc.int64(), field_id=10)), field_id=8),
        pc.field("s", pc.struct([pc.field("a", pc.int32(), field_id=12)]), field_id=11),
    ])
    sink = io.BytesIO()
    pc.write_table({"l": [[1]], "m": [[("k", 1)]], "s": [{"a": 1}]}, sink, schema=schema)
    expected = pa.schema([
        pa.field("l", pa.list_(pa.field("element", pa.int32(), metadata=_id(7))), metadata=_id(6)),
        pa.field("m", pa.map_(pa.field("key", pa.string(), False, metadata=_id(9)),
                              pa.field("value", pa.int64(), metadata=_id(10))), metadata=_id(8)),
        pa.field("s", pa.struct([pa.field("a", pa.int32(), metadata=_id(12))]), metadata=_id(11)),
    ])
    _same_schema(pq.read_schema(io.BytesIO(sink.getvalue())), expected)
    read = pc.read_schema(io.BytesIO(sink.getvalue()))
    assert read.field("m").type.fields[1].field_id == 10
    with pytest.raises(ValueError):
        pc.field("x", pc.int32(), field_id=2**31)
