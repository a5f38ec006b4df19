"""Streaming batches: decode page by page, yield a batch as soon as it is full.

::

    iter_batches(ctx, selected, groups, batch_size, use_threads)
      one _LeafStream per leaf:  row group after row group, ColumnChunkReader.iter_pages_lazily
                                 -> column.reader.iter_chunk_pieces (one ColumnData per run of
                                    pages holding at least batch_size levels, decoded together)
      per batch: each leaf buffers pieces until it holds batch_size complete records,
                 table.leaves.split_records cuts them off; table.leaves.field_array builds the fields
                 (a flat field without dictionaries: its piece's Array is built once and each
                 batch within the piece is a slice of it)
      a chunk decoded as one piece (small pages joined, no nulls, fixed-width dictionary
                 values) lands in its slice of the row group's column.outputs arena, as a
                 whole read's columns do (no fresh pages per piece)
      threads (when worth_ahead): each leaf decodes one piece (of at least AHEAD_MIN_LEVELS
                 levels) ahead on the pool (_Ahead): its first piece is asked for when the
                 read starts (the biggest chunks first), the next one when the calling thread
                 takes a piece; a piece no worker has started is decoded by the calling
                 thread instead of waited for

A batch costs the pages that hold its rows (plus the read-ahead window of
:mod:`parquet_core.file.chunk_reader`), so the first batch of a huge row
group reads the pages of about one batch per column, and memory stays
bounded by the batch plus a page, and with threads one more piece per leaf
(small pages, under 16 KiB, are decoded
several at a time: up to 128 KiB of them and 4 MiB of decoded fixed-width
values, see :func:`parquet_core.column.reader.iter_chunk_pieces`).  What is held, per leaf: the decoded page
(or run of pages) the batch is cut from, whose values are views of the
decompressed page where the encoding allows (PLAIN fixed-width); for an
optional leaf also its value position per level (8 bytes a row); and the
batch.  An unrepeated leaf lets a page go as soon as its rows are taken
(only a batch spanning two pages is joined), so at a page boundary the page
ending, the next one and the batch are held; a repeated leaf joins the
records left over with the next pieces (a record may continue on the next
page), which copies those pieces once more.  A page is decoded whole: its
size is bounded by ``max_page_bytes`` and its decoded size by
``max_decoded_bytes`` (:mod:`parquet_core.page.limits`).  Batches run across row groups, as pyarrow's do.  A record of a
repeated leaf may continue on the next page: it is complete when the next
record starts or its chunk ends.
"""

from __future__ import annotations

from concurrent.futures import Future
from functools import partial
from typing import Any, Callable, Iterator, Sequence

from parquet_core.column.data import ColumnData
from parquet_core.column.outputs import OutputArena, served
from parquet_core.column.reader import PIECE_MAX_HELD, iter_chunk_pieces
from parquet_core.errors import (
    ParquetError,
    ParquetFormatError,
    add_context,
    add_page_context,
    out_of_memory,
    quoted,
)
from parquet_core.file import scan
from parquet_core.file.columns import Selected
from parquet_core.file.scan import ReadContext, _settle, plan_outputs
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.leaves import concat_data, count_records, record_starts, slice_data, value_positions

__all__ = ["iter_batches"]

_CHUNK_END = None   # marks the end of a chunk in a leaf's stream


