"""Move the last level slot of a chunk's first data page to the start of its second page,
so that page 1 starts inside a record (test helper for ``page_index.record-split``).

Works on an uncompressed, PLAIN, v1 chunk of a list of required INT64; the pages are
decoded and re-encoded with the engine's level and PLAIN codecs, the file is rebuilt
(``broken.edit_page``) and the offset index is pointed at the moved pages again.
"""

from __future__ import annotations

import numpy as np

from parquet_core.column.levels import read_levels_v1
from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings import decode_values
from parquet_core.encodings.plain_encoder import encode_plain
from parquet_core.encodings.rle_hybrid_encoder import encode_levels_v1
from tests.check.broken import edit_index, edit_page, pages_of


def _decode(body: bytes, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    buf = memoryview(body)
    reps, pos = read_levels_v1(buf, 0, Encoding.RLE, 1, n, "repetition")
    defs, pos = read_levels_v1(buf, pos, Encoding.RLE, 2, n, "definition")
    vals = decode_values(Encoding.PLAIN, buf[pos:], int(np.count_nonzero(defs == 2)), PhysicalType.INT64, None)
    return reps, defs, np.asarray(vals)


def _encode(reps: np.ndarray, defs: np.ndarray, vals: np.ndarray) -> bytes:
    return encode_levels_v1(reps, 1) + encode_levels_v1(defs, 2) + encode_plain(vals, PhysicalType.INT64)


def split_records(data: bytes) -> bytes:
    pages = pages_of(data, 0, 0)
    (p0, h0, n0), (p1, h1, n1) = pages[0], pages[1]
    r0, d0, v0 = _decode(data[p0 + n0:p0 + n0 + h0.compressed_page_size], h0.data_page_header.num_values)
    r1, d1, v1 = _decode(data[p1 + n1:p1 + n1 + h1.compressed_page_size], h1.data_page_header.num_values)
    assert r0[-1] != 0 and d0[-1] == 2, "the last slot of page 0 must continue a record"
    new0 = _encode(r0[:-1], d0[:-1], v0[:-1])
    new1 = _encode(np.concatenate([r0[-1:], r1]), np.concatenate([d0[-1:], d1]), np.concatenate([v0[-1:], v1]))

    def first(h, s):
        h.data_page_header.num_values -= 1
        h.uncompressed_page_size = len(new0)
        h.data_page_header.statistics = None
        return new0

    def second(h, s):
        h.data_page_header.num_values += 1
        h.uncompressed_page_size = len(new1)
        h.data_page_header.statistics = None
        return new1

    data = edit_page(data, 0, 0, 0, first)
    data = edit_page(data, 0, 0, 1, second)
    where = pages_of(data, 0, 0)

    def relocate(oi):
        for loc, (pos, h, n) in zip(oi.page_locations, where):
            loc.offset, loc.compressed_page_size = pos, n + h.compressed_page_size
    return edit_index(data, 0, 0, "offset", relocate)
