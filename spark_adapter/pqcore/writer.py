"""The write side: ``df.write.format("pqcore").mode("append"|"overwrite").save(path)``.

Three processes see a :class:`PqcoreWriter`, each its own unpickled copy of
the one built at planning time (so only ``__init__``'s plain attributes and
the commit messages carry state):

* planning, on the driver: ``__init__`` checks the schema, parses and
  validates the options (an engine writer is built on a memory buffer), and
  names the job's staging folder ``<target>/_pqcore_staging-<job id>``
  (hidden from readers by its ``_`` prefix);
* ``write()``, once per Spark task: buffers Spark's Arrow batches (10,000
  rows each) per output folder up to a row group, writes
  ``part-<uuid>.parquet`` files into the staging folder with
  ``pc.ParquetWriter``, and returns their names; on an error it removes its
  own files before re-raising;
* ``commit()`` / ``abort()``, once, in a fresh driver worker.  ``commit``
  moves old data aside (overwrite), moves the staged files into place, and
  only then deletes the old data: if a move fails, every move is undone.
  ``abort`` removes the staging folder.  Either way no partial output is
  left at the target.

Overwrite deletes only what this source would have written: Parquet files
(checked by their magic bytes) and ``key=value`` folders holding only such
files, at the target's top level, plus the hidden ``.<name>.crc`` files
Hadoop writes beside data files.  Anything else there makes the write fail
before any task runs.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from spark_adapter.core.commit_messages import own_messages
from spark_adapter.core.crypto_options import encryption_from_options, file_encryption, key_material_name
from spark_adapter.core.files import is_hidden, local_path
from spark_adapter.pqcore.options import WriteOptions, write_options

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["PqcoreCommitMessage", "PqcoreWriter"]

_FLAT = (BooleanType, ByteType, ShortType, IntegerType, LongType, FloatType, DoubleType, StringType,
         BinaryType, DecimalType, DateType, TimestampType, TimestampNTZType)
_PARTITION_TYPES = tuple(t for t in _FLAT if t is not BinaryType)


def _writable(t: Any) -> bool:
    """Flat types, and arrays, maps and structs of writable types (at any depth)."""
    if isinstance(t, _FLAT):
        return True
    if isinstance(t, ArrayType):
        return _writable(t.elementType)
    if isinstance(t, MapType):
        return isinstance(t.keyType, _FLAT) and _writable(t.valueType)
    if isinstance(t, StructType):
        return all(_writable(f.dataType) for f in t.fields)
    return False
_MAGIC = b"PAR1"


@dataclass
class PqcoreCommitMessage(WriterCommitMessage):
    """What one task staged: file paths relative to the staging folder, and its row count."""

    files: list[str] = field(default_factory=list)
    rows: int = 0


def _ours(messages: list[WriterCommitMessage | None]) -> list[PqcoreCommitMessage]:
    """The tasks' messages (None: a task that sent none); another writer's is refused."""
    return own_messages(messages, PqcoreCommitMessage, "pqcore")


def _is_parquet(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(-4, os.SEEK_END)
            # PARE at both ends: a file with an encrypted footer
            return head in (_MAGIC, b"PARE") and f.read(4) == head
    except OSError:
        return False


def _foreign(path: str) -> list[str]:
    """Entries under the partition folder *path* that are neither Parquet files nor partition folders."""
    bad = []
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if is_hidden(name):
            continue
        if os.path.isdir(full):
            bad.extend([full] if "=" not in name else _foreign(full))
        elif not _is_parquet(full):
            bad.append(full)
    return bad


def owned_entries(target: str) -> list[str]:
    """Top-level names under *target* an overwrite replaces; raises if anything else is there."""
    if not os.path.isdir(target):
        return []
    owned, bad = [], []
    for name in sorted(os.listdir(target)):
        full = os.path.join(target, name)
        if is_hidden(name):
            continue
        if os.path.isdir(full):
            sub = [full] if "=" not in name else _foreign(full)
            (bad.extend(sub) if sub else owned.append(name))
        elif _is_parquet(full):
            owned.append(name)
            for sidecar in (f".{name}.crc", key_material_name(name)):
                if os.path.exists(os.path.join(target, sidecar)):
                    owned.append(sidecar)
        else:
            bad.append(full)
    if bad:
        raise ValueError(
            f"pqcore: overwrite of {target!r} refused: it holds entries that are not Parquet data files "
            f"or key=value partition folders, which pqcore will not delete: {bad[:5]}")
    return owned


class PqcoreWriter(DataSourceArrowWriter):
    """Writes Spark's Arrow batches as Parquet files with parquet_core (see the module docstring)."""

    def __init__(self, options: WriteOptions | dict[str, str], schema: StructType, overwrite: bool) -> None:
        if not isinstance(options, WriteOptions):
            options = write_options(options)
        path = options.path
        self.target = os.path.abspath(local_path(path))
        if os.path.exists(self.target) and not os.path.isdir(self.target):
            raise ValueError(f"pqcore: target {self.target!r} exists and is not a directory")
        self.overwrite = bool(overwrite)
        self.schema = schema
        # None: timestamps in folder names use the zone of Spark's Arrow batches (its session zone)
        self.time_zone: str | None = options.time_zone
        self.engine_options = dict(options.engine)
        self.encryption = dict(options.encryption)   # parquet.encryption.*, per file below
        self.partition_by = self._resolve_partition_columns(list(options.partition_by))
        for f in schema.fields:
            if not _writable(f.dataType):
                raise TypeError(f"pqcore: cannot write column {f.name!r} of type "
                                f"{f.dataType.simpleString()}: type not supported")
        self.job_id = uuid.uuid4().hex
        self.target_existed = os.path.isdir(self.target)
        if self.overwrite:
            owned_entries(self.target)  # refuse foreign content before any task runs
        self._check_engine_options()
        # The driver makes the staging folder now; tasks only create folders below it
        # (one mkdir at a time), so a task still running after abort() removed it fails
        # instead of recreating it (Spark calls abort() without waiting for every task).
        os.makedirs(self.staging, exist_ok=True)

    # -- planning ------------------------------------------------------------
    def _resolve_partition_columns(self, names: list[str]) -> list[str]:
        by_lower = {f.name.lower(): f for f in self.schema.fields}
        out = []
        for n in names:
            f = by_lower.get(n.lower())
            if f is None:
                raise ValueError(f"pqcore: partition column {n!r} is not in the data "
                                 f"(columns: {self.schema.fieldNames()})")
            if not isinstance(f.dataType, _PARTITION_TYPES):
                raise TypeError(f"pqcore: cannot partition by column {f.name!r} of type "
                                f"{f.dataType.simpleString()}")
            out.append(f.name)
        if out and len(out) == len(self.schema.fields):
            raise ValueError("pqcore: cannot use all columns for partition columns")
        return out

    def file_arrow_schema(self) -> pa.Schema:
        """The Arrow schema of the files: the data columns, all nullable (as Spark writes them)."""
        import pyarrow as pa

        from spark_adapter.core.types import target_arrow_schema

        data = StructType([f for f in self.schema.fields if f.name not in self.partition_by])
        return pa.schema([f.with_nullable(True) for f in target_arrow_schema(data)])

    def _check_engine_options(self) -> None:
        import io

        import parquet_core as pc

        try:
            pc.ParquetWriter(io.BytesIO(), self.file_arrow_schema(), **self.engine_options).abort()
            if self.encryption:   # malformed keys or an unloadable KMS fail before any task runs
                encryption_from_options({**self.encryption, "parquet.encryption.key.material.store"
                                         ".internally": "true"})
        except (TypeError, ValueError, pc.ParquetError) as exc:
            raise ValueError(f"pqcore: invalid write options: {exc}") from exc

    @property
    def staging(self) -> str:
        return os.path.join(self.target, f"_pqcore_staging-{self.job_id}")

    # -- tasks ---------------------------------------------------------------
    def write(self, iterator: Iterator[pa.RecordBatch]) -> PqcoreCommitMessage:
        from spark_adapter.pqcore.task_files import TaskFiles

        files = TaskFiles(self)
        try:
            for batch in iterator:
                files.add(batch)
            staged = files.close()
        except BaseException:
            files.abort()
            raise
        return PqcoreCommitMessage(files=staged, rows=files.rows)

    # -- driver --------------------------------------------------------------
    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        staged = [f for m in _ours(messages) for f in m.files]
        if not staged and not self.partition_by:
            staged.append(self._write_empty_file())  # like Spark: keep the schema readable
        staged += [m for m in (os.path.join(os.path.dirname(rel), key_material_name(os.path.basename(rel)))
                               for rel in staged) if os.path.exists(os.path.join(self.staging, m))]
        journal: list[tuple[str, str]] = []  # renames done, undone in reverse on failure
        made: list[str] = []
        trash = os.path.join(self.target, f"_pqcore_trash-{self.job_id}")
        try:
            if self.overwrite:
                old = owned_entries(self.target)
                if old:
                    os.makedirs(trash, exist_ok=True)
                    made.append(trash)
                for name in old:  # one rename per top-level entry
                    self._move(os.path.join(self.target, name), os.path.join(trash, name), journal)
            for rel in staged:  # one rename per staged file
                dst = os.path.join(self.target, rel)
                _make_dirs(os.path.dirname(dst), made)
                if os.path.exists(dst):
                    raise FileExistsError(f"pqcore: {dst} already exists")
                self._move(os.path.join(self.staging, rel), dst, journal)
        except BaseException:
            for src, dst in reversed(journal):
                os.rename(dst, src)
            for d in reversed(made):
                shutil.rmtree(d, ignore_errors=True) if d == trash else _rmdir_quiet(d)
            raise
        shutil.rmtree(self.staging, ignore_errors=True)
        shutil.rmtree(trash, ignore_errors=True)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        # Spark may call this while a task of the job is still writing. Renaming the
        # staging folder away first makes that task's next file or folder fail (it
        # never recreates the staging folder); what it had open is removed with the rest.
        doomed = f"{self.staging}.aborted"
        try:
            os.rename(self.staging, doomed)
        except OSError:
            doomed = self.staging
        for attempt in range(5):
            shutil.rmtree(doomed, ignore_errors=True)
            if not os.path.exists(doomed):
                break
            time.sleep(0.1 * (attempt + 1))   # a straggling task was still adding entries
        if not self.target_existed:
            _rmdir_quiet(self.target)  # only if empty: we created it

    @staticmethod
    def _move(src: str, dst: str, journal: list[tuple[str, str]]) -> None:
        os.rename(src, dst)
        journal.append((src, dst))

    def _write_empty_file(self) -> str:
        import parquet_core as pc

        os.makedirs(self.staging, exist_ok=True)
        name = f"part-{uuid.uuid4().hex}.parquet"
        full = os.path.join(self.staging, name)
        pc.ParquetWriter(full, self.file_arrow_schema(), encryption=file_encryption(self.encryption, full),
                         **self.engine_options).close()
        return name


def _make_dirs(path: str, made: list[str]) -> None:
    """``os.makedirs`` that records each folder it creates (outermost first), for undoing."""
    if os.path.isdir(path):
        return
    _make_dirs(os.path.dirname(path), made)
    os.mkdir(path)
    made.append(path)


def _rmdir_quiet(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass
