"""Valid pyarrow files to break, and the helpers that expect ``pc.check`` to report a rule
(shared by the tests/check modules)."""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from tests.check.broken import pyarrow_bytes

pa = pytest.importorskip("pyarrow")

__all__ = ["ANY", "N", "base", "bloomed", "crc", "expect", "find", "indexed", "plain", "v2"]

ANY = object()
N = 1000


def _table():
    i = np.arange(N, dtype=np.int64)
    s = pa.array([None if k % 10 == 3 else f"w{k % 37:03d}" for k in range(N)])
    f = np.where(i % 5 == 0, 0.0, np.sin(i) * 100)
    return pa.table({"a": i, "b": s, "f": f})


_CACHE: dict = {}


def base(**options) -> bytes:
    key = repr(sorted(options.items()))
    if key not in _CACHE:
        _CACHE[key] = _write(**options)
    return _CACHE[key]


def _write(**options) -> bytes:
    opts = dict(row_group_size=500, data_page_size=1024, write_batch_size=64, store_schema=True)
    opts.update(options)
    return pyarrow_bytes(_table(), **opts)


def plain() -> bytes:
    return base()


def crc() -> bytes:
    return base(write_page_checksum=True)


def indexed() -> bytes:   # a and f without dictionary: several data pages each
    return base(write_page_index=True, use_dictionary=["b"])


def v2() -> bytes:
    return base(data_page_version="2.0")


def bloomed() -> bytes:
    return base(bloom_filter_options={"a": True, "b": True})


def find(report: pc.CheckReport, rule: str, row_group=ANY, column=ANY, page=ANY):
    for f in report.findings:
        if f.rule == rule and all(want is ANY or got == want for want, got in (
                (row_group, f.row_group), (column, f.column), (page, f.page))):
            return f
    raise AssertionError(f"no {rule} at rg={row_group} column={column} page={page}; found:\n" +
                         "\n".join(str(f) for f in report.findings))


def expect(data: bytes, rule: str, row_group=ANY, column=ANY, page=ANY, *, level="data", severity="error",
           **kw) -> pc.CheckReport:
    report = pc.check(data, level=level, **kw)
    f = find(report, rule, row_group, column, page)
    assert f.severity == severity, f
    assert f.spec and f.message
    if severity == "error":
        assert not report.ok
    return report
