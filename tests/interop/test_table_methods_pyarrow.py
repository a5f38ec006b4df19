"""The pyarrow ``Table`` methods people use, on our Table, against pyarrow's on the same data."""

from __future__ import annotations

import math

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")

DATA = {
    "i": [3, None, 1, 3, 2, 1, None, 5],
    "f": [1.5, float("nan"), None, -2.0, 0.0, 1.5, 3.25, float("nan")],
    "s": ["b", "a", None, "c", "a", "b", "d", None],
    "t": [True, False, None, True, True, False, False, True],
}


def _both():
    theirs = pa.table(DATA)
    return pc.Table.from_pydict(DATA), theirs


def _same(ours, theirs):
    got, want = ours.to_pydict(), theirs.to_pydict()
    assert list(got) == list(want)
    for name in want:
        for a, b in zip(got[name], want[name], strict=True):
            assert (a is None and b is None) or (isinstance(a, float) and math.isnan(a) and math.isnan(b)) \
                or a == b, (name, got[name], want[name])


@pytest.mark.parametrize("args", [(), (0,), (2,), (3, 2), (7, 5), (8,), (20,), (2, 0), (0, 100)])
def test_slice_is_offset_and_length(args):
    ours, theirs = _both()
    _same(ours.slice(*args), theirs.slice(*args))


def test_slice_refuses_negative_offset_as_pyarrow():
    ours, theirs = _both()
    with pytest.raises(IndexError):
        theirs.slice(-1)
    with pytest.raises(IndexError):
        ours.slice(-1)


@pytest.mark.parametrize("sorting", [
    "i", "s", "f", [("i", "descending")], [("s", "descending"), ("i", "ascending")],
    [("t", "ascending"), ("f", "descending")], [("i", "ascending"), ("s", "descending")],
])
def test_sort_by(sorting):
    ours, theirs = _both()
    _same(ours.sort_by(sorting), theirs.sort_by(sorting))


def test_getitem_column_and_names():
    ours, theirs = _both()
    for key in ("s", 0, 2, -1):
        assert ours[key].to_pylist() == theirs[key].to_pylist()
        assert ours.column(key).to_pylist() == theirs.column(key).to_pylist()
    assert ours.column_names == theirs.column_names
    assert (ours.num_rows, ours.num_columns, ours.shape) == (theirs.num_rows, theirs.num_columns, theirs.shape)
    assert ours.schema.names == theirs.schema.names


def test_take_and_filter():
    ours, theirs = _both()
    _same(ours.take([7, 0, 0, 3]), theirs.take([7, 0, 0, 3]))
    mask = [True, False, True, None, False, True, True, False]
    _same(ours.filter(pa.array(mask, pa.bool_())), theirs.filter(pa.array(mask, pa.bool_())))
    ours_mask = pc.Table.from_pydict({"m": mask}).column("m")
    _same(ours.filter(ours_mask), theirs.filter(pa.array(mask, pa.bool_())))
    plain = np.array([m is True for m in mask])
    _same(ours.filter(plain), theirs.filter(pa.array(plain)))


def test_to_pylist_to_pydict_equals():
    ours, theirs = _both()
    _same(ours, theirs)
    assert ours.to_pylist()[0] == theirs.to_pylist()[0]
    # NaN is not equal to itself in either (pyarrow's default EqualOptions)
    assert ours.equals(pc.Table.from_pydict(DATA)) is theirs.equals(pa.table(DATA)) is False
    plain = {k: v for k, v in DATA.items() if k != "f"}
    assert pc.Table.from_pydict(plain).equals(pc.Table.from_pydict(plain)) is pa.table(plain).equals(pa.table(plain))
    assert ours.equals(ours.slice(1)) is theirs.equals(theirs.slice(1)) is False


@pytest.mark.parametrize("size", [None, 1, 3, 8, 100])
def test_to_batches_and_combine_chunks(size):
    ours, theirs = _both()
    got = ours.to_batches(max_chunksize=size)
    want = theirs.to_batches(max_chunksize=size)
    assert [b.num_rows for b in got] == [b.num_rows for b in want]
    _same(pc.Table.concat(got), theirs)
    _same(ours.combine_chunks(), theirs.combine_chunks())


def test_cast():
    data = {"a": [1, 2, None], "b": ["x", None, "z"]}
    ours = pc.Table.from_pydict(data).cast(pc.schema([pc.field("a", pc.float64()), pc.field("b", pc.string())]))
    theirs = pa.table(data).cast(pa.schema([("a", pa.float64()), ("b", pa.string())]))
    _same(ours, theirs)
    assert ours.schema.field("a").type == pc.float64()
    with pytest.raises(ValueError):
        pc.Table.from_pydict(data).cast(pc.schema([pc.field("x", pc.float64()), pc.field("b", pc.string())]))


def test_to_pandas_types_mapper():
    ours, theirs = _both()
    mapper = {pa.int64(): pd.Int64Dtype(), pa.string(): pd.StringDtype()}.get
    got = ours.to_pandas(types_mapper=mapper)
    want = theirs.to_pandas(types_mapper=mapper)
    pd.testing.assert_frame_equal(got, want)
    assert str(got["i"].dtype) == "Int64"


def test_cast_takes_a_pyarrow_schema():
    """``t.cast(pa.schema(...))`` as code written for pyarrow calls it (an AttributeError
    before: the pyarrow types were used as ours)."""
    ours, theirs = _both()
    target = pa.schema([("i", pa.int32()), ("f", pa.float64()), ("s", pa.large_string()), ("t", pa.bool_())])
    got = ours.cast(target)
    assert got.to_arrow().schema.equals(theirs.cast(target).schema)
    _same(got, theirs.cast(target))
    with pytest.raises(ValueError, match="names"):
        ours.cast(pa.schema([("x", pa.int64())]))
