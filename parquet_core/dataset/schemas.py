"""Each file's schema for planning a dataset: only the start of its footer is decoded.

Planning a dataset without ``_metadata`` needs every file's schema (the dataset's schema
is unified over all of them, see ``unify.py``), not its row groups or statistics.  For
each file this reads the tail (one positional read on a local disk, one ranged request
on a store), checks the magic and the footer length, and then:

* when the footer starts with the very bytes (``version`` and ``schema``) of a footer
  already seen, the file has that footer's schema: nothing is decoded (the files of a
  dataset mostly share one schema, byte for byte);
* otherwise the footer is walked up to the end of its schema (``lazy_footer.schema_prefix``),
  that prefix alone is decoded, and the schema built from it is remembered by its bytes.

Anything unusual (an encrypted ``PARE`` footer, ``strict=``, a decryption key, a footer
whose layout or bytes the prefix decode does not take, a short read) goes the general way:
the whole footer read and decoded as opening the file does, with the same errors.  The
rest of a footer is not checked here; a file whose footer is damaged past its schema
fails when it is read, naming the file, as in pyarrow (which plans from the first file's
footer only).  Reading checks each file's schema against the planned one again: a type
that cannot be read as the planned one, or a column the plan lacks (a file replaced
since, or a malformed footer repeating its schema field after the prefix, which the
whole-footer decode takes), raises ``ParquetSchemaError`` naming the file.
"""

from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING, Callable, Sequence

from parquet_core.constants import FOOTER_SIZE_BYTES, MAGIC
from parquet_core.errors import ParquetError, note_file
from parquet_core.file.filesystem import FileSystem, IOStats, LocalFileSystem
from parquet_core.schema.types import Schema

if TYPE_CHECKING:
    from parquet_core.dataset.dataset import Fragment

__all__ = ["FooterSchemas", "TAIL_READ_SIZE", "LOCAL_TAIL_READ_SIZE", "FOOTER_HEAD_READ_SIZE"]

#: Bytes read from the end of a file in a store to find its footer (as when a file is opened:
#: one request holds most footers).
TAIL_READ_SIZE = 64 * 1024
#: The same on a local disk, where a second read costs a system call, not a round trip:
#: planning needs the footer's start, and most footers are smaller than this.
LOCAL_TAIL_READ_SIZE = 16 * 1024
#: The start of a footer longer than the tail read, where its schema is (a schema longer
#: than this, tens of thousands of columns, goes the general way).
FOOTER_HEAD_READ_SIZE = 1 << 20
#: Footer prefixes tried with ``startswith`` before a footer is walked; more distinct
#: schemas than this are still found (by their bytes) after the walk.
_PREFIXES_TRIED = 8


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)


class _General(Exception):
    """This file's footer is read the general way (whole footer, the reader's errors)."""


