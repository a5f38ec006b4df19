"""Property: whatever happened to a folder, our readers see exactly the rows of the data files
on it (issue 30).

Random sequences of ``pc.write_to_dataset`` (``overwrite_or_ignore``, ``delete_matching``),
``_metadata`` written from the files there at that moment (by pyarrow or by us), pyarrow
writing files into the folder, and files removed by hand.  After every step ``read_table``,
``iter_batches`` (threads on and off) and filtered reads hold the rows ``pyarrow.dataset``
finds by listing the data files (compared as sorted multisets).  On the local disk and on
fsspec's ``memory://``.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import uuid

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_core as pc

fsspec = pytest.importorskip("fsspec")

# a modest count by default (a few seconds); PQC_LAKE_EXAMPLES=200 for a longer search

_rows_st = st.lists(st.tuples(st.integers(0, 2), st.integers(-50, 50)), min_size=1, max_size=6)
_step = st.one_of(
    st.tuples(st.just("ours"), st.sampled_from(["overwrite_or_ignore", "delete_matching"]), _rows_st),
    st.tuples(st.just("pyarrow"), st.just(""), _rows_st),
    st.tuples(st.just("metadata"), st.sampled_from(["pyarrow", "ours"]), st.just([])),
    st.tuples(st.just("remove"), st.sampled_from(["first", "last"]), st.just([])),
)


class _Lake:
    """One folder on a store, named as the user names it (``url``) and as fsspec does (``root``)."""

    def __init__(self, kind: str, scratch: str) -> None:
        self.scratch = scratch
        self.kind = kind
        if kind == "local":
            self.fs = fsspec.filesystem("file")
            self.root = self.url = os.path.join(scratch, "ds")
            os.makedirs(self.root)
        else:
            self.fs = fsspec.filesystem("memory")
            name = uuid.uuid4().hex
            self.root = f"/{name}/ds"
            self.url = f"memory://{name}/ds"
            self.fs.makedirs(self.root, exist_ok=True)
        self.counter = 0

    def data_files(self) -> list[str]:
        """The data files as pyarrow and Spark list them (hidden names skipped), sorted."""
        out = []
        for p in self.fs.find(self.root):
            rel = p[len(self.root) + 1:]
            if any(part.startswith(("_", ".")) for part in rel.replace(os.sep, "/").split("/")):
                continue
            out.append(rel.replace(os.sep, "/"))
        return sorted(out)

    def path(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def table(self, rows: list[tuple[int, int]]) -> pa.Table:
        xs = []
        for _, x in rows:
            self.counter += 1
            xs.append(x * 1000 + self.counter)      # distinct values: a lost or doubled row shows
        return pa.table({"p": [p for p, _ in rows], "x": xs, "s": [f"s{x % 3}" for x in xs]})

    # -- steps --------------------------------------------------------------------------------
    def ours(self, behaviour: str, rows: list[tuple[int, int]]) -> None:
        pc.write_to_dataset(self.table(rows), self.url, partition_cols=["p"], existing_data_behavior=behaviour)

    def pyarrow(self, rows: list[tuple[int, int]]) -> None:
        t = self.table(rows)
        for p in sorted(set(t.column("p").to_pylist())):
            part = t.filter(pa.compute.equal(t.column("p"), p)).drop(["p"])
            buf = io.BytesIO()
            pq.write_table(part, buf)
            self.fs.makedirs(self.path(f"p={p}"), exist_ok=True)
            self.fs.pipe_file(self.path(f"p={p}/pa-{uuid.uuid4().hex}.parquet"), buf.getvalue())

    def metadata(self, writer: str) -> None:
        files = self.data_files()
        if not files:
            return
        collected = []
        for rel in files:
            md = pq.read_metadata(io.BytesIO(self.fs.cat_file(self.path(rel))))
            md.set_file_path(rel)
            collected.append(md)
        schema = pa.schema([("x", pa.int64()), ("s", pa.string())])
        if writer == "pyarrow":
            buf = io.BytesIO()
            pq.write_metadata(schema, buf, metadata_collector=collected)
            self.fs.pipe_file(self.path("_metadata"), buf.getvalue())
        else:
            pc.write_metadata(schema, self.url + "/_metadata", metadata_collector=collected)

    def remove(self, which: str) -> None:
        files = self.data_files()
        if len(files) > 1:
            self.fs.rm_file(self.path(files[0] if which == "first" else files[-1]))

    # -- the oracle ---------------------------------------------------------------------------
    def truth(self) -> pa.Table:
        """What pyarrow.dataset reads from the data files (a local copy of the folder)."""
        local = tempfile.mkdtemp(dir=self.scratch)
        for rel in self.data_files():
            dest = os.path.join(local, *rel.split("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(self.fs.cat_file(self.path(rel)))
        try:
            return ds.dataset(local, partitioning="hive").to_table()
        finally:
            shutil.rmtree(local)


def _multiset(table) -> list[tuple]:
    t = table.to_arrow() if hasattr(table, "to_arrow") else table
    d = t.to_pydict()
    return sorted(zip(d.get("p", [None] * t.num_rows), d["x"], d["s"]))


def _check(lake: _Lake) -> None:
    truth = lake.truth()
    want = _multiset(truth)
    assert _multiset(pc.read_table(lake.url)) == want
    d = pc.ParquetDataset(lake.url)
    for threads in (True, False):
        got = [b.to_arrow() for b in d.iter_batches(batch_size=3, use_threads=threads)]
        assert (_multiset(pa.concat_tables(got)) if got else []) == want
        assert _multiset(d.read(use_threads=threads)) == want
    for filters, keep in (([("p", "==", 1)], lambda r: r[0] == 1),
                          ([("x", ">", 0), ("s", "!=", "s1")], lambda r: r[1] > 0 and r[2] != "s1")):
        got = pc.read_table(lake.url, filters=filters)
        assert _multiset(got) == [r for r in want if keep(r)], filters
    assert len(d.files) == len(lake.data_files())


@pytest.mark.parametrize("kind", ["local", "memory"])
@settings(max_examples=int(os.environ.get("PQC_LAKE_EXAMPLES", "6")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(_step, min_size=1, max_size=5))
def test_readers_see_exactly_the_data_files(kind, steps):
    scratch = tempfile.mkdtemp(prefix="pqc-lake-")
    try:
        lake = _Lake(kind, scratch)
        lake.ours("overwrite_or_ignore", [(0, 1), (1, 2), (2, 3)])
        for action, arg, rows in steps:
            if action == "ours":
                lake.ours(arg, rows)
            elif action == "pyarrow":
                lake.pyarrow(rows)
            elif action == "metadata":
                lake.metadata(arg)
            else:
                lake.remove(arg)
            _check(lake)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if kind == "memory":
            lake.fs.rm(lake.root.rsplit("/", 1)[0], recursive=True)
