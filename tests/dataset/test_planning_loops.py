"""The tight loops of planning a local dataset (issue 30's "no planning regression"):

* the walk's entries carry each file's size, time and folders (``Discovery.folders`` /
  ``times``), checked against ``os.stat`` and pyarrow.dataset's listing, including names
  the two-character quick test sends to the full litter rules (a trailing ``_``,
  ``._COPYING_``, ignored prefixes);
* the files of one folder share one parse of their partition values;
* ``_metadata`` matched to the listing in one pass: the same verdicts as the rules say
  (sizes, times, files gone), named in ``explain``;
* every local file's schema read in one loop (``FooterSchemas.local_schemas``) equals the
  file-by-file way (``FooterSchemas.schema``) and pyarrow's, with the same requests, and
  files that vanish, shrink or are not Parquet fail as the reader fails, naming them.
"""

from __future__ import annotations

import os
import random

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.dataset import discovery
from parquet_core.dataset.dataset import Fragment
from parquet_core.dataset.partitioning import Partitioning
from parquet_core.dataset.schemas import LOCAL_TAIL_READ_SIZE, FooterSchemas, general_schema
from parquet_core.file.filesystem import IOStats, LocalFileSystem
from parquet_core.interop.arrow import schema_from_arrow
from parquet_core.thrift.codec import HAVE_ACCELERATED


def _hive(root, files_per_folder=3):
    t = pa.table({"k": [i % 3 for i in range(9 * files_per_folder)],
                  "j": [i % 2 for i in range(9 * files_per_folder)],
                  "x": list(range(9 * files_per_folder))})
    for i in range(files_per_folder):
        pq.write_to_dataset(t, str(root), partition_cols=["k", "j"], basename_template=f"part-{i}-{{i}}.parquet")
    return str(root)


def test_listing_entries_carry_sizes_times_and_folders(tmp_path):
    root = _hive(tmp_path / "ds")
    # names the quick test sends to the full rules: kept ones and litter
    keep = [os.path.join(root, "k=1", "j=0", "trailing_"), os.path.join(root, "k=1", "j=0_", "f.parquet")]
    for path in keep:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(pa.table({"x": [100]}), path)
    litter = [os.path.join(root, "k=1", "j=0", "g.parquet._COPYING_"), os.path.join(root, "k=2", "_SUCCESS"),
              os.path.join(root, "k=2", ".f.parquet.crc")]
    for path in litter:
        open(path, "wb").close()
    found = discovery.discover(LocalFileSystem(), [root])
    paths = [p for p, _ in found.files]
    assert paths == sorted(paths)
    theirs = sorted(f for f in ds.dataset(root, partitioning="hive").files if not f.endswith("._COPYING_"))
    assert paths == theirs
    assert set(keep) <= set(paths) and not set(litter) & set(paths)
    assert len(found.folders) == len(found.times) == len(paths)
    for (path, size), below, when in zip(found.files, found.folders, found.times):
        st = os.stat(path)
        assert (size, when) == (st.st_size, st.st_mtime_ns)
        assert below == os.path.relpath(os.path.dirname(path), root).split(os.sep)
    # the dict views the rest of the code base reads
    assert found.relative == dict(zip(paths, found.folders))
    assert found.mtimes == {p: os.stat(p).st_mtime_ns for p in paths}


def test_the_files_of_a_folder_share_one_parse(tmp_path, monkeypatch):
    root = _hive(tmp_path / "ds", files_per_folder=4)
    calls = []
    real = Partitioning.parse
    monkeypatch.setattr(Partitioning, "parse", lambda self, segs: (calls.append(list(segs)), real(self, segs))[1])
    d = pc.ParquetDataset(root)
    assert len(d.fragments) == 24 and len(calls) == 6       # 6 folders of 4 files
    for frag in d.fragments:
        rel = os.path.relpath(os.path.dirname(frag.path), root).split(os.sep)
        assert frag.partition == [tuple(seg.split("=")) for seg in rel]
    got = d.read()
    theirs = pq.read_table(root)
    assert sorted(zip(*(got.column(c).to_pylist() for c in ("k", "j", "x")))) == \
        sorted(zip(*(theirs.column(c).to_pylist() for c in ("k", "j", "x"))))


def _summarise(root):
    collected = []
    files = sorted(f for f, _ in pc.list_data_files(root))
    for f in files:
        md = pq.read_metadata(f)
        md.set_file_path(os.path.relpath(f, root).replace(os.sep, "/"))
        collected.append(md)
    pq.write_metadata(pq.read_schema(files[0]), os.path.join(root, "_metadata"), metadata_collector=collected)
    _age(files, root)
    return files


def _age(files, root):
    """Give *files* a time before _metadata's (as when _metadata was written after them)."""
    past = os.stat(os.path.join(root, "_metadata")).st_mtime_ns - 10**9
    for f in files:
        os.utime(f, ns=(past, past))


def _column_data_end(path):
    """Where pyarrow says a file's column data ends (its last chunk's end)."""
    md = pq.read_metadata(path)
    ends = []
    for i in range(md.num_row_groups):
        for j in range(md.num_columns):
            c = md.row_group(i).column(j)
            start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
            ends.append(start + c.total_compressed_size)
    return max(ends)


