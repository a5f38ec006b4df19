"""Planning a dataset with an up-to-date ``_metadata`` without per-file work it does not need
(issue 30's "no planning regression"):

* partition types inferred from each distinct folder name once (not from every file's parse):
  the same types as pyarrow.parquet infers, whatever folder brings the value that decides;
* the fragments are made on first use: ``.schema`` from a fresh ``_metadata`` makes none, and
  threads asking at once get the same objects;
* the row groups' ends (the staleness check's "large enough") as pyarrow reports them, from
  the decoder's marks or, when a row group lacks them, from its column chunks; a file shrunk
  below them is still named stale with the fragments made lazily.
"""

from __future__ import annotations

import os
import random
import threading

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.dataset.partitioning import Partitioning
from parquet_core.dataset.staleness import row_group_ends
from parquet_core.thrift.codec import HAVE_ACCELERATED
from parquet_core.thrift.lazy_footer import lazy_state


def _summarised(root):
    """Write ``_metadata`` for every data file below *root*, then age the files before it."""
    files = sorted(f for f, _ in pc.list_data_files(root))
    collected = []
    for f in files:
        md = pq.read_metadata(f)
        md.set_file_path(os.path.relpath(f, root).replace(os.sep, "/"))
        collected.append(md)
    pq.write_metadata(pq.read_schema(files[0]), os.path.join(root, "_metadata"), metadata_collector=collected)
    past = os.stat(os.path.join(root, "_metadata")).st_mtime_ns - 10**9
    for f in files:
        os.utime(f, ns=(past, past))
    return files


@pytest.mark.parametrize("late", ["k=x", "k=2147483648", "k=__HIVE_DEFAULT_PARTITION__", "k=7"])
def test_partition_types_from_distinct_folder_names_match_pyarrow(tmp_path, late):
    root = tmp_path / "ds"
    # many folders repeating a few values; the folder that decides the type comes last
    for i in range(12):
        for j in range(3):
            d = root / f"k={i % 4}" / f"j={j}"
            d.mkdir(parents=True, exist_ok=True)
            pq.write_table(pa.table({"x": [i * 3 + j]}), d / f"part-{i}.parquet")
    (root / late / "j=0").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"x": [99]}), root / late / "j=0" / "part-z.parquet")
    ours, theirs = pc.read_table(str(root)), pq.read_table(str(root))
    assert ours.to_arrow().schema == theirs.schema
    assert sorted(ours.to_arrow().column("k").to_pylist(), key=str) == \
        sorted(theirs.column("k").to_pylist(), key=str)


@pytest.mark.parametrize("inference", ["pyarrow", "spark"])
def test_folder_values_infer_as_every_file_parsed(inference):
    part = Partitioning("hive", inference=inference)
    rng = [f"k={v}" for v in ("1", "5", "1", "2024-01-02", "1", "3.5", "5")]
    folders = [[seg, f"j={n % 2}"] for n, seg in enumerate(rng) for _ in range(3)]
    every_file = part.infer([part.parse(f) for f in folders])
    assert part.infer(part.folder_values(folders)).schema == every_file.schema
    flat = Partitioning("directory", names=("a", "b"), inference=inference)
    shared = [["1", "x"]] * 4 + [["2", "y"], ["1", "x"]]
    assert flat.infer(flat.folder_values(shared)).schema == flat.infer([flat.parse(f) for f in shared]).schema


def _hive_with_summary(tmp_path, files_per_folder=2):
    root = str(tmp_path / "ds")
    rng = random.Random(0)      # incompressible text: the files are well over a small one's size
    t = pa.table({"k": [i % 3 for i in range(30)], "x": list(range(30)),
                  "s": [rng.randbytes(80).hex() for _ in range(30)]})
    for n in range(files_per_folder):
        pq.write_to_dataset(t, root, partition_cols=["k"], basename_template=f"f{n}-{{i}}.parquet")
    return root, _summarised(root)


def test_schema_from_fresh_metadata_makes_no_fragments(tmp_path):
    root, files = _hive_with_summary(tmp_path)
    d = pc.ParquetDataset(root)
    assert d.schema.names == pq.read_table(root).schema.names
    assert d._fragment_list is None              # planning for the schema made none
    assert d.summary.used == len(files) == len(d.files)
    assert all(f.row_groups is not None for f in d.fragments)


def test_fragments_made_once_for_threads(tmp_path):
    root, _ = _hive_with_summary(tmp_path)
    d = pc.ParquetDataset(root)
    got = []
    threads = [threading.Thread(target=lambda: got.append(d.fragments)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and all([id(f) for f in g] == [id(f) for f in got[0]] for g in got)


def _pyarrow_ends(path):
    """Each row group's end of column data, as pyarrow's metadata gives it."""
    md = pq.read_metadata(path)
    out = []
    for i in range(md.num_row_groups):
        ends = []
        for j in range(md.num_columns):
            c = md.row_group(i).column(j)
            start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
            ends.append(start + c.total_compressed_size)
        out.append(max(ends))
    return out


def test_row_group_ends_match_pyarrow(tmp_path):
    path = _ends_file(tmp_path)
    expected = _pyarrow_ends(path)
    assert len(expected) == 8 and row_group_ends(pc.ParquetFile(path).metadata.raw) == expected


@pytest.mark.skipif(not HAVE_ACCELERATED, reason="thrift's C decoder (fastbinary) is not installed: "
                    "the lazy footer whose row-group marks this edits exists only with it")
def test_row_group_ends_from_chunks_where_a_mark_lacks_its_extent(tmp_path):
    path = _ends_file(tmp_path)
    expected = _pyarrow_ends(path)
    # one row group without its extent fields: that one (and only that one) from its chunks
    raw = pc.ParquetFile(path).metadata.raw
    marks = lazy_state(raw).row_group_marks()
    del marks[3].file_offset
    assert row_group_ends(raw) == expected


def _ends_file(tmp_path):
    path = str(tmp_path / "f.parquet")
    pq.write_table(pa.table({"a": list(range(5000)), "b": [f"s{i % 50}" for i in range(5000)]}), path,
                   row_group_size=700)
    return path


def test_shrunk_file_still_stale_with_lazy_fragments(tmp_path):
    root, files = _hive_with_summary(tmp_path)
    shrunk = files[1]
    need = max(_pyarrow_ends(shrunk)) + 8
    pq.write_table(pa.table({"x": [1], "s": ["z"]}), shrunk)
    assert os.path.getsize(shrunk) < need
    past = os.stat(os.path.join(root, "_metadata")).st_mtime_ns - 10**9
    os.utime(shrunk, ns=(past, past))           # only its size tells
    d = pc.ParquetDataset(root)
    assert list(d.stale_metadata) == [shrunk]
    assert "bytes, _metadata places column data up to byte" in d.stale_metadata[shrunk]
    assert [f.path for f in d.fragments if f.row_groups is None] == [shrunk]
    ours, theirs = pc.read_table(root), pq.read_table(root)
    assert sorted(ours.column("x").to_pylist()) == sorted(theirs.column("x").to_pylist())
