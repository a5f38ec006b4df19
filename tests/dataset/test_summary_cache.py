"""The process's cache of decoded ``_metadata`` files (``dataset/summary_cache.py``).

A kept decode is used only when the ``_metadata`` bytes read by the new plan equal the
kept bytes.  Each way a ``_metadata`` can change under the same path is tried, including
the ones that keep its size, modification time and inode (a rewrite in place within the
clock's tick): the plan must see the new content, as pyarrow does.  And nothing a plan
hands out is the cache's own: changing one plan's metadata, summary groups or fragments
changes nothing for the next plan.
"""

from __future__ import annotations

import glob
import os
import threading
from types import MappingProxyType

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.dataset import summary_cache
from parquet_core.dataset.staleness import row_group_ends
from parquet_core.dataset.summary_cache import CACHE, CachedSummary, SummaryCache
from parquet_core.errors import ParquetError
from parquet_core.file.footer import read_footer
from parquet_core.file.source import FileSource
from parquet_core.thrift import pt
from parquet_core.thrift.codec import HAVE_ACCELERATED, parse
from parquet_core.thrift.lazy_footer import FooterSnapshot, lazy_state

pytestmark = pytest.mark.skipif(not HAVE_ACCELERATED, reason="lazy footers need thrift's C decoder")


@pytest.fixture(autouse=True)
def _empty_cache():
    CACHE.clear()
    yield
    CACHE.clear()


def _dataset(tmp_path, files=3, rows=5):
    """``p=i/part.parquet`` files of a column ``alpha`` (``rows + i`` values), and a
    ``_metadata`` naming them all, written by pyarrow (no ARROW:schema: the column's name
    is in the Parquet schema only)."""
    root = tmp_path / "ds"
    collected = []
    for i in range(files):
        d = root / f"p={i}"
        d.mkdir(parents=True)
        f = d / "part.parquet"
        pq.write_table(pa.table({"alpha": list(range(i * 10, i * 10 + rows + i))}), f, store_schema=False)
        md = pq.read_metadata(f)
        md.set_file_path(f"p={i}/part.parquet")
        collected.append(md)
    meta = root / "_metadata"
    pq.write_metadata(pq.read_schema(root / "p=0" / "part.parquet"), meta, metadata_collector=collected)
    past = os.stat(meta).st_mtime_ns - 10**9
    for i in range(files):
        os.utime(root / f"p={i}" / "part.parquet", ns=(past, past))
    return str(root), str(meta)


def _bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _renamed(data: bytes) -> bytes:
    """The same ``_metadata`` with the column ``alpha`` named ``omega``: same size."""
    assert data.count(b"alpha") >= 2        # the schema and each chunk's path_in_schema
    out = data.replace(b"alpha", b"omega")
    assert len(out) == len(data) and out != data
    return out


def _plan(root):
    d = pc.ParquetDataset(root)
    return d, d.schema.names


def _filled(root):
    """Plan twice: the second plan is served from the cache (checked)."""
    _plan(root)
    hits = CACHE.hits
    d, names = _plan(root)
    assert CACHE.hits == hits + 1 and len(CACHE) == 1
    assert names == ["alpha", "p"]
    return d


def test_a_repeated_plan_is_served_and_equals_a_new_decode(tmp_path):
    root, meta = _dataset(tmp_path)
    _filled(root)
    warm = pc.ParquetDataset(root)
    rep = warm.explain()
    assert (rep.footers_from_metadata, rep.footers_read, rep.stale_metadata) == (3, 0, {})
    assert warm.summary is not None and warm.summary.pf.metadata.raw == parse(_bytes(meta)[4:-8], pt.FileMetaData)[0]
    assert pc.read_table(root).to_arrow().sort_by("alpha").column("alpha").to_pylist() == \
        pq.read_table(root).sort_by("alpha").column("alpha").to_pylist()


def test_rewritten_in_place_same_size_same_time_is_decoded_again(tmp_path):
    root, meta = _dataset(tmp_path)
    _filled(root)
    before = os.stat(meta)
    with open(meta, "r+b") as f:               # the same inode, the same size
        data = f.read()
        f.seek(0)
        f.write(_renamed(data))
    os.utime(meta, ns=(before.st_atime_ns, before.st_mtime_ns))     # within the same clock tick
    after = os.stat(meta)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert pq.read_metadata(meta).schema.names == ["omega"]       # the oracle
    assert _plan(root)[1] == ["omega", "p"]


