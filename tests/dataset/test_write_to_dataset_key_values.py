"""Issue 31: ``write_to_dataset`` keeps what ``ARROW:schema`` and the ``pandas`` metadata say, as
pyarrow's dataset writer does: each file's ``ARROW:schema`` holds its stored columns (zones,
durations, dictionaries...; partition columns left out) and the ``pandas`` key is kept whole.
Oracle: ``pyarrow.parquet.write_to_dataset`` of the same data, read back by pyarrow."""

from __future__ import annotations

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")


def _table():
    return pa.table({
        "k": ["a", "b", "a", "c"],
        "ts": pa.array([1, 2, 3, 4], pa.timestamp("us", tz="Europe/Oslo")),
        "d": pa.array(["x", "y", "x", "z"]).dictionary_encode(),
        "du": pa.array([1, 2, 3, None], pa.duration("s")),
        "big": pa.array(["p", "q", "r", "s"], pa.large_string()),
    })


@pytest.mark.parametrize("cols", [["k"], None], ids=["partitioned", "flat"])
@pytest.mark.parametrize("kw", [{}, {"max_rows_per_group": 2}, {"max_rows_per_file": 1}, {"min_rows_per_group": 2}],
                         ids=["plain", "max_rows_per_group", "max_rows_per_file", "min_rows_per_group"])
@pytest.mark.parametrize("source", ["table", "stream"])
def test_files_keep_the_arrow_types(tmp_path, cols, kw, source):
    t = _table()
    given = t if source == "table" else pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=1))
    pc.write_to_dataset(given, tmp_path / "pc", partition_cols=cols, **kw)
    pq.write_to_dataset(t, tmp_path / "pa", partition_cols=cols)
    ours, theirs = pq.read_table(tmp_path / "pc"), pq.read_table(tmp_path / "pa")
    assert ours.schema == theirs.schema
    assert ours.sort_by("big").equals(theirs.sort_by("big"))
    for f in (tmp_path / "pc").rglob("*.parquet"):
        assert pq.read_schema(f).field("du").type == pa.duration("s")


def test_a_frame_keeps_its_index_and_dtypes_in_every_partition(tmp_path):
    df = pd.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3], "td": pd.to_timedelta([1, 2, None], "s"),
                       "z": pd.date_range("2024-03-30 12:00", periods=3, freq="13h", tz="Europe/Oslo")},
                      index=pd.Index([7, 8, 9], name="ix"))
    pc.write_to_dataset(df, tmp_path / "pc", partition_cols=["k"])
    pq.write_to_dataset(pa.Table.from_pandas(df), tmp_path / "pa", partition_cols=["k"])
    want = pq.read_table(tmp_path / "pa").to_pandas().sort_index()
    assert want.index.name == "ix" and str(want["td"].dtype) == "timedelta64[ns]"
    pd.testing.assert_frame_equal(pq.read_table(tmp_path / "pc").to_pandas().sort_index(), want)
    pd.testing.assert_frame_equal(pc.read_table(tmp_path / "pc").to_pandas().sort_index(), want)
