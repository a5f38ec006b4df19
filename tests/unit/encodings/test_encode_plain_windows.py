"""PLAIN BYTE_ARRAY by fixed-width windows, against ``len + bytes`` joined in Python.

The window layout relies on numpy writing a 1-D fancy assignment in index
order (later overlapping windows win); ``_IN_ORDER`` checks that at import
and the first test fails loudly if a numpy release changes it (the encoder
then silently takes the interleave path, which the other tests pin too).
"""

from __future__ import annotations

import numpy as np
import pytest
from tests.unit.encodings.arrow_encoded import byte_arrays
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.encodings import plain_encoder


def reference(items: list[bytes]) -> bytes:
    return b"".join(len(x).to_bytes(4, "little") + x for x in items)


def test_numpy_writes_fancy_assignments_in_index_order() -> None:
    assert plain_encoder._IN_ORDER


_ITEM = st.one_of(st.binary(max_size=12), st.binary(min_size=13, max_size=70),
                  st.sampled_from([b"", b"\x00", b"a\x00", "é€".encode()]))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(items=st.lists(_ITEM, min_size=1, max_size=120), base=st.integers(0, 9),
       junk=st.integers(0, 9), in_order=st.booleans())
def test_matches_reference(items: list[bytes], base: int, junk: int, in_order: bool) -> None:
    ba = byte_arrays(items, base)
    # junk after the values too: windows read past a value's end, never into the output
    ba = ByteArrays(ba.offsets, np.concatenate([ba.data, np.full(junk, 0xCD, dtype=np.uint8)]))
    saved = plain_encoder._IN_ORDER
    plain_encoder._IN_ORDER = in_order and saved
    try:
        got = plain_encoder.encode_plain_byte_array(ba).tobytes()
    finally:
        plain_encoder._IN_ORDER = saved
    assert got == reference(items)


@pytest.mark.parametrize("n, lo, hi", [(50_000, 0, 20), (3000, 60, 64), (1000, 0, 0), (7, 0, 64)])
def test_larger_columns(n: int, lo: int, hi: int) -> None:
    rng = np.random.default_rng(n + hi)
    items = [bytes(rng.integers(0, 256, rng.integers(lo, hi + 1)).astype(np.uint8)) for _ in range(n)]
    assert plain_encoder.encode_plain_byte_array(ByteArrays.from_pylist(items)).tobytes() == reference(items)
