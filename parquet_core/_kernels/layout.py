"""Lay out many variable-length byte pieces in one output buffer, without a loop.

Encoders produce their output as alternating *heads* and *bodies*: a run
header and its packed values, a block header and its miniblocks, a 4-byte
length and a string.  The heads of all pieces sit back to back in one
buffer, the bodies in another; :func:`interleave` merges them::

    heads   [h0 h0][h1][h2 h2 h2]          head_lens = 2 1 3
    bodies  [b0 b0 b0][][b2]               body_lens = 3 0 1
    output  [h0 h0 b0 b0 b0 h1 h2 h2 h2 b2]

The head bytes (usually the small stream) are scattered to their output
positions, and the bodies, which appear in the output in their own order,
fill every other byte through one boolean mask.  When there are only a
few pieces, slicing and ``bytes.join`` is cheaper.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["interleave", "row_prefixes"]

#: Below this many pieces, join slices instead of building a byte mask.
_JOIN_MAX_PIECES = 32


def row_prefixes(matrix: npt.NDArray[Any], lengths: npt.NDArray[np.integer]) -> npt.NDArray[Any]:
    """Concatenate the first ``lengths[i]`` entries of every row ``i`` of a 2-D array."""
    cols = np.arange(matrix.shape[1])
    return matrix[cols[None, :] < np.asarray(lengths)[:, None]]


def interleave(heads: npt.NDArray[np.uint8], head_lens: npt.NDArray[np.integer],
               bodies: npt.NDArray[np.uint8],
               body_lens: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
    """Return ``h0 b0 h1 b1 ...`` where ``h_i`` / ``b_i`` are consecutive slices.

    Parameters
    ----------
    heads, bodies:
        Flat uint8 arrays holding every head (body) back to back; their sizes
        must equal ``head_lens.sum()`` and ``body_lens.sum()``.
    head_lens, body_lens:
        Byte length of each piece's head and body (zero allowed).

    Notes
    -----
    The head bytes are scattered to their positions (computed per head
    byte, or per head when all heads have the same short length) and
    cleared in an "is a body byte" mask; the bodies then go in with one
    masked assignment, the only pass over the whole output.
    """
    head_lens = np.asarray(head_lens, dtype=np.int64)
    body_lens = np.asarray(body_lens, dtype=np.int64)
    k = head_lens.size
    n_head, n_body = int(head_lens.sum()), int(body_lens.sum())
    if heads.size != n_head or bodies.size != n_body:
        raise ValueError("interleave: piece lengths do not match the buffers")
    if k <= _JOIN_MAX_PIECES:
        return _join(heads, head_lens, bodies, body_lens)
    piece = head_lens + body_lens
    start = np.empty(k, dtype=np.int64)
    start[0] = 0
    np.cumsum(piece[:-1], out=start[1:])
    out = np.empty(n_head + n_body, dtype=np.uint8)
    is_body = np.ones(out.size, dtype=np.bool_)
    h = int(head_lens[0])
    # (the sum alone does not say that every head has h bytes: 1 + 3 == 2 + 2)
    same = n_head == h * k and bool(np.all(head_lens == h))
    if h in (4, 8) and same and out.size >= h:
        # every head is one u32/u64 word: one unaligned word scatter
        words = np.ndarray((out.size - h + 1,), dtype=f"V{h}", buffer=out, strides=(1,))
        words[start] = heads.view(f"V{h}")
        for j in range(h):
            is_body[start + j] = False
    elif h <= 8 and same:
        # every head has h bytes: h strided scatters of k bytes each
        rows = heads.reshape(k, h)
        for j in range(h):
            out[start + j] = rows[:, j]
            is_body[start + j] = False
    else:
        head_start = np.cumsum(head_lens) - head_lens
        pos = np.arange(n_head, dtype=np.int64) + np.repeat(start - head_start, head_lens)
        out[pos] = heads
        is_body[pos] = False
    out[is_body] = bodies
    return out


def _join(heads: npt.NDArray[np.uint8], head_lens: npt.NDArray[np.integer],
          bodies: npt.NDArray[np.uint8], body_lens: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
    # A few pieces (a loop over pieces, not values): slices and one join.
    hb = heads.tobytes()
    bb = np.ascontiguousarray(bodies).data
    parts: list[Any] = []
    h = b = 0
    for hl, bl in zip(head_lens.tolist(), body_lens.tolist()):
        parts.append(hb[h:h + hl])
        parts.append(bb[b:b + bl])
        h += hl
        b += bl
    return np.frombuffer(b"".join(parts), dtype=np.uint8)
