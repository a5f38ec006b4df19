"""ByteArrays: take, slice and concat against plain Python lists."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import numpy as np
from hypothesis import given, strategies as st

from parquet_core._kernels.binary import ByteArrays

values = st.lists(st.binary(max_size=12), max_size=40)


@contextmanager
def _spying(name: str) -> Iterator[list[tuple[object, ...]]]:
    """``ByteArrays.<name>`` wrapped for the block: the list gets each call's arguments."""
    calls: list[tuple[object, ...]] = []
    real = getattr(ByteArrays, name)

    def spy(self, *args, **kwargs):   # type: ignore[no-untyped-def]
        calls.append(args)
        return real(self, *args, **kwargs)

    setattr(ByteArrays, name, spy)
    try:
        yield calls
    finally:
        setattr(ByteArrays, name, real)


@given(values, st.data())
def test_take_matches_python(vals, data) -> None:
    ba = ByteArrays.from_pylist(vals)
    if not vals:
        assert ba.take(np.zeros(0, dtype=np.int64)).to_pylist() == []
        return
    idx = data.draw(st.lists(st.integers(0, len(vals) - 1), max_size=60))
    assert ba.take(np.array(idx, dtype=np.int64)).to_pylist() == [vals[i] for i in idx]


@given(st.lists(values, max_size=5))
def test_concat_matches_python(parts) -> None:
    got = ByteArrays.concat([ByteArrays.from_pylist(p).slice(0, len(p)) for p in parts]).to_pylist()
    assert got == [v for p in parts for v in p]


@given(values, st.integers(0, 40), st.integers(0, 40))
def test_slice(vals, a, b) -> None:
    a, b = sorted((min(a, len(vals)), min(b, len(vals))))
    assert ByteArrays.from_pylist(vals).slice(a, b).to_pylist() == vals[a:b]


@given(st.lists(st.binary(min_size=0, max_size=70), min_size=1, max_size=8), st.data(),
       st.integers(0, 3))
def test_take_every_strategy_on_sliced_sources(vals, data, cut) -> None:
    """Uniform, padded and byte-index strategies agree, also on views not starting at 0."""
    full = ByteArrays.from_pylist([b"head"] * cut + vals)
    src = full.slice(cut, cut + len(vals)) if cut else full
    src = ByteArrays(src.offsets + (7 if cut else 0), np.concatenate([np.zeros(7 if cut else 0, np.uint8), src.data]))
    idx = data.draw(st.lists(st.integers(0, len(vals) - 1), min_size=0, max_size=200))
    assert src.take(np.array(idx, dtype=np.int64)).to_pylist() == [vals[i] for i in idx]


def test_take_uniform_lengths() -> None:
    src = ByteArrays.from_pylist([b"ab", b"cd", b"ef"])
    assert src.take(np.array([2, 0, 2, 1])).to_pylist() == [b"ef", b"ab", b"ef", b"cd"]


@given(values, st.integers(0, 40), st.integers(0, 40))
def test_to_pylist_of_a_view_with_offsets_past_zero(vals, a, b) -> None:
    """A view sharing its parent's data (offsets not re-based) reads its own values."""
    a, b = sorted((min(a, len(vals)), min(b, len(vals))))
    full = ByteArrays.from_pylist(vals)
    view = ByteArrays(full.offsets[a:b + 1], full.data)
    assert view.to_pylist() == vals[a:b]
    # the same values through take (which indexes data by absolute offsets)
    assert view.take(np.arange(b - a, dtype=np.int64)).to_pylist() == vals[a:b]


def test_to_pylist_of_a_view_example() -> None:
    full = ByteArrays.from_pylist([b"ab", b"cde", b"f", b""])
    assert ByteArrays(full.offsets[1:4], full.data).to_pylist() == [b"cde", b"f"]
    assert ByteArrays(full.offsets[3:4], full.data).to_pylist() == []


@given(st.lists(st.binary(max_size=8), min_size=1, max_size=30), st.data(), st.integers(0, 9))
def test_take_of_short_values_through_eight_byte_words(vals, data, pad) -> None:
    """Values of at most 8 bytes (empty and exactly-8 included) take the word path
    (``_take_short``), also from a source whose offsets do not start at 0."""
    src = ByteArrays.from_pylist(vals)
    if pad:
        src = ByteArrays(src.offsets + pad, np.concatenate([np.full(pad, 0xAB, np.uint8), src.data]))
    idx = data.draw(st.lists(st.integers(0, len(vals) - 1), min_size=len(vals), max_size=300))
    with _spying("_take_short") as calls:
        got = src.take(np.array(idx, dtype=np.int32))
    assert got.to_pylist() == [vals[i] for i in idx]
    lengths = {len(v) for v in vals}
    assert len(calls) == (0 if lengths == {max(lengths)} or sum(len(vals[i]) for i in idx) == 0 else 1)


@given(st.integers(9, 64).flatmap(
           lambda top: st.lists(st.binary(max_size=top), min_size=1, max_size=30).map(
               lambda vs: vs + [bytes(range(top))])),
       st.data(), st.integers(0, 9))
def test_take_of_values_up_to_64_bytes_through_padded_rows(vals, data, pad) -> None:
    """Values of 9..64 bytes (a value at the row width included) take the padded-row path
    (``_take_rows``), also from a source whose offsets do not start at 0, and agree
    with Python."""
    src = ByteArrays.from_pylist(vals)
    if pad:
        src = ByteArrays(src.offsets + pad, np.concatenate([np.full(pad, 0xAB, np.uint8), src.data]))
    idx = data.draw(st.lists(st.integers(0, len(vals) - 1), min_size=8 * len(vals), max_size=300))
    with _spying("_take_rows") as calls:
        got = src.take(np.array(idx, dtype=np.int32))
    assert got.to_pylist() == [vals[i] for i in idx]
    top = max(len(v) for v in vals)
    if len({len(v) for v in vals}) > 1 and sum(len(vals[i]) for i in idx):
        assert [args[-1] for args in calls] == [min(w for w in (16, 24, 32, 48, 64) if w >= top)]
    # fewer than 8 indices per dictionary entry: the general window copy, same answer
    few = idx[:8 * len(vals) - 1]
    assert src.take(np.array(few, dtype=np.int64)).to_pylist() == [vals[i] for i in few]
