"""One write task's output: Arrow batches routed to per-folder Parquet files in the staging folder.

Spark hands a task 10,000-row batches; writing each as a row group would
make tiny row groups, so every output folder keeps a buffer and writes
row groups of ``row_group_size`` rows (default 1,048,576, as the engine).
Buffers are bounded: once all buffers of the task together hold more than
``row_group_bytes`` (default 128 MiB), the largest is written out as a
shorter row group.

With ``partitionBy`` each batch is split by the partition columns'
distinct value combinations (numpy ``unique`` over dictionary codes), and
the partition columns are dropped from the data written.
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Any

from spark_adapter.core.crypto_options import file_encryption

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from spark_adapter.pqcore.writer import PqcoreWriter

__all__ = ["TaskFiles"]

_DEFAULT_ROWS = 1024 * 1024
_DEFAULT_BYTES = 128 * 1024 * 1024


class _FolderFile:
    """The open ``part-<uuid>.parquet`` of one output folder and its row buffer."""

    def __init__(self, rel_dir: str, owner: TaskFiles) -> None:
        self.rel_path = os.path.join(rel_dir, f"part-{uuid.uuid4().hex}.parquet")
        self.owner = owner
        self.buffer: list[pa.Table] = []
        self.rows = 0
        self.nbytes = 0
        self.writer: Any = None

    def add(self, table: pa.Table) -> None:
        self.buffer.append(table)
        self.rows += table.num_rows
        self.nbytes += table.nbytes
        if self.rows >= self.owner.rows_per_group:
            self.flush(whole_groups_only=True)

    def flush(self, whole_groups_only: bool = False) -> None:
        import pyarrow as pa

        if not self.rows:
            return
        table = pa.concat_tables(self.buffer)
        n = table.num_rows
        if whole_groups_only:
            n -= n % self.owner.rows_per_group
        if self.writer is None:
            import parquet_core as pc

            full = os.path.join(self.owner.staging, self.rel_path)
            _folders_below(self.owner.staging, os.path.dirname(self.rel_path))
            self.writer = pc.ParquetWriter(full, self.owner.schema,
                                           encryption=file_encryption(self.owner.encryption, full),
                                           **self.owner.engine_options)
        self.writer.write_table(table.slice(0, n))
        rest = table.slice(n)
        self.buffer = [rest] if rest.num_rows else []
        self.rows = rest.num_rows
        self.nbytes = rest.nbytes if rest.num_rows else 0

    def close(self) -> None:
        self.flush()
        if self.writer is not None:
            self.writer.close()

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.abort()
            try:  # closed already: remove the published file
                os.remove(os.path.join(self.owner.staging, self.rel_path))
            except OSError:
                pass


def _folders_below(staging: str, rel_dir: str) -> None:
    """Create ``staging/rel_dir`` one level at a time, never *staging* itself.

    The driver made the staging folder; if abort() has removed it, the first
    ``mkdir`` fails and the task stops instead of recreating it.
    """
    if not os.path.isdir(staging):
        raise FileNotFoundError(f"pqcore: the staging folder {staging} is gone (the job was aborted)")
    path = staging
    for part in [p for p in rel_dir.split(os.sep) if p]:
        path = os.path.join(path, part)
        try:
            os.mkdir(path)
        except FileExistsError:
            pass


class TaskFiles:
    """Routes a task's batches to :class:`_FolderFile` s; ``close()`` returns the staged paths."""

    def __init__(self, writer: PqcoreWriter) -> None:
        opts = writer.engine_options
        self.staging = writer.staging
        self.engine_options = opts
        self.schema = writer.file_arrow_schema()
        self.encryption = writer.encryption
        self.partition_by = list(writer.partition_by)
        self.partition_types = {f.name: f.dataType for f in writer.schema.fields
                                if f.name in writer.partition_by}
        self.time_zone = writer.time_zone
        self.rows_per_group = int(opts.get("row_group_size", _DEFAULT_ROWS))
        cap = opts.get("row_group_bytes", _DEFAULT_BYTES)
        self.bytes_cap = _DEFAULT_BYTES if cap is None else int(cap)
        self.files: dict[str, _FolderFile] = {}
        self.rows = 0

    def add(self, batch: pa.RecordBatch) -> None:
        import pyarrow as pa

        if batch.num_rows == 0:
            return
        table = pa.Table.from_batches([batch])
        self.rows += table.num_rows
        if not self.partition_by:
            self._file("").add(table.cast(self.schema))
        else:
            for rel_dir, part in self._split(table):
                self._file(rel_dir).add(part.cast(self.schema))
        if sum(f.nbytes for f in self.files.values()) > self.bytes_cap:
            max(self.files.values(), key=lambda f: f.nbytes).flush()

    def _file(self, rel_dir: str) -> _FolderFile:
        f = self.files.get(rel_dir)
        if f is None:
            f = self.files[rel_dir] = _FolderFile(rel_dir, self)
        return f

    def _split(self, table: pa.Table) -> Any:
        """Yield ``(key=value/... folder, rows without the partition columns)`` per distinct combination."""
        import numpy as np
        import pyarrow.compute as pac

        from spark_adapter.core.partitioning import partition_dir_name

        codes = []
        zones = {}
        for name in self.partition_by:
            typ = table.schema.field(name).type
            # Spark hands TimestampType columns in its session time zone, the zone its
            # own writer prints folder names in; the timeZone option overrides it
            zones[name] = self.time_zone or getattr(typ, "tz", None) or "UTC"
            encoded = pac.dictionary_encode(table.column(name).combine_chunks())
            codes.append(pac.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
                         .astype(np.int64))
        _, first, inverse = np.unique(np.stack(codes, axis=1), axis=0,
                                      return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        order = np.argsort(inverse, kind="stable")
        ends = np.cumsum(np.bincount(inverse))
        data = table.drop_columns(self.partition_by)
        start = 0
        # one step per distinct partition value combination (few), not per row
        for g, end in enumerate(ends):
            row = int(first[g])
            parts = [partition_dir_name(n, table.column(n)[row].as_py(), self.partition_types[n],
                                        zones[n]) for n in self.partition_by]
            yield "/".join(parts), data.take(order[start:end])
            start = int(end)

    def close(self) -> list[str]:
        for f in self.files.values():
            f.close()
        return [f.rel_path for f in self.files.values() if f.writer is not None]

    def abort(self) -> None:
        for f in self.files.values():
            f.abort()
