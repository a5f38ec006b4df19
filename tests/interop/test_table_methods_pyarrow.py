"""pyarrow-shaped Table methods (select, drop_columns, rename_columns, shape, nbytes,
column / __getitem__, to_pylist / to_pydict, equals) give what pyarrow's give."""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")


def _pair():
    arrow = pa.table({"a": [1, None, 3], "b": [1.5, 2.5, None], "s": ["x", None, "z"],
                      "l": [[1], None, []], "st": [{"k": 1}, None, {"k": 3}]})
    return arrow, pc.as_table(arrow)


def _same(ours: "pc.Table", theirs: "pa.Table") -> None:
    assert ours.column_names == theirs.column_names
    assert ours.to_pydict() == theirs.to_pydict()
    assert ours.to_pylist() == theirs.to_pylist()
    assert ours.shape == theirs.shape
    if theirs.num_columns:   # (to_arrow of a table without columns has no rows)
        assert ours.to_arrow().equals(theirs)


@pytest.mark.parametrize("columns", [["s", "a"], [2, 0], ["a"], [], ["st", "l"]])
def test_select(columns):
    arrow, ours = _pair()
    _same(ours.select(columns), arrow.select(columns))


def test_select_unknown_column():
    arrow, ours = _pair()
    with pytest.raises(KeyError):
        arrow.select(["nope"])
    with pytest.raises(KeyError, match="nope"):
        ours.select(["nope"])
    with pytest.raises(IndexError):
        ours.select([9])


@pytest.mark.parametrize("columns", ["a", ["a", "s"], [], ["st", "l", "b"]])
def test_drop_columns(columns):
    arrow, ours = _pair()
    _same(ours.drop_columns(columns), arrow.drop_columns(columns))
    _same(ours.drop(columns), arrow.drop_columns(columns))


def test_drop_unknown_column():
    arrow, ours = _pair()
    with pytest.raises(KeyError):
        arrow.drop_columns(["a", "nope"])
    with pytest.raises(KeyError, match="nope"):
        ours.drop_columns(["a", "nope"])


@pytest.mark.parametrize("names", [["v", "w", "x", "y", "z"], {"a": "A", "st": "struct"}])
def test_rename_columns(names):
    arrow, ours = _pair()
    _same(ours.rename_columns(names), arrow.rename_columns(names))


def test_rename_errors():
    arrow, ours = _pair()
    with pytest.raises(ValueError):
        arrow.rename_columns(["x"])
    with pytest.raises(ValueError, match="5 names"):
        ours.rename_columns(["x"])
    with pytest.raises(KeyError):
        arrow.rename_columns({"nope": "x"})
    with pytest.raises(KeyError, match="nope"):
        ours.rename_columns({"nope": "x"})


def test_rename_drops_the_stale_arrow_schema(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.duration("s")), "b": [1, 2]}), path)
    table = pc.read_table(path)
    assert table.to_arrow().schema.field("a").type == pa.duration("s")
    swapped = table.rename_columns(["b", "a"])   # "b" now holds the durations' storage
    assert swapped.to_arrow().schema.field("a").type == pa.int64()


def test_shape_nbytes_column_getitem_equals():
    arrow, ours = _pair()
    assert ours.shape == arrow.shape
    flat = pa.table({"i": np.arange(100, dtype=np.int64), "f": np.ones(100, np.float32)})
    assert pc.as_table(flat).nbytes == flat.nbytes   # same layout for fixed widths without nulls
    assert ours.nbytes > 0
    assert ours.column("s").to_pylist() == arrow.column("s").to_pylist()
    assert ours["a"].to_pylist() == arrow["a"].to_pylist()
    assert ours[1].to_pylist() == arrow[1].to_pylist()
    assert ours.equals(pc.as_table(arrow)) and not ours.equals(ours.select(["a"]))
