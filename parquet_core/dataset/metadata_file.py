"""Summary files: ``_metadata`` (every file's row groups) and ``_common_metadata`` (the schema).

Both are Parquet footers without data, as pyarrow (and parquet-mr, Dask)
write them::

    "PAR1" | FileMetaData | len | "PAR1"

``_metadata`` holds the row groups of every data file, each column chunk's
``file_path`` naming its file relative to the folder (the spec's "column data
in another file").  It is a cache: the folder is always listed, and the
listing decides which files the dataset has (as ``pyarrow.dataset`` and Spark
list).  For the listed files ``_metadata`` still describes (``staleness.py``),
the row groups and their statistics come from that single footer and column
chunks are read through ``file_path`` (``ChunkSources.for_chunk``) without
opening the data files' own footers; the other listed files are read from
their own footers, and entries naming files that are gone are ignored
(``ParquetDataset.explain`` names them).  ``use_metadata_file=False`` reads
every footer.

``write_metadata(schema, path, metadata_collector=...)`` writes either:
without a collector, a ``_common_metadata`` (schema only); with one (filled
by ``write_to_dataset(..., metadata_collector=...)``), a ``_metadata``.
"""

from __future__ import annotations

import io
import itertools
import operator
import os
import posixpath
import struct
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Sequence, TypeAlias

import numpy as np

from parquet_core.constants import MAGIC
from parquet_core.errors import ParquetFormatError, ParquetSchemaError, note_file
from parquet_core.file.filesystem import FileSystem, LocalFileSystem
from parquet_core.file.reader import ParquetFile
from parquet_core.file.sink import open_sink
from parquet_core.file.writer import ParquetWriter
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse, serialize
from parquet_core.thrift.lazy_footer import lazy_state

if TYPE_CHECKING:  # pragma: no cover - dataset.py imports this module
    from parquet_core.dataset.dataset import ParquetDataset
    from parquet_core.dataset.discovery import Discovery

__all__ = ["write_metadata", "load_summary", "summary_groups", "dataset_metadata", "metadata_with_file_path", "Summary"]


