"""The one parser of ``format("pqcore")``'s option strings.

Spark hands a Python data source its ``.option(...)`` pairs with lower-cased
names and string values (``CaseInsensitiveDict``).  :func:`read_options` and
:func:`write_options` turn them, once, into the frozen objects the reader and
the writer use; a name this source does not know fails there, at ``load()``
or ``save()``, listing the names it knows (reads used to ignore unknown
names, so a misspelt ``.option("filer", ...)`` silently read everything).

Reads: ``path`` / ``paths`` (what ``load(...)`` passes), ``pathGlobFilter``,
``basePath``, ``partitionColumnTypeInference``, ``timeZone``, ``batchSize``,
``filter``, ``filters``, ``columns``, ``mergeSchema``, ``maxPartitionBytes``,
``openCostInBytes``, ``minPartitions``, ``prunePushedFilters``,
``skipping.md_base`` and the ``parquet.encryption.*`` family
(:mod:`spark_adapter.core.crypto_options`).

Writes: ``path``, ``partitionBy``, ``timeZone``, every ``pc.ParquetWriter``
option (:mod:`spark_adapter.core.write_options`: any case, with or without
underscores, as the README documents) and ``parquet.encryption.*``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_adapter.core.option_values import check_names, flag, lowered, positive

__all__ = ["SHORT_NAME", "READ_OPTIONS", "ReadOptions", "WriteOptions", "read_options", "write_options"]

SHORT_NAME = "pqcore"
ENCRYPTION_PREFIX = "parquet.encryption."

DEFAULT_BATCH_SIZE = 65536
DEFAULT_MAX_PARTITION_BYTES = 128 * 1024 * 1024   # spark.sql.files.maxPartitionBytes
DEFAULT_OPEN_COST = 4 * 1024 * 1024               # spark.sql.files.openCostInBytes

#: the read options, as documented (matched without case)
READ_OPTIONS = (
    "path", "paths", "pathGlobFilter", "basePath", "partitionColumnTypeInference", "timeZone",
    "batchSize", "filter", "filters", "columns", "mergeSchema", "maxPartitionBytes",
    "openCostInBytes", "minPartitions", "prunePushedFilters", "skipping.md_base",
)


@dataclass(frozen=True)
class ReadOptions:
    """A ``load(...)``'s options, typed (see the module docstring for their meaning)."""

    paths: tuple[str, ...] = ()
    path_glob_filter: str | None = None
    base_path: str | None = None
    partition_type_inference: bool = True
    time_zone: str | None = None          # None: Spark's session zone, as tasks see it
    batch_size: int = DEFAULT_BATCH_SIZE
    filter: str | None = None
    filters: str | None = None
    columns: str | None = None
    merge_schema: bool = False
    max_partition_bytes: int = DEFAULT_MAX_PARTITION_BYTES
    open_cost_in_bytes: int = DEFAULT_OPEN_COST
    min_partitions: int | None = None     # None: the planning host's CPU count
    prune_pushed_filters: bool = False
    skipping_md_base: str | None = None
    #: the ``parquet.encryption.*`` options, names lower-cased (crypto_options parses them)
    encryption: dict[str, str] = field(default_factory=dict)

    def filter_texts(self) -> dict[str, str | None]:
        """The two filter options, as :class:`~spark_adapter.pqcore.scan.ScanFilter` takes them."""
        return {"filter": self.filter, "filters": self.filters}


@dataclass(frozen=True)
class WriteOptions:
    """A ``save(...)``'s options, typed."""

    path: str
    partition_by: tuple[str, ...] = ()
    time_zone: str | None = None          # None: the zone of Spark's batches (its session zone)
    engine: dict[str, Any] = field(default_factory=dict)       # pc.ParquetWriter keyword arguments
    encryption: dict[str, str] = field(default_factory=dict)   # parquet.encryption.*


def _paths(opts: Mapping[str, Any]) -> tuple[str, ...]:
    from spark_adapter.core.files import paths_from_options

    return tuple(paths_from_options(opts))


def _encryption(opts: Mapping[str, Any]) -> dict[str, str]:
    """The ``parquet.encryption.*`` options (names checked; values parsed where they are used)."""
    from spark_adapter.core.crypto_options import ENCRYPTION_OPTIONS

    out = {k: str(v) for k, v in opts.items() if k.startswith(ENCRYPTION_PREFIX)}
    check_names(SHORT_NAME, out, ENCRYPTION_OPTIONS)
    return out


def read_options(options: ReadOptions | Mapping[str, Any] | None) -> ReadOptions:
    """Parse a read's options; raises ValueError naming a bad option (or an unknown one)."""
    if isinstance(options, ReadOptions):
        return options
    opts = lowered(options)
    check_names(SHORT_NAME, opts, READ_OPTIONS, (ENCRYPTION_PREFIX,))
    min_partitions = opts.get("minpartitions")
    return ReadOptions(
        paths=_paths(opts),
        path_glob_filter=opts.get("pathglobfilter"),
        base_path=opts.get("basepath"),
        partition_type_inference=flag(SHORT_NAME, opts, "partitioncolumntypeinference", True,
                                      "partitionColumnTypeInference"),
        time_zone=opts.get("timezone"),
        batch_size=positive(opts, "batchsize", DEFAULT_BATCH_SIZE),
        filter=opts.get("filter"),
        filters=opts.get("filters"),
        columns=opts.get("columns"),
        merge_schema=flag(SHORT_NAME, opts, "mergeschema", False, "mergeSchema"),
        max_partition_bytes=positive(opts, "maxpartitionbytes", DEFAULT_MAX_PARTITION_BYTES),
        open_cost_in_bytes=positive(opts, "opencostinbytes", DEFAULT_OPEN_COST, zero=True),
        min_partitions=None if min_partitions is None else positive(opts, "minpartitions", 1),
        prune_pushed_filters=flag(SHORT_NAME, opts, "prunepushedfilters", False, "prunePushedFilters"),
        skipping_md_base=opts.get("skipping.md_base"),
        encryption=_encryption(opts),
    )


def write_options(options: Mapping[str, Any] | None) -> WriteOptions:
    """Parse a write's options; unknown names raise ValueError listing the known ones."""
    from spark_adapter.core.write_options import parse_partition_by, parse_writer_options

    opts = lowered(options)
    encryption = _encryption(opts)
    path = opts.get("path")
    if not path:
        raise ValueError("pqcore: no path given; use save(path)")
    return WriteOptions(
        path=str(path),
        partition_by=tuple(parse_partition_by(opts)),
        time_zone=opts.get("timezone"),
        engine=parse_writer_options(opts),     # refuses unknown names
        encryption=encryption,
    )
