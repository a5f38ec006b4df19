"""Shared helpers: the pyarrow.dataset oracle and table comparison."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds


def oracle(local_dir, filter=None, columns=None, partitioning="hive"):
    """What pyarrow.dataset reads (dictionary partition columns decoded)."""
    table = ds.dataset(local_dir, format="parquet", partitioning=partitioning).to_table(
        filter=filter, columns=columns)
    return table


def assert_same(ours, theirs, sort_by="n"):
    """Our table (pc.Table) equals pyarrow's, column names, types (after casting ours) and values."""
    mine = ours.to_arrow() if not isinstance(ours, pa.Table) else ours
    assert mine.column_names == theirs.column_names, (mine.column_names, theirs.column_names)
    for name in theirs.column_names:
        a, b = mine.schema.field(name).type, theirs.schema.field(name).type
        # pc.read_table follows pyarrow.parquet: inferred Hive partition columns are dictionaries
        # of the type pyarrow.dataset (this oracle) gives plain
        assert a == b or pa.types.is_dictionary(b) or (pa.types.is_dictionary(a) and a.value_type == b), \
            (name, a, b)
    if pa.types.is_dictionary(theirs.schema[0].type):
        pass
    mine = mine.cast(pa.schema([pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
                                for f in theirs.schema]))
    theirs = theirs.cast(mine.schema)
    if sort_by is not None and mine.num_rows:
        mine = mine.sort_by(sort_by)
        theirs = theirs.sort_by(sort_by)
    assert mine.num_rows == theirs.num_rows
    assert mine.equals(theirs), (mine.to_pydict(), theirs.to_pydict())


def race_version(which: str) -> pa.Table:
    """Version ``"A"`` or ``"B"`` of the table the listing-race tests write and rewrite
    (``n``, partition ``k = n % 3``, ``v``); B's rows share no ``n`` with A's."""
    start, count = (0, 300) if which == "A" else (1000, 500)
    n = list(range(start, start + count))
    return pa.table({"n": n, "k": [i % 3 for i in n], "v": [float(i) * 0.5 for i in n]})


def race_rows(which: str) -> list[int]:
    """The sorted ``n`` of :func:`race_version`'s *which*."""
    return sorted(race_version(which).column("n").to_pylist())


class RaceWrites:
    """The next versions' writes (B, A, B...) to *root*, each a whole ``write_to_dataset``
    (through *fs* when given) of ``version(which)`` with :attr:`options`; with *paused*,
    every write stops right after its commit (markers, record and generation object made,
    nothing renamed or deleted), as a writer descheduled there does, and :meth:`finish`
    rolls them forward afterwards.  Subclasses set :attr:`version` and :attr:`options`."""

    version = staticmethod(race_version)
    options: dict = {}

    def __init__(self, monkeypatch, root: str, fs=None, times: int = 1, paused: bool = False) -> None:
        from parquet_core.dataset.transaction import Transaction

        self.root, self.fs, self.left = root, fs, times
        self.versions = iter("BA" * 50)
        self.written: list[str] = []
        self.paused: list = []
        self.real_roll_forward = Transaction.roll_forward
        if paused:
            monkeypatch.setattr(Transaction, "roll_forward", lambda txn: self.paused.append(txn))

    def __call__(self) -> None:
        import parquet_core as pc

        if not self.left:
            return
        self.left -= 1
        which = next(self.versions)
        pc.write_to_dataset(self.version(which), self.root, filesystem=self.fs, **self.options)
        self.written.append(which)

    def finish(self) -> None:
        for txn in self.paused:
            self.real_roll_forward(txn)


def walking_memory(at: str, write):
    """A memory:// file system whose ``find`` is fsspec's generic one (a walk, one ``ls``
    per folder) and whose ``ls`` of the folder named *at* first runs *write*; the names
    listed are kept in ``fs.listed``."""
    import fsspec
    from fsspec.implementations.memory import MemoryFileSystem

    class WalkingMemory(MemoryFileSystem):
        find = fsspec.AbstractFileSystem.find

    fs = WalkingMemory(skip_instance_cache=True)
    real = fs.ls
    listed: list[str] = []

    def ls(path, detail=True, **kwargs):
        name = path.rstrip("/").rsplit("/", 1)[-1]
        listed.append(name)
        if name == at:
            write()
        return real(path, detail=detail, **kwargs)

    fs.ls = ls
    fs.listed = listed
    return fs


def pyarrow_store_rows(fs, root: str, local: str) -> list[int]:
    """pyarrow's read of the files under *root* on the store *fs* as they are now (copied to
    the local folder *local* first): the sorted ``n``."""
    import os

    import pyarrow.parquet as pq

    for path in fs.find(root):
        rel = path[len(fs._strip_protocol(root)) + 1:]
        dest = os.path.join(local, *rel.split("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(fs.cat_file(path))
    return sorted(pq.read_table(local, columns=["n"]).column("n").to_pylist())
