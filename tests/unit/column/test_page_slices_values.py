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
from parquet_core.column.value_cutters import BitCutter, ByteArrayCutter, DeltaCutter, StreamSplitCutter
from parquet_core.encodings.delta_binary_packed import (
    delta_binary_packed_blocks,
    encode_delta_binary_packed,
)
from parquet_core.errors import ParquetError, ParquetFormatError

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
    if kind == "fixed":
        raw = rng.integers(0, 256, (n, 5), dtype=np.uint8)
        raw[::3, :3] = 7                     # shared prefixes for DELTA_BYTE_ARRAY
        return pa.array([bytes(r) for r in raw], pa.binary(5), mask=mask)
    if kind == "binary":
        return pa.array([None if s is None else s.encode() for s in _strings(rng, n)], pa.binary())
    raise AssertionError(kind)


CASES = [
    ("string", "PLAIN"), ("binary", "PLAIN"), ("bool", "PLAIN"),
    ("double", "BYTE_STREAM_SPLIT"), ("float", "BYTE_STREAM_SPLIT"), ("int32", "BYTE_STREAM_SPLIT"),
    ("fixed", "BYTE_STREAM_SPLIT"), ("fixed", "DELTA_BYTE_ARRAY"),
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
    for batch_size in (4_097, 30_001) if version == "2.0" else (4_097,):
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
    """One page of 2**17 values in batches of 5,000: the peak is the decompressed page
    plus about a batch, well below what decoding the page whole holds (measured here with
    a batch of the whole page, which is never cut) and below the page's decoded size as
    pyarrow holds it (``nbytes``), except where the page itself is that big."""
    kind, encoding = MEMORY_CASES[name]
    n = 1 << 17
    path = tmp_path / "mem.parquet"
    _write(path, kind, encoding, "2.0", compression="zstd", n=n)
    page = pc.ParquetFile(path).page_headers(0, 0)[0].uncompressed_page_size
    decoded = pq.read_table(path).nbytes
    rows, whole = _peak(path, n)
    assert rows == n
    rows, peak = _peak(path, 5_000)
    assert rows == n
    assert peak < 0.6 * whole, (peak, whole)
    assert peak < 1.5 * page + (1 << 20), (peak, page)
    if page < decoded / 4:
        assert peak < 0.75 * decoded, (peak, decoded)


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
    data = path.read_bytes()
    begin, end = _page_body(data, pc.ParquetFile(path))
    rng = np.random.default_rng(len(kind) * 31 + len(encoding))
    refused = 0
    for trial in range(4):
        mutant = bytearray(data)
        if trial % 4 == 0:
            # big values where lengths, widths or headers were: runs past the page
            for at in rng.integers(begin, end - 4, 3):
                mutant[at:at + 4] = bytes([0xFF, 0xFF, 0xFF, 0x7F])
        elif trial % 4 == 1:
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
    if encoding not in ("PLAIN", "BYTE_STREAM_SPLIT") or kind in ("string", "binary"):
        assert refused, "no mutant was refused"     # (any bytes are valid booleans / floats)


# --------------------------------------------------------------------------------------
# the cutters on hand-built corrupt values: the precise refusal
# --------------------------------------------------------------------------------------

def _plain_strings(values: list[bytes]) -> bytes:
    return b"".join(len(v).to_bytes(4, "little") + v for v in values)


def test_byte_array_length_past_the_page() -> None:
    vals = [b"ab", b"", b"cde"] * 4000
    buf = bytearray(_plain_strings(vals))
    at = len(_plain_strings(vals[:6001]))
    buf[at:at + 4] = (1 << 31).to_bytes(4, "little")        # value 6001: 2 GiB long
    cut = ByteArrayCutter(memoryview(bytes(buf)), "page 7 at offset 9")
    assert cut.take(5000)[1].tobytes() == _plain_strings(vals[:5000])
    with pytest.raises(ParquetFormatError, match=r"page 7 at offset 9.*value 1001.*runs past"):
        cut.take(5000)


def test_byte_array_truncated() -> None:
    vals = [b"xyz"] * 3000
    cut = ByteArrayCutter(memoryview(_plain_strings(vals)[:-2]), "page 1 at offset 4")
    cut.take(2000)
    with pytest.raises(ParquetFormatError, match="page 1 at offset 4"):
        cut.take(1000)


def test_booleans_cut_at_bit_positions_and_truncated() -> None:
    bits = np.random.default_rng(3).random(1001) < 0.5
    packed = np.packbits(bits, bitorder="little").tobytes()
    cut = BitCutter(memoryview(packed), "page 0 at offset 4")
    got = []
    for k in (3, 13, 8, 500, 477):                           # cuts inside bytes
        _, body = cut.take(k)
        got.append(np.unpackbits(np.frombuffer(bytes(body), np.uint8), bitorder="little")[:k])
    assert np.array_equal(np.concatenate(got), bits)
    with pytest.raises(ParquetFormatError, match="page 0 at offset 4"):
        cut.take(8)


def test_stream_split_refuses_a_short_page() -> None:
    with pytest.raises(ParquetFormatError, match="not a multiple"):
        StreamSplitCutter(memoryview(b"\x00" * 15), 8, "page 0 at offset 4")
    cut = StreamSplitCutter(memoryview(b"\x00" * 16), 8, "page 0 at offset 4")
    cut.take(2)
    with pytest.raises(ParquetFormatError, match="holds 2 values"):
        cut.take(1)


def _dbp_with_width(width: int) -> bytes:
    buf = bytearray(encode_delta_binary_packed(np.arange(1000, dtype=np.int64) ** 2, np.int64))
    _, _, _, _, starts, _ = delta_binary_packed_blocks(bytes(buf), 0)
    p = int(starts[3])
    while buf[p] >= 0x80:                                     # the block's min delta
        p += 1
    buf[p + 1] = width                                        # block 3, miniblock 0
    return bytes(buf) + bytes(4 * width)                      # the wider body fits the page


def test_delta_values_match_and_refuse_a_bit_width_over_64() -> None:
    good = DeltaCutter(memoryview(_dbp_with_width(0)), np.int64, "page 2 at offset 8", 1000, True)
    bad = DeltaCutter(memoryview(_dbp_with_width(65)), np.int64, "page 2 at offset 8", 1000, True)
    assert np.frombuffer(good.take(333)[1], np.int64)[:3].tolist() == [0, 1, 4]
    bad.take(300)                                             # blocks 0-2 are fine
    with pytest.raises(ParquetFormatError, match=r"page 2 at offset 8.*bit width 65"):
        bad.take(300)


def test_delta_truncated_and_short_streams() -> None:
    buf = encode_delta_binary_packed(np.arange(5000, dtype=np.int32) * 7, np.int32)
    with pytest.raises(ParquetFormatError, match="page 0 at offset 4"):
        DeltaCutter(memoryview(buf[:len(buf) // 2]), np.int32, "page 0 at offset 4", 5000, True)
    with pytest.raises(ParquetFormatError, match="holds 5000 values"):
        DeltaCutter(memoryview(buf), np.int32, "page 0 at offset 4", 6000, True)
    huge = bytearray(buf)
    huge[2:7] = bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x07])        # the count: 2**31 - 1
    with pytest.raises(ParquetFormatError):
        DeltaCutter(memoryview(bytes(huge)), np.int32, "page 0 at offset 4", 6000, False)


def test_dense_levels_chunks_agree_with_the_header_walk(monkeypatch) -> None:
    """The bitmap of dense definition levels is decoded in chunks of whole runs, found
    vectorised or (irregular streams) by walking the headers: either way the pieces follow
    each other and decode to the levels the stream was written from."""
    from parquet_core.column import page_slices
    from parquet_core.encodings.rle_hybrid import decode_rle_hybrid
    from parquet_core.encodings.rle_hybrid_encoder import encode_rle_hybrid

    rng = np.random.default_rng(5)
    levels = (rng.random(200_003) < 0.8).astype(np.int64)
    levels[1000:5000] = 1                                     # long RLE runs too
    stream = encode_rle_hybrid(levels, 1)
    fast = list(page_slices._run_chunks(stream, levels.size, 1 << 12, "levels"))
    monkeypatch.setattr(page_slices, "stream_runs", lambda s: None)
    slow = list(page_slices._run_chunks(stream, levels.size, 1 << 12, "levels"))
    for pieces in (fast, slow):
        assert len(pieces) > 10
        assert all(a == b for (_, a, _), (b, _, _) in zip(pieces, pieces[1:]))   # no gap
        got = np.concatenate([decode_rle_hybrid(stream[a:b], 1, c) for a, b, c in pieces])
        assert np.array_equal(got, levels)
    with pytest.raises(ParquetFormatError, match="levels"):
        list(page_slices._run_chunks(stream[:len(stream) // 2], levels.size, 1 << 12, "levels"))
