"""A pandas DataFrame as a :class:`Table`, with pandas and numpy alone (no pyarrow).

The columns, types and index are what ``pa.Table.from_pandas(df)`` makes
(``preserve_index=None``):

* numpy bool / int / uint / float columns keep their type (zero-copy);
  ``NaN`` in a float column is null, as pyarrow's ``from_pandas`` has it;
* the nullable dtypes ``Int8``..``UInt64``, ``Float32/64``, ``boolean`` and
  ``string`` become their Arrow type, ``pd.NA`` null;
* ``datetime64[s|ms|us|ns]`` a timestamp of that unit (seconds stored as
  milliseconds, as Parquet has no seconds), a zone-aware column a UTC
  timestamp whose zone the metadata keeps; ``timedelta64`` a duration
  (an int64 count, the unit in ``ARROW:schema``);
* a categorical a dictionary (its categories, in order, unused ones too,
  and its codes' width and ``ordered`` flag);
* object columns are inferred value by value (str, bytes, Decimal, date,
  datetime, time, bool, int, float, lists, dicts; ``None``, ``NaN``,
  ``NaT`` and ``pd.NA`` are null), all-null ones the null type;
* a ``RangeIndex`` is stored as a ``range`` entry of the metadata, any
  other index (each level of a MultiIndex) as a column named after it, or
  ``__index_level_N__`` when unnamed.

The table's ``metadata`` holds the ``pandas`` key
(:mod:`parquet_core.interop.pandas_meta`) and the ``ARROW:schema`` key
pyarrow would write (encoded by :mod:`parquet_core.metadata.arrow_ipc_write`,
no pyarrow needed), so that pyarrow reads the file back to the same frame.

* a ``period`` column the extension type ``pandas.period`` pandas registers
  with pyarrow (its int64 ordinals, ``{"freq": ...}`` as extension metadata),
  an ``interval`` column ``pandas.interval`` (a struct of its ``left`` and
  ``right`` bounds, ``{"subtype": ..., "closed": ...}``), as pandas' own
  ``__arrow_array__`` makes them: pyarrow reads them back to the same dtypes;
* a sparse column is refused (pyarrow refuses it too), naming it.

pyarrow-backed ``ArrowDtype`` columns (and interval bounds pyarrow has no type
for) raise :class:`NotPandasConvertible`; the caller then goes through
pyarrow when it is installed.
"""

from __future__ import annotations

import datetime
import json
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.arrow_c.export import SchemaNode
from parquet_core.arrow_c.structs import FLAG_DICTIONARY_ORDERED
from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError
from parquet_core.interop import pandas_meta
from parquet_core.metadata.arrow_ipc import FieldFacts
from parquet_core.metadata.arrow_ipc_write import encode_schema_nodes
from parquet_core.schema.arrow_format import field_node
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.dictionary import DictionaryArray, DictionaryRun
from parquet_core.table.infer import array_from_pylist, fill_nulls, schema_error
from parquet_core.table.nested import StructArray
from parquet_core.table.select import take_array

__all__ = ["frame_to_table", "series_to_array", "NotPandasConvertible", "Converted", "refuse_sparse"]

_INT64_MAX = np.iinfo(np.int64).max


class NotPandasConvertible(UnsupportedFeatureError):
    """A dtype only pyarrow's conversion can store (period, interval, sparse, ArrowDtype)."""


@dataclass
class Converted:
    """One converted column: its array, the Arrow facts Parquet types do not carry
    (zone, duration, dictionary: None when there are none) and the pandas metadata."""

    array: Array
    facts: FieldFacts | None
    numpy_type: str
    metadata: dict[str, Any] | None


def refuse_sparse(dtype: Any, name: str) -> None:
    """A sparse column: refused, as pyarrow's ``from_pandas`` refuses it."""
    if str(dtype).startswith("Sparse"):
        raise UnsupportedFeatureError(
            f"column {name!r}: sparse dtype {dtype} is not supported (pyarrow refuses it too); "
            f"convert it first with .sparse.to_dense()")


def _refuse_foreign(dtype: Any, name: str) -> None:
    text = str(dtype)
    refuse_sparse(dtype, name)
    if hasattr(dtype, "pyarrow_dtype"):
        raise NotPandasConvertible(
            f"column {name!r}: dtype {text} needs pyarrow's conversion (an Arrow extension type); "
            f"install pyarrow, or convert the column first (astype(object) or its values)")


