"""build_dictionary: pyarrow's dictionary pages as the oracle, plus bit-pattern semantics."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from tests.unit.encodings.arrow_encoded import byte_arrays
from tests.unit.encodings.arrow_pages import arrow_pages
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.words import WordView
from parquet_core.constants import Encoding as E
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import decode_values, encode_values
from parquet_core.encodings import dictionary as dictionary_module
from parquet_core.encodings.dictionary import (
    build_dictionary,
    dictionary_byte_size,
    dictionary_prefix_sizes,
    first_occurrence_order,
)

RNG = np.random.default_rng(53)


def arrow_dictionary(array: pa.Array, pt: PT, tl: int | None = None) -> tuple[bytes, list[int]]:
    """pyarrow's dictionary page body and the indices of its data pages."""
    pages = arrow_pages(array, data_page_version="2.0")
    assert pages[0].kind == "dictionary"
    indices: list[int] = []
    for page in pages[1:]:
        assert page.encoding == E.RLE_DICTIONARY
        indices += decode_values(page.encoding, page.values, page.num_values, pt, tl).tolist()
    return pages[0].values, indices


def check_against_arrow(array: pa.Array, values: object, pt: PT, tl: int | None = None) -> None:
    body, indices = arrow_dictionary(array, pt, tl)
    dictionary, ours = build_dictionary(values, pt)
    # pyarrow numbers entries in order of first appearance too
    assert encode_values(E.PLAIN, dictionary, pt, tl) == body
    assert ours.dtype == np.int32 and ours.tolist() == indices
    assert dictionary_byte_size(dictionary, pt, tl) == len(body)


@pytest.mark.parametrize("dtype,pt", [("int32", PT.INT32), ("int64", PT.INT64),
                                      ("float32", PT.FLOAT), ("float64", PT.DOUBLE)])
def test_numeric_matches_pyarrow(dtype: str, pt: PT) -> None:
    distinct = RNG.integers(-(2**31), 2**31, 700).astype(dtype)
    if dtype.startswith("int"):
        distinct[:2] = [np.iinfo(dtype).min, np.iinfo(dtype).max]
    vals = distinct[RNG.integers(0, 700, 20_000)]
    check_against_arrow(pa.array(vals), vals, pt)
    spread = (RNG.integers(0, 300, 5000) * 7_000_000_000).astype(np.int64)   # hashed path
    if pt == PT.INT64:
        check_against_arrow(pa.array(spread), spread, pt)


@pytest.mark.parametrize("max_len", [0, 3, 7, 8, 40])
def test_byte_array_matches_pyarrow(max_len: int) -> None:
    distinct = [RNG.integers(0, 3, int(RNG.integers(0, max_len + 1)), dtype=np.uint8).tobytes()
                for _ in range(400)]
    items = [distinct[i] for i in RNG.integers(0, 400, 8000)]
    check_against_arrow(pa.array(items, pa.binary()), byte_arrays(items, 4), PT.BYTE_ARRAY)


@pytest.mark.parametrize("width", [1, 8, 12, 16])
def test_fixed_len_matches_pyarrow(width: int) -> None:
    distinct = RNG.integers(0, 2, (300, width), dtype=np.uint8)
    rows = distinct[RNG.integers(0, 300, 6000)]
    arr = pa.array([r.tobytes() for r in rows], pa.binary(width))
    check_against_arrow(arr, rows, PT.FIXED_LEN_BYTE_ARRAY, width)


def test_floats_are_keyed_by_bit_pattern() -> None:
    bits = np.array([0x7FF8000000000000, 0x7FF8000000000001, 0xFFF8000000000000,
                     0x8000000000000000, 0, 0x7FF8000000000000, 0], dtype=np.uint64)
    vals = bits.view(np.float64)
    dictionary, idx = build_dictionary(vals, PT.DOUBLE)
    assert dictionary.view(np.uint64).tolist() == bits[:5].tolist()    # 3 NaNs, -0.0, +0.0
    assert idx.tolist() == [0, 1, 2, 3, 4, 0, 4]
    f32 = np.array([-0.0, 0.0, np.nan, -0.0], dtype=np.float32)
    d32, i32 = build_dictionary(f32, PT.FLOAT)
    assert d32.view(np.uint32).tolist() == f32[:3].view(np.uint32).tolist()
    assert i32.tolist() == [0, 1, 2, 0]


def test_int96_and_boolean() -> None:
    rows = RNG.integers(0, 2, (500, 12), dtype=np.uint8)
    dictionary, idx = build_dictionary(rows, PT.INT96)
    assert np.array_equal(dictionary[idx], rows)
    assert len({r.tobytes() for r in dictionary}) == len(dictionary)
    d, i = build_dictionary(np.array([False, False, True]), PT.BOOLEAN)
    assert d.tolist() == [False, True] and i.tolist() == [0, 0, 1]
    assert dictionary_prefix_sizes(d, PT.BOOLEAN).tolist() == [0, 1, 1]


