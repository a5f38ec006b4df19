"""Variable-length binary values as one flat buffer plus offsets.

A column of BYTE_ARRAY values is never a list of Python ``bytes`` inside the
engine; it is a :class:`ByteArrays`: ``data`` holds every value back to back
and value ``i`` is ``data[offsets[i]:offsets[i + 1]]``.  ``offsets`` has one
more entry than there are values and starts at 0 for a freshly built
instance (views produced by :meth:`ByteArrays.slice` may start elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.runs import (
    GATHER_SPILL,
    gather_runs,
    short_windows_in_order,
    wide_windows_in_order,
    window_view,
)

#: Row widths of the padded dictionary table (:meth:`ByteArrays._take_rows`), bytes.
_ROW_WIDTHS = (16, 24, 32, 48, 64)
#: The padded rows pay off when each row is used this many times on average (measured:
#: 30k rows for 300k values 3.4 vs 4.5 ms; 30k rows for 57k values 2.6 vs 1.0 ms).
_ROW_REUSE = 8

__all__ = ["ByteArrays", "BytesPlan"]

@dataclass(frozen=True, slots=True)
class ByteArrays:
    """Variable-length byte strings: ``offsets`` (int64, n + 1) over ``data`` (uint8)."""

    offsets: npt.NDArray[np.int64]
    data: npt.NDArray[np.uint8]

    @classmethod
    def from_pylist(cls, values: list[bytes]) -> ByteArrays:
        """Build from a list of ``bytes`` (test and edge helper, not a hot path)."""
        lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
        offsets = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        data = np.frombuffer(b"".join(values), dtype=np.uint8)
        return cls(offsets, data)

    @classmethod
    def empty(cls) -> ByteArrays:
        """Return an instance with no values."""
        return cls(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def lengths(self) -> npt.NDArray[np.int64]:
        """Return the byte length of every value."""
        return np.diff(self.offsets)

    def take(self, indices: npt.NDArray[np.integer]) -> ByteArrays:
        """Gather values by position (used to expand a dictionary).

        Indices must be in range (callers check them; numpy raises
        IndexError otherwise).  Three vectorised strategies:

        * every value has the same length: gather rows of an ``(n, length)``
          view, no per-byte work at all;
        * no value longer than 8 bytes: one 8-byte word per value
          (:meth:`_take_short`);
        * otherwise one overlapping-window copy per output value
          (:func:`parquet_core._kernels.runs.gather_runs`): each value is
          copied as a fixed-width window from its dictionary start, and the
          next value overwrites the window's spill.  A small dictionary is
          copied into a padded buffer first so no window reads past its end.
        """
        indices = np.asarray(indices)
        lens_src = np.diff(self.offsets)
        base = int(self.offsets[0])
        k = len(self)
        n = len(indices)
        if k and n and int(lens_src.min()) == int(lens_src.max()):
            # every value has one length: the offsets count up by it (no per-value
            # lengths), and the values are whole rows of an (n, length) view
            size = int(lens_src[0])
            if size == 0:
                return ByteArrays(np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.uint8))
            rows = self.data[base:int(self.offsets[-1])].reshape(k, size)
            if indices.dtype == np.uint8 and size == 1 and bool((indices < k).all()):
                # one byte per value from byte codes: a translation table (C, no index array)
                table = bytes(rows.reshape(-1)) + bytes(256 - k)
                data = np.frombuffer(indices.tobytes().translate(table), dtype=np.uint8)
            else:
                # np.take on axis 0 copies whole rows; much faster than fancy indexing
                data = np.take(rows, indices, axis=0).reshape(-1)
            return ByteArrays(np.arange(0, (n + 1) * size, size, dtype=np.int64), data)
        lens = np.take(lens_src, indices)
        out_offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lens, out=out_offsets[1:])
        return ByteArrays(out_offsets, self._take_into(indices, lens_src, lens, out_offsets, None))

    def take_plan(self, indices: npt.NDArray[np.integer]) -> BytesPlan:
        """:meth:`take` located but not copied: the values' offsets now, their bytes
        when the plan is filled (into a buffer shared with other parts, see
        :meth:`BytesPlan.join`).  Indices out of range raise IndexError here."""
        indices = np.asarray(indices)
        lens_src = np.diff(self.offsets)
        lens = np.take(lens_src, indices)
        out_offsets = np.zeros(len(indices) + 1, dtype=np.int64)
        np.cumsum(lens, out=out_offsets[1:])

        def fill(out: npt.NDArray[np.uint8] | None, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
            return self._take_into(indices, lens_src, lens, offsets, out)
        return BytesPlan(out_offsets, fill)

    def _take_into(self, indices: npt.NDArray[np.integer], lens_src: npt.NDArray[np.int64],
                   lens: npt.NDArray[np.int64], out_offsets: npt.NDArray[np.int64],
                   out: npt.NDArray[np.uint8] | None) -> npt.NDArray[np.uint8]:
        """The bytes of :meth:`take` (indices checked by the caller's ``np.take`` of the
        lengths): a new array, or written to ``out[out_offsets[0]:out_offsets[-1]]``
        (spilling at most :data:`GATHER_SPILL` bytes past it)."""
        at = int(out_offsets[0])
        total = int(out_offsets[-1]) - at
        if total == 0:
            return np.zeros(0, dtype=np.uint8) if out is None else out[at:at]
        base = int(self.offsets[0])
        k = len(self)
        max_len = int(lens_src.max())
        if k and int(lens_src.min()) == max_len:
            rows = self.data[base:int(self.offsets[-1])].reshape(k, max_len)
            # np.take on axis 0 copies whole rows; much faster than fancy indexing
            if out is None:
                return np.take(rows, indices, axis=0).reshape(-1)
            # (the indices are in range: the lengths were taken with them; "wrap" reads a
            # negative index as np.take's default does, without buffering the output)
            np.take(rows, indices, axis=0, mode="wrap",
                    out=out[at:at + total].reshape(len(indices), max_len))
            return out[at:at + total]
        if max_len <= 8 and k <= len(indices) and short_windows_in_order():
            return self._take_short(indices, lens_src, out_offsets, total, out=out)
        if max_len <= _ROW_WIDTHS[-1] and _ROW_REUSE * k <= len(indices):
            width = next(w for w in _ROW_WIDTHS if w >= max_len)
            if wide_windows_in_order(width):
                return self._take_rows(indices, lens_src, out_offsets, total, width, out=out)
        starts = np.take(self.offsets[:-1], indices)
        return gather_runs(self.data, starts, lens, out_offsets, out)

    def _take_short(self, indices: npt.NDArray[np.integer], lens: npt.NDArray[np.int64],
                    out_offsets: npt.NDArray[np.int64], total: int,
                    out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.uint8]:
        """``take`` when no value is longer than 8 bytes (short strings, codes, most
        dictionaries of a low-cardinality column).

        The dictionary becomes one zero-padded 8-byte word per value; the words are
        gathered with an aligned ``uint64`` take, then stored at their output offsets
        through an unaligned ``uint64`` view of the output, in index order, so each
        word's padding is overwritten by the values after it (the window rule of
        :mod:`parquet_core._kernels.runs`).  Measured about twice as fast as the
        general window copy on such values (``benchmarks/bench_kernels``)."""
        k = len(lens)
        base = int(self.offsets[0])
        nbytes = int(self.offsets[-1]) - base
        table = np.zeros(k * 8 + 8, dtype=np.uint8)
        if nbytes:
            rel = self.offsets[:-1] - base
            # byte j of value i goes to 8 * i + j: its data position plus (8 * i - start of i)
            table[np.repeat(np.arange(k, dtype=np.int64) * 8 - rel, lens) + np.arange(nbytes)] = \
                self.data[base:base + nbytes]
        words = np.take(table[:k * 8].view(np.uint64), indices)
        if out is None:
            out = np.empty(total + 8, dtype=np.uint8)
        window_view(out, 8, np.uint64)[out_offsets[:-1]] = words
        at = int(out_offsets[0])
        return out[at:at + total]

    def _take_rows(self, indices: npt.NDArray[np.integer], lens: npt.NDArray[np.int64],
                   out_offsets: npt.NDArray[np.int64], total: int, width: int,
                   out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.uint8]:
        """``take`` when no value is longer than ``width`` bytes (up to 64): the
        :meth:`_take_short` scheme with ``width``-byte rows.

        Each dictionary value becomes one ``width``-byte row of a table (the
        window at its start: one strided gather of ``k`` windows); the rows are
        gathered as contiguous void elements (a plain take, no strided window
        reads per output value) and stored at the output offsets through a
        one-byte-stride void view, in index order, so each row's padding is
        overwritten by the values after it.  Measured 2.5x cheaper than the
        general window copy on a 4-value dictionary of 4-17 byte strings
        (300k values: 3.0 vs 7.7 ms); the table costs ``k * width`` bytes, at
        most ``width / 8`` per output value (callers check ``8 * k <= len(indices)``)."""
        base = int(self.offsets[0])
        nbytes = int(self.offsets[-1]) - base
        # the table's rows are the width-byte windows at the value starts of a padded
        # copy of the data: a row's bytes past its value (the next values, or the
        # zero pad) are overwritten in the output like any spill, or lie past total
        padded = np.zeros(nbytes + width, dtype=np.uint8)
        padded[:nbytes] = self.data[base:base + nbytes]
        table = window_view(padded, width)[self.offsets[:-1] - base]
        rows = np.take(table, indices)
        if out is None:
            out = np.empty(total + width, dtype=np.uint8)
        window_view(out, width)[out_offsets[:-1]] = rows
        at = int(out_offsets[0])
        return out[at:at + total]

    def slice(self, start: int, stop: int) -> ByteArrays:
        """Return values ``start:stop`` re-based so offsets start at 0 (copies offsets only)."""
        offs = self.offsets[start : stop + 1]
        base = int(offs[0]) if len(offs) else 0
        end = int(offs[-1]) if len(offs) else 0
        return ByteArrays(offs - base, self.data[base:end])

    @staticmethod
    def concat(parts: list[ByteArrays]) -> ByteArrays:
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

    def as_plan(self) -> BytesPlan:
        """These values as a :class:`BytesPlan` (filling copies the bytes)."""
        lo = int(self.offsets[0])
        hi = int(self.offsets[-1])
        data = self.data

        def fill(out: npt.NDArray[np.uint8] | None, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
            if out is None:
                return data[lo:hi]
            at = int(offsets[0])
            out[at:at + hi - lo] = data[lo:hi]
            return out[at:at + hi - lo]
        return BytesPlan(self.offsets - lo if lo else self.offsets, fill)

    def to_pylist(self) -> list[bytes]:
        """Return the values as Python ``bytes`` (edge conversion).

        Offsets index ``data`` directly (as in :meth:`take`), so a view whose
        offsets start past 0 reads from its own first offset, not ``data[0]``.
        """
        o = self.offsets.tolist()
        if len(o) < 2:
            return []
        base = o[0]
        buf = self.data[base:o[-1]].tobytes()
        return [buf[o[i] - base : o[i + 1] - base] for i in range(len(o) - 1)]


#: ``fill(out, offsets)`` of a :class:`BytesPlan`.
Fill = Callable[[npt.NDArray[np.uint8] | None, npt.NDArray[np.int64]], npt.NDArray[np.uint8]]


@dataclass(frozen=True, slots=True)
class BytesPlan:
    """Byte arrays whose places are known (``offsets``, n + 1 from 0) and whose bytes
    are copied later by ``fill``: to a new array (``fill(None, offsets)``), or into
    ``out[offs[0]:offs[-1]]`` of a buffer shared with other parts (``offs`` the
    part's offsets in it, ``out`` with :data:`GATHER_SPILL` bytes of room after the
    last part: a fill may spill that far past its part, and the next part, written
    after it, overwrites the spill).  A column whose dictionary-encoded pages are
    followed by PLAIN pages decodes both straight into one output
    (:meth:`join`) instead of decoding each and joining the copies."""

    offsets: npt.NDArray[np.int64]
    fill: Fill

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def nbytes(self) -> int:
        return int(self.offsets[-1])

    def values(self) -> ByteArrays:
        """The values on their own."""
        return ByteArrays(self.offsets, self.fill(None, self.offsets))

    @staticmethod
    def join(plans: Sequence[BytesPlan]) -> ByteArrays:
        """The values of every plan, in order, in one :class:`ByteArrays` (one data
        buffer, filled part after part)."""
        if len(plans) == 1:
            return plans[0].values()
        n = sum(len(p) for p in plans)
        total = sum(p.nbytes for p in plans)
        offsets = np.empty(n + 1, dtype=np.int64)
        offsets[0] = 0
        data = np.empty(total + GATHER_SPILL, dtype=np.uint8)
        pos = base = 0
        for p in plans:
            k = len(p)
            part = offsets[pos:pos + k + 1]      # part[0] is the previous part's end
            np.add(p.offsets[1:], base, out=part[1:])
            p.fill(data, part)
            pos += k
            base += p.nbytes
        return ByteArrays(offsets, data[:total])
