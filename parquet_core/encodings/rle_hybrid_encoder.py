"""RLE / bit-packing hybrid *encoder*: levels, dictionary indices, RLE booleans.

Spec: parquet-format ``Encodings.md``, "Run Length Encoding / Bit-Packing
Hybrid (RLE = 3)" and "Dictionary Encoding".  The byte layout is drawn in
:mod:`parquet_core.encodings.rle_hybrid` (the decoder); the prefixes::

    data page v1 levels, RLE booleans:  [u32 LE byte length][runs]
    data page v2 levels:                [runs]
    dictionary indices:                 [bit width: 1 byte][runs]

Choosing runs
-------------
A stretch of ``min_repeat`` (8; 24 and 12 at bit widths 1 and 2, where
short runs do not pay) or more equal values is worth an RLE run.
Everything else is bit-packed, and a bit-packed run holds a multiple of 8
values unless it ends the stream, so a literal stretch before an RLE run is
topped up with the first values of that run (the RLE run is trimmed), and
the run is kept only if it is still at least ``min_repeat`` long.  This is
the classic greedy writer, which is sequential: whether run ``k`` is kept
depends on the literal count mod 8 left by the runs before it.  It is made
parallel by treating each candidate run as a function on that 8-value
state (``state -> state after the run``) and composing the functions with a
doubling prefix scan over the (K, 8) table; most chains are broken after a
step or two by runs long enough to be kept whatever the state (their
function is constant), so the scan usually stops early.  Then every segment
header is computed at once, all literal values are packed by one
:func:`~parquet_core._kernels.bitpack.pack_bits` call (each literal segment
but the last is a whole number of 8-value groups, so the segments stay
aligned in the packed stream), and :func:`~parquet_core._kernels.layout.interleave`
lays out headers and bodies.  If plain bit-packing of the whole input is no
larger (many short runs), that single run is written instead.

Edge cases: no values -> no runs (``b""``); bit width 0 -> one RLE run with
no value bytes; values that are negative or do not fit the bit width, a bit
width outside 0..32, or indices outside the dictionary -> ``ValueError``
(API misuse: the writer computed them).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.bitpack import pack_bits, pack_segments
from parquet_core._kernels.layout import interleave, row_prefixes
from parquet_core._kernels.varint import uleb128_matrix, write_uleb128

__all__ = [
    "default_min_repeat",
    "dictionary_index_bit_width",
    "encode_dictionary_index_pages",
    "encode_dictionary_indices",
    "encode_level_pages",
    "encode_level_run",
    "encode_levels_v1",
    "encode_levels_v2",
    "encode_rle_booleans",
    "encode_rle_hybrid",
]

_STATES = np.arange(8, dtype=np.int64)
#: Up to this many candidate runs are chosen by a plain loop (see _choose_runs_loop).
_LOOP_MAX_RUNS = 512
_STATES8 = _STATES.astype(np.uint8)


def default_min_repeat(bit_width: int) -> int:
    """Shortest run worth an RLE run at ``bit_width``: 8, more for 1- and 2-bit values.

    An RLE run costs its header and value bytes (``1 + ceil(w / 8)``) plus
    about one more header for the literal run it interrupts, while its
    values would take ``len * w / 8`` bytes bit-packed; at widths 1 and 2
    runs shorter than 24 and 12 values do not pay (writers that always use
    8 produce larger level streams).
    """
    cost = 2 + ((bit_width + 7) >> 3)
    return max(8, -(-8 * cost // max(bit_width, 1)))


def _as_values(values: Any, bit_width: int) -> npt.NDArray[Any]:
    v = np.asarray(values).reshape(-1)
    if v.dtype == np.bool_ or v.size == 0:
        v = v.astype(np.uint8) if v.size == 0 else v.view(np.uint8)
    elif v.dtype.kind not in "iu":
        raise TypeError(f"RLE/bit-packed hybrid: integer values expected, not {v.dtype}")
    if not 0 <= bit_width <= 32:
        raise ValueError(f"RLE/bit-packed hybrid: bit width {bit_width} is outside 0..32")
    if v.size:
        lo, hi = int(v.min()), int(v.max())
        if lo < 0 or hi >> bit_width:
            bad = lo if lo < 0 else hi
            raise ValueError(
                f"RLE/bit-packed hybrid: value {bad} does not fit in {bit_width} bits")
    return v


def encode_rle_hybrid(values: Any, bit_width: int, *, min_repeat: int | None = None) -> bytes:
    """Encode non-negative integers as RLE/bit-packed hybrid runs (no length prefix).

    Parameters
    ----------
    values:
        Integers (any integer or bool dtype) below ``2**bit_width``.
    bit_width:
        0..32.
    min_repeat:
        Shortest stretch of equal values written as an RLE run (>= 1);
        default :func:`default_min_repeat`.

    Returns
    -------
    bytes
        The runs; empty for no values.
    """
    if min_repeat is None:
        min_repeat = default_min_repeat(bit_width)
    if min_repeat < 1:
        raise ValueError(f"min_repeat must be at least 1, got {min_repeat}")
    v = _as_values(values, bit_width)
    n = v.size
    if n == 0:
        return b""
    w = bit_width
    if w == 0:
        return write_uleb128(n << 1)           # one RLE run, no value bytes
    change = np.flatnonzero(v[1:] != v[:-1]) + 1
    starts = np.concatenate(([0], change))
    lens = np.diff(np.concatenate((starts, [n])))
    cand = np.flatnonzero(lens >= min_repeat)
    packed_only_size = len(write_uleb128(((n + 7) >> 3) << 1 | 1)) + ((n + 7) >> 3) * w
    if cand.size == 0:
        return _bit_packed_only(v, w)
    c_start = starts[cand]
    c_len = lens[cand]
    chooser = _choose_runs_loop if c_start.size <= _LOOP_MAX_RUNS else _choose_runs
    keep, pad = chooser(c_start, c_len, min_repeat)
    if not keep.any():
        return _bit_packed_only(v, w)
    r_start = c_start[keep] + pad[keep]
    r_end = c_start[keep] + c_len[keep]
    out = _hybrid(v, w, r_start, r_end, packed_only_size)
    return _bit_packed_only(v, w) if out is None else out


def _choose_runs_loop(c_start: npt.NDArray[np.int64], c_len: npt.NDArray[np.int64],
                      min_repeat: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """The same decisions as :func:`_choose_runs`, one candidate run at a time.

    A loop over candidate *runs*, not values: a page of 20,000 definition
    levels with 10 % nulls has ~150 of them, and walking them in Python
    (~40 us) is several times cheaper than composing the (K, 8) state
    tables with numpy (measured in ``benchmarks/bench_encode.py``).
    """
    starts, lens = c_start.tolist(), c_len.tolist()
    keep, pads = [], []
    s = starts[0] & 7
    for j, (start, length) in enumerate(zip(starts, lens)):
        pad = (8 - s) & 7
        kept = length - pad >= min_repeat
        keep.append(kept)
        pads.append(pad)
        if j + 1 < len(starts):
            nxt = starts[j + 1]
            s = (nxt - start - length if kept else s + nxt - start) & 7
    return np.array(keep, dtype=np.bool_), np.array(pads, dtype=np.int64)


def _compose_prefix(prefix: npt.NDArray[np.uint8]) -> None:
    """Turn row j of *prefix* (a C-contiguous ``(k, 8)`` map of the 8 bit-phase states,
    applied at run j) into the composition of rows 0..j, in place: doubling rounds, each
    composing a row with the one *span* rows earlier; rows that already map every state to
    one value are done (a constant map absorbs what came before).

    A row is handled as one 64-bit word (rows move between the rounds as single
    words, not 8-byte fancy-indexed rows), and ``f o g`` is one gather: byte ``s``
    of the result is byte ``g[s]`` of ``f``, at ``8 * i + g[s]`` in the flat bytes
    of the gathered rows ``f``.
    """
    words = prefix.view(np.uint64).reshape(-1)
    todo = np.flatnonzero(~_constant_rows(prefix))
    span = 1
    while True:
        todo = todo[todo >= span]
        if not todo.size:
            return
        # later window o earlier window: f(g(s)) with f = row j, g = row j - span
        f = words[todo].view(np.uint8)
        g = words[todo - span].view(np.uint8).reshape(-1, 8)
        rows = f[g + (np.arange(0, f.size, 8, dtype=np.intp))[:, None]]
        words[todo] = rows.view(np.uint64).reshape(-1)
        todo = todo[~_constant_rows(rows)]
        span *= 2


_BYTE_SPREAD = np.uint64(0x0101010101010101)


def _constant_rows(rows: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Which rows of a C-contiguous ``(k, 8)`` uint8 array hold one value eight times
    (each row read as one 64-bit word, compared with its first byte repeated)."""
    words = np.ascontiguousarray(rows).view(np.uint64).reshape(-1)
    return words == rows[:, 0].astype(np.uint64) * _BYTE_SPREAD


