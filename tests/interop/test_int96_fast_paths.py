"""Issue 32: the INT96 conversions' fast paths (one allocation, in-place checks) give
pyarrow's values.

Oracle: pyarrow's reading of INT96 files it writes (``use_deprecated_int96_timestamps``),
by default (nanoseconds) and with ``coerce_int96_timestamp_unit``; raw INT96 records
outside pyarrow's reach are checked against the spec's arithmetic in Python integers.
"""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.schema.temporal import JULIAN_EPOCH_DAY, int96_to_ns, int96_to_unit

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_DAY_NS = 86_400 * 10**9


def _ns_values(n: int) -> list[int | None]:
    """Nanosecond instants with sub-microsecond digits either side of the epoch,
    a few distinct ones repeated (a dictionary-encoded chunk), every 7th null."""
    rng = np.random.default_rng(32)
    distinct = [-1, -1001, -999_999_999, -5_000_000_000_000_000_001, 1, 999,
                1_700_000_000_123_456_789, -9_000_000_000_000_000_000, 9_000_000_000_000_000_001]
    picks = rng.integers(0, len(distinct), n)
    return [None if i % 7 == 3 else distinct[p] for i, p in enumerate(picks.tolist())]


def _file(values: list[int | None], **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"t": pa.array(values, pa.timestamp("ns")), "i": np.arange(len(values))}), buf,
                   use_deprecated_int96_timestamps=True, store_schema=False, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("unit", [None, "ns", "us", "ms"])
def test_int96_columns_read_as_pyarrow_reads_them(unit, dictionary):
    data = _file(_ns_values(3000), use_dictionary=dictionary, data_page_size=4096)
    enc = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).encodings
    assert ("RLE_DICTIONARY" in enc) == dictionary
    want = pq.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    got = pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit).to_arrow()
    assert got.equals(want)
    # without nulls: the unmasked checks
    data = _file([v for v in _ns_values(3000) if v is not None], use_dictionary=dictionary, data_page_size=4096)
    want = pq.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    assert pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit).to_arrow().equals(want)


def test_int96_outside_nanoseconds_read_as_pyarrow_reads_them():
    us = [-62_135_596_800_000_000, None, 253_402_300_799_999_999, -1, 1]   # years 1 and 9999
    buf = io.BytesIO()
    pq.write_table(pa.table({"t": pa.array(us * 50, pa.timestamp("us"))}), buf,
                   use_deprecated_int96_timestamps=True, store_schema=False)
    for unit in ("us", "ms"):
        want = pq.read_table(io.BytesIO(buf.getvalue()), coerce_int96_timestamp_unit=unit)
        got = pc.read_table(io.BytesIO(buf.getvalue()), coerce_int96_timestamp_unit=unit).to_arrow()
        assert got.equals(want), unit
    # by default such a column comes as microseconds (pyarrow's nanoseconds would wrap)
    got = pc.read_table(io.BytesIO(buf.getvalue())).to_arrow()
    assert got.equals(pq.read_table(io.BytesIO(buf.getvalue()), coerce_int96_timestamp_unit="us"))


def _records(days: list[int], nanos: list[int]) -> np.ndarray:
    return np.frombuffer(b"".join(struct.pack("<qi", n, d) for d, n in zip(days, nanos)),
                         dtype=np.uint8).reshape(-1, 12)


def _spec_floor(day: int, nanos: int, per_ns: int) -> int:
    """The instant in whole units of *per_ns* nanoseconds, floored, wrapped to int64 as
    Spark's microsecond arithmetic wraps (Python integers, not the code under test)."""
    us = (day - JULIAN_EPOCH_DAY) * 86_400_000_000 + nanos // 1000
    us = ((us + 2**63) % 2**64) - 2**63
    return us // (per_ns // 1000)


@pytest.mark.parametrize("unit, per_ns", [("us", 1000), ("ms", 10**6)])
def test_int96_to_unit_floors_toward_minus_infinity(unit, per_ns):
    rng = np.random.default_rng(7)
    # inside the nanosecond band (the in-place division) ...
    days = rng.integers(JULIAN_EPOCH_DAY - 106_000, JULIAN_EPOCH_DAY + 106_000, 500).tolist()
    nanos = rng.integers(0, _DAY_NS, 500).tolist()
    raw = _records(days, nanos)
    assert int96_to_ns(raw) is not None
    values, bad = int96_to_unit(raw, unit)
    assert values.tolist() == [_spec_floor(d, n, per_ns) for d, n in zip(days, nanos)] and not bad.any()
    # ... and outside it (year 290000 as Spark writes it, a nanosecond field past the day):
    # the general path, the same numbers; a Julian day below 0 (year -5000) is read as the
    # unsigned day pyarrow reads, and flagged where that count leaves int64 (microseconds)
    days += [JULIAN_EPOCH_DAY + 3_000_000, JULIAN_EPOCH_DAY, JULIAN_EPOCH_DAY - 2_500_000]
    nanos += [1_999, _DAY_NS + 1_001, 5]
    raw = _records(days, nanos)
    assert int96_to_ns(raw) is None
    values, bad = int96_to_unit(raw, unit)
    assert values[:-1].tolist() == [_spec_floor(d, n, per_ns) for d, n in zip(days[:-1], nanos[:-1])]
    unsigned = ((days[-1] % 2**32) - JULIAN_EPOCH_DAY) * (_DAY_NS // per_ns) + nanos[-1] // per_ns
    fits = -2**63 <= unsigned < 2**63
    assert bad.tolist() == [False] * (len(days) - 1) + [not fits]
    if fits:
        assert values[-1] == unsigned


def test_int96_to_ns_reads_unaligned_and_strided_input():
    days, nanos = [JULIAN_EPOCH_DAY - 1, JULIAN_EPOCH_DAY + 20_000], [_DAY_NS - 1, 7]
    raw = _records(days, nanos)
    want = [(d - JULIAN_EPOCH_DAY) * _DAY_NS + n for d, n in zip(days, nanos)]
    shifted = np.frombuffer(b"\0" + raw.tobytes(), dtype=np.uint8)[1:].reshape(-1, 12)
    assert int96_to_ns(shifted).tolist() == want
    wide = np.zeros((2, 16), np.uint8)
    wide[:, :12] = raw
    assert int96_to_ns(wide[:, :12]).tolist() == want
    assert int96_to_ns(raw, np.array([False, True])).tolist()[1] == want[1]
