"""The packed-word string dictionary and dictionary extension, against a Python dict.

``build_dictionary`` keys strings of at most 32 bytes by fixed-width masked
word gathers (one hashed 64-bit key, then an exact comparison of words and
lengths); ``extend_dictionary`` joins the dictionaries of consecutive runs.
Both are pinned here against a plain ``dict`` over the byte strings, on
values chosen to trip a packing bug: embedded and trailing NUL bytes
(``b"a"`` vs ``b"a\\0"``), empty strings, lengths around every word
boundary, non-ASCII bytes, and strings past the packed limit.
"""

from __future__ import annotations

import numpy as np
import pytest
from tests.unit.encodings.arrow_encoded import byte_arrays
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.unique import narrow_code_dtype
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import dictionary as dictionary_module
from parquet_core.encodings.dictionary import build_dictionary, extend_dictionary, packed_words


def reference(items: list[bytes]) -> tuple[list[bytes], list[int]]:
    seen: dict[bytes, int] = {}
    for item in items:
        seen.setdefault(item, len(seen))
    return list(seen), [seen[item] for item in items]


# alphabets that make near-equal strings likely: NULs (also trailing), one
# letter, and multi-byte UTF-8
_BYTES = st.sampled_from([b"\x00", b"a", b"b", "é".encode(), "\u20ac".encode(), b"\xff"])
_ITEM = st.one_of(
    st.lists(_BYTES, max_size=6).map(b"".join),
    st.integers(0, 40).flatmap(lambda n: st.lists(_BYTES, min_size=n, max_size=n).map(b"".join)),
    st.sampled_from([b"", b"a", b"a\x00", b"a\x00\x00", b"\x00", b"\x00a",
                     b"12345678", b"12345678\x00", b"1234567", b"x" * 16, b"x" * 15 + b"\x00",
                     b"y" * 24, b"y" * 32, b"y" * 33, b"z" * 31 + b"\x00"]),
)


def _entries(d: ByteArrays) -> list[bytes]:
    return d.to_pylist() if len(d) else []


@settings(max_examples=150, deadline=None, derandomize=True)
@given(items=st.lists(_ITEM, max_size=150), base=st.integers(0, 5))
def test_strings_match_a_python_dict(items: list[bytes], base: int) -> None:
    dictionary, idx = build_dictionary(byte_arrays(items, base), PT.BYTE_ARRAY)
    entries, codes = reference(items)
    assert _entries(dictionary) == entries
    assert idx.dtype == np.int32 and idx.tolist() == codes


@settings(max_examples=60, deadline=None, derandomize=True)
@given(items=st.lists(_ITEM, min_size=1, max_size=150), budget=st.integers(0, 400))
def test_budget_stops_on_a_prefix(items: list[bytes], budget: int) -> None:
    dictionary, idx = build_dictionary(byte_arrays(items, 0), PT.BYTE_ARRAY, budget=budget)
    p = len(idx)
    entries, codes = reference(items[:p])
    assert _entries(dictionary) == entries and idx.tolist() == codes
    if p < len(items):
        assert sum(len(x) + 4 for x in entries) > budget


@settings(max_examples=80, deadline=None, derandomize=True)
@given(items=st.lists(_ITEM, max_size=120), cut=st.integers(0, 120))
def test_extend_equals_one_build(items: list[bytes], cut: int) -> None:
    cut = min(cut, len(items))
    first = build_dictionary(byte_arrays(items[:cut], 1), PT.BYTE_ARRAY)
    more = build_dictionary(byte_arrays(items[cut:], 2), PT.BYTE_ARRAY)
    dictionary, idx = extend_dictionary(*first, *more, PT.BYTE_ARRAY)
    entries, codes = reference(items)
    assert _entries(dictionary) == entries and idx.tolist() == codes


