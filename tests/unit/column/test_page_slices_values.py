"""Big pages in the other encodings are cut too (issue 29): PLAIN BYTE_ARRAY and
booleans, BYTE_STREAM_SPLIT, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
DELTA_BYTE_ARRAY.

Files are written by pyarrow with one huge data page; every batch of
``iter_batches`` is compared with pyarrow's batch of the same size, the memory
held is measured with tracemalloc (a ratio to the page's decoded size), and
pages corrupted in their values must be refused with a ParquetError naming
column, row group and page.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column.page_slices import SLICE_MIN_VALUES
from parquet_core.errors import ParquetError

N = SLICE_MIN_VALUES + 4_465          # over the threshold: the page is cut


def _strings(rng: np.random.Generator, n: int, sorted_keys: bool = False) -> list[str | None]:
    if sorted_keys:   # long shared prefixes: DELTA_BYTE_ARRAY's prefix chain runs across cuts
        out: list[str | None] = [f"key/{i // 7:08d}/{'x' * (i % 5)}" for i in range(n)]
    else:
        lens = rng.integers(0, 12, n)
        out = ["" if k == 0 else "s" * int(k) + str(i % 97) for i, k in enumerate(lens)]
    for i in np.flatnonzero(rng.random(n) < 0.15):
        out[i] = None
    out[0] = ""
    out[1] = None
    return out


def _column(kind: str, n: int, optional: bool) -> pa.Array:
    rng = np.random.default_rng(11)
    mask = (rng.random(n) < 0.2) if optional else None
    if kind == "bool":
        return pa.array(rng.random(n) < 0.4, mask=mask)
    if kind == "double":
        return pa.array(rng.normal(size=n), mask=mask)
    if kind == "float":
        return pa.array(rng.normal(size=n).astype(np.float32), mask=mask)
    if kind == "int32":
        return pa.array(rng.integers(-5000, 5000, n).astype(np.int32), mask=mask)
    if kind == "int64":
        # deltas of mixed widths (miniblock widths change) and a wrap-around jump
        v = np.cumsum(rng.integers(-(1 << 40), 1 << 40, n)) * rng.integers(0, 2, n)
        v[n // 2] = np.iinfo(np.int64).min
        return pa.array(v, mask=mask)
    if kind == "string":
        return pa.array(_strings(rng, n) if optional else [s or "" for s in _strings(rng, n)])
    if kind == "sorted":
        return pa.array(_strings(rng, n, sorted_keys=True))
    if kind == "binary":
        return pa.array([None if s is None else s.encode() for s in _strings(rng, n)], pa.binary())
    raise AssertionError(kind)


CASES = [
    ("string", "PLAIN"), ("binary", "PLAIN"), ("bool", "PLAIN"),
    ("double", "BYTE_STREAM_SPLIT"), ("float", "BYTE_STREAM_SPLIT"), ("int32", "BYTE_STREAM_SPLIT"),
    ("int32", "DELTA_BINARY_PACKED"), ("int64", "DELTA_BINARY_PACKED"),
    ("string", "DELTA_LENGTH_BYTE_ARRAY"),
    ("string", "DELTA_BYTE_ARRAY"), ("sorted", "DELTA_BYTE_ARRAY"),
]


def _write(path, kind: str, encoding: str, version: str, optional: bool = True,
           compression: str = "none", n: int = N) -> None:
    table = pa.table({"x": _column(kind, n, optional)})
    if not optional:
        table = table.cast(pa.schema([pa.field("x", table.schema[0].type, nullable=False)]))
    pq.write_table(table, path, use_dictionary=False, column_encoding={"x": encoding},
                   data_page_size=1 << 30, max_rows_per_page=1 << 30, data_page_version=version,
                   compression=compression)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("kind,encoding", CASES)
def test_batches_equal_pyarrow_batches(tmp_path, kind: str, encoding: str, version: str) -> None:
    path = tmp_path / "big.parquet"
    _write(path, kind, encoding, version)
    pf = pc.ParquetFile(path)
    assert len(pf.page_headers(0, 0)) == 1                     # one data page
    # 4_097 and 30_001 cut inside bit-packed groups, miniblocks and blocks
    for batch_size in (4_097, 30_001):
        ours = list(pf.iter_batches(batch_size=batch_size))
        theirs = list(pq.ParquetFile(path).iter_batches(batch_size=batch_size))
        assert len(ours) == len(theirs), batch_size
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert pa.Table.from_batches([b]).equals(a.to_arrow()), (batch_size, i)


@pytest.mark.parametrize("kind,encoding", [("string", "PLAIN"), ("bool", "PLAIN"),
                                           ("int64", "DELTA_BINARY_PACKED"),
                                           ("double", "BYTE_STREAM_SPLIT")])
def test_required_columns(tmp_path, kind: str, encoding: str) -> None:
    path = tmp_path / "req.parquet"
    _write(path, kind, encoding, "2.0", optional=False)
    got = pa.concat_tables(b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=5_003))
    assert got.equals(pq.read_table(path))


# --------------------------------------------------------------------------------------
# memory: a fraction of the page's decoded size
# --------------------------------------------------------------------------------------

MEMORY_CASES = {
    # kind, encoding: the page is decompressed whole (held while it is cut), so for
    # PLAIN and BYTE_STREAM_SPLIT pages, about as big as their values, the bound is
    # the page; delta and boolean pages are much smaller than their values
    "PLAIN strings": ("string", "PLAIN"),
    "PLAIN booleans": ("bool", "PLAIN"),
    "BYTE_STREAM_SPLIT": ("double", "BYTE_STREAM_SPLIT"),
    "DELTA_BINARY_PACKED": ("int64", "DELTA_BINARY_PACKED"),
    "DELTA_LENGTH_BYTE_ARRAY": ("string", "DELTA_LENGTH_BYTE_ARRAY"),
    "DELTA_BYTE_ARRAY": ("sorted", "DELTA_BYTE_ARRAY"),
}


def _peak(path, batch_size: int) -> tuple[int, int]:
    pf = pc.ParquetFile(path)
    rows = 0
    tracemalloc.start()
    try:
        for b in pf.iter_batches(batch_size=batch_size):
            rows += b.num_rows
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return rows, peak


@pytest.mark.parametrize("name", list(MEMORY_CASES))
def test_memory_follows_the_batch(tmp_path, name: str) -> None:
    """One page of 2**18 values in batches of 4,000: the peak is the decompressed page
    plus about a batch, well below what decoding the page whole holds (measured here with
    a batch of the whole page, which is never cut) and below the page's decoded size as
    pyarrow holds it (``nbytes``), except where the page itself is that big."""
    kind, encoding = MEMORY_CASES[name]
    n = 1 << 18
    path = tmp_path / "mem.parquet"
    _write(path, kind, encoding, "2.0", compression="zstd", n=n)
    page = pc.ParquetFile(path).page_headers(0, 0)[0].uncompressed_page_size
    decoded = pq.read_table(path).nbytes
    rows, whole = _peak(path, n)
    assert rows == n
    rows, peak = _peak(path, 4_000)
    assert rows == n
    assert peak < 0.6 * whole, (peak, whole)
    assert peak < 1.5 * page + (1 << 20), (peak, page)
    if page < decoded / 2:
        assert peak < 0.5 * decoded, (peak, decoded)


# --------------------------------------------------------------------------------------
# corrupt pages: a ParquetError naming the column, the row group and the page
# --------------------------------------------------------------------------------------

def _page_body(data: bytes, pf: pc.ParquetFile) -> tuple[int, int]:
    h = pf.page_headers(0, 0)[-1]
    end = h.offset + h.header_size + h.compressed_page_size
    return end - h.compressed_page_size, end


def _iterate(path) -> int:
    rows = 0
    for b in pc.ParquetFile(path).iter_batches(batch_size=3_001):
        rows += b.num_rows
    return rows


@pytest.mark.parametrize("kind,encoding", CASES)
def test_mutated_pages_are_refused_or_read(tmp_path, kind: str, encoding: str) -> None:
    """Random byte edits in the page's values, and values cut short (the page's tail
    zeroed out of the chain): iter_batches reads the page or raises a ParquetError
    naming column, row group and page; never an IndexError / ValueError / MemoryError."""
    path = tmp_path / "seed.parquet"
    _write(path, kind, encoding, "2.0")
    data = open(path, "rb").read()
    begin, end = _page_body(data, pc.ParquetFile(path))
    rng = np.random.default_rng(len(kind) * 31 + len(encoding))
    refused = 0
    for trial in range(12):
        mutant = bytearray(data)
        if trial % 3 == 0:
            # big values where lengths, widths or headers were: runs past the page
            for at in rng.integers(begin, end - 4, 3):
                mutant[at:at + 4] = bytes([0xFF, 0xFF, 0xFF, 0x7F])
        elif trial % 3 == 1:
            for at in rng.integers(begin, end, 16):
                mutant[at] = int(rng.integers(0, 256))
        else:
            # the page's last half is garbage of 0xFF: a truncated stream
            cut = int(rng.integers((begin + end) // 2, end))
            mutant[cut:end] = b"\xff" * (end - cut)
        p = tmp_path / f"m{trial}.parquet"
        p.write_bytes(bytes(mutant))
        try:
            _iterate(p)
        except ParquetError as exc:
            text = str(exc) + " ".join(getattr(exc, "__notes__", []))
            assert "column x" in text and "row group 0" in text and "page 0" in text, text
            refused += 1
    assert refused, "no mutant was refused"
