"""Fixed-width bit packing: LSB-first (hybrid/PLAIN booleans) and MSB-first.

Spec: parquet-format ``Encodings.md``, "Run Length Encoding / Bit-Packing
Hybrid" note 1 (LSB-first packing, also used by PLAIN BOOLEAN and the
DELTA_BINARY_PACKED miniblocks) and "Bit-packed (Deprecated)" (MSB-first).

LSB-first, values 0..7 at bit width 3 (bit ``a`` of value ``A`` is ``Aa``,
bit 0 = least significant)::

    byte 0               byte 1               byte 2
    C0 B2 B1 B0 A2 A1 A0 ...  (read right to left, low bit first)
    +--------+--------+--------+
    |10001000|11000110|11111010|   = 0x88 0xC6 0xFA
    +--------+--------+--------+

MSB-first (deprecated BIT_PACKED), same values::

    +--------+--------+--------+
    |00000101|00111001|01110111|   = 0x05 0x39 0x77
    +--------+--------+--------+

Kernel idea: 8 values of width ``w`` occupy exactly ``w`` bytes, so value
``j`` of every group of 8 sits at the same byte offset ``(j*w) >> 3`` and
bit shift ``(j*w) & 7`` inside its group.  A 2-D strided *unaligned* view
reads the 4- or 8-byte word starting at every byte of every group; one
fancy index on its second axis picks the 8 lane offsets of all groups at
once, then one broadcast shift and one mask (written straight into the
caller's output, any integer type) finish: 3 numpy calls for a page, no
per-value Python.  Above 64k values the lanes are decoded by 8 strided
passes into the output's columns instead (less memory traffic).  Per-width
lane tables are precomputed.  Widths 58..64 can straddle 9 bytes; the ninth
byte is read from a second strided uint8 view.  Whole-byte widths and
width 1 take direct paths.

Edge cases:

* ``bit_width == 0`` -> ``count`` zeros, no bytes needed;
* ``count == 0`` -> empty result whatever the buffer;
* the buffer only needs ``ceil(count * bit_width / 8)`` bytes: a trailing
  partial group is read through a small zero-padded copy, so the input is
  never over-read;
* bit width outside 0..64, negative count, or a short buffer ->
  ParquetFormatError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core.errors import ParquetFormatError

__all__ = [
    "as_uint8",
    "pack_bits",
    "pack_bits_msb",
    "pack_segments",
    "packed_size",
    "unpack_bits",
    "unpack_bits_into",
    "unpack_bits_msb",
    "unpack_groups",
    "unpack_groups_at",
    "unpack_spaced_runs_into",
]

_LE4 = np.dtype("<u4")
_LE8 = np.dtype("<u8")
_BE4 = np.dtype(">u4")
_BE8 = np.dtype(">u8")
#: ``_REVERSED[b]`` is byte ``b`` with its bit order reversed.
_REVERSED = np.packbits(np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                                      bitorder="little"), axis=1).reshape(256)
# Groups decoded straight from the caller's buffer only when there are enough
# of them for the second (tail) pass to be worth its fixed overhead.
_DIRECT_MIN_GROUPS = 256


def as_uint8(buf: Any) -> npt.NDArray[np.uint8]:
    """View any bytes-like object or numpy array as a flat contiguous uint8 array.

    Zero-copy for ``bytes``, ``bytearray``, contiguous ``memoryview`` and
    contiguous numpy arrays; a non-contiguous array is copied.
    """
    if isinstance(buf, np.ndarray):
        if buf.dtype == np.uint8 and buf.ndim == 1 and buf.flags.c_contiguous:
            return buf
        return np.ascontiguousarray(buf).reshape(-1).view(np.uint8)
    return np.frombuffer(buf, dtype=np.uint8)


def packed_size(count: int, bit_width: int) -> int:
    """Bytes holding ``count`` values of ``bit_width`` bits: ``ceil(count*bit_width/8)``."""
    return (count * bit_width + 7) >> 3


def _check_args(bit_width: int, count: int, nbytes: int, what: str) -> int:
    if not 0 <= bit_width <= 64:
        raise ParquetFormatError(f"{what}: bit width {bit_width} is outside 0..64")
    if count < 0:
        raise ParquetFormatError(f"{what}: negative value count {count}")
    need = packed_size(count, bit_width)
    if need > nbytes:
        raise ParquetFormatError(
            f"{what}: {count} values of {bit_width} bits need {need} bytes, "
            f"only {nbytes} available")
    return need


def _out_dtype(bit_width: int) -> type[np.unsignedinteger[Any]]:
    return np.uint32 if bit_width <= 32 else np.uint64


def _groups_into(src: npt.NDArray[np.uint8], w: int, ngroups: int,
                 out: npt.NDArray[np.unsignedinteger[Any]], msb: bool) -> None:
    """Decode ``ngroups`` groups of 8 values from ``src`` into ``out`` (shape (8, ngroups)).

    ``src`` must extend at least 9 bytes past ``ngroups * w`` (the widest
    word read of the last group), which callers guarantee by padding.
    """
    wide = w > 25
    word = (_BE8 if wide else _BE4) if msb else (_LE8 if wide else _LE4)
    nbits = 64 if wide else 32
    mask = word.type((1 << w) - 1)
    tmp = np.empty(ngroups, dtype=word.newbyteorder("="))
    for j in range(8):
        bit = j * w
        off = bit >> 3
        sh = bit & 7
        v = np.ndarray((ngroups,), dtype=word, buffer=src, offset=off, strides=(w,))
        dst = out[j]
        if sh + w <= nbits:
            if msb:
                np.right_shift(v, nbits - sh - w, out=tmp)
            else:
                np.right_shift(v, sh, out=tmp)
            np.bitwise_and(tmp, mask, out=dst, casting="unsafe")
            continue
        # 57 <= w <= 64 and the value spills into a ninth byte.
        extra = sh + w - 64  # bits taken from the ninth byte, 1..7
        nxt = np.ndarray((ngroups,), dtype=np.uint8, buffer=src, offset=off + 8, strides=(w,))
        nxt64 = nxt.astype(np.uint64)
        if msb:
            # top (64 - sh) bits of the word are the value's high bits
            np.bitwise_and(v, np.uint64((1 << (64 - sh)) - 1), out=tmp)
            np.left_shift(tmp, np.uint64(extra), out=tmp)
            np.right_shift(nxt64, np.uint64(8 - extra), out=nxt64)
            np.bitwise_or(tmp, nxt64, out=dst)
        else:
            np.right_shift(v, np.uint64(sh), out=tmp)
            np.left_shift(nxt64, np.uint64(64 - sh), out=nxt64)
            np.bitwise_or(tmp, nxt64, out=tmp)
            np.bitwise_and(tmp, mask, out=dst)


def _unpack_general(arr: npt.NDArray[np.uint8], w: int, count: int,
                    msb: bool) -> npt.NDArray[np.unsignedinteger[Any]]:
    ngroups = (count + 7) >> 3
    out = np.empty((8, ngroups), dtype=_out_dtype(w))
    # Groups whose widest read (9 bytes past the group start + w) stays inside
    # the caller's buffer are decoded in place; the rest from a padded copy.
    direct = min(ngroups, max(0, (arr.size - 9) // w)) if ngroups >= _DIRECT_MIN_GROUPS else 0
    if direct:
        _groups_into(arr, w, direct, out[:, :direct], msb)
    rest = ngroups - direct
    if rest:
        start = direct * w
        avail = min(arr.size - start, rest * w)
        pad = np.zeros(rest * w + 9, dtype=np.uint8)
        pad[:avail] = arr[start:start + avail]
        _groups_into(pad, w, rest, out[:, direct:], msb)
    return out.T.reshape(-1)[:count]


#: Below this many values the LSB-first unpack reads all 8 lanes of every
#: group with one fancy index over a 2-D strided view (3 numpy calls: cheap
#: per call, ideal for pages); above it, one strided pass per lane writes
#: straight into the output's columns (less memory traffic on big inputs).
_FANCY_MAX_VALUES = 1 << 16
#: Slack bytes past ``groups * w`` that the unaligned word reads may touch.
SLACK = 9


def _lane_table(w: int) -> tuple[np.dtype[Any], Any, int, npt.NDArray[np.intp], npt.NDArray[Any]]:
    """Per-width constants of the LSB-first unpack: word type, mask, bytes
    spanned by a group's lane starts, and each lane's byte offset and shift."""
    word = _LE8 if w > 25 else _LE4
    bits = np.arange(8, dtype=np.int64) * w
    return (word, word.type((1 << w) - 1), int(bits[-1] >> 3) + 1,
            (bits >> 3).astype(np.intp), (bits & 7).astype(word))


#: Precomputed lane tables for the widths the fancy/strided kernel handles.
_LANES = {w: _lane_table(w) for w in range(2, 58)}


def _lsb_groups_into(src: npt.NDArray[np.uint8], w: int, ngroups: int,
                     out2d: npt.NDArray[Any]) -> None:
    """Decode ``ngroups`` LSB-first groups of 8 values into ``out2d`` (shape (ngroups, 8)).

    ``src`` must hold at least ``ngroups * w + SLACK`` bytes.  ``1 < w < 58``
    (wider values can straddle 9 bytes and take :func:`_groups_into`).
    """
    word, mask, span, offsets, shifts = _LANES[w]
    if ngroups * 8 <= _FANCY_MAX_VALUES:
        # view[g, b] is the unaligned word starting at byte b of group g
        view = np.ndarray((ngroups, span), dtype=word, buffer=src, offset=0, strides=(w, 1))
        got = view[:, offsets]
        got >>= shifts
        np.bitwise_and(got, mask, out=out2d, casting="unsafe")
        return
    tmp = np.empty(ngroups, dtype=word.newbyteorder("="))
    for j in range(8):
        bit = j * w
        sh = bit & 7
        v = np.ndarray((ngroups,), dtype=word, buffer=src, offset=bit >> 3, strides=(w,))
        # sh + w <= nbits: w < 58 and sh <= 7 (w <= 25 for 32-bit words)
        if sh:
            np.right_shift(v, sh, out=tmp)
            np.bitwise_and(tmp, mask, out=out2d[:, j], casting="unsafe")
        else:
            np.bitwise_and(v, mask, out=out2d[:, j], casting="unsafe")


def _byte_lanes(w: int) -> npt.NDArray[Any]:
    """Per byte value, its 8 // w values of w bits (LSB first) as bytes, read as one word."""
    per = 8 // w
    b = np.arange(256, dtype=np.uint16)
    lanes = np.stack([(b >> (j * w)) & ((1 << w) - 1) for j in range(per)], axis=1).astype(np.uint8)
    return lanes.reshape(-1).view(np.dtype(f"<u{per}"))


