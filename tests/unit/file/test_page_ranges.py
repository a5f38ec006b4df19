"""One big column chunk decoded as page ranges on the pool (``scan.page_ranges``, ``scan._Split``).

The ranges are forced here (every threshold at its smallest), so that small random
files are split; the read with threads must equal the one-thread read and pyarrow's,
and a damaged page must raise, with threads, exactly the error a one-thread read
raises (its class, message and notes: file, column, page).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.file import scan


@pytest.fixture
def split_everything(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every read uses the pool and splits every chunk it can; returns the list of range
    counts of the chunks split (to check that a test did split)."""
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 0)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 0)
    monkeypatch.setattr(scan, "TASK_MIN_BYTES", 1)
    monkeypatch.setattr(scan, "RANGE_MIN_BYTES", 1)
    monkeypatch.setattr(scan, "RANGE_MIN_FIXED_BYTES", 1)
    scan.decode_pool()          # (sized by the real count)
    monkeypatch.setattr(scan.os, "cpu_count", lambda: 16)    # shares of 1/32 of a read: most chunks split
    return _count_splits(monkeypatch, keep_none=False)


def _count_splits(monkeypatch: pytest.MonkeyPatch, keep_none: bool = True) -> list[int]:
    """Spy on ``scan.page_ranges``: the list it returns gets each call's range count (0 for a
    chunk not split, when *keep_none*)."""
    splits: list[int] = []
    real = scan.page_ranges

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = real(*args, **kwargs)
        if out is not None or keep_none:
            splits.append(0 if out is None else len(out))
        return out
    monkeypatch.setattr(scan, "page_ranges", counting)
    return splits


def _outcome(source: object, use_threads: bool) -> object:
    try:
        t = pc.read_table(source, use_threads=use_threads)
    except Exception as exc:   # the error must be the same too
        return ("error", type(exc).__name__, str(exc), tuple(getattr(exc, "__notes__", ())))
    return ("table", t.schema, repr(t.to_pylist()))   # repr: NaN equals itself


