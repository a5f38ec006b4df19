"""Rewrite the footer of a file another writer produced (test helper).

Lets tests annotate columns with types that writer cannot emit (ENUM, BSON,
INTERVAL ...) while the pages stay exactly as the other implementation wrote
them.  Column chunk offsets point before the footer, so they stay valid.
"""

from __future__ import annotations

import struct
from typing import Any, Callable

from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse, serialize


def edit_footer(data: bytes, edit: Callable[[Any], None]) -> bytes:
    """Return *data* with its footer passed through *edit* (mutating ``pt.FileMetaData``)."""
    (flen,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - flen
    meta, _ = parse(data[start:-8], pt.FileMetaData)
    edit(meta)
    footer = serialize(meta)
    return data[:start] + footer + struct.pack("<I", len(footer)) + b"PAR1"
