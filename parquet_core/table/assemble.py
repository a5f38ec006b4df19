"""Record assembly: the levels of nested leaves become offsets, validity and child arrays.

Each node of a :class:`~parquet_core.schema.nested.Shape` is built on its
own from the levels of one leaf below it (every leaf below a node agrees on
the node's slots), with whole-array numpy operations; the only Python loop
is the recursion over the nodes of the schema.

For a node whose nearest repeated ancestor has repetition level ``R`` and
definition level ``D`` (``slot_rep``/``slot_def``), a level entry opens a
slot of the node when ``rep <= R and def >= D``.  For a list or map, an
entry is one element when ``rep <= R + 1 and def >= elem_def``; the offset
of each slot is the number of elements before the entry that opened it.
A slot is valid (not null) when ``def >= def_level``.  Worked example,
``optional group a (LIST) { repeated group list { optional int32 element } }``
(``def_level`` 1, ``elem_def`` 2, leaf maximum 3)::

    record        rep def   slot  element  leaf valid
    null          0   0     yes   no
    []            0   1     yes   no
    [null, 7]     0   2     yes   yes      no
                  1   3     no    yes      yes
    -> offsets [0, 0, 0, 2], validity [F, T, T], element validity [F, T]
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core.column.data import ColumnData
from parquet_core.errors import ParquetFormatError, quoted
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.nested import Shape, ShapeKind
from parquet_core.schema.pyvalues import to_storage
from parquet_core.schema.types import DataType, Field, TypeId
from parquet_core.table.arrays import Array, empty_array
from parquet_core.table.convert import spread_values
from parquet_core.table.list_padding import stray_repeats
from parquet_core.table.nested import ListArray, MapArray, StructArray

__all__ = ["assemble", "empty_column", "entries_type"]

_STRUCT_VARIANT_IDS = frozenset([TypeId.STRUCT, TypeId.VARIANT])

Mask = npt.NDArray[np.bool_]

#: element counts are cumulated in int32 below this many level entries (int64 above)
_NARROW_COUNTS = 2**31 - 1


def entries_type(map_type: DataType) -> DataType:
    """The struct type of a map's entries (its key and value fields)."""
    return DataType("struct", fields=map_type.fields)


class _Levels:
    """One leaf's levels, and the masks built from them, each built once.

    A mask for "``rep <= r`` and ``def >= d``" serves several nodes: a list's
    element mask is the slot mask of its child, and a node's valid-slot mask
    is a mask of the same family.  Selections go through :func:`numpy.compress`
    (several times faster than boolean indexing for these sizes).
    """

    def __init__(self, data: ColumnData, desc: ColumnDescriptor) -> None:
        self.data, self.desc = data, desc
        self.n = data.num_levels
        self.defs = data.def_levels
        self.reps = data.rep_levels
        for what, arr in (("definition", self.defs), ("repetition", self.reps)):
            if arr is not None and len(arr) != self.n:
                raise ParquetFormatError(f"column {quoted(desc.dotted_path, bare=True)}: {len(arr)} {what} levels "
                                         f"for {self.n} level slots")
        self.max_rep = desc.max_repetition_level
        self._ge: dict[int, Mask] = {}
        self._le: dict[int, Mask] = {}
        self._masks: dict[tuple[int, int], Mask | None] = {}
        self._counts: dict[tuple[int, int], int] = {}
        self._eq_max: Mask | None = None

    def def_ge(self, level: int) -> Mask:
        got = self._ge.get(level)
        if got is None:
            assert self.defs is not None
            got = self._ge[level] = self.defs >= level
        return got

    def rep_le(self, level: int) -> Mask:
        got = self._le.get(level)
        if got is None:
            assert self.reps is not None
            got = self._le[level] = self.reps <= level
        return got

    def mask(self, max_rep: int, min_def: int) -> Mask | None:
        """Entries with ``rep <= max_rep`` and ``def >= min_def`` (``None``: all of them)."""
        key = (max_rep, min_def)
        if key in self._masks:
            return self._masks[key]
        out = None
        if self.reps is not None and max_rep < self.max_rep:
            out = self.rep_le(max_rep)
        if self.defs is not None and min_def > 0:
            d = self.def_ge(min_def)
            out = d if out is None else out & d
        self._masks[key] = out
        return out

    def count(self, max_rep: int, min_def: int) -> int:
        """Number of entries of :meth:`mask`."""
        key = (max_rep, min_def)
        got = self._counts.get(key)
        if got is None:
            m = self.mask(max_rep, min_def)
            got = self._counts[key] = self.n if m is None else int(np.count_nonzero(m))
        return got

    def at_max_def(self) -> Mask:
        """Entries holding a value (definition level at the leaf's maximum)."""
        if self._eq_max is None:
            assert self.defs is not None
            self._eq_max = self.defs == self.desc.max_definition_level
        return self._eq_max


