"""Nested arrays: lists and maps (offsets into a child) and structs (one child per field).

Layout, as in Arrow:

* :class:`ListArray` -- ``offsets`` (int64, n + 1, starting at 0) into one
  child array; slot ``i`` holds ``child[offsets[i]:offsets[i + 1]]``.  A null
  list and an empty list both span no child slots; ``validity`` tells them
  apart.
* :class:`MapArray` -- a list whose child is a two-field
  :class:`StructArray` (``key``, ``value``).
* :class:`StructArray` -- one child per field, each as long as the struct;
  a null struct still has (filler) slots in its children.

``values`` of a list or map is its child array, of a struct the tuple of its
children.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, TypeId, ambiguous_name
from parquet_core.table.arrays import Array

__all__ = ["ListArray", "MapArray", "StructArray"]

_A = TypeVar("_A", bound=Array)


def _concat_validity(parts: list[Array]) -> npt.NDArray[np.bool_] | None:
    if all(p.validity is None for p in parts):
        return None
    return np.concatenate([p.validity if p.validity is not None else np.ones(len(p), bool)
                           for p in parts])


def _all_of(cls: type[_A], parts: list[Array]) -> list[_A]:
    """*parts*, each checked to be a *cls* (``Array.concat`` dispatches on the first one)."""
    same = [p for p in parts if isinstance(p, cls)]
    if len(same) != len(parts):
        raise TypeError(f"cannot concatenate a {cls.__name__} with arrays of another kind")
    return same


def _null_out(out: list[Any], validity: npt.NDArray[np.bool_] | None) -> list[Any]:
    if validity is not None:
        for i in np.flatnonzero(~validity).tolist():
            out[i] = None
    return out


class ListArray(Array):
    """A list per slot: ``offsets`` into ``values`` (the child array)."""

    __slots__ = ("_offsets",)

    def __init__(self, type: DataType, offsets: npt.NDArray[np.int64], values: Array,
                 validity: npt.NDArray[np.bool_] | None = None) -> None:
        super().__init__(type, values, validity)
        self._offsets = offsets

    @property
    def offsets(self) -> npt.NDArray[np.int64]:
        """Child offsets (int64, n + 1, starting at 0): slot ``i`` is ``values[offsets[i]:offsets[i + 1]]``."""
        return self._offsets

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def data(self) -> None:
        return None

    def _split(self, flat: list[Any]) -> list[Any]:
        # One Python slice per list: this is the edge where Python objects are made.
        o = self.offsets.tolist()
        return [flat[o[i]:o[i + 1]] for i in range(len(o) - 1)]

    def to_pylist(self) -> list[Any]:
        """Lists of Python values; ``None`` for null lists."""
        return _null_out(self._split(self.values.to_pylist()), self.validity)

    def to_numpy(self) -> Any:
        return self.values

    def slice(self, start: int, stop: int) -> ListArray:
        stop = max(min(stop, len(self)), start)
        offs = self.offsets[start:stop + 1]
        lo, hi = int(offs[0]), int(offs[-1])
        m = None if self.validity is None else self.validity[start:stop]
        return type(self)(self.type, offs - lo, self.values.slice(lo, hi), m)

    @staticmethod
    def concat(parts: list[Array]) -> ListArray:
        lists = _all_of(ListArray, parts)
        if len(lists) == 1:
            return lists[0]
        shift = np.cumsum([0] + [int(p.offsets[-1]) for p in lists[:-1]])
        offsets = np.concatenate([lists[0].offsets[:1]]
                                 + [p.offsets[1:] + s for p, s in zip(lists, shift)])
        child = Array.concat([p.values for p in lists])
        return type(lists[0])(lists[0].type, offsets, child, _concat_validity(parts))


class MapArray(ListArray):
    """A map per slot: a list of (key, value) entries in file order."""

    __slots__ = ()

    def to_pylist(self) -> list[Any]:
        """Lists of ``(key, value)`` tuples; ``None`` for null maps."""
        entries: StructArray = self.values
        keys, vals = (c.to_pylist() for c in entries.values)
        return _null_out(self._split(list(zip(keys, vals))), self.validity)


class StructArray(Array):
    """A struct per slot: ``values`` is the tuple of child arrays, one per field."""

    __slots__ = ("length", "column")

    def __init__(self, type: DataType, children: list[Array] | tuple[Array, ...], length: int,
                 validity: npt.NDArray[np.bool_] | None = None, column: str | None = None) -> None:
        super().__init__(type, tuple(children), validity)
        self.length = length
        #: dotted column path, for error messages (set by the reader for variant groups)
        self.column = column

    def __len__(self) -> int:
        return self.length

    @property
    def offsets(self) -> None:
        return None

    @property
    def data(self) -> None:
        return None

    def field(self, name_or_index: str | int) -> Array:
        """The child array of one field."""
        if isinstance(name_or_index, int):
            return self.values[name_or_index]
        found = [i for i, f in enumerate(self.type.fields) if f.name == name_or_index]
        if not found:
            raise KeyError(f"no field named {name_or_index!r} in {self.type}")
        if len(found) > 1:
            raise ambiguous_name(name_or_index, found, f" among the fields of {self.type}")
        return self.values[found[0]]

    def to_pylist(self) -> list[Any]:
        """One dict per slot (field name -> value); ``None`` for null structs.

        A ``variant`` group gives its decoded (and unshredded) values instead;
        :meth:`raw_pylist` gives its stored members.
        """
        if self.type.id is TypeId.VARIANT:
            from parquet_core.variant.shredding import unshred_rows

            return unshred_rows(self.raw_pylist(), self.type, self.column or "?")
        return self.raw_pylist()

    def raw_pylist(self) -> list[Any]:
        """One dict per slot of the stored members; ``None`` for null structs."""
        names = [f.name for f in self.type.fields]
        if len(set(names)) < len(names):    # a dict would keep one of them: refuse, as pyarrow does
            raise ParquetSchemaError(f"a {self.type} cannot be given as dicts: its fields share "
                                     "a name (read them by position with field(i))")
        cols = [c.to_pylist() for c in self.values]
        out: list[Any] = [dict(zip(names, row)) for row in zip(*cols)] if cols \
            else [{} for _ in range(self.length)]
        return _null_out(out, self.validity)

    def slice(self, start: int, stop: int) -> StructArray:
        stop = max(min(stop, len(self)), start)
        m = None if self.validity is None else self.validity[start:stop]
        return StructArray(self.type, [c.slice(start, stop) for c in self.values], stop - start, m,
                           self.column)

    @staticmethod
    def concat(parts: list[Array]) -> StructArray:
        structs = _all_of(StructArray, parts)
        if len(structs) == 1:
            return structs[0]
        width = len(parts[0].values)
        kids = [Array.concat([p.values[j] for p in parts]) for j in range(width)]
        return StructArray(parts[0].type, kids, sum(len(p) for p in parts), _concat_validity(parts),
                           getattr(parts[0], "column", None))
