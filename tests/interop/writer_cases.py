"""Column cases, data and value comparison shared by the writer proof tests.

Each :class:`Case` is one column type the writer must store, with a
generator of *storage* values (the numpy layout of
``parquet_core.table.arrays.Array.values``, see ``schema/types.py``), edge
values first, plus the facts the spec and pyarrow give about it: the
physical type, the non-dictionary encodings the spec allows for that
physical type, and the Arrow type pyarrow reads it as.

Truth comes from outside: expected values are computed here from those numpy
buffers with plain Python arithmetic (:func:`canon_storage`), never through
parquet_core's read path, and every engine's answer is brought to the same
canonical form before comparing:

* integers and booleans: ``int`` / ``bool``;
* floats: ``(value, sign of value)`` so ``-0.0 != 0.0``, or ``"nan"``;
* text and binary (fixed or not, UUID, INTERVAL): ``bytes``;
* decimals: the unscaled ``int``;
* dates, times, timestamps: the integer count of days / the column's unit;
* INT96: nanoseconds since the epoch (Julian day 2440588 is 1970-01-01);
* null: ``None``.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from decimal import Context, Decimal
from pathlib import Path
from typing import Any, Callable

import numpy as np

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.table.arrays import Array, Table
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

#: Julian day number of 1970-01-01 (INT96 timestamps count days from the Julian epoch).
JULIAN_EPOCH = 2_440_588
NANOS_PER_DAY = 86_400 * 10**9
_PER_UNIT_NS = {"ms": 10**6, "us": 10**3, "ns": 1}

#: Non-dictionary value encodings the spec (Encodings.md) allows per physical type.
ENCODINGS = {
    "BOOLEAN": ("plain", "rle"),
    "INT32": ("plain", "delta_binary_packed", "byte_stream_split"),
    "INT64": ("plain", "delta_binary_packed", "byte_stream_split"),
    "INT96": ("plain",),
    "FLOAT": ("plain", "byte_stream_split"),
    "DOUBLE": ("plain", "byte_stream_split"),
    "BYTE_ARRAY": ("plain", "delta_length_byte_array", "delta_byte_array"),
    "FIXED_LEN_BYTE_ARRAY": ("plain", "delta_byte_array", "byte_stream_split"),
}

#: Encodings the spec forbids per physical type (the writer must refuse them).
INVALID_ENCODINGS = {
    "BOOLEAN": ("delta_binary_packed", "delta_length_byte_array", "delta_byte_array",
                "byte_stream_split"),
    "INT32": ("rle", "delta_length_byte_array", "delta_byte_array"),
    "INT64": ("rle", "delta_length_byte_array", "delta_byte_array"),
    "FLOAT": ("rle", "delta_binary_packed", "delta_length_byte_array", "delta_byte_array"),
    "DOUBLE": ("rle", "delta_binary_packed", "delta_length_byte_array", "delta_byte_array"),
    "BYTE_ARRAY": ("rle", "delta_binary_packed", "byte_stream_split"),
    "FIXED_LEN_BYTE_ARRAY": ("rle", "delta_binary_packed", "delta_length_byte_array"),
}

CODECS = ("none", "snappy", "gzip", "brotli", "zstd", "lz4", "lz4_raw")


@dataclass(frozen=True)
class Case:
    """One column type under test.

    Parameters
    ----------
    key:
        Short unique name (used as column name and test id).
    type:
        The parquet_core type handed to the writer.
    physical:
        Physical type name per the spec's mapping (LogicalTypes.md).
    make:
        ``make(rng, n) -> storage``: ``n`` storage values, edge values first.
    arrow:
        The Arrow type pyarrow reads the column as (a tuple lists accepted
        alternatives); ``None`` when pyarrow cannot read the type.
    options:
        Writer options the case needs (INT96 timestamps).
    """

    key: str
    type: Any
    physical: str
    make: Callable[[np.random.Generator, int], Any]
    arrow: Any = None
    options: dict = field(default_factory=dict)

    @property
    def encodings(self) -> tuple[str, ...]:
        """Valid non-dictionary encodings for this case."""
        return ENCODINGS[self.physical]

    @property
    def dictionary(self) -> bool:
        """Whether dictionary encoding applies (not to BOOLEAN)."""
        return self.physical != "BOOLEAN"

    def __repr__(self) -> str:
        return self.key


# ---------------------------------------------------------------------------
# data generators (storage layout); a pool of repeated values makes dictionaries pay
# ---------------------------------------------------------------------------

def _mix(rng: np.random.Generator, n: int, draw: Callable[[int], np.ndarray], edges: list) -> np.ndarray:
    pool = draw(37)
    fresh = draw(n)
    out = np.where(rng.random(n) < 0.6, pool[rng.integers(0, len(pool), n)], fresh)
    k = min(n, len(edges))
    if k:
        out[:k] = np.array(edges[:k], dtype=out.dtype)
    return out


def _ints(dtype: Any, lo: int, hi: int, edges: list) -> Callable:
    def make(rng: np.random.Generator, n: int) -> np.ndarray:
        return _mix(rng, n, lambda k: rng.integers(lo, hi, k, dtype=dtype, endpoint=True), edges)
    return make


ints_maker = _ints


def _floats(dtype: Any) -> Callable:
    info = np.finfo(dtype)
    edges = [np.nan, np.inf, -np.inf, -0.0, 0.0, float(info.max), float(-info.max),
             float(info.smallest_subnormal), 1.0, -1.0]

    def make(rng: np.random.Generator, n: int) -> np.ndarray:
        return _mix(rng, n, lambda k: (rng.normal(size=k) * 100).astype(dtype), edges).astype(dtype)
    return make


def _bytes_list(rng: np.random.Generator, n: int, draw: Callable[[], bytes],
                edges: list[bytes]) -> list[bytes]:
    """Python loop: test data only (n is a few hundred)."""
    pool = [draw() for _ in range(37)]
    out = [pool[int(rng.integers(0, 37))] if rng.random() < 0.6 else draw() for _ in range(n)]
    out[:len(edges)] = edges[:n]
    return out[:n]


def _text(draw: Callable[[np.random.Generator], str], edges: list[str]) -> Callable:
    def make(rng: np.random.Generator, n: int) -> ByteArrays:
        vals = _bytes_list(rng, n, lambda: draw(rng).encode(), [e.encode() for e in edges])
        return ByteArrays.from_pylist(vals)
    return make


def _word(rng: np.random.Generator) -> str:
    k = int(rng.integers(0, 500))
    return f"w{k}" + "é" * (k % 3) + "日本"[: k % 3] + "x" * int(rng.integers(0, 12))


def _blob(rng: np.random.Generator) -> bytes:
    return rng.integers(0, 256, int(rng.integers(0, 20)), dtype=np.uint8).tobytes()


def _binary(rng: np.random.Generator, n: int) -> ByteArrays:
    return ByteArrays.from_pylist(_bytes_list(rng, n, lambda: _blob(rng),
                                              [b"", b"\x00", b"\xff" * 30, b"\x80", b"abc"]))


def _fixed(width: int) -> Callable:
    def make(rng: np.random.Generator, n: int) -> np.ndarray:
        pool = rng.integers(0, 256, (37, width), dtype=np.uint8)
        out = rng.integers(0, 256, (n, width), dtype=np.uint8)
        reuse = rng.random(n) < 0.6
        out[reuse] = pool[rng.integers(0, 37, int(reuse.sum()))]
        edges = np.array([[0] * width, [255] * width], dtype=np.uint8)
        k = min(n, 2)
        out[:k] = edges[:k]
        return out
    return make


def _interval(rng: np.random.Generator, n: int) -> np.ndarray:
    parts = np.stack([rng.integers(0, 240, n), rng.integers(0, 400, n),
                      rng.integers(0, 86_400_000, n)], axis=1).astype("<u4")
    return parts.view(np.uint8).reshape(n, 12).copy()


def _decimal_bytes(precision: int, width: int) -> Callable:
    top = 10**precision - 1

    def make(rng: np.random.Generator, n: int) -> np.ndarray:
        def draw() -> int:
            # Python ints: wide decimals exceed int64 (test data only)
            digits = rng.integers(0, 10, int(rng.integers(1, precision + 1)))
            v = int("".join(map(str, digits.tolist())))
            return -v if rng.random() < 0.5 else v

        pool = [draw() for _ in range(37)]
        vals = [pool[int(rng.integers(0, 37))] if rng.random() < 0.6 else draw() for _ in range(n)]
        edges = [top, -top, 0, -1, 1]
        vals[:len(edges)] = edges[:n]
        raw = b"".join(v.to_bytes(width, "big", signed=True) for v in vals[:n])
        return np.frombuffer(raw, dtype=np.uint8).reshape(n, width).copy()
    return make


def _int96(rng: np.random.Generator, n: int) -> np.ndarray:
    nanos = rng.integers(0, NANOS_PER_DAY, n, dtype=np.int64)
    days = rng.integers(JULIAN_EPOCH - 40_000, JULIAN_EPOCH + 40_000, n).astype("<i4")
    out = np.empty((n, 12), dtype=np.uint8)
    out[:, :8] = nanos.astype("<i8").view(np.uint8).reshape(n, 8)
    out[:, 8:] = days.view(np.uint8).reshape(n, 4)
    return out


def _cases() -> list[Case]:
    i32, i64 = 2**31, 2**63
    day_ms, day_us, day_ns = 86_400_000, 86_400_000_000, 86_400_000_000_000
    out = [
        Case("bool", pc.bool_(), "BOOLEAN", lambda r, n: r.random(n) < 0.4, pa_type("bool_")),
        Case("i8", pc.int8(), "INT32", _ints(np.int8, -128, 127, [-128, 127, 0, -1]), pa_type("int8")),
        Case("i16", pc.int16(), "INT32", _ints(np.int16, -2**15, 2**15 - 1, [-2**15, 2**15 - 1]),
             pa_type("int16")),
        Case("i32", pc.int32(), "INT32", _ints(np.int32, -i32, i32 - 1, [-i32, i32 - 1, 0]),
             pa_type("int32")),
        Case("i64", pc.int64(), "INT64", _ints(np.int64, -i64, i64 - 1, [-i64, i64 - 1, 0]),
             pa_type("int64")),
        Case("u8", pc.uint8(), "INT32", _ints(np.uint8, 0, 255, [0, 255, 128]), pa_type("uint8")),
        Case("u16", pc.uint16(), "INT32", _ints(np.uint16, 0, 2**16 - 1, [0, 2**16 - 1, 2**15]),
             pa_type("uint16")),
        Case("u32", pc.uint32(), "INT32", _ints(np.uint32, 0, 2**32 - 1, [0, 2**32 - 1, 2**31]),
             pa_type("uint32")),
        Case("u64", pc.uint64(), "INT64",
             _ints(np.uint64, 0, 2**64 - 1, [0, 2**64 - 1, 2**63, 2**63 - 1]), pa_type("uint64")),
        Case("f16", pc.float16(), "FIXED_LEN_BYTE_ARRAY", _floats(np.float16), pa_type("float16")),
        Case("f32", pc.float32(), "FLOAT", _floats(np.float32), pa_type("float32")),
        Case("f64", pc.float64(), "DOUBLE", _floats(np.float64), pa_type("float64")),
        Case("str", pc.string(), "BYTE_ARRAY",
             _text(_word, ["", "a", "é", "日本語", "😀", "a\x00b", "x" * 200, "\uffff"]),
             pa_type("string")),
        Case("json", pc.json_(), "BYTE_ARRAY",
             _text(lambda r: '{"k": %d}' % int(r.integers(0, 1000)), ["{}", "[]"]),
             (pa_type("string"), pa_type("json_"))),
        Case("enum", pc.enum(), "BYTE_ARRAY",
             _text(lambda r: ["RED", "GREEN", "BLUE", "ÉTÉ"][int(r.integers(0, 4))], []),
             pa_type("binary")),
        Case("bson", pc.bson(), "BYTE_ARRAY", _binary, pa_type("binary")),
        Case("bin", pc.binary(), "BYTE_ARRAY", _binary, pa_type("binary")),
        Case("fixed5", pc.fixed_size_binary(5), "FIXED_LEN_BYTE_ARRAY", _fixed(5), pa_type("binary", 5)),
        Case("uuid", pc.uuid(), "FIXED_LEN_BYTE_ARRAY", _fixed(16), (pa_type("binary", 16), pa_type("uuid"))),
        Case("interval", pc.interval(), "FIXED_LEN_BYTE_ARRAY", _interval, pa_type("binary", 12)),
        Case("dec7_2", pc.decimal(7, 2), "INT32",
             _ints(np.int64, -(10**7 - 1), 10**7 - 1, [10**7 - 1, -(10**7 - 1), 0]),
             pa_type("decimal", 7, 2)),
        Case("dec18_4", pc.decimal(18, 4), "INT64",
             _ints(np.int64, -(10**18 - 1), 10**18 - 1, [10**18 - 1, -(10**18 - 1), 0]),
             pa_type("decimal", 18, 4)),
        Case("dec5_2_w4", pc.decimal(5, 2, byte_width=4), "FIXED_LEN_BYTE_ARRAY", _decimal_bytes(5, 4),
             pa_type("decimal", 5, 2)),
        Case("dec20_3", pc.decimal(20, 3), "FIXED_LEN_BYTE_ARRAY", _decimal_bytes(20, 9),
             pa_type("decimal", 20, 3)),
        Case("dec38_5", pc.decimal(38, 5), "FIXED_LEN_BYTE_ARRAY", _decimal_bytes(38, 16),
             pa_type("decimal", 38, 5)),
        Case("dec76_10", pc.decimal(76, 10), "FIXED_LEN_BYTE_ARRAY", _decimal_bytes(76, 32),
             pa_type("decimal", 76, 10)),
        Case("date", pc.date32(), "INT32",
             _ints(np.int32, -719_162, 2_932_896, [-719_162, 2_932_896, 0, -1]), pa_type("date32")),
        Case("time_ms", pc.time32("ms"), "INT32", _ints(np.int32, 0, day_ms - 1, [0, day_ms - 1]),
             pa_type("time32", "ms")),
        Case("time_us", pc.time64("us"), "INT64", _ints(np.int64, 0, day_us - 1, [0, day_us - 1]),
             pa_type("time64", "us")),
        Case("time_ns", pc.time64("ns"), "INT64", _ints(np.int64, 0, day_ns - 1, [0, day_ns - 1]),
             pa_type("time64", "ns")),
        Case("time_us_utc", pc.time("us", utc=True), "INT64", _ints(np.int64, 0, day_us - 1, [0]),
             pa_type("time64", "us")),
        Case("ts_ms", pc.timestamp("ms"), "INT64", _ints(np.int64, -10**13, 10**13, [0, -1, 10**13]),
             pa_type("timestamp", "ms")),
        Case("ts_us_utc", pc.timestamp("us", utc=True), "INT64",
             _ints(np.int64, -10**16, 10**16, [0, -1, 10**16]), pa_type("timestamp", "us", "UTC")),
        Case("ts_ns", pc.timestamp("ns"), "INT64", _ints(np.int64, -9 * 10**18, 9 * 10**18, [0, -1]),
             pa_type("timestamp", "ns")),
        Case("ts_ns_utc", pc.timestamp("ns", utc=True), "INT64",
             _ints(np.int64, -9 * 10**18, 9 * 10**18, [0, 1]), pa_type("timestamp", "ns", "UTC")),
        Case("int96", pc.int96(), "INT96", _int96, pa_type("timestamp", "ns")),
        Case("ts_us_as_int96", pc.timestamp("us", utc=True), "INT96",
             # pyarrow reads INT96 as timestamp[ns]: stay inside int64 nanoseconds (1685..2255)
             _ints(np.int64, -9 * 10**15, 9 * 10**15, [0, -1]), pa_type("timestamp", "ns"),
             {"use_deprecated_int96_timestamps": True}),
        Case("null", pc.null(), "INT32", lambda r, n: np.zeros(n, np.int8), pa_type("null")),
    ]
    return out


def pa_type(name: str, *args: Any) -> Any:
    """Describe an Arrow type lazily (pyarrow is an optional test dependency)."""
    return (name, *args)


def arrow_type(desc: Any) -> Any:
    """Build the pyarrow type described by :func:`pa_type`."""
    import pyarrow as pa

    name, *args = desc
    if name == "decimal":
        p, s = args
        return pa.decimal128(p, s) if p <= 38 else pa.decimal256(p, s)
    if name == "binary" and args:
        return pa.binary(args[0])
    if name == "timestamp":
        return pa.timestamp(args[0], tz=args[1] if len(args) > 1 else None)
    return getattr(pa, name)(*args)


CASES: list[Case] = _cases()
BY_KEY: dict[str, Case] = {c.key: c for c in CASES}


# ---------------------------------------------------------------------------
# building tables
# ---------------------------------------------------------------------------

def validity_for(rng: np.random.Generator, n: int, nulls: bool | float, case: Case | None = None) -> Any:
    """A validity mask (True = present) or None; the null type is all null."""
    if case is not None and case.type.name == "null":
        return np.zeros(n, dtype=bool)
    if not nulls:
        return None
    frac = 0.2 if nulls is True else float(nulls)
    mask = rng.random(n) >= frac
    if n > 3 and 0 < frac < 1:
        mask[1] = False       # at least one null ...
        mask[0] = True        # ... and the first (edge) value present
    return mask


def make_columns(cases: list[Case], n: int, nulls: bool | float = False, seed: int = 0,
                 names: list[str] | None = None,
                 nullable: bool | None = None) -> tuple[Table, dict[str, list]]:
    """Build a parquet_core Table (explicit schema) and the canonical expected values.

    ``nullable`` defaults to ``bool(nulls)`` (REQUIRED columns when there
    are no nulls).  Null slots keep the generated (valid) values as filler:
    the writer must not look at them.
    """
    rng = np.random.default_rng(seed)
    names = names or [c.key for c in cases]
    fields, arrays, expected = [], [], {}
    for name, case in zip(names, cases):
        values = case.make(rng, n)
        validity = validity_for(rng, n, nulls, case)
        opt = (bool(nulls) if nullable is None else nullable) or case.type.name == "null"
        fields.append(pc.field(name, case.type, nullable=opt))
        arrays.append(Array(case.type, values, validity))
        expected[name] = expected_values(case, values, validity)
    return Table(pc.schema(fields), arrays, n), expected


def expected_values(case: Case, values: Any, validity: Any) -> list:
    """Canonical values a reader must return for this column."""
    got = canon_storage(case.type, values, validity)
    if case.options.get("use_deprecated_int96_timestamps"):
        f = _PER_UNIT_NS[case.type.unit]
        got = [None if v is None else v * f for v in got]
    return got


def options_for(cases: list[Case], **options: Any) -> dict:
    """Merge the writer options the cases need into *options*."""
    out = dict(options)
    for c in cases:
        out.update(c.options)
    return out


# ---------------------------------------------------------------------------
# canonical values
# ---------------------------------------------------------------------------

def fkey(x: Any) -> Any:
    """Canonical float: NaN equals NaN, -0.0 differs from 0.0."""
    if x is None:
        return None
    x = float(x)
    return "nan" if math.isnan(x) else (x, math.copysign(1.0, x))


def int96_ns(row: bytes) -> int:
    """Nanoseconds since the epoch of one 12-byte INT96 (nanos-of-day LE int64, Julian day LE int32)."""
    nanos, day = struct.unpack("<qi", bytes(row))
    return (day - JULIAN_EPOCH) * NANOS_PER_DAY + nanos


def _rows(values: Any) -> list[bytes]:
    if isinstance(values, ByteArrays):
        return values.to_pylist()
    arr = np.ascontiguousarray(values)
    w = arr.shape[1]
    raw = arr.tobytes()
    return [raw[i * w:(i + 1) * w] for i in range(arr.shape[0])]


def canon_storage(dt: Any, values: Any, validity: Any) -> list:
    """Canonical values of a storage buffer of type *dt* (one per slot, None for nulls)."""
    name = dt.name
    n = len(values)
    if name == "null":
        return [None] * n
    if isinstance(values, ByteArrays) or (isinstance(values, np.ndarray) and values.ndim == 2):
        rows = _rows(values)
        if name == "decimal":
            vals = [int.from_bytes(r, "big", signed=True) for r in rows]
        elif name == "int96":
            vals = [int96_ns(r) for r in rows]
        else:
            vals = rows
    elif name in ("float16", "float32", "float64"):
        vals = [fkey(v) for v in np.asarray(values).astype(np.float64).tolist()]
    elif name == "bool":
        vals = [bool(v) for v in np.asarray(values).tolist()]
    else:
        vals = [int(v) for v in np.asarray(values).tolist()]
    if validity is None:
        return vals
    return [v if ok else None for v, ok in zip(vals, np.asarray(validity).tolist())]


def canon_ours(array: Array) -> list:
    """Canonical values of an Array parquet_core's reader returned."""
    return canon_storage(array.type, array.values, array.validity)