def test_one_pass_matching_gives_each_rules_verdict(tmp_path):
    root = str(tmp_path / "ds")
    rng = random.Random(0)      # incompressible text: the files are well over a small one's size
    t = pa.table({"k": [i % 3 for i in range(30)], "x": list(range(30)),
                  "s": [rng.randbytes(80).hex() for _ in range(30)]})
    pq.write_to_dataset(t, root, partition_cols=["k"], basename_template="a-{i}.parquet")
    pq.write_to_dataset(t, root, partition_cols=["k"], basename_template="b-{i}.parquet")
    files = _summarise(root)
    assert pc.ParquetDataset(root).summary.used == len(files) == 6
    gone, shrunk, newer = files[0], files[3], files[5]
    need = _column_data_end(shrunk) + 8
    os.unlink(gone)
    pq.write_table(pa.table({"x": [1], "s": ["z"]}), shrunk)
    assert os.path.getsize(shrunk) < need
    _age([shrunk], root)                    # only its size tells
    pq.write_table(pq.read_table(newer), newer)
    later = os.stat(os.path.join(root, "_metadata")).st_mtime_ns + 2 * 10**9
    os.utime(newer, ns=(later, later))      # replaced after _metadata, whatever its size
    d = pc.ParquetDataset(root)
    stale = d.stale_metadata
    assert stale[gone] == "not in the folder's listing (removed, or a hidden name)"
    assert stale[newer] == "the file was modified after _metadata was written"
    assert stale[shrunk] == (f"the file has {os.path.getsize(shrunk)} bytes, _metadata places column data up to "
                             f"byte {need - 8} in it (replaced since)")
    assert set(stale) == {gone, shrunk, newer}
    assert d.summary.used == 3
    assert [f.path for f in d.fragments if f.row_groups is None] == sorted([shrunk, newer])
    rep = d.explain()
    assert (rep.footers_from_metadata, rep.footers_read) == (3, 2)
    got = d.read()
    theirs = pq.read_table(root)
    assert sorted(got.column("x").to_pylist()) == sorted(theirs.column("x").to_pylist())


# -- the schemas in one loop -------------------------------------------------------------------

needs_c_decoder = pytest.mark.skipif(not HAVE_ACCELERATED, reason="the schema prefix needs the C thrift decoder")


def _frags(paths):
    return [Fragment(str(p), os.path.getsize(p), []) for p in paths]


def _reader():
    fs = LocalFileSystem()
    stats = IOStats()
    return FooterSchemas(fs, stats, general_schema(fs, stats)), stats


@needs_c_decoder
def test_schemas_in_one_loop_equal_file_by_file_and_pyarrow(tmp_path):
    paths = []
    for i in range(6):       # two schemas, interleaved: the newest prefix misses every other file
        p = tmp_path / f"{i}.parquet"
        pq.write_table(pa.table({"a": [i], "b": [str(i)]} if i % 2 else {"a": [float(i)]}), p)
        paths.append(p)
    wide = tmp_path / "wide.parquet"       # a footer longer than the tail read: its head read too
    pq.write_table(pa.table({f"a_rather_long_column_name_{i:04d}": [i] for i in range(700)}), wide)
    assert pq.read_metadata(wide).serialized_size > LOCAL_TAIL_READ_SIZE
    paths.append(wide)
    frags = _frags(paths)
    loop, loop_io = _reader()
    each, each_io = _reader()
    got = loop.local_schemas(frags)
    assert got == [each.schema(f) for f in frags]
    assert (loop_io.requests, loop_io.bytes) == (each_io.requests, each_io.bytes)
    assert loop_io.requests == len(paths) + 1
    assert loop.general_reads == each.general_reads == 0
    assert (loop.prefix_hits, loop.prefix_decodes) == (each.prefix_hits, each.prefix_decodes) == (4, 3)
    for schema, p in zip(got, paths):
        theirs = schema_from_arrow(pq.read_schema(p).remove_metadata())
        assert [(f.name, f.type, f.nullable) for f in schema] == [(f.name, f.type, f.nullable) for f in theirs]


@needs_c_decoder
@pytest.mark.parametrize("damage", ["vanished", "shrunk", "not parquet", "tiny", "encrypted"])
def test_a_file_the_loop_cannot_take_fails_as_file_by_file(tmp_path, damage):
    paths = []
    for i in range(3):
        p = tmp_path / f"{i}.parquet"
        pq.write_table(pa.table({"a": [i]}), p)
        paths.append(p)
    bad = paths[1]
    if damage == "encrypted":
        pc.write_table(pa.table({"a": [1]}), str(bad),
                       encryption=pc.FileEncryptionProperties(footer_key=b"0123456789abcdef"))
    frags = _frags(paths)          # the sizes the listing saw
    if damage == "vanished":
        bad.unlink()
    elif damage == "shrunk":
        bad.write_bytes(bad.read_bytes()[:-20])
    elif damage == "not parquet":
        bad.write_bytes(b"x" * frags[1].size)
    elif damage == "tiny":
        bad.write_bytes(b"PAR1")
        frags[1] = Fragment(str(bad), 4, [])
    each, _ = _reader()
    with pytest.raises((pc.ParquetError, OSError)) as by_file:
        [each.schema(f) for f in frags]
    loop, _ = _reader()
    with pytest.raises(type(by_file.value)) as in_loop:
        loop.local_schemas(frags)
    assert str(in_loop.value) == str(by_file.value)
    assert str(bad) in str(in_loop.value) + "".join(getattr(in_loop.value, "__notes__", []))
    assert loop.general_reads == each.general_reads == 1
    if damage != "vanished":        # (a vanished file is not listed)
        with pytest.raises(type(by_file.value)):
            pc.ParquetDataset(str(tmp_path)).schema  # noqa: B018
