"""One leaf's levels and values, and the field arrays built from them.

The file layer reads leaves; it never asks whether a field is flat.  Every
leaf comes back as one :class:`~parquet_core.column.data.ColumnData` (levels
and non-null values), whatever the shape above it, and this module:

* builds a field's :class:`Array` from the data of its leaves
  (:func:`field_array`: a top-level primitive is the trivial case of
  record assembly, converted directly);
* counts, cuts, joins and gathers *records* of a leaf's data
  (:func:`count_records`, :func:`split_records`, :func:`concat_data`,
  :func:`take_records`), so that a reader can stream batches of rows or keep
  only some rows without knowing the shape.  A record starts at every level
  entry with repetition level 0 (every entry, for an unrepeated leaf);
* says which leaf may keep its dictionaries (:func:`dictionary_leaf`), a
  pyarrow rule about top-level string and binary columns.

Everything is whole-array numpy; no loop over values.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence, overload

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ChunkDictionary, ColumnData
from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetError, ParquetFormatError, add_context, quoted
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.nested import Shape, row_leaf, top_level_field  # noqa: F401  (re-exported)
from parquet_core.schema.types import TypeId
from parquet_core.table.arrays import Array
from parquet_core.table.assemble import assemble
from parquet_core.table.convert import to_array

__all__ = ["slice_data", "value_positions", "field_array", "dictionary_leaf", "row_leaf", "top_level_field", "count_records", "record_starts", "split_records",
           "concat_data", "concat_levels", "take_records", "empty_data"]

_STRING_BINARY_IDS = frozenset([TypeId.STRING, TypeId.BINARY])


def field_array(shape: Shape, data: Mapping[int, ColumnData], descs: Sequence[ColumnDescriptor],
                *, requested: bool = False, name: str | None = None) -> Array:
    """The array of one field from the data of every leaf below *shape*.

    *requested*: the column was named in ``read_dictionary`` (see
    :func:`parquet_core.table.convert.to_array`).  Errors get a note naming
    the column (or, for a nested field, the field *name*).
    """
    if shape.is_flat:
        desc = descs[shape.column]
        try:
            return to_array(data[shape.column], desc, requested=requested)
        except ParquetError as exc:
            add_context(exc, column=desc.dotted_path)
            raise
    try:
        return assemble(shape, data, descs)
    except ParquetError as exc:
        add_context(exc, field=name or shape.name)
        raise


def dictionary_leaf(shape: Shape, descs: Sequence[ColumnDescriptor]) -> int | None:
    """The leaf that may be read with its dictionaries, or None.

    As in pyarrow, only a top-level string or binary column keeps them.
    """
    if not shape.is_flat:
        return None
    d = descs[shape.column]
    if d.physical_type != PhysicalType.BYTE_ARRAY or d.data_type.id not in _STRING_BINARY_IDS:
        return None
    return shape.column


# -- records of one leaf -----------------------------------------------------------
def record_starts(data: ColumnData) -> npt.NDArray[np.int64] | None:
    """Level positions where a record starts (None: every position, an unrepeated leaf)."""
    if data.rep_levels is None:
        return None
    return np.flatnonzero(data.rep_levels == 0)


def count_records(data: ColumnData) -> int:
    """Records (rows) the leaf's levels hold."""
    if data.rep_levels is None:
        return data.num_levels
    return int(np.count_nonzero(data.rep_levels == 0))


def _present(data: ColumnData, desc: ColumnDescriptor) -> npt.NDArray[np.bool_] | None:
    """Level slots that hold a value (None: all of them)."""
    if data.def_levels is None:
        return None
    return data.def_levels == desc.max_definition_level


def _slice_values(values: Any, start: int, stop: int) -> Any:
    if isinstance(values, ByteArrays):
        return values.slice(start, stop)
    return values[start:stop]


def _take_values(values: Any, idx: npt.NDArray[np.int64]) -> Any:
    if isinstance(values, ByteArrays):
        return values.take(idx)
    return values.take(idx, axis=0)


def _cat_values(parts: list[Any]) -> Any:
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], ByteArrays):
        return ByteArrays.concat(parts)
    return np.concatenate(parts)


