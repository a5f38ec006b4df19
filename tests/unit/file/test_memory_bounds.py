"""Memory bounded by the data, not by declarations (issue 29, item 4).

The hostile files (:mod:`tests.unit.file.hostile_sizes`) declare gigabytes in a
few bytes; each read here runs in a child process whose address space is capped
(``RLIMIT_AS``), so that a regression fails with a ``MemoryError`` in the child
instead of taking the machine's memory.  Before this change every one of them
ended in numpy's ``MemoryError`` (or read a page larger than its chunk, or held
a streamed page twice).

Expected values come from how the files are built: the RLE run and the list
really hold 2**31 - 1 slots, the zstd and brotli pages really are zeros.
"""

from __future__ import annotations

import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.compression import get_codec
from parquet_core.constants import CompressionCodec
from tests._support.memory_limit import run_limited
from tests.unit.file.hostile_sizes import MAX_INT32, long_list_file, null_run_file, zeros_page_file

ROOT = Path(__file__).resolve().parents[3]
MiB = 1 << 20
GiB = 1 << 30




# -- declared counts: an RLE run of 2**31 - 1 nulls, a list of 2**31 - 1 elements ------------------

@pytest.mark.parametrize("build", ["null_run_file()", "long_list_file()"])
def test_declared_count_is_refused_before_allocating(build):
    # what the issue reports: a few hundred bytes declaring 2**31 - 1 slots
    assert len(eval(build)) < 200
    got = run_limited(f"""
        data = {build}
        def batches():
            for _ in pc.ParquetFile(data).iter_batches(batch_size=1000):
                break
        result = {{"read": outcome(lambda: pc.read_table(data)), "batches": outcome(batches),
                  "row_group": outcome(lambda: pc.ParquetFile(data).read_row_group(0))}}
    """)
    column = "x" if build.startswith("null") else "a.list.element"
    for op, out in got.items():
        assert out["type"] == "ParquetResourceError", (op, out)
        assert "max_decoded_bytes" in out["message"] and str(MAX_INT32) in out["message"]
        assert any(f"in column {column}, row group 0" in n for n in out["notes"]), (op, out)
    # iter_batches checks page by page: it names the page
    assert any("at page 0" in n for n in got["batches"]["notes"])


def test_declared_count_within_a_raised_limit_reads():
    # the same null run, short enough for the limit: a real all-null column, as pyarrow reads it
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import io

    data = null_run_file(1000)
    expected = pq.read_table(io.BytesIO(data)).column("x").to_pylist()
    assert expected == [None] * 1000
    assert pc.read_table(data, max_decoded_bytes=6000).column("x").to_pylist() == expected
    with pytest.raises(pc.ParquetResourceError, match="max_decoded_bytes=5999"):
        pc.read_table(data, max_decoded_bytes=5999)
    assert pa is not None


def test_memory_error_never_escapes_a_read():
    # a limit raised past the memory there is: the allocation fails, and the read says where
    got = run_limited("""
        data = null_run_file(300_000_000)    # 1.8 GB of int32 values and levels, 6 bytes per row
        opts = pc.ReaderOptions(max_decoded_bytes=1 << 40)
        def batches():
            for _ in pc.ParquetFile(data, options=opts).iter_batches(batch_size=1 << 30):
                break
        result = {"read": outcome(lambda: pc.read_table(data, options=opts, use_threads=False)),
                  "batches": outcome(batches)}
    """, limit=GiB)
    for op, out in got.items():
        assert out["type"] == "ParquetResourceError", (op, out)
        assert out["message"].startswith("out of memory"), out
        assert any("in column x, row group 0" in n for n in out["notes"]), (op, out)
    # the batch's page (a whole-chunk read may fail later, joining the decoded pages: no page then)
    assert any("page 0" in n for n in got["batches"]["notes"]), got


