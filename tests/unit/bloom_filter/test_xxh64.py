"""The numpy XXH64 against the ``xxhash`` package (the reference C implementation)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core.bloom_filter.xxh64 as xx
from parquet_core._kernels.binary import ByteArrays

xxhash = pytest.importorskip("xxhash")

_SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)


def ref(values: list[bytes]) -> list[int]:
    return [xxhash.xxh64_intdigest(v) for v in values]


def test_published_vectors() -> None:
    # XXH64 of the empty input and of one zero byte with seed 0, as published with xxHash.
    assert xx.xxh64_bytes(b"") == 0xEF46DB3751D8E999
    assert xx.xxh64_bytes(b"\x00") == 0xE934A84ADB052768


def test_every_length_0_to_100_in_one_batch() -> None:
    rng = np.random.default_rng(5)
    values = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in range(101) for _ in range(3)]
    got = xx.xxh64_byte_arrays(ByteArrays.from_pylist(values))
    assert got.dtype == np.uint64
    assert got.tolist() == ref(values)


@_SETTINGS
@given(st.lists(st.binary(min_size=0, max_size=100), min_size=0, max_size=60))
def test_byte_arrays_random(values: list[bytes]) -> None:
    assert xx.xxh64_byte_arrays(ByteArrays.from_pylist(values)).tolist() == ref(values)


@_SETTINGS
@given(st.lists(st.binary(min_size=0, max_size=1500), min_size=1, max_size=12), st.booleans())
def test_long_values_both_paths(values: list[bytes], lockstep_only: bool, ) -> None:
    """Values past LONG_VALUE go to xxhash one by one, or run in lockstep when it is absent."""
    ba = ByteArrays.from_pylist(values)
    if lockstep_only:
        saved = xx._single_value_hasher
        xx._single_value_hasher = lambda: None  # type: ignore[assignment]
        try:
            got = xx.xxh64_byte_arrays(ba)
        finally:
            xx._single_value_hasher = saved  # type: ignore[assignment]
    else:
        got = xx.xxh64_byte_arrays(ba)
    assert got.tolist() == ref(values)


def test_byte_arrays_slice_with_offsets_above_zero() -> None:
    values = [b"x" * n for n in range(70)]
    ba = ByteArrays.from_pylist(values)
    part = ByteArrays(ba.offsets[10:41], ba.data)  # offsets start at 45, not 0
    assert xx.xxh64_byte_arrays(part).tolist() == ref(values[10:40])
    assert xx.xxh64_byte_arrays(ByteArrays.empty()).tolist() == []


@_SETTINGS
@given(st.integers(0, 100), st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_rows_of_any_width(width: int, n: int, seed: int) -> None:
    rows = np.random.default_rng(seed).integers(0, 256, (n, width), dtype=np.uint8)
    assert xx.xxh64_rows(rows).tolist() == ref([r.tobytes() for r in rows])


def test_rows_non_contiguous() -> None:
    rows = np.random.default_rng(1).integers(0, 256, (50, 40), dtype=np.uint8)
    view = rows[::2, 3:15]
    assert xx.xxh64_rows(view).tolist() == ref([r.tobytes() for r in view])


@_SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_four_and_eight_byte_values(seed: int) -> None:
    rng = np.random.default_rng(seed)
    i32 = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    i64 = rng.integers(-2**63, 2**63 - 1, 64, dtype=np.int64)
    f32 = rng.normal(size=64).astype(np.float32)
    f64 = rng.normal(size=64)
    for arr, fn in ((i32, xx.xxh64_u32), (f32, xx.xxh64_u32), (i64, xx.xxh64_u64), (f64, xx.xxh64_u64)):
        le = arr.astype(arr.dtype.newbyteorder("<"))
        assert fn(arr).tolist() == ref([le[i:i + 1].tobytes() for i in range(len(arr))])


def test_big_endian_input_hashes_little_endian_bytes() -> None:
    values = np.array([1, -2, 2**31 - 1], dtype=">i4")
    assert xx.xxh64_u32(values).tolist() == ref([int(v).to_bytes(4, "little", signed=True) for v in values])
    values64 = np.array([1, -2, 2**63 - 1], dtype=">i8")
    assert xx.xxh64_u64(values64).tolist() == ref([int(v).to_bytes(8, "little", signed=True) for v in values64])


def test_wrong_widths_are_refused() -> None:
    with pytest.raises(ValueError):
        xx.xxh64_u32(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError):
        xx.xxh64_u64(np.zeros(3, dtype=np.int32))
    with pytest.raises(ValueError):
        xx.xxh64_rows(np.zeros(3, dtype=np.uint8))
