"""Issue 31: pyarrow's dataset-writer options on a streamed ``write_to_dataset``:
``max_open_files`` (an open file is completed when a partition needs one more; a later batch
of its partition starts a new file), ``min_rows_per_group`` / ``max_rows_per_group``.
Oracle: ``pyarrow.dataset.write_dataset`` with the same options and the same batches
(``use_threads=False``: its order is then deterministic): the same files, rows and row groups."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

_SCHEMA = pa.schema([("k", pa.string()), ("v", pa.int64())])


def _reader(seq):
    def batches():
        v = 0
        for k, n in seq:
            yield pa.record_batch({"k": [k] * n, "v": list(range(v, v + n))}, schema=_SCHEMA)
            v += n
    return pa.RecordBatchReader.from_batches(_SCHEMA, batches())


def _layout(root: Path):
    """{partition folder/file: (values in order, rows per row group)}."""
    out = {}
    for f in sorted(root.rglob("*.parquet")):
        md = pq.read_metadata(f)
        out[str(f.relative_to(root))] = (pq.read_table(f).column("v").to_pylist(),
                                          [md.row_group(i).num_rows for i in range(md.num_row_groups)])
    return out


def _pyarrow_gives(tmp_path, seq, got, key=lambda layout: layout, **kw):
    """True when pyarrow's writer, given the same batches and options, writes the layout *got*
    (compared through *key*) in one of up to 12 runs: with several files open its choices
    depend on its I/O threads' timing (measured: about one run in four differs, even with
    use_threads=False), so any layout it gives is one it can give."""
    seen = []
    for run in range(12):
        theirs = tmp_path / f"pa{run}"
        ds.write_dataset(_reader(seq), theirs, format="parquet", partitioning=["k"], partitioning_flavor="hive",
                         basename_template="part-{i}.parquet", use_threads=False, **kw)
        seen.append(key(_layout(theirs)))
        if seen[-1] == key(got):
            return True
    print("pyarrow gave", seen, "ours", key(got))
    return False


def _ours(tmp_path, seq, **kw):
    ours = tmp_path / "pc"
    pc.write_to_dataset(_reader(seq), ours, partition_cols=["k"], basename_template="part-{i}.parquet", **kw)
    return _layout(ours)


def _values(layout):
    return {k: v[0] for k, v in layout.items()}


def _files_and_groups(layout):
    # each file's values (sorted: pyarrow's writer may stage a file's batches in another
    # order) and its row groups
    return {k: (sorted(v), g) for k, (v, g) in layout.items()}


# pyarrow completes the open file holding the most rows; between files of equal rows its pick
# depends on a hash order (it changed with the folder written to): the streams below have no
# such tie, which _no_ties checks on our side
_SEQ = [("a", 10), ("b", 2), ("a", 1), ("c", 4), ("b", 1), ("a", 2), ("c", 1), ("b", 5), ("d", 1)]


@pytest.fixture
def _no_ties(monkeypatch):
    from parquet_core.dataset import write_stream

    original = write_stream._StreamFiles.make_room
    ties = []

    def checked(self):
        if self.max_open_files is not None and len(self.open) >= self.max_open_files:
            rows = sorted((p.file_rows for p in self.open), reverse=True)
            if len(rows) > 1 and rows[0] == rows[1]:
                ties.append(rows)
        original(self)
    monkeypatch.setattr(write_stream._StreamFiles, "make_room", checked)
    yield
    assert not ties, ties


@pytest.mark.parametrize("limit", [1, 2, 3, 10])
def test_max_open_files_gives_pyarrows_files(tmp_path, limit, _no_ties):
    got = _ours(tmp_path, _SEQ, max_open_files=limit)
    assert _pyarrow_gives(tmp_path, _SEQ, got, _values, max_open_files=limit)


def test_max_open_files_on_a_random_stream(tmp_path, _no_ties):
    rnd = random.Random(31)
    seq = [(rnd.choice("abcdefg"), rnd.randint(1, 50)) for _ in range(80)]
    got = _ours(tmp_path, seq, max_open_files=3)
    assert _pyarrow_gives(tmp_path, seq, got, _values, max_open_files=3)
    assert len(got) > 7     # files were closed and reopened


@pytest.mark.parametrize("kw", [
    {"min_rows_per_group": 4, "max_rows_per_group": 6},
    {"max_rows_per_group": 3},
    {"min_rows_per_group": 7, "max_rows_per_group": 10},
    {"min_rows_per_group": 12},
    {"min_rows_per_group": 5, "max_rows_per_group": 8, "max_open_files": 2, "max_rows_per_file": 16},
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_rows_per_group_give_pyarrows_row_groups(tmp_path, kw):
    seq = [("abc"[i % 3], 5) for i in range(12)] + [("a", 13), ("b", 1)]
    got = _ours(tmp_path, seq, **kw)
    assert _pyarrow_gives(tmp_path, seq, got, _files_and_groups, **kw)


@pytest.mark.parametrize("kw, match", [
    ({"max_open_files": 0}, "max_open_files"),
    ({"min_rows_per_group": 5, "max_rows_per_group": 3}, "min_rows_per_group"),
    ({"max_rows_per_group": 3, "max_rows_per_file": 2}, "max_rows_per_file"),
    ({"max_rows_per_group": 0}, "max_rows_per_group"),
])
def test_bad_values_are_refused_before_writing(tmp_path, kw, match):
    with pytest.raises(ValueError, match=match):
        pc.write_to_dataset(_reader(_SEQ), tmp_path / "x", partition_cols=["k"], **kw)
    assert not (tmp_path / "x").exists() or not any((tmp_path / "x").rglob("*.parquet"))


def test_a_table_given_whole_gets_row_groups_of_max_rows_per_group(tmp_path):
    t = pa.table({"k": ["a", "b"] * 10, "v": range(20)})
    pc.write_to_dataset(t, tmp_path / "pc", partition_cols=["k"], max_rows_per_group=4)
    ds.write_dataset(t, tmp_path / "pa", format="parquet", partitioning=["k"], partitioning_flavor="hive",
                     max_rows_per_group=4, use_threads=False)
    def groups(root):
        return sorted([pq.read_metadata(f).row_group(i).num_rows for i in range(pq.read_metadata(f).num_row_groups)]
                      for f in root.rglob("*.parquet"))
    assert groups(tmp_path / "pc") == groups(tmp_path / "pa")


def _peak(tmp_path, name, limit):
    """tracemalloc peak of streaming 5 batches of 24 000 rows over 12 partitions."""
    rng = np.random.default_rng(5)
    keys = np.array([f"p{j:02d}" for j in range(12)])[np.arange(24_000) % 12]

    def batches():
        for _ in range(5):
            yield pa.record_batch({"k": keys, "v": rng.integers(0, 1 << 62, 24_000)})
    reader = pa.RecordBatchReader.from_batches(pa.schema([("k", pa.string()), ("v", pa.int64())]), batches())
    tracemalloc.start()
    try:
        pc.write_to_dataset(reader, tmp_path / name, partition_cols=["k"], max_open_files=limit,
                            row_group_size=100_000, compression="none")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_memory_is_bounded_by_max_open_files(tmp_path):
    """12 partitions, each gathering its rows toward a 100 000-row group: with every file open
    the pending rows and writer buffers of 12 files are held (here the whole stream); with
    max_open_files=2, those of two."""
    unlimited = _peak(tmp_path, "all", None)
    two = _peak(tmp_path, "two", 2)
    assert two < unlimited / 3, (two, unlimited)
    assert len(list((tmp_path / "two").rglob("*.parquet"))) > 12     # files were reopened
    assert pc.read_table(tmp_path / "two").num_rows == pc.read_table(tmp_path / "all").num_rows == 120_000


# --- tables given whole -----------------------------------------------------------------------
# pyarrow's writer takes a table as a stream of its chunks, each cut to at most 32 768 rows:
# with the options above, a pc.Table, a dict, a DataFrame or a pyarrow Table (one chunk or
# several) gives pyarrow's files and row groups.  70 000 rows over four partitions of unequal
# sizes: three batches, and no two open files ever hold the same number of rows (_no_ties).

def _whole_inputs():
    rng = np.random.default_rng(31)
    n = 70_000
    k = rng.choice(np.array(["a", "b", "c", "d"], dtype=object), n, p=[0.5, 0.3, 0.15, 0.05])
    v = np.arange(n, dtype=np.int64)
    arrow = pa.table({"k": pa.array(k, pa.string()), "v": v})
    return n, k, v, arrow


def _whole(kind):
    import pandas as pd

    n, k, v, arrow = _whole_inputs()
    if kind == "pc.Table":
        return pc.as_table({"k": list(k), "v": v}), arrow
    if kind == "dict":
        return {"k": list(k), "v": v}, arrow
    if kind == "DataFrame":
        return pd.DataFrame({"k": k, "v": v}), arrow
    if kind == "pa.Table":
        return arrow, arrow
    assert kind == "pa.Table chunked"
    cuts = [0, 20_000, 20_005, 61_000, n]
    chunked = pa.concat_tables([arrow.slice(a, b - a) for a, b in zip(cuts, cuts[1:])])
    assert chunked.column("v").num_chunks == 4
    return chunked, chunked


def _pyarrow_gives_table(tmp_path, arrow, got, key, **kw):
    """As _pyarrow_gives, pyarrow's writer given the pyarrow Table *arrow*."""
    seen = []
    for run in range(12):
        theirs = tmp_path / f"pa{run}"
        ds.write_dataset(arrow, theirs, format="parquet", partitioning=["k"], partitioning_flavor="hive",
                         basename_template="part-{i}.parquet", use_threads=False, **kw)
        seen.append(key(_layout(theirs)))
        if seen[-1] == key(got):
            return True
    print("pyarrow gave", seen[:2], "ours", key(got))
    return False


