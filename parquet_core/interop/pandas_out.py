"""A :class:`Table` as a pandas DataFrame, with pandas and numpy alone (no pyarrow).

The result is the frame ``pq.read_table(f).to_pandas()`` gives for the same
file (pyarrow's defaults, no ``types_mapper``):

==========================  ================================================
column                      pandas
==========================  ================================================
bool                        bool; ``object`` (True / False / None) with nulls
int / uint                  that dtype; ``float64`` (NaN) with nulls
float16 / 32 / 64           that dtype, NaN for nulls
timestamp                   ``datetime64[unit]`` (the ``ARROW:schema`` unit),
                            zone-aware when the column has a zone
int96                       ``datetime64[ns]``
duration                    ``timedelta64[unit]``
date                        ``object`` of ``datetime.date``
time                        ``object`` of ``datetime.time``
string / json / enum        ``object`` of str
binary / fixed-size / ...   ``object`` of bytes; uuid: ``uuid.UUID``
decimal                     ``object`` of ``Decimal``
null                        ``object`` of None
list                        ``object``: one numpy array per row
struct                      ``object``: one dict per row
map                         ``object``: one list of (key, value) per row
dictionary                  ``Categorical`` (every dictionary entry a category)
==========================  ================================================

The ``pandas`` metadata then restores what the frame had: the index (a
range, or the index columns, named back), the column labels and their
index's name and dtype, nullable extension dtypes (``Int64``, ``boolean``,
``string``, ``Float64``...), ``period`` and ``interval`` columns (see
:mod:`parquet_core.interop.pandas_periods`), a zone the column lost, and ``attrs``.  Arrow
facts Parquet has no type for (zone names, durations, dictionaries, units)
come from the file's ``ARROW:schema`` read by
:mod:`parquet_core.metadata.arrow_ipc` (no pyarrow), or, when a table has
none, from the ``pandas`` metadata.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime
import decimal
import re
from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import UnsupportedFeatureError
from parquet_core.interop import pandas_meta
from parquet_core.interop.pandas_objects import as_objects, date_objects, decimal_objects
from parquet_core.interop.pandas_periods import interval_array, period_array, period_or_interval_dtype
from parquet_core.metadata.arrow_ipc import FieldFacts, schema_field_facts
from parquet_core.schema.pyvalues import py_values
from parquet_core.schema.temporal import int96_to_ns
from parquet_core.schema.types import FLOAT_IDS, INTEGER_IDS, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.dictionary import DictionaryArray
from parquet_core.table.nested import MapArray, StructArray

__all__ = ["table_to_frame", "column_facts", "needs_pyarrow"]

#: numpy dtypes pandas stores as they are (pyarrow's list of the same name)
_PLAIN_NUMPY = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                "float32", "float64", "object", "bool"}
_NAT = np.iinfo(np.int64).min


# ---------------------------------------------------------------- Arrow facts

def column_facts(table: Table, meta: dict[str, Any] | None) -> list[FieldFacts | None]:
    """Per column, what Arrow knew of it beyond its Parquet type (None: nothing).

    From the ``ARROW:schema`` entry when its top-level names are the table's
    (a file read whole, a converted frame); for a column missing there, from
    the ``pandas`` metadata (zone, duration unit, categorical).
    """
    names = table.column_names
    out: list[FieldFacts | None] = [None] * len(names)
    encoded = (table.metadata or {}).get(b"ARROW:schema")
    recorded = schema_field_facts(encoded) if encoded is not None else None
    if recorded is not None:
        by_name: dict[str, FieldFacts] = {}
        for f in recorded:
            by_name.setdefault(f.name, f)   # the first field of a name
        if [f.name for f in recorded] == names:
            return _zones_kept(table, list(recorded))
        for i, n in enumerate(names):
            if len(table.schema.positions(n)) == 1 and n in by_name:
                out[i] = by_name[n]
        return _zones_kept(table, out)
    if meta is None:
        return out
    for entry in meta["columns"]:
        if not isinstance(entry, dict):
            continue
        name = entry.get("field_name", entry.get("name"))
        if not isinstance(name, str) or len(table.schema.positions(name)) != 1:
            continue
        i = table.schema.index(name)
        facts = _facts_from_entry(name, entry, table.columns[i])
        if facts is not None:
            out[i] = facts
    return out


def _zones_kept(table: Table, facts: list[FieldFacts | None]) -> list[FieldFacts | None]:
    """*facts* without the zone ``ARROW:schema`` records for a timestamp column read without
    one (an INT96 column read with ``coerce_int96_timestamp_unit``): pyarrow gives a zone's
    name back only to a column adjusted to UTC, as ``to_arrow`` does."""
    out = list(facts)
    for i, (f, col) in enumerate(zip(facts, table.columns)):
        if f is not None and f.kind == "timestamp" and f.tz and col.type.id is TypeId.TIMESTAMP \
                and col.type.tz is None:
            out[i] = dataclasses.replace(f, tz=None)
    return out


def _facts_from_entry(name: str, entry: dict[str, Any], arr: Array) -> FieldFacts | None:
    logical, numpy_type = entry.get("pandas_type"), str(entry.get("numpy_type"))
    extra = entry.get("metadata") or {}
    tid = arr.type.id
    if logical == "categorical" and tid not in (TypeId.LIST, TypeId.STRUCT, TypeId.MAP):
        return FieldFacts(name, "dictionary", dictionary=True, ordered=bool(extra.get("ordered")))
    unit = re.fullmatch(r"(datetime|timedelta)64\[(s|ms|us|ns)\]", numpy_type)
    if tid is TypeId.INT64 and unit and unit.group(1) == "timedelta":
        return FieldFacts(name, "duration", unit=unit.group(2))
    if tid is TypeId.TIMESTAMP and unit and unit.group(1) == "datetime":
        tz = extra.get("timezone") if logical == "datetimetz" else None
        return FieldFacts(name, "timestamp", unit=arr.type.unit, tz=tz if tz else arr.type.tz)
    return None


# ---------------------------------------------------------------- columns

def _null_mask(arr: Array) -> np.ndarray | None:
    return None if arr.validity is None or arr.validity.all() else ~arr.validity


def _objects(items: list[Any], null: np.ndarray | None) -> np.ndarray:
    out = as_objects(items)
    if null is not None:
        out[null] = None
    return out


def _timestamps(pd: Any, arr: Array, facts: FieldFacts | None) -> Any:
    dt = arr.type
    if dt.id is TypeId.INT96:
        raw = int96_to_ns(arr.values, arr.validity)
        if raw is None:
            raise UnsupportedFeatureError("an INT96 timestamp is out of the datetime64[ns] range")
        unit, tz, values = "ns", None, raw
    else:
        unit, tz, values = dt.unit or "us", dt.tz, np.asarray(arr.values, dtype=np.int64)
        if facts is not None and facts.kind == "timestamp":
            tz = facts.tz   # the unit stays the stored one (pyarrow reads seconds as ms too)
    null = _null_mask(arr)
    if null is not None:
        values = np.where(null, _NAT, values)
    naive = values.view(f"datetime64[{unit}]")
    if tz is None:
        return naive
    return pd.DatetimeIndex(naive).tz_localize("UTC").tz_convert(_tzinfo(pd, tz)).array


def _tzinfo(pd: Any, tz: str) -> Any:
    """The zone of Arrow's text *tz* as pyarrow hands it to pandas: a fixed offset
    (``+05:30``) as pytz's ``FixedOffset`` before pandas 3 (when pytz is there), else
    ``datetime.timezone``; a name as pandas itself resolves it."""
    m = re.fullmatch(r"([+-])(\d\d):(\d\d)", tz)
    if m is None:
        return tz
    minutes = (int(m.group(2)) * 60 + int(m.group(3))) * (-1 if m.group(1) == "-" else 1)
    if int(pd.__version__.split(".")[0]) < 3:
        try:
            import pytz  # type: ignore[import-untyped]

            return pytz.FixedOffset(minutes)
        except ImportError:
            pass
    return datetime.timezone(datetime.timedelta(minutes=minutes))


def _categorical(pd: Any, arr: Array, facts: FieldFacts | None) -> Any:
    # a column named in read_dictionary is unordered, whatever ARROW:schema says (as in pyarrow)
    ordered = bool(facts.ordered) if facts is not None and not getattr(arr, "requested", False) else False
    null = _null_mask(arr)
    if isinstance(arr, DictionaryArray):
        dictionaries = [_values(pd, Array(arr.type, r.dictionary), None) for r in arr.runs]
        parts = [pd.Index(np.asarray(d, dtype=object) if not isinstance(d, np.ndarray) else d) for d in dictionaries]
        categories = parts[0]
        for p in parts[1:]:   # later dictionaries add their new entries, as pyarrow unifies chunks
            categories = categories.append(p[~p.isin(categories)])
        codes = np.concatenate([np.asarray(categories.get_indexer(p))[r.indices]
                                for p, r in zip(parts, arr.runs)]) if len(arr) else np.zeros(0, np.int64)
    else:
        dense = _values(pd, Array(arr.type, arr.values, arr.validity), None)
        codes, categories = pd.factorize(dense, use_na_sentinel=True)
        categories = pd.Index(categories)
    codes = np.asarray(codes, dtype=np.int64)
    if null is not None:
        codes = np.where(null, -1, codes)
    return pd.Categorical.from_codes(codes, categories=categories, ordered=ordered)


def _values(pd: Any, arr: Array, facts: FieldFacts | None) -> Any:
    """One column as a numpy array (or pandas array), pyarrow's default types (module table)."""
    dt = arr.type
    tid = dt.id
    # pyarrow keeps only string and binary dictionaries (others read back decoded)
    if isinstance(arr, DictionaryArray) or (facts is not None and facts.dictionary
                                            and isinstance(arr.values, ByteArrays)):
        return _categorical(pd, arr, facts)
    null = _null_mask(arr)
    if tid is TypeId.NULL:
        return np.full(len(arr), None, dtype=object)
    if tid is TypeId.BOOL:
        values = np.asarray(arr.values, dtype=bool)
        return values if null is None else _objects(values.tolist(), null)
    if facts is not None and facts.kind == "duration" and tid is TypeId.INT64:
        values = np.asarray(arr.values, dtype=np.int64)
        if null is not None:
            values = np.where(null, _NAT, values)
        return values.view(f"timedelta64[{facts.unit or 'ns'}]")
    if tid in INTEGER_IDS:
        if null is None:
            return np.asarray(arr.values)
        out = np.asarray(arr.values).astype(np.float64)
        out[null] = np.nan
        return out
    if tid in FLOAT_IDS:
        if null is None:
            return np.asarray(arr.values)
        out = np.array(arr.values, copy=True)
        out[null] = np.nan
        return out
    if tid in (TypeId.TIMESTAMP, TypeId.INT96):
        return _timestamps(pd, arr, facts)
    if tid is TypeId.DATE:
        days = np.asarray(arr.values, dtype=np.int64)
        ok = (days >= -719162) & (days <= 2932896)
        if ok.all():
            dates = date_objects(pd, days)
            if null is not None:
                dates[null] = None
            return dates
    if tid is TypeId.DECIMAL:
        decimals = decimal_objects(pd, arr)
        if null is not None:
            decimals[null] = None
        return decimals
    if tid in (TypeId.FIXED_SIZE_BINARY, TypeId.INTERVAL):
        raw = np.ascontiguousarray(arr.values)
        return _objects([bytes(r) for r in raw], null)
    if tid is TypeId.LIST or tid is TypeId.MAP:
        return _lists(pd, arr, facts)
    if tid in (TypeId.STRUCT, TypeId.VARIANT):
        return _structs(pd, arr, facts)
    if dt.is_text:
        shared = _shared_texts(pd, arr.values)
        if shared is not None:
            if null is not None:
                shared[null] = None
            return shared
        fast = _texts(arr.values)
        if fast is not None:
            return _objects(fast, null)
    if isinstance(arr.values, ByteArrays) or tid in (TypeId.DECIMAL, TypeId.TIME, TypeId.UUID, TypeId.DATE):
        return _objects(py_values(dt, arr.values), null)
    raise UnsupportedFeatureError(f"to_pandas: no pandas conversion for type {dt}")


