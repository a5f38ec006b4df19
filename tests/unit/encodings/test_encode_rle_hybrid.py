"""RLE/bit-packing hybrid encoder: levels, booleans, dictionary indices.

The hybrid leaves writers free to choose runs, so there is no byte-exact
oracle; instead every stream must decode (our decoder, and pyarrow's pages
for the prefixes and bit widths), must match an independent sequential
implementation of the textbook greedy writer whenever that writer beats
plain bit-packing, and must never be larger than either.
"""

from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa
import pytest
from tests.unit.encodings.arrow_pages import arrow_pages
from tests.unit.encodings.golden import uleb
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.constants import Encoding as E
from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    decode_levels_v1,
    decode_rle_booleans,
    decode_rle_hybrid,
    dictionary_index_bit_width,
    encode_dictionary_indices,
    encode_levels_v1,
    encode_levels_v2,
    encode_rle_booleans,
    encode_rle_hybrid,
)

RNG = np.random.default_rng(17)


def pack_lsb(values: list[int], width: int) -> bytes:
    """Spec note 1: values packed from the least significant bit of each byte."""
    acc = 0
    for i, v in enumerate(values):
        acc |= v << (i * width)
    return acc.to_bytes((len(values) * width + 7) // 8, "little")


def greedy_reference(values: list[int], width: int, min_repeat: int) -> bytes:
    """The sequential writer: RLE for runs still >= min_repeat after topping up literals."""
    out = bytearray()
    literal: list[int] = []

    def flush() -> None:
        if literal:
            groups = (len(literal) + 7) // 8
            out.extend(uleb(groups << 1 | 1))
            out.extend(pack_lsb(literal + [0] * (groups * 8 - len(literal)), width))
            literal.clear()

    i = 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        fill = -len(literal) % 8
        if j - i - fill >= min_repeat:
            literal.extend(values[i:i + fill])
            flush()
            out.extend(uleb((j - i - fill) << 1))
            out.extend(values[i].to_bytes((width + 7) // 8, "little"))
        else:
            literal.extend(values[i:j])
        i = j
    flush()
    return bytes(out)


def bit_packed_only(values: list[int], width: int) -> bytes:
    groups = (len(values) + 7) // 8
    return uleb(groups << 1 | 1) + pack_lsb(values + [0] * (groups * 8 - len(values)), width)


def runs_and_noise(draw: st.DrawFn, width: int) -> list[int]:
    top = (1 << width) - 1
    values: list[int] = []
    for repeat, n, v in draw(st.lists(st.tuples(st.booleans(), st.integers(1, 40),
                                                st.integers(0, top)), max_size=25)):
        values += [v] * n if repeat else [(v + 7919 * k) & top for k in range(n)]
    return values


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[int], int, int]:
    width = draw(st.integers(1, 32))
    return runs_and_noise(draw, width), width, draw(st.integers(1, 16))


@settings(max_examples=120, deadline=None, derandomize=True)
@given(case=streams())
def test_matches_greedy_reference_or_beats_it(case: tuple[list[int], int, int]) -> None:
    values, width, min_repeat = case
    ours = encode_rle_hybrid(np.asarray(values, dtype=np.int64), width, min_repeat=min_repeat)
    got = decode_rle_hybrid(ours, width, len(values))
    assert got.astype(np.int64).tolist() == values
    if not values:
        assert ours == b""
        return
    ref = greedy_reference(values, width, min_repeat)
    packed = bit_packed_only(values, width)
    assert len(ours) == min(len(ref), len(packed))
    if len(ref) < len(packed):
        assert ours == ref


@pytest.mark.parametrize("width", range(0, 33))
def test_every_bit_width(width: int) -> None:
    top = (1 << width) - 1
    for n in (1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 1000):
        noise = RNG.integers(0, top + 1, n, dtype=np.uint64) if width else np.zeros(n, np.uint64)
        runs = np.resize(np.repeat(RNG.integers(0, top + 1, 1 + n // 30, dtype=np.uint64),
                                   RNG.integers(1, 60, 1 + n // 30)), n) if width else noise
        for vals in (noise, runs, np.full(n, top, dtype=np.uint64)):
            buf = encode_rle_hybrid(vals, width)
            assert decode_rle_hybrid(buf, width, n).astype(np.uint64).tolist() == vals.tolist()


def test_spec_shapes() -> None:
    assert encode_rle_hybrid([], 3) == b""
    assert encode_rle_hybrid([0] * 10, 0) == uleb(10 << 1)               # width 0: no value bytes
    assert encode_rle_hybrid([5] * 10, 3) == uleb(10 << 1) + b"\x05"
    assert encode_rle_hybrid([300] * 9, 9) == uleb(9 << 1) + (300).to_bytes(2, "little")
    # spec example: 0..7 at width 3 bit-packed -> 03 88 C6 FA
    assert encode_rle_hybrid(list(range(8)), 3) == b"\x03\x88\xc6\xfa"
    assert encode_rle_hybrid([7] * 100, 32) == uleb(200) + (7).to_bytes(4, "little")


def test_long_runs_mixed_with_noise() -> None:
    n = 200_000
    vals = RNG.integers(0, 1000, n)
    for start in RNG.integers(0, n - 5000, 60):
        vals[start:start + int(RNG.integers(8, 5000))] = int(RNG.integers(0, 1000))
    buf = encode_rle_hybrid(vals, 10)
    assert np.array_equal(decode_rle_hybrid(buf, 10, n), vals)
    assert len(buf) < len(bit_packed_only(vals[:16].tolist(), 10)) * n // 16


def test_many_short_runs_stay_bit_packed() -> None:
    vals = np.repeat(RNG.integers(0, 2, 5000), RNG.integers(8, 12, 5000))
    buf = encode_rle_hybrid(vals, 1)
    assert len(buf) <= len(bit_packed_only(vals.tolist(), 1))
    assert decode_rle_hybrid(buf, 1, vals.size).tolist() == vals.tolist()


def test_levels_v1_and_v2() -> None:
    levels = np.repeat(RNG.integers(0, 4, 400), RNG.integers(1, 30, 400)).astype(np.int16)
    v2 = encode_levels_v2(levels, 3)
    assert decode_rle_hybrid(v2, 2, levels.size).tolist() == levels.tolist()
    v1 = encode_levels_v1(levels, 3)
    assert v1[:4] == struct.pack("<I", len(v2)) and v1[4:] == v2
    got, used = decode_levels_v1(v1 + b"values", 0, 2, levels.size)
    assert got.tolist() == levels.tolist() and used == len(v1)
    assert encode_levels_v1(np.zeros(5, np.int16), 0) == b"" == encode_levels_v2([0, 0], 0)
    assert encode_levels_v1([], 1) == b"\x00\x00\x00\x00"
    with pytest.raises(ValueError):
        encode_levels_v2([0, 2], 1)


def test_rle_booleans_decode_and_pyarrow_agrees_on_the_prefix() -> None:
    vals = np.concatenate([RNG.random(300) < 0.5, np.ones(100, bool), np.zeros(37, bool)])
    ours = encode_rle_booleans(vals)
    assert decode_rle_booleans(ours, vals.size).tolist() == vals.tolist()
    (page,) = arrow_pages(pa.array(vals), use_dictionary=False, column_encoding={"x": "RLE"})
    assert page.encoding == E.RLE
    # both carry the 4-byte length prefix in a v2 page
    assert struct.unpack("<I", page.values[:4])[0] == len(page.values) - 4
    assert struct.unpack("<I", ours[:4])[0] == len(ours) - 4
    assert decode_rle_booleans(page.values, vals.size).tolist() == vals.tolist()


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 255, 256, 257, 5000])
def test_dictionary_index_width_matches_pyarrow(k: int) -> None:
    vals = np.arange(k, dtype=np.int64)[RNG.integers(0, k, 3 * k)]
    vals[:k] = np.arange(k)
    pages = arrow_pages(pa.array(vals), data_page_version="2.0")
    data = [p for p in pages if p.kind != "dictionary"]
    assert data[0].encoding == E.RLE_DICTIONARY
    assert data[0].values[0] == dictionary_index_bit_width(k)
    ours = encode_dictionary_indices(vals.astype(np.int32), k)
    assert ours[0] == dictionary_index_bit_width(k)
    assert decode_dictionary_indices(ours, vals.size).tolist() == vals.tolist()


def test_dictionary_indices_edge_cases() -> None:
    assert encode_dictionary_indices(np.zeros(0, np.int32), 0) == b"\x01"
    assert decode_dictionary_indices(encode_dictionary_indices([0] * 9, 1), 9).tolist() == [0] * 9
    with pytest.raises(ValueError):
        encode_dictionary_indices([0, 3], 3)
    with pytest.raises(ValueError):
        encode_dictionary_indices([-1], 3)


def test_misuse() -> None:
    with pytest.raises(ValueError):
        encode_rle_hybrid([8], 3)                 # does not fit
    with pytest.raises(ValueError):
        encode_rle_hybrid([-1], 3)
    with pytest.raises(ValueError):
        encode_rle_hybrid([1], 33)
    with pytest.raises(ValueError):
        encode_rle_hybrid([1], 1, min_repeat=0)
    with pytest.raises(TypeError):
        encode_rle_hybrid([1.5], 3)


@pytest.mark.parametrize("max_level", [1, 2, 3, 255, 256, 70000])
@pytest.mark.parametrize("count", [0, 1, 7, 8, 63, 64, 100_000])
def test_level_run_is_the_encoding_of_equal_levels(count, max_level):
    from parquet_core.encodings.rle_hybrid_encoder import default_min_repeat, encode_level_run

    width = max_level.bit_length()
    for level in {0, max_level // 2, max_level}:
        levels = np.full(count, level, dtype=np.int32)
        v1 = encode_level_run(count, level, max_level, length_prefix=True)
        v2 = encode_level_run(count, level, max_level, length_prefix=False)
        assert v1 == struct.pack("<I", len(v2)) + v2
        assert decode_rle_hybrid(v2, width, count).tolist() == levels.tolist()
        if count >= default_min_repeat(width):  # the general encoder also picks one RLE run
            assert v1 == encode_levels_v1(levels, max_level)
            assert v2 == encode_levels_v2(levels, max_level)
        if count:  # golden: header = count << 1 as ULEB128, then the level in ceil(width / 8) bytes
            assert v2 == uleb(count << 1) + level.to_bytes((width + 7) // 8, "little")


@settings(max_examples=150, deadline=None, derandomize=True)
@given(runs=st.lists(st.tuples(st.integers(0, 3), st.integers(1, 80)), min_size=1, max_size=300),
       min_repeat=st.sampled_from([8, 12, 24]))
def test_run_choice_loop_and_vectorised_scan_agree(runs, min_repeat):
    from parquet_core.encodings.rle_hybrid_encoder import _choose_runs, _choose_runs_loop

    values = np.concatenate([np.full(n, v) for v, n in runs])
    change = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = np.concatenate(([0], change))
    lens = np.diff(np.concatenate((starts, [values.size])))
    cand = np.flatnonzero(lens >= min_repeat)
    if cand.size == 0:
        return
    a = _choose_runs(starts[cand], lens[cand], min_repeat)
    b = _choose_runs_loop(starts[cand], lens[cand], min_repeat)
    assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


@pytest.mark.parametrize("seed", range(12))
def test_prefix_composition_matches_applying_the_maps_in_turn(seed):
    """Row j of the composed table maps a start state through rows 0..j in turn (some rows
    constant maps, as a run chosen whatever the state gives)."""
    from parquet_core.encodings.rle_hybrid_encoder import _compose_prefix

    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 3000))
    maps = rng.integers(0, 8, (k, 8)).astype(np.uint8)
    const = rng.random(k) < rng.choice([0.0, 0.05, 0.5])
    maps[const] = rng.integers(0, 8, int(const.sum())).astype(np.uint8)[:, None]
    got = maps.copy()
    _compose_prefix(got)
    state = np.arange(8)
    for j in range(k):
        state = maps[j][state]
        assert got[j].tolist() == state.tolist()
