"""One allocation for the decoded values of several columns of a read.

A column's values are a new array that outlives the read (the table holds it),
so its memory is fresh: mapped and zeroed page by page by the kernel as the
decoder first writes it.  For the low-cardinality columns of a taxi-like table
that costs about as much as the decoding itself (~1 ms for 2.4 MB of 8-byte
values in 4 KiB pages), and the heap gives every read fresh pages again, since
the freed outputs of the previous read are returned to the system.  Reading
with glibc told to keep its freed pages measured the whole table 42 -> 34 ms,
but a library cannot set that for its host process.

So a read of fixed-width columns that will each decode a whole array of
known length (flat, no nulls by the chunk statistics, dictionary-encoded) asks
for one :class:`OutputArena` holding all of them; each column's values are a
view of its own slice.  One allocation of at least 4 MiB: numpy asks the
kernel for transparent huge pages from that size (``madvise``; the setting is
``/sys/kernel/mm/transparent_hugepage/enabled``), and glibc maps it apart from
the heap, so the read's temporaries keep reusing warm heap pages.

Memory stays that of the columns: the arena is sized when the first column
asks for its slice, from that column's real length (values actually decoded,
not a count in the metadata) times the columns planned for it, so damaged
metadata cannot make it larger than those columns' decoded values.  Every
slice is a column of the same read, so the arena lives as long as the
table's columns do.  A planned column that does not take its slice (the
statistics said no nulls and there were some, a dictionary gave way to PLAIN
pages) leaves that slice unused for the arena's life; no wrong value can
come of it, since a column takes a slice only of exactly its own length.

The arena is handed to the decoding of one leaf through :func:`serving`
(a thread-local, as each leaf decodes on one thread); the decoder asks
:func:`output_array` and gets a view or None (then it allocates as usual).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["ARENA_COLUMN_MIN_BYTES", "ARENA_MIN_BYTES", "OutputArena", "output_array", "output_rows", "served",
           "serving"]

#: Reads whose planned columns hold fewer bytes than this allocate per column: numpy asks
#: for huge pages from 4 MiB, and below it the fresh pages cost little.
ARENA_MIN_BYTES = 4 << 20

#: ... and only columns of at least this many bytes take part (the gain was measured on
#: columns of 1.2 and 2.4 MB; a wide table's 160 kB columns read no faster from an arena).
ARENA_COLUMN_MIN_BYTES = 1 << 20

#: Each slice starts on a 64-byte boundary (a cache line; numpy's own alignment is 16).
_ALIGN = 64


class OutputArena:
    """The values of *columns* columns of *rows* values each (*itemsizes*: their bytes per
    value), allocated together when the first of them asks (:meth:`take`)."""

    __slots__ = ("rows", "itemsizes", "_buf", "_addr", "_free", "_lock")

    def __init__(self, rows: int, itemsizes: list[int]) -> None:
        self.rows = rows
        self.itemsizes = itemsizes
        self._buf: npt.NDArray[np.uint8] | None = None
        self._addr = 0
        self._free = 0
        self._lock = threading.Lock()

    def take(self, n: int, dtype: np.dtype[Any]) -> npt.NDArray[Any] | None:
        """A slice for *n* values of *dtype* (uninitialised), or None when *n* is not the
        planned length or the arena has no room left."""
        if n != self.rows or n <= 0:
            return None
        nbytes = n * dtype.itemsize
        with self._lock:
            buf = self._buf
            if buf is None:
                # n values were decoded for real: the arena is bounded by the planned
                # columns' true size, whatever the metadata claims
                total = sum(n * size + _ALIGN for size in self.itemsizes)
                buf = self._buf = np.empty(total, dtype=np.uint8)
                self._addr = buf.ctypes.data
            addr = self._addr
            start = -(-(addr + self._free) // _ALIGN) * _ALIGN - addr
            if start + nbytes > buf.size:
                return None
            self._free = start + nbytes
        return buf[start:start + nbytes].view(dtype)


_LOCAL = threading.local()

T = TypeVar("T")


@contextmanager
def serving(arena: OutputArena | None) -> Iterator[None]:
    """Let the decoding of one leaf on this thread take its values' slice of *arena*
    (at most one slice: :func:`output_array` hands out one)."""
    _LOCAL.arena = arena
    try:
        yield
    finally:
        _LOCAL.arena = None


def served(pieces: Iterator[T], arena: OutputArena | None) -> Iterator[T]:
    """*pieces* (a leaf's decoded pieces, a generator resumed between other leaves' work),
    each produced while serving *arena*, until one of them takes its slice (one slice per
    leaf).  The arena is served only inside each step, so another leaf decoding on this
    thread between two steps never takes this leaf's slice."""
    if arena is None:
        yield from pieces
        return
    while True:
        with serving(arena):
            try:
                piece = next(pieces)
            except StopIteration:
                return
            taken = getattr(_LOCAL, "arena", None) is None
        yield piece
        if taken:
            yield from pieces
            return


def output_array(n: int, dtype: np.dtype[Any]) -> npt.NDArray[Any] | None:
    """An uninitialised array of *n* values of *dtype* from the arena this thread is
    serving (a 1-D view of its slice), or None: the caller allocates its own."""
    arena = getattr(_LOCAL, "arena", None)
    if arena is None:
        return None
    out = arena.take(n, dtype)
    if out is not None:
        _LOCAL.arena = None         # one slice per leaf
    return out


def output_rows(n: int, width: int) -> npt.NDArray[np.uint8] | None:
    """:func:`output_array` of *n* rows of *width* bytes (FIXED_LEN_BYTE_ARRAY values):
    an uninitialised ``(n, width)`` uint8 view of this thread's arena, or None."""
    if width <= 0:
        return None
    out = output_array(n, np.dtype((np.void, width)))
    return None if out is None else out.view(np.uint8).reshape(n, width)

