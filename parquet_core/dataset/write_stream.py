"""``write_to_dataset`` of a stream (``__arrow_c_stream__``: a pyarrow RecordBatchReader, a
polars DataFrame, a duckdb relation...): consumed batch by batch, never held whole.

Each batch's rows go to their partition's open file (one :class:`ParquetWriter` per
partition folder, opened when the partition first appears).  A partition gathers its
rows up to ``row_group_size`` (the writer's option) and writes them as one row group,
so memory holds about one row group per open partition plus the batch at hand;
``max_rows_per_file`` closes a partition's file when it is full and opens the next
(``{i}`` + 1).

pyarrow's dataset writer options, with its semantics:

* ``max_open_files``: when a partition needs a file and that many are open, the open
  file holding the most rows is completed and closed (what pyarrow's writer does,
  though its documentation says "least recently used"; between files of equal rows,
  the one that got rows last); a later batch of that partition starts a new file.
  Memory then holds at most that many partitions' pending rows and buffers.
* ``min_rows_per_group`` / ``max_rows_per_group`` (either given): a file's rows are
  written as soon as at least ``min_rows_per_group`` are pending, in row groups of at
  most ``max_rows_per_group`` (pyarrow's defaults 0 and 1 Mi: each batch its own row
  groups); without them, rows are gathered into ``row_group_size`` groups as above.

When either is given, each batch is cut into pieces of at most 32 768 rows first, as
pyarrow's dataset writer cuts what it is given (its execution engine's largest batch:
a 100 000-row batch reaches its files as 32 768 + 32 768 + 32 768 + 1 696 rows), so that
which file is closed and how rows are grouped follow its choices on any input.

The files are written under the transaction's hidden staged names,
as the in-memory path writes them (``write.py``): nothing is visible before the
commit, and a failure (the stream raising too) aborts every open writer, whose
partial files are removed, before the transaction is rolled back.
"""

from __future__ import annotations

from typing import Any, Iterator

from parquet_core.dataset.partition_rows import partition_groups, take_rows
from parquet_core.dataset.partitioning import partition_segment
from parquet_core.dataset.progress import Progress
from parquet_core.dataset.transaction import Transaction
from parquet_core.errors import ParquetSchemaError
from parquet_core.file.filesystem import FileSystem, LocalFileSystem
from parquet_core.file.writer import ParquetWriter
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Table

__all__ = ["write_stream_files", "PYARROW_BATCH_ROWS"]

#: the most rows pyarrow's dataset writer handles at once (Acero's largest batch): the
#: batches it is given, a table's chunks included, reach its files cut to this size
PYARROW_BATCH_ROWS = 32_768


class _PartitionFiles:
    """One partition folder's files: the open writer, its rows, the rows not yet written."""

    def __init__(self, owner: _StreamFiles, folder: str) -> None:
        self.owner, self.folder = owner, folder
        self.count = 0                       # files opened in this folder: the next {i}
        self.writer: ParquetWriter | None = None
        self.file_rows = 0                   # rows given to the open file (written or pending)
        self.pending: list[Table] = []
        self.pending_rows = 0
        self.used = 0                        # owner.clock when rows last came (max_open_files)

    def add(self, part: Table) -> None:
        owner = self.owner
        limit = owner.max_rows_per_file
        owner.clock += 1
        self.used = owner.clock
        while part.num_rows:
            if self.writer is None:
                owner.make_room()
                self._open(part.schema)
            room = part.num_rows if limit is None else min(part.num_rows, limit - self.file_rows)
            piece, part = _rows(part, 0, room), _rows(part, room, part.num_rows)
            self.pending.append(piece)
            self.pending_rows += piece.num_rows
            self.file_rows += piece.num_rows
            assert self.writer is not None
            if owner.groups is not None:
                low, _ = owner.groups
                if self.pending_rows and self.pending_rows >= low:
                    self._flush(whole_groups=False)
            elif self.pending_rows >= self.writer.options.row_group_size:
                self._flush(whole_groups=True)
            if limit is not None and self.file_rows >= limit:
                self.finish()

    def _open(self, schema: Schema) -> None:
        owner = self.owner
        name = owner.template.format(i=self.count)
        self.count += 1
        if self.folder not in owner.made:
            owner.fs.makedirs(self.folder)
            owner.made.add(self.folder)
        staged = owner.txn.add(self.folder, name)
        owner.paths.append(owner.fs.join(self.folder, name))
        self.writer = ParquetWriter(staged, schema, filesystem=owner.target, **owner.write_options)
        self.file_rows = 0
        owner.open.add(self)
        if owner.progress is not None:
            owner.progress.total = len(owner.paths)

    def _flush(self, whole_groups: bool) -> None:
        """Write the pending rows: every whole row group (*whole_groups*), or all of them (in
        row groups of at most ``max_rows_per_group`` when pyarrow's grouping is asked)."""
        assert self.writer is not None
        if not self.pending:
            return
        table = self.pending[0]
        if len(self.pending) > 1:    # concat keeps no key/values: the first piece's (ARROW:schema...)
            table = Table.concat(self.pending).replace_schema_metadata(table.metadata)
        groups = self.owner.groups
        size = self.writer.options.row_group_size if groups is None else groups[1]
        upto = table.num_rows - table.num_rows % size if whole_groups else table.num_rows
        if upto:
            self.writer.write_table(_rows(table, 0, upto), size)
        rest = _rows(table, upto, table.num_rows)
        self.pending, self.pending_rows = ([rest], rest.num_rows) if rest.num_rows else ([], 0)

    def finish(self) -> None:
        """Write what is pending and complete the open file (none open: nothing)."""
        if self.writer is None:
            return
        self._flush(whole_groups=False)
        writer, self.writer = self.writer, None
        self.owner.open.discard(self)
        writer.close()
        if self.owner.progress is not None:
            self.owner.progress.advance()

    def abort(self) -> None:
        if self.writer is not None:
            writer, self.writer = self.writer, None
            self.owner.open.discard(self)
            writer.abort()
        self.pending, self.pending_rows = [], 0