def unscaled(d: Decimal, scale: int) -> int:
    sign, digits, exp = d.as_tuple()
    v = int("".join(map(str, digits)) or "0")
    shift = exp + scale
    v = v * 10**shift if shift >= 0 else v // 10**(-shift)
    return -v if sign else v


def canon_arrow(column: Any) -> list:
    """Canonical values of a pyarrow (Chunked)Array."""
    import pyarrow as pa

    t = column.type
    if isinstance(t, pa.BaseExtensionType):
        column = (pa.chunked_array([c.storage for c in column.chunks], type=t.storage_type)
                  if isinstance(column, pa.ChunkedArray) else column.storage)
        t = t.storage_type
    if pa.types.is_timestamp(t) or pa.types.is_time64(t) or pa.types.is_date64(t):
        return column.cast(pa.int64()).to_pylist()
    if pa.types.is_time32(t) or pa.types.is_date32(t):
        return column.cast(pa.int32()).to_pylist()
    if pa.types.is_floating(t):
        return [fkey(v) for v in column.to_pylist()]
    if pa.types.is_decimal(t):
        return [None if v is None else unscaled(v, t.scale) for v in column.to_pylist()]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return [None if v is None else v.encode() for v in column.to_pylist()]
    return column.to_pylist()


def check_arrow_type(case: Case, actual: Any, where: str = "") -> None:
    """Assert pyarrow read the column as the expected Arrow type."""
    descs = case.arrow if isinstance(case.arrow[0], tuple) else (case.arrow,)
    allowed = [arrow_type(d) for d in descs]
    assert any(actual == a for a in allowed), f"{where}{case.key}: pyarrow type {actual}, expected {allowed}"


