"""Files whose columns repeat a name (pyarrow writes them): read by position, never mixed up.

pyarrow's ``ParquetFile.read`` gives every column its own data and type whatever
the names; ours must too.  A name several columns share cannot pick one: in
``columns=``, filters (tuples or ``pc.col``), ``read_dictionary=``, ``Table.column``
and the predicate layer it raises ``ParquetSchemaError`` naming the name and the
positions.  A name the file has once keeps working.  Expected values come from
pyarrow (``pq.read_table`` itself refuses such a file: its dataset layer matches
by name, so ``pq.ParquetFile(...).read()`` is the reference).
"""

from __future__ import annotations

import io
import pickle

import numpy as np
import pyarrow as pa
import pyarrow.compute as pac
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetSchemaError
from parquet_core.predicate import filter_mask


def _write(table: pa.Table, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _flat(n: int = 3) -> pa.Table:
    return pa.table([pa.array(list(range(1, n + 1)), pa.int32()),
                     pa.array(["x", "y", "z", "w", "v", "u"][:n]),
                     pa.array([10.5 + 10 * i for i in range(n)])], names=["a", "b", "a"])


@pytest.fixture
def flat(tmp_path):
    path = tmp_path / "dup.parquet"
    pq.write_table(_flat(), path)
    return str(path)


@pytest.fixture
def groups(tmp_path):
    """Six rows in six row groups, with page indexes (filters prune and read candidate rows)."""
    path = tmp_path / "groups.parquet"
    pq.write_table(_flat(6), path, row_group_size=1, write_page_index=True)
    return str(path)


def _same(ours: pc.Table, want: pa.Table) -> None:
    got = ours.to_arrow()
    assert got.schema.names == want.schema.names
    assert [f.type for f in got.schema] == [f.type for f in want.schema]
    for i in range(want.num_columns):
        assert got.column(i).to_pylist() == want.column(i).to_pylist(), i
    assert got.equals(want)


def _ambiguous(name: str = "a", where: str = "0, 2"):
    return pytest.raises(ParquetSchemaError, match=rf"{name!r} is ambiguous.*positions {where}")


# -------------------------------------------------------------------- reading every column
def test_read_table_gives_each_column_its_own_data(flat):
    want = pq.ParquetFile(flat).read()
    assert [f.type for f in want.schema] == [pa.int32(), pa.string(), pa.float64()]
    _same(pc.read_table(flat), want)
    _same(pc.ParquetFile(flat).read(), want)
    _same(pc.ParquetFile(flat).read_row_group(0), want)
    _same(pc.ParquetFile(flat).read_row_groups([0]), want)
    assert pc.ParquetFile(flat).schema_arrow.names == ["a", "b", "a"]


def test_iter_batches_keeps_the_columns_apart(groups):
    want = pq.ParquetFile(groups).read()
    batches = list(pc.ParquetFile(groups).iter_batches(batch_size=4))
    assert [b.num_rows for b in batches] == [4, 2]
    _same(pc.Table.concat(batches), want)


def test_position_still_reaches_each_column(flat):
    t = pc.read_table(flat)
    want = pq.ParquetFile(flat).read()
    assert t.column(0).to_pylist() == want.column(0).to_pylist()
    assert t.column(2).to_pylist() == want.column(2).to_pylist()
    assert t.schema.field(2).type == pc.float64()


def test_concatenating_tables_of_one_schema_goes_by_position(flat):
    t = pc.read_table(flat)
    want = pa.concat_tables([pq.ParquetFile(flat).read()] * 2)
    _same(pc.Table.concat([t, t]), want)
    with pytest.raises(ParquetSchemaError, match="'a' appears twice"):
        pc.Table.concat([t, t], promote_options="default")   # pyarrow refuses too


def test_to_pandas_keeps_both_columns(flat):
    want = pq.ParquetFile(flat).read().to_pandas()
    got = pc.read_table(flat).to_pandas()
    assert list(got.columns) == list(want.columns) == ["a", "b", "a"]
    for i in range(3):
        assert got.iloc[:, i].tolist() == want.iloc[:, i].tolist()
        assert got.iloc[:, i].dtype == want.iloc[:, i].dtype


# -------------------------------------------------------------------- names: unique ones work
def test_a_name_the_file_has_once_is_selected(flat):
    want = pq.ParquetFile(flat).read(columns=["b"])
    _same(pc.read_table(flat, columns=["b"]), want)
    _same(pc.ParquetFile(flat).read(columns=["b"]), want)
    got = list(pc.ParquetFile(flat).iter_batches(columns=["b"]))
    assert [c.to_pylist() for c in pc.Table.concat(got).columns] == [want.column(0).to_pylist()]


_B_FILTERS = {"in": ([("b", "in", ["y", "w", "u"])], lambda b: pac.is_in(b, pa.array(["y", "w", "u"]))),
              "gt": ([("b", ">", "w")], lambda b: pac.greater(b, "w")),
              "expr": (pc.col("b") != "x", lambda b: pac.not_equal(b, "x"))}


@pytest.mark.parametrize("key", sorted(_B_FILTERS))
def test_a_filter_on_a_name_the_file_has_once(groups, key):
    filters, mask = _B_FILTERS[key]
    full = pq.ParquetFile(groups).read()
    want = full.filter(mask(full.column(1)))
    assert 0 < want.num_rows < full.num_rows
    _same(pc.read_table(groups, filters=filters), want)
    _same(pc.ParquetFile(groups).read(filters=filters), want)
    batches = list(pc.ParquetFile(groups).iter_batches(filters=filters))
    _same(pc.Table.concat(batches), want)


def test_read_dictionary_of_a_name_the_file_has_once(flat):
    want = pq.ParquetFile(flat, read_dictionary=["b"]).read()
    assert pa.types.is_dictionary(want.schema.field(1).type)
    _same(pc.ParquetFile(flat, read_dictionary=["b"]).read(), want)


# -------------------------------------------------------------------- names: shared ones are refused
@pytest.mark.parametrize("columns", [["a"], ["b", "a"], ["a.x"]])
def test_selecting_a_shared_name_is_refused(flat, columns):
    with _ambiguous():
        pc.read_table(flat, columns=columns)
    with _ambiguous():
        pc.ParquetFile(flat).read(columns=columns)
    with _ambiguous():
        list(pc.ParquetFile(flat).iter_batches(columns=columns))
    with _ambiguous():
        pc.ParquetFile(flat).read_row_group(0, columns=columns)


@pytest.mark.parametrize("filters", [[("a", "==", 2)], [("b", "==", "y"), ("a", ">", 1)],
                                     pc.col("a") == 2, (pc.col("b") == "y") | (pc.col("a") < 0)],
                         ids=["tuple", "and", "expr", "or"])
def test_filtering_on_a_shared_name_is_refused(groups, filters):
    with _ambiguous():
        pc.read_table(groups, filters=filters)
    with _ambiguous():
        pc.ParquetFile(groups).read(columns=["b"], filters=filters)
    with _ambiguous():
        list(pc.ParquetFile(groups).iter_batches(filters=filters))
    with _ambiguous():
        pc.ParquetFile(groups).explain(filters)


def test_read_dictionary_of_a_shared_name_is_refused(flat):
    with _ambiguous():
        pc.ParquetFile(flat, read_dictionary=["a"]).read()
    with _ambiguous():
        pc.read_table(flat, read_dictionary=["a"])


def test_the_error_names_the_file(flat):
    with pytest.raises(ParquetSchemaError) as info:
        pc.read_table(flat, columns=["a"])
    assert flat in str(info.value)      # the file is named in the message itself


def test_table_and_predicate_layer_refuse_a_shared_name(flat):
    t = pc.read_table(flat)
    with _ambiguous():
        t.column("a")
    with _ambiguous():
        t.schema.field("a")
    with _ambiguous():
        filter_mask(pc.col("a") == 2, t)
    assert filter_mask(pc.col("b") == "y", t).tolist() == [False, True, False]


def test_leaf_lookups_refuse_a_shared_path(flat):
    pf = pc.ParquetFile(flat)
    with pytest.raises(ParquetSchemaError, match="'a' is ambiguous"):
        pf.column_chunk(0, "a")
    assert pf.column_chunk(0, 2).descriptor.path == ("a",)
    assert pf.column_chunk(0, 2).descriptor.data_type == pc.float64()
    with pytest.raises(ParquetSchemaError, match="ambiguous"):
        pf.metadata.schema.index_of(("a",))


def test_check_still_reports_the_duplicate_name(flat):
    report = pc.check(flat)
    assert [f.rule for f in report.findings if f.rule.startswith("schema.duplicate")] == ["schema.duplicate-name"]
    assert not [f for f in report.findings if f.rule.startswith("schema.nested")]


# -------------------------------------------------------------------- nested children sharing a name
def _nested_file() -> pa.Table:
    s = pa.StructArray.from_arrays([pa.array([1, 2, 3], pa.int32()), pa.array(["p", None, "r"])],
                                   names=["x", "x"], mask=pa.array([False, False, True]))
    lst = pa.array([[{"k": 1, "k2": 2}], [], None], pa.list_(pa.struct([("k", pa.int64()), ("k2", pa.int64())])))
    return pa.table([s, pa.array([7, 8, 9]), lst, s], names=["s", "n", "l", "t"])


def test_struct_fields_sharing_a_name_keep_their_own_data(tmp_path):
    path = tmp_path / "nested.parquet"
    pq.write_table(_nested_file(), path)
    want = pq.ParquetFile(path).read()
    got = pc.read_table(str(path))
    assert got.to_arrow().equals(want)
    s = got.column("s")
    assert s.field(0).to_pylist()[:2] == want.column("s").combine_chunks().field(0).to_pylist()[:2]
    assert s.field(0).type == pc.int32() and s.field(1).type == pc.string()
    with pytest.raises(ParquetSchemaError, match="'x' is ambiguous"):
        s.field("x")
    with pytest.raises(ParquetSchemaError, match="share a name"):
        s.to_pylist()            # a dict would keep one of them (pyarrow refuses too)
    # the other columns, by name
    _same(pc.read_table(str(path), columns=["n", "l"]), pq.ParquetFile(path).read(columns=["n", "l"]))


def test_a_dotted_path_through_shared_names_is_refused(tmp_path):
    path = tmp_path / "nested.parquet"
    pq.write_table(_nested_file(), path)
    with pytest.raises(ParquetSchemaError, match=r"'s\.x' is ambiguous.*positions 0, 1"):
        pc.read_table(str(path), columns=["s.x"])
    with pytest.raises(ParquetSchemaError, match=r"'t\.x' is ambiguous"):
        pc.read_table(str(path), filters=[("t.x", "==", 1)])
    with pytest.raises(ParquetSchemaError, match=r"'s\.x' is ambiguous"):
        pc.ParquetFile(str(path)).column_chunk(0, "s.x")


def test_top_level_structs_sharing_a_name(tmp_path):
    s = pa.StructArray.from_arrays([pa.array([1, 2]), pa.array(["p", "q"])], names=["x", "y"])
    s2 = pa.StructArray.from_arrays([pa.array([True, False])], names=["x"])
    path = tmp_path / "structs.parquet"
    pq.write_table(pa.table([s, pa.array([7, 8]), s2], names=["s", "n", "s"]), path)
    want = pq.ParquetFile(path).read()
    got = pc.read_table(str(path))
    assert got.to_arrow().equals(want)
    assert got.to_arrow().to_pylist() == want.to_pylist()
    with _ambiguous("s"):
        pc.read_table(str(path), columns=["s.y"])
    _same(pc.read_table(str(path), filters=[("n", "==", 8)]), want.slice(1, 1))


def test_the_schema_descriptor_pickles_and_still_finds_leaves(flat):
    md = pc.ParquetFile(flat).metadata
    schema = pickle.loads(pickle.dumps(md.schema))
    assert [schema.leaf_of(n) for n in schema.top_level_fields] == [0, 1, 2]
    assert np.array_equal([c.physical_type for c in schema], [c.physical_type for c in md.schema])


def test_dicts_of_rows_refuse_a_shared_name(flat):
    """pyarrow's ``to_pydict`` keeps the last ``a`` and drops the first; ours refuses."""
    t = pc.read_table(flat)
    assert len(pq.ParquetFile(flat).read().to_pydict()) == 2      # what a dict would lose
    with pytest.raises(ParquetSchemaError, match="'a' is shared by the columns at positions 0, 2"):
        t.to_pydict()
    with pytest.raises(ParquetSchemaError, match="'a' is shared by the columns at positions 0, 2"):
        t.to_pylist()
    assert pc.read_table(flat, columns=["b"]).to_pydict() == pq.ParquetFile(flat).read(columns=["b"]).to_pydict()


def test_a_recorded_dictionary_stays_with_its_own_column(tmp_path):
    """The ``ARROW:schema`` entry records the first ``a`` as a dictionary, not the second."""
    path = tmp_path / "dict.parquet"
    pq.write_table(pa.table([pa.array(["p", "q", "p"]).dictionary_encode(), pa.array(["x", "y", "z"])],
                            names=["a", "a"]), path)
    want = pq.ParquetFile(path).read()
    assert pa.types.is_dictionary(want.schema.field(0).type) and want.schema.field(1).type == pa.string()
    got = pc.read_table(str(path)).to_arrow()
    assert [f.type for f in got.schema] == [f.type for f in want.schema]
    assert got.equals(want)
