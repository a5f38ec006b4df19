"""Read fields of a file: (leaf, row group) chunk tasks, optionally on threads.

::

    read_fields(ctx, selected, groups, use_threads)
      one task per (field, leaf, row group)   ColumnChunkReader.pages -> column.reader -> ColumnData
      per field: table.leaves.concat_data, field_array   (flat or nested: table's decision)
    read_rows(ctx, rg, field, shape, mask, rows)
      unrepeated leaves with an offset index: only the pages holding a wanted row
      everything else: the whole chunk; then table.leaves.take_records

Threads: numpy, the decompressors and buffer copies release the GIL, so
chunk tasks overlap on a shared :class:`~concurrent.futures.ThreadPoolExecutor`.
Results do not depend on the order tasks finish in; errors are raised in
column order (the error a sequential read would raise first).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from itertools import chain, islice
from typing import Any, Callable, Iterator, Sequence, TypeVar

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ColumnData
from parquet_core.column.outputs import ARENA_COLUMN_MIN_BYTES, ARENA_MIN_BYTES, OutputArena, serving
from parquet_core.column.reader import PendingRange, read_column_chunks, read_page_range
from parquet_core.column.simple_chunks import read_simple_chunk
from parquet_core.compression import get_codec
from parquet_core.constants import CompressionCodec, Encoding, PageType, PhysicalType
from parquet_core.encryption.context import PLAINTEXT
from parquet_core.errors import (
    ParquetError,
    ParquetFormatError,
    add_context,
    out_of_memory,
    quoted,
)
from parquet_core.file.chunk_reader import ChunkSources, ColumnChunkReader
from parquet_core.file.columns import FileColumns, Selected
from parquet_core.file.indexes import FileIndexes
from parquet_core.file.pushdown import select_pages
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.page.limits import PageLimits
from parquet_core.page.model import Page
from parquet_core.page.reader import RawPage, decode_pages, few_plain_pages, walk_pages
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.nested import Shape
from parquet_core.schema.types import Field
from parquet_core.table.arrays import Array
from parquet_core.table.leaves import (
    concat_data,
    concat_levels,
    count_records,
    dictionary_leaf,
    field_array,
    take_records,
)

__all__ = ["ReadContext", "read_fields", "read_rows", "decode_pool", "run_tasks"]

T = TypeVar("T")

_POOL: ThreadPoolExecutor | None = None
_POOL_PID = -1
_POOL_LOCK = threading.Lock()
_WORKER = threading.local()     # .on: set on the pool's own threads


def _mark_worker() -> None:
    _WORKER.on = True


def decode_pool() -> ThreadPoolExecutor:
    """The shared pool decoding tasks run on (one worker per CPU).

    A forked child (Spark's Python workers, multiprocessing) inherits the
    pool object but not its threads: it gets a pool of its own.
    """
    global _POOL, _POOL_PID
    with _POOL_LOCK:
        if _POOL is None or _POOL_PID != os.getpid():
            _POOL = ThreadPoolExecutor(max(os.cpu_count() or 1, 1), thread_name_prefix="parquet_core-decode",
                                       initializer=_mark_worker)
            _POOL_PID = os.getpid()
        return _POOL


#: A task handed to the pool decodes at least about this many bytes (the chunks' uncompressed
#: sizes): smaller neighbouring tasks are run together as one.  Most of a small chunk's decode
#: holds the GIL (fixed Python costs per chunk and page), so tiny tasks on two threads mostly
#: wait for each other: a 500-column table of 160 kB chunks read slower with threads than without.
TASK_MIN_BYTES = 1 << 20


class _Part:
    """Task *k* of a batch of tasks run as one pool task (see :func:`run_tasks`)."""

    __slots__ = ("future", "k")

    def __init__(self, future: Future[list[tuple[bool, Any]]], k: int) -> None:
        self.future = future
        self.k = k


def run_tasks(tasks: Sequence[Callable[[], T]], use_threads: bool,
              sizes: Sequence[int] | None = None) -> list[Future[T] | T]:
    """Run *tasks*: submitted to the pool, or one after another (results then, in order).

    With *sizes* (bytes each task decodes), neighbouring tasks are batched so that each
    pool task decodes about :data:`TASK_MIN_BYTES` or more; when that leaves fewer than two
    pool tasks, everything runs on the calling thread.  Each task's outcome is kept apart:
    :func:`_result` gives a task's value or raises its own error.
    """
    if not use_threads or len(tasks) < 2:
        return [t() for t in tasks]
    batches = _batches(sizes) if sizes is not None else [[i] for i in range(len(tasks))]
    if len(batches) < 2:
        return [t() for t in tasks]
    pool = decode_pool()
    out: list[Any] = [None] * len(tasks)
    if sizes is not None:
        # the biggest first (longest-processing-time order): a big chunk last in column
        # order would otherwise start when the other tasks are done and run alone
        batches.sort(key=lambda b: -sum(sizes[i] for i in b))
    for batch in batches:
        if len(batch) == 1:
            out[batch[0]] = pool.submit(tasks[batch[0]])
            continue
        fut = pool.submit(_run_batch, tasks, batch)
        for k, i in enumerate(batch):
            out[i] = _Part(fut, k)
    return out


def _batches(sizes: Sequence[int]) -> list[list[int]]:
    """Consecutive task indexes grouped to about :data:`TASK_MIN_BYTES` each (a small rest
    joins the last group)."""
    groups: list[list[int]] = []
    cur: list[int] = []
    acc = 0
    for i, size in enumerate(sizes):
        cur.append(i)
        acc += size
        if acc >= TASK_MIN_BYTES:
            groups.append(cur)
            cur, acc = [], 0
    if cur:
        if groups and acc < TASK_MIN_BYTES // 2:
            groups[-1].extend(cur)
        else:
            groups.append(cur)
    return groups


def _run_batch(tasks: Sequence[Callable[[], Any]], batch: Sequence[int]) -> list[tuple[bool, Any]]:
    out: list[tuple[bool, Any]] = []
    for i in batch:
        try:
            out.append((True, tasks[i]()))
        except BaseException as exc:    # kept for this task's _result (as a Future keeps it)
            out.append((False, exc))
    return out


def _result(item: Any) -> Any:
    if isinstance(item, Future):
        return item.result()
    if isinstance(item, _Part):
        ok, value = item.future.result()[item.k]
        if not ok:
            raise value
        return value
    return item


@dataclass
class ReadContext:
    """What a read needs: metadata, columns by name, indexes, sources and options."""

    metadata: FileMetadata
    columns: FileColumns
    indexes: FileIndexes
    sources: ChunkSources
    verify_crc: bool
    kept_dictionaries: frozenset[str]     # fields read with their dictionaries
    requested_dictionaries: frozenset[str]   # of those, the ones read_dictionary named

    def keeps(self, field: Field, shape: Shape, leaf: int) -> bool:
        return field.name in self.kept_dictionaries and \
            dictionary_leaf(shape, self.metadata.schema.columns) == leaf

    def build(self, field: Field, shape: Shape, data: dict[int, ColumnData]) -> Array:
        return field_array(shape, data, self.metadata.schema.columns,
                           requested=field.name in self.requested_dictionaries, name=field.name)


def check_records(data: ColumnData, leaf_path: str, expected: int) -> None:
    """A chunk starts a record and holds as many records as its row group has rows."""
    if data.rep_levels is not None and data.num_levels and data.rep_levels[0] != 0:
        raise ParquetFormatError("column chunk does not start at a record boundary "
                                 f"(first repetition level {int(data.rep_levels[0])})")
    records = count_records(data)
    if records != expected:
        what = "rows" if data.rep_levels is None else "records"
        raise ParquetFormatError(f"column chunk holds {records} {what}, the row group says {expected}")


def decode_chunk(ctx: ReadContext, rg: int, leaf: int, keep: bool) -> ColumnData:
    """Read and decode one column chunk, checked against its row group."""
    return decode_chunks(ctx, [rg], leaf, keep)


#: Chunks of at most this many (uncompressed) bytes are tried by :func:`_light_chunk` first.
LIGHT_MAX_BYTES = 1 << 20


def _light_chunk(ctx: ReadContext, reader: ColumnChunkReader) -> tuple[ColumnData | None, Iterator[Page] | None]:
    """One small plaintext chunk of a flat column as small files hold it (a dictionary page
    and one data page), decoded by :func:`~parquet_core.column.simple_chunks.read_simple_chunk`
    with none of the general path's per-chunk set-up: ``(data, None)``.  Any other chunk
    gives ``(None, pages)``: once a third page shows the chunk is not of that shape, no more
    of it is read here, and *pages* carries the pages read so far followed by the rest, for
    the general path (no page is read or decompressed twice; a bad value in them is found
    and named there).  A chunk whose pages fail to read, or whose level count is wrong,
    gives ``(None, None)``: the general path reads it again and raises the error, named."""
    try:
        first, rest, num_rows = light_pages(ctx, reader, shared=True)   # only for a whole-chunk read
        if first is None:
            return None, rest
        data = read_simple_chunk(first, reader.descriptor)
    except (ParquetError, MemoryError):
        return None, None
    if data is None:
        return None, iter(first)      # another shape, or a value the general path names
    return (data, None) if data.num_levels == num_rows else (None, None)


def light_pages(ctx: ReadContext, reader: ColumnChunkReader,
                shared: bool = False) -> tuple[list[Page] | None, Iterator[Page] | None, int]:
    """The pages of a chunk that may be of the light shape (plaintext, unrepeated, small,
    at most two pages): ``(pages, None, rows of its row group)``; else ``(None, pages, rows)``
    with *pages* the pages read so far followed by the rest (a third page was read), or
    ``(None, None, rows)`` when no page was read.  Raises what reading the pages raises.
    *shared*: as :meth:`ColumnChunkReader.pages` (the caller holds every page to the end)."""
    num_rows = ctx.metadata.row_group(reader.row_group).num_rows
    if reader.crypto is not PLAINTEXT or reader.descriptor.max_repetition_level or \
            reader.chunk.total_uncompressed_size > LIGHT_MAX_BYTES:
        return None, None, num_rows
    reader.check_rows(num_rows)
    reader.check_decoded()
    pages = reader.pages(shared=shared)
    first = list(islice(pages, 3))
    if len(first) == 3:
        return None, chain(first, pages), num_rows
    return first, None, num_rows


def light_chunk_pages(ctx: ReadContext, rg: int, leaf: int, num_rows: int,
                      codecs: dict[int, tuple[Any, bool]]) -> tuple[list[Page] | None, ColumnDescriptor]:
    """:func:`light_pages` of one chunk with the set-up shared by the chunks of a file: no
    :class:`ColumnChunkReader` built, *num_rows* (the row group's) given, each codec's page
    decompressor made once per file (*codecs*, filled here).  The same checks in the same
    order; ``(pages, descriptor)``, *pages* None when the chunk is not of the light shape
    or holds more than two pages (or a page type the walk skips: the caller then asks
    :func:`light_pages`, which decides).  Raises what reading the pages raises."""
    chunk = ctx.indexes.chunk(rg, leaf)
    desc = chunk.descriptor
    size = chunk.total_uncompressed_size
    if chunk.decryptor is not None or desc.max_repetition_level or size > LIGHT_MAX_BYTES:
        return None, desc
    num_values = chunk.num_values
    if num_values != num_rows:      # ColumnChunkReader.check_rows
        raise ParquetFormatError(f"column chunk has {num_values} values for {num_rows} rows")
    limits = PageLimits.of(ctx.indexes.options, desc, size)
    limits.check_count(num_values, "column chunk")      # ColumnChunkReader.check_decoded
    source = ctx.sources.for_chunk(chunk)
    start, length = chunk.byte_range(source.size)
    codec_id = chunk.codec_id
    got = codecs.get(codec_id)
    if got is None:
        got = codecs[codec_id] = (get_codec(codec_id).page_decompressor(),
                                  codec_id == CompressionCodec.UNCOMPRESSED)
    buf = source.read_at(start, length)
    if type(buf) is not memoryview or buf.format != "B" or buf.ndim != 1:
        buf = memoryview(buf).cast("B")
    return few_plain_pages(buf, got[0], got[1], num_values, ctx.indexes.verify_crc, start, limits), desc


def decode_chunks(ctx: ReadContext, groups: Sequence[int], leaf: int, keep: bool,
                  outputs: OutputArena | None = None) -> ColumnData:
    """Read and decode one leaf's chunks of *groups* into one ColumnData (values copied
    together once), each chunk checked against its row group; with *outputs*, the values
    may land in a slice of that arena (:mod:`parquet_core.column.outputs`)."""
    if outputs is not None:
        with serving(outputs):
            return decode_chunks(ctx, groups, leaf, keep)
    readers = [ctx.indexes.reader(rg, leaf) for rg in groups]
    started: Iterator[Page] | None = None
    if len(groups) == 1 and not keep:
        light, started = _light_chunk(ctx, readers[0])
        if light is not None:
            return light
    desc = ctx.metadata.schema.column(leaf)
    where = [readers[0]]

    def chunks() -> Iterator[Iterator[Page]]:
        for reader in readers:
            where[0] = reader
            if started is not None:     # checked by the light path, which read its first pages
                yield started
                continue
            reader.check_rows(ctx.metadata.row_group(reader.row_group).num_rows)
            reader.check_decoded()
            yield reader.pages(shared=not keep)   # read_column_chunks holds every page to the end

    try:
        data, per_chunk = read_column_chunks(chunks(), desc, keep)
        start = 0
        for reader, n in zip(readers, per_chunk):
            where[0] = reader
            reps = None if data.rep_levels is None else data.rep_levels[start:start + n]
            check_records(ColumnData(None, None, reps, n), desc.dotted_path,   # levels are what is checked
                          ctx.metadata.row_group(reader.row_group).num_rows)
            start += n
    except ParquetError as exc:
        failed = getattr(exc, "chunk_index", None)   # read_column_chunks: a deferred decode
        add_context(exc, column=desc.dotted_path,
                    row_group=(where[0] if failed is None else readers[failed]).row_group)
        raise
    except MemoryError as exc:
        err = out_of_memory(exc, "decoding a column chunk")
        add_context(err, column=desc.dotted_path, row_group=where[0].row_group)
        raise err from exc
    return data


#: Reads of fewer decoded bytes than this (the chunks' uncompressed sizes) run on the calling
#: thread: a task must take a millisecond or so to pay for its hand-off to the pool and back
#: (a folder of small files read with threads was slower than without).
THREAD_MIN_BYTES = 2 << 20


#: ... and the pool is used only when the chunks average at least this many decoded bytes.
#: A chunk's fixed decoding cost (headers, page objects, run tables: a few hundred
#: microseconds of Python) holds the GIL; only the work proportional to its bytes
#: (decompression, numpy kernels) runs in parallel.  Many small chunks on two threads
#: mostly wait for each other: a 500-column table of 200 kB chunks read 1.4x slower
#: with the pool than on the calling thread.
THREAD_MIN_CHUNK_BYTES = 1 << 20


def worth_threads(ctx: ReadContext, selected: Sequence[Selected], groups: Sequence[int]) -> bool:
    """Whether the selected chunks of *groups* hold enough bytes, in large enough chunks,
    for the pool to pay (see :data:`THREAD_MIN_BYTES` and :data:`THREAD_MIN_CHUNK_BYTES`)."""
    total = 0
    chunks = 0
    chunk = ctx.indexes.chunk
    try:
        for _, shape in selected:
            for leaf in shape.leaves:
                for rg in groups:
                    total += chunk(rg, leaf).total_uncompressed_size
                    chunks += 1
    except ParquetError:
        return True     # a malformed chunk: the read reports it, naming the column
    return total >= THREAD_MIN_BYTES and total >= THREAD_MIN_CHUNK_BYTES * chunks


#: A whole read of several row groups decodes a leaf's chunks in one task (see
#: :func:`pool_plan`); it uses the pool when those tasks average
#: :data:`THREAD_MIN_CHUNK_BYTES` and the chunks at least this many bytes.  Each chunk's
#: fixed costs hold the GIL whichever task decodes it: a taxi-like table of 6,000,000 rows
#: in row groups of 1 Mi rows (chunks ~350 kB) read 1.16-1.20x faster on the pool, in row
#: groups of 128 Ki rows (chunks ~46 kB, the same bytes) 0.94-1.04x.
THREAD_MIN_GROUP_CHUNK_BYTES = 256 << 10


def pool_plan(ctx: ReadContext, selected: Sequence[Selected], groups: Sequence[int]
              ) -> tuple[bool, frozenset[int]]:
    """Whether a whole read of the selected leaves over *groups* uses the pool, and which
    leaves it decodes one task per row group (the others: one task for all of *groups*).

    The tasks: with one row group, one per chunk; with several, one per leaf over all of
    them (the one-thread path: codes narrowed across the row groups, values written
    straight into the read's arena), except a leaf holding more than a share of the read
    (its bytes over twice the pool's workers, as :func:`_split_big` counts), which would
    hold back the end of the read: that one gets a task per row group (page ranges of a
    big one follow, see :func:`_split_big`; lineitem's ``l_comment``, 46 % of the bytes
    of 300,000 rows in 128 Ki-row groups, as one task made the read 0.91-0.93x).  The pool is used when the read holds :data:`THREAD_MIN_BYTES`,
    its tasks average :data:`THREAD_MIN_CHUNK_BYTES` and, with several row groups, its
    chunks :data:`THREAD_MIN_GROUP_CHUNK_BYTES`, counting only chunks of encodings that do
    not hold the GIL for most of their decoding (:data:`_GIL_BOUND_ENCODINGS`).  Measured (wall, two cores, one thread
    vs the pool): one task per (leaf, row group) made the 6,000,000-row taxi table in
    1 Mi-row groups 0.79x (twice the CPU), one per leaf 1.16-1.20x; lineitem (1,000,000
    rows, 128 Ki-row groups) 0.97x and 1.06-1.07x."""
    chunk = ctx.indexes.chunk
    leaves: list[tuple[int, int]] = []
    try:
        for _, shape in selected:
            for leaf in shape.leaves:
                leaves.append((leaf, sum(chunk(rg, leaf).total_uncompressed_size for rg in groups)))
    except ParquetError:
        return True, frozenset()     # a malformed chunk: the read reports it, naming the column
    total = sum(size for _, size in leaves)
    if len(groups) < 2:
        apart: frozenset[int] = frozenset()
        tasks = chunks = len(leaves)
    else:
        share = total // (2 * max(os.cpu_count() or 1, 1))
        apart = frozenset(leaf for leaf, size in leaves if size > share)
        tasks = len(leaves) + len(apart) * (len(groups) - 1)
        chunks = len(leaves) * len(groups)

    def enough(size: int) -> bool:
        return (size >= THREAD_MIN_BYTES and size >= THREAD_MIN_CHUNK_BYTES * tasks
                and (len(groups) < 2 or size >= THREAD_MIN_GROUP_CHUNK_BYTES * chunks))
    if not enough(total):
        return False, apart
    # (asked only of a read big enough: a lazy footer decodes the encodings on first use)
    held = sum(size for leaf, size in leaves if _gil_bound(ctx, leaf, groups))
    return enough(total - held), apart


#: Data pages of these encodings hold the GIL for most of their decoding, so their bytes do
#: not count toward the pool's thresholds (:func:`pool_plan`).  DELTA_BINARY_PACKED takes a
#: Python step per block wherever block heads differ (56-62 % of a read GIL-held): the
#: timestamps table, two such chunks, read 0.92x of one thread on the pool at 6,000,000 rows
#: (quiet machine, own autogroup; 0.80-1.07x under load) and 1.03x at 1,000,000.
_GIL_BOUND_ENCODINGS = frozenset({int(Encoding.DELTA_BINARY_PACKED)})


def _gil_bound(ctx: ReadContext, leaf: int, groups: Sequence[int]) -> bool:
    """Whether any of *leaf*'s chunks over *groups* lists an encoding of
    :data:`_GIL_BOUND_ENCODINGS`."""
    chunk = ctx.indexes.chunk
    try:
        return any(not _GIL_BOUND_ENCODINGS.isdisjoint(chunk(rg, leaf).meta.encodings or ())
                   for rg in groups)
    except (ParquetError, TypeError):
        return False    # a malformed chunk: the read reports it, naming the column


#: Page ranges (one big chunk decoded by several pool tasks, see :class:`_Split`): a chunk is
#: split when it holds more than 2.5 task shares of the read (a share: the read's bytes over
#: twice the pool's workers, at least :data:`RANGE_MIN_BYTES`), into ranges of about a share:
#: only a chunk bigger than a worker's part of the read cannot be balanced by running the
#: biggest tasks first (:func:`run_tasks`); lineitem's ``l_comment``, half the read's bytes,
#: measured no better split (joining its ranges and decoding its dictionary once per range
#: cost what the balance gained).  Below this many bytes a range costs more than it runs in
#: parallel: the 0.9 MB timestamps file in ranges of 230 kB took 67 % more CPU for no gain.
RANGE_MIN_BYTES = 512 << 10

#: ... and a chunk of fixed-width values (not BYTE_ARRAY) is split only into ranges of at
#: least this many bytes (two at least): its ranges' values are copied together at the join, where the whole
#: chunk would have been decoded straight into the read's arena; the 1,000,000-row
#: timestamps file (DELTA_BINARY_PACKED, a 2.3 MB chunk in three ranges) read 0.85-0.89x of
#: one thread split, 1.00-1.05x with a task per chunk.
RANGE_MIN_FIXED_BYTES = 2 << 20


class _Split:
    """One chunk (row group *rg*, leaf *leaf*) decoded as page ranges: tasks *first* to
    *first + count - 1* of the read each decode a run of its data pages
    (:func:`_decode_range`); :meth:`join` puts them together in order (ranges of
    DELTA_BYTE_ARRAY pages write their bytes into one output then, see
    :func:`_join_ranges`).  Any error in a
    range, or in the chunk's checks after the join, sends the chunk back to the
    one-thread path (:func:`decode_chunks`), which raises the error a one-thread read
    raises (the first in page order, named as it names it) or gives the values."""

    __slots__ = ("ctx", "rg", "leaf", "first", "count")

    def __init__(self, ctx: ReadContext, rg: int, leaf: int, first: int, count: int) -> None:
        self.ctx, self.rg, self.leaf, self.first, self.count = ctx, rg, leaf, first, count

    def join(self, results: Sequence[Any]) -> ColumnData:
        ctx = self.ctx
        desc = ctx.metadata.schema.column(self.leaf)
        parts: list[ColumnData] = []
        failed = False
        for i in range(self.first, self.first + self.count):
            try:
                parts.append(_result(results[i]))
            except Exception:
                failed = True       # the other ranges still run to their end (settled here)
        if not failed:
            try:
                data = _join_ranges(parts, desc)
                check_records(data, desc.dotted_path, ctx.metadata.row_group(self.rg).num_rows)
                return data
            except Exception:
                pass
        return decode_chunks(ctx, [self.rg], self.leaf, False)


def _join_ranges(parts: list[Any], desc: Any) -> ColumnData:
    """The ranges of one chunk (:class:`ColumnData`, or :class:`PendingRange` whose bytes
    are not written yet) as one :class:`ColumnData`.  When every range is pending, their
    bytes and offsets are written straight into one output, each range into its slice,
    on the pool (no join copy); otherwise the pending ones resolve on their own and the
    parts are joined."""
    if not all(isinstance(p, PendingRange) for p in parts):
        return concat_data([p.finish() if isinstance(p, PendingRange) else p for p in parts], desc)
    nbytes = [p.nbytes for p in parts]
    counts = [len(p) for p in parts]
    data = np.empty(sum(nbytes), dtype=np.uint8)
    offsets = np.empty(sum(counts) + 1, dtype=np.int64)
    offsets[0] = 0
    jobs: list[Callable[[], None]] = []
    at = pos = 0
    for p, size, n in zip(parts, nbytes, counts):
        jobs.append(partial(_fill_range, p, data[at:at + size], offsets[pos + 1:pos + n + 1], at))
        at += size
        pos += n
    _run_pooled(jobs)
    defs, reps, levels = concat_levels(parts, desc)
    return ColumnData(ByteArrays(offsets, data), defs, reps, levels)


def _fill_range(part: PendingRange, out: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64],
                base: int) -> None:
    """One range's bytes into *out* (its slice of the chunk's data) and its end offsets,
    shifted by *base* (where the slice starts), into *offsets*."""
    values = part.resolve(out)
    np.add(values.offsets[1:], base, out=offsets)


def _run_pooled(jobs: Sequence[Callable[[], None]]) -> None:
    """Run *jobs* on the pool and wait for them all.  On a pool thread (a join runs there
    in a read of several fields), a job no worker has started yet is taken back and run
    here, so no pool thread ever waits on a queued job; the calling thread only waits
    (pool tasks never wait on it), leaving the cores to the workers.  On an error, every
    job has stopped when it is raised."""
    if len(jobs) < 2:
        for job in jobs:
            job()
        return
    pool = decode_pool()
    futures = [pool.submit(job) for job in jobs]
    on_pool = getattr(_WORKER, "on", False)
    try:
        for job, fut in zip(jobs, futures):
            if on_pool and fut.cancel():
                job()
            else:
                fut.result()
    except BaseException:
        for fut in futures:
            fut.cancel()
        wait(futures)
        raise


def page_ranges(ctx: ReadContext, rg: int, leaf: int, target: int
                ) -> list[Callable[[], ColumnData | PendingRange]] | None:
    """Tasks decoding the data pages of one chunk in ranges of about *target* uncompressed
    bytes (at least two), or None when the chunk is not split: encrypted, fewer than two
    ranges, a page other than a data page after a leading dictionary page, page values
    that do not add up to the chunk's, or any error (the one-thread path reads the chunk
    and raises it, named).  The headers are walked here, on the calling thread; every
    range decodes the chunk's dictionary page (if any) before its data pages."""
    try:
        reader = ctx.indexes.reader(rg, leaf)
        chunk = reader.chunk
        if reader.crypto is not PLAINTEXT:
            return None
        reader.check_rows(ctx.metadata.row_group(rg).num_rows)
        reader.check_decoded()
        start, length = reader.byte_range
        buf = reader.source.read_at(start, length)
        num_values = chunk.num_values
        first: list[RawPage] = []
        ranges: list[list[RawPage]] = []
        cur: list[RawPage] = []
        acc = seen = 0
        for raw in walk_pages(buf, length, base_offset=start, statistics=False, limits=reader.limits):
            header = raw[0]
            kind = header.type
            if kind == PageType.DICTIONARY_PAGE and not first and not ranges and not cur:
                first.append(raw)
                continue
            if kind == PageType.DATA_PAGE:
                n = header.data_page_header.num_values
            elif kind == PageType.DATA_PAGE_V2:
                n = header.data_page_header_v2.num_values
            else:
                return None
            if n is None or n < 0:
                return None
            if acc >= target:
                ranges.append(cur)
                cur, acc = [], 0
            cur.append(raw)
            acc += header.uncompressed_page_size
            seen += n
            if seen >= num_values:
                break
        if seen != num_values or not ranges:
            return None
        if acc < target // 2:
            ranges[-1].extend(cur)     # a small rest joins the last range
        else:
            ranges.append(cur)
        if len(ranges) < 2:
            return None
        desc = ctx.metadata.schema.column(leaf)
        codec, crc, limits = chunk.codec_id, reader.verify_crc, reader.limits
    except Exception:
        return None
    # each range decodes the dictionary page itself: on this thread it would hold back every
    # task of the read (a 1 MB dictionary of strings: ~10 ms with the pool idle)
    return [partial(_decode_range, first + r, desc, codec, crc, start, limits) for r in ranges]


def _decode_range(raw: list[RawPage], desc: Any, codec: int, crc: bool, start: int,
                  limits: Any) -> ColumnData | PendingRange:
    pages = decode_pages(raw, codec, None, verify_crc=crc, base_offset=start, limits=limits)
    # DELTA_BYTE_ARRAY values wait for the join to say where their bytes go
    return read_page_range(pages, desc, defer=True)


def _task_bytes(ctx: ReadContext, groups: Sequence[int], leaf: int) -> int:
    """The uncompressed bytes of one leaf's chunks in *groups* (a malformed chunk counts as a
    whole task: the read reports it, naming the column)."""
    try:
        return sum(ctx.indexes.chunk(rg, leaf).total_uncompressed_size for rg in groups)
    except ParquetError:
        return TASK_MIN_BYTES


#: Physical types whose decoded values are a 1-D array of this many bytes per value.
_VALUE_BYTES = {int(PhysicalType.INT32): 4, int(PhysicalType.INT64): 8,
                int(PhysicalType.FLOAT): 4, int(PhysicalType.DOUBLE): 8}

#: ``ColumnMetaData.encodings`` of a dictionary-encoded chunk.
_DICTIONARY_ENCODINGS = (int(Encoding.PLAIN_DICTIONARY), int(Encoding.RLE_DICTIONARY))
#: ``PageEncodingStats.page_type`` of data pages.
_DATA_PAGES = (int(PageType.DATA_PAGE), int(PageType.DATA_PAGE_V2))


def plan_outputs(ctx: ReadContext, selected: Sequence[Selected], groups: Sequence[int],
                 max_chunk_bytes: int | None = None) -> OutputArena | None:
    """One :class:`OutputArena` for the selected leaves of *groups* whose values will be one
    fixed-width array of a value per row: unrepeated, INT32/INT64/FLOAT/DOUBLE or
    FIXED_LEN_BYTE_ARRAY (rows of its length: decimals, as TPC-H money columns), every chunk
    dictionary-encoded (its encoding statistics, when written, list no other data pages)
    and without nulls (no definition levels, or statistics counting none), read whole (no
    kept dictionary), each of 1 to 4 MiB (larger arrays get huge pages of their own; the
    gain was measured on arrays of that size, not on smaller ones); None
    when those hold under
    :data:`~parquet_core.column.outputs.ARENA_MIN_BYTES` (or the metadata is malformed:
    the read reports it).  With *max_chunk_bytes*, only leaves whose chunks hold at most
    that many bytes (uncompressed, pages and headers) are planned: a batched read decodes
    only those as one piece of the chunk's length."""
    rows = 0
    sizes: list[int] = []
    descs = ctx.metadata.schema.columns
    chunk = ctx.indexes.chunk
    try:
        for rg in groups:
            rows += ctx.metadata.row_group(rg).num_rows
        for field, shape in selected:
            for leaf in shape.leaves:
                desc = descs[leaf]
                size = _VALUE_BYTES.get(desc.physical_type)
                if desc.physical_type == PhysicalType.FIXED_LEN_BYTE_ARRAY and (desc.type_length or 0) > 0:
                    size = desc.type_length     # rows of that many bytes (decimals, UUIDs, float16)
                if size is None or desc.max_repetition_level or ctx.keeps(field, shape, leaf):
                    continue
                if not ARENA_COLUMN_MIN_BYTES <= rows * size < ARENA_MIN_BYTES:
                    continue        # small enough for warm heap memory, or large enough
                                    # for huge pages of its own
                for rg in groups:
                    if max_chunk_bytes is not None and chunk(rg, leaf).total_uncompressed_size > max_chunk_bytes:
                        break
                    meta = chunk(rg, leaf).meta
                    if not any(e in _DICTIONARY_ENCODINGS for e in meta.encodings or ()):
                        break
                    if meta.encoding_stats and any(
                            s.page_type in _DATA_PAGES and s.encoding not in _DICTIONARY_ENCODINGS
                            for s in meta.encoding_stats):
                        break       # some pages are not dictionary-encoded (a fallback)
                    if desc.max_definition_level and (meta.statistics is None or meta.statistics.null_count != 0):
                        break
                else:
                    sizes.append(size)
    except ParquetError:
        return None
    if rows <= 0 or rows * sum(sizes) < ARENA_MIN_BYTES:
        return None
    return OutputArena(rows, sizes)


def read_fields(ctx: ReadContext, selected: Sequence[Selected], groups: Sequence[int],
                use_threads: bool) -> list[Array]:
    """The selected fields over *groups* (at least one), one array each."""
    descs = ctx.metadata.schema.columns
    apart: frozenset[int] = frozenset()     # leaves decoded in a task per row group
    if use_threads:
        use_threads, apart = pool_plan(ctx, selected, groups)
    plan: list[tuple[Field, Shape, list[tuple[int, Any]]]] = []
    tasks: list[Callable[[], ColumnData | PendingRange]] = []
    sizes: list[int] = []
    splittable: list[int | None] = []      # per task, with threads: its row group, if it may be split
    # one task per leaf over all the row groups (pool_plan: a big leaf of several row groups
    # gets one per row group), small neighbours batched (run_tasks); in order: one per leaf,
    # its values copied together once
    per_group = use_threads and len(groups) > 1 and bool(apart)
    # the leaves' values in one allocation; a leaf whose row groups are decoded apart (on the
    # pool, each in a task of its own: their pieces are joined) or a chunk decoded as page
    # ranges (_split_big) leaves its planned slice unused, never written
    outputs = None if per_group and len(apart) == sum(len(s.leaves) for _, s in selected) \
        else plan_outputs(ctx, selected, groups)
    for field, shape in selected:
        slots: list[tuple[int, Any]] = []
        for leaf in shape.leaves:
            keep = ctx.keeps(field, shape, leaf)
            apart_leaf = per_group and leaf in apart
            for part in ([[rg] for rg in groups] if apart_leaf else [list(groups)]):
                slots.append((leaf, len(tasks)))
                tasks.append(partial(decode_chunks, ctx, part, leaf, keep, None if apart_leaf else outputs))
                if use_threads:
                    sizes.append(_task_bytes(ctx, part, leaf))
                    # a chunk of one row group whose dictionary is not kept may be split
                    splittable.append(part[0] if len(part) == 1 and not keep else None)
        plan.append((field, shape, slots))
    if use_threads:
        _split_big(ctx, plan, tasks, sizes, splittable)
    results = run_tasks(tasks, use_threads, sizes if use_threads else None)
    # the fields are built on the pool only when the decodes ran there and a field is large
    use_threads = use_threads and any(isinstance(r, (Future, _Part)) for r in results) and \
        sum(sizes) >= TASK_MIN_BYTES * max(len(selected), 1)
    builds: list[Future[Array] | Array] = []

    def gather(field: Field, shape: Shape, slots: list[tuple[int, Any]]) -> dict[int, ColumnData]:
        parts: dict[int, list[ColumnData]] = {}
        for leaf, i in slots:
            parts.setdefault(leaf, []).append(i.join(results) if isinstance(i, _Split) else _result(results[i]))
        return {leaf: concat_data(p, descs[leaf]) for leaf, p in parts.items()}

    where = _groups_text(groups)

    def build(field: Field, shape: Shape, data: dict[int, ColumnData]) -> Array:
        try:
            return ctx.build(field, shape, data)
        except MemoryError as exc:
            raise _assembly_error(exc, field, where) from exc

    def gather_build(field: Field, shape: Shape, slots: list[tuple[int, Any]]) -> Array:
        try:
            data = gather(field, shape, slots)
        except MemoryError as exc:
            raise _assembly_error(exc, field, where) from exc
        return build(field, shape, data)

    pool = decode_pool() if use_threads and len(selected) > 1 else None
    try:
        for field, shape, slots in plan:
            if pool is not None and any(isinstance(i, _Split) for _, i in slots):
                # a chunk read as page ranges is joined on the pool too (its ranges were
                # submitted before this task: they are running or done, never queued behind it)
                builds.append(pool.submit(gather_build, field, shape, slots))
                continue
            try:
                try:
                    data = gather(field, shape, slots)
                except MemoryError as exc:
                    raise _assembly_error(exc, field, where) from exc
            except BaseException:
                for b in builds:      # an earlier field's error comes first, as in a sequential read
                    _result(b)
                raise
            if pool is not None:
                builds.append(pool.submit(build, field, shape, data))
            else:
                builds.append(build(field, shape, data))
        return [_result(b) for b in builds]
    except BaseException:
        _settle(results)
        _settle(builds)
        raise


def _split_big(ctx: ReadContext, plan: list[tuple[Field, Shape, list[tuple[int, Any]]]],
               tasks: list[Callable[[], ColumnData | PendingRange]], sizes: list[int],
               splittable: Sequence[int | None]) -> None:
    """Choose the read's granularity: a one-chunk task (*splittable*: its row group, None
    for a task of several row groups or a kept dictionary) holding more than 2.5 shares of
    the read (see :data:`RANGE_MIN_BYTES`) is replaced by tasks decoding page ranges of its
    chunk (:func:`page_ranges`), appended to *tasks* and *sizes*; its slot in *plan*
    becomes a :class:`_Split`.  A read of many similar chunks keeps one task per chunk."""
    total = sum(sizes)
    share = max(RANGE_MIN_BYTES, total // (2 * max(os.cpu_count() or 1, 1)))
    if total < 3 * share:
        return
    for _, _, slots in plan:
        for k, (leaf, i) in enumerate(slots):
            rg = splittable[i]
            if rg is None or sizes[i] <= share * 5 // 2:
                continue        # several row groups, the dictionary kept, or small
            target = share
            if ctx.metadata.schema.column(leaf).physical_type != PhysicalType.BYTE_ARRAY:
                target = max(share, RANGE_MIN_FIXED_BYTES)
                if sizes[i] < 2 * target:
                    continue        # not two such ranges
            ranges = page_ranges(ctx, rg, leaf, target)
            if ranges is None:
                continue
            first = len(tasks)
            tasks.extend(ranges)
            # each range a pool task of its own: counted as at least TASK_MIN_BYTES, so that
            # run_tasks does not batch neighbouring ranges back together (ranges of 512 kB
            # went two to a pool task: 16 workers decoded a 3.8 MB chunk's 5 ranges as 3)
            sizes.extend([max(TASK_MIN_BYTES, sizes[i] // len(ranges))] * len(ranges))
            sizes[i] = 0
            tasks[i] = _nothing
            slots[k] = (leaf, _Split(ctx, rg, leaf, first, len(ranges)))


def _nothing() -> ColumnData:
    """A task that was split into page ranges (its slot is a :class:`_Split`): never joined."""
    return ColumnData(None, None, None, 0)


def _groups_text(groups: Sequence[int]) -> str:
    groups = list(groups)
    if len(groups) == 1:
        return f"row group {groups[0]}"
    return f"row groups {groups[0]}..{groups[-1]}" if groups == list(range(groups[0], groups[-1] + 1)) \
        else f"row groups {', '.join(map(str, groups))}"


def _assembly_error(exc: MemoryError, field: Field, where: str) -> ParquetError:
    """A MemoryError while a field's pieces are joined or its array built, as a
    ParquetResourceError naming the field and its row groups (no page: every page of
    them is decoded by then).  (A plain ``except`` at the call: a context manager costs
    a few microseconds per field, which a 500-column read pays 1000 times.)"""
    err = out_of_memory(exc, "assembling a column")
    add_context(err, column=field.name, how=f", {where} (joining the decoded pages)")
    return err


def _settle(items: Sequence[object]) -> None:
    """Cancel the tasks not started and wait for the running ones (before the file is closed)."""
    futures = list({id(f): f for f in (i.future if isinstance(i, _Part) else i for i in items)
                    if isinstance(f, Future)}.values())
    for f in futures:
        f.cancel()
    wait(futures)


def read_rows(ctx: ReadContext, rg: int, field: Field, shape: Shape,
              mask: npt.NDArray[np.bool_] | None, rows: npt.NDArray[np.int64] | None) -> Array:
    """One field of one row group, only at *rows* (all rows when None; else the increasing
    positions where *mask* is set, ``np.flatnonzero(mask)``).

    An unrepeated leaf with an offset index is read page by page: its
    dictionary page and the data pages holding a wanted row; other leaves
    are read whole; the wanted records are then gathered leaf by leaf.
    """
    if rows is None:
        return read_fields(ctx, [(field, shape)], [rg], False)[0]
    data: dict[int, ColumnData] = {}
    for leaf in shape.leaves:
        desc = ctx.metadata.schema.column(leaf)
        keep = ctx.keeps(field, shape, leaf)
        oi = ctx.indexes.offset_index(rg, leaf) if desc.max_repetition_level == 0 else None
        if oi is None:
            data[leaf] = take_records(decode_chunk(ctx, rg, leaf, keep), desc, rows)
            continue
        assert mask is not None
        num_rows = ctx.metadata.row_group(rg).num_rows
        if num_rows > 0 and oi.num_pages == 0:
            # nothing would be read, and the rows could not be located in the pages (found by fuzzing)
            raise ParquetFormatError(f"the offset index of column {quoted(desc.dotted_path, bare=True)}, row group {rg} lists no "
                                     f"data pages, but the row group has {num_rows} rows")
        keep_pages = select_pages(oi, num_rows, mask)
        reader = ctx.indexes.reader(rg, leaf)
        try:
            pages = reader.pages_at(oi, keep_pages, num_rows, keep)
            part, _ = read_column_chunks([pages], desc, keep)
            if part.num_levels == rows.size and _whole_pages(oi.first_rows, keep_pages, num_rows, rows):
                # every row of the kept pages (each page was checked to hold its index's rows, and
                # the rows are distinct, increasing rows of those pages): positions 0..n-1, no gather
                data[leaf] = part
            else:
                data[leaf] = take_records(part, desc, _positions(oi.first_rows, keep_pages, num_rows, rows))
        except ParquetError as exc:
            add_context(exc, column=desc.dotted_path, row_group=rg, how=" (pages read through the offset index)")
            raise
    return ctx.build(field, shape, data)


def _whole_pages(starts: npt.NDArray[np.int64], keep_pages: list[int], num_rows: int,
                 rows: npt.NDArray[np.int64]) -> bool:
    """Whether *rows* (as many as the kept pages hold) run from the first kept page's first
    row to the last kept page's last row."""
    if not keep_pages or not rows.size:
        return not rows.size
    last = keep_pages[-1]
    end = int(starts[last + 1]) if last + 1 < len(starts) else num_rows
    return int(rows[0]) == int(starts[keep_pages[0]]) and int(rows[-1]) == end - 1


def _positions(starts: npt.NDArray[np.int64], keep_pages: list[int], num_rows: int,
               rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Where *rows* are among the decoded values of the kept pages (*starts*: every page's
    first row): the kept pages' row ranges one after another, so a row's position is its
    offset in its page plus the rows of the kept pages before it."""
    if len(keep_pages) == 1:      # the common case of a selective read: one page
        return rows - starts[keep_pages[0]]
    first = starts[keep_pages]
    sizes = np.append(starts[1:], num_rows)[keep_pages] - first
    before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    page = np.searchsorted(first, rows, side="right") - 1
    return rows - first[page] + before[page]