class Summary:
    """A dataset's ``_metadata``: the open footer, the row groups of each file it names,
    and which of them describe the files listed (see ``staleness.py``)."""

    def __init__(self, pf: ParquetFile, root_rel: Mapping[str, Sequence[int]], *,
                 ends: Sequence[int | None] | None = None, needs: Mapping[str, int] | None = None,
                 written: int | None = None, by_path: ByPath | None = None) -> None:
        self.pf = pf
        #: relative path -> row group indexes (read-only when shared with other plans:
        #: ``summary_cache.py``)
        self.groups = root_rel
        #: each row group's end of column data, when known already (see :meth:`row_group_ends`)
        self._ends = ends
        #: each file's least size for its row groups here (see :meth:`bytes_needed`)
        self._needs = needs
        #: the same keyed by the listed path (see :func:`by_listed_path`), for one folder
        self._by_path = by_path
        #: ``_metadata``'s modification time (ns) when its bytes were read (None: stat it)
        self.written = written
        self.stale: dict[str, str] = {}     # relative path -> why its entry is not used
        self.used = 0                       # listed files whose footer comes from here
        self._verified: set[int] = set()
        self._picked: dict[int, str] | None = None     # row group -> the file it was listed under

    def verify(self, groups: Sequence[int]) -> None:
        """Check, before reading them, that row groups *groups* name the file they were
        grouped under.

        :func:`summary_groups` picks each row group's ``file_path`` out of the footer bytes
        without decoding the row group; a corrupt footer can decode to another path (a
        field repeated further on wins in Thrift).  Reading decodes the row groups anyway:
        this compares the two there, so a damaged ``_metadata`` never hands one file's
        rows to another.

        Raises
        ------
        ParquetFormatError
            Naming the row group and both paths.
        """
        todo = [g for g in groups if g not in self._verified]
        if not todo:
            return
        picked = self._picked
        if picked is None:      # made once: a read verifies file by file
            picked = self._picked = {g: rel for rel, gs in self.groups.items() for g in gs}
        md = self.pf.metadata
        for g in todo:
            rg = md.row_group(g)
            decoded = rg.column(0).file_path if rg.num_columns else None
            if decoded != picked.get(g):
                raise ParquetFormatError(
                    f"{self.pf.path!r}: row group {g} was listed under file_path {picked.get(g)!r} "
                    f"but decodes to {decoded!r}: the summary footer is damaged")
            self._verified.add(g)

    def row_group_ends(self) -> Sequence[int | None]:
        """Each row group's end of column data (``staleness.row_group_ends``), made once."""
        ends = self._ends
        if ends is None:
            from parquet_core.dataset.staleness import row_group_ends

            ends = self._ends = row_group_ends(self.pf.metadata.raw)
        return ends

    def bytes_needed(self) -> Mapping[str, int]:
        """Each file's least size for its row groups here (``staleness.bytes_needed``), made once."""
        needs = self._needs
        if needs is None:
            from parquet_core.dataset.staleness import bytes_needed

            needs = self._needs = bytes_needed(self.groups, self.row_group_ends())
        return needs

    def match(self, ds: ParquetDataset) -> list[Sequence[int] | None] | None:
        """Each listed file's row groups here when ``_metadata`` still describes it, else
        None (its own footer is read): parallel to ``ds.discovery.files``; None when
        ``_metadata`` names no file.  Sets :attr:`used` and :attr:`stale`.

        This runs on every planning of a dataset with a ``_metadata``, so it is a few
        passes of C-level loops over the listing: each path's relative name is one slice
        of the listed path, looked up in :attr:`groups`; the size and modification time are
        the listing's own (no stat here); a file's end of column data is the row groups'
        ends, decoded once (:meth:`bytes_needed`).  When every listed file is named here,
        large enough and older than ``_metadata`` (an up-to-date ``_metadata``), that is
        found by C-level passes (``map`` over ``operator`` functions, ``max``); otherwise
        one step per file applies the rules of ``staleness.py`` (:func:`_verdicts`).
        (Array comparisons were tried for the checks: slower for 1,000 files than the
        loop.)  The row groups returned may be the summary's own (shared, read-only):
        a fragment copies them."""
        from parquet_core.dataset.staleness import stale_reason

        groups = self.groups
        if not groups:
            return None
        disc = ds.discovery
        fs, root = ds.filesystem, disc.root
        local = isinstance(fs, LocalFileSystem)
        sep = os.sep if local else "/"
        prefix = root.rstrip(sep) + sep if root else None
        cut = len(prefix) if prefix else 0
        written = disc.metadata_time          # an object store's listing gave it
        if self.written is not None:
            written = self.written
        elif local and disc.metadata_path is not None:
            try:
                written = os.stat(disc.metadata_path).st_mtime_ns
            except OSError:
                written = None
        times: list[Any] = disc.times
        by_path = self._by_path
        if by_path is not None and by_path[0] == prefix:
            # keyed by the listed paths themselves: no relative path made per file.  The
            # listing of one folder names each file once, so a file for every entry and
            # an entry for every file is all of them, none stale
            paths = tuple(map(_path_of, disc.files))
            # the listing (sorted by path) is the entries' paths in order: one C-level
            # comparison of the lists instead of two lookups per file (hashing each new
            # path); each file's least size and row groups are then in that order
            if paths == by_path[3] and _fresh(by_path[4], disc.files, times, written):
                self.used, self.stale = len(paths), {}
                return list(by_path[5])
            needs: Sequence[Any] = list(map(by_path[1].get, paths))
            if None not in needs and len(needs) == len(groups) and \
                    _fresh(needs, disc.files, times, written):
                self.used, self.stale = len(needs), {}
                return list(map(by_path[2].__getitem__, paths))
        # the listing's paths start with the folder: one slice each
        rels = [p[cut:] for p, _ in disc.files if p.startswith(prefix)] if prefix is not None else []
        if len(rels) != len(disc.files):
            rels = [p[cut:] if prefix is not None and p.startswith(prefix) else _relative(fs, root, p) or ""
                    for p, _ in disc.files]
        if sep != "/":
            rels = [r.replace(sep, "/") for r in rels]
        needs = list(map(self.bytes_needed().get, rels))     # int, None: not named
        stale: dict[str, str] = {}
        picked: list[Sequence[int] | None]
        if None not in needs and _fresh(needs, disc.files, times, written):
            # every listed file is described, older than _metadata and large enough
            picked = list(map(groups.__getitem__, rels))
            used = len(picked)
        elif needs.count(None) < len(needs):
            picked, stale, used = _verdicts(disc, rels, needs, groups, written)
        else:
            picked, used = [None] * len(needs), 0
        listed = set(rels)
        if not groups.keys() <= listed:         # some entries name no listed file
            for rel in groups:
                if rel not in listed:
                    stale[rel] = stale_reason(None, 0, None, None)
        self.used = used
        self.stale = {fs.display(fs.join(root, *rel.split("/"))) if root is not None and rel
                      and not rel.startswith("/") else rel: why for rel, why in stale.items()}
        return picked


