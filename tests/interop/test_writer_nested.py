"""Nested writing (Dremel shredding): pyarrow, duckdb and our reader read what we write.

Tables are built as pyarrow arrays (the oracle's own representation of the
values), written by parquet_core and read back by pyarrow value for value,
with data page v1 and v2, dictionary on and off, and tiny pages so that
records cross many page boundaries.  Statistics, null counts and level
histograms of every leaf are compared with those pyarrow's writer computes
for the same table.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

S = pa.string()


def _lists_of_structs() -> "pa.Table":
    t = pa.list_(pa.struct([("id", pa.int64()), ("tags", pa.list_(S)), ("w", pa.float64())]))
    rows = [[{"id": 1, "tags": ["a", None], "w": 0.5}, None, {"id": None, "tags": [], "w": None}],
            None, [], [None], [{"id": 7, "tags": None, "w": -1.0}]] * 7
    return pa.table({"ls": pa.array(rows, t), "k": pa.array(range(len(rows)), pa.int32())})


def _maps_of_lists() -> "pa.Table":
    t = pa.map_(S, pa.list_(pa.int32()))
    rows = [[("a", [1, 2, None]), ("b", None), ("c", [])], None, [], [("z", [5])]] * 9
    return pa.table({"m": pa.array(rows, t)})


def _struct_of_lists() -> "pa.Table":
    t = pa.struct([("xs", pa.list_(pa.int64())), ("name", S),
                   ("inner", pa.struct([("ys", pa.list_(pa.list_(pa.float32())))]))])
    rows = [{"xs": [1, 2], "name": "n", "inner": {"ys": [[1.5], [], None, [None]]}},
            None, {"xs": None, "name": None, "inner": None}, {"xs": [], "name": "", "inner": {"ys": []}}] * 8
    return pa.table({"s": pa.array(rows, t)})


def _deep() -> "pa.Table":
    t = pa.list_(pa.list_(pa.struct([("m", pa.map_(pa.int32(), pa.list_(pa.struct([("v", S)]))))])))
    rows = [[[{"m": [(1, [{"v": "x"}, None, {"v": None}]), (2, [])]}, None], [], None],
            None, [[None, {"m": None}, {"m": []}]], []] * 6
    return pa.table({"d": pa.array(rows, t)})


def _required_levels() -> "pa.Table":
    elem = pa.field("element", pa.struct([pa.field("a", pa.int64(), nullable=False),
                                          pa.field("b", S)]), nullable=False)
    t = pa.list_(elem)
    rows = [[{"a": 1, "b": None}, {"a": 2, "b": "q"}], [], [{"a": 3, "b": "r"}]] * 10
    schema = pa.schema([pa.field("r", t, nullable=False),
                        pa.field("m", pa.map_(pa.int64(), pa.field("value", S, nullable=False)),
                                 nullable=False)])
    maps = [[(1, "a"), (2, "b")], [], [(3, "c")]] * 10
    return pa.Table.from_arrays([pa.array(rows, t), pa.array(maps, schema.field("m").type)],
                                schema=schema)


def _all_null_and_empty() -> "pa.Table":
    n = 40
    return pa.table({
        "null_list": pa.array([None] * n, pa.list_(pa.int64())),
        "empty_lists": pa.array([[]] * n, pa.list_(S)),
        "null_elems": pa.array([[None, None]] * n, pa.list_(pa.int32())),
        "null_struct": pa.array([None] * n, pa.struct([("a", pa.list_(pa.int8()))])),
        "empty_maps": pa.array([[]] * n, pa.map_(S, pa.int64())),
        "list_null_type": pa.array([[None], [], None, [None, None]] * 10, pa.list_(pa.null())),
    })


def _large_and_fixed() -> "pa.Table":
    return pa.table({
        "large": pa.array([[1, None], None, [], [2]] * 5, pa.large_list(pa.int64())),
        "fixed": pa.array([[1, 2], None, [None, 4], [5, 6]] * 5, pa.list_(pa.int16(), 2)),
        "dict_strings": pa.array([["a", "b"], ["a"], None, []] * 5, pa.list_(S)),
    })


CASES = {
    "lists_of_structs": _lists_of_structs, "maps_of_lists": _maps_of_lists,
    "struct_of_lists": _struct_of_lists, "deep": _deep, "required": _required_levels,
    "all_null_and_empty": _all_null_and_empty, "large_and_fixed": _large_and_fixed,
}

VARIANTS = {
    "v1_dict": dict(data_page_version="1.0", use_dictionary=True),
    "v2_plain": dict(data_page_version="2.0", use_dictionary=False),
    "v1_tiny_pages": dict(data_page_version="1.0", data_page_size=16, row_group_size=17),
    "v2_tiny_pages_dict": dict(data_page_version="2.0", data_page_size=1,
                               data_page_row_count_limit=2, use_dictionary=True, compression="zstd"),
}


def _write(table: "pa.Table", **options) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    pc.write_table(table, buf, **options)
    return buf.getvalue()


def _expected(table: "pa.Table") -> list:
    # a fixed-size list reads back as a plain list; Python values compare the rest
    return table.to_pylist()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_pyarrow_and_our_reader_read_what_we_write(case: str, variant: str) -> None:
    table = CASES[case]()
    data = _write(table, **VARIANTS[variant])
    theirs = pq.read_table(io.BytesIO(data))
    assert theirs.num_rows == table.num_rows
    assert theirs.to_pylist() == _expected(table)
    ours = pc.read_table(data)
    assert ours.to_arrow().to_pylist() == _expected(table)
    # the same file through pyarrow's row-group and page-at-a-time reader
    pf = pq.ParquetFile(io.BytesIO(data))
    batches = [b for b in pf.iter_batches(batch_size=3)]
    assert sum(len(b) for b in batches) == table.num_rows
    assert pa.Table.from_batches(batches, schema=theirs.schema).to_pylist() == _expected(table)


def test_schema_layout_matches_pyarrow() -> None:
    """Standard three-level LIST and MAP layouts, with pyarrow's names and annotations."""
    table = pa.table({"ls": _lists_of_structs().column("ls").slice(0, 32),
                      "m": _maps_of_lists().column("m").slice(0, 32), "s": _struct_of_lists().column("s")})
    ours = pq.ParquetFile(io.BytesIO(_write(table))).schema
    buf = io.BytesIO()
    pq.write_table(table, buf, store_schema=False)
    theirs = pq.ParquetFile(io.BytesIO(buf.getvalue())).schema
    assert str(ours).split("\n", 1)[1] == str(theirs).split("\n", 1)[1]
    assert ours.to_arrow_schema() == theirs.to_arrow_schema()


