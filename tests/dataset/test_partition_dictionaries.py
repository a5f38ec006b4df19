"""Hive partition columns read as pyarrow.parquet reads them: with ``partitioning="hive"`` (the
default) an inferred column is ``dictionary<int32, string>`` or ``dictionary<int32, int32>`` over
every value of the dataset's folders (first seen first), so ``to_pandas`` gives ``category``;
a Partitioning object, a list of names or a given type gives the plain type (pyarrow.parquet is
the oracle throughout)."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc


@pytest.fixture
def folder(tmp_path):
    # first seen order (10, 2, 5) differs from sorted order: the dictionary keeps pyarrow's
    t = pa.table({"x": [1, 2, 3, 4, 5], "s": ["a", "b", "b", "c", "a"], "n": [10, 2, 5, 10, 7]})
    pq.write_to_dataset(t, str(tmp_path / "d"), partition_cols=["s", "n"])
    return str(tmp_path / "d")


@pytest.mark.parametrize("kwargs", [
    {}, {"partitioning": "hive"}, {"columns": ["x", "n"]}, {"filters": [("s", "=", "b")]},
    {"filters": [("x", ">", 3)]}, {"filters": [("n", "in", {2, 7})]}, {"partitioning": None},
])
def test_read_table_matches_pyarrow_parquet(folder, kwargs):
    ours, theirs = pc.read_table(folder, **kwargs), pq.read_table(folder, **kwargs)
    assert ours.to_arrow().schema == theirs.schema
    assert ours.to_arrow().combine_chunks().equals(theirs.combine_chunks())
    pd.testing.assert_frame_equal(ours.to_pandas(), theirs.to_pandas())


def test_parquet_dataset_and_batches_match_pyarrow(folder):
    theirs = pq.ParquetDataset(folder).read()
    ours = pc.ParquetDataset(folder).read()
    assert ours.to_arrow().schema == theirs.schema
    frame = ours.to_pandas()
    assert str(frame["s"].dtype) == "category" and str(frame["n"].dtype) == "category"
    pd.testing.assert_frame_equal(frame, theirs.to_pandas())
    # every batch carries the whole dictionary, as every pyarrow chunk does
    for batch in pc.ParquetDataset(folder).iter_batches():
        arrow = batch.to_arrow() if hasattr(batch, "to_arrow") else pa.table(batch)
        assert arrow.column("n").chunk(0).dictionary.to_pylist() == theirs.column("n").chunk(0).dictionary.to_pylist()


def test_sub_folder_keeps_its_own_levels(folder):
    sub = folder + "/s=b"
    pd.testing.assert_frame_equal(pc.read_table(sub).to_pandas(), pq.read_table(sub).to_pandas())


def test_partitioning_objects_give_plain_types(folder):
    theirs = pq.read_table(folder, partitioning=ds.partitioning(flavor="hive"))
    assert not pa.types.is_dictionary(theirs.schema.field("s").type)
    ours = pc.read_table(folder, partitioning=pc.Partitioning("hive"))
    assert ours.to_arrow().schema == theirs.schema
    given = pc.read_table(folder, partitioning=pc.schema([pc.field("n", pc.int64()), pc.field("s", pc.string())]))
    assert given.to_arrow().schema.field("n").type == pa.int64()


def test_dictionary_columns_filter_and_write_back(folder, tmp_path):
    t = pc.read_table(folder)
    kept = pc.read_table(folder, filters=[("n", "!=", 10)])
    assert sorted(kept.column("x").to_pylist()) == sorted(
        pq.read_table(folder, filters=[("n", "!=", 10)]).column("x").to_pylist())
    out = tmp_path / "back.parquet"
    pc.write_table(t, str(out))
    back = pq.read_table(out)
    assert back.column("s").to_pylist() == t.column("s").to_pylist()
    assert back.column("n").to_pylist() == t.column("n").to_pylist()
