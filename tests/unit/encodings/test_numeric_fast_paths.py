"""Fast paths of the numeric, RLE/bit-packed and level decoders against independent references.

Every reference here is a deliberately naive pure-Python reading of the spec
(parquet-format ``Encodings.md``): bits are read one value at a time from a
Python big integer, headers one byte at a time.  Streams are built by small
pure-Python writers in this file (so every bit width, padding and run shape
can be forced), and also by pyarrow (``test_pyarrow_*``), whose files are
read by both libraries.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from parquet_core._kernels.bitpack import unpack_bits, unpack_bits_into
from parquet_core.column.levels import read_levels_v1, read_levels_v2
from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.byte_stream_split import decode_byte_stream_split
from parquet_core.encodings.delta_binary_packed import decode_delta_binary_packed
from parquet_core.encodings.plain import decode_plain
from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    decode_hybrid,
    decode_rle_booleans,
    decode_rle_hybrid,
)
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import uleb

# --------------------------------------------------------------------------------------
# Pure-Python references and writers
# --------------------------------------------------------------------------------------


def pack_lsb(values: list[int], w: int) -> bytes:
    """Pack LSB-first into ceil(n*w/8) bytes: each group of 8 values is one
    ``8 * w``-bit integer, i.e. exactly ``w`` bytes."""
    out = bytearray()
    for g in range(0, len(values), 8):
        acc = 0
        for j, v in enumerate(values[g:g + 8]):
            acc |= v << (j * w)
        out += acc.to_bytes(w, "little")
    return bytes(out[:(len(values) * w + 7) // 8])


def read_lsb(data: bytes, bit: int, w: int) -> int:
    """Value of ``w`` bits starting at bit offset ``bit`` (LSB-first)."""
    if w == 0:
        return 0
    lo, hi = bit // 8, (bit + w + 7) // 8
    return (int.from_bytes(data[lo:hi], "little") >> (bit - 8 * lo)) & ((1 << w) - 1)


def ref_uleb(data: bytes, pos: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        b = data[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return out, pos


def ref_hybrid(data: bytes, w: int, count: int) -> list[int]:
    out: list[int] = []
    pos = 0
    while len(out) < count:
        header, pos = ref_uleb(data, pos)
        if header & 1:
            n = (header >> 1) * 8
            for i in range(n):
                out.append(read_lsb(data, pos * 8 + i * w, w))
            pos += (header >> 1) * w
        else:
            nb = (w + 7) // 8
            out += [int.from_bytes(data[pos:pos + nb], "little")] * (header >> 1)
            pos += nb
    return out[:count]


def ref_dbp(data: bytes, bits: int) -> list[int]:
    """Reference DELTA_BINARY_PACKED decoder: arithmetic modulo 2**bits, signed result."""
    mask = (1 << bits) - 1
    pos = 0
    block, pos = ref_uleb(data, pos)
    nmini, pos = ref_uleb(data, pos)
    total, pos = ref_uleb(data, pos)
    zz, pos = ref_uleb(data, pos)
    cur = ((zz >> 1) ^ -(zz & 1)) & mask
    out = [cur] if total else []
    vpm = block // nmini
    while len(out) < total:
        zz, pos = ref_uleb(data, pos)
        md = (zz >> 1) ^ -(zz & 1)
        widths = data[pos:pos + nmini]
        pos += nmini
        for w in widths:
            if len(out) >= total:
                break
            for i in range(vpm):
                if len(out) >= total:
                    break
                cur = (cur + md + read_lsb(data, pos * 8 + i * w, w)) & mask
                out.append(cur)
            pos += vpm * w // 8
    return [v - (1 << bits) if v >> (bits - 1) else v for v in out]


def write_dbp(values: list[int], bits: int, block: int, nmini: int, force_w: list[int] | None,
              pad_last: bool, garbage_unused: bool) -> bytes:
    """A DELTA_BINARY_PACKED writer with control over widths and padding.

    ``force_w`` widens miniblocks (a width at least the needed one is valid);
    ``pad_last`` False drops the padding bytes of the last used miniblock;
    ``garbage_unused`` writes 0xEE as the width of unused trailing miniblocks.
    """
    mask = (1 << bits) - 1
    vpm = block // nmini
    zz = lambda v: ((v << 1) ^ (v >> 127)) & ((1 << 128) - 1)  # noqa: E731
    out = bytearray(uleb(block) + uleb(nmini) + uleb(len(values)))
    first = values[0] if values else 0
    out += uleb(zz(first))
    u = [v & mask for v in values]
    deltas = [(b - a) & mask for a, b in zip(u, u[1:])]
    signed = [d - (1 << bits) if d >> (bits - 1) else d for d in deltas]
    k = 0
    for start in range(0, len(signed), block):
        blk = signed[start:start + block]
        md = min(blk)
        rel = [(d - md) & mask for d in blk]
        out += uleb(zz(md))
        used = -(-len(blk) // vpm)
        widths = []
        for m in range(nmini):
            chunk = rel[m * vpm:(m + 1) * vpm]
            if m >= used:
                widths.append(0xEE if garbage_unused else 0)
                continue
            need = max(chunk).bit_length() if chunk else 0
            if force_w is not None:
                need = max(need, force_w[k % len(force_w)])
                k += 1
            widths.append(need)
        out += bytes(widths)
        for m in range(used):
            chunk = rel[m * vpm:(m + 1) * vpm]
            last = start + block >= len(signed) and m == used - 1
            if last and not pad_last:
                out += pack_lsb(chunk, widths[m])
            else:
                out += pack_lsb(chunk + [0] * (vpm - len(chunk)), widths[m])
    return bytes(out)


def write_hybrid(runs: list[tuple[str, object]], w: int) -> tuple[bytes, list[int]]:
    """Runs: ("rle", (n, value)) or ("bp", values) with len(values) a multiple of 8,
    or ("bp_short", values): the final run, bytes only for its own values."""
    buf = bytearray()
    expected: list[int] = []
    nb = (w + 7) // 8
    for kind, payload in runs:
        if kind == "rle":
            n, v = payload  # type: ignore[misc]
            buf += uleb(n << 1) + int(v).to_bytes(nb, "little")
            expected += [v] * n
        else:
            vals = list(payload)  # type: ignore[call-overload]
            groups = -(-len(vals) // 8)
            buf += uleb((groups << 1) | 1)
            if kind == "bp":
                buf += pack_lsb(vals + [0] * (groups * 8 - len(vals)), w)
            else:
                buf += pack_lsb(vals, w)
            expected += vals
    return bytes(buf), expected


@st.composite
def hybrid_streams(draw, max_w: int = 32, min_w: int = 0):
    w = draw(st.integers(min_w, max_w))
    top = (1 << w) - 1
    runs: list[tuple[str, object]] = []
    for _ in range(draw(st.integers(1, 30))):
        if draw(st.booleans()):
            n = draw(st.one_of(st.integers(0, 20), st.integers(60, 1500)))
            runs.append(("rle", (n, draw(st.integers(0, top)))))
        else:
            g = draw(st.one_of(st.integers(0, 4), st.integers(5, 40)))
            runs.append(("bp", draw(st.lists(st.integers(0, top), min_size=g * 8, max_size=g * 8))))
    if draw(st.booleans()):  # a final bit-packed run ending mid-byte
        k = draw(st.integers(1, 15))
        runs.append(("bp_short", draw(st.lists(st.integers(0, top), min_size=k, max_size=k))))
    buf, expected = write_hybrid(runs, w)
    return w, buf, expected


# --------------------------------------------------------------------------------------
# Bit unpacking
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("w", range(65))
def test_unpack_every_width_against_reference(w: int) -> None:
    rng = np.random.default_rng(w)
    for count in (0, 1, 7, 8, 9, 63, 1000, 70_001):
        vals = [int(x) for x in rng.integers(0, 2**63, count, dtype=np.uint64)]
        vals = [v & ((1 << w) - 1) if w else 0 for v in vals]
        if w == 64:
            vals = [v | ((v & 1) << 63) for v in vals]
        data = pack_lsb(vals, w)
        for extra in (b"", b"\xff" * 9):
            got = unpack_bits(data + extra, w, count)
            assert got.tolist() == vals
            out = np.full(count + 3, 7, dtype=np.uint64)
            unpack_bits_into(data + extra, w, count, out)
            assert out[:count].tolist() == vals and out[count:].tolist() == [7, 7, 7]
        if w <= 15 and count:
            small = np.empty(count, dtype=np.int16)
            unpack_bits_into(data, w, count, small)
            assert small.tolist() == vals
        if count and w:
            with pytest.raises(ParquetFormatError):
                unpack_bits_into(data[:-1], w, count, np.empty(count, dtype=np.uint64))


# --------------------------------------------------------------------------------------
# RLE / bit-packing hybrid, dictionary indices, booleans
# --------------------------------------------------------------------------------------


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(stream=hybrid_streams(), cut=st.integers(0, 100))
def test_hybrid_matches_reference(stream, cut: int) -> None:
    w, buf, expected = stream
    if not expected:
        return
    count = max(1, len(expected) * cut // 100) if cut else len(expected)
    want = ref_hybrid(buf, w, count)
    assert want == expected[:count]
    got = decode_rle_hybrid(buf, w, count)
    assert got.dtype == (np.int32 if w < 32 else np.uint32)
    assert got.tolist() == want
    if w <= 15:
        assert decode_hybrid(np.frombuffer(buf, np.uint8), w, count, np.int16)[0].tolist() == want


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(stream=st.one_of(hybrid_streams(max_w=20, min_w=1), hybrid_streams(max_w=1, min_w=1)))
def test_hybrid_paths_agree(stream) -> None:
    """Force each internal path (vector scan, byte gather vs join) and compare."""
    w, buf, expected = stream
    if not expected:
        return
    arr = np.frombuffer(buf, np.uint8)
    names = ("_PROBE_RUNS", "_VECTOR_MIN_BYTES", "_DENSE_BYTES_PER_RUN", "_JOIN_MIN_BYTES",
             "_BITS_MAX_BYTES")
    saved = [getattr(rle_hybrid, k) for k in names]
    try:
        for setting in ((10**9, 0, 0, 0, 0), (1, 0, 10**9, 0, 0), (1, 0, 10**9, 10**9, 0),
                        (10**9, 0, 0, 10**9, 0), (10**9, 0, 0, 0, 10**9)):
            for k, v in zip(names, setting):
                setattr(rle_hybrid, k, v)
            assert decode_rle_hybrid(arr, w, len(expected)).tolist() == expected
            narrow = np.uint8 if w <= 8 else np.uint16 if w <= 16 else np.uint32
            assert decode_hybrid(arr, w, len(expected), narrow)[0].tolist() == expected
    finally:
        for k, v in zip(names, saved):
            setattr(rle_hybrid, k, v)


@pytest.mark.parametrize("w", range(33))
def test_hybrid_every_width_single_runs(w: int) -> None:
    top = (1 << w) - 1
    rng = np.random.default_rng(100 + w)
    vals = [int(x) & top for x in rng.integers(0, 2**32, 8 * 37, dtype=np.uint64)]
    for runs in ([("rle", (1000, top))], [("bp", vals)], [("bp_short", vals[:13])],
                 [("rle", (3, top)), ("bp", vals), ("rle", (5, 0)), ("bp_short", vals[:5])]):
        buf, expected = write_hybrid(runs, w)
        assert decode_rle_hybrid(buf, w, len(expected)).tolist() == expected
        assert decode_rle_hybrid(buf + b"\x00junk", w, len(expected)).tolist() == expected


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(stream=hybrid_streams(max_w=32))
def test_dictionary_indices_and_booleans(stream) -> None:
    w, buf, expected = stream
    if not expected:
        return
    if max(expected) >= 2**31:  # no dictionary can be that large
        with pytest.raises(ParquetFormatError):
            decode_dictionary_indices(bytes([w]) + buf, len(expected))
    else:
        got = decode_dictionary_indices(bytes([w]) + buf, len(expected))
        assert got.dtype == np.int32 and got.tolist() == expected
    bits = [v & 1 for v in expected]
    bbuf, _ = write_hybrid([("bp_short", bits)] if len(bits) % 8 else [("bp", bits)], 1)
    framed = len(bbuf).to_bytes(4, "little") + bbuf
    assert decode_rle_booleans(framed, len(bits)).tolist() == [bool(b) for b in bits]


def test_hybrid_malformed_inputs_raise() -> None:
    w = 5
    buf, expected = write_hybrid([("rle", (10, 3)), ("bp", list(range(16)))], w)
    for k in range(len(buf)):
        with pytest.raises(ParquetFormatError):
            decode_rle_hybrid(buf[:k], w, len(expected))
    with pytest.raises(ParquetFormatError):  # value wider than the bit width
        decode_rle_hybrid(uleb(20) + b"\x40", w, 10)
    with pytest.raises(ParquetFormatError):  # run header longer than 5 bytes
        decode_rle_hybrid(b"\x81\x80\x80\x80\x80\x80\x01" + bytes(100), w, 10)
    with pytest.raises(ParquetFormatError):  # bit-packed run declaring 2**27 groups
        decode_rle_hybrid(uleb((1 << 28) | 1) + bytes(64), w, 2**30)
    with pytest.raises(ParquetFormatError):
        decode_rle_hybrid(buf, 33, 4)
    with pytest.raises(ParquetFormatError):
        decode_dictionary_indices(b"\x21" + buf, 4)
    with pytest.raises(ParquetFormatError):
        decode_rle_booleans(b"\xff\x00\x00\x00\x02\x01", 3)
    bits, _ = write_hybrid([("rle", (9, 1)), ("bp", [1, 0] * 8), ("rle", (3, 0))], 1)
    for k in range(len(bits)):  # every truncation of a width-1 stream (the bytes path)
        with pytest.raises(ParquetFormatError):
            decode_rle_hybrid(bits[:k], 1, 28)
    with pytest.raises(ParquetFormatError):  # RLE value 2 in a width-1 stream
        decode_rle_hybrid(b"\x08\x02", 1, 4)


# --------------------------------------------------------------------------------------
# Levels v1 / v2
# --------------------------------------------------------------------------------------


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), max_level=st.integers(1, 9), v2=st.booleans())
def test_levels_match_reference(data, max_level: int, v2: bool) -> None:
    w = max_level.bit_length()
    runs: list[tuple[str, object]] = []
    for _ in range(data.draw(st.integers(1, 12))):
        if data.draw(st.booleans()):
            runs.append(("rle", (data.draw(st.integers(0, 2000)),
                                 data.draw(st.integers(0, max_level)))))
        else:
            g = data.draw(st.integers(1, 10))
            runs.append(("bp", data.draw(st.lists(st.integers(0, max_level),
                                                  min_size=8 * g, max_size=8 * g))))
    buf, expected = write_hybrid(runs, w)
    if not expected:
        return
    count = data.draw(st.integers(1, len(expected)))
    want = ref_hybrid(buf, w, count)
    if v2:
        got = read_levels_v2(memoryview(buf), max_level, count, "definition")
        assert got.dtype == np.int16 and got.tolist() == want
    else:
        prefix = b"\x09" * 3
        body = prefix + len(buf).to_bytes(4, "little") + buf + b"values"
        got, pos = read_levels_v1(memoryview(body), 3, Encoding.RLE, max_level, count, "definition")
        assert got.dtype == np.int16 and got.tolist() == want
        assert pos == 3 + 4 + len(buf)


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("run_len,count,value,max_level", [
    (1000, 1000, 1, 1), (1000, 999, 1, 1), (999, 1000, 1, 1), (70, 70, 0, 1),
    (100_000, 1, 3, 3), (5, 5, 2, 2), (20000, 20000, 7, 7), (300, 300, 4, 3),
])
def test_levels_single_run_fast_path(v2: bool, run_len: int, count: int, value: int,
                                     max_level: int) -> None:
    w = max_level.bit_length()
    stream = uleb(run_len << 1) + bytes([value])
    if run_len < count:  # the general path must finish the page (or fail)
        stream += uleb(((count - run_len) << 1)) + bytes([0])
    expected = ref_hybrid(stream, w, count)
    if value > max_level:
        with pytest.raises(ParquetFormatError):
            if v2:
                read_levels_v2(memoryview(stream), max_level, count, "definition")
            else:
                read_levels_v1(memoryview(len(stream).to_bytes(4, "little") + stream), 0,
                               Encoding.RLE, max_level, count, "definition")
        return
    if v2:
        got = read_levels_v2(memoryview(stream), max_level, count, "definition")
    else:
        got, _ = read_levels_v1(memoryview(len(stream).to_bytes(4, "little") + stream), 0,
                                Encoding.RLE, max_level, count, "definition")
    assert got.dtype == np.int16 and got.tolist() == expected


def test_levels_malformed_raise() -> None:
    with pytest.raises(ParquetFormatError):  # length beyond the page
        read_levels_v1(memoryview(b"\xff\x00\x00\x00\x08\x01"), 0, Encoding.RLE, 1, 4, "d")
    with pytest.raises(ParquetFormatError):  # no room for the length
        read_levels_v1(memoryview(b"\x01\x00"), 0, Encoding.RLE, 1, 4, "d")
    with pytest.raises(ParquetFormatError):  # the run covers too few levels
        read_levels_v2(memoryview(b"\x08\x01"), 1, 5, "d")


def test_level_above_maximum_in_bitpacked_run_raises() -> None:
    with pytest.raises(ParquetFormatError):
        read_levels_v2(memoryview(b"\x03" + pack_lsb([6] * 8, 3)), 5, 8, "d")
    # 3 bits, max 7: every value is in range, nothing to check
    assert read_levels_v2(memoryview(b"\x03" + pack_lsb([7] * 8, 3)), 7, 8, "d").tolist() == [7] * 8


# --------------------------------------------------------------------------------------
# DELTA_BINARY_PACKED
# --------------------------------------------------------------------------------------

_I32 = st.integers(-2**31, 2**31 - 1)
_I64 = st.integers(-2**63, 2**63 - 1)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), bits=st.sampled_from([32, 64]),
       layout=st.sampled_from([(128, 4), (256, 4), (8, 1), (64, 8), (32, 2), (24, 3)]),
       pad_last=st.booleans(), garbage=st.booleans())
def test_dbp_matches_reference(data, bits: int, layout, pad_last: bool, garbage: bool) -> None:
    block, nmini = layout
    ints = _I32 if bits == 32 else _I64
    extremes = st.sampled_from([-2**(bits - 1), 2**(bits - 1) - 1, 0, -1, 1])
    values = data.draw(st.lists(st.one_of(ints, extremes, st.integers(-50, 50)), max_size=700))
    force = data.draw(st.one_of(st.none(), st.lists(st.integers(0, bits), min_size=1, max_size=5)))
    buf = write_dbp(values, bits, block, nmini, force, pad_last, garbage)
    want = ref_dbp(buf, bits)
    assert want == values
    got, end = decode_delta_binary_packed(buf + b"tail", 0, np.int32 if bits == 32 else np.int64)
    assert got.tolist() == values
    if pad_last:  # an unpadded last miniblock is only readable at the end of a buffer
        assert end == len(buf)
    got, end = decode_delta_binary_packed(buf, 0, np.int32 if bits == 32 else np.int64)
    assert got.tolist() == values and end == len(buf)


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("w", range(65))
def test_dbp_every_bit_width(bits: int, w: int) -> None:
    rng = np.random.default_rng(w * 7 + bits)
    n = 1 + 128 * 3 + 45
    if w > bits:  # lenient INT32 read of 33..64-bit miniblocks: deltas wrap to 32 bits
        deltas = [int(x) for x in rng.integers(0, 2**63, n - 1, dtype=np.uint64)]
        deltas = [d & ((1 << w) - 1) for d in deltas]
        buf = bytearray(uleb(128) + uleb(4) + uleb(n) + uleb(0))
        for start in range(0, n - 1, 128):
            chunk = deltas[start:start + 128]
            buf += uleb(0) + bytes([w] * 4)
            buf += pack_lsb(chunk + [0] * (128 - len(chunk)), w)
        want = ref_dbp(bytes(buf), 32)
        got, _ = decode_delta_binary_packed(bytes(buf), 0, np.int32)
        assert got.tolist() == want
        return
    values = [int(x) for x in rng.integers(-2**(bits - 1), 2**(bits - 1), n, dtype=np.int64)]
    buf = write_dbp(values, bits, 128, 4, [w], pad_last=True, garbage_unused=True)
    got, _ = decode_delta_binary_packed(buf, 0, np.int32 if bits == 32 else np.int64)
    assert got.tolist() == values == ref_dbp(buf, bits)


@pytest.mark.parametrize("bits", [32, 64])
def test_dbp_tiny_and_wrapping(bits: int) -> None:
    lo, hi = -2**(bits - 1), 2**(bits - 1) - 1
    dt = np.int32 if bits == 32 else np.int64
    for values in ([], [lo], [hi], [lo, hi, lo, hi], [hi, lo] * 70, [0, hi, -1, lo, 1] * 60):
        buf = write_dbp(values, bits, 128, 4, None, True, False)
        got, end = decode_delta_binary_packed(buf, 0, dt)
        assert got.tolist() == values and end == len(buf)


def test_dbp_malformed_raise_quickly() -> None:
    values = list(range(0, 3000, 7))
    buf = write_dbp(values, 64, 128, 4, [9], pad_last=False, garbage_unused=True)
    for k in range(len(buf)):
        try:
            got, _ = decode_delta_binary_packed(buf[:k], 0, np.int64)
        except ParquetFormatError:
            continue
        # only the unused padding of the last miniblock may be cut (lenient reader)
        assert got.tolist() == values
    # bit width above 64
    bad = bytearray(uleb(128) + uleb(4) + uleb(200) + uleb(0) + uleb(0) + bytes([65, 0, 0, 0]))
    bad += bytes(2000)
    with pytest.raises(ParquetFormatError):
        decode_delta_binary_packed(bytes(bad), 0, np.int64)
    # a header declaring 2**31 - 1 values in a few bytes: no allocation, an error
    with pytest.raises(ParquetFormatError):
        decode_delta_binary_packed(uleb(128) + uleb(4) + uleb(2**31 - 1) + uleb(0) + bytes(40), 0,
                                   np.int64)
    with pytest.raises(ParquetFormatError):  # min delta varint longer than 10 bytes
        decode_delta_binary_packed(uleb(8) + uleb(1) + uleb(3) + uleb(0) + b"\x80" * 11 + b"\x00"
                                   + bytes(20), 0, np.int64)
    with pytest.raises(ParquetFormatError):  # count above the caller's bound
        decode_delta_binary_packed(buf, 0, np.int64, max_count=10)


# --------------------------------------------------------------------------------------
# BYTE_STREAM_SPLIT and PLAIN numeric
# --------------------------------------------------------------------------------------


@settings(max_examples=80)
@given(width=st.integers(1, 24), n=st.integers(0, 300), extra=st.integers(0, 3), data=st.data())
def test_bss_flba_matches_reference(width: int, n: int, extra: int, data) -> None:
    raw = data.draw(st.binary(min_size=width * (n + extra), max_size=width * (n + extra)))
    total = n + extra
    want = [bytes(raw[k * total + i] for k in range(width)) for i in range(n)]
    got = decode_byte_stream_split(raw, n, PhysicalType.FIXED_LEN_BYTE_ARRAY, width)
    assert got.shape == (n, width)
    assert [bytes(r) for r in got] == want


@pytest.mark.parametrize("pt,dt", [(PhysicalType.INT32, "<i4"), (PhysicalType.INT64, "<i8"),
                                   (PhysicalType.FLOAT, "<f4"), (PhysicalType.DOUBLE, "<f8")])
def test_bss_numeric_matches_reference(pt: int, dt: str) -> None:
    rng = np.random.default_rng(3)
    for n in (0, 1, 5, 1000):
        vals = rng.integers(0, 255, n * np.dtype(dt).itemsize, dtype=np.uint8)
        k = np.dtype(dt).itemsize
        enc = bytes(vals.reshape(n, k).T.reshape(-1)) if n else b""
        got = decode_byte_stream_split(enc, n, pt)
        assert got.dtype == np.dtype(dt) and got.tobytes() == vals.tobytes()
    with pytest.raises(ParquetFormatError):
        decode_byte_stream_split(b"\x00" * 7, 2, pt)


@pytest.mark.parametrize("pt,dt", [(PhysicalType.INT32, "<i4"), (PhysicalType.INT64, "<i8"),
                                   (PhysicalType.FLOAT, "<f4"), (PhysicalType.DOUBLE, "<f8")])
def test_plain_numeric_zero_copy_every_buffer_kind(pt: int, dt: str) -> None:
    vals = np.arange(-5, 12).astype(dt)
    raw = vals.tobytes() + b"pad"
    for buf in (raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, np.uint8),
                memoryview(raw)[0:len(raw)], np.frombuffer(raw * 2, np.uint8)[::2][:0]):
        if len(buf) == 0:
            assert decode_plain(buf, 0, pt).size == 0
            continue
        got = decode_plain(buf, vals.size, pt)
        assert got.dtype == np.dtype(dt) and got.tolist() == vals.tolist()
        with pytest.raises(ParquetFormatError):
            decode_plain(buf, vals.size + 1, pt)
    with pytest.raises(ParquetFormatError):
        decode_plain(raw, -1, pt)


# --------------------------------------------------------------------------------------
# Against pyarrow reading the same file
# --------------------------------------------------------------------------------------

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _both(table, **opts):
    import parquet_core as pc

    sink = io.BytesIO()
    pq.write_table(table, sink, compression="NONE", **opts)
    data = sink.getvalue()
    ours = pc.read_table(io.BytesIO(data))
    theirs = pq.read_table(io.BytesIO(data), use_threads=False)
    return ours.column(0).to_pylist(), theirs.column(0).to_pylist()


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), bits=st.sampled_from([32, 64]), nullable=st.booleans(),
       v2=st.booleans(), small_pages=st.booleans())
def test_pyarrow_delta_binary_packed(data, bits: int, nullable: bool, v2: bool,
                                     small_pages: bool) -> None:
    ints = _I32 if bits == 32 else _I64
    lo, hi = -2**(bits - 1), 2**(bits - 1) - 1
    vals = data.draw(st.lists(st.one_of(ints, st.sampled_from([lo, hi, 0]), st.none()
                                        if nullable else st.just(0)), max_size=3000))
    t = pa.table({"x": pa.array(vals, type=pa.int32() if bits == 32 else pa.int64())})
    opts = dict(use_dictionary=False, column_encoding={"x": "DELTA_BINARY_PACKED"},
                data_page_version="2.0" if v2 else "1.0")
    if small_pages:
        opts.update(data_page_size=512, write_batch_size=97)
    ours, theirs = _both(t, **opts)
    assert ours == theirs


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), kind=st.sampled_from(["float32", "float64", "int32", "int64"]),
       nullable=st.booleans())
def test_pyarrow_byte_stream_split(data, kind: str, nullable: bool) -> None:
    n = data.draw(st.integers(0, 2000))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    vals = rng.integers(-2**31, 2**31, n).astype(kind)
    mask = rng.random(n) < 0.2 if nullable else None
    t = pa.table({"x": pa.array(vals, mask=mask)})
    ours, theirs = _both(t, use_dictionary=False, column_encoding={"x": "BYTE_STREAM_SPLIT"},
                         data_page_size=4096)
    assert ours == theirs


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 5000),
       null_rate=st.sampled_from([0.0, 0.01, 0.1, 0.5, 1.0]), v2=st.booleans(),
       kind=st.sampled_from(["bool_rle", "int64_plain", "int64_dict"]))
def test_pyarrow_levels_booleans_dictionary(seed: int, n: int, null_rate: float, v2: bool,
                                            kind: str) -> None:
    rng = np.random.default_rng(seed)
    mask = rng.random(n) < null_rate
    if kind == "bool_rle":
        arr = pa.array(rng.random(n) < rng.random(), mask=mask)
        opts = dict(use_dictionary=False, column_encoding={"x": "RLE"}, data_page_version="2.0")
    elif kind == "int64_plain":
        arr = pa.array(rng.integers(-2**62, 2**62, n), mask=mask)
        opts = dict(use_dictionary=False, data_page_version="2.0" if v2 else "1.0")
    else:
        arr = pa.array(rng.integers(0, int(rng.integers(1, 3000)), n), mask=mask)
        opts = dict(data_page_version="2.0" if v2 else "1.0")
    ours, theirs = _both(pa.table({"x": arr}), data_page_size=int(rng.integers(64, 9000)),
                         write_batch_size=int(rng.integers(1, 1200)), **opts)
    assert ours == theirs


# --------------------------------------------------------------------------------------
# Mutated streams: a result or ParquetFormatError, never another exception
# --------------------------------------------------------------------------------------


def _mutate(data: bytes, rng: np.random.Generator) -> bytes:
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        op = rng.integers(0, 4)
        if op == 0 and b:
            b[int(rng.integers(0, len(b)))] = int(rng.integers(0, 256))
        elif op == 1 and b:
            del b[int(rng.integers(0, len(b))):]
        elif op == 2:
            b.insert(int(rng.integers(0, len(b) + 1)), int(rng.integers(0, 256)))
        elif b:
            i = int(rng.integers(0, len(b)))
            b[i] |= 0x80
    return bytes(b)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2**32 - 1), bits=st.sampled_from([32, 64]))
def test_mutated_dbp_streams_fail_cleanly(seed: int, bits: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 900))
    values = [int(x) for x in rng.integers(-2**(bits - 1), 2**(bits - 1), n, dtype=np.int64)]
    buf = write_dbp(values, bits, int(rng.choice([128, 256, 8])), 4 if rng.random() < 0.7 else 1,
                    None, bool(rng.integers(0, 2)), bool(rng.integers(0, 2)))
    for _ in range(20):
        try:
            got, end = decode_delta_binary_packed(_mutate(buf, rng), 0,
                                                  np.int32 if bits == 32 else np.int64,
                                                  max_count=5000)
        except ParquetFormatError:
            continue
        assert got.size <= 5000 and end >= 0


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(stream=hybrid_streams(max_w=32), seed=st.integers(0, 2**32 - 1))
def test_mutated_hybrid_streams_fail_cleanly(stream, seed: int) -> None:
    w, buf, expected = stream
    rng = np.random.default_rng(seed)
    count = max(1, len(expected))
    top = max(1, (1 << min(w, 15)) - 1)
    for _ in range(10):
        bad = _mutate(buf, rng)
        framed = _mutate(len(bad).to_bytes(4, "little") + bad, rng)
        calls = ((decode_rle_hybrid, (bad, w, count)),
                 (decode_dictionary_indices, (bytes([w]) + bad, count)),
                 (decode_rle_booleans, (len(bad).to_bytes(4, "little") + bad, count)),
                 (read_levels_v2, (memoryview(bad), top, count, "d")),
                 (read_levels_v1, (memoryview(framed), 0, Encoding.RLE, top, count, "d")))
        for fn, args in calls:
            try:
                got = fn(*args)
            except ParquetFormatError:
                continue
            got = got[0] if isinstance(got, tuple) else got
            assert len(got) == count


def test_decoded_levels_and_booleans_are_writable() -> None:
    bits, expected = write_hybrid([("rle", (9, 1)), ("bp", [1, 0] * 8), ("rle", (3, 0))], 1)
    framed = len(bits).to_bytes(4, "little") + bits
    for got in (decode_rle_booleans(framed, 28), decode_rle_hybrid(bits, 1, 28),
                read_levels_v2(memoryview(bits), 1, 28, "d"),
                read_levels_v1(memoryview(framed), 0, Encoding.RLE, 1, 28, "d")[0],
                read_levels_v2(memoryview(uleb(56) + b"\x01"), 1, 28, "d")):
        assert got.flags.writeable
        got[0] = 0