def assert_values(got: list, expected: list, where: str) -> None:
    """Equal length and equal canonical values at every position (first mismatch reported)."""
    assert len(got) == len(expected), f"{where}: {len(got)} values, expected {len(expected)}"
    bad = [i for i, (a, b) in enumerate(zip(got, expected)) if a != b]
    assert not bad, (f"{where}: {len(bad)} of {len(got)} values differ, first at row {bad[0]}: "
                     f"got {got[bad[0]]!r}, expected {expected[bad[0]]!r}")


def assert_pyarrow_reads(path: Any, cases: list[Case], expected: dict[str, list],
                         names: list[str] | None = None, **read_kw: Any) -> Any:
    """Read *path* with pyarrow and compare every column's type and values."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, **read_kw)
    names = names or [c.key for c in cases]
    assert table.column_names == names
    for name, case in zip(names, cases):
        col = table.column(name)
        check_arrow_type(case, col.type, "pyarrow: ")
        assert_values(canon_arrow(col), expected[name], f"pyarrow column {name}")
    return table


def assert_ours_reads(path: Any, cases: list[Case], expected: dict[str, list],
                      names: list[str] | None = None) -> Any:
    """Read *path* with parquet_core and compare every column's type and values."""
    table = pc.read_table(path)
    names = names or [c.key for c in cases]
    assert table.column_names == names
    for name, case in zip(names, cases):
        arr = table.column(name)
        want = pc.int96() if case.options.get("use_deprecated_int96_timestamps") else case.type
        assert arr.type == want, f"ours: {name} read as {arr.type}, written as {want}"
        assert_values(canon_ours(arr), expected[name], f"parquet_core column {name}")
    return table