class _LeafStream:
    """The pieces of one leaf over the row groups, and the decoded rows not yet used.

    The unused rows are one :class:`ColumnData` with a cursor: its record
    starts and value positions are computed once, when a piece is added, so
    taking a small batch out of a large page costs the batch, not the page.
    """

    def __init__(self, ctx: ReadContext, leaf: int, groups: Sequence[int], keep: bool,
                 min_levels: int = 1, build: Callable[[ColumnData], Array] | None = None,
                 arenas: dict[int, OutputArena | None] | None = None) -> None:
        self.ctx = ctx
        self.arenas = arenas or {}     # per row group: the arena its whole-chunk pieces may use
        # a flat field's leaf read without dictionaries: its Array is built once per piece
        # (the checks and conversions of table.leaves.field_array done once) and each batch
        # is a slice of it (take_array)
        self.build = build
        self.array: Array | None = None     # the Array of array_of (a piece), once built
        self.array_of: ColumnData | None = None
        self.leaf = leaf
        self.desc: ColumnDescriptor = ctx.metadata.schema.column(leaf)
        self.min_levels = min_levels     # levels per decoded piece (a batch's worth)
        self.items: Iterator[ColumnData | None] = self._items(groups, keep)
        self.ahead: _Ahead | None = None      # with threads: the items decoded on the pool
        self.data: ColumnData | None = None
        self.starts: Any = None          # record start positions in data (None: unrepeated)
        self.values: Any = None          # values before each level position (None: one per level)
        self.level = self.value = self.record = 0     # the cursor
        self.closed = True         # the buffer's last record is complete (a chunk ended there)
        self.done = False
        self.where: tuple[int, Any] = (-1, None)   # row group and last page of the latest piece
        self.seen: tuple[int, Any] = (-1, None)    # ... of the latest piece decoded (may be ahead)

    def _positions(self, piece: ColumnData) -> Any:
        """:func:`value_positions` of *piece*, its size one int64 per level: an allocation
        that fails is a ParquetResourceError naming the column, row group and page, as a
        decoding one is (the piece was decoded by the time it is joined to the batch)."""
        try:
            return value_positions(piece, self.desc)
        except MemoryError as exc:
            err = out_of_memory(exc, "decoding a column chunk")
            rg, page = self.where
            if page is not None:
                add_page_context(err, page.ordinal, page.offset)
            add_context(err, column=self.desc.dotted_path, row_group=rg)
            raise err from exc

    def _items(self, groups: Sequence[int], keep: bool) -> Iterator[ColumnData | None]:
        for rg in groups:
            reader = self.ctx.indexes.reader(rg, self.leaf)
            num_rows = self.ctx.metadata.row_group(rg).num_rows
            with reader.notes():
                reader.check_rows(num_rows)
                records = levels = 0
                pieces = iter_chunk_pieces(self._watched(reader.iter_pages_lazily(), rg), self.desc, keep,
                                           self.min_levels)
                for piece in served(pieces, self.arenas.get(rg)):
                    reps = piece.rep_levels
                    if not levels and reps is not None and len(reps) and reps[0] != 0:
                        raise ParquetFormatError("column chunk does not start at a record boundary "
                                                 f"(first repetition level {int(reps[0])})")
                    levels += piece.num_levels
                    records += count_records(piece)
                    yield piece
                if records != num_rows:
                    what = "rows" if self.desc.max_repetition_level == 0 else "records"
                    raise ParquetFormatError(f"column chunk holds {records} {what}, the row group says {num_rows}")
            yield _CHUNK_END

    def _watched(self, pages: Iterator[Any], rg: int) -> Iterator[Any]:
        """*pages*, remembering the last one handed out (for :meth:`_positions`' notes)."""
        for page in pages:
            self.seen = (rg, page)
            yield page

    def _pull(self) -> ColumnData | None | bool:
        """The next item (a piece, :data:`_CHUNK_END`, or False when none is left), and
        :attr:`where` set to the page it ends on."""
        if self.ahead is not None:
            item, self.where = self.ahead.next()
            return item
        item = next(self.items, False)
        self.where = self.seen
        return item

    def _records_left(self) -> int:
        if self.data is None:
            return 0
        if self.starts is None:
            return self.data.num_levels - self.level
        return len(self.starts) - self.record

    def complete(self) -> int:
        left = self._records_left()
        if self.desc.max_repetition_level == 0 or self.closed:
            return left
        return max(left - 1, 0)

    def _add(self, pieces: list[ColumnData]) -> None:
        """Append *pieces* to the unused rows: one join for all of them (joining page by page
        would copy the unused rows again for every page of a batch)."""
        if self.data is not None and self.level < self.data.num_levels:
            end = self.data.num_levels
            vend = end if self.values is None else int(self.values[-1])
            pieces = [slice_data(self.data, self.level, end, self.value, vend)] + pieces
        piece = concat_data(pieces, self.desc)
        self.data = piece
        self.starts = record_starts(piece)
        self.values = self._positions(piece)
        self.level = self.value = self.record = 0

    def take(self, n: int) -> ColumnData:
        """The next *n* records (fewer only when the leaf has no more)."""
        if self.desc.max_repetition_level == 0:
            return self._take_rows(n)
        pending: list[ColumnData] = []
        records = self._records_left()      # of the unused rows and the pending pieces
        while not self.done and \
                (records if self.desc.max_repetition_level == 0 or self.closed else max(records - 1, 0)) < n:
            item = self._pull()
            if item is False:
                self.done = self.closed = True
            elif item is _CHUNK_END:
                self.closed = True
            else:
                assert isinstance(item, ColumnData)
                if item.num_levels:
                    pending.append(item)
                    records += count_records(item)
                    self.closed = False
        if pending:
            self._add(pending)
        if self.data is None:
            raise ParquetFormatError(f"column {quoted(self.desc.dotted_path, bare=True)} ends before the rows its row groups promise")
        data = self.data
        if self.starts is None:
            stop = min(self.level + n, data.num_levels)
        else:
            stop = int(self.starts[self.record + n]) if self.record + n < len(self.starts) else data.num_levels
            self.record = min(self.record + n, len(self.starts))
        vstop = stop if self.values is None else int(self.values[stop])
        head = slice_data(data, self.level, stop, self.value, vstop)
        self.level, self.value = stop, vstop
        return head


    def _take_rows(self, n: int) -> ColumnData:
        """:meth:`take` for an unrepeated leaf (a row is a level): the rows are sliced out of
        the pieces one after another, and only a batch that spans two pieces is copied (joined
        from its slices). A piece is let go once its rows are taken, before the next page is
        decoded, so a large page is never joined to the rows left before it (which held it
        twice)."""
        parts: list[ColumnData] = []
        need = n
        while need:
            data = self.data
            if data is None or self.level >= data.num_levels:
                if not self._next_piece():
                    break
                continue
            stop = min(self.level + need, data.num_levels)
            vstop = stop if self.values is None else int(self.values[stop])
            parts.append(slice_data(data, self.level, stop, self.value, vstop))
            need -= stop - self.level
            self.level, self.value = stop, vstop
        if not parts:
            raise ParquetFormatError(f"column {self.desc.dotted_path} ends before the rows its row groups promise")
        return parts[0] if len(parts) == 1 else concat_data(parts, self.desc)

    def _next_piece(self) -> bool:
        """Let the current piece go and take the next one with levels (False: none left)."""
        self.data = self.values = None
        self.array = self.array_of = None
        while not self.done:
            got = self._pull()
            if got is False:
                self.done = True
            elif isinstance(got, ColumnData) and got.num_levels:    # (else the end of a chunk)
                self.data, self.values = got, self._positions(got)
                self.level = self.value = 0
                return True
        return False

    def take_array(self, n: int) -> Array:
        """The Array of the next *n* rows of a flat field (:attr:`build` given): a slice of
        its piece's Array when the piece holds them all, else built from the rows taken."""
        assert self.build is not None
        data = self.data
        if data is None or self.level >= data.num_levels:
            self._next_piece()
            data = self.data
        if data is None or self.level + n > data.num_levels:
            return self.build(self._take_rows(n))       # (a batch across pieces, or the end)
        if self.array_of is not data:
            self.array, self.array_of = self.build(data), data
        arr = self.array
        assert arr is not None
        start = self.level
        stop = start + n
        self.level = stop
        self.value = stop if self.values is None else int(self.values[stop])
        part = arr.slice(start, stop)
        if part.validity is not None and part.validity.all():
            part = Array(part.type, part.values, None)      # as a batch read alone: no nulls, no mask
        return part


