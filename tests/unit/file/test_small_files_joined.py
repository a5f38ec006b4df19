"""A folder of small files: files of one row group in the light shape have their columns'
values finished together (``file/small_files.py``); every read equals pyarrow's, files of
other shapes in the same folder are read one by one, and a bad index in any file is named
with that file, as a read of the file alone names it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column import simple_chunks
from parquet_core.errors import ParquetError
from parquet_core.file import small_files
from tests._support.small_files import count_joins, index_past_dictionary

WORDS = np.array(["alpha", "beta", "gamma", "", "épsilon", "zeta-long-word"])


def _part(k: int, n: int, nulls: bool = False) -> pa.Table:
    rng = np.random.default_rng(k)
    mask = rng.random(n) < 0.2 if nulls else None
    return pa.table({
        "id": pa.array(np.arange(k * 10_000, k * 10_000 + n, dtype=np.int64)),
        "x": pa.array(rng.random(n)),
        "name": pa.array(WORDS[rng.integers(0, len(WORDS) - (k % 3), n)]),    # dictionaries differ
        "qty": pa.array(rng.integers(0, 3 + 40 * (k % 4), n).astype(np.int32), mask=mask),
        "f": pa.array(rng.integers(-5, 5, n).astype(np.float32)),
    })



def _errors_alone_and_in_folder(path: str, raw: bytes, folder) -> tuple[ParquetError, ParquetError]:
    """*raw* written over *path*; the errors of reading that file alone and its folder."""
    with open(path, "wb") as f:
        f.write(raw)
    with pytest.raises(ParquetError) as alone:
        pc.read_table(path, use_threads=False)
    with pytest.raises(ParquetError) as info:
        pc.read_table(str(folder), use_threads=False)
    return alone.value, info.value


def test_folder_of_small_files_equals_pyarrow(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    for k in range(12):
        # files 5 and 9 hold nulls (the general path), the others the light shape; sizes vary
        pq.write_table(_part(k, 300 + 37 * k, nulls=k in (5, 9)), str(folder / f"part-{k:03d}.parquet"),
                       compression="snappy" if k % 2 else "none")
    seen = count_joins(monkeypatch)
    expected = pq.read_table(str(folder))
    for threads in (False, True):
        got = pc.read_table(str(folder), use_threads=threads).to_arrow()
        assert got.equals(expected)
    assert seen and max(seen) >= 4          # runs of files were joined
    cols = ["qty", "name"]
    assert pc.read_table(str(folder), columns=cols, use_threads=False).to_arrow().equals(
        pq.read_table(str(folder), columns=cols))


def test_hive_partitions_and_distinct_values(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Partition columns added per file of a joined run; columns of distinct values (the
    dictionary is the values) joined with dictionary-gathered ones."""
    root = tmp_path / "hive"
    for k in range(8):
        d = root / f"day={k % 3}" / f"city=c{k % 2}"
        d.mkdir(parents=True, exist_ok=True)
        pq.write_table(_part(k, 500), str(d / f"part-{k}.parquet"))
    seen = count_joins(monkeypatch)
    expected = pq.read_table(str(root))
    got = pc.read_table(str(root), use_threads=False).to_arrow()
    assert seen
    assert got.sort_by("id").equals(expected.sort_by("id"))