#: pyarrow's default ``max_open_files``, the limit when none is given.
DEFAULT_MAX_OPEN_FILES = 1024


class _StreamFiles:
    def __init__(self, fs: FileSystem, txn: Transaction, template: str, max_rows_per_file: int | None,
                 write_options: dict[str, Any], progress: Progress | None, max_open_files: int | None = None,
                 groups: tuple[int, int] | None = None) -> None:
        self.fs, self.txn, self.template = fs, txn, template
        self.max_rows_per_file = max_rows_per_file
        # without a limit given, pyarrow's default one: a stream into more partitions than
        # that would otherwise hold a file descriptor per partition and fail (EMFILE) at the
        # process's limit, often 1024, after hours of writing
        self.max_open_files = DEFAULT_MAX_OPEN_FILES if max_open_files is None else max_open_files
        #: pyarrow's (min_rows_per_group, max_rows_per_group), or None: row_group_size groups
        self.groups = groups
        self.write_options = write_options
        self.target = None if isinstance(fs, LocalFileSystem) else fs
        self.progress = progress
        self.made: set[str] = set()
        self.paths: list[str] = []
        self.partitions: dict[str, _PartitionFiles] = {}
        self.open: set[_PartitionFiles] = set()      # the partitions with an open file
        self.clock = 0                               # counts add() calls (least recently used)

    def partition(self, folder: str) -> _PartitionFiles:
        found = self.partitions.get(folder)
        if found is None:
            found = self.partitions[folder] = _PartitionFiles(self, folder)
        return found

    def make_room(self) -> None:
        """Before a file opens: with ``max_open_files`` files open, complete the one holding
        the most rows (of those, the one that got rows last: what pyarrow's writer closed
        in every tie we tried), as pyarrow's dataset writer."""
        if len(self.open) < self.max_open_files:
            return
        victim = max(self.open, key=lambda p: (p.file_rows, p.used))
        victim.finish()


def write_stream_files(fs: FileSystem, txn: Transaction, root: str, batches: Iterator[Table],
                       stream_schema: Schema, cols: list[str], keep: list[str], template: str,
                       max_rows_per_file: int | None, write_options: dict[str, Any],
                       progress: Any, max_open_files: int | None = None,
                       groups: tuple[int, int] | None = None,
                       max_partitions: int | None = None) -> tuple[set[str], list[str]]:
    """Write *batches* (Tables of the stream's columns) as the files of a dataset under *root*,
    partitioned by *cols*, storing *keep*; returns ``(partition folders, files written)``.

    An unpartitioned stream without rows still gives one (empty) file of *stream_schema*'s
    stored columns, as the in-memory path does; a partitioned one gives none.
    ``max_open_files`` and ``groups`` (``(min_rows_per_group, max_rows_per_group)``): see above;
    ``max_partitions``: a batch (cut as pyarrow's) holding rows of more partitions is refused.
    """
    prog = Progress.make(progress, 0, "writing")
    files = _StreamFiles(fs, txn, template, max_rows_per_file, write_options, prog, max_open_files, groups)
    as_pyarrow = groups is not None or max_open_files is not None or max_partitions is not None
    pieces = _pyarrow_pieces(batches) if as_pyarrow else batches
    try:
        for batch in pieces:
            if not batch.num_rows:
                continue
            if cols:
                found = partition_groups(batch, cols)
                if max_partitions is not None and len(found) > max_partitions:
                    raise ParquetSchemaError(
                        f"write_to_dataset: a batch of {batch.num_rows} rows falls into {len(found)} "
                        f"partitions, more than max_partitions={max_partitions} (pyarrow's limit, "
                        f"per batch of at most {PYARROW_BATCH_ROWS} rows); nothing was written")
                for values, rows in found:
                    folder = fs.join(root, *(partition_segment(c, v) for c, v in zip(cols, values)))
                    files.partition(folder).add(take_rows(batch, keep, rows))
            else:
                files.partition(root).add(take_rows(batch, keep, None))
        if not cols and not files.paths:
            empty = Schema([stream_schema.field(n) for n in keep])
            part = files.partition(root)
            part._open(empty)
        for part in files.partitions.values():
            part.finish()
    except BaseException:
        for part in files.partitions.values():
            part.abort()
        raise
    finally:
        if prog is not None:
            prog.close()
    return set(files.partitions), files.paths


def _pyarrow_pieces(batches: Iterator[Table]) -> Iterator[Table]:
    """*batches* cut as pyarrow's dataset writer cuts them: at most PYARROW_BATCH_ROWS rows each."""
    for batch in batches:
        if batch.num_rows <= PYARROW_BATCH_ROWS:
            yield batch
        else:
            for start in range(0, batch.num_rows, PYARROW_BATCH_ROWS):
                yield _rows(batch, start, start + PYARROW_BATCH_ROWS)


def _rows(table: Table, start: int, stop: int) -> Table:
    """Rows ``start:stop`` of *table*, with its key/values (``ARROW:schema``, ``pandas``: the
    files' footers keep them)."""
    part = table.slice_rows(start, stop)
    return part.replace_schema_metadata(table.metadata) if table.metadata else part
