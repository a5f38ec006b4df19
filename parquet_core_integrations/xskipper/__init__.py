"""xskipper-compatible data-skipping metadata stores (format versions 0-4), on parquet_core.

* :class:`Xskipper` / :func:`list_indexes`: build, refresh, drop, describe an index; skipped files.
* :class:`MetadataStore`: read any metadata directory; :func:`skip_decisions`: per-file verdicts.
* :func:`write_store`: write a v4 directory as xskipper does.
* :class:`SparkBloomFilter`, :func:`decode_bloom_cell` / :func:`encode_bloom_cell`: the Bloom cells.

See ``parquet_core_integrations/xskipper/README.md``.
"""

from parquet_core_integrations.xskipper.api import IndexBuilder, Xskipper, list_indexes
from parquet_core_integrations.xskipper.errors import XskipperError, XskipperFormatError, XskipperIndexError
from parquet_core_integrations.xskipper.javaser import decode_bloom_cell, encode_bloom_cell
from parquet_core_integrations.xskipper.names import column_name, file_id, metadata_dir, table_identifier
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter
from parquet_core_integrations.xskipper.skipping import SkipResult, skip_decisions
from parquet_core_integrations.xskipper.store import IndexMeta, MetadataStore, VersionStatus
from parquet_core_integrations.xskipper.writer import IndexColumn, write_store

__all__ = ["IndexBuilder", "IndexColumn", "IndexMeta", "MetadataStore", "SkipResult", "SparkBloomFilter",
           "VersionStatus", "Xskipper", "XskipperError", "XskipperFormatError", "XskipperIndexError",
           "column_name", "decode_bloom_cell", "encode_bloom_cell", "file_id", "list_indexes", "metadata_dir",
           "skip_decisions", "table_identifier", "write_store"]