def test_empty() -> None:
    for vals, pt in [(np.zeros(0, np.int64), PT.INT64), (ByteArrays.empty(), PT.BYTE_ARRAY),
                     (np.zeros((0, 5), np.uint8), PT.FIXED_LEN_BYTE_ARRAY)]:
        dictionary, idx = build_dictionary(vals, pt)
        assert len(dictionary) == 0 and idx.size == 0 and idx.dtype == np.int32


def test_hash_collisions_fall_back_to_exact_grouping(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(WordView, "hash64",
                        lambda self, groups=None: np.zeros(len(self), dtype=np.uint64))
    items = [b"long value %d ......" % (i % 5) for i in range(50)]
    dictionary, idx = build_dictionary(ByteArrays.from_pylist(items), PT.BYTE_ARRAY)
    assert dictionary.to_pylist() == items[:5] and idx.tolist() == [i % 5 for i in range(50)]
    rows = np.repeat(np.arange(3, dtype=np.uint8), 12).reshape(3, 12)[[0, 1, 0, 2]]
    d, i = dictionary_module.build_dictionary(rows, PT.INT96)
    assert i.tolist() == [0, 1, 0, 2]


def test_prefix_sizes_and_first_occurrence() -> None:
    items = [b"aa", b"b", b"aa", b"cccc", b"b", b"dd"]
    dictionary, idx = build_dictionary(ByteArrays.from_pylist(items), PT.BYTE_ARRAY)
    sizes = dictionary_prefix_sizes(dictionary, PT.BYTE_ARRAY)
    assert sizes.tolist() == [0, 6, 11, 19, 25]
    assert sizes[-1] == len(encode_values(E.PLAIN, dictionary, PT.BYTE_ARRAY))
    first = first_occurrence_order(idx, len(dictionary))
    assert first.tolist() == [0, 1, 3, 5]
    # the longest row prefix whose dictionary fits 12 bytes: entries "aa", "b" -> rows 0..2
    j = int(np.searchsorted(sizes, 12, side="right")) - 1
    assert j == 2 and int(first[j]) == 3
    assert first_occurrence_order(np.array([2, 2], np.int32), 4).tolist() == [2, 2, 0, 2]
    with pytest.raises(ValueError):
        first_occurrence_order([5], 3)
    assert dictionary_byte_size(np.zeros(3, np.int64), PT.INT64) == 24


def test_misuse() -> None:
    with pytest.raises(TypeError):
        build_dictionary([b"a"], PT.BYTE_ARRAY)
    with pytest.raises(ValueError):
        build_dictionary(np.zeros(4, np.uint8), PT.FIXED_LEN_BYTE_ARRAY)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(items=st.lists(st.binary(max_size=20).map(lambda b: bytes(x % 2 for x in b)), max_size=120),
       base=st.integers(0, 3))
def test_round_trip_and_first_appearance(items: list[bytes], base: int) -> None:
    dictionary, idx = build_dictionary(byte_arrays(items, base), PT.BYTE_ARRAY)
    entries = dictionary.to_pylist() if len(dictionary) else []
    assert entries == list(dict.fromkeys(items))
    assert [entries[i] for i in idx.tolist()] == items


@pytest.mark.parametrize("short", [False, True])
def test_budget_returns_a_prefix_for_strings(short):
    from parquet_core._kernels.binary import ByteArrays

    rng = np.random.default_rng(9)
    words = [(f"{k:x}" if short else f"value-{k}-" * 2).encode() for k in rng.integers(0, 10**6, 100_000)]
    lens = np.array([len(w) for w in words])
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(lens)
    values = ByteArrays(offsets, np.frombuffer(b"".join(words), dtype=np.uint8))
    from parquet_core.constants import PhysicalType

    dictionary, indices = build_dictionary(values, PhysicalType.BYTE_ARRAY, budget=20_000)
    p = len(indices)
    assert p < len(words) // 2
    seen: dict[bytes, int] = {}
    for w in words[:p]:
        seen.setdefault(w, len(seen))
    assert dictionary.to_pylist() == list(seen)
    assert indices.tolist() == [seen[w] for w in words[:p]]
    assert sum(len(w) + 4 for w in seen) > 20_000


@pytest.mark.parametrize("width", [1, 2, 4])
def test_equal_length_strings_match_pyarrow(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # flags and codes of one length are grouped by their bytes read as integers
    monkeypatch.setattr(dictionary_module, "_group_packed", None)
    distinct = [bytes(RNG.integers(0, 256, width, dtype=np.uint8)) for _ in range(30)]
    items = [distinct[i] for i in RNG.integers(0, 30, 20_000)]
    check_against_arrow(pa.array(items, pa.binary()), byte_arrays(items, 4), PT.BYTE_ARRAY)
    whole = byte_arrays([b"xyz", *items], 4)
    window = ByteArrays(whole.offsets[1:], whole.data)            # offsets not starting at 0
    dictionary, ours = build_dictionary(window, PT.BYTE_ARRAY)
    entries = dictionary.to_pylist()
    assert [entries[i] for i in ours.tolist()] == items