def _select(slots: Mask | None, per_entry: Mask) -> Mask:
    """*per_entry* at the slot-opening entries."""
    return per_entry if slots is None else np.compress(slots, per_entry)


class _Assembler:
    def __init__(self, data: Mapping[int, ColumnData], descs: Sequence[ColumnDescriptor]) -> None:
        self.levels = {i: _Levels(d, descs[i]) for i, d in data.items()}

    def build(self, s: Shape) -> Array:
        if s.kind is ShapeKind.LEAF:
            return self.leaf(s)
        lv = self.levels[s.leaves[0]]
        slots = lv.mask(s.slot_rep, s.slot_def)
        n = lv.count(s.slot_rep, s.slot_def)
        if s.kind is ShapeKind.STRUCT:
            valid = self.validity(lv, s, slots, None, n)
            kids = [self.checked(c, n, s) for c in s.children]
            column = None
            if s.data_type.id is TypeId.VARIANT:   # name the group in decode errors
                meta = next(c for c in s.children if c.name == "metadata")
                column = ".".join(self.levels[meta.column].desc.path[:-1])
            return StructArray(s.data_type, kids, n, valid, column)
        # the positions of a list's slots serve its validity and its offsets
        starts = None if slots is None else np.flatnonzero(slots)
        valid = self.validity(lv, s, slots, starts, n)
        self.check_repeats(lv, s)
        elems = lv.mask(s.slot_rep + 1, s.elem_def)
        offsets = self.offsets(starts, elems, lv.n)
        total = int(offsets[-1])
        if s.kind is ShapeKind.LIST:
            return ListArray(s.data_type, offsets, self.checked(s.children[0], total, s), valid)
        kids = [self.checked(c, total, s) for c in s.children]
        entries = StructArray(entries_type(s.data_type), kids, total)
        return MapArray(s.data_type, offsets, entries, valid)

    @staticmethod
    def validity(lv: _Levels, s: Shape, slots: Mask | None, starts: npt.NDArray[np.int64] | None,
                 n: int) -> Mask | None:
        """Which of the node's *n* slots are not null (``None``: all of them).

        *starts*: the positions of the entries of *slots*, when known.
        """
        level = s.def_level
        if lv.defs is None or level <= s.slot_def:
            return None     # every slot reaches the node's level
        # the slots that reach the node's level are the entries of mask(slot_rep, level)
        if lv.count(s.slot_rep, level) == n:
            return None
        if starts is not None:
            return lv.def_ge(level).take(starts)
        return _select(slots, lv.def_ge(level))

    @staticmethod
    def check_repeats(lv: _Levels, s: Shape) -> None:
        """An entry that repeats this list must define an element of it."""
        if lv.reps is None or lv.defs is None:
            return
        bad = lv.reps == s.slot_rep + 1
        bad &= ~lv.def_ge(s.elem_def)
        if bad.any():
            # duckdb's NULL fixed-size arrays repeat the null list: neither slots nor elements
            # of it (see list_padding), so they read as the null list they pad
            i = stray_repeats(lv.reps, lv.defs, s.slot_rep, s.elem_def, s.def_level, bad).first_bad
            if i < 0:
                return
            raise ParquetFormatError(
                f"column {quoted(lv.desc.dotted_path, bare=True)}: level entry {i} repeats {s.name!r} "
                f"(repetition level {s.slot_rep + 1}) but its definition level "
                f"{int(lv.defs[i])} is below the element's {s.elem_def}")

    @staticmethod
    def offsets(starts: npt.NDArray[np.int64] | None, elems: Mask | None, n: int
                ) -> npt.NDArray[np.int64]:
        """Element count before each slot's opening entry (at positions *starts*, ``None``:
        every entry opens a slot), plus the total."""
        if elems is None:       # every entry is an element: the offsets are positions
            if starts is None:
                return np.arange(n + 1, dtype=np.int64)
            out = np.empty(len(starts) + 1, dtype=np.int64)
            out[:-1] = starts
            out[-1] = n
            return out
        # elements before each entry (and in all), narrow while it fits: half the traffic
        seen = np.empty(n + 1, dtype=np.int32 if n < _NARROW_COUNTS else np.int64)
        seen[0] = 0
        np.cumsum(elems, dtype=seen.dtype, out=seen[1:])
        if starts is None:
            return seen.astype(np.int64, copy=False)
        out = np.empty(len(starts) + 1, dtype=np.int64)
        out[:-1] = seen.take(starts)
        out[-1] = seen[n]
        return out

    def checked(self, child: Shape, expected: int, parent: Shape) -> Array:
        arr = self.build(child)
        if len(arr) != expected:
            raise ParquetFormatError(
                f"field {parent.name!r}: its child {child.name!r} has {len(arr)} slots, "
                f"the levels of its sibling columns say {expected}")
        return arr

    def leaf(self, s: Shape) -> Array:
        lv = self.levels[s.column]
        desc = lv.desc
        dt = s.data_type
        values = to_storage(dt, lv.data.values)
        slots = lv.mask(s.slot_rep, s.slot_def)
        n = lv.count(s.slot_rep, s.slot_def)
        valid = None
        if lv.defs is None:
            present = n
        else:
            # a value's entry (def at the maximum) is always a slot of its leaf when the
            # leaf's slots take every repetition level; else count only those that are
            has = lv.at_max_def()
            if lv.reps is not None and s.slot_rep < lv.max_rep:
                has = has & lv.rep_le(s.slot_rep)
            present = int(np.count_nonzero(has))
            if present != n:
                valid = _select(slots, lv.at_max_def())
        if present != len(values):
            raise ParquetFormatError(
                f"column {quoted(desc.dotted_path, bare=True)}: definition levels say {present} values, "
                f"pages hold {len(values)}")
        if valid is None:
            return Array(dt, values, None)
        return Array(dt, spread_values(values, valid, n), valid)


def assemble(shape: Shape, data: Mapping[int, ColumnData],
             descs: Sequence[ColumnDescriptor]) -> Array:
    """Build the array of one field from the decoded data of its leaves.

    *data* maps each leaf column index below *shape* to its
    :class:`ColumnData`; *descs* is indexed by column index.

    Raises
    ------
    ParquetFormatError
        When the leaves disagree on the number of slots, or levels and
        values disagree.
    """
    return _Assembler(data, descs).build(shape)


def empty_column(field: Field) -> Array:
    """A zero-length array of *field*'s type, nested types included."""
    dt = field.type
    zero = np.zeros(1, dtype=np.int64)
    if dt.id is TypeId.LIST:
        return ListArray(dt, zero, empty_column(dt.fields[0]))
    if dt.id is TypeId.MAP:
        entries = StructArray(entries_type(dt), [empty_column(f) for f in dt.fields], 0)
        return MapArray(dt, zero, entries)
    if dt.id in _STRUCT_VARIANT_IDS:   # a variant is a StructArray of its stored group
        return StructArray(dt, [empty_column(f) for f in dt.fields], 0)
    return empty_array(field)