def test_tiny_pages_split_on_records_and_index_rows() -> None:
    table = _lists_of_structs()
    data = _write(table, data_page_size=1, data_page_row_count_limit=3)
    pf = pc.ParquetFile(data)
    md = pq.ParquetFile(io.BytesIO(data)).metadata
    for i in range(md.num_columns):
        path = md.schema.column(i).path
        oi = pf.offset_index(0, path)
        rows = np.array([p.first_row_index for p in oi.page_locations])
        # at most 3 records a page (records without values cost no bytes, so
        # pages hold 1 to 3), each page starting on a record
        assert rows[0] == 0 and rows[-1] < table.num_rows, path
        assert (np.diff(np.append(rows, table.num_rows)) >= 1).all(), path
        assert (np.diff(np.append(rows, table.num_rows)) <= 3).all(), path
        assert len(rows) >= table.num_rows // 3, path
    # the whole file and every row range read back through pyarrow
    assert pq.read_table(io.BytesIO(data)).to_pylist() == table.to_pylist()


def _leaf_stats(data: bytes) -> list:
    md = pq.ParquetFile(io.BytesIO(data)).metadata
    out = []
    for rg in range(md.num_row_groups):
        for i in range(md.num_columns):
            c = md.row_group(rg).column(i)
            st = c.statistics
            if st is None:  # pyarrow writes none for a null-typed leaf
                out.append((c.path_in_schema, c.num_values, None))
                continue
            out.append((c.path_in_schema, c.num_values, st.null_count, st.has_min_max and st.min,
                        st.has_min_max and st.max))
    return out


