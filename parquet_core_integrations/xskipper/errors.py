"""Errors of the xskipper metadata store, rooted in parquet_core's hierarchy."""

from __future__ import annotations

import parquet_core as pc

__all__ = ["XskipperError", "XskipperFormatError", "XskipperIndexError"]


class XskipperError(pc.ParquetError):
    """Root of the errors raised by ``parquet_core_integrations.xskipper``."""


class XskipperFormatError(XskipperError):
    """A metadata directory, file, schema JSON or cell does not follow the format."""


class XskipperIndexError(XskipperError):
    """An index operation is impossible (already indexed, not indexed, bad column...)."""
