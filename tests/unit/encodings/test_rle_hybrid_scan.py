"""The vectorised run-header scan agrees with the run-by-run scan.

Dense level streams (many short runs) switch to the vectorised chain walk
after a few hundred runs; these tests build such streams and compare both
scans and the decoded values with an independent reference decoder.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.rle_hybrid import decode_rle_hybrid
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import pack_lsb, uleb


def _as_columns(takes, tags, end):
    """A run table (values taken, tag: RLE value, or ~body offset of a
    bit-packed run) as (takes, values or -1, bodies or -1, end)."""
    takes = np.asarray(takes, dtype=np.int64)
    tags = np.asarray(tags, dtype=np.int64)
    packed = tags < 0
    return takes, np.where(packed, -1, tags), np.where(packed, ~tags, -1), end


def _scan_runs(arr, w, count, what):
    """The run-by-run scan's table, in columns."""
    table, end = rle_hybrid._scan(arr, w, count, what)
    if isinstance(table, tuple):
        return _as_columns(*table, end)
    pairs = np.asarray(table, dtype=np.int64).reshape(-1, 2)
    return _as_columns(pairs[:, 0], pairs[:, 1], end)


def _scan_runs_vectorised(arr, start, w, count, what):
    """The vectorised scan's table, in columns."""
    return _as_columns(*rle_hybrid._vector_table(arr, start, w, count, what))


def _build(runs, w):
    """runs: list of ("rle", count, value) or ("bp", groups, values)."""
    vbytes = (w + 7) // 8
    buf = bytearray()
    expected: list[int] = []
    for kind, n, payload in runs:
        if kind == "rle":
            buf += uleb(n << 1) + int(payload).to_bytes(vbytes, "little")
            expected += [payload] * n
        else:
            vals = payload
            buf += uleb((n << 1) | 1) + pack_lsb(vals, w)
            expected += list(vals)
    return bytes(buf), expected


def _random_runs(rng, w, nruns, long_runs):
    runs = []
    for _ in range(nruns):
        if rng.random() < 0.5:
            n = int(rng.integers(0, 300 if long_runs else 12))
            runs.append(("rle", n, int(rng.integers(0, 1 << w))))
        else:
            g = int(rng.integers(0, 4))
            runs.append(("bp", g, [int(x) for x in rng.integers(0, 1 << w, g * 8)]))
    return runs


@pytest.mark.parametrize("w", [1, 2, 3, 7, 8, 9, 16, 17, 31])
@pytest.mark.parametrize("long_runs", [False, True])
def test_dense_streams_decode_like_reference(w, long_runs) -> None:
    rng = np.random.default_rng(w * 10 + long_runs)
    buf, expected = _build(_random_runs(rng, w, 3000, long_runs), w)
    for count in (len(expected), len(expected) // 2, 1):
        got = decode_rle_hybrid(buf + b"\xff\x07junk", w, count)
        assert got.tolist() == expected[:count]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), w=st.integers(1, 32), nruns=st.integers(1, 600))
def test_vectorised_scan_equals_loop(seed, w, nruns) -> None:
    rng = np.random.default_rng(seed)
    buf, expected = _build(_random_runs(rng, w, nruns, bool(seed & 1)), w)
    if not expected:
        return
    arr = np.frombuffer(buf, dtype=np.uint8)
    what = "test"
    fast = _scan_runs_vectorised(arr, 0, w, len(expected), what)
    saved = rle_hybrid._PROBE_RUNS
    rle_hybrid._PROBE_RUNS = 10**9  # force the run-by-run loop
    try:
        slow = _scan_runs(arr, w, len(expected), what)
    finally:
        rle_hybrid._PROBE_RUNS = saved
    for a, b in zip(fast[:3], slow[:3]):
        assert a.tolist() == b.tolist()
    assert fast[3] == slow[3]


def test_truncated_dense_stream_raises() -> None:
    rng = np.random.default_rng(5)
    buf, expected = _build(_random_runs(rng, 1, 2000, False), 1)
    with pytest.raises(ParquetFormatError, match="ends after"):
        decode_rle_hybrid(buf, 1, len(expected) + 50)
    with pytest.raises(ParquetFormatError):
        decode_rle_hybrid(buf[: len(buf) // 2], 1, len(expected))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["rle", "bp"]), st.integers(0, 40), st.integers(0, 2**31)),
                max_size=12),
       st.integers(0, 8))
def test_width_one_long_packed_runs(runs, extra) -> None:
    """Bit width 1 streams with bit-packed bodies of any length (long ones are expanded
    by numpy, short ones by table lookups) decode like the reference."""
    rng = np.random.default_rng(len(runs))
    spec = []
    for kind, n, v in runs:
        if kind == "rle":
            spec.append(("rle", n, v & 1))
        else:
            spec.append(("bp", n, [int(x) for x in rng.integers(0, 2, n * 8)]))
    buf, expected = _build(spec, 1)
    count = max(len(expected) - extra, 0)
    got = decode_rle_hybrid(buf, 1, count)
    assert got.tolist() == expected[:count]
    if expected:
        with pytest.raises(ParquetFormatError):
            decode_rle_hybrid(buf[: len(buf) // 2] if len(buf) > 1 else b"", 1, len(expected) + 8)