_path_of = operator.itemgetter(0)
_size_of = operator.itemgetter(1)

#: A summary's bytes needed and row groups keyed by the listed path: ``(the folder's path
#: with its separator, path -> bytes needed, path -> row groups, the paths sorted, their
#: bytes needed and row groups in that order)`` (:func:`by_listed_path`).
ByPath: TypeAlias = ("tuple[str, Mapping[str, int], Mapping[str, Sequence[int]], tuple[str, ...], "
                     "tuple[int, ...], tuple[Sequence[int], ...]]")


def by_listed_path(folder: str, groups: Mapping[str, Sequence[int]], needs: Mapping[str, int]) -> ByPath | None:
    """*needs* and *groups* (keyed by ``file_path``) keyed by the path the local listing of
    *folder* gives each file (``folder/`` + ``file_path``), read-only; None where the
    separator is not ``/`` (the relative paths are matched instead)."""
    if os.sep != "/":
        return None
    prefix = folder.rstrip(os.sep) + os.sep
    keys = list(map(prefix.__add__, groups))
    by_need = dict(zip(keys, map(needs.__getitem__, groups)))
    by_groups = dict(zip(keys, groups.values()))
    ordered = tuple(sorted(keys))
    return (prefix, MappingProxyType(by_need), MappingProxyType(by_groups), ordered,
            tuple(map(by_need.__getitem__, ordered)), tuple(map(by_groups.__getitem__, ordered)))


def _fresh(needs: Sequence[int], files: list[tuple[str, int]], times: list[Any], written: int | None) -> bool:
    """Whether every listed file (*needs*: each one's least size, all known) is large enough
    and, where ``_metadata``'s time is known, older than it: C-level passes, no step per file.
    (A time not known, None, makes ``max`` raise among times or return None alone: not
    fresh; ``None in times`` would compare every time with None, a slow path per int.)"""
    if written is not None:
        try:
            newest = max(times, default=0)
        except TypeError:
            return False
        if newest is None or newest >= written:
            return False
    return all(map(operator.le, needs, map(_size_of, files)))

#: What matching gives: each listed file's row groups (None: not used), the stale entries
#: (relative path -> why), and how many files are used.
_Verdicts: TypeAlias = "tuple[list[Sequence[int] | None], dict[str, str], int]"