@overload
def _cat_levels(parts: Sequence[npt.NDArray[np.int16] | None], counts: list[int], fill: int
                ) -> npt.NDArray[np.int16] | None: ...


@overload
def _cat_levels(parts: Sequence[npt.NDArray[np.int16] | npt.NDArray[np.int8] | None], counts: list[int], fill: int
                ) -> npt.NDArray[np.int16] | npt.NDArray[np.int8] | None: ...


def _cat_levels(parts: Sequence[npt.NDArray[np.int16] | npt.NDArray[np.int8] | None], counts: list[int], fill: int
                ) -> npt.NDArray[np.int16] | npt.NDArray[np.int8] | None:
    if all(p is None for p in parts):
        return None
    full = [np.full(n, fill, dtype=np.int16) if p is None else p for p, n in zip(parts, counts)]
    if len(full) == 1:
        return full[0]
    # int8 definition levels (a flat optional column read from a file) widen to int16 beside
    # int16 ones, as numpy promotes them; the stubs cannot follow that through a mixed list
    return np.concatenate(full, dtype=np.result_type(*full))


def empty_data(desc: ColumnDescriptor, values: Any) -> ColumnData:
    """Data of no levels; *values* is an empty array of the leaf's physical form."""
    reps = np.zeros(0, dtype=np.int16) if desc.max_repetition_level > 0 else None
    defs = np.zeros(0, dtype=np.int16) if desc.max_repetition_level > 0 and desc.max_definition_level > 0 \
        else None
    return ColumnData(values, defs, reps, 0)


def concat_data(parts: Sequence[ColumnData], desc: ColumnDescriptor) -> ColumnData:
    """The levels and values of *parts*, one after the other (dictionaries kept as runs)."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        raise ValueError("concat_data needs at least one part")
    defs, reps, levels = concat_levels(parts, desc)
    dictionaries = None
    if any(p.dictionaries is not None for p in parts):
        if not all(p.dictionaries is not None for p in parts):
            raise ValueError("cannot join data with and without dictionaries")
        dictionaries = tuple(d for p in parts if p.dictionaries is not None for d in p.dictionaries)
    return ColumnData(_cat_values([p.values for p in parts]), defs, reps, levels, dictionaries)


def concat_levels(parts: Sequence[Any], desc: ColumnDescriptor
                  ) -> tuple[npt.NDArray[np.int16] | npt.NDArray[np.int8] | None, npt.NDArray[np.int16] | None, int]:
    """The definition and repetition levels of *parts* (anything with ``def_levels``,
    ``rep_levels`` and ``num_levels``, as :class:`ColumnData`), one after the other, and
    their number."""
    counts = [p.num_levels for p in parts]
    defs = _cat_levels([p.def_levels for p in parts], counts, desc.max_definition_level)
    reps = _cat_levels([p.rep_levels for p in parts], counts, 0)
    return defs, reps, sum(counts)


def _level_cut(data: ColumnData, records: int) -> int:
    """Level position where record *records* starts (the end when there are no more)."""
    if data.rep_levels is None:
        return min(records, data.num_levels)
    starts = record_starts(data)
    assert starts is not None
    return int(starts[records]) if records < len(starts) else data.num_levels


def _split_dictionaries(runs: tuple[ChunkDictionary, ...], levels: int, values: int
                        ) -> tuple[tuple[ChunkDictionary, ...], tuple[ChunkDictionary, ...]]:
    head: list[ChunkDictionary] = []
    tail: list[ChunkDictionary] = []
    lv = vv = 0
    for run in runs:
        n_vals = len(run.indices)
        if lv + run.num_levels <= levels:
            head.append(run)
        elif lv >= levels:
            tail.append(run)
        else:
            k_lv, k_v = levels - lv, values - vv
            head.append(ChunkDictionary(run.values, run.indices[:k_v], k_lv))
            tail.append(ChunkDictionary(run.values, run.indices[k_v:], run.num_levels - k_lv))
        lv += run.num_levels
        vv += n_vals
    return tuple(head), tuple(tail)


def slice_data(data: ColumnData, start: int, stop: int, vstart: int, vstop: int) -> ColumnData:
    """Levels ``start:stop`` of a leaf's data, whose values are ``vstart:vstop`` (the caller
    counted them; dictionary runs are cut to match)."""
    d, r = data.def_levels, data.rep_levels
    runs = None
    if data.dictionaries is not None:
        _, rest = _split_dictionaries(data.dictionaries, start, vstart)
        runs, _ = _split_dictionaries(rest, stop - start, vstop - vstart)
    return ColumnData(_slice_values(data.values, vstart, vstop), None if d is None else d[start:stop],
                      None if r is None else r[start:stop], stop - start, runs)


def value_positions(data: ColumnData, desc: ColumnDescriptor) -> npt.NDArray[np.int64] | None:
    """Values before each level position, and the total (None: one value per level)."""
    present = _present(data, desc)
    if present is None:
        return None
    out = np.zeros(data.num_levels + 1, dtype=np.int64)
    np.cumsum(present, out=out[1:])
    return out


def split_records(data: ColumnData, desc: ColumnDescriptor, records: int) -> tuple[ColumnData, ColumnData]:
    """The first *records* records of a leaf's data, and the rest."""
    cut = _level_cut(data, records)
    present = _present(data, desc)
    vcut = cut if present is None else int(np.count_nonzero(present[:cut]))
    d, r = data.def_levels, data.rep_levels
    head_dict = tail_dict = None
    if data.dictionaries is not None:
        head_dict, tail_dict = _split_dictionaries(data.dictionaries, cut, vcut)
    head = ColumnData(_slice_values(data.values, 0, vcut), None if d is None else d[:cut],
                      None if r is None else r[:cut], cut, head_dict)
    tail = ColumnData(_slice_values(data.values, vcut, len(data.values)), None if d is None else d[cut:],
                      None if r is None else r[cut:], data.num_levels - cut, tail_dict)
    return head, tail