# ---------------------------------------------------------------------------
# building the same data for pyarrow (statistics comparison, pyarrow-Table input)
# ---------------------------------------------------------------------------

_DEC_CTX = Context(prec=100)


def to_arrow_array(case: Case, values: Any, validity: Any) -> Any:
    """The column as a pyarrow array, built from the storage buffer without parquet_core."""
    import pyarrow as pa

    mask = None if validity is None else ~np.asarray(validity)
    dt = case.type
    name = dt.name
    canon = canon_storage(dt, values, None)
    if name == "null":
        return pa.nulls(len(values))
    if name == "int96":
        return pa.array(canon, pa.int64(), mask=mask).view(pa.timestamp("ns"))
    if name == "date":
        return pa.array(np.asarray(values, np.int32), pa.int32(), mask=mask).view(pa.date32())
    if name == "time":
        if dt.unit == "ms":
            return pa.array(np.asarray(values, np.int32), pa.int32(), mask=mask).view(pa.time32("ms"))
        return pa.array(np.asarray(values, np.int64), pa.int64(), mask=mask).view(pa.time64(dt.unit))
    if name == "timestamp":
        return pa.array(np.asarray(values, np.int64), pa.int64(),
                        mask=mask).view(pa.timestamp(dt.unit, tz=dt.tz))
    if name == "decimal":
        p, s = dt.precision, dt.scale
        t = pa.decimal128(p, s) if p <= 38 else pa.decimal256(p, s)
        return pa.array([Decimal(v).scaleb(-s, _DEC_CTX) for v in canon], t, mask=mask)
    if name == "json":
        return pa.ExtensionArray.from_storage(
            pa.json_(), pa.array([b.decode() for b in canon], pa.string(), mask=mask))
    if name in ("string", "enum"):
        return pa.array([b.decode() for b in canon], pa.string(), mask=mask)
    if name in ("binary", "bson"):
        return pa.array(canon, pa.binary(), mask=mask)
    if name == "uuid":
        return pa.ExtensionArray.from_storage(pa.uuid(), pa.array(canon, pa.binary(16), mask=mask))
    if name in ("fixed_size_binary", "interval"):
        return pa.array(canon, pa.binary(dt.byte_width), mask=mask)
    if name == "float16":
        return pa.array(np.asarray(values, np.float16), pa.float16(), mask=mask)
    return pa.array(np.asarray(values), arrow_type(case.arrow), mask=mask)