#: :func:`_byte_lanes` of the widths that divide a byte (1 has ``np.unpackbits``).
_BYTE_LANES = {2: _byte_lanes(2), 4: _byte_lanes(4)}


def unpack_bits_into(buf: Any, bit_width: int, count: int, out: npt.NDArray[Any]) -> None:
    """Unpack ``count`` LSB-first values of ``bit_width`` bits into ``out[:count]``.

    ``out`` is a contiguous 1-D integer array (any width able to hold the
    values: e.g. int16 for levels, uint64 for 64-bit deltas); values are
    stored with an unsafe cast, so a too-narrow ``out`` truncates.  Same
    checks as :func:`unpack_bits`.  The input is read in place when it has
    :data:`SLACK` bytes to spare past the packed groups, else through one
    zero-padded copy.
    """
    arr = as_uint8(buf)
    need = _check_args(bit_width, count, arr.size, "bit-packed values")
    if out.ndim != 1 or out.size < count or not out.flags.c_contiguous:
        raise ValueError("unpack_bits_into: out must be a contiguous 1-D array of >= count items")
    w = bit_width
    if count == 0:
        return
    dst = out[:count]
    if w == 0:
        dst[...] = 0
        return
    if w == 1:
        np.copyto(dst, np.unpackbits(arr[:need], count=count, bitorder="little"), casting="unsafe")
        return
    if w in (8, 16, 32, 64):
        np.copyto(dst, np.frombuffer(arr, dtype=f"<u{w // 8}", count=count), casting="unsafe")
        return
    if w in (2, 4):
        # every byte holds 8 // w whole values: one table lookup per byte gives them all
        # as bytes (2-2.5x faster than the lane kernel on 2-bit dictionary indices)
        vals = np.take(_BYTE_LANES[w], arr[:need]).view(np.uint8)[:count]
        np.copyto(dst, vals, casting="unsafe")
        return
    if w >= 58:
        np.copyto(dst, _unpack_general(arr, w, count, msb=False), casting="unsafe")
        return
    ngroups = count >> 3
    tail = count & 7
    if ngroups:
        if arr.size >= ngroups * w + SLACK:
            src = arr
        else:
            src = np.zeros(ngroups * w + SLACK, dtype=np.uint8)
            src[:ngroups * w] = arr[:ngroups * w]
        _lsb_groups_into(src, w, ngroups, dst[:ngroups * 8].reshape(ngroups, 8))
    if tail:
        start = ngroups * w
        pad = np.zeros(w + SLACK, dtype=np.uint8)
        pad[:need - start] = arr[start:need]
        last = np.empty((1, 8), dtype=np.uint64)
        _lsb_groups_into(pad, w, 1, last)
        np.copyto(dst[ngroups * 8:], last[0, :tail], casting="unsafe")