def _verdicts(disc: Discovery, rels: list[str], needs: list[int | None], groups: Mapping[str, Sequence[int]],
              written: int | None) -> _Verdicts:
    """The rules of ``staleness.py``, one listed file at a time (*needs*: each file's least
    size, None where ``_metadata`` does not name it)."""
    from parquet_core.dataset.staleness import stale_reason

    picked: list[Sequence[int] | None] = []
    stale: dict[str, str] = {}
    used = 0
    for (_, size), need, rel, mtime in zip(disc.files, needs, rels, disc.times):
        if need is None:
            picked.append(None)
            continue
        if size < need or (written is not None and mtime is not None and mtime >= written):
            stale[rel] = stale_reason(size, need, mtime, written)
            picked.append(None)
            continue
        picked.append(groups[rel])
        used += 1
    return picked, stale, used


def _relative(fs: FileSystem, root: str | None, path: str) -> str | None:
    if root is None:
        return None
    sep = os.sep if isinstance(fs, LocalFileSystem) else "/"
    r = root.rstrip(sep)
    if path.startswith(r + sep):
        rel = path[len(r) + 1:]
    elif isinstance(fs, LocalFileSystem):
        rel = os.path.relpath(path, root)
    else:
        return None
    return rel.replace(os.sep, "/") if sep != "/" else rel


def load_summary(ds: ParquetDataset) -> tuple[Summary | None, Any]:
    """Open the dataset's ``_metadata`` (a :class:`Summary`) and the schema it or
    ``_common_metadata`` gives; ``(None, None)`` when there is neither."""
    disc = ds.discovery
    path = disc.metadata_path
    if path is None:
        if disc.common_metadata_path is None:
            return None, None
        with _open(ds, disc.common_metadata_path) as pf:
            return None, pf.schema_arrow
    from parquet_core.dataset import summary_cache

    if summary_cache.usable(ds.filesystem, ds.options):
        kept = _load_kept(ds, path)
        if kept is not None:
            return kept, kept.pf.schema_arrow
    pf = _open(ds, path)
    return Summary(pf, summary_groups(pf.metadata.raw)), pf.schema_arrow


def _load_kept(ds: ParquetDataset, path: str) -> Summary | None:
    """``_metadata`` through the process's cache of decoded summaries (``summary_cache.py``).

    Nothing kept for *path*: opened as any file (nothing read twice), and kept.  Else its
    bytes are read whole and compared with the kept ones: equal, the kept decode is used
    (new objects for this dataset); not, these bytes are decoded and kept instead.  None
    when the file is too large to keep (the caller opens it as any file)."""
    from parquet_core.dataset.staleness import bytes_needed, row_group_ends
    from parquet_core.dataset.summary_cache import CACHE, SummaryBytes, read_summary_bytes

    data: bytes | None = None
    written: int | None = None
    if CACHE.get(path) is None:
        pf = _open(ds, path)
    else:
        shown = ds.filesystem.display(path)
        try:
            read = read_summary_bytes(path, CACHE.max_bytes)
        except OSError as exc:
            note_file(exc, shown, "reading")
            raise
        if read is None:
            CACHE.discard(path)
            return None
        data, written = read
        ds.io_stats.add(len(data))
        entry = CACHE.lookup(path, data)
        if entry is not None:
            pf = ds.file_class.from_footer(SummaryBytes(data, path, ds.io_stats), shown, entry.snapshot.fresh(),
                                           entry.footer_len, options=ds.options)
            cell = entry.by_path
            if not cell and entry.needs is not None:
                cell.append(by_listed_path(os.path.dirname(path), entry.groups, entry.needs))
            return Summary(pf, entry.groups, ends=entry.ends, needs=entry.needs, written=written,
                           by_path=cell[0] if cell else None)
        pf = ds.file_class.from_source(SummaryBytes(data, path, ds.io_stats), shown, options=ds.options)
    raw = pf.metadata.raw
    groups = summary_groups(raw)
    ends = needs = None
    if groups:
        ends = row_group_ends(raw)
        needs = bytes_needed(groups, ends)
    kept = _kept(pf, data, groups, ends, needs)
    if kept is None:
        CACHE.discard(path)
        return Summary(pf, groups, ends=ends, needs=needs, written=written)
    if kept.needs is not None:
        # keyed by the listed paths now, not at the first plan served from the cache: that
        # plan is then as fast as the later ones
        kept.by_path.append(by_listed_path(os.path.dirname(path), kept.groups, kept.needs))
    CACHE.store(path, kept)
    return Summary(pf, kept.groups, ends=kept.ends, needs=kept.needs, written=written,
                   by_path=kept.by_path[0] if kept.by_path else None)