def to_arrow_table(cases: list[Case], table: Table, names: list[str] | None = None) -> Any:
    """The whole table as a pyarrow Table (see :func:`to_arrow_array`)."""
    import pyarrow as pa

    names = names or [c.key for c in cases]
    arrays = [to_arrow_array(c, table.column(nm).values, table.column(nm).validity)
              for nm, c in zip(names, cases)]
    fields = [pa.field(nm, a.type, nullable=table.schema.field(nm).nullable) for nm, a in zip(names, arrays)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def comparable(v: Any) -> Any:
    """A value that compares like-for-like across readers: str as UTF-8 bytes, floats with NaN and -0.0 kept apart."""
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, float):
        return "nan" if math.isnan(v) else (v, math.copysign(1.0, v))
    return v


# ---------------------------------------------------------------------------
# looking inside a written file (our thrift decoder, independent of the writer)
# ---------------------------------------------------------------------------

def page_headers(path: str | Path, row_group: int, column: int) -> list[Any]:
    """Every ``pt.PageHeader`` of one column chunk, in file order."""
    data = Path(path).read_bytes()
    md = pc.read_metadata(path)
    meta = md.row_group(row_group).column(column).meta
    start = meta.dictionary_page_offset if meta.dictionary_page_offset is not None else meta.data_page_offset
    end = start + meta.total_compressed_size
    pos, out = start, []
    while pos < end:
        header, hlen = parse(data, pt.PageHeader, offset=pos)
        out.append(header)
        pos += hlen + header.compressed_page_size
    assert pos == end, f"pages of column {column} in row group {row_group} overrun the chunk"
    return out