#: _shared_texts: columns shorter than this are decoded value by value (nothing to gain)
_SHARED_MIN_ROWS = 1024
#: _shared_texts: the longest value it keys (four 64-bit words)
_SHARED_MAX_BYTES = 32


def _shared_texts(pd: Any, values: ByteArrays) -> np.ndarray | None:
    """A text column as an object array in which each distinct value is decoded once and
    the same ``str`` shared by its rows (what pyarrow's ``deduplicate_objects`` does), or
    None when that does not pay: few rows, values over 32 bytes, a NUL byte, more than a
    quarter of the values distinct, bytes that are not UTF-8.

    Each value's bytes, zero-padded, are its exact key (no NUL byte inside, so no two
    values share one): one to four 64-bit words per row, numbered by ``pd.factorize``.
    """
    n = len(values)
    offsets = np.asarray(values.offsets, dtype=np.int64)
    if n < _SHARED_MIN_ROWS:
        return None
    starts, lengths = offsets[:-1], np.diff(offsets)
    longest = int(lengths.max())
    if longest > _SHARED_MAX_BYTES:
        return None
    data = np.asarray(values.data, dtype=np.uint8)
    lo, hi = int(offsets[0]), int(offsets[-1])
    if not data[lo:hi].all():
        return None
    # 8 bytes from every start at once: a uint64 view of the zero-padded bytes with a one-byte
    # stride (value k is the 8 bytes from byte k, unaligned), read at each start (one 1-D
    # gather: a third of the time of gathering rows of a sliding window), the bytes past each
    # value's end masked off; the padding covers the last word of the longest value kept
    padded = np.zeros(hi - lo + _SHARED_MAX_BYTES + 8, dtype=np.uint8)
    padded[:hi - lo] = data[lo:hi]
    at_byte = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    masks = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
    rel = starts - lo

    def word(at: int) -> np.ndarray:
        raw = at_byte[rel + at] if at else at_byte[rel]
        return raw & masks[lengths if longest <= 8 else np.clip(lengths - at, 0, 8)]

    codes, uniques = pd.factorize(word(0))
    for at in range(8, longest, 8):    # each further word folded into the codes so far
        high, _ = pd.factorize(word(at))
        codes, uniques = pd.factorize(codes.astype(np.int64) * (int(high.max()) + 1) + high)
        if len(uniques) > n // 4:
            return None
    distinct = len(uniques)
    if distinct > n // 4:
        return None
    try:
        if longest <= 8:
            # a distinct word is its value's bytes, zero-padded (no NUL inside): 'S8' drops the padding
            texts = [b.decode("utf-8") for b in np.asarray(uniques, dtype="<u8").view("S8").tolist()]
        else:
            first = np.empty(distinct, dtype=np.int64)
            first[codes[::-1]] = np.arange(n - 1, -1, -1, dtype=np.int64)   # each code's first row
            texts = [data[int(offsets[i]):int(offsets[i + 1])].tobytes().decode("utf-8")
                     for i in first.tolist()]
    except UnicodeDecodeError:
        return None
    shared = np.empty(distinct, dtype=object)
    shared[:] = texts
    return shared[codes]