def _key12_codes() -> npt.NDArray[Any]:
    """Per 12-bit key, its four 3-bit values as bytes, read as one little-endian word."""
    keys = np.arange(1 << 12, dtype=np.uint16)
    codes = np.stack([(keys >> (3 * j)) & 7 for j in range(4)], axis=1).astype(np.uint8)
    return codes.reshape(-1).view(_LE4)


#: :func:`_key12_codes`, for 3-bit groups (three bytes: two keys of four values each).
_KEY12_CODES = _key12_codes()


def unpack_groups_at(buf: npt.NDArray[np.uint8], at: npt.NDArray[np.int64], bit_width: int,
                     out: npt.NDArray[Any]) -> None:
    """Unpack the group of 8 LSB-first values of *bit_width* bits (1-32) starting at each
    byte offset *at* of *buf*, in order, into ``out[:8 * len(at)]`` (contiguous 1-D,
    any integer type wide enough; uint8 for 3 bits).

    *buf* must hold ``bit_width`` bytes from every offset, and one more for 3 bits (a
    group is read as one 4-byte word there).  3-bit groups are decoded by a table of
    every 12-bit key's four values (two lookups a group, no shifts); other widths gather
    the groups back to back and unpack them as one stream."""
    w = bit_width
    n = at.size
    if n == 0:
        return
    if w == 3 and out.dtype == np.uint8:
        words = np.ndarray((buf.size - 3,), dtype=_LE4, buffer=buf, offset=0, strides=(1,))[at]
        _decode_key12(words, out)
        return
    body = np.empty(n * w + SLACK, dtype=np.uint8)
    groups = np.ndarray((buf.size - w + 1,), dtype=f"V{w}", buffer=buf, offset=0, strides=(1,))
    body[:n * w].view(f"V{w}")[:] = groups[at]
    unpack_bits_into(body, w, 8 * n, out)


