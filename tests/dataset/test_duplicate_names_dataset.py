"""A dataset whose files repeat a column name is refused, naming the file, the name and
its positions: a dataset matches its files' columns by name, which cannot tell the
columns apart (reading such a file alone with ``ParquetFile`` goes by position, see
tests/unit/file/test_duplicate_names.py).  The two ``a`` columns here share a type, so
matching by name would mix them up with no type error to stop it.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetSchemaError


def _dup(offset: int = 0) -> pa.Table:
    return pa.table([pa.array([1 + offset, 2 + offset], pa.int32()), pa.array(["x", "y"]),
                     pa.array([100 + offset, 200 + offset], pa.int32())], names=["a", "b", "a"])


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    pq.write_table(_dup(), root / "part-0.parquet")
    pq.write_table(_dup(10), root / "part-1.parquet")
    return root


def _refused(name: str = "part-0.parquet"):
    return pytest.raises(ParquetSchemaError, match=rf"'a' appears 2 times in '.*{name}' \(at positions 0, 2\)")


@pytest.mark.parametrize("kwargs", [{}, {"columns": ["b"]}, {"filters": [("b", "==", "y")]},
                                    {"columns": ["a"]}], ids=["all", "unique-column", "filter", "shared"])
def test_reading_the_folder_is_refused(folder, kwargs):
    assert pq.ParquetFile(folder / "part-0.parquet").read().column(2).to_pylist() == [100, 200]
    with _refused():
        pc.read_table(str(folder), **kwargs)
    with _refused():
        pc.ParquetDataset(str(folder)).read(**kwargs)


def test_the_dataset_schema_is_refused(folder):
    with _refused():
        pc.ParquetDataset(str(folder)).schema


def test_a_list_of_files_is_refused(folder):
    with _refused("part-[01].parquet"):
        pc.read_table([str(folder / "part-1.parquet"), str(folder / "part-0.parquet")])


def test_one_such_file_among_clean_ones_is_named(tmp_path):
    root = tmp_path / "mixed"
    root.mkdir()
    pq.write_table(pa.table({"a": pa.array([5], pa.int32()), "b": ["q"]}), root / "part-0.parquet")
    pq.write_table(_dup(), root / "part-1.parquet")
    with _refused("part-1.parquet"):
        pc.read_table(str(root))
    with _refused("part-1.parquet"):
        list(pc.ParquetDataset(str(root)).iter_batches())


def test_a_summary_file_with_the_schema_never_mixes_columns(folder):
    """With ``_metadata`` the files' footers are not read: the read still refuses the name."""
    collected = []
    for name in ("part-0.parquet", "part-1.parquet"):
        md = pq.ParquetFile(folder / name).metadata
        md.set_file_path(name)
        collected.append(md)
    first = collected[0]
    for md in collected[1:]:
        first.append_row_groups(md)
    first.write_metadata_file(str(folder / "_metadata"))
    with pytest.raises(ParquetSchemaError, match="'a'.*positions 0, 2"):
        pc.read_table(str(folder))
