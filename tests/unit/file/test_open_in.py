"""``ParquetFile.open_in`` / ``from_source``: a file opened inside a file system, named by its
display path, its source owned (closed with the file, and when opening fails)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.file.filesystem import IOStats, LocalFileSystem
from parquet_core.file.reader import ParquetFile


class _Tracked:
    def __init__(self, inner):
        self.inner, self.closed = inner, False
        self.size = inner.size

    def read_at(self, offset, size):
        return self.inner.read_at(offset, size)

    def close(self):
        self.closed = True
        self.inner.close()


class _FS(LocalFileSystem):
    def __init__(self):
        self.opened = []

    def open_source(self, path, size=None, stats=None):
        src = _Tracked(super().open_source(path, size, stats))
        self.opened.append(src)
        return src

    def display(self, path):
        return "memory://shown/" + path.rsplit("/", 1)[-1]


def test_open_in_reads_names_and_closes(tmp_path):
    path = tmp_path / "a.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), path)
    fs = _FS()
    stats = IOStats()
    with ParquetFile.open_in(fs, str(path), stats=stats) as pf:
        assert pf.path == "memory://shown/a.parquet"
        assert pf.read().to_pydict() == {"x": [1, 2, 3]}      # pyarrow wrote these values
        assert not fs.opened[0].closed
    assert fs.opened[0].closed


def test_open_in_failure_names_the_display_path_and_closes_the_source(tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_bytes(b"PAR1 not a parquet file PAR1")
    fs = _FS()
    with pytest.raises(pc.ParquetError, match="memory://shown/bad.parquet"):
        ParquetFile.open_in(fs, str(path))
    assert fs.opened[0].closed


def test_dataset_reads_through_its_properties(tmp_path):
    pq.write_table(pa.table({"x": [1, 2]}), tmp_path / "p.parquet")
    ds = pc.ParquetDataset(str(tmp_path))
    assert ds.summary is None
    assert [p for p, _ in ds.discovery.files] == [str(tmp_path / "p.parquet")]
    with ds.open_fragment(ds.fragments[0]) as pf:
        assert pf.path == str(tmp_path / "p.parquet")


def test_planner_index_ranges_are_the_indexes_of_kept_row_groups(tmp_path):
    path = tmp_path / "i.parquet"
    pq.write_table(pa.table({"x": list(range(100)), "y": list(range(100))}), path, row_group_size=50,
                   write_page_index=True)
    meta = pq.read_metadata(path)
    with ParquetFile(path) as pf:
        ranges = pf.planner.index_ranges(pc.col("x") >= 60)
        # statistics keep only the second row group: its x chunk's column and offset index,
        # which pyarrow writes between the last column chunk and the footer
        last = meta.row_group(1).column(1)
        data_end = (last.dictionary_page_offset or last.data_page_offset) + last.total_compressed_size
        footer_start = path.stat().st_size - 8 - meta.serialized_size
        assert len(ranges) == 2
        assert all(data_end <= o and o + n <= footer_start for o, n in ranges)
        _, report, plans = pf.planner.plan(pc.col("x") >= 60)
        assert [p.index for p in plans] == [1] and report.pruned_by_statistics == [0]
