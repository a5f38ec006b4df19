"""DELTA_BINARY_PACKED pages whose blocks all repeat one layout (issue 32): their blocks
are found without a walk and their full blocks unpacked by one strided call into the
values.  Files written by pyarrow, read back equal to pyarrow's read; hand-made streams
compared with the values they encode; corrupted streams never accepted when decoding
each page on its own rejects them, nor decoded differently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.encodings import delta_binary_packed as dbp
from parquet_core.encodings.delta_binary_packed import (
    delta_binary_packed_page_header,
    encode_delta_binary_packed,
    expand_held_delta_binary_packed_pages,
)
from tests._support.dbp_streams import damage, held_with_reference

I64 = np.iinfo(np.int64)
I32 = np.iinfo(np.int32)


@pytest.fixture
def strided(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the pages that take the strided unpack, and those that do not (the plan
    handed to ``_sum_pages`` by the chunk pass)."""
    seen = {"strided": 0, "other": 0}
    real = dbp._sum_pages
    # the general pass's plan: the steady pass (tried first, test_delta_binary_packed_steady) kept out
    monkeypatch.setattr(dbp, "_steady_chunk", lambda *a: None)

    def spy(*a: Any, **kw: Any) -> Any:
        fast = _fast_of(a, kw)
        if fast is not None:
            seen["strided"] += sum(f is not None for f in fast)
            seen["other"] += sum(f is None for f in fast)
        return real(*a, **kw)
    monkeypatch.setattr(dbp, "_sum_pages", spy)
    return seen


def _fast_of(a: tuple[Any, ...], kw: dict[str, Any]) -> list[Any] | None:
    """The per-page strided plan of a ``_sum_pages`` call (None: not given)."""
    return kw["fast"] if "fast" in kw else a[7] if len(a) > 7 else None


def _write(path: Path, values: Any, typ: pa.DataType, per_page: int = 2_000, **kw: Any) -> None:
    table = pa.table({"x": pa.array(values, typ)})
    pq.write_table(table, path, use_dictionary=False, compression=kw.pop("compression", "NONE"),
                   column_encoding={"x": "DELTA_BINARY_PACKED"}, max_rows_per_page=per_page, **kw)


def _jittered(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, n))


def _case(name: str) -> tuple[Any, pa.DataType, dict[str, Any], bool]:
    """(values, type, write options, whether every page should take the strided unpack)."""
    rng = np.random.default_rng(3)
    if name == "timestamps":            # one width (18) throughout, last block partial
        return _jittered(10_300), pa.int64(), {}, True
    if name == "counter-int32":         # int32, width 6, snappy
        return (np.cumsum(rng.integers(0, 50, 9_001)).astype(np.int32), pa.int32(),
                {"compression": "SNAPPY"}, True)
    if name == "constant-step":         # every delta equal: width 0 everywhere
        return np.arange(7_777, dtype=np.int64) * 1_000_003 - 5, pa.int64(), {}, True
    if name == "constant-step-int32":
        return (np.arange(7_777, dtype=np.int64) * 7 - 20_000).astype(np.int32), pa.int32(), {}, True
    if name == "wrapping-int64":        # deltas -1 and +1 that overflow 64 bits (width 2)
        v = np.where(np.arange(5_001) % 2 == 0, I64.min, I64.max).astype(np.int64)
        return v, pa.int64(), {}, True
    if name == "wrapping-int32":        # int32 deltas wrap modulo 2**32
        v = np.where(np.arange(5_001) % 2 == 0, I32.min, I32.max).astype(np.int32)
        return v, pa.int32(), {}, True
    if name == "full-range-int64":      # width 64 (and 63): not strided
        return rng.integers(I64.min, I64.max, 5_001, dtype=np.int64), pa.int64(), {}, False
    if name == "full-range-int32":      # width 32 throughout
        return rng.integers(I32.min, I32.max, 5_001).astype(np.int32), pa.int32(), {}, True
    if name == "wide-57":               # widest strided width; each block spans min..max
        v = rng.integers(0, 2**56, 6_000, dtype=np.int64)
        v[::16] = 0
        v[1::16] = 2**57 - 1 + 2**56
        return np.cumsum(v), pa.int64(), {}, None
    if name == "nulls":                 # 10 % nulls: the stream holds the non-null values
        v = _jittered(8_000).astype(object)
        v[rng.random(8_000) < 0.1] = None
        return v, pa.int64(), {}, None
    if name == "one-value-pages":       # a chunk of one-value pages and a last short page
        return _jittered(2_001), pa.int64(), {"per_page": 1_000}, None
    if name == "tiny-pages":
        return _jittered(301), pa.int64(), {"per_page": 1}, None
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["timestamps", "counter-int32", "constant-step", "constant-step-int32",
                                  "wrapping-int64", "wrapping-int32", "full-range-int64",
                                  "full-range-int32", "wide-57", "nulls",
                                  "one-value-pages", "tiny-pages"])
