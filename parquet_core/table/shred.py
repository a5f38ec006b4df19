"""Record shredding: nested arrays become per-leaf definition/repetition levels and values.

The inverse of :mod:`parquet_core.table.assemble`.  A top-level field is
walked from the root down to its leaves, one schema node at a time; at
each node every *level entry* (one per record at the top) carries

* ``idx``: the slot of the node's array it stands for, or -1 once the
  entry has ended above (a null, or an empty list);
* ``defs``: the definition level reached so far;
* ``reps``: the repetition level it will be written with.

An optional node raises the definition level of its valid slots by one and
ends its null ones.  A list (or map) replaces each entry by one entry per
element (definition level + 1, the repeated field), the first keeping the
entry's repetition level and the others taking the list's own; an empty or
null list stays a single ended entry.  Every step is a handful of whole-array
numpy operations (``np.repeat`` spreads the entries over the elements), so
the only Python loop is the recursion over the schema's nodes.  Struct
members share their parent's entries, so a prefix of the path is walked
once for all the leaves below it.

Worked example, ``optional list<optional int32>`` (leaf maximum levels
def 3, rep 1), records ``None``, ``[]``, ``[None, 7]``::

    entries   after the list node       after the element
    record 0  idx -1 def 0 rep 0        def 0 rep 0 (null list)
    record 1  idx -1 def 1 rep 0        def 1 rep 0 (empty list)
    record 2  idx 0  def 2 rep 0        def 2 rep 0 (null element)
              idx 1  def 2 rep 1        def 3 rep 1 -> value 7

The walk also validates: a null in a required node or a null map key, at a
slot a record actually reaches, raises :class:`ParquetSchemaError` naming
the leaf path and the record (row).  Slots that no record reaches (children
of null parents) may hold anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ColumnData
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, Field, TypeId
from parquet_core.table.arrays import Array
from parquet_core.table.nested import ListArray, StructArray

__all__ = ["shred", "nested_nbytes"]

_STRUCT_VARIANT_IDS = frozenset([TypeId.STRUCT, TypeId.VARIANT])
_LIST_MAP_IDS = frozenset([TypeId.LIST, TypeId.MAP])

I64 = npt.NDArray[np.int64]
I16 = npt.NDArray[np.int16]


@dataclass(slots=True)
class _Entries:
    idx: I64
    defs: I16
    reps: I16


def _take(values: Any, idx: I64) -> Any:
    """``values[idx]`` for increasing *idx*; a slice (no copy) when *idx* is a run."""
    if len(idx) == 0 or int(idx[-1]) - int(idx[0]) + 1 == len(idx):
        lo = int(idx[0]) if len(idx) else 0
        hi = lo + len(idx)
        return values.slice(lo, hi) if isinstance(values, ByteArrays) else values[lo:hi]
    return values.take(idx) if isinstance(values, ByteArrays) else values[idx]


class _Shredder:
    def __init__(self, top: str, num_rows: int) -> None:
        self.top = top
        self.num_rows = num_rows
        self.out: list[tuple[DataType, ColumnData]] = []
        self.max_def = 0
        self.max_rep = 0

    def error(self, path: tuple[str, ...], e: _Entries, at: int, message: str) -> ParquetSchemaError:
        row = int(np.count_nonzero(e.reps[:at + 1] == 0)) - 1
        return ParquetSchemaError(f"column {'.'.join(path)!r}, row {row}: {message}")

    def present(self, arr: Array, nullable: bool, e: _Entries, d: int,
                path: tuple[str, ...], what: str) -> tuple[_Entries, int]:
        """Apply the node's nullability: raise the definition level of its valid slots."""
        live = e.idx >= 0
        if arr.validity is not None:
            valid = np.zeros(len(e.idx), dtype=bool)
            valid[live] = arr.validity[e.idx[live]]
            nulls = live & ~valid
            if nulls.any():
                if not nullable:
                    raise self.error(path, e, int(np.argmax(nulls)), what)
                e = _Entries(np.where(valid, e.idx, -1), e.defs, e.reps)
                live = valid
        if not nullable:
            return e, d
        d += 1
        return _Entries(e.idx, np.where(live, np.int16(d), e.defs).astype(np.int16, copy=False), e.reps), d

    def walk(self, arr: Array, field: Field, e: _Entries, d: int, r: int,
             path: tuple[str, ...], what: str = "null in a non-nullable field") -> None:
        dt = field.type
        e, d = self.present(arr, field.nullable, e, d, path, what)
        if dt.id in _STRUCT_VARIANT_IDS:      # a variant is stored as its group
            if not isinstance(arr, StructArray) or len(arr.values) != len(dt.fields):
                raise ParquetSchemaError(f"column {'.'.join(path)!r}: expected a struct array of "
                                         f"{len(dt.fields)} fields for type {dt}")
            for child, f in zip(arr.values, dt.fields):
                if len(child) != len(arr):
                    raise ParquetSchemaError(f"column {'.'.join(path + (f.name,))!r}: {len(child)} "
                                             f"slots under a struct of {len(arr)}")
                self.walk(child, f, e, d, r, path + (f.name,))
            return
        if dt.id in _LIST_MAP_IDS:
            if not isinstance(arr, ListArray):
                raise ParquetSchemaError(f"column {'.'.join(path)!r}: expected a list array for type {dt}")
            offs = arr.offsets
            if len(offs) != len(arr) + 1 or (len(offs) and (int(offs[0]) < 0 or int(offs[-1]) > len(arr.values)
                                                         or bool((np.diff(offs) < 0).any()))):
                raise ParquetSchemaError(f"column {'.'.join(path)!r}: list offsets are not "
                                         f"non-decreasing within the {len(arr.values)} child slots")
            e = self.expand(arr.offsets, e, d, r)
            d, r = d + 1, r + 1
            if dt.id is TypeId.LIST:
                self.walk(arr.values, dt.fields[0], e, d, r, path + ("list", "element"))
                return
            entries = arr.values
            if not isinstance(entries, StructArray) or len(entries.values) != 2:
                raise ParquetSchemaError(f"column {'.'.join(path)!r}: a map's entries must be a "
                                         "(key, value) struct array")
            key_f, value_f = dt.fields
            kv = path + ("key_value",)
            self.walk(entries.values[0], Field("key", key_f.type, False), e, d, r, kv + ("key",),
                      "a map key is null")
            self.walk(entries.values[1], value_f, e, d, r, kv + ("value",))
            return
        self.leaf(arr, dt, e, d, r, path)

    @staticmethod
    def expand(offsets: I64, e: _Entries, d: int, r: int) -> _Entries:
        """One entry per list element (see the module docstring)."""
        # ended entries (-1) read slot 0's offsets, then count as empty: whole-array
        # gathers instead of masked ones (an ended entry's start is never used: see below)
        m = len(e.idx)
        if m == 0:
            return e
        live = e.idx >= 0
        # few arrays of the entries' length, reused in place: each new one is fresh memory
        # (page faults) as well as a pass
        if bool(live.all()):
            starts = offsets.take(e.idx).astype(np.int64, copy=False)
            lens = offsets[1:].take(e.idx).astype(np.int64, copy=False)
            lens -= starts
            counts = np.maximum(lens, 1)
        elif bool(live.any()):
            counts = np.maximum(e.idx, 0)          # the slots read; then the counts
            starts = offsets.take(counts).astype(np.int64, copy=False)
            lens = offsets[1:].take(counts).astype(np.int64, copy=False)
            lens -= starts
            lens *= live
            np.maximum(lens, 1, out=counts)        # an empty or null list keeps one entry
        else:       # every entry ended above (the list array may have no slots at all)
            starts = np.zeros(m, dtype=np.int64)
            lens = np.zeros(m, dtype=np.int64)
            counts = np.ones(m, dtype=np.int64)
        first = np.empty(m, dtype=np.int64)
        first[0] = 0
        np.cumsum(counts[:-1], out=first[1:])
        total = int(first[-1] + counts[-1])
        # no per-element parent index: element k of entry i sits at first[i] + k and is
        # child starts[i] + k, so idx[j] = j + starts[i] - first[i]; it steps by 1 inside an
        # entry and by starts[i] - (starts[i - 1] + counts[i - 1]) + 1 at an entry's first
        # element (a running sum of steps; an ended entry's start cancels out of the sum).
        # The steps are made in place of the starts, counts[i - 1] + starts[i - 1] in
        # place of the counts.
        np.add(counts, starts, out=counts)
        np.subtract(starts[1:], counts[:-1], out=starts[1:])
        starts[1:] += 1
        del counts
        idx = np.ones(total, dtype=np.int64)
        idx[first] = starts                        # (the first elements' positions are distinct)
        del starts
        # gil-held: in place on purpose (a write-path expansion): a second array of `total`
        # int64 costs its page faults, about twice this call (h32w3); numpy keeps the GIL
        np.cumsum(idx, out=idx)
        empty = np.flatnonzero(lens == 0)
        at_empty = first.take(empty)
        idx[at_empty] = -1
        defs = np.full(total, np.int16(d + 1), dtype=np.int16)
        defs[at_empty] = e.defs.take(empty)
        reps = np.full(total, np.int16(r + 1), dtype=np.int16)
        reps[first] = e.reps                       # an entry's first element keeps its level
        return _Entries(idx, defs, reps)

    def leaf(self, arr: Array, dt: DataType, e: _Entries, d: int, r: int,
             path: tuple[str, ...]) -> None:
        if dt.is_nested or isinstance(arr, (ListArray, StructArray)):
            raise ParquetSchemaError(f"column {'.'.join(path)!r}: a {type(arr).__name__} where "
                                     f"type {dt} expects flat values")
        n = len(e.idx)
        defs = None if d == 0 else e.defs
        reps = None if r == 0 else e.reps
        if defs is not None and bool((defs == d).all()):
            defs = None  # every entry holds a value: the column writer writes one run
        values = _take(arr.values, e.idx if defs is None else e.idx[defs == d])
        self.out.append((dt, ColumnData(values, defs, reps, n)))


