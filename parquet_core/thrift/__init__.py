"""Parquet metadata wire format: the generated Thrift types and their codec.

The struct and enum classes generated from ``thrift_defs/parquet.thrift`` (in
:mod:`parquet_core.thrift.generated`) are
re-exported as the module :data:`pt`, so callers write ``pt.FileMetaData``,
``pt.PageHeader`` or ``pt.Encoding.PLAIN``.  :func:`parse` and
:func:`serialize` convert between those objects and compact-protocol bytes;
:mod:`parquet_core.thrift.lazy_footer` decodes a ``FileMetaData`` footer lazily
(row groups, statistics and key/value metadata when first used).
"""

from __future__ import annotations

from parquet_core.thrift.codec import HAVE_ACCELERATED, Buffer, check_required, parse, serialize
from parquet_core.thrift.generated import ttypes as pt

__all__ = ["pt", "HAVE_ACCELERATED", "Buffer", "parse", "serialize", "check_required"]
