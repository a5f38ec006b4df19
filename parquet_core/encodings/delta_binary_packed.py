"""DELTA_BINARY_PACKED (Encoding.DELTA_BINARY_PACKED = 5) for INT32 and INT64.

Spec: parquet-format ``Encodings.md``, "Delta Encoding
(DELTA_BINARY_PACKED = 5)".  Layout::

    header:  <block size: uleb> <miniblocks per block: uleb>
             <total value count: uleb> <first value: zigzag uleb>
    block*:  <min delta: zigzag uleb> <bit width: 1 byte> x miniblocks
             <miniblock 0: vpm * w0 / 8 bytes> <miniblock 1> ...
             (vpm = values per miniblock = block size / miniblocks)

    e.g. spec example 2 (block size 8, 1 miniblock) for 7 5 3 1 2 3 4 5:
         08 01 08 0E | 03 02 | 00 FC FF 00...  ->  deltas -2 -2 -2 1 1 1 1

    value[0] = first;  value[i] = value[i-1] + min_delta(block) + packed[i-1]

Decoding strategy: a scalar loop walks only the block headers (skip the
min-delta varint, sum the widths: a block's byte length follows from them);
after each walked block the following blocks are speculated to repeat its
layout and checked all at once (vectorised), so a page of uniform blocks
costs one Python iteration plus a few numpy calls.  Min deltas and widths
are then decoded vectorised from the recorded offsets; all miniblock bodies
of the same bit width are gathered (one fancy row-gather over a strided
view) and unpacked by one :func:`unpack_bits_into` call straight into the
value buffer, min deltas are added per miniblock row, and one in-place
``cumsum`` (the first value sits in front of the deltas) restores the values.
All arithmetic is unsigned in the physical width (uint32 for INT32, uint64
for INT64), so the wrap-around the spec requires is numpy's natural modular
overflow.

The pages of a column chunk are decoded together
(:func:`expand_held_delta_binary_packed_pages`): a page whose blocks all repeat
its first block's layout (steady timestamps, counters) has its block chain
guessed and checked at once; consecutive such pages of one layout (same count,
block layout and bit width: a steady column's pages) have their full blocks
unpacked and prefix-summed together by one lane-major pass
(:func:`parquet_core._kernels.prefix_runs.prefix_sum_runs_into`: no sequential
``cumsum`` over every value), each page from its own first value; the other pages
are walked block by block.  When every page repeats its first block that way, only the
first and the partial blocks' widths are read (:func:`_uniform_pages`).

Edge cases:

* total count 0 or 1: no blocks are read (writers emit none);
* the last block may use fewer miniblocks than it declares: the unused
  widths may be garbage and their bodies are absent;
* the last used miniblock should be padded to full size; only the bytes
  holding the values actually needed are required (lenient reader);
* INT32 miniblocks 33..64 bits wide (deltas a writer computed in 64 bits) are
  read leniently: the values wrap to 32 bits as all INT32 deltas do;
* bit width above 64, truncated headers or bodies,
  a zero block size / miniblock count, values per miniblock not a multiple
  of 8, or a total count above 2**31 - 1 (or above ``max_count``) ->
  ParquetFormatError.  The spec asks for block sizes that are multiples of
  128 and miniblocks of multiples of 32 values; like other readers we
  accept any multiple of 8, which the spec's own examples need.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.bitpack import (
    SLACK,
    as_uint8,
    pack_bits,
    unpack_bits_into,
    unpack_spaced_runs_into,
)
from parquet_core._kernels.layout import interleave
from parquet_core._kernels.prefix_runs import LANE_WIDTHS, prefix_sum_runs_into
from parquet_core._kernels.running import row_sums_into
from parquet_core._kernels.varint import (
    read_uleb128,
    uleb128_matrix,
    write_uleb128,
    zigzag_encode,
    zigzag_encode_array,
)
from parquet_core.errors import ParquetFormatError

__all__ = ["MAX_COUNT", "decode_delta_binary_packed", "delta_binary_packed_blocks",
           "delta_binary_packed_page_header", "encode_delta_binary_packed",
           "expand_delta_binary_packed_pages", "expand_held_delta_binary_packed_pages",
           "scan_delta_binary_packed_page", "scan_held_delta_binary_packed_page"]

MAX_COUNT = 2**31 - 1
_WHAT = "DELTA_BINARY_PACKED"


def _unsigned(dtype: Any) -> tuple[np.dtype[Any], np.dtype[Any], int]:
    dt = np.dtype(dtype)
    if dt == np.int32:
        return np.dtype(np.int32), np.dtype(np.uint32), 32
    if dt == np.int64:
        return np.dtype(np.int64), np.dtype(np.uint64), 64
    raise ValueError(f"DELTA_BINARY_PACKED handles int32 or int64, not {dt}")


def _uleb(mv: memoryview, pos: int, size: int) -> tuple[int, int]:
    if pos < size:
        b = mv[pos]
        if b < 0x80:
            return b, pos + 1
    return read_uleb128(mv, pos)


def decode_delta_binary_packed(buf: Any, pos: int, dtype: Any,
                               max_count: int | None = None) -> tuple[npt.NDArray[Any], int]:
    """Decode one DELTA_BINARY_PACKED stream starting at byte ``pos`` of ``buf``.

    Parameters
    ----------
    buf:
        Bytes-like or uint8 array.
    pos:
        Offset of the stream header.
    dtype:
        ``np.int32`` (INT32 semantics, wraps modulo 2**32) or ``np.int64``.
    max_count:
        Reject a header declaring more values than this (allocation guard).

    Returns
    -------
    tuple[numpy.ndarray, int]
        All ``total`` values of the header, and the offset just past the
        stream (where, e.g., DELTA_LENGTH_BYTE_ARRAY data begins).

    The steps: :func:`_read_header` (the stream header, checked),
    :func:`_walk_blocks` (where each block's min delta and widths are),
    :func:`_miniblock_layout` (each miniblock's width and body offset, checked
    against the buffer) and :func:`_unpack_and_sum` (bit-unpack the deltas,
    add the min deltas, prefix-sum into values).
    """
    sdt, udt, bits = _unsigned(dtype)
    arr = as_uint8(buf)
    size = arr.size
    mv = arr.data
    if pos < 0 or pos > size:
        raise ParquetFormatError(f"{_WHAT}: start offset {pos} outside a {size}-byte buffer")
    block_size, n_mini, total, first, pos = _read_header(mv, pos, size, max_count)
    mask = (1 << bits) - 1
    if total == 0:
        return np.zeros(0, dtype=sdt), pos
    if total == 1:
        return np.array([first & mask], dtype=udt).view(sdt), pos

    vpm = block_size // n_mini
    ndeltas = total - 1
    s_arr, h_arr, pos = _walk_blocks(arr, mv, pos, ndeltas, block_size, n_mini, vpm)
    mins = _min_deltas(arr, s_arr, h_arr, udt)
    flat_w, flat_start = _miniblock_layout(arr, h_arr, ndeltas, block_size, n_mini, vpm)
    values = _unpack_and_sum(arr, mins, flat_w, flat_start, first & mask, total, n_mini, vpm, udt)
    return values.view(sdt), pos


def delta_binary_packed_blocks(buf: Any, pos: int, max_count: int | None = None
                               ) -> tuple[int, int, int, int, npt.NDArray[np.int64], int]:
    """The header of the stream at byte ``pos`` and where its blocks are, without unpacking.

    Returns the block size, the miniblocks per block, the value count, the
    first value (zigzag-decoded, not wrapped), the offset of every block (its
    min-delta varint) and the offset just past the stream.  The header and the
    block chain get the checks of :func:`decode_delta_binary_packed` (the
    widths and bodies are checked when blocks are decoded).  A reader that
    decodes a long stream a few blocks at a time (see
    :mod:`parquet_core.column.value_cutters`) starts here.
    """
    arr = as_uint8(buf)
    size = arr.size
    mv = memoryview(arr.data)
    if pos < 0 or pos > size:
        raise ParquetFormatError(f"{_WHAT}: start offset {pos} outside a {size}-byte buffer")
    block_size, n_mini, total, first, pos = _read_header(mv, pos, size, max_count)
    if total <= 1:
        return block_size, n_mini, total, first, np.zeros(0, dtype=np.int64), pos
    vpm = block_size // n_mini
    s_arr, _, end = _walk_blocks(arr, mv, pos, total - 1, block_size, n_mini, vpm)
    return block_size, n_mini, total, first, np.asarray(s_arr, dtype=np.int64), end


#: One page checked by :func:`scan_delta_binary_packed_page`: (page bytes, first value
#: (wrapped), value count, min delta per block, width and body offset per used miniblock,
#: miniblocks per block, values per miniblock).
ScannedPage = tuple


def scan_delta_binary_packed_page(buf: Any, count: int, dtype: Any) -> ScannedPage | None:
    """Check a page's stream of *count* values and find its miniblocks, without unpacking.

    The same checks as :func:`decode_delta_binary_packed` with ``max_count=count``
    (header, block chain, min deltas, widths, every body inside the buffer), for
    :func:`expand_delta_binary_packed_pages` to unpack the deltas of several
    pages at once (a page of 20,000 values costs more in numpy calls than in
    values).  None when the page is better decoded on its own: one value or
    none, or a stream holding fewer values than *count* (its own decode reports it).
    """
    held = delta_binary_packed_page_header(buf, count, dtype)
    return None if held is None else scan_held_delta_binary_packed_page(held, dtype)


_HIGH_BITS = np.uint64(0x8080808080808080)
_ONE = np.uint64(1)
_LANES = np.uint64(0x00FF00FF00FF00FF)
_LANE_SUM = np.uint64(0x0001000100010001)
_LANE_SHIFT = np.uint64(48)


#: A page whose stream header :func:`delta_binary_packed_page_header` has read and
#: checked: (page bytes, first value (wrapped), value count, block size, miniblocks per
#: block, offset of the first block).
HeldPage = tuple


def delta_binary_packed_page_header(buf: Any, count: int, dtype: Any) -> HeldPage | None:
    """Read and check the stream header of a page of *count* values; its blocks are not read.

    None when the page is better decoded on its own (as for
    :func:`scan_delta_binary_packed_page`).  The blocks of held pages are checked
    later, all pages of a chunk together, by :func:`expand_held_delta_binary_packed_pages`.
    """
    _, _, bits = _unsigned(dtype)
    arr = as_uint8(buf)
    block_size, n_mini, total, first, pos = _read_header(arr.data, 0, arr.size, count)
    if total != count or total <= 1:
        return None
    return arr, first & ((1 << bits) - 1), total, block_size, n_mini, pos


def scan_held_delta_binary_packed_page(held: HeldPage, dtype: Any) -> ScannedPage:
    """The blocks of one held page checked and its miniblocks found (one page at a time:
    the errors of :func:`scan_delta_binary_packed_page`)."""
    _, udt, _ = _unsigned(dtype)
    arr, first, total, block_size, n_mini, pos = held
    vpm = block_size // n_mini
    ndeltas = total - 1
    s_arr, h_arr, _ = _walk_blocks(arr, arr.data, pos, ndeltas, block_size, n_mini, vpm)
    mins = _min_deltas(arr, s_arr, h_arr, udt)
    flat_w, flat_start = _miniblock_layout(arr, h_arr, ndeltas, block_size, n_mini, vpm)
    return arr, first, total, mins, flat_w, flat_start, n_mini, vpm


def expand_held_delta_binary_packed_pages(pages: list[HeldPage], dtype: Any, *,
                                          with_ends: bool = False) -> Any:
    """The values of held pages, their blocks checked in one pass over all pages.

    The block chains of all pages are walked in lockstep (one round of numpy calls
    per block index, each covering every page), then every min delta, bit width
    and miniblock offset is decoded and checked at once.  None when any page fails
    a check (or the pages differ in block layout): the caller then checks the pages
    one by one with :func:`scan_held_delta_binary_packed_page`, which raises the
    error of the first bad page exactly as a page-by-page read does.  The checks
    here are the page-by-page ones or stricter, so a None never hides a bad page
    and values are only returned for pages that page-by-page decoding accepts.

    *with_ends*: return ``(values, ends)`` instead, ``ends[p]`` being the offset in
    page ``p``'s buffer just past its stream (what :func:`decode_delta_binary_packed`
    returns as its second item), or None.
    """
    sdt, udt, _ = _unsigned(dtype)
    block_size, n_mini = pages[0][3], pages[0][4]
    if any(p[3] != block_size or p[4] != n_mini for p in pages):
        return None
    vpm = block_size // n_mini
    group_bytes = vpm // 8
    totals = np.array([p[2] for p in pages], dtype=np.int64)
    nd = totals - 1
    full = nd // block_size
    rem = nd - full * block_size
    used_last = -(-rem // vpm)
    has_rem = rem > 0
    heads = np.array([p[5] for p in pages], dtype=np.int64)
    # Only a page's first bytes can hold its stream: a block header of at most
    # _MAX_VARINT + n_mini bytes per block and 8 bytes per delta of a used miniblock
    # (widths above 64 are refused).  A page is usually much longer (a DELTA_BYTE_ARRAY
    # page holds the suffix lengths and data after its prefix lengths), so only that much
    # of it is joined; the checks against each page's end are then made against that
    # bound, which refuses nothing a valid stream holds (a refusal falls back anyway).
    room = heads + (full + has_rem) * (_MAX_VARINT + n_mini) + (full * block_size + used_last * vpm) * 8
    sizes = np.minimum(np.array([p[0].size for p in pages], dtype=np.int64), room)
    ends = np.cumsum(sizes)
    bases = ends - sizes
    pos = bases + heads
    # the page-by-page walk's first check: room for every block's smallest header
    if ((full + has_rem) * (1 + n_mini) > ends - pos).any():
        return None
    pad = vpm * 8 + SLACK + _MAX_VARINT + n_mini
    joined = _join_pages([p[0][:n] for p, n in zip(pages, sizes.tolist())], int(ends[-1]), pad)
    steps = int(full.max())
    same = bool((full == steps).all())
    # 8 bytes from any offset as one unaligned little-endian word
    words = np.ndarray((joined.size - 7,), dtype="<u8", buffer=joined, strides=(1,))
    # most pages keep one min-delta varint length: walk with it (proved below), else
    # find every varint's length as the walk goes
    vl0 = _varint_lengths(words, pos)
    if (joined[pos + vl0 - 1] >= 0x80).any():   # a first min delta of 9 bytes or more
        return None
    if int(full.min()) > 0 and n_mini + int(vl0.max()) <= 8:
        # the usual chunk (timestamps, counters): every page's blocks repeat its first one
        steady = _steady_chunk(joined, words, pages, pos, vl0, full, has_rem, used_last, nd, ends, bases,
                               n_mini, vpm, udt, with_ends)
        if steady is not None:
            return steady[0].view(sdt) if not with_ends else (steady[0].view(sdt), steady[1])
    # pages whose blocks all repeat the first block's layout are found at once; the rest
    # are walked block by block
    guessed, uniform = _walk_uniform(joined, words, pos, vl0, full, ends, steps, n_mini, group_bytes)
    walked: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = guessed
    rest = np.flatnonzero(~uniform)
    if rest.size:
        if rest.size <= _EACH_MAX_PAGES:
            sub = _walk_each(joined, pos[rest], full[rest], steps, n_mini, group_bytes)
        else:
            sub = _lockstep(joined, words, pos[rest], vl0[rest], full[rest], steps,
                            same, n_mini, group_bytes)
        if sub is None:
            walked = None
        else:
            guessed[0][rest] = sub[0]
            guessed[1][rest] = sub[1]
    # the guessed chains measured every full block's varint (exactly, below 8 bytes)
    if walked is not None and not _varints_ok(joined, *walked, np.where(uniform & (vl0 < 8), 0, full),
                                              has_rem, steps):
        walked = None
    if walked is None:
        uniform[:] = False
        if len(pages) <= _EACH_MAX_PAGES:
            walked = _walk_each(joined, pos, full, steps, n_mini, group_bytes)
        else:
            walked = _lockstep(joined, words, pos, None, full, steps, same, n_mini, group_bytes)
        if walked is None or not _varints_ok(joined, *walked, full, has_rem, steps):
            return None
    s_mat, h_mat = walked
    # column `steps`: the last, partial block (for pages without one: where it would be)
    if (s_mat[:, steps] > ends).any() or (has_rem & (h_mat[:, steps] + n_mini > ends)).any():
        return None
    if steps and uniform.all():
        got = _uniform_pages(joined, pages, s_mat, h_mat, full, has_rem, used_last, nd, ends, bases,
                             n_mini, vpm, udt, with_ends)
        if got is not None:
            return got[0].view(sdt) if not with_ends else (got[0].view(sdt), got[1])
    col = np.arange(steps + 1, dtype=np.int64)
    real = (col[None, :] < full[:, None]) | ((col[None, :] == steps) & has_rem[:, None])
    s_flat = s_mat[real]
    h_flat = h_mat[real]
    mini = np.arange(n_mini, dtype=np.int64)
    mins = _min_deltas(joined, s_flat, h_flat, udt)
    wmat = joined[h_flat[:, None] + mini]
    keep = np.ones(wmat.shape, dtype=bool)
    partial = np.flatnonzero(has_rem)
    if partial.size:
        # index of each partial block among the real blocks: the last block of its page
        last_block = (np.cumsum(full + has_rem) - 1)[partial]
        keep[last_block] = mini[None, :] < used_last[partial][:, None]
        wmat[~keep] = 0
    if int(wmat.max()) > _MAX_WIDTH:
        return None
    w64 = wmat.astype(np.int64)
    mb_start = np.empty_like(w64)
    mb_start[:, 0] = 0
    np.cumsum(w64[:, :-1], axis=1, out=mb_start[:, 1:])
    mb_start = mb_start * group_bytes + (h_flat + n_mini)[:, None]
    flat_w = wmat[keep]
    flat_start = mb_start[keep]
    n_used = full * n_mini + used_last
    last = np.cumsum(n_used) - 1
    last_take = nd - (n_used - 1) * vpm
    if (flat_start[last] + ((last_take * flat_w[last].astype(np.int64) + 7) >> 3) > ends).any():
        return None
    mb_mins = np.repeat(mins, n_mini)[keep.reshape(-1)]
    fast = _strided_pages(uniform, wmat, s_flat, h_flat, mins, full, has_rem, n_mini, group_bytes)
    values = _sum_pages(joined, flat_w, flat_start, mb_mins,
                        [(p[1], p[2], int(u)) for p, u in zip(pages, n_used)], vpm, udt,
                        fast, n_mini).view(sdt)
    if not with_ends:
        return values
    # a stream ends after its full blocks, or after the used miniblocks of its partial
    # block, clamped to the page (the page-by-page walk's end)
    stream_end = s_mat[:, steps].copy()
    if partial.size:
        last_block = (np.cumsum(full + has_rem) - 1)[partial]
        body = w64[last_block].sum(axis=1) * group_bytes
        stream_end[partial] = np.minimum(ends[partial], h_mat[partial, steps] + n_mini + body)
    return values, stream_end - bases


def _steady_chunk(joined: npt.NDArray[np.uint8], words: npt.NDArray[np.uint64], pages: list[HeldPage],
                  pos: npt.NDArray[np.int64], vl: npt.NDArray[np.int64], full: npt.NDArray[np.int64],
                  has_rem: npt.NDArray[np.bool_], used_last: npt.NDArray[np.int64], nd: npt.NDArray[np.int64],
                  ends: npt.NDArray[np.int64], bases: npt.NDArray[np.int64], n_mini: int, vpm: int, udt: Any,
                  with_ends: bool) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64] | None] | None:
    """The values of a chunk whose every page has full blocks that all repeat the page's
    first block (same min-delta varint length, one bit width the lane kernel takes), in
    a few numpy calls per chunk; None when a page is not so (the general pass decides).

    The checks are those of the general pass for such pages (:func:`_walk_uniform`,
    :func:`_uniform_pages`), made directly: each page's first block gives its length
    ``L``; every later block's head (its varint's continuation bits and the widths, one
    word: ``vl + n_mini <= 8``, checked by the caller) must equal the first one's, which
    proves by induction that block ``k`` starts ``k * L`` bytes on; the full blocks must
    end inside the page; the partial block's varint must end and its widths fit inside
    the page, its used widths be at most 64 and its last used miniblock hold the bytes
    its values need.  Full blocks go through :func:`prefix_sum_runs_into` (consecutive
    pages of one layout together), the partial blocks through the gathered unpack and
    one running sum from each page's last full value (:func:`_steady_tails`).
    """
    group_bytes = vpm // 8
    block = n_mini * vpm
    n_pages = pos.size
    mini = np.arange(n_mini, dtype=np.int64)
    head = pos + vl
    first_w = joined[head[:, None] + mini]
    w = first_w[:, 0].astype(np.int64)
    if not ((first_w == first_w[:, :1]).all() and int(w.min()) > 1 and int(w.max()) < 58):
        return None
    length = vl + n_mini + (n_mini * group_bytes) * w
    tail_at = pos + full * length           # each page's partial block (or its stream's end)
    if (tail_at > ends).any():
        return None
    steps = int(full.max())
    if steps > 1 and not _heads_repeat(words, pos, vl, length, steps, n_mini, full).all():
        return None     # a later full block's head differs from its page's first
    part = np.flatnonzero(has_rem)
    if part.size:
        sp = tail_at[part]
        vlp = _varint_lengths(words, sp)
        hp = sp + vlp
        if int(vlp.max()) >= 8 or (hp + n_mini > ends[part]).any():
            return None
        layout = _partial_blocks(joined, hp, used_last[part], nd[part], full[part], ends[part], mini,
                                 n_mini, group_bytes, vpm)
        if layout is None:
            return None
        pw, p64, pstart = layout
    # min deltas: every full block, page after page, then the partial blocks
    if int(full.min()) == steps:
        s_full = (pos[:, None] + np.arange(steps, dtype=np.int64)[None, :] * length[:, None]).reshape(-1)
        h_full = s_full + np.repeat(vl, steps)
    else:
        page = np.repeat(np.arange(n_pages), full)
        k = np.arange(page.size, dtype=np.int64) - np.repeat(np.cumsum(full) - full, full)
        s_full = pos[page] + k * length[page]
        h_full = s_full + vl[page]
    n_full = s_full.size
    if part.size:
        s_full = np.concatenate((s_full, sp))
        h_full = np.concatenate((h_full, hp))
    mins = _min_deltas(joined, s_full, h_full, udt)
    totals = nd + 1
    out = np.empty(int(totals.sum()), dtype=udt)
    offs = np.cumsum(totals)
    offs -= totals
    firsts = np.array([p[1] for p in pages], dtype=udt)
    keys = list(zip(totals.tolist(), full.tolist(), w.tolist(), length.tolist()))
    bodies = (head + n_mini).tolist()
    at = offs.tolist()
    i = b0 = 0
    while i < n_pages:
        # consecutive pages of one layout: one lane-major unpack-and-sum pass
        j = i + 1
        while j < n_pages and keys[j] == keys[i]:
            j += 1
        total, nfull, wi, stride = keys[i]
        n = j - i
        rows2d = out[at[i]:at[i] + n * total].reshape(n, total)
        prefix_sum_runs_into(joined, bodies[i:j], stride, nfull, block // 8, wi, mins[b0:b0 + n * nfull],
                             firsts[i:j], rows2d[:, :1 + nfull * block])
        b0 += n * nfull
        i = j
    if part.size:
        _steady_tails(joined, out, part, offs, full, nd, pw, pstart, used_last[part], mins[n_full:], block, vpm,
                      n_mini, udt)
    if not with_ends:
        return out, None
    stream_end = tail_at.copy()
    if part.size:
        stream_end[part] = np.minimum(ends[part], hp + n_mini + p64.sum(axis=1) * group_bytes)
    return out, stream_end - bases


#: Widest miniblock whose values :func:`_steady_tails` reads one word each (bits at 0..7 past
#: a byte boundary, up to 64 in all).
_WORD_WIDTH_MAX = 57
#: ... and only up to this many values (pages times the longest tail) that way.
_TAIL_GATHER_MAX = 1 << 16
#: ``_WIDTH_MASKS[w]``: the low ``w`` bits set (w <= 57).
_WIDTH_MASKS = np.array([(1 << w) - 1 for w in range(_WORD_WIDTH_MAX + 1)], dtype=np.uint64)


def _partial_blocks(joined: npt.NDArray[np.uint8], hp: npt.NDArray[np.int64], used: npt.NDArray[np.int64],
                    nd: npt.NDArray[np.int64], full: npt.NDArray[np.int64], ends: npt.NDArray[np.int64],
                    mini: npt.NDArray[np.int64], n_mini: int, group_bytes: int, vpm: int) -> Any:
    """The layout of partial blocks (a page's last block, cut short) whose miniblock widths
    start at ``hp``: ``(widths, widths as int64, each miniblock's first byte)``, the
    miniblocks from ``used`` on counted as empty; or None when a width is over
    :data:`_MAX_WIDTH` or the last used miniblock needs bytes past its page's ``ends``
    (``nd`` values after each page's first, ``full`` full blocks before it)."""
    pw = joined[hp[:, None] + mini]                  # the partial blocks' widths
    pw[mini[None, :] >= used[:, None]] = 0           # unused miniblocks: no bytes
    if pw.size and int(pw.max()) > _MAX_WIDTH:
        return None
    p64 = pw.astype(np.int64)
    pstart = np.cumsum(p64, axis=1)
    pstart -= p64
    pstart *= group_bytes
    pstart += (hp + n_mini)[:, None]
    if hp.size:
        # the last used miniblock of each partial block: the bytes its values need
        r = np.arange(hp.size)
        u = used - 1
        take = nd - (full * n_mini + u) * vpm
        if (pstart[r, u] + ((take * p64[r, u] + 7) >> 3) > ends).any():
            return None
    return pw, p64, pstart


def _steady_tails(joined: npt.NDArray[np.uint8], out: npt.NDArray[Any], part: npt.NDArray[np.intp],
                  offs: npt.NDArray[np.int64], full: npt.NDArray[np.int64], nd: npt.NDArray[np.int64],
                  pw: npt.NDArray[np.uint8], pstart: npt.NDArray[np.int64], used_last: npt.NDArray[np.int64],
                  mins: npt.NDArray[Any], block: int, vpm: int, n_mini: int, udt: Any) -> None:
    """The values of the partial blocks of :func:`_steady_chunk` (pages ``part``), summed on
    from each page's last full value in *out*: each needed value read from the word
    holding its bits (or the used miniblocks unpacked by width, :func:`_fill_miniblocks`,
    for widths above 57), each block's min delta added, one running sum over rows as
    long as the longest tail (a row's values past its page's count are leftovers, dropped:
    a value's sum never reads the ones after it).  (One more run of the lane kernel per
    page measured ~3x dearer: a copy per page.)"""
    done = full[part] * block
    last = offs[part] + done
    tails = nd[part] - done
    longest = int(tails.max())
    sums = np.empty((part.size, longest + 1), dtype=udt)
    sums[:, 0] = out[last]
    if int(pw.max()) <= _WORD_WIDTH_MAX and longest * part.size <= _TAIL_GATHER_MAX:
        # each needed value read straight from the unaligned word holding its bits (a
        # width of at most 57 spans at most 8 bytes from its first): a few calls on
        # (pages, longest tail) arrays; past a page's tail the values are dropped, their
        # reads clamped inside the buffer
        i = np.arange(longest, dtype=np.int64)
        m = i // vpm
        wv = pw[:, m].astype(np.int64)
        bit = pstart[:, m] * 8
        bit += (i - m * vpm)[None, :] * wv
        words = np.ndarray((joined.size - 7,), dtype="<u8", buffer=joined, strides=(1,))
        got = words[np.minimum(bit >> 3, words.size - 1)]
        got >>= (bit & 7).astype(np.uint64)
        got &= _WIDTH_MASKS[wv]
        np.add(got, mins[:, None], out=sums[:, 1:], casting="unsafe")
    else:
        rows = -(-longest // vpm)                   # miniblocks of the longest tail
        keep = np.arange(n_mini)[None, :] < used_last[:, None]
        deltas = np.empty((part.size, n_mini, vpm), dtype=udt)
        got = np.empty((int(used_last.sum()), vpm), dtype=udt)
        _fill_miniblocks(joined, got, pw[keep], pstart[keep], vpm)
        deltas[keep] = got
        np.add(deltas[:, :rows].reshape(part.size, rows * vpm)[:, :longest], mins[:, None], out=sums[:, 1:])
    sums = row_sums_into(sums, np.empty_like(sums))
    for q, (o, t) in enumerate(zip((last + 1).tolist(), tails.tolist())):
        out[o:o + t] = sums[q, 1:1 + t]


def _uniform_pages(joined: npt.NDArray[np.uint8], pages: list[HeldPage], s_mat: npt.NDArray[np.int64],
                   h_mat: npt.NDArray[np.int64], full: npt.NDArray[np.int64], has_rem: npt.NDArray[np.bool_],
                   used_last: npt.NDArray[np.int64], nd: npt.NDArray[np.int64], ends: npt.NDArray[np.int64],
                   bases: npt.NDArray[np.int64], n_mini: int, vpm: int, udt: Any, with_ends: bool
                   ) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64] | None] | None:
    """The rest of :func:`expand_held_delta_binary_packed_pages` when every page's full
    blocks repeat its first block (proved by :func:`_walk_uniform`, chains and varints
    checked), and each first full block has one bit width the strided unpack takes (else
    None: the general path decides).

    The full blocks' widths are then their first block's, so only the first blocks and
    the partial blocks are read and checked (widths at most 64, the last miniblock's
    needed bytes inside the page), every full block's min delta is decoded, and the
    partial blocks' miniblocks alone go through the gathered unpack.
    """
    steps = s_mat.shape[1] - 1
    group_bytes = vpm // 8
    mini = np.arange(n_mini, dtype=np.int64)
    first_w = joined[h_mat[:, :1] + mini]                  # (pages, miniblocks)
    w0 = first_w[:, 0].astype(np.int64)
    one = (first_w == first_w[:, :1]).all(axis=1) & ((w0 == 0) | ((w0 > 1) & (w0 < 58)))
    if not (one | (full == 0)).all():      # (a page without full blocks: its partial one)
        return None
    partial = np.flatnonzero(has_rem)
    hp = h_mat[partial, steps]
    layout = _partial_blocks(joined, hp, used_last[partial], nd[partial], full[partial], ends[partial], mini,
                             n_mini, group_bytes, vpm)
    if layout is None:
        return None
    pw, p64, pstart = layout
    # min deltas: every full block (page after page), then the partial blocks
    if int(full.min()) == steps:
        s_full, h_full = s_mat[:, :steps].reshape(-1), h_mat[:, :steps].reshape(-1)
    else:
        real = np.arange(steps, dtype=np.int64)[None, :] < full[:, None]
        s_full, h_full = s_mat[:, :steps][real], h_mat[:, :steps][real]
    mins = _min_deltas(joined, np.concatenate((s_full, s_mat[partial, steps])),
                       np.concatenate((h_full, hp)), udt)
    length = (h_mat[:, 0] - s_mat[:, 0]) + n_mini + w0 * n_mini * group_bytes
    at = np.cumsum(full) - full
    fast = [(h + n_mini, st, f, w, mins[a:a + f]) if f else None for h, st, f, w, a in
            zip(h_mat[:, 0].tolist(), length.tolist(), full.tolist(), w0.tolist(), at.tolist())]
    keep = mini[None, :] < used_last[partial][:, None]
    n_used = full * n_mini + used_last
    values = _sum_pages(joined, pw[keep], pstart[keep], np.repeat(mins[s_full.size:], n_mini)[keep.reshape(-1)],
                        [(p[1], p[2], u) for p, u in zip(pages, n_used.tolist())], vpm, udt,
                        fast, n_mini, rest_only=True)
    if not with_ends:
        return values, None
    stream_end = s_mat[:, steps].copy()
    stream_end[partial] = np.minimum(ends[partial], hp + n_mini + p64.sum(axis=1) * group_bytes)
    return values, stream_end - bases


def expand_delta_binary_packed_pages(pages: list[ScannedPage], dtype: Any) -> npt.NDArray[Any]:
    """The values of pages checked by :func:`scan_delta_binary_packed_page`, in order.

    The page bytes are joined (plus zero padding, so a page's last miniblock,
    which may stop short, reads as a whole one: only its padding values see the
    next page's bytes), every miniblock of every page is unpacked by one call
    per bit width and gets its block's min delta, then each page is
    prefix-summed from its first value.
    """
    sdt, udt, _ = _unsigned(dtype)
    if len(pages) == 1 or len({p[7] for p in pages}) > 1:
        return np.concatenate([_unpack_and_sum(a, m, fw, fs, first, total, nm, vpm, udt)
                               for a, first, total, m, fw, fs, nm, vpm in pages]).view(sdt)
    vpm = pages[0][7]
    bufs: list[Any] = []
    starts: list[npt.NDArray[np.int64]] = []
    mins: list[npt.NDArray[Any]] = []
    base = 0
    for arr, _, _, m, _, fs, nm, _ in pages:
        bufs.append(memoryview(arr))
        starts.append(fs + base)
        mins.append(np.repeat(m, nm)[:fs.size] if nm > 1 else m)
        base += arr.size
    bufs.append(bytes(vpm * 8 + SLACK))
    joined = np.frombuffer(b"".join(bufs), dtype=np.uint8)
    return _sum_pages(joined, np.concatenate([p[4] for p in pages]), np.concatenate(starts),
                      np.concatenate(mins), [(p[1], p[2], p[4].size) for p in pages],
                      vpm, udt).view(sdt)


#: Largest joined chunk (and running-sum scratch, :func:`_sum_in_place`) kept for reuse by a
#: thread (bigger ones are allocated each time): at most twice this stays allocated per
#: reading thread between reads.
_SCRATCH_MAX = 4 << 20
_scratch = threading.local()


def _join_pages(bufs: list[npt.NDArray[np.uint8]], size: int, pad: int) -> npt.NDArray[np.uint8]:
    """The pages' bytes one after another, then *pad* zero bytes, in this thread's reused
    buffer when small enough: a fresh joined copy of every chunk would fault its memory in
    anew each time (the values never refer to it, so the next chunk may overwrite it)."""
    n = size + pad
    if n > _SCRATCH_MAX:
        out = np.empty(n, dtype=np.uint8)
    else:
        held = getattr(_scratch, "buf", None)
        if held is None or held.size < n:
            held = _scratch.buf = np.empty(max(n, 1 << 20), dtype=np.uint8)
        out = held[:n]
    at = 0
    for b in bufs:
        out[at:at + b.size] = b
        at += b.size
    out[at:] = 0
    return out


def _sum_in_place(a: npt.NDArray[Any], udt: Any) -> None:
    """Replace *a* (values of dtype *udt*) by its running sum along its last axis.

    Computed into this thread's scratch buffer and copied back: numpy's accumulate
    into its own input holds the GIL from start to end (measured: 160,000 values,
    0.5 ms at 100 % held; through the scratch ~7 %, about the same CPU), which stalls
    the other reading threads' Python; so does one over 500 rows or fewer, so a chunk's
    pages go through :func:`row_sums_into`.  The scratch is reused (a fresh buffer this
    size would fault its pages in on every call).
    """
    nbytes = a.size * a.itemsize
    if nbytes > _SCRATCH_MAX:
        a[...] = row_sums_into(a, np.empty(a.shape, dtype=udt))
        return
    held = getattr(_scratch, "sums", None)
    if held is None or held.size < nbytes:
        held = _scratch.sums = np.empty(max(nbytes, 1 << 16), dtype=np.uint8)
    tmp = held[:nbytes].view(udt).reshape(a.shape)
    row_sums_into(a, tmp)       # (a chunk's few pages: numpy would hold the GIL over them)
    a[...] = tmp


def _varint_lengths(words: npt.NDArray[np.uint64], pos: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Length of the varint at each offset: 1 + the bytes before the first one below
    0x80 (marked in t, the set bits of t ^ (t - 1) are 8 per byte up to it); 8 high
    bytes read as a length of 8, which :func:`_varints_ok` then rejects."""
    t = ~words[pos]
    t &= _HIGH_BITS
    vl = np.bitwise_count(t ^ (t - _ONE)).astype(np.int64)
    vl >>= 3
    return vl


def _lockstep(joined: npt.NDArray[np.uint8], words: npt.NDArray[np.uint64], pos: npt.NDArray[np.int64],
              vl: npt.NDArray[np.int64] | None, full: npt.NDArray[np.int64], steps: int, same: bool,
              n_mini: int, group_bytes: int
              ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Walk the block chains of all pages together: round ``k`` finds block ``k`` of
    every page (pages with fewer full blocks stay put).  Returns each block's start and
    width offsets, ``(pages, steps + 1)``, column ``steps`` being where each page's
    full blocks end; None when a chain runs out of the buffer.

    With *vl* (each page's min-delta varint length) every varint is taken to have
    that length, which the caller proves; without it each is measured.  Widths are
    summed with bit tricks on one 8-byte word per block rather than small reductions
    (a round is a dozen numpy calls on one value per page).
    """
    wide = None if n_mini <= 8 else np.ndarray((joined.size - n_mini + 1, n_mini), dtype=np.uint8,
                                                buffer=joined, strides=(1, 1))
    width_mask = np.uint64((1 << (8 * n_mini)) - 1) if n_mini < 8 else None
    eight = np.uint64(8)
    gb = np.uint64(group_bytes)
    pos = pos.astype(np.uint64)
    starts: list[Any] = []
    heads: list[Any] = []
    try:
        if vl is not None:
            step_const = (vl + n_mini).astype(np.uint64)
            head = pos + vl.astype(np.uint64)
        for k in range(steps + 1):
            if vl is None:
                head = _varint_lengths(words, pos).astype(np.uint64)
                head += pos
                starts.append(pos)
            heads.append(head)
            if k == steps:
                break
            if wide is None:
                x = words[head]
                if width_mask is not None:
                    x &= width_mask
                # byte sum: pairs into 16-bit lanes, then one multiply adds the lanes
                y = x & _LANES
                x >>= eight
                x &= _LANES
                y += x
                y *= _LANE_SUM
                y >>= _LANE_SHIFT
            else:
                y = wide[head].sum(axis=1, dtype=np.uint64)
            y *= gb
            y += head
            if vl is None:
                y += np.uint64(n_mini)
                pos = y if same else np.where(k < full, y, pos)
            else:
                y += step_const
                head = y if same else np.where(k < full, y, head)
    except IndexError:
        return None
    h_mat = np.stack(heads, axis=1).astype(np.int64)
    s_mat = h_mat - vl[:, None] if vl is not None else np.stack(starts, axis=1).astype(np.int64)
    return s_mat, h_mat


#: Up to this many pages, :func:`_walk_each` walks their blocks (a Python step per
#: block) rather than :func:`_lockstep` (a dozen numpy calls per block index).
_EACH_MAX_PAGES = 32


def _walk_each(joined: npt.NDArray[np.uint8], pos: npt.NDArray[np.int64],
               full: npt.NDArray[np.int64], steps: int, n_mini: int, group_bytes: int
               ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """:func:`_lockstep` without *vl*, page by page: the same ``(pages, steps + 1)`` block
    starts and width offsets, found by one Python step per block.

    A chunk holds a few pages of ~150 blocks each: a dozen numpy calls per block index
    (the lockstep) cost more than a step per block of each page, which skips the
    block's min-delta varint (measured as the walk passes it: its length may change
    from block to block) and adds up its miniblock widths to find the next one; the
    partial block's varint is measured too (up to one byte past the longest accepted,
    for :func:`_varints_ok` to refuse).  None when a chain runs out of the buffer.

    The step is kept to a few bytecodes (a per-block loop in a hot path: the length
    streams of sorted strings, whose layouts change from block to block, have no
    vectorised way to their chain; a next-block table computed for every byte with
    numpy cost more than this loop, see benchmarks/README.md): the bytes are indexed
    through a memoryview (no copy of the joined pages, which hold whole DELTA_BYTE_ARRAY
    pages), and with 4 miniblocks (the spec's layout, Arrow's and parquet-java's) the
    widths are added by four indexings rather than a slice and a sum.  A width byte
    past the buffer raises IndexError there (None) where the slice would stop short;
    a block whose widths are cut off by the buffer's end leaves the next start past it,
    which fails the same way, so both refuse the same chains.
    """
    mv = joined.data            # indexing a memoryview: no copy of the joined pages
    size = joined.size
    starts: list[int] = []      # every page's blocks, one page after another
    heads: list[int] = []
    start = starts.append
    head = heads.append
    ends: list[int] = []
    tails: list[int] = []
    four = n_mini == 4
    try:
        for h, f in zip(pos.tolist(), full.tolist()):
            # sequential: a block's place depends on the widths of the blocks before it
            if four:
                for _ in range(f):
                    start(h)
                    while mv[h] >= 0x80:
                        h += 1
                    head(h + 1)
                    h += 5 + (mv[h + 1] + mv[h + 2] + mv[h + 3] + mv[h + 4]) * group_bytes
            else:
                for _ in range(f):
                    start(h)
                    while mv[h] >= 0x80:
                        h += 1
                    h += 1
                    head(h)
                    h += n_mini + sum(mv[h:h + n_mini]) * group_bytes
            e = h
            while e < size and e - h <= _MAX_VARINT and mv[e] >= 0x80:
                e += 1
            if e + 1 + n_mini > size:
                return None
            ends.append(h)
            tails.append(e + 1)
    except IndexError:
        return None
    # each page's full blocks, then its partial block's offsets to the end of its row
    s_mat = np.repeat(np.array(ends, dtype=np.int64)[:, None], steps + 1, axis=1)
    h_mat = np.repeat(np.array(tails, dtype=np.int64)[:, None], steps + 1, axis=1)
    if starts:
        real = np.arange(steps + 1, dtype=np.int64)[None, :] < full[:, None]
        s_mat[real] = starts
        h_mat[real] = heads
    return s_mat, h_mat


def _walk_uniform(joined: npt.NDArray[np.uint8], words: npt.NDArray[np.uint64], pos: npt.NDArray[np.int64],
                  vl: npt.NDArray[np.int64], full: npt.NDArray[np.int64], ends: npt.NDArray[np.int64],
                  steps: int, n_mini: int, group_bytes: int
                  ) -> tuple[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]], npt.NDArray[np.bool_]]:
    """The block starts and width offsets of the pages whose full blocks all repeat
    their first block's layout, found without walking; and which pages those are.

    Each page's first block gives a block length ``L`` (its min-delta varint length
    plus the widths plus the bodies those widths make); block ``k`` is then guessed
    at ``k * L`` from the first, and every guess is checked at once: a varint of the
    first one's length and the first block's very widths there.  If block ``k`` is
    where guessed, those checks put block ``k + 1`` ``L`` further on, so a page whose
    guesses all pass has its true chain (by induction from its first block, which is
    true).  Rows of the other pages are left for a walk (their values are
    meaningless).  Timestamps with a steady jitter, counters and most sorted columns
    give every block the same widths, so a chunk of such pages costs a dozen numpy
    calls instead of a step per block.
    """
    pages = pos.size
    h_mat = np.empty((pages, steps + 1), dtype=np.int64)
    uniform = np.ones(pages, dtype=bool)
    heads = pos + vl
    if steps:
        has = full > 0
        mini = np.arange(n_mini)
        # widths of each first block (garbage for pages without full blocks: not used)
        first_w = joined[np.minimum(heads, joined.size - n_mini)[:, None] + mini]
        length = vl + n_mini + first_w.sum(axis=1, dtype=np.int64) * group_bytes
        # a chain that would run past its page is not this page's (the walk decides)
        uniform &= ~has | (pos + full * length <= ends)
        if int(full.min()) == steps and int(vl.max()) + n_mini <= 8:
            # every page has `steps` full blocks and a block head (varint and widths) fits
            # one word: one masked compare per guess against the page's first head (which
            # is true): the varint's continuation bits and its end bit, and every width
            uniform &= _heads_repeat(words, pos, vl, length, steps, n_mini)
            cnt = full[:0]
        else:
            cnt = np.where(uniform, full, 0)
        total = int(cnt.sum())
        if total:
            page = np.repeat(np.arange(pages), cnt)
            k = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            vp = vl[page]
            cand = pos[page] + k * length[page]
            bad = _varint_lengths(words, cand) != vp
            cand += vp
            if n_mini <= 8:
                # the widths as one word: ``n_mini`` bytes from the head, compared at once
                keep = np.uint64((1 << (8 * n_mini)) - 1)
                key = words[np.minimum(heads, words.size - 1)] & keep
                bad |= (words[cand] & keep) != key[page]
            else:
                bad |= (joined[cand[:, None] + mini] != first_w[page]).any(axis=1)
            uniform &= np.bincount(page[bad], minlength=pages) == 0
        col = np.arange(steps + 1, dtype=np.int64)
        h_mat[:] = heads[:, None] + np.minimum(col[None, :], full[:, None]) * length[:, None]
    else:
        h_mat[:, 0] = heads
    return (h_mat - vl[:, None], h_mat), uniform


#: ``_BYTE_MASKS[t]``: the low ``t`` bytes of a word set.
_BYTE_MASKS = np.array([(1 << (8 * t)) - 1 for t in range(9)], dtype=np.uint64)


def _heads_repeat(words: npt.NDArray[np.uint64], pos: npt.NDArray[np.int64], vl: npt.NDArray[np.int64],
                  length: npt.NDArray[np.int64], steps: int, n_mini: int,
                  full: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.bool_]:
    """Whether each page's blocks ``1 .. steps - 1`` (guessed ``length`` bytes apart from the
    first, at ``pos``) start with the first block's head: a min-delta varint of the same
    length ``vl`` and the same ``n_mini`` widths (``vl + n_mini <= 8``).  With *full*, only
    each page's first ``full`` blocks are compared.  Guesses past the buffer are clamped
    (their pages are refused by the caller's room check)."""
    cand = np.arange(steps, dtype=np.int64)[None, :] * length[:, None]
    cand += pos[:, None]
    np.minimum(cand, words.size - 1, out=cand)
    # the varint's high bits and the widths' bytes; for a varint of length vl the high
    # bits read 1 1 .. 1 0, the same as in the page's first head
    mask = _BYTE_MASKS[vl] & _HIGH_BITS
    mask |= _BYTE_MASKS[vl + n_mini] & ~_BYTE_MASKS[vl]
    got = words[cand]
    got &= mask[:, None]
    same = got == got[:, :1]
    if full is not None and int(full.min()) != steps:
        same |= np.arange(steps, dtype=np.int64)[None, :] >= full[:, None]
    return same.all(axis=1)


def _strided_pages(uniform: npt.NDArray[np.bool_], wmat: npt.NDArray[np.uint8],
                   s_flat: npt.NDArray[np.int64], h_flat: npt.NDArray[np.int64],
                   mins: npt.NDArray[Any], full: npt.NDArray[np.int64],
                   has_rem: npt.NDArray[np.bool_], n_mini: int, group_bytes: int) -> list[Any]:
    """Per page, how its full blocks can be unpacked in one strided pass, or None.

    A page qualifies when its full blocks all repeat its first block's layout
    (``uniform``, proved by :func:`_walk_uniform`: same varint length, same widths)
    and that block's miniblocks share one bit width the strided unpacker takes: the
    bodies are then runs of equal length at a fixed stride.  Entry: (first body
    offset, stride, full blocks, width, the full blocks' min deltas).
    """
    blocks = full + has_rem
    first = np.cumsum(blocks) - blocks
    out: list[Any] = [None] * full.size
    cand = np.flatnonzero(uniform & (full > 0))
    if cand.size == 0:
        return out
    w = wmat[first[cand]]
    one = (w == w[:, :1]).all(axis=1)
    w0 = w[:, 0].astype(np.int64)
    one &= (w0 == 0) | ((w0 > 1) & (w0 < 58))
    for p, b0, f, w in zip(cand[one].tolist(), first[cand[one]].tolist(), full[cand[one]].tolist(),
                           w0[one].tolist()):
        stride = int(h_flat[b0] - s_flat[b0]) + n_mini + n_mini * w * group_bytes
        out[p] = (int(h_flat[b0]) + n_mini, stride, f, w, mins[b0:b0 + f])
    return out


def _varints_ok(joined: npt.NDArray[np.uint8], s_mat: npt.NDArray[np.int64], h_mat: npt.NDArray[np.int64],
                check: npt.NDArray[np.int64], has_rem: npt.NDArray[np.bool_], steps: int) -> bool:
    """Whether every block's min-delta varint is bytes ``s:h`` (all but the last at or
    above 0x80) and at most :data:`_MAX_VARINT` long, for the first ``check[p]`` full
    blocks of each page ``p`` and its partial block (column ``steps``, if it has one)."""
    col = np.arange(steps + 1, dtype=np.int64)
    real = (col[None, :] < check[:, None]) | ((col[None, :] == steps) & has_rem[:, None])
    s = s_mat[real]
    vl = h_mat[real] - s
    if s.size == 0:
        return True
    if int(vl.min()) < 1 or int(vl.max()) > _MAX_VARINT or int(s.max()) + _MAX_VARINT > joined.size:
        return False
    longest = int(vl.max())
    k = np.arange(longest, dtype=np.int64)
    high = joined[s[:, None] + k] >= 0x80
    want = k[None, :] < (vl - 1)[:, None]          # continuation bytes
    inside = k[None, :] < vl[:, None]
    return bool(((high == want) | ~inside).all())


def _sum_pages(joined: npt.NDArray[np.uint8], flat_w: npt.NDArray[np.uint8],
               flat_start: npt.NDArray[np.int64], mb_mins: npt.NDArray[Any],
               per_page: list[tuple[int, int, int]], vpm: int, udt: Any,
               fast: list[Any] | None = None, n_mini: int = 1, rest_only: bool = False) -> npt.NDArray[Any]:
    """Unpack the miniblocks of several pages (offsets into *joined*, which has
    ``vpm * 8 + SLACK`` bytes of padding), add each one's min delta (*mb_mins*), and
    prefix-sum each page from its first value; *per_page*: (first value, value
    count, miniblocks used).

    *fast* (per page, from :func:`_strided_pages`, or None): the full blocks of such a
    page are unpacked by one strided call straight into the output, get their min
    deltas there and are prefix-summed in place; only the other miniblocks (the other
    pages', and the last partial block of these) go through the gathered unpack.
    Consecutive fast pages of one layout (count, miniblocks used, stride, full blocks,
    width) go through one lane-major unpack-and-sum pass.  *rest_only*: the flat arrays
    already hold only the miniblocks the strided unpack does not cover.
    """
    n_pages = len(per_page)
    fast = fast or [None] * n_pages
    skip = None if rest_only else np.array([0 if f is None else f[2] * n_mini for f in fast], dtype=np.int64)
    if skip is not None and skip.any():
        used = np.array([p[2] for p in per_page], dtype=np.int64)
        # the miniblocks the strided unpack does not cover
        page = np.repeat(np.arange(n_pages), used)
        within = np.arange(page.size) - np.repeat(np.cumsum(used) - used, used)
        rest = np.flatnonzero(within >= skip[page])
        flat_w, flat_start, mb_mins = flat_w[rest], flat_start[rest], mb_mins[rest]
    rows = np.empty((flat_w.size, vpm), dtype=udt)
    _fill_miniblocks(joined, rows, flat_w, flat_start, vpm)
    rows += mb_mins[:, None]
    deltas = rows.reshape(-1)
    out = np.empty(sum(p[1] for p in per_page), dtype=udt)
    o = r = 0
    block = n_mini * vpm
    i = 0
    while i < n_pages:
        first, total, n_used = per_page[i]
        f = fast[i]
        seg = out[o:o + total]
        if f is None:
            # one prefix sum per page, from its own first value (added to its first delta,
            # which saves a pass over the values)
            seg[0] = first
            deltas[r:r + 1] += seg[:1]     # array arithmetic wraps silently
            np.cumsum(deltas[r:r + total - 1], dtype=udt, out=seg[1:])
            r += n_used * vpm
            o += total
            i += 1
            continue
        start, stride, nfull, w, bmins = f
        done = nfull * block        # deltas of the full blocks
        tail = total - 1 - done
        left = (n_used - nfull * n_mini) * vpm      # slots of its partial block in `deltas`
        if w in LANE_WIDTHS:
            # the next pages of the very same layout go with this one: their full blocks
            # are unpacked and summed by one lane-major pass, their partial blocks' deltas
            # continue from each one's last full value
            j = i + 1
            while j < n_pages and fast[j] is not None and per_page[j][1:] == (total, n_used) \
                    and fast[j][1:4] == (stride, nfull, w):
                j += 1
            k = j - i
            rows2d = out[o:o + k * total].reshape(k, total)
            plus = bmins if k == 1 else np.concatenate([g[4] for g in fast[i:j]])
            firsts = np.array([p[0] for p in per_page[i:j]], dtype=udt)
            prefix_sum_runs_into(joined, [g[0] for g in fast[i:j]], stride, nfull, block // 8, w,
                                 plus, firsts, rows2d[:, :1 + done])
            if tail:
                rows2d[:, 1 + done:] = deltas[r:r + k * left].reshape(k, left)[:, :tail]
                _sum_in_place(rows2d[:, done:], udt)
            r += k * left
            o += k * total
            i = j
            continue
        body = seg[1:1 + done]
        if w:
            unpack_spaced_runs_into(joined, start, stride, nfull, block // 8, w, body, plus=bmins)
        else:
            body.reshape(nfull, block)[...] = bmins[:, None]
        if tail:
            seg[1 + done:] = deltas[r:r + tail]
        r += left
        seg[0] = first
        _sum_in_place(seg, udt)
        o += total
        i += 1
    return out


def _header_varints(mv: memoryview, pos: int, size: int) -> tuple[int, int, int, int, int] | None:
    """The header's four varints and the offset after them, read in one loop over a
    copy of its bytes (a page's fixed cost: one call instead of four); None when the
    buffer ends within 40 bytes or a varint is longer than 10 bytes or above 64 bits."""
    if size - pos < 40:
        return None
    raw = bytes(mv[pos:pos + 40])
    i = 0
    out = []
    for _ in range(4):
        value = shift = 0
        while True:
            b = raw[i]
            i += 1
            value |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
            if shift >= 70:
                return None
        if value >> 64:
            return None
        out.append(value)
    return out[0], out[1], out[2], out[3], pos + i


def _read_header(mv: memoryview, pos: int, size: int,
                 max_count: int | None) -> tuple[int, int, int, int, int]:
    """The stream header: block size, miniblocks per block, value count, first value
    (zigzag-decoded, unbounded) and the offset after it; every field checked."""
    got = _header_varints(mv, pos, size)
    if got is None:     # near the buffer's end, or a varint too long: read_uleb128's errors
        block_size, pos = _uleb(mv, pos, size)
        n_mini, pos = _uleb(mv, pos, size)
        total, pos = _uleb(mv, pos, size)
        zz, pos = _uleb(mv, pos, size)
    else:
        block_size, n_mini, total, zz, pos = got
    first = (zz >> 1) ^ -(zz & 1)
    if block_size == 0 or n_mini == 0 or block_size % n_mini:
        raise ParquetFormatError(
            f"{_WHAT}: block size {block_size} is not a positive multiple of the "
            f"miniblock count {n_mini}")
    vpm = block_size // n_mini
    if vpm % 8:
        raise ParquetFormatError(
            f"{_WHAT}: {vpm} values per miniblock is not a multiple of 8")
    limit = MAX_COUNT if max_count is None else min(MAX_COUNT, max_count)
    if total > limit:
        raise ParquetFormatError(f"{_WHAT}: header declares {total} values, at most {limit} expected")
    return block_size, n_mini, total, first, pos


def _walk_blocks(arr: npt.NDArray[np.uint8], mv: memoryview, pos: int, ndeltas: int,
                 block_size: int, n_mini: int, vpm: int
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """Where each block's min-delta varint and bit widths start, and the stream's end.

    Block headers form a chain (a block's length depends on its min-delta
    varint and its widths), so they are walked in Python: one iteration per
    block of (typically) 128-256 values, doing only what the next position
    needs (skip the varint, sum the widths).  Varints and widths are decoded
    afterwards, vectorised, from the recorded positions.
    """
    size = arr.size
    full_blocks = ndeltas // block_size
    rem = ndeltas - full_blocks * block_size
    # Fail before looping if the buffer cannot even hold the block headers.
    n_blocks = full_blocks + (1 if rem else 0)
    if n_blocks * (1 + n_mini) > size - pos:
        raise ParquetFormatError(
            f"{_WHAT}: {ndeltas + 1} values need {n_blocks} blocks of at least {1 + n_mini} "
            f"bytes; only {size - pos} bytes remain")
    group_bytes = vpm // 8  # bytes per miniblock per bit of width
    used_last = -(-rem // vpm)  # miniblocks the last, partial block uses
    try:
        s_arr, h_arr, pos = _walk_full_blocks(arr, mv, pos, full_blocks, n_mini, group_bytes)
        if pos > size:
            raise IndexError
        if rem:
            s_last = pos
            while mv[pos] >= 0x80:
                pos += 1
            pos += 1
            s_arr = np.concatenate((s_arr, (s_last,)))
            h_arr = np.concatenate((h_arr, (pos,)))
            if pos + n_mini > size:
                raise ParquetFormatError(f"{_WHAT}: last block's bit widths are truncated")
            # the last used miniblock may be cut short: the end is clamped to
            # the buffer and the bytes it really needs are checked by _miniblock_layout
            pos = min(size, pos + n_mini + sum(mv[pos:pos + used_last]) * group_bytes)
    except IndexError:
        raise ParquetFormatError(
            f"{_WHAT}: block header or body truncated at byte {min(pos, size)} "
            f"({size} bytes)") from None
    return s_arr, h_arr, pos


def _miniblock_layout(arr: npt.NDArray[np.uint8], h_arr: npt.NDArray[np.int64], ndeltas: int,
                      block_size: int, n_mini: int, vpm: int
                      ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Bit width and body offset of every used miniblock, in stream order.

    Widths above the type's width are rejected, and the last miniblock's body
    (the only one that may be cut short) is checked against the buffer; the
    block walk proved every other body lies inside it.
    """
    size = arr.size
    group_bytes = vpm // 8
    full_blocks = ndeltas // block_size
    rem = ndeltas - full_blocks * block_size
    used_last = -(-rem // vpm)
    wmat = arr[h_arr[:, None] + np.arange(n_mini)]          # (blocks, miniblocks) widths
    if rem:
        wmat[-1, used_last:] = 0      # unused miniblocks: garbage widths, no bytes
    wmax = int(wmat.max())
    if wmax > _MAX_WIDTH:
        raise ParquetFormatError(f"{_WHAT}: miniblock bit width {wmax} exceeds {_MAX_WIDTH}")
    w64 = wmat.astype(np.int64)
    mb_start = np.empty_like(w64)
    mb_start[:, 0] = 0
    np.cumsum(w64[:, :-1], axis=1, out=mb_start[:, 1:])
    mb_start = mb_start * group_bytes + (h_arr + n_mini)[:, None]
    n_used = full_blocks * n_mini + used_last
    flat_w = wmat.reshape(-1)[:n_used]
    flat_start = mb_start.reshape(-1)[:n_used]
    last_take = ndeltas - (n_used - 1) * vpm
    last_need = (last_take * int(flat_w[-1]) + 7) >> 3
    if int(flat_start[-1]) + last_need > size:
        raise ParquetFormatError(
            f"{_WHAT}: miniblock at byte {int(flat_start[-1])} is truncated ({size} bytes)")
    return flat_w, flat_start


def _unpack_and_sum(arr: npt.NDArray[np.uint8], mins: npt.NDArray[Any], flat_w: npt.NDArray[np.uint8],
                    flat_start: npt.NDArray[np.int64], first: int, total: int, n_mini: int,
                    vpm: int, udt: Any) -> npt.NDArray[Any]:
    """Unpack every miniblock's deltas, add its block's min delta, prefix-sum to values.

    ``values[0]`` is the first value, ``values[1 + k]`` delta ``k``: one in-place
    cumsum at the end turns deltas into values (wrapping in the unsigned type).
    Rows past ``total`` are the last miniblock's padding and are dropped.
    """
    size = arr.size
    n_used = flat_w.size
    values = np.empty(1 + n_used * vpm, dtype=udt)
    values[0] = first
    rows = values[1:].reshape(n_used, vpm)
    last_w = int(flat_w[-1])
    short_last = int(flat_start[-1]) + vpm * last_w // 8 > size
    n_bulk = n_used - 1 if short_last else n_used
    _fill_miniblocks(arr, rows[:n_bulk], flat_w[:n_bulk], flat_start[:n_bulk], vpm)
    if short_last:
        last_take = total - 1 - (n_used - 1) * vpm
        unpack_bits_into(arr[int(flat_start[-1]):], last_w, last_take, rows[-1])
    per_mb = np.repeat(mins, n_mini)[:n_used] if n_mini > 1 else mins
    rows += per_mb[:, None]
    out = values[:total]
    _sum_in_place(out, udt)
    return out


#: Blocks of the same length that make speculating on the next ones worth a few numpy calls.
_SPECULATE_MIN = 12


def _walk_full_blocks(arr: npt.NDArray[np.uint8], mv: memoryview, pos: int, nblocks: int,
                      n_mini: int, group_bytes: int) -> tuple[npt.NDArray[np.int64],
                                                               npt.NDArray[np.int64], int]:
    """Start and width-bytes offsets of ``nblocks`` full blocks from ``pos``, and the end.

    Blocks form a chain, walked in Python one block at a time (skip the
    min-delta varint, sum the widths: a loop over blocks, not values).  Most
    pages repeat one block layout (same varint length, same widths), so after
    each walked block the next ones are *speculated* to have the same length
    ``L`` and checked all at once: a candidate at ``pos + i * L`` is accepted
    while its varint has the same length and its widths the same sum, which
    proves by induction that it is the true next block.  The first mismatch
    is walked in Python again.  Truncation raises IndexError (caller maps it).
    """
    size = arr.size
    parts_s: list[npt.NDArray[np.int64]] = []
    parts_h: list[npt.NDArray[np.int64]] = []
    starts: list[int] = []
    heads: list[int] = []
    done = 0
    walk_only = 0
    mini = np.arange(n_mini)
    while done < nblocks:
        s = pos
        while mv[pos] >= 0x80:
            pos += 1
        pos += 1
        starts.append(s)
        heads.append(pos)
        wsum = sum(mv[pos:pos + n_mini])
        pos += n_mini + wsum * group_bytes
        done += 1
        left = nblocks - done
        if walk_only:
            walk_only -= 1
            continue
        if left < _SPECULATE_MIN:
            continue
        vl = heads[-1] - s
        step = pos - s
        room = size - pos - vl - n_mini
        k = min(left, room // step + 1) if room >= 0 else 0
        if k < _SPECULATE_MIN:
            continue
        cand = pos + step * np.arange(k, dtype=np.int64)
        high = arr[cand[:, None] + np.arange(vl)] >= 0x80
        ok = ~high[:, -1]
        if vl > 1:
            ok &= high[:, :-1].all(axis=1)
        ok &= arr[(cand + vl)[:, None] + mini].sum(axis=1, dtype=np.int64) == wsum
        m = k if ok.all() else int(ok.argmin())
        if m:
            parts_s.append(np.array(starts, dtype=np.int64))
            parts_h.append(np.array(heads, dtype=np.int64))
            starts, heads = [], []
            parts_s.append(cand[:m])
            parts_h.append(cand[:m] + vl)
            pos += m * step
            done += m
        if m < k or m < _SPECULATE_MIN:
            walk_only = 2 * _SPECULATE_MIN   # layouts change often here: walk a while
    parts_s.append(np.array(starts, dtype=np.int64))
    parts_h.append(np.array(heads, dtype=np.int64))
    if len(parts_s) == 1:
        return parts_s[0], parts_h[0], pos
    return np.concatenate(parts_s), np.concatenate(parts_h), pos


#: Widest miniblock accepted. INT32 streams with widths 33..64 (deltas computed in 64 bits
#: by some writers) are read leniently: their values wrap to 32 bits like every INT32 delta
#: (``pqc check`` reports them as pages.delta-bit-width).
_MAX_WIDTH = 64
#: Longest ULEB128 varint accepted for a min delta (64 bits).
_MAX_VARINT = 10


def _min_deltas(arr: npt.NDArray[np.uint8], s_arr: npt.NDArray[np.int64],
                h_arr: npt.NDArray[np.int64], udt: np.dtype[Any]) -> npt.NDArray[Any]:
    """Decode every block's zigzag min delta (bytes ``s_arr[b]:h_arr[b]``), wrapped to ``udt``."""
    lens = h_arr - s_arr
    longest = int(lens.max())
    if longest == 1:  # every min delta fits one byte
        zz = arr[s_arr].astype(np.uint64)
        md = (zz >> np.uint64(1)) ^ (np.uint64(0) - (zz & np.uint64(1)))
        return md.astype(udt, copy=False)
    if longest > _MAX_VARINT:
        raise ParquetFormatError(f"{_WHAT}: a block's min delta varint is {longest} bytes long")
    if longest <= 8 and int(s_arr.max()) + 8 <= arr.size and arr.flags.c_contiguous:
        # each varint read as one little-endian word, the bytes past it masked off, its
        # 7-bit groups moved together: a few calls per byte of the longest, not per block
        word = np.ndarray((arr.size - 7,), dtype="<u8", buffer=arr, strides=(1,))[s_arr]
        word &= _BYTE_MASKS[lens]
        zz = word & np.uint64(0x7F)
        for i in range(1, longest):
            word >>= np.uint64(1)
            zz |= word & np.uint64(0x7F << (7 * i))
        md = (zz >> np.uint64(1)) ^ (np.uint64(0) - (zz & np.uint64(1)))
        return md.astype(udt, copy=False)
    k = np.arange(longest, dtype=np.int64)
    idx = s_arr[:, None] + k
    if int(lens.min()) == longest:   # all varints equally long: every byte is in range
        groups = (arr[idx] & 0x7F).astype(np.uint64)
    else:
        np.minimum(idx, arr.size - 1, out=idx)
        groups = (arr[idx] & 0x7F).astype(np.uint64)
        groups[k[None, :] >= lens[:, None]] = 0
    groups <<= (7 * k).astype(np.uint64)
    zz = np.bitwise_or.reduce(groups, axis=1)
    md = (zz >> np.uint64(1)) ^ (np.uint64(0) - (zz & np.uint64(1)))
    return md.astype(udt, copy=False)


#: Values unpacked per call by :func:`_fill_miniblocks` (bit unpacking of 64k values or fewer
#: takes the unpacker's one-gather kernel, ~3x faster per value than its big-input passes).
_UNPACK_VALUES = 1 << 15


def _fill_miniblocks(arr: npt.NDArray[np.uint8], rows: npt.NDArray[Any],
                     flat_w: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                     vpm: int) -> None:
    """Unpack whole miniblocks into ``rows`` (one row each), one call per bit width.

    Bodies of equal width are gathered with one fancy row-gather over a
    strided view (plus enough extra rows to give the unpacker its slack, so
    it reads the gathered buffer in place) and unpacked by one call.
    """
    n = rows.shape[0]
    if n == 0:
        return
    present = np.bincount(flat_w, minlength=65)
    only = np.flatnonzero(present)
    step = max(1, _UNPACK_VALUES // vpm)
    for w in only.tolist():
        sel = None if only.size == 1 else np.flatnonzero(flat_w == w)
        k = n if sel is None else sel.size
        if w == 0:
            if sel is None:
                rows[:] = 0
            else:
                rows[sel] = 0
            continue
        nbytes = vpm * w // 8
        # row r of this view is arr[r : r + nbytes]; fancy-indexing it by the
        # miniblock start offsets copies every body into one contiguous block
        view = np.ndarray((arr.size - nbytes + 1, nbytes), dtype=np.uint8, buffer=arr,
                          offset=0, strides=(1, 1))
        picked = starts if sel is None else starts[sel]
        extra = -(-SLACK // nbytes)
        tmp = rows[:0] if sel is None else np.empty((min(k, step), vpm), dtype=rows.dtype)
        # a slice of miniblocks at a time: the unpacker's small-input kernel, and the
        # gathered bodies and their values stay in cache
        for a in range(0, k, step):
            b = min(k, a + step)
            part = picked[a:b]
            body = view[np.concatenate((part, np.repeat(part[:1], extra)))].reshape(-1)
            if sel is None:
                unpack_bits_into(body, w, (b - a) * vpm, rows[a:b].reshape(-1))
            else:
                got = tmp[:b - a]
                unpack_bits_into(body, w, (b - a) * vpm, got.reshape(-1))
                rows[sel[a:b]] = got


# --------------------------------------------------------------------------------------
# Encoder
# --------------------------------------------------------------------------------------

def _bit_lengths(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint8]:
    """``int.bit_length`` of every uint64 (0 for 0), exactly.

    float64 rounding can push a value just below a power of two up to it,
    making ``frexp`` one too large; a single shift test corrects that.
    """
    _, e = np.frexp(x.astype(np.float64))
    e = np.minimum(e, 64).astype(np.uint64)
    over = (e > 0) & ((x >> np.maximum(e, 1) - np.uint64(1)) == 0)
    return (e - over).astype(np.uint8)


def encode_delta_binary_packed(values: Any, dtype: Any = np.int64, *, block_size: int = 128,
                               miniblocks: int = 4) -> bytes:
    """Encode integers as DELTA_BINARY_PACKED, wrapping in the column's width.

    Parameters
    ----------
    values:
        Integers; converted to ``dtype`` (values outside its range wrap).
    dtype:
        ``np.int32`` (INT32 column: deltas wrap modulo 2**32) or ``np.int64``.
    block_size, miniblocks:
        Block layout; the defaults (128 values, 4 miniblocks of 32) are the
        spec's recommendation and what Arrow and parquet-java write.  Values
        per miniblock must be a multiple of 8 (the spec asks for 32).

    Returns
    -------
    bytes
        Header and blocks.  Like Arrow: the last block's min delta is taken
        over its real deltas only, its last used miniblock is padded with
        zeros to full size, and unused miniblocks get width 0 and no bytes.

    Notes
    -----
    Vectorised: deltas in the unsigned width (wrapping), one reshape-min for
    the block mins and one reshape-max for the miniblock widths (the padding
    past the last delta is zero after the min is subtracted, so it widens
    nothing and leaves unused miniblocks at width 0), one
    :func:`~parquet_core._kernels.bitpack.pack_bits` call per distinct
    width, and :func:`~parquet_core._kernels.layout.interleave` to put each
    block header in front of its miniblocks.
    """
    sdt, udt, bits = _unsigned(dtype)
    if block_size <= 0 or miniblocks <= 0 or block_size % miniblocks or (block_size // miniblocks) % 8:
        raise ValueError(f"{_WHAT}: block size {block_size} must split into {miniblocks} "
                         f"miniblocks of a multiple of 8 values")
    v = np.asarray(values).reshape(-1)
    v = v.astype(sdt) if v.dtype != sdt else v
    n = v.size
    first = int(v[0]) if n else 0
    header = (write_uleb128(block_size) + write_uleb128(miniblocks) + write_uleb128(n)
              + write_uleb128(zigzag_encode(first)))
    if n <= 1:
        return header
    u = v.view(udt)
    nd = n - 1
    nblocks = -(-nd // block_size)
    padded = np.empty(nblocks * block_size, dtype=udt)
    np.subtract(u[1:], u[:-1], out=padded[:nd])           # wraps in the column width
    padded[nd:] = np.iinfo(sdt).max                       # never the minimum
    blocks = padded.reshape(nblocks, block_size)
    mins = blocks.view(sdt).min(axis=1)
    blocks -= mins.view(udt)[:, None]                     # relative deltas, wrapping
    padded[nd:] = 0
    vpm = block_size // miniblocks
    rows = padded.reshape(nblocks * miniblocks, vpm)
    widths = _bit_lengths(rows.max(axis=1).astype(np.uint64))
    bodies, body_lens = _pack_miniblocks(rows, widths, vpm)
    zz, zz_len = uleb128_matrix(zigzag_encode_array(mins))
    # block head = min delta varint (filler bytes past its length dropped) + widths
    head_matrix = np.concatenate((zz, widths.reshape(nblocks, miniblocks)), axis=1)
    cols = np.arange(head_matrix.shape[1])
    heads = head_matrix[(cols[None, :] < zz_len[:, None]) | (cols[None, :] >= zz.shape[1])]
    block_body = body_lens.reshape(nblocks, miniblocks).sum(axis=1)
    out = interleave(heads, zz_len + miniblocks, bodies, block_body)
    return b"".join((header, out.data))


def _pack_miniblocks(rows: npt.NDArray[Any], widths: npt.NDArray[np.uint8],
                     vpm: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Bit-pack every miniblock at its own width; bodies in miniblock order.

    Miniblocks of equal width are packed by one call.  A body of width ``w``
    is ``w`` units of ``vpm / 8`` bytes, so the bodies are put back in
    miniblock order by one gather over units rather than bytes.
    """
    body_lens = widths.astype(np.int64) * (vpm // 8)
    present = np.flatnonzero(np.bincount(widths, minlength=65))
    present = present[present > 0]
    if present.size == 0:
        return np.zeros(0, dtype=np.uint8), body_lens
    if present.size == 1:
        w = int(present[0])
        sel = widths == w
        block = rows if sel.all() else rows[sel]
        return pack_bits(block, w, validate=False), body_lens
    unit = np.dtype((np.void, vpm // 8))
    parts = []
    src_start = np.zeros(widths.size, dtype=np.int64)      # in units
    at = 0
    for w in present.tolist():                             # one pass per distinct width
        sel = np.flatnonzero(widths == w)
        parts.append(pack_bits(rows[sel], w, validate=False))
        src_start[sel] = at + np.arange(sel.size, dtype=np.int64) * w
        at += sel.size * w
    packed = np.concatenate(parts).view(unit)
    w64 = widths.astype(np.int64)
    dst_start = np.cumsum(w64) - w64
    gather = np.arange(at, dtype=np.int64) + np.repeat(src_start - dst_start, w64)
    return packed[gather].view(np.uint8), body_lens
