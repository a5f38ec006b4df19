"""Smoke tests for the read benchmark harness (no timing assertions, ever).

The default ``pytest`` run collects these with the suite (``testpaths``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from benchmarks import _harness, read_bench, read_bench_data
from benchmarks.read_bench_check import check_array

STATUSES = {"ok", "FAILED", "WRONG", "n/a"}


class FakeArray:
    """Just enough of ``parquet_core.Array`` for ``check_array``."""

    def __init__(self, values: Any, validity: Any = None, pylist: list[Any] | None = None) -> None:
        self.values = values
        self.validity = validity
        self._pylist = pylist

    def __len__(self) -> int:
        return len(self.values) if not hasattr(self.values, "offsets") else len(self.values.offsets) - 1

    def slice(self, a: int, b: int) -> FakeArray:
        return FakeArray(self.values, self.validity, self._pylist[a:b])

    def to_pylist(self) -> list[Any]:
        return self._pylist


class FakeBytes:
    def __init__(self, offsets: np.ndarray, data: np.ndarray) -> None:
        self.offsets, self.data = offsets, data


def test_check_accepts_equal_and_catches_wrong_numbers() -> None:
    ref = pa.array([1, None, 3, 4], pa.int64())
    good = FakeArray(np.array([1, 0, 3, 4], np.int64), np.array([1, 0, 1, 1], bool), ref.to_pylist())
    assert check_array(good, ref) == (True, "ok")
    wrong = FakeArray(np.array([1, 0, 3, 5], np.int64), good.validity, ref.to_pylist())
    ok, detail = check_array(wrong, ref)
    assert not ok and "row 3" in detail
    bad_nulls = FakeArray(good.values, None, ref.to_pylist())
    assert not check_array(bad_nulls, ref)[0]
    bad_dtype = FakeArray(good.values.astype(np.int32), good.validity, ref.to_pylist())
    assert "dtype" in check_array(bad_dtype, ref)[1]


def test_check_strings_and_timestamps() -> None:
    ref = pa.array(["ab", None, "", "xyz"])
    offs = np.array([0, 2, 2, 2, 5], np.int64)
    data = np.frombuffer(b"abxyz", np.uint8)
    arr = FakeArray(FakeBytes(offs, data), np.array([1, 0, 1, 1], bool), ref.to_pylist())
    assert check_array(arr, ref)[0]
    wrong = FakeArray(FakeBytes(offs, np.frombuffer(b"abxyZ", np.uint8)), arr.validity, ref.to_pylist())
    assert not check_array(wrong, ref)[0]
    ts = pa.array([0, 1_000_000], pa.timestamp("us"))
    assert check_array(FakeArray(np.array([0, 1_000_000], np.int64), None, ts.to_pylist()), ts)[0]
    # right buffer, wrong Python edge (e.g. ints where datetimes are expected)
    assert not check_array(FakeArray(np.array([0, 1_000_000], np.int64), None, [0, 1_000_000]), ts)[0]


def test_dataset_is_deterministic() -> None:
    a = read_bench_data.make_table(5000, seed=7)
    b = read_bench_data.make_table(5000, seed=7)
    assert a.equals(b)
    assert a.column_names == list(read_bench_data.COLUMNS)
    assert a.column("int64_null").null_count > 0
    assert len(set(a.column("str_low").to_pylist())) <= 50


@pytest.mark.slow
def test_end_to_end_smoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the harness collects garbage before every timed call, which in a test process holding
    # the suite's heap cost more than the whole run; no time is looked at here
    monkeypatch.setattr(_harness.gc, "collect", lambda *a: 0)
    out = tmp_path / "r.json"
    res = read_bench.main(["--rows", "3000", "--quick", "--repeats", "1", "--check", "--cache-dir",
                           str(tmp_path / "c"), "--json", str(out)])
    loaded = json.loads(out.read_text())
    assert [v["name"] for v in loaded["variants"]] == [v.name for v in read_bench_data.VARIANTS]
    for v in res["variants"]:
        assert not v.get("error"), v.get("error")
        for row in v["columns"] + [v["table"]]:
            for e, cell in row["engines"].items():
                assert cell["status"] in STATUSES
                if cell["status"] != "ok":
                    assert cell.get("error")
                if e in ("pa1", "paMT"):
                    assert cell["status"] == "ok"
            if row["engines"]["pc"]["status"] == "ok":
                assert row["check"]["status"] == "ok"
    assert res["footer"]["num_row_groups"] == 50 and res["footer"]["num_columns"] == 100
