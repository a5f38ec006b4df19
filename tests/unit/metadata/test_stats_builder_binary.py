"""Binary orders and bound truncation (parquet_core.metadata.binary_order).

Oracles: Python's ``bytes`` comparison is exactly the spec's unsigned
byte-wise order (shorter prefix first); ``int.from_bytes(..., signed=True)``
is the DECIMAL order; UTF-8 validity is checked by ``bytes.decode``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.metadata.binary_order import (
    byte_array_extremes,
    fixed_extremes,
    signed_byte_array_extremes,
    truncate_max,
    truncate_min,
)

_SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)

# few distinct bytes so that long shared prefixes and prefix relations are common
_bytes = st.binary(max_size=24) | st.lists(st.sampled_from([0, 1, 0x7F, 0x80, 0xFF]), max_size=20).map(bytes)


@_SETTINGS
@given(st.lists(_bytes, min_size=1, max_size=40), st.integers(0, 3))
def test_byte_array_extremes_match_python_bytes_order(values, lead) -> None:
    # a leading value that is sliced off exercises offsets not starting at 0
    whole = ByteArrays.from_pylist([b"\x00" * lead] + values)
    view = ByteArrays(whole.offsets[1:], whole.data)
    i, j = byte_array_extremes(view)
    assert values[i] == min(values) and values[j] == max(values)


@_SETTINGS
@given(st.integers(1, 20), st.lists(st.binary(min_size=20, max_size=20), min_size=1, max_size=30))
def test_fixed_extremes_match_python_bytes_order(width, rows) -> None:
    rows = [r[:width] for r in rows]
    m = np.frombuffer(b"".join(rows), np.uint8).reshape(-1, width)
    i, j = fixed_extremes(m)
    assert rows[i] == min(rows) and rows[j] == max(rows)


@_SETTINGS
@given(st.integers(1, 17), st.lists(st.integers(), min_size=1, max_size=30))
def test_signed_fixed_extremes_are_numeric(width, ints) -> None:
    lim = 1 << (8 * width - 1)
    ints = [max(-lim, min(lim - 1, v)) for v in ints]
    m = np.frombuffer(b"".join(v.to_bytes(width, "big", signed=True) for v in ints), np.uint8)
    i, j = fixed_extremes(m.reshape(-1, width), signed=True)
    assert ints[i] == min(ints) and ints[j] == max(ints)


def _minimal(v: int) -> bytes:
    return v.to_bytes((v + (v < 0)).bit_length() // 8 + 1, "big", signed=True)


@_SETTINGS
@given(st.lists(st.integers(-(2**100), 2**100), min_size=1, max_size=30), st.booleans())
def test_signed_byte_array_extremes_sign_extend(ints, pad) -> None:
    # minimal-width and padded encodings of the same numbers mix freely
    raw = [_minimal(v) if (k % 2 or not pad) else v.to_bytes(16, "big", signed=True)
           for k, v in enumerate(ints)]
    i, j = signed_byte_array_extremes(ByteArrays.from_pylist(raw))
    assert ints[i] == min(ints) and ints[j] == max(ints)


def test_signed_byte_array_empty_value_reads_as_zero() -> None:
    i, j = signed_byte_array_extremes(ByteArrays.from_pylist([b"", b"\xff", b"\x01"]))
    assert (i, j) == (1, 2)


def test_extremes_need_values() -> None:
    with pytest.raises(ValueError):
        byte_array_extremes(ByteArrays.empty())
    with pytest.raises(ValueError):
        fixed_extremes(np.zeros((0, 4), np.uint8))


# --- truncation -------------------------------------------------------------------------------

def test_truncate_min_is_a_prefix() -> None:
    assert truncate_min(b"abcdef", 3) == (b"abc", False)
    assert truncate_min(b"abc", 3) == (b"abc", True)
    assert truncate_min(b"abc", 0) == (b"", False)


def test_truncate_max_rounds_up_with_carry() -> None:
    assert truncate_max(b"abcdef", 3) == (b"abd", False)
    assert truncate_max(b"ab\xff\xffzz", 4) == (b"ac", False)
    assert truncate_max(b"a\xfe\xff\xff", 3) == (b"a\xff", False)
    assert truncate_max(b"abc", 5) == (b"abc", True)


def test_truncate_max_all_ff_is_impossible() -> None:
    assert truncate_max(b"\xff" * 6, 4) == (None, False)
    assert truncate_max(b"\xff\xff\xffa", 3) == (None, False)
    assert truncate_max(b"x", 0) == (None, False)


def test_truncate_utf8_boundaries() -> None:
    s = "aé€😀".encode()  # 1 + 2 + 3 + 4 bytes
    assert truncate_min(s, 2, text=True) == (b"a", False)
    assert truncate_min(s, 5, text=True) == ("aé".encode(), False)
    assert truncate_max(s, 2, text=True) == (b"b", False)
    assert truncate_max(s, 5, text=True) == ("aê".encode(), False)  # é + 1 = ê
    assert truncate_max(s, 6, text=True) == ("aé₭".encode(), False)  # € + 1 = ₭
    # the incremented code point grows to 2 bytes and does not fit: bump the previous one
    assert truncate_max("a\x7fzzz".encode(), 2, text=True) == (b"b", False)
    # U+D7FF + 1 is a surrogate: skip to U+E000
    assert truncate_max("\ud7ffzz".encode(), 3, text=True) == ("\ue000".encode(), False)
    # U+10FFFF cannot be incremented: drop it
    assert truncate_max("a\U0010ffffz".encode(), 5, text=True) == (b"b", False)
    assert truncate_max("\U0010ffff\U0010ffffz".encode(), 8, text=True) == (None, False)


def test_truncate_invalid_utf8_falls_back_to_bytes() -> None:
    raw = b"ab\xc3zz"
    assert truncate_min(raw, 3, text=True) == (b"ab\xc3", False)
    assert truncate_max(raw, 3, text=True) == (b"ab\xc4", False)


@_SETTINGS
@given(st.binary(max_size=40), st.integers(1, 12))
def test_truncated_bytes_stay_bounds(raw, limit) -> None:
    lo, _ = truncate_min(raw, limit)
    assert len(lo) <= limit and lo <= raw
    hi, exact = truncate_max(raw, limit)
    if hi is not None:
        assert len(hi) <= limit and hi >= raw and exact == (hi == raw)


@_SETTINGS
@given(st.text(max_size=30), st.integers(1, 16))
def test_truncated_text_stays_valid_utf8_bounds(text, limit) -> None:
    raw = text.encode("utf-8")
    lo, lo_exact = truncate_min(raw, limit, text=True)
    assert len(lo) <= limit and lo <= raw and raw.startswith(lo)
    lo.decode("utf-8")
    hi, hi_exact = truncate_max(raw, limit, text=True)
    if hi is not None:
        assert len(hi) <= limit and hi >= raw
        hi.decode("utf-8")
        assert hi_exact == (hi == raw)
    else:
        assert len(raw) > limit


def test_negative_limit_is_rejected() -> None:
    with pytest.raises(ValueError):
        truncate_min(b"a", -1)
    with pytest.raises(ValueError):
        truncate_max(b"a", 1.5)