def test_pyarrow_files_read_equal_to_pyarrow(tmp_path: Path, strided: dict[str, int], name: str) -> None:
    values, typ, kw, all_strided = _case(name)
    path = tmp_path / "t.parquet"
    _write(path, values, typ, **kw)
    got = pc.read_table(str(path), use_threads=False).to_arrow()
    assert got.equals(pq.read_table(path))
    if all_strided is True:
        assert strided["strided"] >= 2 and strided["other"] == 0
    elif all_strided is False:
        assert strided["strided"] == 0


def _stream_with_widths(widths: list[int], blocks: int, extra: int, dt: Any) -> tuple[bytes, np.ndarray]:
    """A stream (block size 128, 4 miniblocks) whose every block has these miniblock
    widths, made by our encoder from deltas whose miniblock maxima have those bit lengths;
    returns it and the values it encodes."""
    rng = np.random.default_rng(len(widths) + blocks)
    deltas = []
    for _ in range(blocks):
        for w in widths:
            d = rng.integers(0, 2 ** max(w - 1, 0), 32) if w else np.zeros(32, np.int64)
            if w:
                j = int(rng.integers(0, 31))
                d[j], d[j + 1] = 2 ** w - 1, 0         # the miniblock's max and its block's min
            deltas.append(d)
    d = np.concatenate(deltas + [rng.integers(0, 100, extra)]).astype(np.int64)
    values = (np.concatenate(([5], 5 + np.cumsum(d)))).astype(dt)
    stream = encode_delta_binary_packed(values, dt)
    return stream, values


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_pages_of_one_layout_but_mixed_widths_are_read_right(dt: Any, strided: dict[str, int]) -> None:
    # widths 17, 19, 18, 18 in every block: the blocks repeat one layout (found without a
    # walk) but the bodies are not one width: such a page takes the gathered unpack; a
    # page of 18, 18, 18, 18 next to it takes the strided one
    mixed, v1 = _stream_with_widths([17, 19, 18, 18], 40, 77, dt)
    even, v2 = _stream_with_widths([18, 18, 18, 18], 40, 5, dt)
    raw = [np.frombuffer(mixed, np.uint8), np.frombuffer(even, np.uint8)]
    held = [delta_binary_packed_page_header(r, v.size, dt) for r, v in zip(raw, (v1, v2))]
    got = expand_held_delta_binary_packed_pages(held, dt)
    assert got is not None and got.dtype == np.dtype(dt)
    assert np.array_equal(got, np.concatenate((v1, v2)))
    assert strided == {"strided": 1, "other": 1}


