"""pack_bits (the writer's kernel): the spec's example and an exact inverse of unpack_bits."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core._kernels.bitpack import pack_bits, unpack_bits


def reference_pack(values: list[int], width: int) -> bytes:
    """Spec note 1 of the hybrid: value i occupies bits i*w .. i*w+w-1, LSB first."""
    acc = 0
    for i, v in enumerate(values):
        acc |= v << (i * width)
    return acc.to_bytes((len(values) * width + 7) // 8, "little")


def test_spec_example() -> None:
    assert pack_bits(np.arange(8), 3).tobytes() == bytes([0x88, 0xC6, 0xFA])


@pytest.mark.parametrize("width", range(0, 65))
def test_every_width_matches_the_reference(width: int) -> None:
    rng = np.random.default_rng(width)
    for n in (0, 1, 7, 8, 9, 17, 64, 67):
        top = 2**width if width < 64 else 2**64
        vals = rng.integers(0, top, n, dtype=np.uint64) if width else np.zeros(n, np.uint64)
        packed = pack_bits(vals, width)
        assert packed.tobytes() == reference_pack([int(v) for v in vals], width)
        assert unpack_bits(packed, width, n).astype(np.uint64).tolist() == vals.tolist()


def test_input_types_and_validation() -> None:
    assert pack_bits(np.array([True, False, True]), 1).tobytes() == b"\x05"
    assert pack_bits(np.array([1, 2], dtype=np.int16), 9).tobytes() == reference_pack([1, 2], 9)
    assert pack_bits(np.array([[1, 2], [3, 0]], dtype=np.uint8), 2).tobytes() == b"\x39"
    with pytest.raises(ValueError):
        pack_bits([4], 2)
    with pytest.raises(ValueError):
        pack_bits(np.array([-1]), 8)
    with pytest.raises(ValueError):
        pack_bits([1], 65)


@pytest.mark.parametrize("width", [2, 3, 5, 7, 9, 12, 15])
@pytest.mark.parametrize("count", [0, 5, 8, 8003])
def test_lane_widths_match_a_bit_by_bit_packer(width: int, count: int) -> None:
    # widths 2..15 merge neighbouring lanes of whole words; the spec's LSB-first order,
    # built one bit at a time, is the reference
    values = np.random.default_rng(width * 1000 + count).integers(0, 1 << width, count)
    bits = [(int(v) >> b) & 1 for v in values for b in range(width)]
    bits += [0] * (-len(bits) % 8)
    want = bytes(sum(bit << i for i, bit in enumerate(bits[k:k + 8])) for k in range(0, len(bits), 8))
    assert pack_bits(values.astype(np.int32), width, validate=False).tobytes() == want
    assert pack_bits(values, width).tobytes() == want