def _kept(pf: ParquetFile, data: bytes | None, groups: dict[str, list[int]], ends: list[int | None] | None,
          needs: dict[str, int] | None) -> Any:
    """What the cache keeps of a summary just opened (a ``summary_cache.CachedSummary``), or
    None: not a lazily decoded plaintext footer, or not laid out as ``head + footer +
    length + magic`` with the footer's bytes all decoded from (*data*: the whole file as
    read; None: opened as a file, which ``read_footer`` checked starts with the magic)."""
    from parquet_core.dataset.summary_cache import CACHE, CachedSummary, frozen_groups
    from parquet_core.thrift.lazy_footer import FooterSnapshot, lazy_state

    md = pf.metadata
    raw = md.raw
    if lazy_state(raw) is None or md.decryptor is not None or raw.encryption_algorithm is not None:
        return None
    snapshot = FooterSnapshot(raw)       # before anything decodes a row group of it
    n = md.footer_size
    if len(snapshot.buf) != n:
        return None
    tail = struct.pack("<I", n) + MAGIC
    if data is None:
        if pf.source.size != len(MAGIC) + n + len(tail) or pf.source.size > CACHE.max_bytes:
            return None
        head = MAGIC
    else:
        cut = len(data) - n - len(tail)
        if cut < 0 or not data.endswith(tail) or not data.startswith(snapshot.buf, cut):
            return None
        head = data[:cut]
    return CachedSummary(head, snapshot, tail, n, frozen_groups(groups), None if ends is None else tuple(ends),
                         None if needs is None else MappingProxyType(needs))


def summary_groups(raw: Any, fast: bool = True) -> dict[str, list[int]]:
    """``{file_path of the first column chunk: [row group indexes]}`` of a summary footer.

    Row groups without chunks or without ``file_path`` are left out (not a summary of
    other files).  With *fast*, the paths are picked out of the footer bytes (see
    :func:`_first_file_path`) and the row groups are decoded only when they are read.
    """
    groups: dict[str, list[int]] = {}
    state = lazy_state(raw) if fast else None
    buf = None if state is None else state.buf
    spans = None if state is None else state.row_group_spans
    if buf is None or spans is None:
        # the raw row groups: their counts are checked when a row group is read
        for i, rg in enumerate(raw.row_groups or []):
            rel = rg.columns[0].file_path if rg.columns else None
            if rel:
                groups.setdefault(rel, []).append(i)
        return groups
    paths = _first_file_paths(buf, spans)
    if _UNKNOWN not in paths and "" not in paths and len(set(paths)) == len(paths):
        # every path picked out of the bytes, one row group per file (a summary of files
        # written one row group each): no per-row-group appends
        return {rel: [i] for i, rel in enumerate(paths)}
    for i, (span, rel) in enumerate(zip(spans, paths)):
        if rel is _UNKNOWN:
            rel = _first_file_path(buf, span)
        if rel is _UNKNOWN:                       # an unusual layout: decode this row group
            assert state is not None              # (buf and spans are its own)
            rg = state.row_group(i)
            rel = rg.columns[0].file_path if rg.columns else None
        if rel:
            groups.setdefault(rel, []).append(i)
    return groups


_UNKNOWN = object()