def _rows_per_file(layout):
    return {k: (len(v), min(v), max(v)) for k, (v, _) in layout.items()}


def _rows_and_groups(layout):
    return {k: (len(v), sorted(v) == v, g) for k, (v, g) in layout.items()}


_WHOLE = ["pc.Table", "dict", "DataFrame", "pa.Table", "pa.Table chunked"]


@pytest.mark.parametrize("kind", _WHOLE)
@pytest.mark.parametrize("kw", [
    {"max_rows_per_group": 20_000},
    {"min_rows_per_group": 30_000, "max_rows_per_group": 50_000},
    {"min_rows_per_group": 1_000, "max_rows_per_group": 9_000, "max_open_files": 1, "max_rows_per_file": 30_000},
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_a_table_given_whole_gets_pyarrows_row_groups(tmp_path, kind, kw, _no_ties):
    given, arrow = _whole(kind)
    ours = tmp_path / "pc"
    pc.write_to_dataset(given, ours, partition_cols=["k"], basename_template="part-{i}.parquet", **kw)
    got = _layout(ours)
    assert _pyarrow_gives_table(tmp_path, arrow, got, _rows_and_groups, **kw)
    assert sum(len(v) for v, _ in got.values()) == 70_000


@pytest.mark.parametrize("kind", _WHOLE)
def test_a_table_given_whole_honours_max_open_files(tmp_path, kind, _no_ties):
    """Files closed and reopened as pyarrow's (their rows; their row groups are gathered to
    row_group_size, ours, as for a stream without min/max_rows_per_group)."""
    given, arrow = _whole(kind)
    ours = tmp_path / "pc"
    pc.write_to_dataset(given, ours, partition_cols=["k"], basename_template="part-{i}.parquet", max_open_files=2)
    got = _layout(ours)
    assert len(got) > 4                        # files were completed and reopened
    assert _pyarrow_gives_table(tmp_path, arrow, got, _rows_per_file, max_open_files=2)


def test_pq_write_to_dataset_gives_the_same_files_for_max_open_files(tmp_path, _no_ties):
    """pyarrow.parquet's own write_to_dataset (which passes max_open_files on) as the oracle."""
    given, arrow = _whole("pc.Table")
    pc.write_to_dataset(given, tmp_path / "pc", partition_cols=["k"], basename_template="part-{i}.parquet",
                        max_open_files=1)
    got = _rows_per_file(_layout(tmp_path / "pc"))
    seen = []
    for run in range(12):
        pq.write_to_dataset(arrow, tmp_path / f"pa{run}", partition_cols=["k"], use_threads=False,
                            basename_template="part-{i}.parquet", max_open_files=1)
        seen.append(_rows_per_file(_layout(tmp_path / f"pa{run}")))
        if seen[-1] == got:
            break
    assert seen[-1] == got, (seen[0], got)


@pytest.mark.parametrize("kind", _WHOLE)
def test_max_open_files_zero_is_refused_for_a_table_given_whole(tmp_path, kind):
    """pyarrow documents 0 as invalid (pyarrow 26's writer crashes the process on it, so it is
    not run here); refused before anything is written."""
    given, _ = _whole(kind)
    with pytest.raises(ValueError, match="max_open_files"):
        pc.write_to_dataset(given, tmp_path / "pc", partition_cols=["k"], max_open_files=0)
    assert not (tmp_path / "pc").exists()


# --- max_partitions, preserve_order, create_dir (the rest of pyarrow's dataset-writer options) ---

@pytest.mark.parametrize("kind", ["pc.Table", "pa.Table chunked"])
def test_max_partitions_refuses_a_batch_over_the_limit_as_pyarrow(tmp_path, kind):
    given, arrow = _whole(kind)
    with pytest.raises(pa.ArrowInvalid, match="partitions"):
        pq.write_to_dataset(arrow, tmp_path / "pa", partition_cols=["k"], max_partitions=3)
    with pytest.raises(pc.ParquetSchemaError, match="max_partitions=3"):
        pc.write_to_dataset(given, tmp_path / "pc", partition_cols=["k"], max_partitions=3)
    assert not list((tmp_path / "pc").rglob("*.parquet"))


def test_max_partitions_counts_per_batch_as_pyarrow(tmp_path):
    """Two partitions per batch, four in all: pyarrow's limit of 2 passes, and so does ours;
    a limit of 1 fails in both."""
    seq = [("a", 3), ("b", 2), ("a", 1), ("b", 2), ("c", 1), ("d", 1)]

    def reader():
        return pa.RecordBatchReader.from_batches(_SCHEMA, (
            pa.record_batch({"k": [k1] * n1 + [k2] * n2, "v": list(range(n1 + n2))}, schema=_SCHEMA)
            for (k1, n1), (k2, n2) in zip(seq[::2], seq[1::2])))
    got = pc.write_to_dataset(reader(), tmp_path / "pc", partition_cols=["k"], max_partitions=2)
    ds.write_dataset(reader(), tmp_path / "pa", format="parquet", partitioning=["k"], partitioning_flavor="hive",
                     max_partitions=2, use_threads=False)
    assert len(got) == len(list((tmp_path / "pa").rglob("*.parquet"))) == 4
    assert pq.read_table(tmp_path / "pc").num_rows == pq.read_table(tmp_path / "pa").num_rows == 10
    with pytest.raises(pa.ArrowInvalid):
        ds.write_dataset(reader(), tmp_path / "pa1", format="parquet", partitioning=["k"],
                         partitioning_flavor="hive", max_partitions=1, use_threads=False)
    with pytest.raises(pc.ParquetSchemaError, match="max_partitions=1"):
        pc.write_to_dataset(reader(), tmp_path / "pc1", partition_cols=["k"], max_partitions=1)
    assert not list((tmp_path / "pc1").rglob("*.parquet"))


@pytest.mark.parametrize("kw", [{"preserve_order": True}, {"preserve_order": False}, {"create_dir": True},
                                {"create_dir": False}], ids=str)
def test_preserve_order_and_create_dir_are_accepted(tmp_path, kw):
    t = pa.table({"k": ["a", "b", "a"], "v": [1, 2, 3]})
    pc.write_to_dataset(t, tmp_path / "pc", partition_cols=["k"], **kw)
    assert pq.read_table(tmp_path / "pc" / "k=a").column("v").to_pylist() == [1, 3]
    with pytest.raises(TypeError, match=next(iter(kw))):
        pc.write_to_dataset(t, tmp_path / "bad", partition_cols=["k"], **{next(iter(kw)): "yes"})


def test_a_stream_without_max_open_files_keeps_pyarrows_default_limit(tmp_path, monkeypatch):
    """Without ``max_open_files`` a stream still keeps at most pyarrow's default (1,024) files
    open; an unbounded writer ran into the process's file-descriptor limit. The default is
    lowered to 3 here so that seven partitions must close files; every row is still written."""
    from parquet_core.dataset import write_stream

    assert write_stream.DEFAULT_MAX_OPEN_FILES == 1024      # pyarrow 26's default
    monkeypatch.setattr(write_stream, "DEFAULT_MAX_OPEN_FILES", 3)
    most = []
    original = write_stream._StreamFiles.make_room

    def counted(self):
        original(self)
        most.append(len(self.open))
    monkeypatch.setattr(write_stream._StreamFiles, "make_room", counted)
    rnd = random.Random(7)
    seq = [(rnd.choice("abcdefg"), rnd.randint(1, 50)) for _ in range(60)]
    got = _ours(tmp_path, seq)
    assert most and max(most) < 3          # room made before the third file opens
    assert len(got) > 7                    # files were completed and new ones started
    table = pq.read_table(tmp_path / "pc")
    assert sorted(table.column("v").to_pylist()) == list(range(sum(n for _, n in seq)))