def _decode_key12(words: npt.NDArray[Any], out: npt.NDArray[np.uint8]) -> None:
    """Eight 3-bit values per 24-bit group: *words* holds each group in its low 24 bits;
    its two 12-bit halves are looked up in :data:`_KEY12_CODES` (four values each) and
    written to ``out[:8 * len(words)]``."""
    n = words.size
    keys = np.empty((n, 2), dtype=np.intp)
    np.bitwise_and(words, 0xFFF, out=keys[:, 0], casting="unsafe")
    np.right_shift(words, 12, out=keys[:, 1], casting="unsafe")
    keys[:, 1] &= 0xFFF
    np.take(_KEY12_CODES, keys.reshape(-1), out=out[:8 * n].view(_LE4))


def unpack_groups(buf: npt.NDArray[np.uint8], groups: int, bit_width: int, out: npt.NDArray[Any]) -> None:
    """Unpack *groups* whole groups of 8 LSB-first values of *bit_width* bits (1-32) laid
    back to back from byte 0 of *buf* into ``out[:8 * groups]`` (contiguous 1-D, any
    integer type wide enough).

    *buf* must hold :data:`SLACK` bytes past the groups.  3-bit groups into bytes are
    decoded by the 12-bit key table of :func:`unpack_groups_at`, their words read through
    a strided view (no gather: 0.16 ms against 0.27 for 300,000 values); other widths by
    :func:`unpack_bits_into`."""
    w = bit_width
    if groups <= 0:
        return
    if buf.ndim != 1 or buf.size < groups * w + SLACK:
        raise ValueError("unpack_groups: the buffer must hold the groups and SLACK bytes more")
    if w == 3 and out.dtype == np.uint8:
        if out.ndim != 1 or out.size < 8 * groups or not out.flags.c_contiguous:
            raise ValueError("unpack_groups: out must be a contiguous 1-D array of >= 8*groups items")
        _decode_key12(np.ndarray((groups,), dtype=_LE4, buffer=buf, offset=0, strides=(3,)), out)
        return
    unpack_bits_into(buf, w, 8 * groups, out)


