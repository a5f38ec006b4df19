"""``--check``: does a parquet_core column hold exactly what pyarrow read?

Compared, in order (the first difference is reported):

1. row count;
2. validity (``Array.validity``, ``None`` meaning all valid) vs ``is_valid()``;
3. every valid value, vectorised: numpy ``values`` (dtype must match Arrow's
   storage: int32 stays int32, timestamps are int64 in the column's unit),
   or for strings the ``ByteArrays`` lengths and bytes;
4. ``Array.to_pylist()`` vs ``pyarrow``'s ``to_pylist()`` on a few windows
   (start, end, two seeded random ones), which also covers the
   Python-object edge (``str``, ``datetime``, ``None``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pac

__all__ = ["check_array", "check_table"]

_WINDOW = 64


def _gather_bytes(offsets: np.ndarray, data: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Concatenate values ``idx`` of an (offsets, data) binary column."""
    starts = offsets[:-1][idx].astype(np.int64)
    lens = offsets[1:][idx].astype(np.int64) - starts
    out_off = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(lens, out=out_off[1:])
    total = int(out_off[-1])
    if total == 0:
        return np.zeros(0, dtype=np.uint8)
    src = np.arange(total, dtype=np.int64) + np.repeat(starts - out_off[:-1], lens)
    return data[src]


def _arrow_binary(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets relative to data, data) of a string/binary Arrow array."""
    bufs = arr.buffers()
    large = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    offs = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)[arr.offset: arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return offs.astype(np.int64), data


def _first_diff(a: np.ndarray, b: np.ndarray, where: np.ndarray | None) -> str:
    bad = a != b
    if a.dtype.kind == "f":
        bad &= ~(np.isnan(a) & np.isnan(b))
    if where is not None:
        bad &= where
    i = int(np.flatnonzero(bad)[0])
    return f"row {i}: parquet_core {a[i]!r} != pyarrow {b[i]!r}"


def _same(g: Any, x: Any) -> bool:
    if type(g) is not type(x):
        return False
    if isinstance(g, float) and g != g:
        return x != x
    return bool(g == x)


def check_array(arr: Any, ref: pa.ChunkedArray | pa.Array, seed: int = 0) -> tuple[bool, str]:
    """Compare one parquet_core ``Array`` to a pyarrow column; return (ok, detail)."""
    if isinstance(ref, pa.ChunkedArray):
        ref = ref.combine_chunks() if ref.num_chunks != 1 else ref.chunk(0)
    n = len(ref)
    if len(arr) != n:
        return False, f"length {len(arr)} != pyarrow {n}"

    ref_valid = ref.is_valid().to_numpy(zero_copy_only=False)
    valid = np.ones(n, dtype=bool) if arr.validity is None else np.asarray(arr.validity, dtype=bool)
    if valid.shape != (n,):
        return False, f"validity shape {valid.shape} != ({n},)"
    if not np.array_equal(valid, ref_valid):
        i = int(np.flatnonzero(valid != ref_valid)[0])
        return False, f"validity differs first at row {i} (parquet_core {valid[i]}, pyarrow {ref_valid[i]}); " \
                      f"nulls {n - int(valid.sum())} vs {n - int(ref_valid.sum())}"
    all_valid = bool(ref_valid.all())
    where = None if all_valid else ref_valid

    t = ref.type
    vals = arr.values
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        if not (hasattr(vals, "offsets") and hasattr(vals, "data")):
            return False, f"expected ByteArrays for {t}, got {type(vals).__name__}"
        p_off = np.asarray(vals.offsets, dtype=np.int64)
        p_data = np.asarray(vals.data, dtype=np.uint8)
        if len(p_off) != n + 1:
            return False, f"offsets length {len(p_off)} != {n + 1}"
        r_off, r_data = _arrow_binary(ref)
        p_len, r_len = np.diff(p_off), np.diff(r_off)
        if (p_len < 0).any():
            return False, "offsets not monotonic"
        if not np.array_equal(p_len[ref_valid], r_len[ref_valid]):
            return False, "value lengths differ: " + _first_diff(p_len, r_len, where)
        if all_valid or (not p_len[~ref_valid].any() and not r_len[~ref_valid].any()):
            pb = p_data[int(p_off[0]):int(p_off[-1])]
            rb = r_data[int(r_off[0]):int(r_off[-1])]
        else:
            idx = np.flatnonzero(ref_valid)
            pb, rb = _gather_bytes(p_off, p_data, idx), _gather_bytes(r_off, r_data, idx)
        if not np.array_equal(pb, rb):
            j = int(np.flatnonzero(pb != rb)[0]) if len(pb) == len(rb) else -1
            return False, f"string bytes differ (first differing byte {j} of {len(rb)})"
    else:
        if not isinstance(vals, np.ndarray):
            return False, f"expected a numpy array for {t}, got {type(vals).__name__}"
        if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_duration(t):
            ref_num = ref.view(pa.int64() if t.bit_width == 64 else pa.int32())
        else:
            ref_num = ref
        if not all_valid:
            zero = False if pa.types.is_boolean(ref_num.type) else 0
            ref_num = pac.fill_null(ref_num, pa.scalar(zero, ref_num.type))
        expect = ref_num.to_numpy(zero_copy_only=False)
        if vals.dtype != expect.dtype:
            return False, f"dtype {vals.dtype} != expected {expect.dtype} (Arrow {t})"
        if vals.shape != expect.shape:
            return False, f"shape {vals.shape} != {expect.shape}"
        eq = vals == expect
        if vals.dtype.kind == "f":
            eq |= np.isnan(vals) & np.isnan(expect)
        if where is not None:
            eq |= ~where
        if not eq.all():
            return False, _first_diff(vals, expect, where)

    # Python-object edge on a few windows
    rng = np.random.default_rng(seed)
    starts = {0, max(n - _WINDOW, 0)}
    if n > _WINDOW:
        starts.update(int(s) for s in rng.integers(0, n - _WINDOW, size=2))
    for s in sorted(starts):
        e = min(s + _WINDOW, n)
        got = arr.slice(s, e).to_pylist()
        exp = ref.slice(s, e - s).to_pylist()
        if len(got) != len(exp) or any(not _same(g, x) for g, x in zip(got, exp)):
            k = next((i for i, (g, x) in enumerate(zip(got, exp)) if not _same(g, x)), min(len(got), len(exp)))
            g = got[k] if k < len(got) else "<missing>"
            x = exp[k] if k < len(exp) else "<missing>"
            return False, f"to_pylist differs at row {s + k}: {g!r} != {x!r}"
    return True, "ok"


def check_table(table: Any, ref: pa.Table, columns: list[str], seed: int = 0) -> tuple[bool, str]:
    """Check every column of a parquet_core Table against a pyarrow table."""
    if table.num_rows != ref.num_rows:
        return False, f"num_rows {table.num_rows} != pyarrow {ref.num_rows}"
    names = list(table.column_names)
    if names != list(columns):
        return False, f"column names {names} != {list(columns)}"
    for c in columns:
        ok, msg = check_array(table.column(c), ref.column(c), seed)
        if not ok:
            return False, f"{c}: {msg}"
    return True, "ok"