def test_join_checks_every_files_indices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Joined parts: each chunk's indices are checked against its own dictionary (an index
    past a small dictionary is refused even when an earlier dictionary of the run is larger)."""
    class Desc:
        physical_type = 2       # INT64
        type_length = None
        max_repetition_level = 0
        max_definition_level = 0

    big = np.arange(10, dtype=np.int64) * 3
    small = np.array([7, 8], dtype=np.int64)
    ok = [(3, None, big, np.array([9, 0, 4], dtype=np.int32)), (2, None, small, np.array([1, 0], dtype=np.int32))]
    data = simple_chunks.join_simple_parts(ok, Desc())  # type: ignore[arg-type]
    assert data is not None and data.values.tolist() == [27, 0, 12, 8, 7]
    bad = [ok[0], (2, None, small, np.array([1, 2], dtype=np.int32))]   # 2: past the second dictionary
    assert simple_chunks.join_simple_parts(bad, Desc()) is None   # type: ignore[arg-type]


def test_a_bad_index_in_one_file_is_named_with_that_file(tmp_path) -> None:
    """An index past its dictionary in the fourth file of a folder: the error the read of
    that file alone raises, naming it."""
    folder = tmp_path / "bad"
    folder.mkdir()
    n = 64
    for k in range(6):
        pq.write_table(pa.table({"v": pa.array(np.arange(n, dtype=np.int64) % 3 + k)}),
                       str(folder / f"part-{k}.parquet"), compression="none", use_dictionary=True)
    path = str(folder / "part-3.parquet")
    raw = index_past_dictionary(path)
    alone, info = _errors_alone_and_in_folder(path, raw, folder)
    assert "part-3.parquet" in str(info) and "dictionary index 3 out of range" in str(info)
    assert type(info) is type(alone)


def test_files_of_other_schemas_are_not_joined(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files whose schemas differ (a column int32 in some, int64 in others: unified to int64)
    are joined only with files of their own schema; the values are pyarrow's."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    for k in range(6):
        t = _part(k, 200)
        if k >= 3:
            t = t.set_column(3, "qty", t["qty"].cast(pa.int64()))
        pq.write_table(t, str(folder / f"part-{k}.parquet"))
    seen = count_joins(monkeypatch)
    schema = pa.schema([("id", pa.int64()), ("x", pa.float64()), ("name", pa.string()), ("qty", pa.int64()),
                        ("f", pa.float32())])
    expected = pa.concat_tables([pq.read_table(str(folder / f"part-{k}.parquet")).cast(schema) for k in range(6)])
    got = pc.read_table(str(folder), schema=schema, use_threads=False).to_arrow()
    assert got.equals(expected)
    assert sorted(seen) == [3, 3]


def test_counting_and_gathered_chunks_of_one_column(tmp_path) -> None:
    """One column whose chunks are distinct values (the dictionary itself) in some files and
    repeated values in others: joined in file order."""
    folder = tmp_path / "c"
    folder.mkdir()
    for k in range(6):
        v = np.arange(100, dtype=np.int64) + 1000 * k if k % 2 else np.arange(100, dtype=np.int64) % 7
        pq.write_table(pa.table({"v": v}), str(folder / f"p{k}.parquet"))
    assert pc.read_table(str(folder), use_threads=False).to_arrow().equals(pq.read_table(str(folder)))


@pytest.mark.parametrize("flt", [[("qty", ">=", 0)], [("qty", "<", 50)], [("id", ">=", 40_000), ("qty", ">", 1)],
                                 [("name", "==", "beta")]])
def test_filters_on_small_files(tmp_path, monkeypatch: pytest.MonkeyPatch, flt: list) -> None:
    """A filter the statistics show every row of a file matches is dropped for that file (the
    file joins the others); any other filter is applied file by file; pyarrow's rows."""
    folder = tmp_path / "f"
    folder.mkdir()
    for k in range(8):
        pq.write_table(_part(k, 400, nulls=k == 6), str(folder / f"part-{k}.parquet"))
    seen = count_joins(monkeypatch)
    got = pc.read_table(str(folder), filters=flt, use_threads=False).to_arrow()
    assert got.equals(pq.read_table(str(folder), filters=flt))
    if flt == [("qty", ">=", 0)]:
        assert sum(seen) >= 6       # every file but the one with nulls joined


def test_a_bad_string_dictionary_in_one_file_is_named_with_that_file(tmp_path) -> None:
    """String dictionaries are decoded together when files are joined: a length prefix
    running past its dictionary page in one file gives the error reading that file alone
    gives, naming it."""
    from parquet_core.page.reader import _parse_header

    folder = tmp_path / "bad_dict"
    folder.mkdir()
    for k in range(5):
        pq.write_table(pa.table({"s": pa.array(WORDS[np.arange(50) % (2 + k)])}), str(folder / f"part-{k}.parquet"),
                       compression="none", use_dictionary=True)
    path = str(folder / "part-2.parquet")
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    at = pq.ParquetFile(path).metadata.row_group(0).column(0).dictionary_page_offset
    _, hlen = _parse_header(memoryview(bytes(raw)), at)
    raw[at + hlen:at + hlen + 4] = (1 << 30).to_bytes(4, "little")   # the first entry's length
    alone, info = _errors_alone_and_in_folder(path, raw, folder)
    assert "part-2.parquet" in str(info)
    assert type(info) is type(alone)
    assert str(alone).split(": ", 1)[-1] in str(info)


