"""Truncated and garbled files give findings (or an unreadable report), never a traceback,
and never a failure of the checker itself (``check.internal``)."""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc

FILES = ["alltypes_plain.parquet", "alltypes_tiny_pages_plain.parquet", "datapage_v2.snappy.parquet",
         "nested_lists.snappy.parquet", "data_index_bloom_encoding_stats.parquet", "delta_byte_array.parquet",
         "byte_stream_split.zstd.parquet", "nullable.impala.parquet"]


def _assert_reported(data: bytes, what: str) -> pc.CheckReport:
    report = pc.check(data)
    internal = [str(f) for f in report.findings if f.rule == "check.internal"]
    assert not internal, (what, internal)
    return report


@pytest.mark.parametrize("name", FILES)
def test_truncations(corpus, name):
    data = (corpus / name).read_bytes()
    rng = np.random.default_rng(len(name))
    for cut in sorted(set(rng.integers(0, len(data) - 1, 25).tolist()) | {0, 3, 11, len(data) - 1}):
        report = _assert_reported(data[:cut], f"{name}[:{cut}]")
        assert not report.ok


@pytest.mark.parametrize("name", [f for f in FILES if "tiny_pages" not in f])   # (that one: 0.4 s a check)
def test_flipped_bytes(corpus, name):
    data = (corpus / name).read_bytes()
    rng = np.random.default_rng(len(name) + 1)
    for _ in range(40):
        buf = bytearray(data)
        for pos in rng.integers(0, len(data), 3):
            buf[pos] ^= int(rng.integers(1, 256))
        _assert_reported(bytes(buf), f"{name} flipped")


def test_garbage():
    rng = np.random.default_rng(5)
    for n in (0, 1, 12, 100, 5000):
        body = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        for data in (body, b"PAR1" + body + b"PAR1", b"PAR1" + body + (len(body) // 2).to_bytes(4, "little") + b"PAR1"):
            report = _assert_reported(data, f"garbage {n}")
            assert not report.ok