def raw_chunk_meta(path: str | Path, row_group: int, column: int) -> Any:
    """The raw ``pt.ColumnMetaData`` of one chunk."""
    return pc.read_metadata(path).row_group(row_group).column(column).meta


def page_index(path: str | Path, row_group: int, column: int) -> tuple[Any, Any]:
    """The chunk's ``(pt.ColumnIndex, pt.OffsetIndex)``, each None when absent."""
    data = Path(path).read_bytes()
    meta = pc.read_metadata(path).row_group(row_group).column(column).raw
    ci = oi = None
    if meta.column_index_offset is not None:
        ci, _ = parse(data, pt.ColumnIndex, offset=meta.column_index_offset, limit=meta.column_index_length)
    if meta.offset_index_offset is not None:
        oi, _ = parse(data, pt.OffsetIndex, offset=meta.offset_index_offset, limit=meta.offset_index_length)
    return ci, oi


def header_length(data: bytes, pos: int) -> int:
    """Length in bytes of the thrift ``PageHeader`` at *pos*."""
    return parse(data, pt.PageHeader, offset=pos)[1]


def byte_arrays(values: Any) -> ByteArrays:
    """Storage of a byte-array column from Python bytes."""
    return ByteArrays.from_pylist(list(values))


def write_one(directory: Path, name: str, typ: Any, values: Any, validity: Any = None,
              **options: Any) -> tuple[Path, Any]:
    """Write one column (storage values; OPTIONAL iff *validity* is given).

    Returns the path and the chunk's raw ``pt.ColumnMetaData``.
    """
    path = Path(directory) / f"{name}.parquet"
    table = Table(pc.schema([pc.field(name, typ, nullable=validity is not None)]),
                  [Array(typ, values, validity)], len(values))
    pc.write_table(table, path, **options)
    return path, raw_chunk_meta(path, 0, 0)


