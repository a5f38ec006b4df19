"""Partition columns from folder names: Hive ``key=value`` and Drill-style bare folders.

Reading, as ``pyarrow.dataset`` reads (``partitioning="hive"``):

* every ``key=value`` folder between the dataset root and a file is a
  partition column; key and value are URL-decoded (``%2F`` -> ``/``), which
  also decodes Spark's escapes; ``__HIVE_DEFAULT_PARTITION__`` is null;
* inferred types: ``int32`` when every non-null value of the column is an
  integer that fits, ``null`` when every value is null, else ``string``
  (pyarrow's inference; a value beyond int32 makes the column a string, as in
  pyarrow);
* ``partitioning=<Schema>`` gives the types (integers, floats, ``bool``,
  ``date``, ``string``); ``partitioning=["a", "b"]`` names bare folders
  (``2024/05/file``), level by level, as strings unless inferred as int32;
  ``partitioning=None`` reads no partition columns.

Writing (``write_to_dataset``): ``key=value`` with the value URL-encoded as
pyarrow encodes it (everything but ``A-Z a-z 0-9 - . _ ~`` becomes ``%XX``
of its UTF-8 bytes), null as ``__HIVE_DEFAULT_PARTITION__``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, FLOAT_IDS, Field, Schema, TypeId
from parquet_core.table.arrays import Array
from parquet_core.table.ingest import as_array

__all__ = ["Partitioning", "DEFAULT_PARTITION_NAME", "partition_segment", "resolve_partitioning",
           "encode_value", "decode_value"]

_STRING_BINARY_IDS = frozenset([TypeId.STRING, TypeId.BINARY])

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"
_INT = re.compile(r"[+-]?[0-9]+\Z")
_INT32 = (-(2**31), 2**31 - 1)


def encode_value(text: str) -> str:
    """URL-encode one folder name part as pyarrow does (only unreserved characters are kept)."""
    return urllib.parse.quote(text, safe="")


def decode_value(text: str) -> str:
    return urllib.parse.unquote(text)


def partition_segment(name: str, value: Any) -> str:
    """``key=value`` for one partition column (value already formatted as text, or None)."""
    return f"{encode_value(name)}={DEFAULT_PARTITION_NAME if value is None else encode_value(value)}"


@functools.lru_cache(maxsize=1 << 16)
def _hive_segment(seg: str) -> tuple[str, str | None] | None:
    """``(column, decoded value or None)`` of one ``key=value`` folder name (None: not one).
    Cached: the files of a dataset repeat the same few folder names."""
    key, eq, raw = seg.partition("=")
    if not eq or not key:
        return None
    return decode_value(key), None if raw == DEFAULT_PARTITION_NAME else decode_value(raw)


@dataclass(frozen=True)
class Partitioning:
    """How folder names become columns.

    ``flavor`` is ``"hive"`` (``key=value``) or ``"directory"`` (bare folders
    named by ``names``); ``schema`` holds the partition fields once known
    (given types, or inferred from the files found).
    """

    flavor: str
    names: tuple[str, ...] = ()
    given: Schema | None = None
    schema: Schema | None = None

    def parse(self, segments: Sequence[str]) -> list[tuple[str, str | None]]:
        """``[(column, decoded value or None)]`` for the folders between the root and a file."""
        out: list[tuple[str, str | None]] = []
        if self.flavor == "hive":
            for seg in segments:
                kv = _hive_segment(seg)
                if kv is not None:
                    out.append(kv)
            return out
        for name, seg in zip(self.names, segments):
            out.append((name, None if seg == DEFAULT_PARTITION_NAME else decode_value(seg)))
        return out

    def infer(self, parsed: Sequence[Sequence[tuple[str, str | None]]]) -> "Partitioning":
        """This partitioning with :attr:`schema` set from the values of every file."""
        order: list[str] = list(self.names) if self.flavor == "directory" else []
        values: dict[str, list[str | None]] = {n: [] for n in order}
        for spec in parsed:
            for name, value in spec:
                if name not in values:
                    order.append(name)
                    values[name] = []
                values[name].append(value)
        given = {f.name: f for f in self.given} if self.given is not None else {}
        fields = []
        for name in order:
            if name in given:
                fields.append(Field(name, given[name].type, True))
                continue
            seen = [v for v in values[name] if v is not None]
            if not seen:
                typ = DataType("null") if values[name] else DataType("string")
            elif all(_INT.match(v) and _INT32[0] <= int(v) <= _INT32[1] for v in set(seen)):
                typ = DataType("int32")
            else:
                typ = DataType("string")
            fields.append(Field(name, typ, True))
        return Partitioning(self.flavor, tuple(order) if self.flavor == "directory" else self.names,
                            self.given, Schema(fields))

    def arrays(self, spec: Sequence[tuple[str, str | None]]) -> dict[str, Array]:
        """One-row arrays of a file's partition values, typed by :attr:`schema` (cached per value)."""
        assert self.schema is not None
        got = dict(spec)
        cache = self.__dict__.setdefault("_typed", {})
        out = {}
        for f in self.schema:
            raw = got.get(f.name)
            key = (f.name, raw)
            arr = cache.get(key)
            if arr is None:
                arr = cache[key] = typed_value(raw, f)
            out[f.name] = arr
        return out

    def table(self, specs: Sequence[Sequence[tuple[str, str | None]]]) -> Any:
        """A table with one row per file: its partition values (for pruning all files at once)."""
        from parquet_core.table.arrays import Table

        from parquet_core.table.select import take_array

        assert self.schema is not None
        per_file = [dict(s) for s in specs]
        cache = self.__dict__.setdefault("_typed", {})
        cols = []
        for f in self.schema:
            if not per_file:
                cols.append(typed_value(None, f).slice(0, 0))
                continue
            # each distinct value typed once, then taken per file (the files of a dataset
            # repeat a few folder values; one Python step per file to find its value's index)
            index: dict[str | None, int] = {}
            codes = np.fromiter((index.setdefault(got.get(f.name), len(index)) for got in per_file),
                                dtype=np.int64, count=len(per_file))
            distinct = []
            for raw in index:
                arr = cache.get((f.name, raw))
                if arr is None:
                    arr = cache[(f.name, raw)] = typed_value(raw, f)
                distinct.append(arr)
            cols.append(take_array(distinct[0] if len(distinct) == 1 else Array.concat(distinct), codes))
        return Table(self.schema, cols, len(specs))