@settings(max_examples=40, deadline=None, derandomize=True)
@given(keys=st.lists(st.integers(-3, 3), max_size=80), cut=st.integers(0, 80),
       dtype=st.sampled_from([np.int32, np.int64, np.float64]))
def test_extend_numbers(keys: list[int], cut: int, dtype: type) -> None:
    pt = {np.int32: PT.INT32, np.int64: PT.INT64, np.float64: PT.DOUBLE}[dtype]
    values = np.asarray(keys, dtype=dtype)
    cut = min(cut, len(keys))
    dictionary, idx = extend_dictionary(*build_dictionary(values[:cut], pt),
                                        *build_dictionary(values[cut:], pt), pt)
    entries, codes = reference([v.tobytes() for v in values])
    assert [v.tobytes() for v in np.asarray(dictionary, dtype=dtype)] == entries
    assert idx.tolist() == codes


def test_extend_fixed_width_rows() -> None:
    rows = np.array([[1, 2], [3, 4], [1, 2], [5, 6], [3, 4]], dtype=np.uint8)
    dictionary, idx = extend_dictionary(*build_dictionary(rows[:2], PT.FIXED_LEN_BYTE_ARRAY),
                                        *build_dictionary(rows[2:], PT.FIXED_LEN_BYTE_ARRAY),
                                        PT.FIXED_LEN_BYTE_ARRAY)
    assert dictionary.tolist() == [[1, 2], [3, 4], [5, 6]] and idx.tolist() == [0, 1, 0, 2, 1]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(items=st.lists(_ITEM.filter(lambda b: len(b) <= 32), max_size=60), base=st.integers(0, 3),
       extra=st.integers(0, 2))