def test_replaced_by_rename_is_decoded_again(tmp_path):
    root, meta = _dataset(tmp_path)
    _filled(root)
    before = os.stat(meta)
    tmp = os.path.join(os.path.dirname(meta), ".new-metadata")
    with open(meta, "rb") as f, open(tmp, "wb") as g:
        g.write(_renamed(f.read()))
    os.utime(tmp, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(tmp, meta)
    assert os.stat(meta).st_size == before.st_size
    assert pq.read_metadata(meta).schema.names == ["omega"]
    assert _plan(root)[1] == ["omega", "p"]


def test_truncated_is_refused_as_without_the_cache(tmp_path):
    root, meta = _dataset(tmp_path)
    _filled(root)
    before = os.stat(meta)
    with open(meta, "r+b") as f:
        f.truncate(before.st_size // 2)
    os.utime(meta, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises((OSError, pa.ArrowInvalid)):
        pq.read_metadata(meta)                 # the oracle refuses it too
    with pytest.raises(ParquetError, match="_metadata"):
        _plan(root)
    CACHE.clear()
    with pytest.raises(ParquetError, match="_metadata"):     # the same as a first plan
        _plan(root)


def test_deleted_is_not_served(tmp_path, monkeypatch):
    root, meta = _dataset(tmp_path)
    _filled(root)
    # deleted after the listing saw it: the read fails as opening it did, nothing is served
    from parquet_core.dataset import dataset as dataset_module

    listed = dataset_module.discover
    def list_then_delete(*args, **kwargs):
        found = listed(*args, **kwargs)
        os.unlink(meta)
        return found

    monkeypatch.setattr(dataset_module, "discover", list_then_delete)
    with pytest.raises(FileNotFoundError, match="_metadata"):
        _plan(root)
    monkeypatch.setattr(dataset_module, "discover", listed)
    # gone before the listing: every footer is read from its file
    d = pc.ParquetDataset(root)
    rep = d.explain()
    assert d.summary is None and (rep.footers_from_metadata, rep.footers_read) == (0, 3)
    assert d.schema.names == ["alpha", "p"]


def test_a_served_plan_still_checks_the_files_against_the_listing(tmp_path):
    root, meta = _dataset(tmp_path)
    _filled(root)
    late = os.stat(meta).st_mtime_ns + 10**9
    changed = os.path.join(root, "p=1", "part.parquet")
    os.utime(changed, ns=(late, late))          # modified after _metadata: its entry is stale
    os.unlink(os.path.join(root, "p=2", "part.parquet"))
    hits = CACHE.hits
    rep = pc.ParquetDataset(root).explain()
    assert CACHE.hits == hits + 1
    assert (rep.footers_from_metadata, rep.footers_read) == (1, 1)
    assert sorted(os.path.basename(os.path.dirname(k)) for k in rep.stale_metadata) == ["p=1", "p=2"]


def test_changing_a_plan_changes_nothing_kept(tmp_path):
    root, meta = _dataset(tmp_path)
    first = _filled(root)
    s = first.summary
    raw = s.pf.metadata.raw
    raw.schema[1].name = "changed"
    raw.num_rows = -1
    raw.row_groups[0].num_rows = 12345
    raw.row_groups[1].columns[0].meta_data.statistics = None
    with pytest.raises((TypeError, AttributeError)):      # shared between plans: read-only
        s.groups["p=0/part.parquet"].append(99)
    with pytest.raises(TypeError):
        s.groups["new"] = [5]
    with pytest.raises(TypeError):
        s.row_group_ends()[0] = -5
    first.fragments[1].row_groups.append(77)             # each fragment's list is its own
    hits = CACHE.hits
    again = pc.ParquetDataset(root)
    assert CACHE.hits == hits + 1
    theirs = pq.read_metadata(meta)
    raw2 = again.summary.pf.metadata.raw
    assert raw2 is not raw and raw2.schema[1].name == "alpha" and raw2.num_rows == theirs.num_rows
    assert [rg.num_rows for rg in raw2.row_groups] == [theirs.row_group(i).num_rows for i in range(3)]
    assert raw2.row_groups[1].columns[0].meta_data.statistics is not None
    assert {k: list(v) for k, v in again.summary.groups.items()} == {f"p={i}/part.parquet": [i] for i in range(3)}
    assert [f.row_groups for f in again.fragments] == [[0], [1], [2]]
    cold, _ = parse(_bytes(meta)[4:-8], pt.FileMetaData)
    assert list(again.summary.row_group_ends()) == row_group_ends(cold)
    assert raw2 == cold


def test_planning_on_threads_sees_one_decode(tmp_path):
    root, _ = _dataset(tmp_path)
    errors, names = [], []

    def plan():
        try:
            for _ in range(20):
                names.append(tuple(pc.ParquetDataset(root).schema.names))
        except BaseException as exc:    # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=plan) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and set(names) == {("alpha", "p")} and len(names) == 120


def test_too_large_to_keep_is_opened_as_before(tmp_path, monkeypatch):
    root, meta = _dataset(tmp_path)
    monkeypatch.setattr(CACHE, "max_bytes", os.stat(meta).st_size - 1)
    for _ in range(2):
        d = pc.ParquetDataset(root)
        assert d.schema.names == ["alpha", "p"] and d.explain().footers_from_metadata == 3
    assert len(CACHE) == 0 and CACHE.hits == 0


def test_strict_and_stores_do_not_use_the_cache(tmp_path):
    root, _ = _dataset(tmp_path)
    assert pc.ParquetDataset(root, strict=True).schema.names == ["alpha", "p"]
    assert len(CACHE) == 0
    assert not summary_cache.usable(pc.ParquetDataset(root).filesystem, pc.ParquetDataset(root, strict=True).options)


def _entry(n: int) -> CachedSummary:
    root_raw = pt.FileMetaData(version=1, schema=[pt.SchemaElement(name="s", num_children=0)], num_rows=0,
                               row_groups=[])
    from parquet_core.thrift.codec import serialize
    buf = serialize(root_raw)
    from parquet_core.thrift.lazy_footer import parse_file_metadata
    raw, _ = parse_file_metadata(buf, lambda exc: None)
    return CachedSummary(bytes(n - len(buf) - 8), FooterSnapshot(raw), bytes(8), len(buf), {}, None)


def test_bounded_least_recently_used_first_out():
    cache = SummaryCache(max_bytes=2500)
    a, b, c = _entry(1000), _entry(1000), _entry(1000)
    whole = a.head + a.snapshot.buf + a.tail
    assert len(whole) == 1000
    cache.store("a", a)
    cache.store("b", b)
    assert cache.lookup("a", whole) is a                  # a is now the most recent
    cache.store("c", c)                                   # over the bound: b goes
    assert cache.lookup("b", whole) is None and cache.lookup("a", whole) is a
    assert cache.lookup("c", whole) is c and cache.kept_bytes <= 2500
    for i in (0, 500, len(whole) - 1):                    # other bytes anywhere: not served
        other = bytearray(whole)
        other[i] ^= 1
        assert cache.lookup("a", bytes(other)) is None
    assert cache.lookup("a", whole + b"\0") is None and cache.lookup("a", whole[:-1]) is None
    big = _entry(5000)
    cache.store("big", big)                               # larger than the bound: not kept
    assert cache.lookup("big", big.head + big.snapshot.buf + big.tail) is None and len(cache) == 2


def _footers(corpus):
    for f in sorted(glob.glob(os.path.join(str(corpus), "*.parquet"))):
        try:
            src = FileSource(f)
            raw, _, decryptor = read_footer(src)
        except Exception:
            continue
        if lazy_state(raw) is not None and decryptor is None:
            yield f, raw


def test_snapshot_fresh_equals_the_eager_decode_of_the_corpus(corpus):
    seen = 0
    for f, raw in _footers(corpus):
        snap = FooterSnapshot(raw)
        a, b = snap.fresh(), snap.fresh()
        eager, _ = parse(snap.buf, pt.FileMetaData)
        assert a == eager and b == eager, f
        assert a.schema[0] is not b.schema[0] and a.row_groups is not b.row_groups
        seen += 1
    assert seen >= 50, seen        # the corpus' plaintext footers (66 today)


# -- matching's C-level pass for an up-to-date _metadata, against the rule file by file ----------

@settings(max_examples=150, deadline=None)
@given(files=st.lists(st.tuples(st.booleans(), st.integers(0, 40), st.one_of(st.none(), st.integers(0, 40)),
                                st.integers(0, 40)), min_size=1, max_size=12),
       unlisted=st.integers(0, 2), written=st.one_of(st.none(), st.integers(0, 40)))
def test_matching_fast_pass_agrees_with_the_rule(files, unlisted, written):
    """Each listed file: (named in _metadata, size, modification time, bytes _metadata needs in
    it).  Used exactly when named, large enough and (where both times are known) older than
    _metadata; named files not listed are stale; as ``staleness.py`` states the rule."""
    from types import SimpleNamespace

    from parquet_core.dataset.discovery import Discovery
    from parquet_core.dataset.metadata_file import Summary, by_listed_path
    from parquet_core.file.filesystem import LocalFileSystem

    root = os.path.abspath("ds")
    listed = [(os.path.join(root, f"f{i}.parquet"), size) for i, (_, size, _, _) in enumerate(files)]
    groups = {f"f{i}.parquet": (i,) for i, (named, _, _, _) in enumerate(files) if named}
    needs = {f"f{i}.parquet": need for i, (named, _, _, need) in enumerate(files) if named}
    for j in range(unlisted):
        groups[f"gone{j}.parquet"] = (len(files) + j,)
        needs[f"gone{j}.parquet"] = 1
    disc = Discovery(listed, root, None, None, [[] for _ in files], [t for _, _, t, _ in files], written)
    for keyed in (None, by_listed_path(root, groups, needs)):     # by relative path, by listed path
        summary = Summary(None, MappingProxyType(groups), ends=(), needs=MappingProxyType(needs),  # type: ignore[arg-type]
                          by_path=keyed)
        picked = summary.match(SimpleNamespace(discovery=disc, filesystem=LocalFileSystem()))
        _check_match(files, unlisted, written, root, groups, summary, picked)


def _check_match(files, unlisted, written, root, groups, summary, picked):
    expect, stale = [], set()
    for i, (named, size, mtime, need) in enumerate(files):
        ok = named and size >= need and not (written is not None and mtime is not None and mtime >= written)
        expect.append([i] if ok else None)
        if named and not ok:
            stale.add(os.path.join(root, f"f{i}.parquet"))
    stale |= {os.path.join(root, f"gone{j}.parquet") for j in range(unlisted)}
    if not groups:
        assert picked is None
        return
    assert [None if p is None else list(p) for p in picked] == expect
    assert summary.used == sum(p is not None for p in expect)
    assert set(summary.stale) == stale


@settings(max_examples=100, deadline=None)
@given(counts=st.lists(st.integers(0, 3), max_size=12), ends=st.lists(st.one_of(st.none(), st.integers(0, 10**6)),
                                                                      min_size=40, max_size=40))
def test_bytes_needed_as_file_by_file(counts, ends):
    """Each file's least size: the largest end of its row groups (an unknown end counts 0)
    plus the tail, however many row groups each file has."""
    from parquet_core.dataset.staleness import TAIL_BYTES, bytes_needed

    groups, at = {}, 0
    for i, n in enumerate(counts):
        groups[f"f{i}"] = list(range(at, at + n))
        at += n
    expect = {rel: max([ends[g] or 0 for g in gs], default=0) + TAIL_BYTES for rel, gs in groups.items()}
    assert bytes_needed(groups, ends) == expect


# -- the first plan of a _metadata (the cache filled by it) matches by the listed paths -----------

_CHANGES = ("none", "newer", "gone", "short")


@settings(max_examples=25, deadline=None)
@given(changes=st.lists(st.sampled_from(_CHANGES), min_size=4, max_size=4), extra=st.booleans(),
       warm_first=st.booleans())
def test_first_plan_flags_what_a_plan_without_the_cache_flags(changes, extra, warm_first):
    """The first plan of a ``_metadata`` (which fills the cache) matches the listing by the
    listed paths, as the plans served from the cache do: files changed before it (modified
    after ``_metadata``, removed, cut below their column chunks; a file ``_metadata`` does
    not name added) are flagged as a plan with the cache off flags them, and as the changes
    made say.  (*warm_first*: the cache was filled before the changes; that plan is then
    served from it.)"""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        root, meta = _dataset(Path(tmp), files=4, rows=3000)
        CACHE.clear()
        if warm_first:
            _plan(root)
        late = os.stat(meta).st_mtime_ns + 10**9
        stale = set()
        for i, change in enumerate(changes):
            f = os.path.join(root, f"p={i}", "part.parquet")
            if change == "newer":
                os.utime(f, ns=(late, late))
            elif change == "gone":
                os.unlink(f)
            elif change == "short":
                # replaced by a file of one row, older than _metadata: shorter than the
                # column chunks _metadata names in it
                st_ = os.stat(f)
                pq.write_table(pa.table({"alpha": [7]}), f, store_schema=False)
                assert os.path.getsize(f) < pq.read_metadata(meta).row_group(i).column(0).total_compressed_size
                os.utime(f, ns=(st_.st_atime_ns, st_.st_mtime_ns))
            if change != "none":
                stale.add(f"p={i}")
        if extra:
            os.mkdir(os.path.join(root, "p=9"))
            pq.write_table(pa.table({"alpha": [7]}), os.path.join(root, "p=9", "part.parquet"), store_schema=False)
        listed = {f"p={i}" for i, c in enumerate(changes) if c != "gone"} | ({"p=9"} if extra else set())
        hits = CACHE.hits
        first = pc.ParquetDataset(root)
        assert CACHE.hits == hits + warm_first
        if not stale and not extra:
            assert first.summary is not None and first.summary._by_path is not None   # the fast pass's keys
        summary_cache.CACHE.max_bytes = 0                  # the cache off: the general path
        try:
            plain = pc.ParquetDataset(root)
        finally:
            summary_cache.CACHE.max_bytes = summary_cache.MAX_BYTES
        for d in (first, plain):
            rep = d.explain()
            folders = {os.path.basename(os.path.dirname(k)) for k in rep.stale_metadata}
            assert folders == stale
            assert {os.path.basename(os.path.dirname(f)) for f in d.files} == listed
            assert rep.footers_from_metadata == changes.count("none")
            assert rep.footers_read == len(listed) - rep.footers_from_metadata
        assert first.explain().stale_metadata == plain.explain().stale_metadata


def test_a_listing_in_the_entries_order_is_matched_without_a_lookup_per_file():
    """When the listing (sorted by path) is exactly the entries' paths in order, matching
    compares the two lists and takes each file's least size and row groups in that order:
    no lookup per file (the maps, poisoned here, are not asked)."""
    from types import SimpleNamespace

    from parquet_core.dataset.discovery import Discovery
    from parquet_core.dataset.metadata_file import Summary, by_listed_path
    from parquet_core.file.filesystem import LocalFileSystem

    class NoLookup(dict):
        def get(self, key, default=None):
            raise AssertionError(f"looked up {key!r}")

        __getitem__ = get

    root = os.path.abspath("ds")
    groups = {f"p={i}/part-{i}.parquet": (i, i + 20) for i in range(20)}
    needs = {rel: 100 + i for i, rel in enumerate(groups)}
    keyed = by_listed_path(root, groups, needs)
    assert keyed is not None
    poisoned = (keyed[0], NoLookup(), NoLookup(), *keyed[3:])
    rels = sorted(groups)
    listed = [(os.path.join(root, rel), 200) for rel in rels]
    disc = Discovery(listed, root, None, None, [[rel.split("/")[0]] for rel in rels], [5] * len(rels), 6)
    summary = Summary(None, MappingProxyType(groups), ends=(), needs=MappingProxyType(needs),  # type: ignore[arg-type]
                      by_path=poisoned)
    picked = summary.match(SimpleNamespace(discovery=disc, filesystem=LocalFileSystem()))
    assert picked == [groups[rel] for rel in rels]
    assert (summary.used, summary.stale) == (20, {})
