"""DELTA_BYTE_ARRAY prefix copies from each value's parent (``_resolve_by_lengths``: exact
copies one prefix length at a time, ``_resolve_by_parents``: by tree level; issue 32): sorted URLs and keys whose prefixes form a shallow tree, checked against the
spec's recurrence (value[i] = value[i-1][:prefix[i]] + suffix[i]) written out here, and
pages written by pyarrow read back equal to pyarrow's read."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
import parquet_core.encodings.delta_byte_array as dba
from tests._support.front_coding import front_code as _front_code
from tests._support.front_coding import page as _page
from tests._support.front_coding import spec_values as _spec


def _urls(n: int, seed: int, hosts: int = 12) -> list[bytes]:
    rng = np.random.default_rng(seed)
    stems = [b"https://www.example-%03d.com/catalogue/section-%02d/" % (h, s)
             for h in range(hosts) for s in range(4)]
    return sorted(stems[int(i)] + b"item-%09d.html" % int(v)
                  for i, v in zip(rng.integers(0, len(stems), n), rng.integers(0, 10**9, n)))


def _resolve(prefixes: list[int], suffixes: list[bytes], how=None):  # type: ignore[no-untyped-def]
    how = how or dba._resolve_by_parents
    ba = dba.decode_delta_byte_array(_page([0] * len(suffixes), suffixes), len(suffixes))
    prefix = np.asarray(prefixes, dtype=np.int64)
    lengths = prefix + np.diff(ba.offsets)
    offsets = np.zeros(prefix.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    got = how(prefix, lengths, offsets, ba.offsets, ba.data)
    if got is None:
        return None
    return [got[a:b].tobytes() for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


def test_sorted_urls_by_prefix_length() -> None:
    values = _urls(3000, 1)
    prefixes, suffixes = _front_code(values)
    assert len(set(prefixes)) <= dba._PARENT_LENGTHS
    assert _resolve(prefixes, suffixes, dba._resolve_by_lengths) == values
    assert _resolve(prefixes, suffixes) == values
    assert dba.decode_delta_byte_array(_page(prefixes, suffixes), len(values)).to_pylist() == values


def test_many_prefix_lengths_by_level() -> None:
    # prefixes of 0..199 bytes in a tree three levels deep: more lengths than the
    # by-length pass takes, copies longer than one window
    rng = np.random.default_rng(2)
    prefixes, suffixes = [], []
    prev_len = 0
    for i in range(2000):
        if i % 100 == 0:
            p = 0
        elif i % 10 == 0:
            p = int(rng.integers(0, min(prev_len, 60) + 1))
        else:
            p = int(rng.integers(0, prev_len + 1))
        s = bytes(rng.integers(97, 123, int(rng.integers(1, 40)), dtype=np.uint8))
        prefixes.append(p)
        suffixes.append(s)
        prev_len = p + len(s)
    assert len(set(prefixes)) > dba._PARENT_LENGTHS
    assert _resolve(prefixes, suffixes, dba._resolve_by_lengths) is None
    got = _resolve(prefixes, suffixes)
    assert got is not None and got == _spec(prefixes, suffixes)


def test_a_tree_deeper_than_the_levels_is_left_to_the_doubling() -> None:
    # every value one byte longer than the last and sharing all of it: one level per value
    n = 200
    prefixes = [0] + list(range(1, n))
    suffixes = [b"a"] + [b"b%d" % (i % 10) for i in range(1, n)]
    prefixes = [0] + [len(_spec(prefixes[:i], suffixes[:i])[-1]) for i in range(1, n)]
    many = {p for p in prefixes}
    assert len(many) > dba._PARENT_LENGTHS
    assert _resolve(prefixes, suffixes) is None
    assert dba.decode_delta_byte_array(_page(prefixes, suffixes), n).to_pylist() == \
        _spec(prefixes, suffixes)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 90), st.binary(min_size=0, max_size=70)),
                min_size=1, max_size=150))
def test_explicit_prefixes_against_the_recurrence(pairs) -> None:
    prefixes, suffixes, prev_len = [], [], 0
    for want, suffix in pairs:
        p = min(want, prev_len) if prefixes else 0
        prefixes.append(p)
        suffixes.append(suffix)
        prev_len = p + len(suffix)
    for how in (dba._resolve_by_lengths, dba._resolve_by_parents):
        got = _resolve(prefixes, suffixes, how)
        if got is not None:
            assert got == _spec(prefixes, suffixes)
    assert dba.decode_delta_byte_array(_page(prefixes, suffixes), len(pairs)).to_pylist() == \
        _spec(prefixes, suffixes)


@pytest.mark.parametrize("seed", [3, 4])
def test_pyarrow_written_sorted_urls(seed) -> None:
    values = [v.decode() for v in _urls(30_000, seed, hosts=40)]
    sink = io.BytesIO()
    pq.write_table(pa.table({"url": values}), sink, use_dictionary=False,
                   column_encoding={"url": "DELTA_BYTE_ARRAY"})
    data = sink.getvalue()
    want = pq.read_table(io.BytesIO(data))
    got = pc.read_table(io.BytesIO(data), use_threads=False).to_arrow()
    assert got.column("url").to_pylist() == want.column("url").to_pylist()


def test_by_length_with_prefixes_longer_than_a_window() -> None:
    # most prefixes are short (a narrow window), a few stems share 600+ bytes
    rng = np.random.default_rng(6)
    stems = [bytes(rng.integers(97, 123, 600, dtype=np.uint8)) for _ in range(3)]
    values = sorted({b"k%06d" % int(v) for v in rng.integers(0, 10**6, 1500)}
                    | {stems[int(s)] + b"%03d" % int(v) for s, v in zip(rng.integers(0, 3, 60),
                                                                       rng.integers(0, 1000, 60))})
    prefixes, suffixes = _front_code(values)
    assert max(prefixes) > 512 and len(set(prefixes)) <= dba._PARENT_LENGTHS
    assert _resolve(prefixes, suffixes, dba._resolve_by_lengths) == values
    assert _resolve(prefixes, suffixes) == values
