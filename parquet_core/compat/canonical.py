"""Canonical values: what a reader returned, in one JSON-able form every reader shares.

Each reader turns a file into ``{column: [value, ...]}`` with these forms, so
that values written by us and values read by any library compare with ``==``:

* ``None`` (null), ``bool``, ``int``, ``str`` (text);
* floats as ``"f:" + repr(x)``, so ``nan``, ``-0.0`` and ``inf`` compare exactly;
* bytes as ``"b:" + hex`` (UUIDs as their 16 big-endian bytes, intervals as
  their 12 little-endian bytes: months, days, milliseconds);
* decimals as ``"d:" + digits`` with the scale written (``"d:1.20"``);
* timestamps as integer nanoseconds since the epoch: ``"ts:N"`` (local /
  not adjusted to UTC) or ``"tsz:N"`` (adjusted to UTC); times of day
  ``"t:N"`` (nanoseconds), dates ``"date:N"`` (days);
* lists as lists, structs as dicts, maps as lists of ``[key, value]``.

Python values (ours, pandas') go through :func:`from_python`; pyarrow
tables (pyarrow, duckdb, polars, Spark give those) through :func:`from_arrow`.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import struct
import uuid
from typing import Any

__all__ = ["from_python", "from_arrow", "compare", "EPOCH", "EPOCH_UTC"]

EPOCH = _dt.datetime(1970, 1, 1)
EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_UNIT_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def _float(x: float) -> str:
    return "f:" + repr(float(x))


def _decimal(d: decimal.Decimal) -> str:
    return "d:" + format(d, "f")


def _datetime_ns(v: _dt.datetime) -> str:
    nanos = int(getattr(v, "nanosecond", 0) or 0)
    if v.tzinfo is not None:
        delta = v - EPOCH_UTC
        tag = "tsz:"
    else:
        delta = v - EPOCH
        tag = "ts:"
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return f"{tag}{micros * 1000 + nanos}"


def _time_ns(v: _dt.time) -> str:
    micros = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    return f"t:{micros * 1000 + int(getattr(v, 'nanosecond', 0) or 0)}"


def from_python(v: Any) -> Any:
    """One Python value (ours, pandas', numpy's) in canonical form."""
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    mod = type(v).__module__
    if mod.startswith("numpy"):
        import numpy as np  # numpy is a core dependency
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, np.floating):
            return _float(float(v))
        if isinstance(v, np.datetime64):
            if np.isnat(v):
                return None
            return f"ts:{int(v.astype('datetime64[ns]').astype('int64'))}"
        if isinstance(v, np.ndarray):
            return [from_python(x) for x in v.tolist()] if v.dtype != object else [from_python(x) for x in v]
    if mod.startswith("pandas"):
        if type(v).__name__ in ("NaTType", "NAType"):
            return None
        if type(v).__name__ == "Timestamp":
            return ("tsz:" if v.tzinfo is not None else "ts:") + str(int(v.value))
        if type(v).__name__ == "Timedelta":
            return f"dur:{int(v.value)}"
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "b:" + bytes(v).hex()
    if isinstance(v, decimal.Decimal):
        return _decimal(v)
    if isinstance(v, _dt.datetime):
        return _datetime_ns(v)
    if isinstance(v, _dt.date):
        return f"date:{(v - _dt.date(1970, 1, 1)).days}"
    if isinstance(v, _dt.time):
        return _time_ns(v)
    if isinstance(v, _dt.timedelta):
        nanos = int(getattr(v, "nanoseconds", 0) or 0)
        return f"dur:{((v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds) * 1000 + nanos}"
    if isinstance(v, uuid.UUID):
        return "b:" + v.bytes.hex()
    if hasattr(v, "months") and hasattr(v, "days") and hasattr(v, "milliseconds"):
        return "b:" + struct.pack("<III", v.months, v.days, v.milliseconds).hex()
    if hasattr(v, "unit") and hasattr(v, "value") and type(v).__name__ == "RawTemporal":
        return f"ts:{int(v.value) * _UNIT_NS.get(v.unit, 1)}"
    if isinstance(v, dict):
        return {str(k): from_python(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [from_python(x) for x in v]
    if type(v).__name__ == "VariantNull" or repr(v) in ("variant.NULL", "NULL"):
        return "variant:null"
    return f"?{type(v).__name__}:{v!r}"


# -- Arrow -----------------------------------------------------------------------------------------

def from_arrow_batches(batches: list, schema: Any) -> dict[str, list]:
    """Arrow record batches (of *schema* when there are none), as :func:`from_arrow`."""
    import pyarrow as pa
    return from_arrow(pa.Table.from_batches(batches) if batches else schema.empty_table())


def from_arrow(table: Any) -> dict[str, list]:
    """A pyarrow Table, column by column, in canonical form."""
    out = {}
    for name, col in zip(table.column_names, table.columns):
        arr = col.combine_chunks() if hasattr(col, "combine_chunks") else col
        out[name] = _arrow_array(arr)
    return out


def _valid(arr: Any) -> list[bool]:
    return arr.is_valid().to_pylist()


def _arrow_array(arr: Any) -> list:  # noqa: C901 - one branch per Arrow type family
    import pyarrow as pa
    t = arr.type
    if isinstance(t, pa.ExtensionType):
        storage = arr.storage if hasattr(arr, "storage") else arr.cast(t.storage_type)
        if t.extension_name in ("parquet.variant", "arrow.parquet.variant"):
            return _variant_struct(storage)
        return _arrow_array(storage)
    if pa.types.is_dictionary(t):
        return _arrow_array(arr.dictionary_decode())
    valid = _valid(arr)
    if pa.types.is_timestamp(t):
        ints = arr.cast(pa.int64()).to_pylist()
        tag = "tsz:" if t.tz is not None else "ts:"
        f = _UNIT_NS[t.unit]
        return [None if v is None else f"{tag}{v * f}" for v in ints]
    if pa.types.is_time(t):
        ints = arr.cast(pa.int64() if pa.types.is_time64(t) else pa.int32()).to_pylist()
        f = _UNIT_NS[t.unit]
        return [None if v is None else f"t:{v * f}" for v in ints]
    if pa.types.is_date32(t):
        return [None if v is None else f"date:{v}" for v in arr.cast(pa.int32()).to_pylist()]
    if pa.types.is_date64(t):
        return [None if v is None else f"date:{v // 86_400_000}" for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_duration(t):
        f = _UNIT_NS[t.unit]
        return [None if v is None else f"dur:{v * f}" for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_float16(t):
        try:
            wide = arr.cast(pa.float32()).to_pylist()
        except pa.ArrowNotImplementedError:
            # pyarrow before 16 has no halffloat cast: its Python values are numpy float16 scalars
            wide = [None if v is None else float(v) for v in arr.to_pylist()]
        return [None if v is None else _float(v) for v in wide]
    if t == pa.month_day_nano_interval():
        return [None if v is None else "b:" + struct.pack("<III", v.months, v.days, v.nanoseconds // 1_000_000).hex()
                for v in arr.to_pylist()]
    if pa.types.is_struct(t):
        kids = {t.field(i).name: _arrow_array(arr.field(i)) for i in range(t.num_fields)}
        return [None if not ok else {k: kids[k][i] for k in kids} for i, ok in enumerate(valid)]
    if pa.types.is_map(t):
        keys = _arrow_array(arr.keys)
        items = _arrow_array(arr.items)
        offs = arr.offsets.to_pylist()
        return [None if not ok else [[keys[j], items[j]] for j in range(offs[i], offs[i + 1])]
                for i, ok in enumerate(valid)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        child = _arrow_array(arr.values)
        offs = arr.offsets.to_pylist()
        return [None if not ok else child[offs[i]:offs[i + 1]] for i, ok in enumerate(valid)]
    if pa.types.is_fixed_size_list(t) or _is_list_view(pa, t):
        return [from_python(v) for v in arr.to_pylist()]
    if pa.types.is_decimal(t):
        return [None if v is None else _decimal(v) for v in arr.to_pylist()]
    if pa.types.is_floating(t):
        return [None if v is None else _float(v) for v in arr.to_pylist()]
    return [from_python(v) for v in arr.to_pylist()]


def _is_list_view(pa: Any, t: Any) -> bool:
    # list views are pyarrow 16+ (an older pyarrow, measured through pqc compat --python, has neither test)
    return any(getattr(pa.types, name, lambda _t: False)(t) for name in ("is_list_view", "is_large_list_view"))


def _variant_struct(arr: Any) -> list:
    """A VARIANT read as its stored struct: decode unshredded values with our codec."""
    from parquet_core.variant import decode
    names = [arr.type.field(i).name for i in range(arr.type.num_fields)]
    if "typed_value" in names:
        # the shredded layout handed over raw: the reader did not reassemble the values
        return ["?shredded-struct" if ok else None for ok in _valid(arr)]
    metas = arr.field("metadata").to_pylist()
    vals = arr.field("value").to_pylist()
    out = []
    for ok, m, v in zip(_valid(arr), metas, vals):
        out.append(None if not ok or m is None else from_python(decode(m, v)))
    return out


# -- comparison ------------------------------------------------------------------------------------

def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _text_as_binary(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str) and b.startswith("b:"):
        try:
            return bytes.fromhex(b[2:]).decode("utf-8") == a
        except ValueError:
            return False
    return False


class _Notes:
    def __init__(self) -> None:
        self.notes: set[str] = set()


def _equal(a: Any, b: Any, loose: bool, notes: _Notes) -> bool:  # noqa: C901 - one case per equivalence
    if a == b and type(a) is type(b):
        return True
    if isinstance(b, dict) and set(b) == {"metadata", "value"} and not (isinstance(a, dict) and "metadata" in a):
        # a VARIANT handed over as its stored struct (metadata + value binaries): decode it
        decoded = _decode_variant(b)
        if decoded is not _NO and _equal(a, decoded, loose, notes):
            notes.notes.add("VARIANT as its binary struct")
            return True
        return False
    if isinstance(a, str) and isinstance(b, str):
        if a.startswith("ts?:") and b.split(":", 1)[0] in ("ts", "tsz") and a[4:] == b.split(":", 1)[1]:
            # INT96 has no UTC flag: Spark and Impala take it as an instant, Arrow as local time
            if b.startswith("tsz:"):
                notes.notes.add("INT96 as a UTC instant")
            return True
        if a.startswith("b:") and len(a) == 34 and b.replace("-", "").lower() == a[2:] and b.count("-") == 4:
            notes.notes.add("UUID as text")
            return True
    if isinstance(a, int) and not isinstance(a, bool) and isinstance(b, str) and b.startswith("d:"):
        try:
            same = decimal.Decimal(b[2:]) == a
        except decimal.InvalidOperation:
            same = False
        if same:
            notes.notes.add("integers as decimals")
        return same
    if isinstance(a, list) and len(a) == 2 and isinstance(b, dict) and set(b) == {"key", "value"}:
        # a map entry as a key/value struct (a reader without a map type: polars before 2)
        if _equal(a[0], b["key"], loose, notes) and _equal(a[1], b["value"], loose, notes):
            notes.notes.add("map entries as key/value structs")
            return True
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k], loose, notes) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y, loose, notes) for x, y in zip(a, b))
    if _text_as_binary(a, b):
        notes.notes.add("text read as binary")
        return True
    if loose:
        # pandas' representations: dates and times of day as datetime64 / timedelta64,
        # maps as dicts, JSON parsed
        if isinstance(a, str) and isinstance(b, str):
            for tag, other, scale, note in (("date:", "ts:", 86_400 * 10**9, "dates as timestamps"),
                                            ("t:", "dur:", 1, "times as timedeltas")):
                if a.startswith(tag) and b.startswith(other) and int(a[len(tag):]) * scale == int(b[len(other):]):
                    notes.notes.add(note)
                    return True
        if (isinstance(a, list) and isinstance(b, dict) and all(isinstance(p, list) and len(p) == 2 for p in a)
                and len(a) == len(b) and all(str(k) in b and _equal(v, b[str(k)], loose, notes) for k, v in a)):
                notes.notes.add("maps as dicts")
                return True
        if isinstance(a, str) and isinstance(b, (dict, list)):
            import json
            try:
                if from_python(json.loads(a)) == b:
                    notes.notes.add("JSON parsed")
                    return True
            except ValueError:
                pass
        # pandas' representations: a null in a float (or int-with-nulls) column is NaN,
        # integers in such a column are floats
        if a is None and b == "f:nan":
            notes.notes.add("nulls as NaN")
            return True
        if isinstance(a, int) and not isinstance(a, bool) and isinstance(b, str) and b.startswith("f:"):
            try:
                ok = float(b[2:]) == a
            except ValueError:
                ok = False
            if ok:
                notes.notes.add("integers as floats")
            return ok
    return False


_NO = object()


def _decode_variant(b: dict) -> Any:
    m, v = b["metadata"], b["value"]
    if not (isinstance(m, str) and m.startswith("b:") and isinstance(v, str) and v.startswith("b:")):
        return _NO
    try:
        from parquet_core.variant import decode
        return from_python(decode(bytes.fromhex(m[2:]), bytes.fromhex(v[2:])))
    except Exception:  # noqa: BLE001 - not a valid variant: simply not equal
        return _NO


def _sorted_rows(cols: dict[str, list]) -> dict[str, list]:
    import json
    names = list(cols)
    rows = sorted(zip(*(cols[n] for n in names)), key=lambda r: json.dumps(r, sort_keys=True, default=str))
    return {n: [r[i] for r in rows] for i, n in enumerate(names)}


def compare(expected: dict[str, list], got: dict[str, list], loose: bool = False,
            unordered: bool = False) -> tuple[str, str]:
    """``("ok", note)`` or ``("different", how)`` for what a reader returned.

    *unordered*: the rows of a folder of files, whose order no reader promises."""
    notes = _Notes()
    if unordered and set(expected) <= set(got):
        lengths = {len(v) for v in got.values()}
        if len(lengths) == 1 and lengths == {len(next(iter(expected.values()), []))}:
            expected = _sorted_rows(expected)
            got = _sorted_rows({k: got[k] for k in expected})
    missing = [c for c in expected if c not in got]
    if missing:
        return "different", f"column {missing[0]!r} missing (got {sorted(got)[:4]})"
    for col, want in expected.items():
        have = got[col]
        if len(have) != len(want):
            return "different", f"{col}: {len(have)} rows, expected {len(want)}"
        for i, (a, b) in enumerate(zip(want, have)):
            if not _equal(a, b, loose, notes):
                return "different", f"{col}[{i}]: expected {_short(a)}, got {_short(b)}"
    return "ok", ", ".join(sorted(notes.notes))


def is_nan_str(v: Any) -> bool:
    return isinstance(v, str) and v.startswith("f:") and math.isnan(float(v[2:]))