def unpack_spaced_runs_into(buf: Any, start: int, stride: int, runs: int, groups: int,
                            bit_width: int, out: npt.NDArray[Any],
                            plus: npt.NDArray[Any] | None = None) -> None:
    """Unpack *runs* bit-packed bodies of *groups* whole 8-value groups each, the first at
    byte *start* of *buf* and each next one *stride* bytes further, into
    ``out[:runs * groups * 8]`` (contiguous, any integer type; values stored with an
    unsafe cast as in :func:`unpack_bits_into`).

    The bytes between the bodies (the run headers of an RLE/bit-packed hybrid stream
    whose bit-packed runs all have one size: pyarrow and parquet-mr write runs of 504
    values) are skipped without copying the bodies together first: one strided 3-D
    view reads every lane of every group of every run, and one fancy index, one shift
    and one mask decode them (the lane kernel of :func:`unpack_bits_into` with a run
    axis in front).  *buf* must hold every body whole (checked).

    *plus*: one number per run, added to each of its values as they are stored
    (wrapping in ``out``'s type; DELTA_BINARY_PACKED adds a block's min delta so).
    """
    arr = as_uint8(buf)
    w = bit_width
    n = runs * groups * 8
    if runs < 0 or groups < 0 or start < 0 or stride < groups * w:
        raise ValueError("unpack_spaced_runs_into: bad run layout")
    if out.ndim != 1 or out.size < n or not out.flags.c_contiguous:
        raise ValueError("unpack_spaced_runs_into: out must be a contiguous 1-D array of >= runs*groups*8 items")
    if n == 0:
        return
    end = start + (runs - 1) * stride + groups * w     # past the last body
    if end > arr.size:
        raise ParquetFormatError(f"bit-packed runs: {runs} bodies of {groups * w} bytes every {stride} bytes "
                                 f"from byte {start} need {end} bytes, only {arr.size} available")
    lanes = _LANES.get(w)
    if lanes is None:       # widths with direct paths (1, 8, 16, 32...) or 58+: one run at a time
        for r in range(runs):
            b = start + r * stride
            unpack_bits_into(arr[b:b + groups * w], w, groups * 8, out[r * groups * 8:(r + 1) * groups * 8])
        if plus is not None:
            per = out[:n].reshape(runs, groups * 8)
            np.add(per, plus[:runs, None], out=per, casting="unsafe")
        return
    word, mask, span, offsets, shifts = lanes
    if arr.size < end + SLACK:      # the last group's word reads may pass the last body
        pad = np.zeros(end - start + SLACK, dtype=np.uint8)
        pad[:end - start] = arr[start:end]
        arr, start = pad, 0
    # at most about _FANCY_MAX_VALUES values per fancy index (its temporary stays in cache)
    step = max(1, _FANCY_MAX_VALUES // (groups * 8))
    per_run = groups * 8
    for r0 in range(0, runs, step):
        k = min(step, runs - r0)
        view = np.ndarray((k, groups, span), dtype=word, buffer=arr, offset=start + r0 * stride,
                          strides=(stride, w, 1))
        got = view[:, :, offsets]
        got >>= shifts
        dst = out[r0 * per_run:(r0 + k) * per_run].reshape(k, groups, 8)
        np.bitwise_and(got, mask, out=dst, casting="unsafe")
        if plus is not None:    # in out's type (an add mixing word and out types is slower)
            np.add(dst, plus[r0:r0 + k, None, None], out=dst, casting="unsafe")


def unpack_bits(buf: Any, bit_width: int, count: int) -> npt.NDArray[np.unsignedinteger[Any]]:
    """Unpack ``count`` LSB-first values of ``bit_width`` bits from the start of ``buf``.

    Parameters
    ----------
    buf:
        Bytes-like or uint8 array; only the first
        ``ceil(count * bit_width / 8)`` bytes are read.
    bit_width:
        0..64.
    count:
        Number of values to produce.

    Returns
    -------
    numpy.ndarray
        uint32 for ``bit_width <= 32``, uint64 above; always a fresh array.

    Raises
    ------
    ParquetFormatError
        Bad width, negative count, or a buffer shorter than required.
    """
    arr = as_uint8(buf)
    need = _check_args(bit_width, count, arr.size, "bit-packed values")
    dt = _out_dtype(bit_width)
    if count == 0 or bit_width == 0:
        return np.zeros(count, dtype=dt)
    w = bit_width
    if w == 1:
        return np.unpackbits(arr[:need], count=count, bitorder="little").astype(dt)
    if w == 8:
        return arr[:count].astype(dt)
    if w in (16, 32, 64):
        return np.frombuffer(arr, dtype=f"<u{w // 8}", count=count).astype(dt)
    out = np.empty(count, dtype=dt)
    unpack_bits_into(arr, w, count, out)
    return out


def unpack_bits_msb(buf: Any, bit_width: int, count: int) -> npt.NDArray[np.unsignedinteger[Any]]:
    """Unpack ``count`` MSB-first values (deprecated BIT_PACKED order).

    Same contract as :func:`unpack_bits`: uint32 up to 32 bits, uint64 above.
    """
    arr = as_uint8(buf)
    need = _check_args(bit_width, count, arr.size, "MSB-first bit-packed values")
    dt = _out_dtype(bit_width)
    if count == 0 or bit_width == 0:
        return np.zeros(count, dtype=dt)
    w = bit_width
    if w == 1:
        return np.unpackbits(arr[:need], count=count, bitorder="big").astype(dt)
    if w == 8:
        return arr[:count].astype(dt)
    if w in (16, 32, 64):
        return np.frombuffer(arr, dtype=f">u{w // 8}", count=count).astype(dt)
    return _unpack_general(arr, w, count, msb=True)


def _checked(values: Any, bit_width: int) -> npt.NDArray[Any]:
    """Flatten ``values`` and check they are non-negative integers of ``bit_width`` bits."""
    v = np.asarray(values)
    if v.ndim != 1:
        v = v.reshape(-1)
    if not 0 <= bit_width <= 64:
        raise ValueError(f"pack_bits: bit width {bit_width} is outside 0..64")
    if v.dtype == np.bool_:
        v = v.view(np.uint8)
    elif v.dtype.kind not in "iu":
        v = v.astype(np.uint64)
    if v.size and v.dtype.kind == "i" and int(v.min()) < 0:
        raise ValueError("pack_bits: values must be non-negative")
    if bit_width < 64 and v.size and int(v.max()) >> bit_width:
        raise ValueError(f"pack_bits: a value does not fit in {bit_width} bits")
    return v


def pack_bits(values: Any, bit_width: int, *, validate: bool = True) -> npt.NDArray[np.uint8]:
    """Pack non-negative integers LSB-first into ``ceil(n * bit_width / 8)`` bytes.

    The inverse of :func:`unpack_bits`; the last byte is zero-padded.  Every
    group of 8 values fills exactly ``bit_width`` bytes, so the groups are
    built side by side in an ``(groups, ceil(bit_width / 8))`` matrix of
    uint64 words: value ``j`` of every group is shifted to bit ``j * w`` of
    its group with one vectorised shift-and-or per ``j`` (plus one more when
    it straddles two words).  The words' bytes are the packed bytes, in order.

    Parameters
    ----------
    values:
        Integers (any integer or bool dtype), flattened.
    bit_width:
        0..64.
    validate:
        Check that every value is non-negative and fits ``bit_width`` bits
        (two reductions).  Internal callers that derived the width from the
        data pass ``False``.

    Raises
    ------
    ValueError
        Values that do not fit, or a bit width outside 0..64 (API misuse,
        not file corruption).
    """
    if validate:
        v = _checked(values, bit_width)
    else:
        v = np.asarray(values).reshape(-1)
        if v.dtype == np.bool_:
            v = v.view(np.uint8)
    n = v.size
    w = bit_width
    if n == 0 or w == 0:
        return np.zeros(packed_size(n, w), dtype=np.uint8)
    if w == 1:
        return np.packbits(v.astype(np.bool_, copy=False), bitorder="little")
    if w in (8, 16, 32, 64):
        return v.astype(f"<u{w // 8}").view(np.uint8)
    if w < 16:
        return _pack_lanes(v, w)
    groups = (n + 7) >> 3
    padded = np.zeros((groups, 8), dtype=np.uint64)
    padded.reshape(-1)[:n] = v
    nwords = (w + 7) >> 3           # 8 values x w bits = w bytes = ceil(w / 8) words
    acc = np.zeros((groups, nwords), dtype=_LE8)
    tmp = np.empty(groups, dtype=np.uint64)
    for j in range(8):
        bit = j * w
        q, r = bit >> 6, bit & 63
        col = padded[:, j]
        if r == 0:
            acc[:, q] |= col
        else:
            np.left_shift(col, np.uint64(r), out=tmp)
            acc[:, q] |= tmp
            if r + w > 64:      # the high bits spill into the next word
                np.right_shift(col, np.uint64(64 - r), out=tmp)
                acc[:, q + 1] |= tmp
    as_bytes = acc.view(np.uint8).reshape(groups, 8 * nwords)
    if 8 * nwords != w:
        as_bytes = as_bytes[:, :w]
    return np.ascontiguousarray(as_bytes).reshape(-1)[:packed_size(n, w)]


_M = {k: np.uint64(m) for k, m in (("b_lo", 0x00FF00FF00FF00FF), ("b_hi", 0xFF00FF00FF00FF00),
                                    ("h_lo", 0x0000FFFF0000FFFF), ("h_hi", 0xFFFF0000FFFF0000),
                                    ("w_lo", 0x00000000FFFFFFFF))}


def _pack_lanes(v: npt.NDArray[Any], w: int) -> npt.NDArray[np.uint8]:
    """:func:`pack_bits` for widths 2..7 and 9..15, on whole 64-bit words.

    The values are laid out one per byte (one per 16-bit lane above 8 bits)
    and merged by :func:`_merge_lanes`.
    """
    n = v.size
    groups = (n + 7) >> 3
    lane = np.uint8 if w < 8 else np.dtype("<u2")
    if n == groups * 8:
        x = v.astype(lane).view("<u8")
    else:
        padded = np.zeros(groups * 8, dtype=lane)
        padded[:n] = v
        x = padded.view("<u8")
    out = _merge_lanes(x, w, 1 if w < 8 else 2)
    return np.ascontiguousarray(out).reshape(-1)[:packed_size(n, w)]


def _merge_lanes(x: npt.NDArray[Any], w: int, lane_bytes: int) -> npt.NDArray[np.uint8]:
    """Pack groups of 8 values held in 8-bit (``lane_bytes`` 1) or 16-bit (2) lanes of
    little-endian 64-bit words ``x`` (``lane_bytes`` words a group, values below
    ``2**w``, ``w <= 8 * lane_bytes``): a ``(groups, w)`` uint8 view of the packed bytes.

    Neighbours are merged pairwise: each step moves the upper value of every
    lane pair down next to the lower one, halving the lanes and doubling the
    bits each holds, until a word holds ``8 * w`` packed bits (two words of
    ``4 * w`` bits with 16-bit lanes, joined at the end).  A few whole-array
    operations per step instead of a shift per value position.
    """
    groups = x.size // lane_bytes
    m = _M
    if w == 0:
        return np.zeros((groups, 0), dtype=np.uint8)
    if w == 8 * lane_bytes:
        return x.view(np.uint8).reshape(groups, w)
    if lane_bytes == 1:
        x = (x & m["b_lo"]) | ((x & m["b_hi"]) >> np.uint64(8 - w))
        x = (x & m["h_lo"]) | ((x & m["h_hi"]) >> np.uint64(16 - 2 * w))
        x = (x & m["w_lo"]) | ((x >> np.uint64(32)) << np.uint64(4 * w))
        return x.astype(_LE8, copy=False).view(np.uint8).reshape(groups, 8)[:, :w]
    x = (x & m["h_lo"]) | ((x & m["h_hi"]) >> np.uint64(16 - w))
    x = (x & m["w_lo"]) | ((x >> np.uint64(32)) << np.uint64(2 * w))
    pairs = x.reshape(groups, 2)               # 4 values (4w bits) in each word
    both = np.empty((groups, 2), dtype="<u8")
    both[:, 0] = pairs[:, 0] | (pairs[:, 1] << np.uint64(4 * w))
    both[:, 1] = pairs[:, 1] >> np.uint64(64 - 4 * w)
    return both.view(np.uint8).reshape(groups, 16)[:, :w]


def pack_segments(values: npt.NDArray[Any], starts: npt.NDArray[np.integer],
                  lengths: npt.NDArray[np.integer], widths: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
    """Bit-pack segments of *values* back to back: segment ``i`` is
    ``values[starts[i]:starts[i] + lengths[i]]`` zero-padded to whole groups of 8
    and packed at ``widths[i]`` bits (the bytes ``pack_bits`` gives for it).

    The writer's literal runs: the values outside the RLE runs of a column
    chunk's pages.  Instead of gathering them value by value and packing the
    result, every group of 8 is read as one unaligned word (two with 16-bit
    values) starting at its first value -- a gather of one word per group --
    the groups that run past their segment's end have those lanes cleared,
    and :func:`_merge_lanes` packs the words of each width.

    *values* must be uint8 or uint16 and every width at most its bit size,
    values below ``2**widths[i]`` inside segment ``i`` (unchecked: the caller
    derived the widths from them); segments lie inside *values*.
    """
    v = np.ascontiguousarray(values)
    lb = v.dtype.itemsize
    if v.dtype.kind != "u" or lb > 2:
        raise TypeError(f"pack_segments: uint8 or uint16 values expected, not {v.dtype}")
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    widths = np.asarray(widths, dtype=np.int64)
    if widths.size and (int(widths.min()) < 0 or int(widths.max()) > 8 * lb):
        raise ValueError(f"pack_segments: a width outside 0..{8 * lb}")
    ngroups = (lengths + 7) >> 3
    total = int(ngroups.sum())
    if total == 0:
        return np.zeros(0, dtype=np.uint8)
    first = np.cumsum(ngroups) - ngroups
    # group g of segment i starts at starts[i] + 8 * (g - first[i])
    gstart = np.arange(0, 8 * total, 8, dtype=np.int64)
    gstart += np.repeat(starts - 8 * first, ngroups)
    # the words may reach 7 values past the end: read them from a zero-padded copy
    buf = np.zeros(v.size + 8, dtype=v.dtype)
    buf[:v.size] = v
    # every byte's unaligned 64-bit word (a plain uint64 gather is faster than a void one)
    at = np.ndarray((buf.nbytes - 7,), dtype=_LE8, buffer=buf, strides=(1,))
    if lb == 1:
        x = at[gstart]
    else:
        x = np.empty((total, 2), dtype=_LE8)
        gstart *= 2
        x[:, 0] = at[gstart]
        x[:, 1] = at[gstart + 8]
        x = x.reshape(-1)
    short = np.flatnonzero(lengths & 7)
    if short.size:              # lanes past a segment's end hold the next values: clear them
        last = first[short] + ngroups[short] - 1
        keep = (lengths[short] & 7) * lb
        rows = x.view(np.uint8).reshape(total, 8 * lb)
        cols = np.arange(8 * lb)
        rows[last] = np.where(cols[None, :] < keep[:, None], rows[last], 0)
    used = np.flatnonzero(ngroups)
    w0 = int(widths[used[0]])
    if bool(np.all(widths[used] == w0)):
        return np.ascontiguousarray(_merge_lanes(x, w0, lb)).reshape(-1)
    gwidth = np.repeat(widths, ngroups)
    out = np.zeros((total, 8 * lb), dtype=np.uint8)
    words = x.reshape(total, lb)
    for w in np.unique(gwidth).tolist():
        sel = np.flatnonzero(gwidth == w)
        out[sel, :w] = _merge_lanes(np.ascontiguousarray(words[sel]).reshape(-1), w, lb)
    return out[np.arange(8 * lb)[None, :] < gwidth[:, None]]


def pack_bits_msb(values: Any, bit_width: int) -> npt.NDArray[np.uint8]:
    """Pack non-negative integers MSB-first (deprecated BIT_PACKED layout).

    MSB-first packing is LSB-first packing seen in a mirror: reverse the
    ``bit_width`` bits of every value, pack LSB-first, then reverse the bits
    of every output byte (two table lookups and one :func:`pack_bits`).
    """
    v = _checked(values, bit_width).astype(np.uint64)
    w = bit_width
    if v.size == 0 or w == 0:
        return np.zeros(packed_size(v.size, w), dtype=np.uint8)
    as_bytes = v.astype("<u8").view(np.uint8).reshape(-1, 8)
    mirrored = np.ascontiguousarray(_REVERSED[as_bytes][:, ::-1]).view("<u8").reshape(-1)
    mirrored >>= np.uint64(64 - w)
    return _REVERSED[pack_bits(mirrored, w, validate=False)]