class _Ahead:
    """A leaf's items decoded one piece ahead on the pool (threaded batches).

    One pool task at a time per leaf advances the leaf's item generator to its next piece
    with levels (and the chunk ends before it); the task for the piece after is submitted
    when the calling thread takes that piece, so a leaf holds at most the piece being cut
    into batches and the one decoded next.  An error stays in its task's Future until the
    leaf's take reaches it: the batch it is raised in, and the leaf order, are a
    one-thread read's.  :meth:`close` stops it: a task not started is cancelled, a running
    one is waited for (at most one piece is decoded after the caller stops).
    """

    __slots__ = ("stream", "future", "queue", "over")

    def __init__(self, stream: _LeafStream) -> None:
        self.stream = stream
        self.future: Future[list[tuple[Any, tuple[int, Any]]]] | None = None
        self.queue: list[tuple[Any, tuple[int, Any]]] = []
        self.over = False

    def _fetch(self) -> list[tuple[Any, tuple[int, Any]]]:
        """(On the pool) items up to and with the next piece holding levels, each with its page."""
        stream = self.stream
        out: list[tuple[Any, tuple[int, Any]]] = []
        while True:
            item = next(stream.items, False)
            out.append((item, stream.seen))
            if item is False or (isinstance(item, ColumnData) and item.num_levels):
                return out

    def start(self) -> None:
        if self.future is None and not self.over:
            self.future = scan.decode_pool().submit(self._fetch)

    def next(self) -> tuple[Any, tuple[int, Any]]:
        if not self.queue:
            if self.over:
                return False, self.stream.seen
            future, self.future = self.future, None
            try:
                if future is None or future.cancel():
                    self.queue = self._fetch()    # not started yet: decoded here, not waited for
                else:
                    self.queue = future.result()
            except BaseException:
                self.over = True
                raise
            self.queue.reverse()
            if self.queue[0][0] is False:
                self.over = True
            else:
                self.start()     # the next piece decodes while this one is used
        return self.queue.pop()

    def close(self) -> None:
        self.over = True
        future, self.future = self.future, None
        if future is not None:
            _settle([future])


