"""Encode-side cases for ``bench_encodings.py`` (see its docstring for what is measured).

Every case encodes one page of fixed-seed values with the writer's encoder
and, when pyarrow is importable, has pyarrow write the same column with the
same encoding.  Cases that need an API the checked-out package lacks are
skipped, so the script also measures older revisions (``before`` numbers).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import byte_stream_split as bss
from parquet_core.encodings import delta_binary_packed as dbp
from parquet_core.encodings import delta_byte_array as dba
from parquet_core.encodings import delta_length_byte_array as dlba
from parquet_core.encodings import plain, rle_hybrid

try:  # the writer-era API
    from parquet_core.encodings.dictionary import build_dictionary
except ImportError:  # pragma: no cover - older revisions
    build_dictionary = None  # type: ignore[assignment]

__all__ = ["EncodeCase", "build_encode_cases", "run_encode_cases"]


@dataclass
class EncodeCase:
    """One row: encode ``raw_bytes`` worth of values with ``ours``; ``arrow`` does the same."""

    name: str
    values: int
    raw_bytes: int
    ours: Callable[[], Any]
    arrow: Callable[[], Any] | None


def _arrow_writer(array: Any, **options: Any) -> Callable[[], Any] | None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover
        return None
    field = pa.field("x", array.type, nullable=array.null_count > 0)
    table = pa.Table.from_arrays([array], schema=pa.schema([field]))
    opts: dict[str, Any] = {"compression": "NONE", "write_statistics": False,
                            "data_page_version": "2.0", "data_page_size": 1 << 30,
                            "write_batch_size": 1 << 30, "use_dictionary": False}
    opts.update(options)

    def write() -> None:
        pq.write_table(table, io.BytesIO(), row_group_size=len(table), **opts)
    return write


def _strings(rng: np.random.Generator, n: int, lo: int, hi: int) -> ByteArrays:
    lens = rng.integers(lo, hi + 1, n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    return ByteArrays(offsets, rng.integers(97, 123, int(offsets[-1]), dtype=np.uint8))


def _sorted_keys(rng: np.random.Generator, n: int) -> ByteArrays:
    digits = np.sort(rng.integers(0, 10**10, n))
    cols = (digits[:, None] // 10 ** np.arange(9, -1, -1)) % 10 + ord("0")
    rows = np.concatenate([np.tile(np.frombuffer(b"user_", np.uint8), (n, 1)),
                           cols.astype(np.uint8)], axis=1)
    return ByteArrays(np.arange(n + 1, dtype=np.int64) * rows.shape[1], rows.reshape(-1))


def _arrow_binary(values: ByteArrays) -> Any:
    import pyarrow as pa
    offsets = values.offsets - values.offsets[0]
    return pa.Array.from_buffers(pa.large_binary(), len(values),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(values.data)])


def _raw(values: Any) -> int:
    if isinstance(values, ByteArrays):
        return int(values.data.size + 4 * len(values))
    return int(np.asarray(values).nbytes)


def build_encode_cases(n: int, seed: int, with_arrow: bool = True) -> list[EncodeCase]:
    """The encode cases, inputs built once with a fixed seed."""
    rng = np.random.default_rng(seed + 1)
    have_arrow = with_arrow
    if have_arrow:
        try:
            import pyarrow as pa
        except ImportError:  # pragma: no cover
            have_arrow = False
    cases: list[EncodeCase] = []

    def add(name: str, values: Any, ours: Callable[[], Any], arrow_array: Any = None,
            raw: int | None = None, **arrow_opts: Any) -> None:
        arrow = None
        if have_arrow and arrow_array is not None:
            arrow = _arrow_writer(arrow_array, **arrow_opts)
        cases.append(EncodeCase(name, len(values), _raw(values) if raw is None else raw,
                                ours, arrow))

    def arr(values: Any) -> Any:
        if not have_arrow:
            return None
        return _arrow_binary(values) if isinstance(values, ByteArrays) else pa.array(values)

    ints32 = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    walk64 = np.cumsum(rng.integers(-1000, 1000, n)).astype(np.int64)
    floats = rng.standard_normal(n)
    bools = rng.random(n) < 0.5
    short = _strings(rng, n, 0, 20)
    keys = _sorted_keys(rng, n)
    flba = rng.integers(0, 256, (n, 16), dtype=np.uint8)
    enc = {"column_encoding": {"x": "PLAIN"}}

    add("PLAIN INT32", ints32, lambda: plain.encode_plain(ints32, PT.INT32), arr(ints32), **enc)
    add("PLAIN DOUBLE", floats, lambda: plain.encode_plain(floats, PT.DOUBLE), arr(floats), **enc)
    add("PLAIN BOOLEAN", bools, lambda: plain.encode_plain(bools, PT.BOOLEAN), arr(bools), **enc)
    add("PLAIN BYTE_ARRAY 0-20B", short, lambda: plain.encode_plain(short, PT.BYTE_ARRAY),
        arr(short), **enc)
    add("PLAIN BYTE_ARRAY keys 15B", keys, lambda: plain.encode_plain(keys, PT.BYTE_ARRAY),
        arr(keys), **enc)

    def rle(name: str) -> dict[str, Any]:
        return {"column_encoding": {"x": name}}

    add("RLE BOOLEAN", bools, lambda: _rle_booleans(bools), arr(bools), **rle("RLE"))
    runs = np.repeat(rng.random(n // 10 + 1) < 0.9, rng.integers(1, 20, n // 10 + 1))[:n]
    add("RLE BOOLEAN runs", runs, lambda: _rle_booleans(runs), arr(runs), **rle("RLE"))
    levels = (rng.random(n) > 0.1).astype(np.int16)
    add("levels v2 (10% nulls, w=1)", levels, lambda: _levels(levels, 1),
        raw=levels.size)
    # what the column writer does: one level stream per 20,000-row page
    add("levels v2 per 20k page (10% nulls)", levels,
        lambda: [_levels(levels[i:i + 20_000], 1) for i in range(0, levels.size, 20_000)],
        raw=levels.size)
    idx = np.concatenate([rng.integers(0, 1000, n // 2),
                          np.repeat(rng.integers(0, 1000, n // 40 + 1), 20)])[:n].astype(np.int32)
    add("dictionary indices (w=10)", idx, lambda: _indices(idx, 1000))

    add("DELTA_BINARY_PACKED INT64 walk", walk64,
        lambda: dbp.encode_delta_binary_packed(walk64, np.int64, block_size=256, miniblocks=4),
        arr(walk64), **rle("DELTA_BINARY_PACKED"))
    add("DELTA_BINARY_PACKED INT32 random", ints32,
        lambda: dbp.encode_delta_binary_packed(ints32, np.int32), arr(ints32),
        **rle("DELTA_BINARY_PACKED"))
    add("DELTA_LENGTH_BYTE_ARRAY 0-20B", short,
        lambda: dlba.encode_delta_length_byte_array(_compat(short)), arr(short),
        **rle("DELTA_LENGTH_BYTE_ARRAY"))
    add("DELTA_BYTE_ARRAY sorted keys", keys,
        lambda: dba.encode_delta_byte_array(_compat(keys)), arr(keys), **rle("DELTA_BYTE_ARRAY"))
    add("DELTA_BYTE_ARRAY 0-20B", short,
        lambda: dba.encode_delta_byte_array(_compat(short)), arr(short), **rle("DELTA_BYTE_ARRAY"))
    add("BYTE_STREAM_SPLIT DOUBLE", floats,
        lambda: bss.encode_byte_stream_split(floats, PT.DOUBLE), arr(floats),
        **rle("BYTE_STREAM_SPLIT"))
    add("BYTE_STREAM_SPLIT FLBA(16)", flba,
        lambda: bss.encode_byte_stream_split(flba, PT.FIXED_LEN_BYTE_ARRAY, 16),
        _flba_array(flba) if have_arrow else None, **rle("BYTE_STREAM_SPLIT"))

    if build_dictionary is not None:
        low = rng.integers(0, 1000, n) * 7919
        add("dictionary build INT64 1k distinct", low,
            lambda: build_dictionary(low, PT.INT64), arr(low), use_dictionary=True)
        high = rng.integers(0, 2**40, n)
        add("dictionary build INT64 ~1M distinct", high,
            lambda: build_dictionary(high, PT.INT64), arr(high), use_dictionary=True,
            dictionary_pagesize_limit=1 << 30)
        strs = _strings(rng, 1000, 4, 24).take(rng.integers(0, 1000, n))
        add("dictionary build strings 1k distinct", strs,
            lambda: build_dictionary(strs, PT.BYTE_ARRAY), arr(strs), use_dictionary=True)
        add("dictionary build strings ~1M distinct", short,
            lambda: build_dictionary(short, PT.BYTE_ARRAY), arr(short), use_dictionary=True,
            dictionary_pagesize_limit=1 << 30)
    return cases


def _flba_array(rows: np.ndarray) -> Any:
    import pyarrow as pa
    return pa.Array.from_buffers(pa.binary(rows.shape[1]), rows.shape[0],
                                 [None, pa.py_buffer(rows.tobytes())])


def _compat(values: ByteArrays) -> Any:
    # older revisions took lists of bytes (their encoders were per-value loops anyway)
    if hasattr(rle_hybrid, "encode_levels_v2"):
        return values
    return values.to_pylist()


def _rle_booleans(values: np.ndarray) -> bytes:
    if hasattr(rle_hybrid, "encode_rle_booleans"):
        return rle_hybrid.encode_rle_booleans(values)
    body = rle_hybrid.encode_rle_hybrid(values, 1)
    return len(body).to_bytes(4, "little") + body


def _levels(levels: np.ndarray, max_level: int) -> bytes:
    if hasattr(rle_hybrid, "encode_levels_v2"):
        return rle_hybrid.encode_levels_v2(levels, max_level)
    return rle_hybrid.encode_rle_hybrid(levels, max_level.bit_length())


def _indices(idx: np.ndarray, size: int) -> bytes:
    if hasattr(rle_hybrid, "encode_dictionary_indices"):
        return rle_hybrid.encode_dictionary_indices(idx, size)
    width = max(1, (size - 1).bit_length())
    return bytes([width]) + rle_hybrid.encode_rle_hybrid(idx, width)


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), times


def run_encode_cases(cases: list[EncodeCase], repeat: int) -> list[dict[str, Any]]:
    """Time every case (best of ``repeat``); print a table and return its rows."""
    print(f"\nencode, best of {repeat} (MB/s of raw input; pyarrow = whole writer, same encoding)")
    print(f"{'case':40s} {'values':>9s} {'MB raw':>7s} {'ms':>8s} {'Mval/s':>7s} {'MB/s':>7s} "
          f"{'pyarrow ms':>10s} {'pa MB/s':>8s} {'ratio':>6s}")
    rows = []
    for case in cases:
        best, times = _best(case.ours, repeat)
        row: dict[str, Any] = {"side": "encode", "case": case.name, "values": case.values,
                               "bytes": case.raw_bytes, "seconds": times, "best_seconds": best,
                               "values_per_s": case.values / best,
                               "mb_per_s": case.raw_bytes / best / 1e6}
        tail = ""
        if case.arrow is not None:
            pa_best, pa_times = _best(case.arrow, repeat)
            row.update(arrow_seconds=pa_times, arrow_best_seconds=pa_best,
                       arrow_mb_per_s=case.raw_bytes / pa_best / 1e6)
            tail = f"{pa_best * 1e3:10.2f} {row['arrow_mb_per_s']:8.0f} {best / pa_best:6.1f}"
        rows.append(row)
        print(f"{case.name:40s} {case.values:9d} {case.raw_bytes / 1e6:7.2f} {best * 1e3:8.2f} "
              f"{case.values / best / 1e6:7.1f} {row['mb_per_s']:7.0f} {tail}")
    return rows