def test_runs_are_capped_by_the_bytes_they_hold(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of joined files holds their decompressed pages until it is joined: it ends
    once its chunks' uncompressed bytes reach the cap; the values are pyarrow's."""
    from parquet_core.dataset import dataset as dataset_module

    folder = tmp_path / "capped"
    folder.mkdir()
    for k in range(9):
        pq.write_table(_part(k, 500), str(folder / f"part-{k}.parquet"))
    one = sum(pq.ParquetFile(str(folder / "part-0.parquet")).metadata.row_group(0).column(i).total_uncompressed_size
              for i in range(5))
    monkeypatch.setattr(dataset_module, "SMALL_FILES_RUN_BYTES", int(one * 3.5))
    seen = count_joins(monkeypatch)
    assert pc.read_table(str(folder), use_threads=False).to_arrow().equals(pq.read_table(str(folder)))
    assert len(seen) >= 3 and max(seen) <= 4 and sum(seen) == 9


def test_equal_arrow_schemas_with_other_storage_are_not_joined(tmp_path) -> None:
    """Two files whose Arrow schemas and key/values are equal can still store a leaf
    differently (the spec lets a decimal of 5 digits live in INT32 or INT64); a run's values
    are built with its first file's descriptors, so such files are never joined."""
    import dataclasses
    from decimal import Decimal
    from types import SimpleNamespace

    from parquet_core.constants import PhysicalType

    t = pa.table({"d": pa.array([Decimal("1.25"), Decimal("-3.50"), Decimal("0.01")], pa.decimal128(5, 2)),
                  "i": [1, 2, 3]})
    for name in ("a", "b"):
        pq.write_table(t, str(tmp_path / f"{name}.parquet"), store_decimal_as_integer=True, store_schema=False)
    reads = []
    for name in ("a", "b"):
        pf = pc.ParquetFile(str(tmp_path / f"{name}.parquet"))
        got = pf.light_read()
        assert isinstance(got, small_files.LightRead)
        reads.append(got)
    a, b = reads
    assert a.joins(b)
    descs = [dataclasses.replace(d, physical_type=PhysicalType.INT64) if d.physical_type == PhysicalType.INT32 else d
             for d in b.ctx.metadata.schema.columns]
    assert [d.physical_type for d in b.ctx.metadata.schema.columns][0] == PhysicalType.INT32
    ctx = SimpleNamespace(indexes=b.ctx.indexes, metadata=SimpleNamespace(schema=SimpleNamespace(columns=descs)))
    other = small_files.LightRead(ctx, b.selected, b.parts, pc.Schema(b.fields), b.key_values,  # type: ignore[arg-type]
                                  b.typed)
    assert not a.joins(other)


@pytest.mark.parametrize("damage", ["crc", "body", "values"])
def test_a_damaged_page_in_one_file_is_named_with_that_file(tmp_path, damage: str) -> None:
    """The light read walks each file's chunks with the page checks of the general walk
    (CRC, the snappy body's declared size, the values the metadata promises): a damaged
    data page in the third file of a folder gives the error reading that file alone
    gives, naming it; the files before it are not the ones named."""
    from parquet_core.page.reader import _parse_header

    folder = tmp_path / f"bad_{damage}"
    folder.mkdir()
    for k in range(5):
        pq.write_table(_part(k, 200), str(folder / f"part-{k}.parquet"), write_page_checksum=True,
                       compression="none" if damage == "crc" else "snappy")
    path = str(folder / "part-2.parquet")
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    meta = pq.ParquetFile(path).metadata.row_group(0)
    col = meta.column(3)      # qty: a dictionary page and one data page
    at = col.data_page_offset
    header, hlen = _parse_header(memoryview(bytes(raw)), at)
    body = at + hlen
    if damage == "crc":
        # a byte of x's dictionary (its distinct doubles: the values themselves): only the
        # page's CRC tells the damage
        x_at = meta.column(1).dictionary_page_offset
        x_header, x_hlen = _parse_header(memoryview(bytes(raw)), x_at)
        raw[x_at + x_hlen + x_header.compressed_page_size // 2] ^= 0x55
    elif damage == "body":
        raw[body] ^= 0x7F          # the snappy preamble: another uncompressed size
    else:
        # the data page claims one value fewer (the crc covers the body, not the header):
        # the chunk then ends short of the values its metadata promises
        n = header.data_page_header.num_values
        assert n == 200
        from parquet_core.thrift.codec import serialize

        header.data_page_header.num_values = n - 1
        new = serialize(header)
        assert len(new) == hlen
        raw[at:at + hlen] = new
    alone, info = _errors_alone_and_in_folder(path, bytes(raw), folder)
    assert "part-2.parquet" in str(info) and "part-1.parquet" not in str(info)
    assert type(info) is type(alone)
    assert str(alone).split(": ", 1)[-1] in str(info)
