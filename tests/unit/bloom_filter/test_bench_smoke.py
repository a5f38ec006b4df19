"""The Bloom filter benchmark runs and checks its own results (no timing assertions)."""

from __future__ import annotations

import pytest

pytest.importorskip("xxhash")


def test_bench_bloom_runs() -> None:
    from benchmarks.bench_bloom import run

    rows = run(3000, 1)
    assert [r[0] for r in rows] == ["int64", "float64", "string 4-16 B", "string 40-200 B"]
    assert all(v > 0 for r in rows for v in r[1:])
