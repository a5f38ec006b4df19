"""Datasets for the read benchmark (``python -m benchmarks.read_bench``).

Everything here is written with pyarrow from deterministic numpy seeds and
cached on disk, keyed by every parameter that changes the bytes (rows, seed,
row-group size, variant spec, data-generator version, pyarrow version), so a
second run reuses the files and two machines with the same versions time
the same files.

* :func:`make_table` — the nine-column benchmark table (see ``COLUMNS``).
* ``VARIANTS`` — one file per codec (dictionary on, page v1), one per
  non-dictionary encoding pyarrow can write, one data page v2 file.
* :func:`make_footer_table` — 100 columns x 50 small row groups, for the
  footer-only parsing benchmark.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = [
    "COLUMNS", "Variant", "VARIANTS", "DATA_VERSION", "default_cache_dir",
    "make_table", "make_footer_table", "ensure_variant", "ensure_footer_file",
]

# Bump whenever make_table / make_footer_table change what they generate.
DATA_VERSION = 1

#: column name -> short description (the order is the file's column order)
COLUMNS: dict[str, str] = {
    "int64": "int64, uniform in [0, 1e12) (dictionary overflows -> PLAIN fallback)",
    "int32": "int32, uniform in [0, 100000) (dictionary-friendly)",
    "float64": "float64, normal(0, 1000)",
    "float32": "float32, uniform [0, 1)",
    "bool": "bool, p(True) = 0.5",
    "str_low": "string, 50 distinct values, 4-24 chars",
    "str_high": "string, 10-20 random alphanumerics, ~90% unique",
    "int64_null": "int64, uniform in [0, 1e6), 10% nulls",
    "ts_us": "timestamp[us], increasing with random gaps (~1 s)",
}

INT_COLS = ["int64", "int32", "int64_null", "ts_us"]
FLOAT_COLS = ["float64", "float32"]
STR_COLS = ["str_low", "str_high"]
BOOL_COLS = ["bool"]


@dataclass(frozen=True)
class Variant:
    """One way of writing the benchmark table.

    ``focus`` are the columns whose encoding the variant is about; the
    benchmark times those per column (every column for the codec variants),
    and always times the whole table.
    """

    name: str
    description: str
    compression: str = "none"
    use_dictionary: bool = True
    column_encoding: dict[str, str] = field(default_factory=dict)
    data_page_version: str = "1.0"
    focus: tuple[str, ...] = tuple(COLUMNS)
    #: rows per data page when set (pyarrow's write_batch_size, with a 1-byte page size
    #: limit so every batch closes a page); 0: pyarrow's default page size
    page_rows: int = 0

    def write_kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = dict(
            compression=self.compression,
            use_dictionary=self.use_dictionary,
            data_page_version=self.data_page_version,
            write_statistics=True,
        )
        if self.column_encoding:
            kw["column_encoding"] = dict(self.column_encoding)
        if self.page_rows:
            kw["write_batch_size"] = self.page_rows
            kw["data_page_size"] = 1
        return kw


def _enc(encoding: str, cols: list[str]) -> dict[str, str]:
    """PLAIN for every column, *encoding* for *cols* (explicit, so defaults never drift)."""
    out = {c: "PLAIN" for c in COLUMNS}
    out.update({c: encoding for c in cols})
    return out


VARIANTS: list[Variant] = [
    Variant("dict_none", "dictionary on, uncompressed, data page v1"),
    Variant("dict_snappy", "dictionary on, snappy, data page v1", compression="snappy"),
    Variant("dict_zstd", "dictionary on, zstd, data page v1", compression="zstd"),
    Variant("plain_none", "PLAIN everywhere (no dictionary), uncompressed, page v1",
            use_dictionary=False, column_encoding=_enc("PLAIN", [])),
    Variant("plain_snappy", "PLAIN everywhere (no dictionary), snappy, page v1",
            compression="snappy", use_dictionary=False, column_encoding=_enc("PLAIN", [])),
    Variant("delta_binary_packed", "DELTA_BINARY_PACKED for ints/timestamp, rest PLAIN, uncompressed",
            use_dictionary=False, column_encoding=_enc("DELTA_BINARY_PACKED", INT_COLS),
            focus=tuple(INT_COLS)),
    Variant("delta_length_byte_array", "DELTA_LENGTH_BYTE_ARRAY for strings, rest PLAIN, uncompressed",
            use_dictionary=False, column_encoding=_enc("DELTA_LENGTH_BYTE_ARRAY", STR_COLS),
            focus=tuple(STR_COLS)),
    Variant("delta_byte_array", "DELTA_BYTE_ARRAY for strings, rest PLAIN, uncompressed",
            use_dictionary=False, column_encoding=_enc("DELTA_BYTE_ARRAY", STR_COLS),
            focus=tuple(STR_COLS)),
    Variant("byte_stream_split", "BYTE_STREAM_SPLIT for floats/ints/timestamp, rest PLAIN, uncompressed",
            use_dictionary=False, column_encoding=_enc("BYTE_STREAM_SPLIT", FLOAT_COLS + INT_COLS),
            focus=tuple(FLOAT_COLS + INT_COLS)),
    Variant("rle_bool", "RLE for bool, rest PLAIN, uncompressed",
            use_dictionary=False, column_encoding=_enc("RLE", BOOL_COLS), focus=tuple(BOOL_COLS)),
    Variant("dict_snappy_v2", "dictionary on, snappy, data page v2",
            compression="snappy", data_page_version="2.0"),
    Variant("small_pages", "PLAIN, uncompressed, page v1, 1,000-row pages (fixed cost per page)",
            use_dictionary=False, column_encoding=_enc("PLAIN", []), focus=("int64", "int64_null"),
            page_rows=1000),
]


def default_cache_dir() -> Path:
    """``$PQC_BENCH_CACHE`` or ``benchmarks/_cache`` (git-ignored)."""
    env = os.environ.get("PQC_BENCH_CACHE")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / "_cache"


def _key(payload: dict[str, Any]) -> str:
    payload = dict(payload, data_version=DATA_VERSION, pyarrow=pa.__version__)
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha1(blob).hexdigest()[:12]


def _atomic_write(table: pa.Table, path: Path, **kw: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp, **kw)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# -- the benchmark table -------------------------------------------------------

_ALNUM = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", dtype=np.uint8)
_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]


def _random_strings(rng: np.random.Generator, n: int, lo: int, hi: int) -> pa.Array:
    """*n* random alphanumeric strings of length lo..hi, built from buffers (no Python loop)."""
    lengths = rng.integers(lo, hi + 1, size=n, dtype=np.int32)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = _ALNUM[rng.integers(0, len(_ALNUM), size=int(offsets[-1]))]
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def make_table(rows: int, seed: int) -> pa.Table:
    """The benchmark table: the nine ``COLUMNS``, deterministic in (rows, seed)."""
    rng = np.random.default_rng(seed)
    cols: dict[str, pa.Array] = {}
    cols["int64"] = pa.array(rng.integers(0, 10**12, size=rows, dtype=np.int64))
    cols["int32"] = pa.array(rng.integers(0, 100_000, size=rows, dtype=np.int32))
    cols["float64"] = pa.array(rng.standard_normal(rows) * 1000.0)
    cols["float32"] = pa.array(rng.random(rows, dtype=np.float32))
    cols["bool"] = pa.array(rng.random(rows) < 0.5)
    # 50 distinct category strings of varied length (4..24 chars)
    cats = [f"{_WORDS[i % 10]}_{i:02d}" + "x" * (i % 11) for i in range(50)]
    cols["str_low"] = pa.array(cats, pa.string()).take(
        pa.array(rng.integers(0, 50, size=rows, dtype=np.int32)))
    # mostly unique: ~10% of rows repeat another row's value
    base = _random_strings(rng, rows, 10, 20)
    idx = np.arange(rows, dtype=np.int64)
    dup = rng.random(rows) < 0.10
    idx[dup] = rng.integers(0, rows, size=int(dup.sum()))
    cols["str_high"] = base.take(pa.array(idx))
    vals = rng.integers(0, 1_000_000, size=rows, dtype=np.int64)
    cols["int64_null"] = pa.array(vals, mask=rng.random(rows) < 0.10)
    start = np.int64(1_704_067_200_000_000)  # 2024-01-01T00:00:00 in us
    ts = start + np.cumsum(rng.integers(0, 2_000_000, size=rows, dtype=np.int64))
    cols["ts_us"] = pa.array(ts, pa.timestamp("us"))
    assert list(cols) == list(COLUMNS)
    return pa.table(cols)


def variant_path(cache_dir: Path, variant: Variant, rows: int, seed: int, row_group_size: int) -> Path:
    fields = asdict(variant)
    if not fields["page_rows"]:
        del fields["page_rows"]   # keeps the cache keys of the variants from before it existed
    key = _key(dict(rows=rows, seed=seed, row_group_size=row_group_size, variant=fields))
    return cache_dir / f"read_rows{rows}_seed{seed}" / f"{variant.name}-{key}.parquet"


def ensure_variant(cache_dir: Path, variant: Variant, rows: int, seed: int, row_group_size: int,
                   table_cache: dict[str, pa.Table], regenerate: bool = False) -> tuple[Path, bool]:
    """Return (path, generated_now); the base table is built at most once per process."""
    path = variant_path(cache_dir, variant, rows, seed, row_group_size)
    if path.exists() and not regenerate:
        return path, False
    if "table" not in table_cache:
        table_cache["table"] = make_table(rows, seed)
    _atomic_write(table_cache["table"], path, row_group_size=row_group_size, **variant.write_kwargs())
    return path, True


# -- footer benchmark file -----------------------------------------------------

FOOTER_SHAPE = dict(num_columns=100, num_row_groups=50, rows_per_group=100)


def make_footer_table(seed: int, num_columns: int = 100, num_rows: int = 5000) -> pa.Table:
    """Wide table of mixed types (10 kinds cycled) for the footer benchmark."""
    rng = np.random.default_rng(seed + 1)
    kinds = ["int64", "int32", "float64", "float32", "bool", "string", "timestamp",
             "date", "int64_null", "decimal"]
    cols: dict[str, pa.Array] = {}
    for i in range(num_columns):
        kind = kinds[i % len(kinds)]
        name = f"c{i:03d}_{kind}"
        if kind == "int64":
            a = pa.array(rng.integers(-10**12, 10**12, size=num_rows, dtype=np.int64))
        elif kind == "int32":
            a = pa.array(rng.integers(-10**6, 10**6, size=num_rows, dtype=np.int32))
        elif kind == "float64":
            a = pa.array(rng.standard_normal(num_rows))
        elif kind == "float32":
            a = pa.array(rng.random(num_rows, dtype=np.float32))
        elif kind == "bool":
            a = pa.array(rng.random(num_rows) < 0.5)
        elif kind == "string":
            a = _random_strings(rng, num_rows, 5, 15)
        elif kind == "timestamp":
            a = pa.array(rng.integers(0, 2 * 10**15, size=num_rows, dtype=np.int64), pa.timestamp("us"))
        elif kind == "date":
            a = pa.array(rng.integers(0, 20000, size=num_rows, dtype=np.int32), pa.date32())
        elif kind == "int64_null":
            a = pa.array(rng.integers(0, 1000, size=num_rows, dtype=np.int64),
                         mask=rng.random(num_rows) < 0.1)
        else:
            unscaled = rng.integers(-10**9, 10**9, size=num_rows, dtype=np.int64)
            words = np.empty((num_rows, 2), dtype="<i8")  # decimal128 = 16-byte LE two's complement
            words[:, 0] = unscaled
            words[:, 1] = np.where(unscaled < 0, -1, 0)
            a = pa.Array.from_buffers(pa.decimal128(18, 2), num_rows, [None, pa.py_buffer(words)])
        cols[name] = a
    return pa.table(cols)


def ensure_footer_file(cache_dir: Path, seed: int, regenerate: bool = False) -> Path:
    """100 columns x 50 row groups (100 rows each), snappy, statistics on."""
    shape = FOOTER_SHAPE
    key = _key(dict(kind="footer", seed=seed, **shape))
    path = cache_dir / "footer" / f"footer_{shape['num_columns']}c_{shape['num_row_groups']}rg-{key}.parquet"
    if path.exists() and not regenerate:
        return path
    t = make_footer_table(seed, shape["num_columns"], shape["num_row_groups"] * shape["rows_per_group"])
    _atomic_write(t, path, row_group_size=shape["rows_per_group"], compression="snappy",
                  write_statistics=True)
    return path