def test_packed_words_are_the_bytes_zero_padded(items: list[bytes], base: int, extra: int) -> None:
    nwords = max([1] + [(len(x) + 7) // 8 for x in items]) + extra
    ba = byte_arrays(items, base)
    # junk after the last value too: bytes past a value's end must never show
    ba = ByteArrays(ba.offsets, np.concatenate([ba.data, np.full(base, 0xAB, dtype=np.uint8)]))
    mat = packed_words(ba, nwords)
    assert mat.shape == (len(items), nwords) and mat.dtype == np.uint64
    for row, item in zip(mat, items):
        assert row.astype("<u8").tobytes() == item.ljust(8 * nwords, b"\x00")


def test_packed_words_refuses_long_strings_and_bad_offsets() -> None:
    with pytest.raises(ValueError):
        packed_words(ByteArrays.from_pylist([b"x" * 9]), 1)
    bad = ByteArrays(np.array([0, 4, 100], dtype=np.int64), np.zeros(8, dtype=np.uint8))
    with pytest.raises(ValueError):
        packed_words(bad, 2)


def test_a_string_ending_at_the_data_end_reads_no_further() -> None:
    # the last strings start within the final 8 * nwords bytes: no read past the data
    items = [b"abc", b"d" * 20, b"e", b""]
    data = np.frombuffer(b"".join(items), dtype=np.uint8).copy()
    offsets = np.cumsum([0] + [len(x) for x in items]).astype(np.int64)
    mat = packed_words(ByteArrays(offsets, data), 3)
    assert [r.astype("<u8").tobytes().rstrip(b"\x00") for r in mat] == [b"abc", b"d" * 20, b"e", b""]


def test_hash_collisions_fall_back_to_exact_grouping(monkeypatch: pytest.MonkeyPatch) -> None:
    # a zero multiplier sends every string longer than 7 bytes to hash 0
    monkeypatch.setattr(dictionary_module, "_H2", np.uint64(0))
    items = [b"value %d, a bit long" % (i % 7) for i in range(200)] + [b"", b"\x00" * 9]
    dictionary, idx = build_dictionary(ByteArrays.from_pylist(items), PT.BYTE_ARRAY)
    entries, codes = reference(items)
    assert _entries(dictionary) == entries and idx.tolist() == codes


def test_many_rows_low_cardinality_with_late_newcomers() -> None:
    # more rows than one hashing step, new values far into the chunk
    rng = np.random.default_rng(7)
    pool = [b"k%d" % i + b"\x00" * (i % 3) + b"x" * (i % 19) for i in range(60)]
    picks = rng.integers(0, 40, 200_000)
    picks[150_000::9973] = rng.integers(40, 60, picks[150_000::9973].size)
    items = [pool[i] for i in picks]
    dictionary, idx = build_dictionary(ByteArrays.from_pylist(items), PT.BYTE_ARRAY)
    entries, codes = reference(items)
    assert _entries(dictionary) == entries
    assert np.array_equal(idx, np.asarray(codes, dtype=np.int32))


def test_exact_fallback_on_a_window_of_a_longer_column(monkeypatch: pytest.MonkeyPatch) -> None:
    # both hashed paths collide, so the Python fallback runs, on values whose
    # offsets start above 0 (the writer builds dictionaries on such windows)
    from parquet_core._kernels.words import WordView

    monkeypatch.setattr(dictionary_module, "_H2", np.uint64(0))
    monkeypatch.setattr(WordView, "hash64", lambda self, groups=None: np.zeros(len(self), dtype=np.uint64))
    items = [b"", b"abcdefghi", b"abcdefghi\x00", b"x" * 40, b"abcdefghi"]
    for long in (False, True):
        vals = items + ([b"y" * 50] if long else [])
        dictionary, idx = build_dictionary(byte_arrays(vals, 5), PT.BYTE_ARRAY)
        entries, codes = reference(vals)
        assert _entries(dictionary) == entries and idx.tolist() == codes


@settings(max_examples=25, deadline=None, derandomize=True)
@given(card=st.sampled_from([2, 200, 256, 257, 300, 70_000]), extra=st.sampled_from([0, 1, 60]),
       cut=st.floats(0, 1), width=st.sampled_from([1, 5]), seed=st.integers(0, 99))
def test_narrow_build_and_extend_equal_int32(card: int, extra: int, cut: float, width: int,
                                             seed: int) -> None:
    """``narrow=True`` indices (build and extend) equal the int32 ones, in the narrowest
    type for the dictionary: the second run adds ``extra`` entries that can push it past
    256 (or 65,536), so both runs' indices widen to the joined dictionary's type."""
    rng = np.random.default_rng(seed)
    n = 3 * card + 5000
    codes = rng.integers(0, card, n)
    k = int(cut * n)
    new = codes[k:k + extra]
    new[:] = card + np.arange(new.size)              # entries only the second run holds
    pool = [b"%0*d" % (width, i) for i in range(card + extra)]   # 1 byte: the uniform path
    items = [pool[c] for c in codes.tolist()]
    first = build_dictionary(byte_arrays(items[:k], 0), PT.BYTE_ARRAY, narrow=True)
    more = build_dictionary(byte_arrays(items[k:], 0), PT.BYTE_ARRAY, narrow=True)
    d, idx = extend_dictionary(*first, *more, PT.BYTE_ARRAY, narrow=True)
    d32, idx32 = extend_dictionary(*build_dictionary(byte_arrays(items[:k], 0), PT.BYTE_ARRAY),
                                   *build_dictionary(byte_arrays(items[k:], 0), PT.BYTE_ARRAY),
                                   PT.BYTE_ARRAY)
    whole = build_dictionary(byte_arrays(items, 0), PT.BYTE_ARRAY, narrow=True)
    assert idx32.dtype == np.int32 and idx.dtype == narrow_code_dtype(len(d))
    assert whole[1].dtype == idx.dtype and first[1].dtype == narrow_code_dtype(len(first[0]))
    assert _entries(d) == _entries(d32) == _entries(whole[0])
    assert np.array_equal(idx.astype(np.int64), idx32) and np.array_equal(whole[1], idx)