def take_records(data: ColumnData, desc: ColumnDescriptor, records: npt.NDArray[np.int64]) -> ColumnData:
    """The records at the (increasing) positions *records* of a leaf's data."""
    records = np.asarray(records, dtype=np.int64)
    n_rec = count_records(data)
    if len(records) and (int(records[0]) < 0 or int(records[-1]) >= n_rec):
        raise ParquetFormatError(f"column {quoted(desc.dotted_path, bare=True)}: row {int(records[-1])} asked of {n_rec}")
    starts = record_starts(data)
    if starts is None:
        levels = records
    else:
        ends = np.append(starts[1:], data.num_levels)
        lens = (ends - starts)[records]
        out_starts = np.cumsum(lens) - lens
        levels = np.repeat(starts[records] - out_starts, lens) + np.arange(int(lens.sum()), dtype=np.int64)
    present = _present(data, desc)
    if present is None:
        value_idx = levels
    else:
        pos = np.cumsum(present, dtype=np.int64) - 1
        value_idx = pos[levels][present[levels]]
    d, r = data.def_levels, data.rep_levels
    dictionaries = None
    if data.dictionaries is not None:
        dictionaries = _take_dictionaries(data.dictionaries, levels, value_idx)
    return ColumnData(_take_values(data.values, value_idx), None if d is None else d[levels],
                      None if r is None else r[levels], len(levels), dictionaries)


def _take_dictionaries(runs: tuple[ChunkDictionary, ...], levels: npt.NDArray[np.int64],
                       value_idx: npt.NDArray[np.int64]) -> tuple[ChunkDictionary, ...]:
    """Each run keeps its dictionary and the taken positions inside it (both increasing)."""
    lv_bounds = np.cumsum([0] + [r.num_levels for r in runs])
    v_bounds = np.cumsum([0] + [len(r.indices) for r in runs])
    lv_cut = np.searchsorted(levels, lv_bounds)
    v_cut = np.searchsorted(value_idx, v_bounds)
    out = []
    for i, run in enumerate(runs):
        vi = value_idx[v_cut[i]:v_cut[i + 1]] - v_bounds[i]
        out.append(replace(run, indices=run.indices[vi], num_levels=int(lv_cut[i + 1] - lv_cut[i])))
    return tuple(out)