def shred(arr: Array, field: Field) -> list[tuple[DataType, ColumnData]]:
    """Shred one top-level column into its leaves, in schema (pre-)order.

    Each leaf is its type and its :class:`~parquet_core.column.data.ColumnData`,
    whose ``values`` are the non-null values in the leaf type's *logical*
    storage (one per level entry at the leaf's maximum definition level);
    ``def_levels`` / ``rep_levels`` are ``None`` when the leaf's maximum is 0,
    and ``def_levels`` also when every entry holds a value.

    Raises
    ------
    ParquetSchemaError
        For a null in a required node or a null map key at a reached slot,
        or an array whose shape does not match *field*'s type.
    """
    n = len(arr)
    s = _Shredder(field.name, n)
    start = _Entries(np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int16),
                     np.zeros(n, dtype=np.int16))
    s.walk(arr, field, start, 0, 0, (field.name,))
    return s.out


def nested_nbytes(arr: Array) -> int:
    """In-memory bytes of an array's buffers, children included."""
    total = 0 if arr.validity is None else arr.validity.nbytes
    if isinstance(arr, ListArray):
        return total + arr.offsets.nbytes + nested_nbytes(arr.values)
    if isinstance(arr, StructArray):
        return total + sum(nested_nbytes(c) for c in arr.values)
    v = arr.values
    if isinstance(v, ByteArrays):
        return total + v.data.nbytes + v.offsets.nbytes
    return total + np.asarray(v).nbytes
