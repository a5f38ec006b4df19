"""``RowGroupMetadata.column`` on a row group whose chunks were all seen plaintext and typed as
their leaves when its counts were checked (issue 32's footer walk): wrappers made without the
per-chunk checks must equal, and be refused exactly like, those of the chunk-by-chunk path,
whether the footer was decoded lazily or eagerly."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.errors import ParquetError
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.thrift.codec import parse
from parquet_core.thrift.generated import ttypes as pt

_GROUPS, _COLS = 3, 4


@pytest.fixture(scope="module")
def footer_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = 10 * _GROUPS
    t = pa.table({
        "i": pa.array(range(rows), pa.int64()),
        "s": pa.array([f"v{k % 4}" for k in range(rows)]),
        "d": pa.array([k / 4 for k in range(rows)], pa.float64()),
        "l": pa.array([[k, k + 1] for k in range(rows)], pa.list_(pa.int32())),
    })
    path = tmp_path_factory.mktemp("plain") / "f.parquet"
    pq.write_table(t, path, row_group_size=10)
    return path


def _eager(path: Path) -> FileMetadata:
    data = path.read_bytes()
    (n,) = struct.unpack("<I", data[-8:-4])
    raw, _ = parse(data[len(data) - 8 - n:-8], pt.FileMetaData)
    return FileMetadata(raw, n, None, len(data))


def _raw_group(md: FileMetadata, i: int) -> Any:
    """The raw row group *i* before its wrapper is made (lazy: decoded now)."""
    lazy = md._lazy
    return lazy.row_group(i) if lazy is not None else md.raw.row_groups[i]


def _mutate(chunk: Any, kind: str) -> None:
    md = chunk.meta_data
    if md is None and kind not in ("crypto", "file_path"):
        return
    if kind == "type":
        md.type = 3 if md.type != 3 else 4
    elif kind == "type_none":
        md.type = None
    elif kind == "crypto":
        chunk.crypto_metadata = pt.ColumnCryptoMetaData(ENCRYPTION_WITH_FOOTER_KEY=pt.EncryptionWithFooterKey())
    elif kind == "no_meta":
        chunk.meta_data = None
    elif kind == "values":
        md.num_values += 1
    elif kind == "size":
        md.total_compressed_size = -1
    elif kind == "file_path":
        chunk.file_path = "elsewhere.parquet"
    elif kind == "codec_none":
        md.codec = None


def _chunk_view(c: Any) -> tuple[Any, ...]:
    return (c.index, c.row_group, c.descriptor.path, c.path_in_schema, c.total_compressed_size, c.num_values,
            c.data_page_offset, c.column_order, c.is_encrypted, c.file_path)


def _outcome(fn: Any) -> Any:
    try:
        return ("ok", fn())
    except ParquetError as exc:
        return ("error", type(exc).__name__, str(exc))


def _walk(md: FileMetadata, mutations: list[tuple[int, int, str]], plain: bool) -> list[Any]:
    for i, j, kind in mutations:
        _mutate(_raw_group(md, i).columns[j], kind)
    out: list[Any] = []
    for i in range(_GROUPS):
        got = _outcome(lambda i=i: md.row_group(i))
        if got[0] == "error":
            out.append(got)
            continue
        rg = got[1]
        if not plain:
            rg._plain = False      # the chunk-by-chunk path: every chunk checked when wrapped
        for j in (*range(_COLS), -1, -_COLS):
            out.append(_outcome(lambda j=j, rg=rg: _chunk_view(rg.column(j))))
    return out


_KINDS = ("type", "type_none", "crypto", "no_meta", "values", "size", "file_path", "codec_none")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=st.lists(st.tuples(st.integers(0, _GROUPS - 1), st.integers(0, _COLS - 1), st.sampled_from(_KINDS)),
                          max_size=3),
       lazy=st.booleans())
def test_plain_path_equals_the_chunk_by_chunk_path(footer_file: Path, mutations: list[tuple[int, int, str]],
                                                    lazy: bool) -> None:
    open_md = pc.read_metadata if lazy else _eager
    fast = _walk(open_md(footer_file), mutations, plain=True)
    slow = _walk(open_md(footer_file), mutations, plain=False)
    assert fast == slow
    # and the lazy decode answers as the eager one does
    assert fast == _walk((_eager if lazy else pc.read_metadata)(footer_file), mutations, plain=True)


def test_undamaged_groups_take_the_plain_path(footer_file: Path) -> None:
    for md in (pc.read_metadata(footer_file), _eager(footer_file)):
        assert all(md.row_group(i)._plain is True for i in range(_GROUPS))


@pytest.mark.parametrize("kind", ["type", "crypto"])
def test_a_chunk_that_is_not_plain_is_refused_when_asked_for(footer_file: Path, kind: str) -> None:
    md = pc.read_metadata(footer_file)
    _mutate(_raw_group(md, 1).columns[2], kind)
    rg = md.row_group(1)
    assert rg._plain is False
    assert rg.column(1).num_values == 10            # its neighbours are still wrapped
    with pytest.raises(ParquetError, match=r"column chunk .*d.* of row group 1"):
        rg.column(2)


def test_an_index_out_of_range_raises_index_error(footer_file: Path) -> None:
    rg = pc.read_metadata(footer_file).row_group(0)
    assert rg._plain is True
    with pytest.raises(IndexError):
        rg.column(_COLS)
    with pytest.raises(IndexError):
        rg.column(-_COLS - 1)
