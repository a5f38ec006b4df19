"""WordView: hashes, equality and common prefixes against plain Python on bytes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.words import WordView


def view(items: list[bytes], base: int = 0) -> WordView:
    ba = ByteArrays.from_pylist(items)
    return WordView(ba.offsets + base, np.concatenate([np.full(base, 7, np.uint8), ba.data]))


def common(a: bytes, b: bytes) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


small_binary = st.binary(max_size=30).map(lambda b: bytes(x % 3 for x in b))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(items=st.lists(small_binary, max_size=60), base=st.integers(0, 9))
def test_common_prefix_and_equality(items: list[bytes], base: int) -> None:
    wv = view(items, base)
    expect = [0] + [common(items[i - 1], items[i]) for i in range(1, len(items))]
    assert wv.common_prefix_lengths().tolist() == (expect if items else [])
    if items:
        groups = wv.word_groups()
        first = {item: i for i, item in reversed(list(enumerate(items)))}
        ref = np.array([first[item] for item in items])
        assert wv.equal_to(ref, groups)
        other = [i for i in range(len(items)) if items[i] != items[0]]
        if other:
            wrong = ref.copy()
            wrong[other[0]] = 0
            assert not wv.equal_to(wrong, groups)
        h = wv.hash64(groups)
        assert np.array_equal(h, wv.hash64())
        for i in range(len(items)):
            assert h[i] == h[ref[i]]


def test_short_keys_are_exact_and_hashes_separate_short_strings() -> None:
    items = [b"", b"\x00", b"\x00\x00", b"a", b"a\x00", b"abcdefg"]
    keys = view(items).short_keys()
    assert len(set(keys.tolist())) == len(items)
    eight = [i.to_bytes(8, "little") for i in range(0, 2**20, 97)]
    assert len(set(view(eight).hash64().tolist())) == len(eight)   # bijective at one word


def test_rows_of_a_matrix() -> None:
    rows = np.array([[1, 2, 3], [1, 2, 4], [1, 2, 4]], dtype=np.uint8)
    wv = WordView.of_rows(rows)
    assert wv.common_prefix_lengths().tolist() == [0, 2, 3]
    h = wv.hash64()
    assert h[1] == h[2] != h[0]


def test_long_shared_prefixes() -> None:
    base = bytes(range(256)) * 8
    items = [base + b"a", base + b"b", base, base + b"bc", b"x" + base]
    expect = [0] + [common(items[i - 1], items[i]) for i in range(1, len(items))]
    assert view(items, 1).common_prefix_lengths().tolist() == expect
    h = view(items + items[::-1], 2).hash64()                  # whole-matrix hashing path
    assert h[:5].tolist() == h[5:][::-1].tolist() and len(set(h[:5].tolist())) == 5


def test_prefix_without_popcount(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from parquet_core._kernels import words
    monkeypatch.setattr(words, "_POPCOUNT", None)          # the numpy < 2.0 path
    items = [b"", b"abcdefghij", b"abcdefghiz", b"abcdefgh", b"abd", b"abd"]
    expect = [0] + [common(items[i - 1], items[i]) for i in range(1, len(items))]
    assert view(items, 3).common_prefix_lengths().tolist() == expect
