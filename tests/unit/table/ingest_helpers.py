"""Shared assertions for the ingest tests."""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

import pytest

from parquet_core.errors import ParquetSchemaError


@contextmanager
def schema_error(column: str, row: int | None = None, match: str | None = None) -> Iterator[None]:
    """Expect a ParquetSchemaError naming *column* (and *row*, counted from 0)."""
    with pytest.raises(ParquetSchemaError) as info:
        yield
    msg = str(info.value)
    assert f"column {column!r}" in msg, msg
    if row is not None:
        assert re.search(rf"\brow {row}\b", msg), msg
    if match is not None:
        assert re.search(match, msg), msg