def test_one_page_breaking_the_layout_is_walked_the_others_are_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a chunk of five pages, the middle one with a varying bit width: only it is walked
    calls = []
    real = dbp._walk_each

    def spy(joined: Any, pos: Any, *a: Any) -> Any:
        calls.append(pos.size)
        return real(joined, pos, *a)
    monkeypatch.setattr(dbp, "_walk_each", spy)
    rng = np.random.default_rng(11)
    gaps = rng.integers(900_000, 1_100_000, 10_000)
    gaps[4_000:6_000] = rng.integers(0, 2, 2_000) * 10 ** rng.integers(0, 9, 2_000)
    path = tmp_path / "t.parquet"
    _write(path, np.cumsum(gaps), pa.int64())
    assert pc.read_table(str(path), use_threads=False).to_arrow().equals(pq.read_table(path))
    assert calls == [1]


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_corrupted_streams_of_one_width_are_never_accepted_or_decoded_differently(dt: Any) -> None:
    # the reference is each stream decoded on its own (the page-by-page decoder): the
    # chunk pass either hands back None (the pages are then checked one by one) or
    # exactly those values; bytes overwritten anywhere (headers, widths, min deltas,
    # bodies) or the stream cut short
    rng = np.random.default_rng(5)
    accepted = 0
    strided_seen = 0
    real = dbp._sum_pages
    for it in range(200):
        bs, nm = [(128, 4), (256, 4), (64, 2), (256, 8)][it % 4]
        pages, counts = [], []
        for _ in range(int(rng.integers(1, 4))):
            c = int(rng.integers(bs + 2, 6 * bs))
            w = int(rng.integers(0, 30))
            gaps = (2 ** w + rng.integers(0, 2 ** w, c)) if w else np.full(c, 3)
            b = bytearray(encode_delta_binary_packed(np.cumsum(gaps).astype(dt), dt,
                                                     block_size=bs, miniblocks=nm))
            pages.append(damage(rng, b, first=5, overwrite=0.6, cut=0.15))
            counts.append(c)
        found = held_with_reference(pages, counts, dt)
        if found is None:
            continue
        held, ref = found
        used: list[int] = []

        def spy(*a: Any, _used: list[int] = used, **kw: Any) -> Any:
            _used.append(sum(f is not None for f in _fast_of(a, kw) or []))
            return real(*a, **kw)
        dbp._sum_pages = spy  # type: ignore[assignment]
        try:
            got = expand_held_delta_binary_packed_pages(held, dt)
        finally:
            dbp._sum_pages = real  # type: ignore[assignment]
        if got is not None:
            assert ref is not None and np.array_equal(got, ref), it
            accepted += 1
            strided_seen += sum(used)
    assert accepted > 40 and strided_seen > 40


def test_corpus_delta_files_read_equal_to_pyarrow(corpus: Path) -> None:
    for name in ("delta_binary_packed.parquet", "delta_encoding_optional_column.parquet",
                 "delta_encoding_required_column.parquet"):
        path = str(corpus / name)
        got = pc.read_table(path, use_threads=False).to_arrow()
        want = pq.read_table(path)
        assert got.equals(want.cast(got.schema)) or got.equals(want), name


def test_min_deltas_of_changing_varint_lengths_are_walked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # exponential gaps: min deltas of 1-3 varint bytes and widths changing from block to
    # block; the Python walk measures each varint as it passes (no second, lockstep walk)
    calls = {"each": 0, "lockstep": 0}
    for name, attr in (("each", "_walk_each"), ("lockstep", "_lockstep")):
        real = getattr(dbp, attr)

        def spy(*a: Any, _real: Any = real, _name: str = name) -> Any:
            calls[_name] += 1
            return _real(*a)
        monkeypatch.setattr(dbp, attr, spy)
    rng = np.random.default_rng(2)
    values = 1_700_000_000_000_000 + np.cumsum(rng.exponential(1e4, 9_000).astype(np.int64))
    path = tmp_path / "t.parquet"
    _write(path, values, pa.int64())
    assert pc.read_table(str(path), use_threads=False).to_arrow().equals(pq.read_table(path))
    assert calls == {"each": 1, "lockstep": 0}
