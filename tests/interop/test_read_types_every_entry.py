"""Issue 31: ``binary_type``, ``list_type`` and ``coerce_int96_timestamp_unit`` honoured by every
read entry, not only whole-file reads: ``ParquetFile.read_row_group``, ``read_row_groups``,
``iter_batches`` (with and without ``filters``), and a dataset's ``read`` / ``iter_batches``.

Oracle: pyarrow's same entry point with the same options on the same file
(``pq.ParquetFile(...).read_row_group(...)`` etc.), files with and without ``ARROW:schema``.
"""

from __future__ import annotations

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = 30


def _table():
    return pa.table({
        "b": pa.array([b"x", None, b"yz"] * 10), "s": ["a", "b", None] * 10,
        "l": pa.array([[1, 2], None, [3]] * 10),
        "i96": pa.array([-1500, None, 2**40] * 10, pa.timestamp("ms")),
        "li96": pa.array([[-1500], None, [None, 7]] * 10, pa.list_(pa.timestamp("ms"))),
        "st": pa.array([{"x": -1, "y": b"q"}, None, {"x": 5, "y": None}] * 10,
                       pa.struct([("x", pa.timestamp("ms")), ("y", pa.binary())])),
        "n": list(range(ROWS)),
    })


_OPTIONS = [dict(binary_type=pa.large_binary(), list_type=pa.LargeListType),
            dict(binary_type=pa.binary_view()),
            dict(coerce_int96_timestamp_unit="ms"),
            dict(coerce_int96_timestamp_unit="us", list_type=pa.LargeListType)]


def _ids(kw):
    return ",".join(f"{k}={getattr(v, '__name__', v)}" for k, v in kw.items())


@pytest.fixture(scope="module", params=[False, True], ids=["no_arrow_schema", "arrow_schema"])
def path(request, tmp_path_factory):
    p = tmp_path_factory.mktemp("rt") / "f.parquet"
    pq.write_table(_table(), p, store_schema=request.param, row_group_size=10,
                   use_deprecated_int96_timestamps=True)
    return p


def _same(got, want):
    got = got if isinstance(got, pa.Table) else got.to_arrow()
    assert got.schema.equals(want.schema), (got.schema, want.schema)
    assert got.equals(want)


@pytest.mark.parametrize("kw", _OPTIONS, ids=_ids)
def test_file_entries_match_pyarrows(path, kw):
    ours, theirs = pc.ParquetFile(path, **kw), pq.ParquetFile(path, **kw)
    _same(ours.read_row_group(1), theirs.read_row_group(1))
    _same(ours.read_row_group(2, columns=["b", "li96"]), theirs.read_row_group(2, columns=["b", "li96"]))
    _same(ours.read_row_groups([0, 2]), theirs.read_row_groups([0, 2]))
    want = pa.Table.from_batches(list(theirs.iter_batches(batch_size=7)))
    got = [b.to_arrow() for b in ours.iter_batches(batch_size=7)]
    assert all(g.num_rows <= 7 for g in got)
    _same(pa.concat_tables(got), want)
    # filtered batches: pyarrow's rows n > 5 are the whole file from row 6
    filtered = [b.to_arrow() for b in ours.iter_batches(batch_size=7, filters=[("n", ">", 5)])]
    _same(pa.concat_tables(filtered), theirs.read().slice(6))
    # the filtered read of some row groups too
    _same(ours.read_row_groups([1, 2], filters=[("n", ">", 5)]), theirs.read_row_groups([1, 2]))
    assert ours.schema_arrow.to_arrow().field("i96").type == theirs.schema_arrow.field("i96").type


@pytest.mark.parametrize("kw", _OPTIONS, ids=_ids)
def test_dataset_entries_match_pyarrows(path, kw, tmp_path):
    for name in ("a.parquet", "b.parquet"):
        (tmp_path / name).write_bytes(path.read_bytes())
    want = pq.read_table(tmp_path, **kw)
    _same(pc.read_table(tmp_path, **kw), want)
    _same(pc.ParquetDataset(tmp_path, **kw).read(), pq.ParquetDataset(tmp_path, **kw).read())
    batches = [b.to_arrow() for b in pc.ParquetDataset(tmp_path, **kw).iter_batches(batch_size=11)]
    _same(pa.concat_tables(batches), want)