def _masked(values: np.ndarray, null: np.ndarray | None, dt: DataType) -> Array:
    validity = None if null is None or not null.any() else ~null
    return Array(dt, fill_nulls(values, validity), validity)


def _numpy_type(dtype: np.dtype) -> DataType:
    if dtype.kind == "b":
        return DataType("bool")
    if dtype.kind in "iu":
        return DataType(f"{'int' if dtype.kind == 'i' else 'uint'}{dtype.itemsize * 8}")
    return DataType(f"float{dtype.itemsize * 8}")


def _timestamps(raw: np.ndarray, unit: str, name: str, tz: str | None) -> tuple[Array, FieldFacts]:
    """int64 counts of *unit* (NaT = int64 min) as a timestamp column (seconds as ms)."""
    null = raw == np.iinfo(np.int64).min
    stored_unit = unit
    if unit == "s":
        bad = ((raw > _INT64_MAX // 1000) | (raw < -(_INT64_MAX // 1000))) & ~null
        if bad.any():
            raise schema_error(name, int(np.argmax(bad)), "seconds timestamp overflows milliseconds")
        raw, stored_unit = raw * 1000, "ms"
    dt = DataType("timestamp", unit=stored_unit, tz="UTC" if tz is not None else None)
    return _masked(raw, null, dt), FieldFacts(name, "timestamp", unit=unit, tz=tz)


def series_to_array(s: Any, name: str) -> Converted:
    """Convert one Series (or index level, as a Series) as ``pa.Array.from_pandas`` would."""
    dtype = s.dtype
    _refuse_foreign(dtype, name)
    text = str(dtype)
    if text.startswith("period["):
        return _periods(s, name, text)
    if text.startswith("interval["):
        return _intervals(s, name, text)
    if text == "category":
        return _categorical(s, name)
    if isinstance(dtype, np.dtype):
        kind = dtype.kind
        if kind in "biu" or (kind == "f" and dtype.itemsize in (2, 4, 8)):
            values = np.ascontiguousarray(s.to_numpy())
            null = np.isnan(values) if kind == "f" else None
            return Converted(_masked(values, null, _numpy_type(dtype)), None, text, None)
        if kind == "M":
            unit = np.datetime_data(dtype)[0]
            if unit not in ("s", "ms", "us", "ns"):
                raise schema_error(name, None, f"numpy dtype {dtype} has no Arrow type")
            arr, facts = _timestamps(s.to_numpy().view(np.int64), unit, name, None)
            return Converted(arr, facts if unit == "s" else None, text, None)
        if kind == "m":
            unit = np.datetime_data(dtype)[0]
            raw = s.to_numpy().view(np.int64)
            arr = _masked(raw, raw == np.iinfo(np.int64).min, DataType("int64"))
            return Converted(arr, FieldFacts(name, "duration", unit=unit), text, None)
        if kind == "O":
            return _objects(s, name, text)
        raise schema_error(name, None, f"dtype {dtype} has no Arrow type")
    tz = getattr(dtype, "tz", None)
    if tz is not None:   # DatetimeTZDtype: the UTC instants, the zone in the metadata
        unit = dtype.unit
        naive = s.array.tz_convert("UTC").tz_localize(None)
        arr, facts = _timestamps(np.asarray(naive).view(np.int64), unit, name, pandas_meta.tz_name(tz))
        return Converted(arr, facts, f"datetime64[{unit}]", {"timezone": facts.tz})
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    null = np.asarray(s.isna(), dtype=bool)
    if numpy_dtype is not None and numpy_dtype.kind in "biuf" and text != "string":
        values = s.to_numpy(dtype=numpy_dtype, na_value=numpy_dtype.type(0))
        return Converted(_masked(values, null, _numpy_type(numpy_dtype)), None, text, None)
    if text == "string" or text == "str":
        objects = s.to_numpy(dtype=object, na_value=None)
        arr = array_from_pylist(objects, name, null)
        if arr.type.id is TypeId.NULL:   # every value missing: still a string column
            n = len(s)
            arr = Array(DataType("string"), ByteArrays(np.zeros(n + 1, np.int64), np.zeros(0, np.uint8)),
                        np.zeros(n, bool) if n else None)
        return Converted(arr, None, text, None)
    return _objects(s, name, text)


def _periods(s: Any, name: str, numpy_type: str) -> Converted:
    """A period column: its ordinals (int64), the frequency in the ``pandas.period`` extension
    type's metadata (what pandas' ``PeriodArray.__arrow_array__`` gives pyarrow)."""
    periods = s.array
    null = np.asarray(periods.isna(), dtype=bool)
    arr = _masked(np.array(periods.asi8, dtype=np.int64), null, DataType("int64"))
    facts = FieldFacts(name, "int", bits=64, extension="pandas.period",
                       extension_metadata=json.dumps({"freq": periods.freqstr}))
    return Converted(arr, facts, numpy_type, None)


def _arrow_subtype(subtype: np.dtype) -> str:
    """pyarrow's ``str(type)`` of an interval's bounds (what pandas records as its subtype)."""
    if subtype.kind == "f":
        return {2: "halffloat", 4: "float", 8: "double"}[subtype.itemsize]
    if subtype.kind in "Mm":
        return f"{'timestamp' if subtype.kind == 'M' else 'duration'}[{np.datetime_data(subtype)[0]}]"
    return f"{'int' if subtype.kind == 'i' else 'uint'}{subtype.itemsize * 8}"


def _intervals(s: Any, name: str, numpy_type: str) -> Converted:
    """An interval column: a struct of its bounds (``left``, ``right``; null where the
    interval is), ``{"subtype", "closed"}`` in the ``pandas.interval`` extension type's
    metadata (what pandas' ``IntervalArray.__arrow_array__`` gives pyarrow)."""
    import pandas as pd

    intervals = s.array
    subtype = s.dtype.subtype
    if not isinstance(subtype, np.dtype) or subtype.kind not in "iufMm" \
            or (subtype.kind == "f" and subtype.itemsize not in (2, 4, 8)):
        # pyarrow has no type for such bounds (zone-aware ones...): it refuses them too
        raise NotPandasConvertible(f"column {name!r}: interval bounds of dtype {subtype} have no Arrow type")
    arrow_subtype = _arrow_subtype(subtype)
    bounds = [series_to_array(pd.Series(np.asarray(side), copy=False), f"{name}.{side_name}")
              for side, side_name in ((intervals.left, "left"), (intervals.right, "right"))]
    fields = tuple(Field(n, b.array.type, True) for n, b in zip(("left", "right"), bounds))
    null = np.asarray(intervals.isna(), dtype=bool)
    arr = StructArray(DataType("struct", fields=fields), [b.array for b in bounds], len(s),
                      None if not null.any() else ~null)
    kids = tuple(b.facts if b.facts is not None else FieldFacts(n, "") for n, b in zip(("left", "right"), bounds))
    facts = FieldFacts(name, "struct", extension="pandas.interval", children=kids,
                       extension_metadata=json.dumps({"subtype": arrow_subtype, "closed": intervals.closed}))
    return Converted(arr, facts, numpy_type, None)


def _objects(s: Any, name: str, numpy_type: str) -> Converted:
    from parquet_core.interop.ingest import as_array  # nested values (lists, dicts) too

    values = s.to_numpy(dtype=object)
    null = np.asarray(s.isna(), dtype=bool)
    if null.any():
        values = values.copy()
        values[null] = None
    present = values[~null]
    if len(present) and all(isinstance(v, datetime.timedelta) for v in present):
        # datetime.timedelta objects: a duration[us], as pyarrow infers them
        one = datetime.timedelta(microseconds=1)
        raw = np.zeros(len(values), dtype=np.int64)
        raw[~null] = [v // one for v in present]
        arr = _masked(raw, null, DataType("int64"))
        return Converted(arr, FieldFacts(name, "duration", unit="us"), numpy_type, None)
    return Converted(as_array(values, name, validate_utf8=False), None, numpy_type, None)


def _categorical(s: Any, name: str) -> Converted:
    cat = s.cat
    codes = np.asarray(cat.codes.to_numpy())
    categories = series_to_array(cat.categories.to_series(index=None), f"{name} (categories)").array
    null = codes < 0
    validity = None if not null.any() else ~null
    indices = np.where(null, 0, codes).astype(np.int32)
    if isinstance(categories.values, ByteArrays) and categories.validity is None:
        arr: Array = DictionaryArray(categories.type, [DictionaryRun(categories.values, indices)], validity)
    else:   # other category types: the values (ARROW:schema still says dictionary)
        dense = take_array(categories, indices.astype(np.int64))
        arr = Array(dense.type, fill_nulls(dense.values, validity), validity) if type(dense) is Array \
            else dense
        if validity is not None and type(dense) is not Array:
            raise ParquetSchemaError(f"column {name!r}: categories of type {dense.type} are not supported")
    bits = codes.dtype.itemsize * 8
    facts = FieldFacts(name, "dictionary", dictionary=True, ordered=bool(cat.ordered), index_bits=bits)
    meta = {"num_categories": len(cat.categories), "ordered": bool(cat.ordered)}
    return Converted(arr, facts, str(codes.dtype), meta)


# ---------------------------------------------------------------- the frame

def _index_level_name(level: Any, i: int, taken: list[str]) -> str:
    if level.name is not None and level.name not in taken:
        return pandas_meta.name_to_string(level.name)
    j = i
    while f"__index_level_{j}__" in taken:
        j += 1
    return f"__index_level_{j}__"


def _level_name(name: Any) -> Any:
    import json

    try:
        json.dumps(name)
        return name
    except TypeError:
        return str(name)


def _column_index_entry(pd: Any, level: Any, name: Any) -> dict[str, Any]:
    """The ``column_indexes`` entry of one level of ``df.columns``."""
    dtype = level.dtype
    extra: dict[str, Any] | None
    if str(dtype) == "category":
        numpy_type, extra = str(level.codes.dtype), {"num_categories": len(level.categories),
                                                     "ordered": bool(level.ordered)}
    elif getattr(dtype, "tz", None) is not None:
        numpy_type, extra = f"datetime64[{dtype.unit}]", {"timezone": pandas_meta.tz_name(dtype.tz)}
    else:
        numpy_type, extra = str(dtype), None
    logical = _logical_of_index(pd, level)
    if logical == "unicode":
        extra = {"encoding": "UTF-8"}
    return pandas_meta.column_entry(name, name, logical, numpy_type, extra)


_NUMPY_LOGICAL = {"bool": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
                  "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
                  "float32": "float32", "float64": "float64", "datetime64[D]": "date"}


def _logical_of_index(pd: Any, level: Any) -> str:
    dtype = level.dtype
    if isinstance(dtype, np.dtype):
        if dtype.kind == "U":
            return "string"
        if dtype.kind == "S":
            return "bytes"
        if str(dtype) in _NUMPY_LOGICAL:
            return _NUMPY_LOGICAL[str(dtype)]
    if getattr(dtype, "tz", None) is not None:
        return "datetimetz"
    if str(dtype).startswith("datetime64"):
        return str(dtype)
    inferred = pd.api.types.infer_dtype(level, skipna=True)
    return "unicode" if inferred == "string" else inferred


def frame_to_table(df: Any) -> Table:
    """Convert *df* (see the module docstring); its ``metadata`` holds the pandas key.

    Raises
    ------
    ParquetSchemaError
        For duplicate column names and values without an Arrow type (named with the row).
    NotPandasConvertible
        For dtypes only pyarrow can convert.
    """
    import pandas as pd

    if not df.columns.is_unique:
        dup = next(c for i, c in enumerate(df.columns) if c in list(df.columns[:i]))
        raise ParquetSchemaError(f"column {dup!r} appears more than once")
    names = [pandas_meta.name_to_string(c) for c in df.columns]
    for n in names:
        if n is not None and not (isinstance(n, float)) and not isinstance(n, str):
            raise ParquetSchemaError(f"column name {n!r} is not a string")
    field_names = [str(n) for n in names]
    if len(set(field_names)) != len(field_names):
        dup = next(n for i, n in enumerate(field_names) if n in field_names[:i])
        raise ParquetSchemaError(f"column {dup!r} appears more than once")

    converted = [series_to_array(df.iloc[:, i], field_names[i]) for i in range(df.shape[1])]
    entries = [pandas_meta.column_entry(n, fn, pandas_meta.pandas_type(c.array.type, c.facts),
                                        c.numpy_type, _decimal_meta(c))
               for n, fn, c in zip(names, field_names, converted)]
    fields = list(field_names)

    index = df.index
    levels = [index.get_level_values(i) for i in range(index.nlevels)]
    descriptors: list[Any] = []
    index_names: list[str] = []
    for i, level in enumerate(levels):
        if type(level).__name__ == "RangeIndex":
            descriptors.append({"kind": "range", "name": _level_name(level.name), "start": level.start,
                                "stop": level.stop, "step": level.step})
            continue
        field = _index_level_name(level, i, field_names + index_names)
        c = series_to_array(pd.Series(level, copy=False), field)
        converted.append(c)
        fields.append(field)
        index_names.append(field)
        descriptors.append(field)
        entries.append(pandas_meta.column_entry(pandas_meta.name_to_string(level.name), field,
                                                pandas_meta.pandas_type(c.array.type, c.facts),
                                                c.numpy_type, _decimal_meta(c)))

    column_levels = getattr(df.columns, "levels", [df.columns])
    column_names = getattr(df.columns, "names", [df.columns.name])
    column_indexes = [_column_index_entry(pd, level, name) for level, name in zip(column_levels, column_names)]
    attributes = df.attrs
    try:
        import json

        json.dumps(attributes)
    except (TypeError, ValueError):
        attributes = {}
    version = getattr(sys.modules.get("parquet_core"), "__version__", "unknown")
    pandas_json = pandas_meta.dumps(descriptors, column_indexes, entries, attributes,
                                    {"library": "parquet-core", "version": version}, pd.__version__)

    schema = Schema([Field(f, c.array.type) for f, c in zip(fields, converted)])
    metadata = {b"pandas": pandas_json,
                b"ARROW:schema": _arrow_schema(schema, [c.facts for c in converted], pandas_json)}
    return Table(schema, [c.array for c in converted], len(df), metadata=metadata)


def _decimal_meta(c: Converted) -> dict[str, Any] | None:
    dt = c.array.type
    if dt.id is TypeId.DECIMAL and (c.facts is None or not c.facts.dictionary):
        c.numpy_type = "object"
        return {"precision": dt.precision, "scale": dt.scale}
    return c.metadata


_UNIT_LETTER = {"s": "s", "ms": "m", "us": "u", "ns": "n"}
_INDEX_FORMAT = {8: "c", 16: "s", 32: "i", 64: "l"}


def _arrow_node(f: Field, facts: FieldFacts | None) -> SchemaNode:
    """The Arrow field pyarrow's ``from_pandas`` makes for a converted column."""
    node = field_node(Field(f.name, f.type, True, field_id=f.field_id))
    if node.format == "+l" and node.children:   # pandas lists convert to list<item>
        node.children[0].name = "item"
    if facts is None:
        return node
    if facts.extension is not None:      # pandas.period / pandas.interval: the storage type, named
        if facts.children:
            node.children = [_arrow_node(Field(c.name, c.type, True), k if k.kind else None)
                             for c, k in zip(f.type.fields, facts.children)]
        node.metadata = {b"ARROW:extension:name": facts.extension.encode(),
                         b"ARROW:extension:metadata": (facts.extension_metadata or "").encode()}
        return node
    if facts.dictionary:
        flags = node.flags | (FLAG_DICTIONARY_ORDERED if facts.ordered else 0)
        value = SchemaNode(node.format, "", node.flags, node.metadata, node.children)
        return SchemaNode(_INDEX_FORMAT[facts.index_bits], node.name, flags, None, [], value)
    if facts.kind == "duration":
        node.format = f"tD{_UNIT_LETTER[facts.unit or 'ns']}"
    elif facts.kind == "timestamp":
        node.format = f"ts{_UNIT_LETTER[facts.unit or f.type.unit or 'us']}:{facts.tz or ''}"
    return node


def _arrow_schema(schema: Schema, facts: list[FieldFacts | None], pandas_json: bytes) -> bytes:
    """The ``ARROW:schema`` pyarrow would write for these columns (no pyarrow needed)."""
    return encode_schema_nodes([_arrow_node(f, fa) for f, fa in zip(schema, facts)], {b"pandas": pandas_json})