class FooterSchemas:
    """The schema of each file of one dataset, built once per distinct schema.

    *general* reads one file's schema the general way (the whole footer decoded); it is
    also what a file the fast path declines gets.  Thread-safe enough for ``_map``'s pool:
    the caches only grow, and a race builds one schema twice.
    """

    def __init__(self, fs: FileSystem, io_stats: IOStats, general: Callable[[Fragment], Schema]) -> None:
        self._fs = fs
        self._stats = io_stats
        self._general = general
        self._local = isinstance(fs, LocalFileSystem)
        self._recent: list[tuple[bytes, Schema]] = []     # (footer prefix, schema), newest first
        self._by_prefix: dict[bytes, Schema] = {}
        #: Files whose schema came from the footer's first bytes (counters for tests).
        self.prefix_hits = 0
        self.prefix_decodes = 0
        self.general_reads = 0

    def schema(self, frag: Fragment) -> Schema:
        try:
            buf, start, end, size = self._local_tail(frag) if self._local else self._store_tail(frag)
            return self._from_footer(buf, start, end, size)
        except _General:
            return self._general_way(frag)

    def _general_way(self, frag: Fragment) -> Schema:
        self.general_reads += 1
        return self._general(frag)

    def local_schemas(self, frags: Sequence[Fragment]) -> list[Schema]:
        """:meth:`schema` of each of *frags* (files on the local disk), in one loop.

        Most files of a dataset are small and share one schema: each costs an ``open``, one
        ``pread`` of its tail (the listing's size says where it is), a ``close`` and a
        ``startswith``; per file in a Python loop, the calls around those were half of the
        cost.  A file that fails any check or system call goes the general way, as in
        :meth:`schema` (the same checks, the reader's errors).
        """
        out: list[Schema] = []
        add = out.append
        recent = self._recent
        flags = _READ_FLAGS
        tail_size = LOCAL_TAIL_READ_SIZE
        least = len(MAGIC) * 2 + FOOTER_SIZE_BYTES
        open_, pread, close = os.open, os.pread, os.close
        requests = fetched = 0
        try:
            for frag in frags:
                size = frag.size
                if not isinstance(size, int) or size < least:
                    add(self.schema(frag))
                    continue
                n = min(size, tail_size)
                try:
                    fd = open_(frag.path, flags)
                except OSError:
                    add(self._general_way(frag))
                    continue
                try:
                    tail = pread(fd, n, size - n)
                    requests += 1
                    fetched += n
                    start = _footer_start(size, size - n, tail)
                    begin, end = start - (size - n), n - FOOTER_SIZE_BYTES
                    if _FAILED < start < 0:     # a footer longer than the tail: its head
                        start = -1 - start
                        k = min(size - FOOTER_SIZE_BYTES - start, FOOTER_HEAD_READ_SIZE)
                        tail = pread(fd, k, start)
                        requests += 1
                        fetched += k
                        begin, end = 0, k
                        if len(tail) != k:
                            start = _FAILED
                except OSError:
                    start = _FAILED
                finally:
                    close(fd)
                if start == _FAILED:
                    add(self._general_way(frag))
                    continue
                if recent and tail.startswith(recent[0][0], begin, end):
                    self.prefix_hits += 1
                    add(recent[0][1])
                    continue
                try:
                    add(self._from_footer(tail, begin, end, size))
                except _General:
                    add(self._general_way(frag))
        finally:
            self._stats.add(fetched, requests)
        return out

    # -- the tail ---------------------------------------------------------------------------------
    def _store_tail(self, frag: Fragment) -> tuple[bytes, int, int, int]:
        """``(buf, start, end, file size)``: ``buf[start:end]`` is the footer, or its first
        bytes when it is long (see :func:`_footer_bytes`); one ranged request for most files."""
        src = self._fs.open_source(frag.path, frag.size, self._stats)
        try:
            return _footer_bytes(src.size, lambda off, n: bytes(src.read_at(off, n)), TAIL_READ_SIZE)
        except (ParquetError, OSError) as exc:
            raise _General from exc
        finally:
            src.close()

    def _local_tail(self, frag: Fragment) -> tuple[bytes, int, int, int]:
        """As :meth:`_store_tail`, with an open, one positional read and a close for most files.
        The size is the listing's: a file that changed since fails the checks (and goes the
        general way) or is caught by the reader."""
        try:
            fd = os.open(frag.path, _READ_FLAGS)
        except OSError as exc:
            raise _General from exc
        try:
            size = frag.size if isinstance(frag.size, int) else os.fstat(fd).st_size
            stats = self._stats

            def read(off: int, n: int) -> bytes:
                stats.add(n)
                return os.pread(fd, n, off)

            return _footer_bytes(size, read, LOCAL_TAIL_READ_SIZE)
        except OSError as exc:
            raise _General from exc
        finally:
            os.close(fd)

    # -- the schema -------------------------------------------------------------------------------
    def _from_footer(self, buf: bytes, start: int, end: int, size: int) -> Schema:
        """The schema of the footer whose first bytes are ``buf[start:end]``."""
        for prefix, schema in tuple(self._recent):     # a snapshot: other threads add to it
            if buf.startswith(prefix, start, end):
                self.prefix_hits += 1
                return schema
        from parquet_core.thrift.lazy_footer import schema_prefix

        footer = buf[start:end]
        used = schema_prefix(footer)    # None also when the bytes end inside the schema
        if used is None:
            raise _General
        key = footer[:used]
        found = self._by_prefix.get(key)
        if found is None:
            found = self._decode(footer, used, size)
            self._by_prefix[key] = found
        self._recent.insert(0, (key, found))
        del self._recent[_PREFIXES_TRIED:]
        return found

    def _decode(self, footer: bytes, used: int, size: int) -> Schema:
        from parquet_core.file.columns import FileColumns
        from parquet_core.metadata.wrappers import FileMetadata
        from parquet_core.thrift.lazy_footer import parse_schema_prefix

        try:
            raw = parse_schema_prefix(footer, used)
            if raw.num_rows is None:
                raw.num_rows = 0    # not in the prefix: the wrapper checks it, planning does not use it
            schema = FileColumns(FileMetadata(raw, len(footer), None, size)).schema
        except ParquetError as exc:
            raise _General from exc
        self.prefix_decodes += 1
        return schema