def _texts(values: ByteArrays) -> list[str] | None:
    """Every value of a text column as a str, in one decode: the bytes are laid out with a
    NUL after each value, decoded at once and split there.  None when a value holds a NUL
    (or the bytes are not UTF-8): the caller then decodes value by value."""
    n = len(values)
    offsets = np.asarray(values.offsets, dtype=np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = np.asarray(values.data[lo:hi], dtype=np.uint8)
    if n == 0 or (len(data) and not data.all()):
        return None if n else []
    spaced = np.zeros(len(data) + n, dtype=np.uint8)    # value i starts i bytes further on
    is_data = np.ones(len(spaced), dtype=bool)
    is_data[offsets[1:] - lo + np.arange(n, dtype=np.int64)] = False   # the NUL after each value
    spaced[is_data] = data
    try:
        return spaced[:-1].tobytes().decode("utf-8").split("\0")
    except UnicodeDecodeError:
        return None


def _child_facts(facts: FieldFacts | None, i: int) -> FieldFacts | None:
    return facts.children[i] if facts is not None and len(facts.children) > i else None


def _py_items(pd: Any, values: Any) -> list[Any]:
    """Python objects of converted values, as pyarrow puts them in dicts and tuples:
    timestamps as ``datetime`` (``Timestamp`` in nanoseconds), durations as their raw
    count."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "m":
        return values.view(np.int64).tolist()
    if isinstance(values, np.ndarray) and values.dtype.kind == "M":
        if np.datetime_data(values.dtype)[0] == "ns":
            return list(pd.Series(values, copy=False))
        return values.astype("datetime64[us]").astype(object).tolist()
    if isinstance(values, np.ndarray):
        return values.tolist() if values.dtype != object else list(values)
    if getattr(values.dtype, "tz", None) is not None:
        return list(values.to_pydatetime())
    return list(values)


def _lists(pd: Any, arr: Array, facts: FieldFacts | None) -> np.ndarray:
    offsets = np.asarray(arr.offsets, dtype=np.int64)
    child: Array = arr.values
    null = _null_mask(arr)
    if isinstance(arr, MapArray) or arr.type.id is TypeId.MAP:
        entries = _child_facts(facts, 0)
        keys = _py_items(pd, _values(pd, child.values[0], _child_facts(entries, 0)))
        vals = _py_items(pd, _values(pd, child.values[1], _child_facts(entries, 1)))
        pairs = list(zip(keys, _nulls_as_none(vals, child.values[1])))
        rows = [pairs[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
        return _objects(rows, null)
    flat = _values(pd, child, _child_facts(facts, 0))
    if getattr(flat.dtype, "tz", None) is not None:   # list items lose their zone (UTC wall time), as in pyarrow
        flat = np.asarray(flat.tz_convert("UTC").tz_localize(None))
    if not isinstance(flat, np.ndarray):
        flat = np.asarray(flat, dtype=object)
    rows = [flat[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
    out = np.empty(len(rows), dtype=object)
    for i, r in enumerate(rows):
        out[i] = r
    if null is not None:
        out[null] = None
    return out


def _nulls_as_none(items: list[Any], arr: Array) -> list[Any]:
    if arr.validity is not None:
        for i in np.flatnonzero(~arr.validity).tolist():
            items[i] = None
    return items


def _column(pd: Any, arr: Array, facts: FieldFacts | None, numpy_type: Any) -> Any:
    """One column or index level: a period or interval column as such (pandas_periods.py),
    any other as :func:`_values` converts it."""
    dtype = period_or_interval_dtype(pd, facts if _storage_kept(arr, facts) else None, numpy_type)
    if dtype is not None and isinstance(dtype, pd.PeriodDtype) and arr.type.id in INTEGER_IDS:
        return period_array(pd, np.asarray(arr.values), _null_mask(arr), dtype)
    if dtype is not None and isinstance(dtype, pd.IntervalDtype) and isinstance(arr, StructArray) \
            and [f.name for f in arr.type.fields] == ["left", "right"]:
        left, right = (_values(pd, c, _child_facts(facts, i)) for i, c in enumerate(arr.values))
        return interval_array(pd, left, right, dtype)
    return _values(pd, arr, facts)


def _storage_kept(arr: Array, facts: FieldFacts | None) -> bool:
    """False when a column's stored type is not the storage its ``ARROW:schema`` extension
    type had: pyarrow then drops the extension type.  Only seconds timestamps change so
    (stored as milliseconds): an interval of ``datetime64[s]`` bounds."""
    if facts is None or not isinstance(arr, StructArray):
        return True
    return all(k.kind != "timestamp" or c.type.id is not TypeId.TIMESTAMP or c.type.unit == k.unit
               for c, k in zip(arr.values, facts.children))


def _structs(pd: Any, arr: Array, facts: FieldFacts | None) -> np.ndarray:
    assert isinstance(arr, StructArray)
    names = [f.name for f in arr.type.fields]
    columns = [_nulls_as_none(_py_items(pd, _values(pd, c, _child_facts(facts, i))), c)
               for i, c in enumerate(arr.values)]
    rows = [dict(zip(names, row)) for row in zip(*columns)] if columns else [{} for _ in range(len(arr))]
    return _objects(rows, _null_mask(arr))


# ---------------------------------------------------------------- metadata

def needs_pyarrow(meta: dict[str, Any] | None) -> str | None:
    """The first column whose metadata dtype only pyarrow restores (a pyarrow-backed one)."""
    if meta is None:
        return None
    for entry in meta["columns"]:
        numpy_type = str(entry.get("numpy_type")) if isinstance(entry, dict) else ""
        if numpy_type.startswith("Sparse") or "[pyarrow]" in numpy_type:
            return f"{entry.get('field_name', entry.get('name'))!r} ({numpy_type})"
    return None


def _extension_dtype(pd: Any, numpy_type: Any) -> Any:
    if not isinstance(numpy_type, str) or numpy_type in _PLAIN_NUMPY:
        return None
    try:
        dtype = pd.api.types.pandas_dtype(numpy_type)
    except (TypeError, ValueError, ImportError):
        return None
    return dtype if isinstance(dtype, pd.api.extensions.ExtensionDtype) else None


def _as_extension(pd: Any, dtype: Any, arr: Array, values: Any) -> Any:
    """*values* in a nullable extension dtype the metadata names (Int64, boolean, string...)."""
    null = arr.is_null()
    text = str(dtype)
    if isinstance(dtype, pd.StringDtype):
        if isinstance(values, np.ndarray) and values.dtype == object:
            return pd.array(values, dtype=dtype)
        return None
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    if numpy_dtype is None or arr.type.id not in INTEGER_IDS | FLOAT_IDS | {TypeId.BOOL}:
        return None
    data = np.asarray(arr.values).astype(numpy_dtype, copy=False)
    if text == "boolean":
        return pd.arrays.BooleanArray(data.astype(bool), null.copy())
    if numpy_dtype.kind == "f":
        return pd.arrays.FloatingArray(data.copy(), null.copy())
    return pd.arrays.IntegerArray(data.copy(), null.copy())


def _index_name(field_name: str, logical_name: Any) -> Any:
    if field_name == logical_name and re.match(r"^__index_level_\d+__$", field_name):
        return None
    return logical_name


def _column_labels(pd: Any, names: list[str], meta: dict[str, Any] | None) -> Any:
    """``df.columns`` from the metadata: original labels, MultiIndex, label dtypes."""
    if meta is None:
        return pd.Index(names)
    by_field = {}
    for c in meta["columns"]:
        if isinstance(c, dict):
            key = c.get("field_name", pandas_meta.name_to_string(c.get("name")))
            by_field[key] = c.get("name")
    labels = [by_field.get(n, n) for n in names]
    column_indexes = [c for c in meta.get("column_indexes") or [] if isinstance(c, dict)]
    if len(column_indexes) > 1:
        columns = pd.MultiIndex.from_tuples([ast.literal_eval(str(x)) for x in labels],
                                            names=[c.get("name") for c in column_indexes])
    else:
        columns = pd.Index(labels, name=column_indexes[0].get("name") if column_indexes else None,
                           dtype=object if not labels else None)
    if column_indexes:
        columns = _label_dtypes(pd, columns, column_indexes)
    return columns


_LOGICAL_NUMPY = {"date": "datetime64[D]", "datetime": "datetime64[ns]", "datetimetz": "datetime64[ns]",
                  "unicode": "str", "bytes": "bytes", "string": "str", "integer": "int64",
                  "floating": "float64", "decimal": "object", "empty": "object"}


def _label_dtypes(pd: Any, columns: Any, column_indexes: list[dict[str, Any]]) -> Any:
    """Each level of the column labels back in the dtype the metadata records (pyarrow's rules)."""
    levels = list(getattr(columns, "levels", [columns]))
    codes = getattr(columns, "codes", None)
    out = []
    for i, level in enumerate(levels):
        entry = column_indexes[i] if i < len(column_indexes) else {}
        logical = str(entry.get("pandas_type", str(level.dtype)))
        numpy_type = entry.get("numpy_type")
        target = _LOGICAL_NUMPY.get(logical, "object" if "mixed" in logical else logical)
        if target == "bytes":
            level = level.map(lambda s: s.encode("UTF-8"))
        elif logical == "datetimetz":
            tz = (column_indexes[0].get("metadata") or {}).get("timezone")
            level = pd.to_datetime(level, utc=True).tz_convert(tz)
        elif logical == "decimal":
            level = pd.Index([decimal.Decimal(x) for x in level])
        elif target != "str" and str(level.dtype) != target:
            try:
                level = level.astype(target)
            except (TypeError, ValueError):
                pass
        if numpy_type is not None and str(level.dtype) != numpy_type and logical != "datetimetz":
            try:
                level = level.astype(numpy_type)
            except (TypeError, ValueError):
                pass
        out.append(level)
    if len(out) > 1:
        return pd.MultiIndex(out, codes, names=columns.names)
    return pd.Index(out[0], dtype=out[0].dtype, name=columns.name)


def _meta_zone_fix(meta: dict[str, Any] | None, names: list[str],
                   facts: list[FieldFacts | None], table: Table) -> list[FieldFacts | None]:
    """A ``datetimetz`` column whose Arrow zone differs from the metadata's takes the
    metadata's zone, in nanoseconds (pyarrow's ``_add_any_metadata``)."""
    if meta is None:
        return facts
    out = list(facts)
    for entry in meta["columns"]:
        if not isinstance(entry, dict) or entry.get("pandas_type") != "datetimetz":
            continue
        name = entry.get("field_name") or entry.get("name")
        tz = (entry.get("metadata") or {}).get("timezone")
        if not isinstance(name, str) or not tz or len(table.schema.positions(name)) != 1:
            continue
        i = table.schema.index(name)
        col = table.columns[i]
        known = out[i]
        current = known.tz if known is not None and known.kind == "timestamp" else col.type.tz
        if col.type.id is TypeId.TIMESTAMP and tz != current:
            out[i] = FieldFacts(name, "timestamp", unit=col.type.unit, tz=tz)
    return out


# ---------------------------------------------------------------- the frame

def table_to_frame(table: Table, *, ignore_metadata: bool = False) -> Any:
    """Convert *table* (see the module docstring).

    Raises
    ------
    UnsupportedFeatureError
        For a column whose pandas dtype only pyarrow can rebuild (a
        pyarrow-backed dtype), naming it.
    """
    import pandas as pd

    meta = None if ignore_metadata else pandas_meta.loads((table.metadata or {}).get(b"pandas"))
    found = needs_pyarrow(meta)
    if found is not None:
        raise UnsupportedFeatureError(
            f"to_pandas: column {found} is a pandas dtype only pyarrow rebuilds; install pyarrow, "
            f"or pass ignore_metadata=True to get its stored values")
    names = table.column_names
    facts = _meta_zone_fix(meta, names, column_facts(table, meta), table)
    columns = table.columns
    is_index = [False] * len(names)

    index_arrays: list[Any] = []
    index_names: list[Any] = []
    if meta is not None:
        logical = {}
        for c in meta["columns"]:
            if isinstance(c, dict):
                logical[c.get("field_name", c.get("name"))] = c.get("name")
        numpy_types = {}
        for c in meta["columns"]:
            if isinstance(c, dict):
                numpy_types[c.get("field_name", c.get("name"))] = c.get("numpy_type")
        for descr in meta["index_columns"]:
            if isinstance(descr, str):
                found_at = table.schema.positions(descr)
                if len(found_at) != 1:
                    continue
                i = found_at[0]
                is_index[i] = True
                # a Series, as pyarrow hands each level over (a MultiIndex infers level dtypes from it)
                index_arrays.append(pd.Series(_column(pd, columns[i], facts[i], numpy_types.get(descr)),
                                              copy=False))
                index_names.append(_index_name(descr, logical.get(descr, descr)))
            elif isinstance(descr, dict) and descr.get("kind") == "range":
                level = pd.RangeIndex(descr["start"], descr["stop"], step=descr["step"], name=descr.get("name"))
                if len(level) != table.num_rows:
                    continue
                index_arrays.append(level)
                index_names.append(descr.get("name"))
            else:
                raise UnsupportedFeatureError(f"to_pandas: unknown index kind in the pandas metadata: {descr!r}")
    if len(index_arrays) > 1:
        index = pd.MultiIndex.from_arrays(index_arrays, names=index_names)
    elif index_arrays:
        only = index_arrays[0]
        index = only.rename(index_names[0]) if isinstance(only, pd.Index) else pd.Index(only, name=index_names[0])
    else:
        index = pd.RangeIndex(table.num_rows)

    extension = {}
    numpy_type_of: dict[Any, Any] = {}
    if meta is not None:
        for c in meta["columns"]:
            if isinstance(c, dict):
                numpy_type_of[c.get("field_name", c.get("name"))] = c.get("numpy_type")
                dtype = _extension_dtype(pd, c.get("numpy_type"))
                if dtype is not None:
                    extension[c.get("field_name", c.get("name"))] = dtype

    data: dict[int, Any] = {}
    kept: list[str] = []
    for i, (name, arr) in enumerate(zip(names, columns)):
        if is_index[i]:
            continue
        values = _column(pd, arr, facts[i], numpy_type_of.get(name))
        if isinstance(values, np.ndarray) and isinstance(arr.values, np.ndarray) \
                and np.may_share_memory(values, arr.values):
            values = values.copy()   # the frame is the caller's to change; the table stays as it is
        dtype = extension.get(name)
        if dtype is not None and not isinstance(values, (pd.Categorical, pd.arrays.PeriodArray,
                                                         pd.arrays.IntervalArray)):
            converted = _as_extension(pd, dtype, arr, values)
            if converted is not None:
                values = converted
        data[len(kept)] = values
        kept.append(name)
    df = pd.DataFrame(data, index=index, copy=False)
    df.columns = _column_labels(pd, kept, meta)
    if meta is not None and isinstance(meta.get("attributes"), dict):
        df.attrs = meta["attributes"]
    return df