def encoding_config(case: Case, enc: str) -> dict:
    """Writer options selecting *enc* (``"dict"`` = dictionary) for the case's column."""
    if enc == "dict":
        return {"use_dictionary": True}
    return {"use_dictionary": False, "column_encoding": enc}


# ---------------------------------------------------------------------------
# one file with every feature on at once (shared by the pyarrow, duckdb and Spark tests)
# ---------------------------------------------------------------------------

#: Every case that can share a file.  INT96 *timestamps* are a file-wide switch (the
#: raw ``int96`` column keeps INT96 in the file).  BSON is left out because duckdb
#: refuses to open any file holding a column with converted type BSON (its
#: "Unsupported converted type (20)"), even when the column is not selected; the
#: matrix proves BSON with pyarrow and our reader.
EVERYTHING_CASES = [c for c in CASES if not c.options and c.key != "bson"]
EVERYTHING_ROWS = 1200
EVERYTHING_KV = {"origin": "parquet-core writer tests", "ünïcödé": "✓ value"}
EVERYTHING_OPTIONS = dict(
    compression="zstd", compression_level=5, use_dictionary=True, dictionary_pagesize_limit=512,
    data_page_version="2.0", data_page_size=1024, row_group_size=500, write_statistics=True,
    write_page_checksum=True, write_page_index=True, key_value_metadata=EVERYTHING_KV,
    column_key_value_metadata={"str": {"note": "column metadata"}},
    sorting_columns=[("id", "ascending")], created_by="parquet-core tests version 1.0.0",
)


def write_everything(path: str | Path) -> tuple[list[Case], list[str], dict[str, list]]:
    """Write the all-features file; return its cases, column names and expected values.

    Column ``id`` (int64, 0..n-1, REQUIRED) is sorted, which ``sorting_columns``
    declares; every other case is OPTIONAL with nulls.
    """
    import numpy as _np

    n = EVERYTHING_ROWS
    table, expected = make_columns(EVERYTHING_CASES, n, nulls=True, seed=2024)
    id_case = Case("id", pc.int64(), "INT64", lambda r, k: _np.arange(k, dtype=_np.int64), pa_type("int64"))
    ids = _np.arange(n, dtype=_np.int64)
    fields = [pc.field("id", pc.int64(), nullable=False), *table.schema.fields]
    columns = [Array(pc.int64(), ids, None), *table.columns]
    full = Table(pc.schema(fields), columns, n)
    expected = {"id": ids.tolist(), **expected}
    pc.write_table(full, path, **EVERYTHING_OPTIONS)
    cases = [id_case, *EVERYTHING_CASES]
    return cases, [c.key for c in cases], expected