def general_schema(fs: FileSystem, io_stats: IOStats) -> Callable[[Fragment], Schema]:
    """One file's schema from its whole footer (read as opening the file reads it), the
    schema built once per distinct set of schema elements; errors name the file."""
    memo: dict[tuple[str, ...], Schema] = {}

    def read(frag: Fragment) -> Schema:
        from parquet_core.file.columns import FileColumns
        from parquet_core.file.footer import read_footer
        from parquet_core.metadata.wrappers import FileMetadata

        src = fs.open_source(frag.path, frag.size, io_stats)
        try:
            raw, footer_len, decryptor = read_footer(src)
            # the schema is a function of the elements alone (their thrift repr shows every field)
            key = None if decryptor is not None or raw.schema is None else tuple(map(repr, raw.schema))
            schema = None if key is None else memo.get(key)
            if schema is None:
                schema = FileColumns(FileMetadata(raw, footer_len, decryptor, src.size)).schema
                if key is not None:
                    memo[key] = schema
            return schema
        except BaseException as exc:
            note_file(exc, fs.display(frag.path), "reading")
            raise
        finally:
            src.close()

    return read


def _footer_bytes(size: int, read: Callable[[int, int], bytes], tail_size: int) -> tuple[bytes, int, int, int]:
    """``(buf, start, end, size)``, ``buf[start:end]`` the footer, after the checks
    ``file.footer.read_footer`` makes before decoding, on the last *tail_size* bytes (any
    failure: the general way, which raises the reader's error).  A footer longer than the
    tail (many row groups) is not read whole: only its first :data:`FOOTER_HEAD_READ_SIZE`
    bytes, where the schema is.  The leading magic is checked when the tail holds it, not
    read on its own (as for a store in ``read_footer``): the reader checks it when the
    file is opened."""
    if size < len(MAGIC) * 2 + FOOTER_SIZE_BYTES:
        raise _General
    tail_start = size - min(size, tail_size)
    tail = read(tail_start, size - tail_start)
    start = _footer_start(size, tail_start, tail)
    if start == _FAILED:
        raise _General
    if start < 0:      # a footer longer than the tail: its start holds the schema
        start = -start - 1
        n = min(size - FOOTER_SIZE_BYTES - start, FOOTER_HEAD_READ_SIZE)
        head = read(start, n)
        if len(head) != n:
            raise _General
        return head, 0, n, size
    return tail, start - tail_start, len(tail) - FOOTER_SIZE_BYTES, size


_FAILED = -(1 << 62)


def _footer_start(size: int, tail_start: int, tail: bytes) -> int:
    """Where the footer starts in a file of *size* bytes whose bytes from *tail_start* on
    are *tail*, after the checks ``file.footer.read_footer`` makes before decoding (the
    trailing magic, a footer length that fits, the leading magic when the tail holds it).
    ``-1 - start`` when the footer starts before the tail; ``_FAILED`` when a check fails
    (a short read, not Parquet, an encrypted ``PARE`` footer)."""
    n = len(tail)
    if n != size - tail_start or n < FOOTER_SIZE_BYTES or tail[-4:] != MAGIC:
        return _FAILED
    (footer_len,) = struct.unpack_from("<I", tail, n - FOOTER_SIZE_BYTES)
    if footer_len == 0 or footer_len > size - FOOTER_SIZE_BYTES - len(MAGIC):
        return _FAILED
    if tail_start == 0 and tail[:len(MAGIC)] != MAGIC:
        return _FAILED
    start = size - FOOTER_SIZE_BYTES - footer_len
    return start if start >= tail_start else -1 - start