def typed_value(raw: str | None, field: Field) -> Array:
    """A one-row :class:`Array` holding *raw* converted to *field*'s type."""
    t = field.type
    if raw is None or t.id is TypeId.NULL:
        return as_array([None], field.name, Field(field.name, t, True))
    try:
        if t.is_integer:
            value: Any = int(raw)
        elif t.id in FLOAT_IDS:
            value = float(raw)
        elif t.id is TypeId.BOOL:
            if raw.lower() not in ("true", "false"):
                raise ValueError("not true/false")
            value = raw.lower() == "true"
        elif t.id is TypeId.DATE:
            value = dt.date.fromisoformat(raw)
        elif t.id in _STRING_BINARY_IDS:
            value = raw
        else:
            raise ParquetSchemaError(f"partition column {field.name!r}: type {t} is not supported "
                                     "(integers, floats, bool, date, string)")
    except ValueError as exc:
        raise ParquetSchemaError(f"partition column {field.name!r}: folder value {raw!r} is not "
                                 f"a valid {t} ({exc})") from None
    return as_array([value], field.name, Field(field.name, t, True))


def repeat(one: Array, n: int) -> Array:
    """*one* (a one-row array) repeated *n* times."""
    from parquet_core.table.select import take_array

    return take_array(one, np.zeros(n, dtype=np.int64))


def resolve_partitioning(partitioning: Any) -> Partitioning | None:
    """Turn ``partitioning=`` (``"hive"``, a Schema, a list of names, None) into a Partitioning."""
    if partitioning is None:
        return None
    if isinstance(partitioning, Partitioning):
        return Partitioning(partitioning.flavor, partitioning.names,
                            partitioning.given or partitioning.schema)
    if isinstance(partitioning, str):
        if partitioning != "hive":
            raise ValueError(f"partitioning must be 'hive', a schema, a list of names or None, "
                             f"not {partitioning!r}")
        return Partitioning("hive")
    if isinstance(partitioning, Schema):
        return Partitioning("hive", (), partitioning)
    if hasattr(partitioning, "names") and hasattr(partitioning, "field") and hasattr(partitioning, "types"):
        from parquet_core.interop.arrow import schema_from_arrow  # a pyarrow schema

        return Partitioning("hive", (), schema_from_arrow(partitioning))
    if isinstance(partitioning, (list, tuple)) and all(isinstance(n, str) for n in partitioning):
        return Partitioning("directory", tuple(partitioning))
    raise TypeError(f"partitioning must be 'hive', a pc.Schema, a list of names or None, "
                    f"not {type(partitioning).__name__}")
