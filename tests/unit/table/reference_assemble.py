"""The record assembler as it was before its masks were shared (kept as a reference).

This is the straightforward form: every node recomputes its masks from the
levels and selects with boolean indexing.  ``test_assemble_fast.py`` pins
:func:`parquet_core.table.assemble.assemble` against it, array for array.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core.column.data import ColumnData
from parquet_core.errors import ParquetFormatError
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.nested import Shape
from parquet_core.schema.pyvalues import to_storage
from parquet_core.table.arrays import Array
from parquet_core.table.assemble import entries_type
from parquet_core.table.convert import spread_values
from parquet_core.table.nested import ListArray, MapArray, StructArray

Mask = npt.NDArray[np.bool_]


def _count(mask: Mask | None, n: int) -> int:
    return n if mask is None else int(np.count_nonzero(mask))


def _validity(defs: npt.NDArray[np.int16] | None, level: int) -> Mask | None:
    if defs is None or level == 0:
        return None
    valid = defs >= level
    return None if valid.all() else valid


class _Levels:
    """One leaf's levels, with the maxima that stand in for absent arrays."""

    def __init__(self, data: ColumnData, desc: ColumnDescriptor) -> None:
        self.data, self.desc = data, desc
        self.n = data.num_levels
        self.defs = data.def_levels
        self.reps = data.rep_levels

    def mask(self, max_rep: int, min_def: int) -> Mask | None:
        """Entries with ``rep <= max_rep`` and ``def >= min_def`` (``None``: all of them)."""
        out = None
        if self.reps is not None and max_rep < self.desc.max_repetition_level:
            out = self.reps <= max_rep
        if self.defs is not None and min_def > 0:
            d = self.defs >= min_def
            out = d if out is None else out & d
        return out

    def defs_at(self, where: Mask | None) -> npt.NDArray[np.int16] | None:
        if self.defs is None:
            return None
        return self.defs if where is None else self.defs[where]


class _Assembler:
    def __init__(self, data: Mapping[int, ColumnData], descs: Sequence[ColumnDescriptor]) -> None:
        self.levels = {i: _Levels(d, descs[i]) for i, d in data.items()}

    def build(self, s: Shape) -> Array:
        if s.kind == "leaf":
            return self.leaf(s)
        lv = self.levels[s.leaves[0]]
        slots = lv.mask(s.slot_rep, s.slot_def)
        n = _count(slots, lv.n)
        valid = _validity(lv.defs_at(slots), s.def_level)
        if s.kind == "struct":
            kids = [self.checked(c, n, s) for c in s.children]
            column = None
            if s.data_type.name == "variant":   # name the group in decode errors
                meta = next(c for c in s.children if c.name == "metadata")
                column = ".".join(self.levels[meta.column].desc.path[:-1])
            return StructArray(s.data_type, kids, n, valid, column)
        self.check_repeats(lv, s)
        elems = lv.mask(s.slot_rep + 1, s.elem_def)
        offsets = self.offsets(slots, elems, lv.n)
        total = int(offsets[-1])
        if s.kind == "list":
            return ListArray(s.data_type, offsets, self.checked(s.children[0], total, s), valid)
        kids = [self.checked(c, total, s) for c in s.children]
        entries = StructArray(entries_type(s.data_type), kids, total)
        return MapArray(s.data_type, offsets, entries, valid)

    @staticmethod
    def check_repeats(lv: _Levels, s: Shape) -> None:
        """An entry that repeats this list must define an element of it."""
        if lv.reps is None or lv.defs is None:
            return
        bad = (lv.reps == s.slot_rep + 1) & (lv.defs < s.elem_def)
        # duckdb's NULL fixed-size arrays: after an entry opening a slot where the list is null
        # (or an ancestor is), entries repeating the list at that same definition level are
        # padding; read entry by entry here, the engine finds them with whole-array steps
        opener = -1
        for j in range(len(lv.reps)):
            if lv.reps[j] <= s.slot_rep:
                opener = j
            elif bad[j] and opener >= 0 and lv.defs[opener] < s.def_level and lv.defs[j] == lv.defs[opener]:
                bad[j] = False
        if bad.any():
            i = int(np.argmax(bad))
            raise ParquetFormatError(
                f"column {lv.desc.dotted_path}: level entry {i} repeats {s.name!r} "
                f"(repetition level {s.slot_rep + 1}) but its definition level "
                f"{int(lv.defs[i])} is below the element's {s.elem_def}")

    @staticmethod
    def offsets(slots: Mask | None, elems: Mask | None, n: int) -> npt.NDArray[np.int64]:
        """Element count before each slot's opening entry, plus the total."""
        starts = np.arange(n, dtype=np.int64) if slots is None else np.flatnonzero(slots)
        if elems is None:
            before = starts
            total = n
        else:
            seen = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(elems, out=seen[1:])
            before = seen[starts]
            total = int(seen[-1])
        out = np.empty(len(starts) + 1, dtype=np.int64)
        out[:-1] = before
        out[-1] = total
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
        n = _count(slots, lv.n)
        defs = lv.defs_at(slots)
        if defs is None:
            present = n
            valid = None
        else:
            valid = defs == desc.max_definition_level
            present = int(np.count_nonzero(valid))
        if present != len(values):
            raise ParquetFormatError(
                f"column {desc.dotted_path}: definition levels say {present} values, "
                f"pages hold {len(values)}")
        if present == n:
            return Array(dt, values, None)
        return Array(dt, spread_values(values, valid, n), valid)  # type: ignore[arg-type]


def reference_assemble(shape: Shape, data: Mapping[int, ColumnData],
                       descs: Sequence[ColumnDescriptor]) -> Array:
    """:func:`parquet_core.table.assemble.assemble`, the straightforward way."""
    return _Assembler(data, descs).build(shape)
