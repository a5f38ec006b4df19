"""Row groups whose footer statistics show that every row matches a filter are read without
the exact row filter (``RowGroupPlan.every_row``); the rows must still be pyarrow's."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.predicate import Bounds, col, negation_normal_form
from parquet_core.predicate.evaluate import must_match
from parquet_core.schema.types import DataType


def _write(tmp_path, table: pa.Table, **kw) -> str:
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, **kw)
    return path


def _plans(path: str, filters):
    return pc.ParquetFile(path).planner.plan(filters, measure=False)[2]


def _same_as_pyarrow(path: str, filters) -> None:
    ours = pc.read_table(path, filters=filters).to_arrow()
    theirs = pq.read_table(path, filters=filters)
    assert ours.num_rows == theirs.num_rows
    assert ours.equals(theirs.select(ours.column_names))


def _table() -> pa.Table:
    n = 100
    return pa.table({
        "qty": pa.array(np.arange(n, dtype=np.int32)),
        "big": pa.array(np.arange(n, dtype=np.int64) + 10**12),
        "x": pa.array(np.linspace(0, 1, n)),
        "ts": pa.array([dt.datetime(2024, 1, 1) + dt.timedelta(hours=i) for i in range(n)], pa.timestamp("us")),
        "s": pa.array([f"v{i:03d}" for i in range(n)]),
    })


@pytest.mark.parametrize("filters", [
    [("qty", ">=", 0)],
    [("qty", "<", 100)],
    [("qty", "<=", 99), ("big", ">", 0)],
    [("qty", "!=", 500)],
    [("ts", ">=", dt.datetime(2023, 12, 31))],
    [[("qty", "<", 0)], [("qty", ">=", 0)]],         # an Or: one side holds for every row
])
def test_every_row_matches(tmp_path, filters) -> None:
    path = _write(tmp_path, _table())
    (plan,) = _plans(path, filters)
    assert plan.every_row and plan.rows is None
    _same_as_pyarrow(path, filters)


@pytest.mark.parametrize("filters", [
    [("qty", ">=", 50)],                  # some rows fail
    [("qty", "!=", 3)],                   # 3 is inside the bounds
    [("x", ">=", 0.0)],                   # floats: NaN is not counted in the bounds
    [("s", ">=", "a")],                   # byte arrays: bounds may be truncated
    [("qty", "in", [1, 2])],
    [("qty", ">=", 0), ("x", "<", 0.5)],  # an And with one undecided side
])
def test_not_every_row(tmp_path, filters) -> None:
    path = _write(tmp_path, _table())
    plans = _plans(path, filters)
    assert not any(p.every_row for p in plans)
    _same_as_pyarrow(path, filters)


def test_nulls_are_filtered(tmp_path) -> None:
    """A null fails every comparison: a chunk with a null is filtered row by row."""
    t = pa.table({"qty": pa.array([0, None, 5, 7], pa.int32())})
    path = _write(tmp_path, t)
    (plan,) = _plans(path, [("qty", ">=", 0)])
    assert not plan.every_row
    assert pc.read_table(path, filters=[("qty", ">=", 0)]).to_arrow().column("qty").to_pylist() == [0, 5, 7]
    _same_as_pyarrow(path, [("qty", ">=", 0)])
    (plan,) = _plans(path, pc.col("qty").is_not_null())
    assert not plan.every_row


def test_struct_leaf_not_decided(tmp_path) -> None:
    """A leaf below a struct is null where its parent is: never decided from statistics."""
    t = pa.table({"st": pa.array([{"a": 1}, None, {"a": 3}], pa.struct([("a", pa.int32())]))})
    path = _write(tmp_path, t)
    plans = _plans(path, pc.col("st.a") >= 0)
    assert not any(p.every_row for p in plans)
    assert pc.read_table(path, filters=pc.col("st.a") >= 0).num_rows == 2


def test_row_groups_mixed(tmp_path) -> None:
    """One row group wholly matches, the next in part, the last not at all."""
    t = pa.table({"qty": pa.array(np.arange(300, dtype=np.int64)), "v": pa.array(np.arange(300) * 2)})
    path = _write(tmp_path, t, row_group_size=100)
    filters = [("qty", "<", 150)]
    plans = _plans(path, filters)
    assert [(p.index, p.every_row) for p in plans] == [(0, True), (1, False)]
    _same_as_pyarrow(path, filters)
    ours = pc.read_table(path, filters=filters, columns=["v"]).to_arrow()
    assert ours.equals(pq.read_table(path, filters=filters, columns=["v"]))


def test_dataset_filter_that_prunes_nothing(tmp_path) -> None:
    for k in range(3):
        pq.write_table(pa.table({"qty": pa.array(np.arange(k, k + 50, dtype=np.int32))}),
                       str(tmp_path / f"part-{k}.parquet"))
    filters = [("qty", ">=", 0)]
    ours = pc.read_table(str(tmp_path), filters=filters).to_arrow().sort_by("qty")
    theirs = pq.read_table(str(tmp_path), filters=filters).sort_by("qty")
    assert ours.equals(theirs)


def test_must_match_units() -> None:
    i32 = DataType("int32")
    one = lambda v: np.array([v], dtype=np.int32)  # noqa: E731
    b = Bounds(i32, one(0), one(9), 0, 10)
    get = lambda name: b  # noqa: E731
    assert must_match(negation_normal_form(col("a") >= 0), get)
    assert must_match(negation_normal_form(col("a") == 5) | (col("a") < 100), get)
    assert not must_match(negation_normal_form(col("a") > 0), get)
    assert not must_match(negation_normal_form(~(col("a") < 0)), get)     # negated: not decided
    assert must_match(negation_normal_form(col("a").is_not_null()), get)
    assert not must_match(negation_normal_form(col("a").is_null()), get)
    unknown_nulls = Bounds(i32, one(0), one(9), None, 10)
    assert not must_match(negation_normal_form(col("a") >= 0), lambda n: unknown_nulls)
    assert not must_match(negation_normal_form(col("a") >= 0), lambda n: None)
    all_null = Bounds(i32, None, None, 4, 4)
    assert must_match(negation_normal_form(col("a").is_null()), lambda n: all_null)