def test_dataset_reads_refuse_too(tmp_path):
    (tmp_path / "k=1").mkdir()
    (tmp_path / "k=1" / "part.parquet").write_bytes(null_run_file())
    (tmp_path / "k=2").mkdir()
    (tmp_path / "k=2" / "part.parquet").write_bytes(null_run_file(300_000_000))
    got = run_limited(f"""
        root = {str(tmp_path)!r}
        def batches(**kw):
            for _ in pc.ParquetDataset(root, **kw).iter_batches(batch_size=1 << 30):
                pass
        result = {{"limit": outcome(lambda: pc.read_table(root)),
                  "memory": outcome(lambda: pc.read_table(root + "/k=2", max_decoded_bytes=1 << 40)),
                  "batches": outcome(lambda: batches(max_decoded_bytes=1 << 40))}}
    """, limit=GiB)
    assert got["limit"]["type"] == "ParquetResourceError" and "max_decoded_bytes" in got["limit"]["message"]
    for op in ("memory", "batches"):
        assert got[op]["type"] == "ParquetResourceError", (op, got[op])
        assert "max_decoded_bytes" in got[op]["message"] or "out of memory" in got[op]["message"]


# -- pages that honestly inflate -----------------------------------------------------------------

@pytest.mark.parametrize("codec", ["zstd", "brotli"])
def test_page_past_max_page_bytes_is_refused_before_inflating(codec):
    data = zeros_page_file(8 * MiB, codec)
    assert len(data) < 64 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(pc.ParquetResourceError, match="max_page_bytes=1048576") as info:
            pc.read_table(data, max_page_bytes=MiB, use_threads=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MiB, peak        # nothing of the 8 MiB was inflated
    assert any("in column x, row group 0" in n for n in info.value.__notes__)
    assert any("at page 0" in n for n in info.value.__notes__)
    with pytest.raises(pc.ParquetResourceError, match="max_page_bytes"):
        next(pc.ParquetFile(data, max_page_bytes=MiB).iter_batches(batch_size=10))
    # within the default limits the page reads: 2 Mi zeros
    col = pc.read_table(data).column("x").to_numpy()
    assert len(col) == 2 * MiB and not col.any()


def test_page_larger_than_its_chunk_is_refused():
    # the chunk says it holds 1000 uncompressed bytes; its page declares 1 MiB
    data = zeros_page_file(MiB, "zstd", chunk_uncompressed=1000)
    with pytest.raises(pc.ParquetFormatError, match="total_uncompressed_size") as info:
        pc.read_table(data)
    assert not isinstance(info.value, pc.ParquetResourceError)
    with pytest.raises(pc.ParquetFormatError, match="total_uncompressed_size"):
        next(pc.ParquetFile(data).iter_batches(batch_size=10))
    # a chunk whose size covers the page (header included) reads
    assert len(pc.read_table(zeros_page_file(MiB, "zstd")).column("x")) == MiB // 4


def peak_growth(setup: str, work: str) -> float:
    """How much the child's peak resident memory grows while *work* runs (in bytes), after
    *setup*; resident memory, not tracemalloc, since codec backends allocate outside Python."""
    got = run_limited(setup + textwrap.dedent("""
        import gc, resource
        gc.collect()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    """) + textwrap.dedent(work) + textwrap.dedent("""
        result = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
    """), limit=4 * GiB)
    return float(got)


SETUPS = {
    "brotli": "import brotli; stored, cid = brotli.compress(bytes(SIZE), quality=1), 4",
    "gzip": "import zlib; stored, cid = zlib.compress(bytes(SIZE), 1), 2",
    # no content size in the frame: the streaming path
    "zstd-stream": "import zstandard; stored, cid = zstandard.ZstdCompressor(write_content_size=False)"
                   ".compress(bytes(SIZE)), 6",
}


@pytest.mark.parametrize("codec", sorted(SETUPS))
def test_streamed_page_is_held_once(codec):
    # a 256 MiB page decompressed in steps: the pieces land in one buffer (joining a list of
    # pieces, or the backend's own blocks, at the end held the page twice)
    size = 256 * MiB
    grown = peak_growth(f"SIZE = {size}\n{SETUPS[codec]}\nfrom parquet_core.compression import get_codec\n", """
        out = get_codec(cid).decompress(stored, SIZE)
        assert len(out) == SIZE and not np.frombuffer(out, dtype=np.uint8).any()
    """)
    assert grown < 1.4 * size, grown / size


def test_iter_batches_holds_the_page_and_the_batch():
    # one 256 MiB brotli page of int32 zeros, read in batches of 1 Mi rows: what is held is
    # the page (its values are views of it) and a batch, not two copies of the page
    size = 256 * MiB
    grown = peak_growth(f"data = zeros_page_file({size}, 'brotli')\n", f"""
        rows = 0
        for batch in pc.ParquetFile(data).iter_batches(batch_size=1 << 20, use_threads=False):
            rows += batch.num_rows
            assert not batch.column("x").to_numpy().any()
        assert rows == {size // 4}
    """)
    assert grown < 1.4 * size, grown / size


def test_iter_batches_lets_a_page_go_at_the_boundary():
    # two 128 MiB brotli pages: at the page boundary the rows left of the first page were
    # joined to the whole second page (the first page, the second and their copy: 3 pages);
    # now the first is let go and only the batch spanning both is joined
    size = 128 * MiB
    grown = peak_growth(f"data = zeros_page_file({size}, 'brotli', pages=2)\n", f"""
        rows = 0
        for batch in pc.ParquetFile(data).iter_batches(batch_size=3 << 20, use_threads=False):
            rows += batch.num_rows
        assert rows == {2 * size // 4}
    """)
    assert grown < 2.5 * size, grown / size


@pytest.mark.slow
def test_two_gib_zstd_page_stays_bounded():
    # the page: 2 GiB of zeros in about 65 KB of zstd. Refused by a lowered limit
    # without inflating; under a 1 GiB address-space cap the read fails cleanly.
    got = run_limited("""
        data = zeros_page_file((1 << 31) - 4096)
        assert len(data) < 100_000
        import resource
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        refused = outcome(lambda: pc.read_table(data, max_page_bytes=1 << 30))
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        result = {"refused": refused, "grown_kib": grown, "read": outcome(lambda: pc.read_table(data)),
                  "check": [f.rule for f in pc.check(data).findings]}
    """, limit=GiB)
    assert got["refused"]["type"] == "ParquetResourceError" and "max_page_bytes" in got["refused"]["message"]
    assert got["grown_kib"] < 64 * 1024
    assert got["read"]["type"] == "ParquetResourceError", got["read"]
    assert "check.internal" not in got["check"]


# -- codecs: a declared size is not allocated before bytes back it ---------------------------------

def _peak_of(call) -> int:
    tracemalloc.start()
    try:
        try:
            call()
        except pc.ParquetError:
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_snappy_block_declaring_more_than_it_can_hold_allocates_nothing():
    # the varint preamble declares 2**31 - 1 bytes; 12 bytes of copies cannot make them
    n = MAX_INT32
    pre = bytearray()
    v = n
    while v >= 0x80:
        pre.append((v & 0x7F) | 0x80)
        v >>= 7
    pre.append(v)
    block = bytes(pre) + b"\x00\x00" + b"\xfe\x01\x00" * 4
    with pytest.raises(pc.ParquetFormatError, match="expands at most"):
        get_codec(CompressionCodec.SNAPPY).decompress(block, n)
    assert _peak_of(lambda: get_codec(CompressionCodec.SNAPPY).decompress(block, n)) < MiB


def test_lz4_hadoop_block_header_is_not_allocated_before_its_bytes():
    # a Hadoop-framed LZ4 page: its block says 2**31 - 1 bytes, its one chunk is 5 bytes
    import struct

    n = MAX_INT32
    page = struct.pack(">II", n, 5) + b"\x50abcd"
    peak = _peak_of(lambda: get_codec(CompressionCodec.LZ4).decompress(page, n))
    assert peak < MiB, peak


def test_pages_read_through_the_offset_index_are_limited_together(tmp_path):
    """Issue 29: a filtered read that takes some pages of a chunk through the offset index
    decodes them together, but only checked each page's count against max_decoded_bytes:
    four pages of 100,000 int64 (1 MB each decoded) passed a 2.5 MB limit three at a time."""
    import pyarrow as pa

    n = 400_000
    path = tmp_path / "pages.parquet"
    pc.write_table(pa.table({"a": pa.array((np.arange(n) // 100_000).astype(np.int32)),
                             "b": pa.array(np.arange(n, dtype=np.int64))}), path,
                   data_page_row_count_limit=100_000, data_page_size=1 << 30, use_dictionary=False,
                   write_page_index=True)
    # the filter column (2.4 MB decoded) is read whole, b through the offset index (3 of 4 pages)
    with pytest.raises(pc.ParquetResourceError, match="3 pages the offset index keeps.*max_decoded_bytes"):
        pc.read_table(path, filters=[("a", "<=", 2)], max_decoded_bytes=2_500_000)
    got = pc.read_table(path, filters=[("a", "<=", 0)], max_decoded_bytes=2_500_000)     # one page: fine
    assert got.column("b").to_pylist() == list(range(100_000))
