"""Decoded ``_metadata`` files kept across the datasets of one process, verified by content.

Planning a dataset whose ``_metadata`` is up to date lists the folder (the listing is
the truth, ``staleness.py``) and opens ``_metadata``: one pass of the C thrift decoder
over its bytes (every row group walked, ~1.5 ms for a 1,000-file summary of 460 kB),
then each row group's file picked out of them and the row groups' ends.  A later
plan of the same folder in the same process finds all of that here.

**When a kept decode is used.**  Each plan reads the ``_metadata`` bytes again
(one ``open``, ``fstat``, ``read``, ``close``: the page cache serves them) and compares
them with the kept bytes, byte for byte.  Only equal bytes reuse the decode; any other
content (rewritten in place within the file system's clock tick, replaced by a rename,
truncated, grown) is decoded anew and replaces the entry.  The file's size, times or
inode are never trusted for this: a rewrite of the same size within one tick keeps them.
The plan then uses those bytes it read (the opened summary reads from them, not from the
file), so what it decoded and what it reads are one snapshot.

**Nothing kept is handed out.**  An entry holds the bytes, a
:class:`~parquet_core.thrift.lazy_footer.FooterSnapshot` (spans and the top-level fields
re-encoded; each plan gets a new decoded footer from it, the row groups decoded lazily
into objects of that plan's own), the row groups of each file and the row groups' ends
(both immutable: a read-only mapping of tuples, a tuple; each fragment gets a list of
its own).  A caller that changes its plan's metadata, summary
groups or fragments changes nothing here (``tests/dataset/test_summary_cache.py``).

Bounded: entries are kept least recently used first out while their bytes (the file's
and the decoded footer's) add up to at most :data:`MAX_BYTES`; a larger file is not
kept (nor read whole here: the dataset opens it as before).  Local files only, plaintext
footers only, and not with ``strict=True`` (whose check reads the file itself).
Thread-safe: the map is changed under a lock, entries never change once made.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from parquet_core.file.filesystem import CountingSource, IOStats, LocalFileSystem
from parquet_core.file.source import BufferSource, RandomAccessSource, sibling_file
from parquet_core.thrift.lazy_footer import FooterSnapshot

__all__ = ["MAX_BYTES", "SummaryBytes", "CachedSummary", "frozen_groups", "SummaryCache", "CACHE", "read_summary_bytes"]

#: The bytes of the kept summaries at most (their files' sizes added up).
MAX_BYTES = 8 << 20


class SummaryBytes(BufferSource):
    """The bytes of a local summary file read whole, named by its path (errors of later lazy
    decodes name the file as a file source's do), its column chunks' ``file_path`` files
    opened as a :class:`~parquet_core.file.source.FileSource` opens them; with *stats*,
    those files' reads are counted there."""

    def __init__(self, data: bytes, path: str, stats: IOStats | None = None) -> None:
        super().__init__(data)
        self.path = path
        self._stats = stats

    def sibling(self, relative: str) -> RandomAccessSource:
        src = sibling_file(self.path, relative)
        return src if self._stats is None else CountingSource(src, self._stats)


@dataclass(frozen=True)
class CachedSummary:
    """One kept decode: never changed once made (but for the :attr:`by_path` cell), nothing
    of it handed out as is.

    The file's bytes are ``head + snapshot.buf + tail`` (what comes before the footer, the
    footer, its length and magic): the footer bytes are kept once, for the decoder and
    for the comparison (:meth:`same_bytes`)."""

    head: bytes                          #: the file's bytes before its footer ("PAR1")
    snapshot: FooterSnapshot             #: its footer (see :meth:`FooterSnapshot.fresh`)
    tail: bytes                          #: the footer's length and the magic
    footer_len: int
    #: file_path -> its row groups: read-only (a mapping proxy of tuples), so every plan
    #: served from this entry shares it (``Summary.match`` gives fragments lists of their own)
    groups: Mapping[str, tuple[int, ...]]
    ends: tuple[int | None, ...] | None  #: each row group's end of column data (None: not made)
    needs: Mapping[str, int] | None = None   #: each file's least size (read-only; None: not made)
    #: the two keyed by the listed path (``metadata_file.by_listed_path``; read-only), made
    #: with the entry (before it is kept), or when it first serves a plan if it was made
    #: without: a cell set once (threads racing to set it make equal values)
    by_path: list[Any] = field(default_factory=list)

    @property
    def size(self) -> int:
        """The file's size."""
        return len(self.head) + len(self.snapshot.buf) + len(self.tail)

    @property
    def cost(self) -> int:
        return self.size

    def same_bytes(self, data: bytes) -> bool:
        """Whether *data* (a whole file) is byte for byte the file this was decoded from:
        the size, then ``memcmp`` of the three parts in place (no copy)."""
        head, buf = self.head, self.snapshot.buf
        return len(data) == self.size and data.startswith(head) and data.endswith(self.tail) \
            and data.startswith(buf, len(head))


def frozen_groups(groups: Mapping[str, Sequence[int]]) -> Mapping[str, tuple[int, ...]]:
    """*groups* (``metadata_file.summary_groups``) as a read-only mapping of tuples."""
    return MappingProxyType(dict(zip(groups.keys(), map(tuple, groups.values()))))


class SummaryCache:
    """Path -> :class:`CachedSummary`, least recently used first out beyond *max_bytes*."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, CachedSummary] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        #: plans served from here, and summaries decoded (kept or not) since the last clear
        self.hits = 0
        self.misses = 0

    def get(self, path: str) -> CachedSummary | None:
        """What is kept for *path*, whatever the file holds now (compare before use)."""
        with self._lock:
            return self._entries.get(path)

    def lookup(self, path: str, data: bytes) -> CachedSummary | None:
        """The kept decode of *path* when its bytes equal *data* (else None: a miss)."""
        entry = self.get(path)
        # the comparison is the whole check: equal bytes decode to equal metadata
        if entry is None or not entry.same_bytes(data):
            with self._lock:
                self.misses += 1
            return None
        with self._lock:
            if self._entries.get(path) is entry:
                self._entries.move_to_end(path)
            self.hits += 1
        return entry

    def store(self, path: str, entry: CachedSummary) -> None:
        """Keep *entry* for *path* (replacing what was kept), dropping the least recently
        used entries beyond the bound; an entry larger than the bound is not kept."""
        cost = entry.cost
        with self._lock:
            old = self._entries.pop(path, None)
            if old is not None:
                self._bytes -= old.cost
            if cost > self.max_bytes:
                return
            self._entries[path] = entry
            self._bytes += cost
            while self._bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= dropped.cost

    def discard(self, path: str) -> None:
        with self._lock:
            old = self._entries.pop(path, None)
            if old is not None:
                self._bytes -= old.cost

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def kept_bytes(self) -> int:
        return self._bytes


#: The process's cache (``CACHE.clear()`` empties it; ``CACHE.max_bytes = 0`` turns it off).
CACHE = SummaryCache()


def read_summary_bytes(path: str, limit: int) -> tuple[bytes, int] | None:
    """The whole of the local file *path* and its modification time (ns), read in one go;
    None when it holds more than *limit* bytes (not read).

    Raises
    ------
    OSError
        As opening it does (``FileNotFoundError`` when it is gone).
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if st.st_size > limit:
            return None
        chunks: list[bytes] = []
        total = 0
        while True:     # to the end, whatever the size said (a file still being written)
            chunk = os.read(fd, max(st.st_size - total, 0) + 1 if not chunks else 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                return None
        return (chunks[0] if len(chunks) == 1 else b"".join(chunks)), st.st_mtime_ns
    finally:
        os.close(fd)


def usable(fs: Any, options: Any) -> bool:
    """Whether a summary may be served from :data:`CACHE` for this file system and these
    reading options (a local disk, no decryption, no strict check)."""
    return isinstance(fs, LocalFileSystem) and options.decryption is None and not options.strict \
        and CACHE.max_bytes > 0