def _build_flat(ctx: ReadContext, field: Any, shape: Any, data: ColumnData) -> Array:
    return ctx.build(field, shape, {shape.column: data})


def iter_batches(ctx: ReadContext, selected: Sequence[Selected], groups: Sequence[int], batch_size: int,
                 use_threads: bool) -> Iterator[Table]:
    """Yield tables of at most *batch_size* rows over *groups* (see the module docstring)."""
    groups = list(groups)
    total = sum(ctx.metadata.row_group(rg).num_rows for rg in groups)
    if not total:
        return
    # with threads, each leaf's next piece is decoded on the pool while the batches before it
    # are cut and used (_Ahead), when worth_ahead says it pays
    ahead = use_threads and worth_ahead(ctx, selected, groups)
    # A leaf whose chunk is one piece (small pages joined: a few hundred thousand narrow
    # values) decodes it into its slice of that row group's arena, as a whole read does
    # (:mod:`parquet_core.column.outputs`: fresh pages for each piece cost about as much as
    # decoding it); a leaf cut into several pieces allocates them as before (the arena takes
    # only a whole chunk's length, and is allocated only when a leaf first takes one; it plans
    # only chunks small enough to be one piece, so its slices are rarely left unused).
    # a task decodes at least AHEAD_MIN_LEVELS levels (small batches' pieces on the pool
    # cost more in hand-offs than they overlap)
    levels = max(batch_size, AHEAD_MIN_LEVELS) if ahead else batch_size
    arenas = {rg: plan_outputs(ctx, selected, [rg], PIECE_MAX_HELD) for rg in groups}
    streams: list[_LeafStream] = []
    fields = []
    for field, shape in selected:
        build = None
        if shape.is_flat and not ctx.keeps(field, shape, shape.column) and \
                ctx.metadata.schema.column(shape.column).max_repetition_level == 0:
            build = partial(_build_flat, ctx, field, shape)
        mine = [_LeafStream(ctx, leaf, groups, ctx.keeps(field, shape, leaf), levels, build, arenas)
                for leaf in shape.leaves]
        streams.extend(mine)
        fields.append((field, shape, mine))
    schema = Schema([f for f, _ in selected])
    if not ahead:
        yield from _batches(ctx, streams, fields, schema, total, batch_size)
        return
    aheads = [_Ahead(st) for st in streams]
    for st, a in zip(streams, aheads):
        st.ahead = a
    # the biggest chunks first (the first batch waits for every leaf's first piece)
    for i in sorted(range(len(streams)), key=lambda i: -_leaf_bytes(ctx, streams[i].leaf, groups)):
        aheads[i].start()
    try:
        yield from _batches(ctx, streams, fields, schema, total, batch_size)
    finally:       # (also when the caller stops early: no task is left decoding)
        for a in aheads:
            a.close()