def _random_table(rng: np.random.Generator, n: int) -> pa.Table:
    def mask(p: float) -> np.ndarray:
        return rng.random(n) < p
    words = np.array([f"https://example.com/{i:04d}/item" for i in range(60)])
    return pa.table({
        "i64": pa.array(rng.integers(-10**12, 10**12, n), mask=mask(0.1)),
        "i32": pa.array(np.cumsum(rng.integers(0, 50, n)).astype(np.int32)),
        "f": pa.array(rng.random(n), mask=mask(0.3)),
        "b": pa.array(rng.random(n) < 0.5, mask=mask(0.05)),
        # few distinct values first, then many: the dictionary fills up and the chunk falls
        # back to plain pages part-way
        "s": pa.array(list(words[rng.integers(0, 60, n // 2)]) +
                      [f"v{int(x)}" for x in rng.integers(0, 10**9, n - n // 2)], pa.string(), mask=mask(0.1)),
        "sorted": pa.array(sorted(f"{words[int(x) % 60]}-{int(x):09d}" for x in rng.integers(0, 10**9, n))),
        "flba": pa.array([None if r < 0.1 else bytes([int(r * 250)] * 3) for r in rng.random(n)],
                         pa.binary(3)),
        "l": pa.array([None if rng.random() < 0.1 else list(rng.integers(0, 9, rng.integers(0, 4)))
                       for _ in range(n)], type=pa.list_(pa.int64())),
        "st": pa.array([None if rng.random() < 0.1 else
                        {"x": int(rng.integers(0, 5)), "tags": ["t"] * int(rng.integers(0, 3))}
                        for _ in range(n)],
                       type=pa.struct([("x", pa.int32()), ("tags", pa.list_(pa.string()))])),
    })


_ENCODINGS = st.sampled_from([
    {},
    {"use_dictionary": False, "column_encoding": {"i64": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
                                                  "s": "DELTA_BYTE_ARRAY", "sorted": "DELTA_BYTE_ARRAY",
                                                  "f": "BYTE_STREAM_SPLIT"}},
    {"use_dictionary": False, "column_encoding": {"s": "DELTA_LENGTH_BYTE_ARRAY",
                                                  "sorted": "DELTA_LENGTH_BYTE_ARRAY"}},
])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 2500), page=st.sampled_from([256, 4096]),
       v2=st.booleans(), rg=st.sampled_from([None, 700]), codec=st.sampled_from(["none", "snappy"]),
       enc=_ENCODINGS)
def test_page_ranges_give_the_one_thread_read(split_everything: list[int], seed: int, n: int, page: int,
                                              v2: bool, rg: int | None, codec: str, enc: dict) -> None:
    t = _random_table(np.random.default_rng(seed), n)
    buf = io.BytesIO()
    pq.write_table(t, buf, data_page_size=page, data_page_version="2.0" if v2 else "1.0",
                   dictionary_pagesize_limit=512, row_group_size=rg, compression=codec, write_batch_size=50,
                   write_statistics=False, **enc)
    data = buf.getvalue()
    one = pc.read_table(data, use_threads=False).to_arrow()
    assert one.equals(pq.read_table(io.BytesIO(data)))
    split_everything.clear()
    assert pc.read_table(data, use_threads=True).to_arrow().equals(one)
    if n >= 1000 and page == 256 and rg is None:
        assert split_everything      # many pages in one row group: chunks were split
        # (three row groups of 700 rows may leave no chunk above 2.5 shares of the read)


def test_one_big_chunk_is_split_and_many_chunks_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """Default thresholds: a read of one big chunk is split into page ranges; a read of
    many chunks of similar size keeps one task per chunk."""
    monkeypatch.setattr(scan.os, "cpu_count", lambda: 2)
    splits = _count_splits(monkeypatch)
    rng = np.random.default_rng(1)
    one = pa.table({"a": rng.random(600_000)})
    many = pa.table({f"c{i}": rng.random(600_000) for i in range(4)})
    for t, expect in ((one, True), (many, False)):
        buf = io.BytesIO()
        pq.write_table(t, buf, compression="none", use_dictionary=False)
        splits.clear()
        assert pc.read_table(buf.getvalue(), use_threads=True).to_arrow().equals(t)
        assert bool(splits and max(splits) >= 2) == expect, splits


def test_page_ranges_are_pool_tasks_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each range of a split chunk is a pool task: ranges smaller than TASK_MIN_BYTES (16
    workers make ranges of RANGE_MIN_BYTES) are not batched back together by run_tasks."""
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 0)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 0)
    monkeypatch.setattr(scan, "RANGE_MIN_BYTES", 64 << 10)
    monkeypatch.setattr(scan, "RANGE_MIN_FIXED_BYTES", 64 << 10)     # (doubles: fixed-width)
    real_pool = scan.decode_pool()          # (sized by the real count)
    monkeypatch.setattr(scan.os, "cpu_count", lambda: 16)
    splits = _count_splits(monkeypatch)
    submitted: list[object] = []

    class Spy:
        def submit(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
            submitted.append(fn)
            return real_pool.submit(fn, *args, **kwargs)
    monkeypatch.setattr(scan, "decode_pool", lambda: Spy())
    t = pa.table({"a": np.random.default_rng(2).random(131_072)})     # 1 MiB of doubles
    buf = io.BytesIO()
    pq.write_table(t, buf, compression="none", use_dictionary=False, data_page_size=16 << 10)
    assert pc.read_table(buf.getvalue(), use_threads=True).to_arrow().equals(t)
    assert splits and splits[0] >= 8, splits
    assert len(submitted) >= splits[0], (len(submitted), splits)


def _damaged(where: list[str], other: bool = False) -> bytes:
    """A one-chunk file of ~19 pages of sorted strings (DELTA_BYTE_ARRAY, uncompressed, no CRC)
    with page bodies damaged at *where* ('early': page 2, 'late': page 15)."""
    n = 40_000
    vals = sorted(f"https://example.com/{i % 97:03d}/{i:08d}" for i in range(n))
    buf = io.BytesIO()
    cols = {"id": np.arange(n), "url": vals} if other else {"url": vals}
    pq.write_table(pa.table(cols), buf, compression="none", use_dictionary=False,
                   column_encoding={"url": "DELTA_BYTE_ARRAY"}, data_page_size=1 << 13, write_batch_size=200,
                   write_statistics=False, write_page_index=False, write_page_checksum=False)
    data = bytearray(buf.getvalue())
    headers = [h for h in pc.ParquetFile(bytes(data)).page_headers(0, 1 if other else 0)]
    assert len(headers) >= 16
    for w in where:
        h = headers[2 if w == "early" else 15]
        body = h.offset + h.header_size
        data[body + 8:body + 24] = b"\xff" * 16   # inside the prefix lengths' block: a bad bit width
    return bytes(data)


@pytest.mark.parametrize("other", [False, True])
@pytest.mark.parametrize("where", [["late"], ["early"], ["early", "late"]])
def test_an_error_in_a_range_is_the_one_thread_error(split_everything: list[int], where: list[str],
                                                     other: bool) -> None:
    data = _damaged(where, other)     # other: a column before it (the join runs on the pool)
    one = _outcome(data, False)
    assert one[0] == "error"
    assert _outcome(data, True) == one
    assert split_everything
    assert any("url" in note for note in one[3]) and any("page" in note for note in one[3])


def test_corpus_split_into_ranges_gives_the_one_thread_result(corpus: Path, split_everything: list[int]) -> None:
    huge = {"large_string_map.brotli.parquet"}
    files = sorted(p for p in corpus.iterdir() if p.suffix == ".parquet" and p.name not in huge)
    assert files
    for path in files:
        assert _outcome(str(path), True) == _outcome(str(path), False), path.name
    assert split_everything


def _front_coded_file(n: int, nulls: bool = False, v2: bool = False, codec: str = "none",
                      page: int = 1 << 13, other: bool = False) -> bytes:
    rng = np.random.default_rng(n)
    stems = [f"https://www.example-{h:03d}.com/section-{s:02d}/" for h in range(20) for s in range(5)]
    vals: list[str | None] = sorted(f"{stems[int(i)]}item-{int(v):09d}.html"
                                    for i, v in zip(rng.integers(0, len(stems), n), rng.integers(0, 10**9, n)))
    if nulls:
        vals = [None if r < 0.1 else v for v, r in zip(vals, rng.random(n))]
    cols = {"url": pa.array(vals, pa.string())}
    if other:       # a second field: the join runs on a pool thread
        cols["id"] = pa.array(rng.integers(0, 10**12, n))
    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf, compression=codec, use_dictionary=False,
                   column_encoding={"url": "DELTA_BYTE_ARRAY"}, data_page_size=page, write_batch_size=100,
                   data_page_version="2.0" if v2 else "1.0", write_statistics=False)
    return buf.getvalue()


@pytest.fixture
def joins(split_everything: list[int], monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Ranges of several pages each (a chunk split in about four), and counts of how the
    split chunks were joined: ranges filled into one output, or ranges copied together."""
    monkeypatch.setattr(scan.os, "cpu_count", lambda: 2)
    seen = {"filled": 0, "copied": 0}
    fill, concat = scan._fill_range, scan.concat_data

    def filling(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen["filled"] += 1
        return fill(*args, **kwargs)

    def concatenating(parts, desc):  # type: ignore[no-untyped-def]
        if len(parts) > 1:
            seen["copied"] += 1
        return concat(parts, desc)
    monkeypatch.setattr(scan, "_fill_range", filling)
    monkeypatch.setattr(scan, "concat_data", concatenating)
    return seen


@pytest.mark.parametrize(("nulls", "other", "page"), [(False, False, 1 << 13), (True, False, 1 << 13),
                                                      (False, True, 1 << 13), (False, False, 1 << 20)])
def test_a_split_front_coded_chunk_is_written_into_one_output(joins: dict[str, int], split_everything: list[int],
                                                               monkeypatch: pytest.MonkeyPatch, nulls: bool,
                                                               other: bool, page: int) -> None:
    """The ranges of a DELTA_BYTE_ARRAY chunk write their bytes and offsets into one
    output side by side: no copy joins them (each range starts at a page, whose first
    value has no prefix; big pages make ranges of one page), and the values are
    pyarrow's and the one-thread read's."""
    data = _front_coded_file(40_000 if page < 1 << 20 else 120_000, nulls, other=other, page=page)
    if other:       # shares of 1/32 of the read: the strings are still split
        monkeypatch.setattr(scan.os, "cpu_count", lambda: 16)
    if page == 1 << 20:     # shares of 1/8: ranges of one page
        monkeypatch.setattr(scan.os, "cpu_count", lambda: 4)
    want = pq.read_table(io.BytesIO(data))
    assert pc.read_table(data, use_threads=False).to_arrow().equals(want)
    split_everything.clear()
    assert pc.read_table(data, use_threads=True).to_arrow().equals(want)
    # the strings' ranges filled one output (the plain integers' ranges, if split, are copied)
    assert split_everything and joins["filled"] == split_everything[0]
    assert joins["copied"] == len(split_everything) - 1


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 6000), nulls=st.booleans(), v2=st.booleans(), codec=st.sampled_from(["none", "snappy"]),
       page=st.sampled_from([512, 4096]), cores=st.sampled_from([1, 2, 4]))
def test_front_coded_ranges_in_one_output_give_the_one_thread_read(
        split_everything: list[int], monkeypatch: pytest.MonkeyPatch, n: int, nulls: bool, v2: bool,
        codec: str, page: int, cores: int) -> None:
    monkeypatch.setattr(scan.os, "cpu_count", lambda: cores)    # ranges of more or fewer pages
    data = _front_coded_file(n, nulls, v2, codec, page)
    one = pc.read_table(data, use_threads=False).to_arrow()
    assert one.equals(pq.read_table(io.BytesIO(data)))
    assert pc.read_table(data, use_threads=True).to_arrow().equals(one)


def test_ranges_partly_pending_or_failing_to_resolve_give_the_one_thread_read(
        joins: dict[str, int], split_everything: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A range that does not decode its pages together is joined by a copy with the others;
    a range failing while it writes into the output sends the chunk to the one-thread path."""
    data = _front_coded_file(40_000)
    want = pc.read_table(data, use_threads=False).to_arrow()
    from parquet_core.column import reader
    real = reader.prepare_delta_byte_arrays
    calls = [0]

    def every_other(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return None if calls[0] % 2 == 0 else real(*args, **kwargs)
    monkeypatch.setattr(reader, "prepare_delta_byte_arrays", every_other)
    assert pc.read_table(data, use_threads=True).to_arrow().equals(want)
    assert joins["copied"] == 1 and joins["filled"] == 0
    monkeypatch.setattr(reader, "prepare_delta_byte_arrays", real)

    def failing(self, out=None):  # type: ignore[no-untyped-def]
        raise MemoryError("no room")
    monkeypatch.setattr(reader.PendingRange, "resolve", failing)
    again = [0]
    decode = scan.decode_chunks

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        again[0] += 1
        return decode(*args, **kwargs)
    monkeypatch.setattr(scan, "decode_chunks", counting)
    assert pc.read_table(data, use_threads=True).to_arrow().equals(want)
    assert again[0] == 1        # the chunk read again, on the one-thread path