def _first_file_paths(buf: bytes, spans: Sequence[tuple[int, int]]) -> list[Any]:
    """:func:`_first_file_path` of every span at once: the layout checks are array
    operations over the spans' first four bytes, then each path is one slice and decode.
    ``_UNKNOWN`` where the check needs more than that (a path of 128 bytes or more, whose
    length takes two varint bytes; another layout): the caller asks :func:`_first_file_path`."""
    n = len(spans)
    if n < 16:
        return [_UNKNOWN] * n
    data = np.frombuffer(buf, dtype=np.uint8)
    bounds = np.fromiter(itertools.chain.from_iterable(spans), dtype=np.int64, count=2 * n).reshape(n, 2)
    start, end = bounds[:, 0], bounds[:, 1]
    ok = end - start >= 4
    at = np.where(ok, start, 0)
    header = data[at + 1]
    length = data[at + 3].astype(np.int64)
    ok &= (data[at] == 0x19) & (header & 0x0F == 12) & (header >> 4 != 0) & (header >> 4 != 15)
    ok &= (data[at + 2] == 0x18) & (length < 0x80) & (at + 4 + length <= end)
    out: list[Any] = [_UNKNOWN] * n
    rows = np.flatnonzero(ok)
    first = at[rows] + 4
    for i, a, b in zip(rows.tolist(), first.tolist(), (first + length[rows]).tolist()):
        try:
            out[i] = buf[a:b].decode("utf-8")
        except UnicodeDecodeError:
            pass
    return out


def _first_file_path(buf: bytes, span: tuple[int, int]) -> Any:
    """The ``file_path`` of a RowGroup's first ColumnChunk, read from its compact-thrift bytes.

    A ``_metadata`` of N files holds N or more row groups; decoding each one whole to learn
    which file it belongs to cost more than pyarrow's whole planning.  The common layout
    (every writer we know) is recognised byte by byte::

        0x19            field 1 (columns), a list
        0xN C           N (1..14) elements, structs
        0x18 len bytes  the first ColumnChunk's field 1 (file_path), a string

    Returns the path, or ``_UNKNOWN`` for anything else (the caller decodes the row group).  The span was walked, so its framing is sound; lengths are checked anyway.
    """
    start, end = span
    if end - start < 4 or buf[start] != 0x19:
        return _UNKNOWN
    header = buf[start + 1]
    if header & 0x0F != 12 or (header >> 4) in (0, 15):
        return _UNKNOWN
    pos = start + 2
    if buf[pos] != 0x18:
        return _UNKNOWN      # fields in another order, or no file_path: decoded
    pos += 1
    length = shift = 0
    for _ in range(5):                        # a 32-bit varint has at most 5 bytes
        if pos >= end:
            return _UNKNOWN
        b = buf[pos]
        pos += 1
        length |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    else:
        return _UNKNOWN
    if pos + length > end:
        return _UNKNOWN
    try:
        return buf[pos:pos + length].decode("utf-8")
    except UnicodeDecodeError:
        return _UNKNOWN


def _open(ds: ParquetDataset, path: str) -> ParquetFile:
    return ds.file_class.open_in(ds.filesystem, path, stats=ds.io_stats, options=ds.options)


def metadata_with_file_path(fs: FileSystem, root: str, path: str) -> FileMetadata:
    """The footer of a written file, its column chunks' ``file_path`` set relative to *root*."""
    src = fs.open_source(path)
    try:
        pf = ParquetFile(src)
        md = pf.metadata
    finally:
        src.close()
    rel = _relative(fs, root, path)
    for rg in md.raw.row_groups or []:
        for chunk in rg.columns:
            chunk.file_path = rel
    return FileMetadata(md.raw, md.footer_size)


def _as_raw(md: Any) -> Any:
    """Our FileMetadata's thrift footer; a pyarrow FileMetaData is taken through its bytes."""
    if isinstance(md, FileMetadata):
        return md.raw
    if hasattr(md, "write_metadata_file"):          # pyarrow.parquet.FileMetaData
        buf = io.BytesIO()
        md.write_metadata_file(buf)
        data = buf.getvalue()
        (n,) = struct.unpack("<I", data[-8:-4])
        raw, _ = parse(data[-8 - n:-8], pt.FileMetaData)
        return raw
    raise TypeError(f"metadata_collector entries must be FileMetadata, not {type(md).__name__}")