#: Threaded batches use the pool only for chunks holding at least this many bytes per value
#: on average (uncompressed sizes over value counts): the work that runs in parallel
#: (decompression, copies, gathers) grows with the bytes, the work that holds the GIL (a
#: Python step per run of dictionary codes, per page) with the runs and pages.  Measured
#: (h34ib, 2 cores, benchmarks/README): the taxi shape (0.35 bytes a value, short runs of
#: codes) read 0.80-0.89x as fast with the pool as without, at 1.3-1.6x the CPU, even at
#: 6,000,000 rows whose whole read gains on the pool; lineitem (3.9) 1.09x.
AHEAD_MIN_BYTES_PER_VALUE = 1.0
#: ... and decode pieces of at least this many levels (whatever the batch size)
AHEAD_MIN_LEVELS = 1 << 16


def worth_ahead(ctx: ReadContext, selected: Sequence[Selected], groups: Sequence[int]) -> bool:
    """Whether threaded batches of *groups* decode ahead on the pool: a read the pool pays
    for whole (:func:`parquet_core.file.scan.worth_threads`), of two leaves or more (one
    leaf would only wait for its own task), in chunks of :data:`AHEAD_MIN_BYTES_PER_VALUE`
    or more (this is the batch-specific part of the rule)."""
    leaves = [leaf for _, shape in selected for leaf in shape.leaves]
    if len(leaves) < 2 or not scan.worth_threads(ctx, selected, groups):
        return False
    nbytes = values = 0
    chunk = ctx.indexes.chunk
    try:
        for leaf in leaves:
            for rg in groups:
                meta = chunk(rg, leaf)
                nbytes += meta.total_uncompressed_size
                values += meta.num_values
    except ParquetError:
        return False        # a malformed chunk: the read reports it, naming the column
    return nbytes >= AHEAD_MIN_BYTES_PER_VALUE * values


def _leaf_bytes(ctx: ReadContext, leaf: int, groups: Sequence[int]) -> int:
    """The uncompressed bytes of *leaf*'s chunks in *groups* (0 for a chunk that cannot say:
    the read reports it)."""
    total = 0
    for rg in groups:
        try:
            total += ctx.indexes.chunk(rg, leaf).total_uncompressed_size
        except ParquetError:
            pass
    return total


def _batches(ctx: ReadContext, streams: list[_LeafStream], fields: list[Any], schema: Schema, total: int,
             batch_size: int) -> Iterator[Table]:
    done = 0
    while done < total:
        n = min(batch_size, total - done)
        data: dict[int, ColumnData] = {}
        arrays: dict[int, Array] = {}
        for s in streams:       # in leaf order: the first error is a one-thread read's
            if s.build is None:
                data[s.leaf] = s.take(n)
            else:
                arrays[s.leaf] = s.take_array(n)
        cols = [arrays[mine[0].leaf] if mine[0].build is not None
                else ctx.build(field, shape, {s.leaf: data[s.leaf] for s in mine}) for field, shape, mine in fields]
        done += n
        yield Table(schema, cols, n)