def _choose_runs(c_start: npt.NDArray[np.int64], c_len: npt.NDArray[np.int64],
                 min_repeat: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Decide which candidate runs become RLE runs, exactly as the sequential greedy.

    State ``s`` = literal values pending before a candidate, mod 8.  The run
    needs ``pad(s) = -s mod 8`` of its values to top the literals up to whole
    groups and is kept when ``len - pad(s) >= min_repeat``.  After a kept
    run the state is the gap to the next candidate (mod 8); after a rejected
    one the run itself and the gap join the literals.  Row ``j`` of
    ``prefix`` maps the state before candidate ``j - span + 1`` to the state
    after candidate ``j``; doubling ``span`` composes rows ``j`` and
    ``j - span``, and only rows that are neither complete (``j < span``) nor
    constant are still worked on.
    """
    k = c_start.size
    pad = (8 - _STATES) & 7
    choose = (c_len[:, None] - pad[None, :]) >= min_repeat               # (K, 8)
    s0 = int(c_start[0]) & 7
    states = np.empty(k, dtype=np.int64)
    states[0] = s0
    if k > 1:
        step = (np.diff(c_start) & 7).astype(np.uint8)                    # run + gap
        gap = ((c_start[1:] - c_start[:-1] - c_len[:-1]) & 7).astype(np.uint8)
        prefix = np.where(choose[:-1], gap[:, None],
                          (_STATES8[None, :] + step[:, None]) & np.uint8(7)).astype(np.uint8)
        _compose_prefix(prefix)
        states[1:] = prefix[:, s0]
    keep = choose[np.arange(k), states]
    return keep, pad[states]


def _hybrid(v: npt.NDArray[Any], w: int, r_start: npt.NDArray[np.int64],
            r_end: npt.NDArray[np.int64], limit: int) -> bytes | None:
    """Lay out literal segments and the chosen RLE runs; None if not below ``limit`` bytes."""
    n = v.size
    m = r_start.size
    vbytes = (w + 7) >> 3
    prev_end = np.concatenate(([0], r_end[:-1]))
    lit_len = r_start - prev_end                         # multiples of 8 (possibly 0)
    tail = n - int(r_end[-1])
    # segments in order: L0 R0 L1 R1 ... L(m-1) R(m-1) [tail]
    seg_lit = np.zeros(2 * m + 1, dtype=np.bool_)
    seg_lit[0::2] = True
    seg_vals = np.empty(2 * m + 1, dtype=np.int64)     # literal values, or RLE run length
    seg_vals[0:-1:2] = lit_len
    seg_vals[1::2] = r_end - r_start
    seg_vals[-1] = tail
    present = seg_vals > 0
    seg_lit = seg_lit[present]
    seg_vals = seg_vals[present]
    groups = (seg_vals + 7) >> 3
    header = np.where(seg_lit, (groups << 1) | 1, seg_vals << 1)
    hbytes, hlen = uleb128_matrix(header)
    body_len = np.where(seg_lit, groups * w, 0)
    head_len = hlen + np.where(seg_lit, 0, vbytes)
    total = int(head_len.sum()) + int(body_len.sum())
    if total >= limit:
        return None
    # head of an RLE segment = its varint header then the value in vbytes LE bytes
    run_values = v[r_start].astype(np.uint64)
    value_bytes = np.zeros((2 * m + 1, 4), dtype=np.uint8)
    value_bytes[1::2] = run_values.astype("<u4").view(np.uint8).reshape(m, 4)
    value_bytes = value_bytes[present][:, :vbytes]
    heads_matrix = np.concatenate((hbytes, value_bytes), axis=1)
    cols = np.arange(heads_matrix.shape[1])
    take = (cols[None, :] < hlen[:, None]) | ((cols[None, :] >= hbytes.shape[1]) & ~seg_lit[:, None])
    heads = heads_matrix[take]
    # literal values = everything outside the RLE runs (the segments tile the
    # input in order), zero-padded to whole groups
    lit_values = v[np.repeat(seg_lit, seg_vals)]
    pad = (-lit_values.size) & 7
    if pad:
        lit_values = np.concatenate((lit_values, np.zeros(pad, dtype=lit_values.dtype)))
    bodies = pack_bits(lit_values, w, validate=False)
    return interleave(heads, head_len, bodies, body_len).tobytes()


def _bit_packed_only(v: npt.NDArray[Any], w: int) -> bytes:
    groups = (v.size + 7) >> 3
    pad = groups * 8 - v.size
    if pad:
        v = np.concatenate((v, np.zeros(pad, dtype=v.dtype)))
    return write_uleb128(groups << 1 | 1) + pack_bits(v, w, validate=False).tobytes()


def _level_width(levels: Any, max_level: int) -> tuple[npt.NDArray[Any], int]:
    if max_level < 0:
        raise ValueError(f"max level must be non-negative, got {max_level}")
    v = np.asarray(levels).reshape(-1)
    if v.size and int(v.max()) > max_level:
        raise ValueError(f"level {int(v.max())} exceeds the maximum level {max_level}")
    return v, int(max_level).bit_length()


def encode_levels_v2(levels: Any, max_level: int) -> bytes:
    """Encode repetition or definition levels for a data page v2 (no length prefix).

    Returns ``b""`` when ``max_level`` is 0: such levels are not stored.
    """
    v, width = _level_width(levels, max_level)
    if max_level == 0:
        return b""
    return encode_rle_hybrid(v, width)


def encode_levels_v1(levels: Any, max_level: int) -> bytes:
    """Encode levels for a data page v1: u32 LE byte length, then the hybrid runs.

    Returns ``b""`` when ``max_level`` is 0: such levels are not stored.
    """
    body = encode_levels_v2(levels, max_level)
    if max_level == 0:
        return b""
    return struct.pack("<I", len(body)) + body


def encode_level_run(count: int, level: int, max_level: int, *, length_prefix: bool) -> bytes:
    """Encode ``count`` equal levels as one RLE run (``length_prefix``: the data page v1 form).

    The same bytes :func:`encode_levels_v1` / :func:`encode_levels_v2` give
    for ``np.full(count, level)``, without building that array: the
    definition levels of a column with no nulls in a page are one run.
    """
    if not 0 <= level <= max_level:
        raise ValueError(f"level {level} is outside 0..{max_level}")
    if max_level == 0:
        return b""
    width = int(max_level).bit_length()
    body = b"" if count == 0 else write_uleb128(count << 1) + level.to_bytes((width + 7) >> 3, "little")
    return struct.pack("<I", len(body)) + body if length_prefix else body


def encode_rle_booleans(values: Any) -> bytes:
    """Encode BOOLEAN values with the RLE encoding: u32 LE byte length, then width-1 runs.

    The length prefix is written for v1 and v2 data pages alike (spec table
    "Prepend length?": boolean values -> Y for both).
    """
    v = np.asarray(values).reshape(-1)
    if v.dtype != np.bool_:
        v = v.astype(np.bool_)
    body = encode_rle_hybrid(v, 1)
    return struct.pack("<I", len(body)) + body


def dictionary_index_bit_width(dict_size: int) -> int:
    """Bit width of dictionary indices: bits of ``dict_size - 1``, at least 1.

    A one-entry dictionary could use width 0; like Arrow we write 1, which
    every reader accepts and costs nothing with RLE runs.
    """
    if dict_size < 0:
        raise ValueError(f"dictionary size must be non-negative, got {dict_size}")
    return max(1, (dict_size - 1).bit_length())


def encode_dictionary_indices(indices: Any, dict_size: int) -> bytes:
    """Encode a data page of dictionary indices: 1 byte bit width, then the hybrid runs."""
    width = dictionary_index_bit_width(dict_size)
    v = np.asarray(indices).reshape(-1)
    if v.size and (int(v.min()) < 0 or int(v.max()) >= dict_size):
        bad = int(v.min()) if int(v.min()) < 0 else int(v.max())
        raise ValueError(f"dictionary index {bad} is outside a dictionary of {dict_size} entries")
    return bytes([width]) + encode_rle_hybrid(v, width)


def encode_dictionary_index_pages(indices: Any, bounds: Any, dict_size: int) -> list[bytes]:
    """Encode many data pages of dictionary indices at once (one column chunk's).

    Page ``p`` holds ``indices[bounds[p]:bounds[p + 1]]`` and is encoded as
    ``encode_dictionary_indices(page, page.max() + 1)`` (an empty page: with
    ``dict_size``) -- each page's bit width sized by its own largest index --
    and the result is the same bytes, page for page.  The runs of every page
    are found, chosen and laid out together, so the numpy calls are paid once
    per chunk rather than once per page (a chunk of 300,000 low-cardinality
    values in 15 pages: several times faster).  Each page is still its own
    stream: the run choice restarts at every page boundary, runs never cross
    one, and a page whose runs would not beat plain bit-packing is bit-packed
    whole, as the one-page encoder decides.
    """
    v = np.asarray(indices).reshape(-1)
    b = np.asarray(bounds, dtype=np.int64).reshape(-1)
    npages = b.size - 1
    if npages < 0 or (npages and (b[0] != 0 or b[-1] != v.size or np.any(np.diff(b) < 0))):
        raise ValueError("encode_dictionary_index_pages: bounds must run from 0 to len(indices)")
    if npages == 0:
        return []
    if v.size and v.dtype.kind not in "iu":
        raise TypeError(f"dictionary indices must be integers, not {v.dtype}")
    counts = np.diff(b)
    sizes = np.full(npages, dict_size, dtype=np.int64)
    full = np.flatnonzero(counts > 0)
    if full.size:
        # every page's largest index, also the range check: seen unsigned, a negative
        # index is above every dictionary size its dtype can index (one pass, not three)
        u = v.view(v.dtype.str.replace("i", "u")) if dict_size <= np.iinfo(v.dtype).max + 1 else v
        tops = np.maximum.reduceat(u, b[full])
        if int(tops.max()) >= dict_size or (u is v and int(v.min()) < 0):
            lo, hi = int(v.min()), int(v.max())
            bad = lo if lo < 0 else hi
            raise ValueError(f"dictionary index {bad} is outside a dictionary of {dict_size} entries")
        sizes[full] = tops.astype(np.int64) + 1
    widths = np.array([dictionary_index_bit_width(int(x)) for x in sizes.tolist()], dtype=np.int64)
    bodies = _hybrid_pages(v, b, widths)
    return [bytes([int(w)]) + body for w, body in zip(widths.tolist(), bodies)]


def encode_level_pages(levels: Any, bounds: Any, max_level: int, *, length_prefix: bool) -> list[bytes]:
    """Encode the levels of many data pages at once (one column chunk's).

    Page ``p`` holds ``levels[bounds[p]:bounds[p + 1]]``; the result is, page
    for page, what :func:`encode_levels_v1` (``length_prefix``) or
    :func:`encode_levels_v2` gives for it, with the runs of every page found
    and laid out together (see :func:`encode_dictionary_index_pages`).
    """
    v, width = _level_width(levels, max_level)
    b = np.asarray(bounds, dtype=np.int64).reshape(-1)
    npages = b.size - 1
    if npages < 0 or (npages and (b[0] != 0 or b[-1] != v.size or np.any(np.diff(b) < 0))):
        raise ValueError("encode_level_pages: bounds must run from 0 to len(levels)")
    if npages <= 0:
        return []
    if max_level == 0:
        return [b""] * npages
    if v.size and int(v.min()) < 0:
        raise ValueError(f"RLE/bit-packed hybrid: value {int(v.min())} does not fit in {width} bits")
    bodies = _hybrid_pages(v, b, np.full(npages, width, dtype=np.int64))
    if not length_prefix:
        return bodies
    return [struct.pack("<I", len(body)) + body for body in bodies]


def _hybrid_pages(v: npt.NDArray[Any], b: npt.NDArray[np.int64], widths: npt.NDArray[np.int64]) -> list[bytes]:
    """The hybrid runs of every page ``v[b[p]:b[p + 1]]`` at ``widths[p]`` (1..32 bits,
    values checked by the caller): the bytes :func:`encode_rle_hybrid` gives per page."""
    if v.dtype == np.bool_:
        v = v.view(np.uint8)
    # the narrowest unsigned type that holds every page's values (they fit their widths):
    # the passes below (comparisons, gathering the literals, packing) then move a
    # quarter of the bytes of int32 dictionary indices
    wmax = int(widths.max()) if widths.size else 0
    narrow = np.uint8 if wmax <= 8 else np.uint16 if wmax <= 16 else np.uint32
    if v.dtype.itemsize > np.dtype(narrow).itemsize:
        v = v.astype(narrow)
    minrep = np.array([default_min_repeat(int(x)) for x in widths.tolist()], dtype=np.int64)
    shortest = int(minrep.min())
    c_start, c_len = _long_runs(v, b, shortest)
    c_page = np.searchsorted(b, c_start, side="right") - 1
    if int(minrep.max()) > int(minrep.min()):
        mine = c_len >= minrep[c_page]
        c_start, c_len, c_page = c_start[mine], c_len[mine], c_page[mine]
    keep = np.zeros(c_start.size, dtype=np.bool_)
    pad = np.zeros(c_start.size, dtype=np.int64)
    if c_start.size:
        keep, pad = _choose_runs_paged(c_start - b[c_page], c_len, minrep[c_page], c_page)
    out = None
    for _ in range(2):
        r_start = c_start[keep] + pad[keep]
        r_end = c_start[keep] + c_len[keep]
        r_page = c_page[keep]
        out = _layout_pages(v, b, widths, r_start, r_end, r_page)
        worse = out[1]
        if not worse.any():
            break
        keep &= ~worse[c_page]       # those pages are bit-packed whole
    # pages without runs are never "worse", so the second layout has none
    assert out is not None and not out[1].any()
    data, page_bytes = out[0], out[2]
    ends = np.cumsum(page_bytes)
    pieces = []
    at = 0
    for end in ends.tolist():
        pieces.append(data[at:end].tobytes())
        at = end
    return pieces


def _long_runs(v: npt.NDArray[Any], b: npt.NDArray[np.int64], shortest: int
               ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Start and length of every run of at least *shortest* (>= 2) equal values,
    runs cut at the page bounds *b*.

    Only those runs can become RLE runs, and a column of low-cardinality
    values changes value every few rows, so listing every change (hundreds
    of thousands of positions) costs far more than the few long runs.
    ``eq[i]`` says value ``i + 1`` repeats value ``i`` (false across a page
    bound); and-ing it with itself shifted by 1, 2, 4, ... positions gives
    ``a[i]``: the ``shortest - 1`` comparisons from ``i`` on all hold, i.e.
    ``v[i:i + shortest]`` are equal.  A stretch of true ``a[s:e]`` is then
    the run ``v[s:e + shortest - 1]``, and only the edges of those stretches
    are listed.
    """
    n = v.size
    k = shortest - 1
    if n < shortest:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    eq = v[1:] == v[:-1]
    inner = b[(b > 0) & (b < n)]
    eq[inner - 1] = False
    a, span = eq, 1
    while 2 * span <= k:
        a = a[:-span] & a[span:]
        span *= 2
    if span < k:
        a = a[:span - k] & a[k - span:]
    edges = np.zeros(a.size + 1, dtype=np.bool_)
    edges[1:-1] = a[1:] != a[:-1]
    edges[0], edges[-1] = a[0], a[-1]
    at = np.flatnonzero(edges)
    starts = at[0::2]
    return starts, at[1::2] - starts + k


def _choose_runs_paged(c_start: npt.NDArray[np.int64], c_len: npt.NDArray[np.int64],
                       minrep: npt.NDArray[np.int64], c_page: npt.NDArray[np.int64]
                       ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """:func:`_choose_runs` over candidates of many pages (``c_start`` relative to
    each page's start, ``minrep`` per candidate): the state is reset at the first
    candidate of every page, whose transition is the constant ``start & 7``."""
    k = c_start.size
    padtab = (8 - _STATES) & 7
    choose = (c_len[:, None] - padtab[None, :]) >= minrep[:, None]
    s0 = int(c_start[0]) & 7
    states = np.empty(k, dtype=np.int64)
    states[0] = s0
    if k > 1:
        step = (np.diff(c_start) & 7).astype(np.uint8)
        gap = ((c_start[1:] - c_start[:-1] - c_len[:-1]) & 7).astype(np.uint8)
        prefix = np.where(choose[:-1], gap[:, None],
                          (_STATES8[None, :] + step[:, None]) & np.uint8(7)).astype(np.uint8)
        newpage = np.flatnonzero(c_page[1:] != c_page[:-1])
        if newpage.size:
            prefix[newpage] = (c_start[newpage + 1] & 7).astype(np.uint8)[:, None]
        _compose_prefix(prefix)
        states[1:] = prefix[:, s0]
    keep = choose[np.arange(k), states]
    return keep, padtab[states]


def _layout_pages(v: npt.NDArray[Any], b: npt.NDArray[np.int64], widths: npt.NDArray[Any],
                  r_start: npt.NDArray[np.int64], r_end: npt.NDArray[np.int64],
                  r_page: npt.NDArray[np.int64]
                  ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Lay out every page's literal segments and RLE runs; also say which pages
    would be no larger bit-packed whole, and every page's byte count."""
    npages = b.size - 1
    m = r_start.size
    if m == 0:
        return _packed_pages(v, b, widths)
    runs_in = np.bincount(r_page, minlength=npages) if m else np.zeros(npages, dtype=np.int64)
    first_run = np.concatenate(([0], np.cumsum(runs_in)))        # of each page
    nseg = 2 * runs_in + 1
    seg_base = np.concatenate(([0], np.cumsum(nseg)))
    total_seg = int(seg_base[-1])
    seg_vals = np.zeros(total_seg, dtype=np.int64)
    seg_lit = np.ones(total_seg, dtype=np.bool_)
    seg_page = np.repeat(np.arange(npages), nseg)
    run_seg = np.zeros(m, dtype=np.int64)
    if m:
        local = np.arange(m) - first_run[r_page]
        prev_end = np.where(local > 0, np.concatenate(([0], r_end[:-1])), b[r_page])
        run_seg = seg_base[r_page] + 2 * local + 1
        seg_vals[run_seg - 1] = r_start - prev_end
        seg_vals[run_seg] = r_end - r_start
        seg_lit[run_seg] = False
    last_end = b[:-1].copy()
    has = runs_in > 0
    last_end[has] = r_end[first_run[1:][has] - 1]
    seg_vals[seg_base[1:] - 1] = b[1:] - last_end                 # the tails
    wseg = widths[seg_page].astype(np.int64)
    vbytes = (wseg + 7) >> 3
    groups = (seg_vals + 7) >> 3
    header = np.where(seg_lit, (groups << 1) | 1, seg_vals << 1)
    hbytes, hlen = uleb128_matrix(header)
    present = seg_vals > 0
    body_len = np.where(seg_lit, groups * wseg, 0) * present
    head_len = (hlen + np.where(seg_lit, 0, vbytes)) * present
    page_bytes = np.bincount(seg_page, weights=head_len + body_len, minlength=npages).astype(np.int64)
    counts = np.diff(b)
    pgroups = (counts + 7) >> 3
    packed_only = np.array([len(write_uleb128(g << 1 | 1)) for g in pgroups.tolist()]) + pgroups * widths
    worse = (page_bytes >= packed_only) & has
    if worse.any():
        return np.zeros(0, dtype=np.uint8), worse, page_bytes
    # heads: the varint, then (RLE runs) the value in vbytes LE bytes
    hb = hbytes.shape[1]
    heads_matrix = np.empty((total_seg, hb + 4), dtype=np.uint8)
    heads_matrix[:, :hb] = hbytes
    if m:
        # a run's value bytes go right after its varint (bytes past its vbytes, and
        # anything past a literal's varint, lie beyond the head's length: cut below)
        value = v[r_start].astype("<u4").view(np.uint8).reshape(m, 4)
        at = hlen[run_seg]
        for j in range(int(vbytes[run_seg].max())):
            heads_matrix[run_seg, at + j] = value[:, j]
    heads = row_prefixes(heads_matrix, head_len)       # absent segments have length 0
    # literal values: everything outside the runs (the segments tile the pages in
    # order); every literal segment but a page's last is whole groups, so packing each
    # segment zero-padded is packing each page's literals zero-padded at its end
    if v.dtype.itemsize <= 2:
        lit_seg = np.flatnonzero(seg_lit & present)
        seg_at = np.cumsum(seg_vals) - seg_vals
        bodies = pack_segments(v, seg_at[lit_seg], seg_vals[lit_seg], wseg[lit_seg])
    else:
        lit = v[np.repeat(seg_lit, seg_vals)]
        lit_count = np.bincount(seg_page[seg_lit], weights=seg_vals[seg_lit], minlength=npages).astype(np.int64)
        bodies = _pack_pages(lit, lit_count, widths)
    out = interleave(heads, head_len[present], bodies, body_len[present])
    return out, worse, page_bytes


def _packed_pages(v: npt.NDArray[Any], b: npt.NDArray[np.int64], widths: npt.NDArray[Any]
                  ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Every page one bit-packed run (no RLE runs chosen anywhere): as :func:`_layout_pages`."""
    parts = [np.frombuffer(_bit_packed_only(v[lo:hi], int(w)), dtype=np.uint8) if hi > lo
             else np.zeros(0, dtype=np.uint8)
             for lo, hi, w in zip(b[:-1].tolist(), b[1:].tolist(), widths.tolist())]
    sizes = np.array([p.size for p in parts], dtype=np.int64)
    return np.concatenate(parts), np.zeros(b.size - 1, dtype=np.bool_), sizes


def _pack_pages(lit: npt.NDArray[Any], counts: npt.NDArray[np.int64],
                widths: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """Bit-pack each page's literal values (``counts[p]`` of *lit* in turn, zero-padded
    to whole 8-value groups) at its width, back to back.

    A page's padded values pack to whole bytes on their own, so consecutive
    pages of one width are packed by one call: the same bytes as page by
    page, with the packer's fixed cost paid once per width instead.
    """
    padded = (counts + 7) & ~7
    total = int(padded.sum())
    if total == 0:
        return np.zeros(0, dtype=np.uint8)
    if total == lit.size:
        flat = lit
    else:
        flat = np.zeros(total, dtype=lit.dtype)
        at = to = 0
        for c, pc_ in zip(counts.tolist(), padded.tolist()):
            flat[to:to + c] = lit[at:at + c]
            at += c
            to += pc_
    used = np.flatnonzero(padded)
    pstart = np.cumsum(padded) - padded
    w_used = widths[used]
    cuts = np.concatenate(([0], np.flatnonzero(w_used[1:] != w_used[:-1]) + 1, [used.size]))
    parts = []
    for g0, g1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        lo = int(pstart[used[g0]])
        hi = int(pstart[used[g1 - 1]] + padded[used[g1 - 1]])
        parts.append(pack_bits(flat[lo:hi], int(w_used[g0]), validate=False))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)