def write_metadata(schema: Any, where: Any, metadata_collector: Sequence[Any] | None = None, *,
                   filesystem: Any = None, storage_options: dict[str, Any] | None = None,
                   **writer_options: Any) -> None:
    """Write a summary file: ``_common_metadata`` (schema only), or ``_metadata`` when
    *metadata_collector* holds the footers of the data files (with ``file_path`` set).

    Raises
    ------
    ParquetSchemaError
        A collected footer whose columns differ from *schema*'s.
    """
    buf = io.BytesIO()
    ParquetWriter(buf, schema, **writer_options).close()
    data = buf.getvalue()
    (n,) = struct.unpack("<I", data[-8:-4])
    base, _ = parse(data[-8 - n:-8], pt.FileMetaData)
    base.row_groups = []
    base.num_rows = 0
    leaves = _leaf_signature(base)
    for i, md in enumerate(metadata_collector or []):
        raw = _as_raw(md)
        if _leaf_signature(raw) != leaves:
            raise ParquetSchemaError(f"metadata_collector entry {i} has columns {_leaf_signature(raw)}, "
                                     f"the schema {leaves}")
        base.row_groups.extend(raw.row_groups or [])
        base.num_rows += raw.num_rows
    footer = serialize(base)
    sink = open_sink(where, filesystem, storage_options)
    try:
        sink.write(MAGIC)
        sink.write(footer)
        sink.write(struct.pack("<I", len(footer)) + MAGIC)
        sink.commit()
    except BaseException:
        sink.abort()
        raise


def _leaf_signature(raw: Any) -> list[tuple[str, int | None]]:
    return [(el.name, el.type) for el in raw.schema[1:] if el.num_children in (None, 0)]


def dataset_metadata(ds: ParquetDataset) -> FileMetadata:
    """The footers of the dataset's listed files merged into one (row groups in listing order,
    ``file_path`` set): the ``_metadata`` file itself when it describes every listed file and
    names no other, else its row groups of the files it still describes and the others' own
    footers."""
    summary = ds.summary
    if summary is not None and summary.used == len(ds.fragments) and not summary.stale:
        return summary.pf.metadata
    root = ds.discovery.root
    merged = None
    summary_groups_raw = None
    for frag in ds.fragments:
        if summary is not None and frag.row_groups is not None:
            if summary_groups_raw is None:
                summary_raw, _ = parse(serialize(summary.pf.metadata.raw), pt.FileMetaData)
                summary_groups_raw = summary_raw.row_groups or []
            raw = summary_raw
            groups = [summary_groups_raw[i] for i in frag.row_groups]
            assert ds.discovery.metadata_path is not None   # where the summary was read
            shown = ds.filesystem.display(ds.discovery.metadata_path)
        else:
            with ds.open_fragment(frag) as pf:
                raw = pf.metadata.raw
            rel = _relative(ds.filesystem, root, frag.path) or posixpath.basename(frag.path)
            groups = list(raw.row_groups or [])
            for rg in groups:
                for chunk in rg.columns:
                    chunk.file_path = rel
            shown = ds.filesystem.display(frag.path)
        rows = sum(rg.num_rows for rg in groups)
        if merged is None:
            merged = parse(serialize(raw), pt.FileMetaData)[0]
            merged.row_groups = list(groups)
            merged.num_rows = rows
            continue
        if _leaf_signature(raw) != _leaf_signature(merged):
            raise ParquetSchemaError(f"{shown!r} has other columns than the first file; "
                                     "its footers cannot be merged into one")
        merged.row_groups.extend(groups)
        merged.num_rows += rows
    if merged is None:
        raise FileNotFoundError("the dataset has no data files")
    return FileMetadata(merged)
