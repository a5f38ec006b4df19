"""BytesPlan: byte arrays located first and copied later, several parts into one output.

A column whose dictionary-encoded pages give way to PLAIN pages decodes both parts
straight into one buffer (``BytesPlan.join``): each part's copy may spill past its
end, and the next part, written after it, must overwrite that spill.  The expected
values are the Python byte strings the parts were built from.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays, BytesPlan
from parquet_core._kernels.runs import GATHER_SPILL, gather_runs
from parquet_core.constants import PhysicalType
from parquet_core.encodings.plain import plan_plain_byte_arrays_multi
from parquet_core.encodings.plain_encoder import encode_plain
from parquet_core.errors import ParquetFormatError

# values long enough for every take strategy (uniform rows, 8-byte words, padded rows, windows)
_values = st.lists(st.binary(max_size=80), min_size=1, max_size=30)


@st.composite
def _part(draw: st.DrawFn) -> tuple[BytesPlan, list[bytes]]:
    """One part and its expected values: a dictionary take, PLAIN pages, or decoded values."""
    kind = draw(st.sampled_from(["take", "plain", "values"]))
    if kind == "take":
        width = draw(st.sampled_from([None, 0, 3, 8, 40, 80]))
        vals = draw(st.lists(st.binary(min_size=width, max_size=width) if width is not None
                             else st.binary(max_size=draw(st.sampled_from([8, 64, 300]))),
                             min_size=1, max_size=20))
        idx = draw(st.lists(st.integers(0, len(vals) - 1), max_size=400))
        return (ByteArrays.from_pylist(vals).take_plan(np.array(idx, dtype=np.int32)),
                [vals[i] for i in idx])
    if kind == "plain":
        pages = draw(st.lists(st.lists(st.binary(max_size=draw(st.sampled_from([5, 40, 600]))),
                                       max_size=draw(st.sampled_from([10, 3000]))),
                              min_size=1, max_size=4))
        bufs = [bytes(encode_plain(ByteArrays.from_pylist(p), PhysicalType.BYTE_ARRAY)) for p in pages]
        return plan_plain_byte_arrays_multi(bufs, [len(p) for p in pages]), [v for p in pages for v in p]
    vals = draw(_values)
    cut = draw(st.integers(0, len(vals)))
    return ByteArrays.from_pylist(vals).slice(cut, len(vals)).as_plan(), vals[cut:]


@settings(max_examples=150, deadline=None)
@given(st.lists(_part(), min_size=1, max_size=5))
def test_join_gives_every_part_in_order(parts: list[tuple[BytesPlan, list[bytes]]]) -> None:
    expect = [v for _, vals in parts for v in vals]
    got = BytesPlan.join([p for p, _ in parts])
    assert got.to_pylist() == expect
    assert got.offsets[0] == 0 and got.data.size == got.offsets[-1]
    # each plan on its own gives the same values (the plans are filled again: fills repeat)
    assert [v for p, _ in parts for v in p.values().to_pylist()] == expect


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=200), st.integers(0, 50), st.data())
def test_gather_into_a_shared_buffer_writes_only_its_part(vals: list[bytes], base: int,
                                                         data: st.DataObject) -> None:
    """``gather_runs(out=)``: the part lands at its offsets; the bytes before it are kept,
    and nothing is written past its end plus GATHER_SPILL."""
    src = ByteArrays.from_pylist(vals)
    starts = src.offsets[:-1].copy()
    lengths = np.diff(src.offsets)
    order = data.draw(st.permutations(range(len(vals))))
    starts, lengths = starts[list(order)], lengths[list(order)]
    offsets = np.zeros(len(vals) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    offsets += base
    end = int(offsets[-1])
    out = np.full(end + GATHER_SPILL + 16, 0xA5, dtype=np.uint8)
    got = gather_runs(src.data, starts, lengths, offsets, out=out)
    assert got.tobytes() == b"".join(vals[i] for i in order)
    assert out[base:end].tobytes() == got.tobytes()
    assert (out[:base] == 0xA5).all() and (out[end + GATHER_SPILL:] == 0xA5).all()
    with pytest.raises(ValueError, match="room"):
        gather_runs(src.data, starts, lengths, offsets, out=out[:end + GATHER_SPILL - 1])


def test_a_plan_of_damaged_pages_is_refused_when_located() -> None:
    """Every check runs when the pages are located, with the errors of the decoder."""
    good = bytes(encode_plain(ByteArrays.from_pylist([b"ab", b"c"] * 2000), PhysicalType.BYTE_ARRAY))
    bad = bytearray(good)
    bad[5500:5504] = (0xFFFFFFF0).to_bytes(4, "little")    # value 1000: a "negative" length
    with pytest.raises(ParquetFormatError, match=r"page 1 of 2: .*-16 as int32"):
        plan_plain_byte_arrays_multi([good, bytes(bad)], [4000, 4000])
    with pytest.raises(ParquetFormatError, match="page 1 of 2"):
        plan_plain_byte_arrays_multi([good, good[:-1]], [4000, 4000])
    with pytest.raises(IndexError):
        ByteArrays.from_pylist([b"a"]).take_plan(np.array([0, 1]))