def _histograms(data: bytes) -> list:
    pf = pc.ParquetFile(data)
    raw = pf.metadata
    out = []
    for rg in range(raw.num_row_groups):
        for i in range(raw.num_columns):
            meta = raw.row_group(rg).column(i)
            ss = meta.meta.size_statistics
            # the spec lets a writer omit a histogram whose maximum level is 0
            # (pyarrow writes an empty list, we omit it)
            out.append((ss.definition_level_histogram or None, ss.repetition_level_histogram or None,
                        ss.unencoded_byte_array_data_bytes))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_statistics_and_histograms_match_pyarrow(case: str) -> None:
    table = CASES[case]()
    ours = _write(table, row_group_size=25)
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=25, store_schema=False)
    theirs = buf.getvalue()
    mine, expected = _leaf_stats(ours), _leaf_stats(theirs)
    assert len(mine) == len(expected)
    for a, b in zip(mine, expected):
        assert a[:2] == b[:2]
        if b[2:] != (None,):
            assert a == b
    assert _histograms(ours) == _histograms(theirs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_duckdb_reads_what_we_write(tmp_path, case: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    table = CASES[case]()
    if case == "all_null_and_empty":
        table = table.drop_columns(["list_null_type"])  # duckdb has no null-typed Parquet column
    path = tmp_path / "n.parquet"
    path.write_bytes(_write(table, data_page_size=64))
    got = duckdb.sql(f"SELECT * FROM read_parquet('{path}')").arrow()
    got = got.read_all() if hasattr(got, "read_all") else got
    expected = pq.read_table(path)
    assert got.num_rows == table.num_rows
    for name in table.column_names:
        a = got.column(name).to_pylist()
        b = expected.column(name).to_pylist()
        assert _norm(a) == _norm(b), name


def _norm(v):  # type: ignore[no-untyped-def]
    """duckdb returns maps as lists of (key, value) tuples or dicts; bring both to lists of pairs."""
    if isinstance(v, dict):
        if set(v) == {"key", "value"} and isinstance(v["key"], list):
            return [(_norm(k), _norm(x)) for k, x in zip(v["key"], v["value"])]
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_norm(x) for x in v] if not (isinstance(v, tuple) and len(v) == 2) \
            else (_norm(v[0]), _norm(v[1]))
    return v


def test_round_trip_of_our_own_table() -> None:
    table = pa.table({**{n: c for n, c in zip(_deep().column_names, _deep().columns)},
                      "m": _maps_of_lists().column("m").slice(0, 24)})
    first = pc.read_table(_write(table, data_page_size=32))
    second = pc.read_table(_write(first, data_page_version="2.0"))
    assert second.to_pylist() == first.to_pylist()
    assert second.schema == first.schema
    assert pq.read_table(io.BytesIO(_write(first))).to_pylist() == table.to_pylist()


def test_legacy_list_layout_reads_the_same() -> None:
    req = pa.field("element", pa.int64(), nullable=False)
    table = pa.table({"opt": pa.array([[1, None], None, []], pa.list_(pa.int64())),
                      "req": pa.array([[1, 2], None, []], pa.list_(req)),
                      "los": pa.array([[{"a": 1}], [], None],
                                      pa.list_(pa.field("element", pa.struct([("a", pa.int8())]),
                                                        nullable=False)))})
    data = _write(table, legacy_list_layout=True)
    schema = str(pq.ParquetFile(io.BytesIO(data)).schema)
    assert "repeated int64 field_id=-1 array" in schema                   # two-level
    assert "repeated group field_id=-1 bag" in schema                     # nullable elements
    assert "repeated group field_id=-1 array" in schema                   # two-level, struct elements
    assert pq.read_table(io.BytesIO(data)).to_pylist() == table.to_pylist()
    assert pc.read_table(data).to_pylist() == table.to_pylist()


# ---------------------------------------------------------------- Python values

def test_python_values_are_inferred() -> None:
    data = {"tags": [["a", None], [], None, ["b"]],
            "point": [{"x": 1, "y": 2.5}, None, {"x": None}, {"y": 1.0, "x": 3}],
            "nested": [[[1], [2, None]], None, [[]], [None]]}
    buf = _write(data)
    got = pq.read_table(io.BytesIO(buf))
    assert str(got.schema.field("tags").type) == "list<element: string>"
    assert str(got.schema.field("point").type) == "struct<x: int64, y: double>"
    assert got.column("tags").to_pylist() == data["tags"]
    assert got.column("point").to_pylist() == [{"x": 1, "y": 2.5}, None, {"x": None, "y": None},
                                                {"x": 3, "y": 1.0}]
    assert got.column("nested").to_pylist() == data["nested"]


def test_python_values_with_a_schema() -> None:
    schema = pc.schema([
        pc.field("m", pc.map_(pc.string(), pc.list_(pc.int32()))),
        pc.field("s", pc.struct([pc.field("a", pc.int16(), nullable=False), ("b", pc.list_(pc.string()))])),
        pc.field("r", pc.list_(pc.field("element", pc.decimal(9, 2), nullable=False)), nullable=False),
    ])
    from decimal import Decimal

    data = {"m": [{"a": [1, None]}, [("b", None), ("c", [])], None],
            "s": [{"a": 1, "b": ["x"]}, None, {"a": 2}],
            "r": [[Decimal("1.25")], [], [1, Decimal("-3.5")]]}
    got = pq.read_table(io.BytesIO(_write(data, schema=schema)))
    assert got.column("m").to_pylist() == [[("a", [1, None])], [("b", None), ("c", [])], None]
    assert got.column("s").to_pylist() == [{"a": 1, "b": ["x"]}, None, {"a": 2, "b": None}]
    assert got.column("r").to_pylist() == [[Decimal("1.25")], [], [Decimal("1.00"), Decimal("-3.50")]]
    assert got.schema.field("r").nullable is False


@pytest.mark.parametrize("schema, data, message", [
    (pc.list_(pc.field("element", pc.int64(), nullable=False)), [[1], [2, None]],
     r"row 1: null in a non-nullable field"),
    (pc.struct([pc.field("a", pc.int64(), nullable=False)]), [{"a": 1}, {"a": None}],
     r"row 1: null in a non-nullable field"),
    (pc.map_(pc.string(), pc.int64()), [[("a", 1)], [(None, 2)]], r"row 1: a map key is null"),
    (pc.list_(pc.int64()), [[1], "abc"], r"row 1: expected a list"),
    (pc.list_(pc.int64()), [[1], [2, "x"]], r"row 1"),
    (pc.struct([("a", pc.int64())]), [{"a": 1}, {"b": 2}], r"row 1: struct has no member 'b'"),
    (pc.map_(pc.string(), pc.int64()), [[("a", 1, 2)]], r"row 0: a map entry must be a"),
    (pc.list_(pc.list_(pc.int8())), [None, [[1], [300]]], r"row 1"),
])
def test_bad_python_values_name_column_and_row(schema, data, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(pc.ParquetSchemaError, match=r"column 'c.*" + message):
        _write({"c": data}, schema=pc.schema([pc.field("c", schema)]))


def test_bad_arrow_data_is_refused_before_anything_is_written(tmp_path) -> None:
    # a null element where the schema requires one, as an Arrow array can hold it
    t = pa.list_(pa.field("element", pa.int64(), nullable=False))
    arr = pa.ListArray.from_arrays(pa.array([0, 1, 3], pa.int32()), pa.array([1, None, 3]), type=t)
    target = tmp_path / "x.parquet"
    with pytest.raises(pc.ParquetSchemaError, match=r"column 'c.list.element', row 1"):
        pc.write_table(pa.table({"c": arr}), target, row_group_size=1)
    assert not target.exists()


def test_null_under_null_parent_is_not_a_violation() -> None:
    """A required child may hold filler under a null parent (pyarrow builds such arrays)."""
    t = pa.struct([pa.field("a", pa.int64(), nullable=False)])
    arr = pa.StructArray.from_arrays([pa.array([1, None, 3])], fields=[t.field(0)],
                                     mask=pa.array([False, True, False]))
    data = _write(pa.table({"s": arr}))
    assert pq.read_table(io.BytesIO(data)).column("s").to_pylist() == [{"a": 1}, None, {"a": 3}]


def test_sliced_arrow_input_and_zero_rows() -> None:
    table = _lists_of_structs()
    part = table.slice(3, 11)
    assert pq.read_table(io.BytesIO(_write(part))).to_pylist() == part.to_pylist()
    empty = table.slice(0, 0)
    got = pq.read_table(io.BytesIO(_write(empty)))
    assert got.num_rows == 0 and got.schema.field("ls").type == table.schema.field("ls").type


def test_nested_factories_and_schema_errors() -> None:
    assert str(pc.list_(pc.int8())) == "list<element: int8>"
    assert pc.map_(pc.string(), pc.int8()).fields[0].nullable is False
    with pytest.raises(ValueError):
        pc.map_(pc.list_(pc.int8()), pc.int8())
    with pytest.raises(ValueError):
        pc.struct([])
    with pytest.raises(ValueError):
        pc.struct([("a", pc.int8()), ("a", pc.int16())])
    with pytest.raises(TypeError):
        pc.list_("int8")  # type: ignore[arg-type]
    with pytest.raises(pc.ParquetSchemaError, match="row 0: expected a list"):
        _write({"c": [1, 2]}, schema=pc.schema([pc.field("c", pc.list_(pc.int8()))]))


def test_writer_in_batches_keeps_records_whole() -> None:
    table = _maps_of_lists()
    buf = io.BytesIO()
    with pc.ParquetWriter(buf, table.schema, row_group_size=5, data_page_size=8) as w:
        for b in table.to_batches(max_chunksize=7):
            w.write_table(pa.Table.from_batches([b]))
    got = pq.read_table(io.BytesIO(buf.getvalue()))
    assert got.to_pylist() == table.to_pylist()
    assert pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata.num_row_groups > 3
    assert np.all(np.array([1]) == 1)


def test_malformed_hand_built_arrays_are_refused() -> None:
    from parquet_core.table.arrays import Array, Table
    from parquet_core.table.nested import ListArray

    dt = pc.list_(pc.int64())
    child = Array(pc.int64(), np.arange(3, dtype=np.int64))
    schema = pc.schema([pc.field("c", dt)])
    for offsets in ([0, 2, 1, 3], [0, 2, 5]):
        arr = ListArray(dt, np.array(offsets, dtype=np.int64), child)
        with pytest.raises(pc.ParquetSchemaError, match="column 'c': list offsets"):
            _write(Table(schema, [arr]))


def test_numpy_object_and_pandas_nested_columns() -> None:
    pd = pytest.importorskip("pandas")
    objs = np.empty(3, dtype=object)
    objs[:] = [[1, 2], None, []]
    got = pq.read_table(io.BytesIO(_write({"x": objs})))
    assert got.column("x").to_pylist() == [[1, 2], None, []]
    df = pd.DataFrame({"x": [[1, 2], None, []], "s": [{"a": 1}, None, {"a": 2}]})
    got = pq.read_table(io.BytesIO(_write(df)))
    assert got.to_pylist() == [{"x": [1, 2], "s": {"a": 1}}, {"x": None, "s": None},
                               {"x": [], "s": {"a": 2}}]


def test_struct_without_members_is_refused() -> None:
    with pytest.raises(ValueError, match="struct without members"):
        _write(pa.table({"s": pa.array([{}, None], pa.struct([]))}))


def test_per_leaf_options_and_bloom_filters_on_nested_leaves() -> None:
    schema = pc.schema([pc.field("a", pc.list_(pc.int64())), pc.field("m", pc.map_(pc.string(), pc.int64()))])
    data = _write({"a": [[1, 2], None, [3]], "m": [[("x", 1)], [], None]}, schema=schema,
                  use_dictionary={"a.list.element": False}, compression={"m.key_value.key": "zstd"},
                  bloom_filter_options={"a.list.element": True, "m.key_value.key": True})
    md = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    assert "PLAIN_DICTIONARY" not in md.column(0).encodings and "RLE_DICTIONARY" not in md.column(0).encodings
    assert md.column(1).compression == "ZSTD" and md.column(2).compression == "SNAPPY"
    pf = pc.ParquetFile(data)
    assert pf.bloom_filter(0, "a.list.element").check([1, 2, 3]).all()
    assert not pf.bloom_filter(0, "m.key_value.key").might_contain("not there")
    assert pf.bloom_filter(0, "m.key_value.key").might_contain("x")


def test_legacy_layout_of_lists_of_required_lists_is_valid() -> None:
    """A required list (or map) element cannot be the repeated two-level field (a repeated LIST group
    is invalid): it takes the three-level bag form, which pyarrow reads."""
    t = pa.table({"c0": pa.array([[[b"a"], [b"b", None]], [], [[]], None],
                                 pa.list_(pa.field("item", pa.list_(pa.binary()), nullable=False))),
                  "c1": pa.array([[{"k": 1}], [], None, [{}]],
                                 pa.list_(pa.field("item", pa.map_(pa.string(), pa.int64()), nullable=False)))})
    buf = io.BytesIO()
    pc.write_table(t, buf, legacy_list_layout=True)
    back = pq.read_table(io.BytesIO(buf.getvalue()))
    assert back.column("c0").to_pylist() == t.column("c0").to_pylist()
    assert back.column("c1").to_pylist() == t.column("c1").to_pylist()
    assert pc.read_table(io.BytesIO(buf.getvalue())).column("c0").to_pylist() == t.column("c0").to_pylist()
