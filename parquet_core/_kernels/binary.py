"""Variable-length binary values as one flat buffer plus offsets.

A column of BYTE_ARRAY values is never a list of Python ``bytes`` inside the
engine; it is a :class:`ByteArrays`: ``data`` holds every value back to back
and value ``i`` is ``data[offsets[i]:offsets[i + 1]]``.  ``offsets`` has one
more entry than there are values and starts at 0 for a freshly built
instance (views produced by :meth:`ByteArrays.slice` may start elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["ByteArrays"]


@dataclass(frozen=True, slots=True)
class ByteArrays:
    """Variable-length byte strings: ``offsets`` (int64, n + 1) over ``data`` (uint8)."""

    offsets: npt.NDArray[np.int64]
    data: npt.NDArray[np.uint8]

    @classmethod
    def from_pylist(cls, values: list[bytes]) -> "ByteArrays":
        """Build from a list of ``bytes`` (test and edge helper, not a hot path)."""
        lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
        offsets = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        data = np.frombuffer(b"".join(values), dtype=np.uint8)
        return cls(offsets, data)

    @classmethod
    def empty(cls) -> "ByteArrays":
        """Return an instance with no values."""
        return cls(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def lengths(self) -> npt.NDArray[np.int64]:
        """Return the byte length of every value."""
        return np.diff(self.offsets)

    def take(self, indices: npt.NDArray[np.integer]) -> "ByteArrays":
        """Gather values by position (used to expand a dictionary).

        Vectorised: each output byte's source position is its value's start
        plus its rank inside the value, computed with ``repeat`` and ``cumsum``.
        """
        indices = np.asarray(indices, dtype=np.int64)
        starts = self.offsets[:-1][indices]
        lens = self.offsets[1:][indices] - starts
        out_offsets = np.zeros(len(indices) + 1, dtype=np.int64)
        np.cumsum(lens, out=out_offsets[1:])
        total = int(out_offsets[-1])
        if total == 0:
            return ByteArrays(out_offsets, np.zeros(0, dtype=np.uint8))
        # source index of byte k of the output = starts[v] + (k - out_offsets[v])
        shift = np.repeat(starts - out_offsets[:-1], lens)
        src = np.arange(total, dtype=np.int64) + shift
        return ByteArrays(out_offsets, self.data[src])

    def slice(self, start: int, stop: int) -> "ByteArrays":
        """Return values ``start:stop`` re-based so offsets start at 0 (copies offsets only)."""
        offs = self.offsets[start : stop + 1]
        base = int(offs[0]) if len(offs) else 0
        end = int(offs[-1]) if len(offs) else 0
        return ByteArrays(offs - base, self.data[base:end])

    @staticmethod
    def concat(parts: "list[ByteArrays]") -> "ByteArrays":
        """Concatenate several instances into one."""
        if not parts:
            return ByteArrays.empty()
        if len(parts) == 1:
            return parts[0]
        n = sum(len(p) for p in parts)
        offsets = np.empty(n + 1, dtype=np.int64)
        offsets[0] = 0
        datas = []
        pos = 0
        base = 0
        for p in parts:
            k = len(p)
            lo = int(p.offsets[0])
            hi = int(p.offsets[-1])
            offsets[pos + 1 : pos + k + 1] = p.offsets[1:] - lo + base
            datas.append(p.data[lo:hi])
            base += hi - lo
            pos += k
        return ByteArrays(offsets, np.concatenate(datas) if datas else np.zeros(0, np.uint8))

    def to_pylist(self) -> list[bytes]:
        """Return the values as Python ``bytes`` (edge conversion)."""
        buf = self.data.tobytes()
        o = self.offsets.tolist()
        base = o[0] if o else 0
        return [buf[o[i] - base : o[i + 1] - base] for i in range(len(o) - 1)]
