"""Issue 31: dataset reads give the Arrow types the dataset's first file (or ``_metadata`` /
``_common_metadata``) records in ``ARROW:schema``, as ``pyarrow.dataset`` does, on every entry
(``read_table(folder)``, ``ParquetDataset.read``, ``iter_batches``); files whose entries make
the same stored numbers mean other values are refused.  Oracle: pyarrow.dataset."""

from __future__ import annotations

import pytest

import parquet_core as pc
from parquet_core.errors import ParquetSchemaError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")


def _table(n0=0):
    return pa.table({
        "tz": pa.array([n0 + 1, n0 + 2, None], pa.timestamp("ms", "Europe/Oslo")),
        "du": pa.array([n0 + 1, None, 3], pa.duration("s")),
        "ls": pa.array(["a", None, "c"], pa.large_string()),
        "lb": pa.array([b"a", None, b""], pa.large_binary()),
        "dic": pa.array(["a", "b", None]).dictionary_encode(),
        "sv": pa.array(["a", "b", None], pa.string_view()),
        "fsl": pa.array([[1, 2], None, [3, 4]], pa.list_(pa.int32(), 2)),
        "ll": pa.array([[1], None, []], pa.large_list(pa.int64())),
        "st": pa.array([{"d": 1}, None, {"d": 2}], pa.struct([("d", pa.duration("ms"))])),
        "u": pa.array([b"0123456789abcdef"] * 3, pa.uuid()),
    })


@pytest.fixture
def folder(tmp_path):
    pq.write_table(_table(0), tmp_path / "a.parquet")
    pq.write_table(_table(10), tmp_path / "b.parquet", row_group_size=2)
    return tmp_path


def _want(path, **kw):
    return ds.dataset(str(path), format="parquet", **kw).to_table()


def test_every_dataset_read_entry_restores_the_recorded_types(folder):
    want = _want(folder)
    for got in (pc.read_table(folder), pc.ParquetDataset(folder).read(),
                pc.read_table(str(folder), columns=["du", "tz", "u"])):
        arrow = got.to_arrow()
        expected = want.select(arrow.column_names)
        assert arrow.schema.equals(expected.schema), arrow.schema
        assert arrow.equals(expected)
    batches = [b.to_arrow() for b in pc.ParquetDataset(folder).iter_batches(batch_size=2)]
    assert all(b.schema.equals(want.schema) for b in batches)
    assert pa.Table.from_batches([rb for b in batches for rb in b.to_batches()]).equals(want)


def test_hive_partitions_and_filters_keep_the_recorded_types(tmp_path):
    for k in ("x", "y"):
        (tmp_path / f"k={k}").mkdir()
        pq.write_table(_table(0 if k == "x" else 5), tmp_path / f"k={k}" / "part.parquet")
    want = ds.dataset(str(tmp_path), format="parquet", partitioning="hive").to_table(
        filter=ds.field("k") == "y")
    got = pc.read_table(tmp_path, filters=[("k", "=", "y")]).to_arrow()
    for name in _table().column_names:
        assert got.schema.field(name).type.equals(want.schema.field(name).type), name
        assert got.column(name).equals(want.column(name)), name


def test_common_metadata_gives_the_types(tmp_path):
    pq.write_table(_table(0), tmp_path / "a.parquet")
    pq.write_metadata(_table().schema, tmp_path / "_common_metadata")
    got = pc.ParquetDataset(tmp_path).read().to_arrow()
    assert got.schema.equals(pq.read_table(tmp_path / "a.parquet").schema)


def test_binary_and_list_type_options_still_apply_without_arrow_schema(tmp_path):
    t = pa.table({"s": ["a", None], "l": pa.array([[1], None])})
    pq.write_table(t, tmp_path / "a.parquet", store_schema=False)
    pq.write_table(t, tmp_path / "b.parquet", store_schema=False)
    kw = {"binary_type": pa.large_binary(), "list_type": pa.LargeListType}
    want = pq.read_table(tmp_path, **kw)
    assert pc.read_table(tmp_path, **kw).to_arrow().schema.equals(want.schema)


def _two_files(tmp_path, a, b):
    pq.write_table(pa.table({"x": a}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"x": b}), tmp_path / "b.parquet")
    return tmp_path


@pytest.mark.parametrize("a, b", [
    (pa.array([1], pa.duration("s")), pa.array([2], pa.int64())),      # pyarrow: 2 becomes 2 s
    (pa.array([1], pa.int64()), pa.array([2], pa.duration("s"))),      # pyarrow: the duration, an int
    (pa.array([1], pa.duration("s")), pa.array([2], pa.duration("ms"))),   # pyarrow fails midway
], ids=["duration-then-int64", "int64-then-duration", "seconds-then-milliseconds"])
def test_files_recording_other_meanings_are_refused(tmp_path, a, b):
    folder = _two_files(tmp_path, a, b)
    with pytest.raises(ParquetSchemaError, match=r"b\.parquet.*a\.parquet"):
        pc.read_table(folder)
    with pytest.raises(ParquetSchemaError, match=r"b\.parquet"):
        list(pc.ParquetDataset(folder).iter_batches())
    # schema= decides the types: the files are read as it says
    given = pc.read_table(folder, schema=pc.Schema([pc.Field("x", pc.DataType("int64"))]))
    assert given.column("x").to_pylist() == [1, 2]


@pytest.mark.parametrize("a, b", [
    (pa.array([1], pa.timestamp("ms", "Europe/Oslo")), pa.array([2], pa.timestamp("ms", "UTC"))),
    (pa.array(["a"], pa.large_string()), pa.array(["b"])),
    (pa.array(["a"]).dictionary_encode(), pa.array(["b"])),
    (pa.array(["a"], pa.string_view()), pa.array(["b"], pa.large_string())),
    (pa.array([[1]], pa.large_list(pa.int64())), pa.array([[2]], pa.list_(pa.int64()))),
], ids=["zone", "large-string", "dictionary", "view", "large-list"])
def test_files_holding_the_same_values_otherwise_read_as_the_first_says(tmp_path, a, b):
    folder = _two_files(tmp_path, a, b)
    want = _want(folder)
    got = pc.read_table(folder).to_arrow()
    assert got.schema.equals(want.schema) and got.to_pylist() == want.to_pylist()


@pytest.mark.parametrize("binary", [pa.large_binary(), pa.binary_view(), pa.binary()], ids=str)
def test_binary_type_over_recorded_dictionaries(folder, binary):
    """With ARROW:schema, pyarrow reads a recorded string dictionary as the large or view
    binary_type (and keeps it a dictionary with plain binary)."""
    want = pq.read_table(folder, binary_type=binary)
    got = pc.read_table(folder, binary_type=binary).to_arrow()
    assert got.schema.field("dic").type.equals(want.schema.field("dic").type)
    assert got.schema.equals(want.schema)
    assert got.to_pylist() == want.to_pylist()
