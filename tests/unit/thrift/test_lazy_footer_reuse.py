"""What a lazy footer and its metadata reuse (issue 32, many small files and footer walks).

* one thrift decoder per footer, moved from struct to struct: row groups, statistics and
  key/value metadata decoded through it (in any order, from several threads, after a
  pickle round trip) equal pyarrow's and the eager decode;
* a filtered read decodes each row group once, statistics included;
* statistics decoders shared by the files that share a schema descriptor: each file's
  statistics are its own (never another file's), and files of other schemas or column
  orders get their own decoders.

Expected values come from pyarrow's reading of the same files.
"""

from __future__ import annotations

import pickle
import threading
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.thrift import pt
from parquet_core.thrift.codec import HAVE_ACCELERATED, parse
from parquet_core.thrift.lazy_footer import lazy_state
from tests.interop.footer_edit import edit_footer

pytestmark = pytest.mark.skipif(not HAVE_ACCELERATED, reason="the lazy footer needs thrift's C decoder")


def _write(path: Path, start: int = 0, rows: int = 60, int_type: Any = None) -> Path:
    t = pa.table({"i": pa.array(range(start, start + rows), int_type or pa.int64()),
                  "s": pa.array([f"v{start + k:04d}" for k in range(rows)])})
    pq.write_table(t, path, row_group_size=10)
    return path


def _stats(md: Any) -> list[tuple[Any, Any, Any]]:
    out = []
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        for j in range(md.num_columns):
            st = rg.column(j).statistics
            out.append((st.min, st.max, st.null_count))
    return out


def _eager_groups(path: Path) -> list[Any]:
    data = path.read_bytes()
    n = int.from_bytes(data[-8:-4], "little")
    return parse(data[len(data) - 8 - n:-8], pt.FileMetaData)[0].row_groups


def test_one_decoder_serves_every_row_group_and_survives_pickling(tmp_path: Path) -> None:
    p = _write(tmp_path / "a.parquet")
    md = pc.read_metadata(p)
    state = lazy_state(md.raw)
    reader = state._src._reader
    assert reader is not None               # the decoder made at open
    md.row_group(3).column(1).statistics    # noqa: B018  (a group, then its statistics)
    assert state._src._reader is reader
    clone = pickle.loads(pickle.dumps(md.raw))
    assert lazy_state(clone)._src._reader is None    # not pickled: made again when needed
    # the groups decoded before and after the round trip equal the eager decode's
    clone.load()
    assert clone.row_groups == _eager_groups(p)
    assert _stats(md) == _stats(pq.read_metadata(p))
    assert md.metadata == pq.read_metadata(p).metadata    # key/value pairs, through the same decoder


def test_threads_share_the_footer_decoder(tmp_path: Path) -> None:
    p = _write(tmp_path / "a.parquet", rows=200)
    expected = _stats(pq.read_metadata(p))
    kv = pq.read_metadata(p).metadata
    md = pc.read_metadata(p)
    n = md.num_row_groups
    out: list[Any] = []
    errors: list[BaseException] = []

    def walk(order: list[int]) -> None:
        try:
            got = {}
            for i in order:
                rg = md.row_group(i)
                got[i] = [(c.statistics.min, c.statistics.max, c.statistics.null_count)
                          for c in (rg.column(j) for j in range(md.num_columns))]
            out.append(([s for i in range(n) for s in got[i]], md.metadata))
        except BaseException as exc:    # noqa: BLE001 - reported below
            errors.append(exc)

    orders = [list(range(n)), list(reversed(range(n))), list(range(1, n, 2)) + list(range(0, n, 2))] * 2
    ts = [threading.Thread(target=walk, args=(o,)) for o in orders]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    assert all(stats == expected and meta == kv for stats, meta in out)


@pytest.mark.parametrize("filters", [[("i", ">=", 0)], [("i", "<", 0)], [("i", ">=", 0), ("i", "<", 1000)]])
def test_a_filtered_read_decodes_each_row_group_once(tmp_path: Path, filters: list[Any]) -> None:
    # filters that statistics decide (every row, or none) for every group: no dictionary
    # stage asks for encoding_stats, so any extra decode would be the statistics' own pass
    p = _write(tmp_path / "a.parquet")
    pf = pc.ParquetFile(p)
    got = pf.read(filters=filters).to_arrow()
    state = lazy_state(pf.metadata.raw)
    assert state.decoded_extras == 0        # statistics came with the row groups' own decode
    assert state.decoded_row_groups == pf.metadata.num_row_groups
    assert got.equals(pq.read_table(p, filters=filters))


def test_files_of_one_schema_share_decoders_not_statistics(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.parquet", start=0)
    b = _write(tmp_path / "b.parquet", start=1000)
    ma, mb = pc.read_metadata(a), pc.read_metadata(b)
    assert ma.schema is mb.schema
    assert _stats(ma) == _stats(pq.read_metadata(a))
    assert ma._stats_decoders is mb._stats_decoders      # made for a, used for b
    assert _stats(mb) == _stats(pq.read_metadata(b))      # b's own values
    assert _stats(mb) != _stats(ma)


def test_other_schemas_and_column_orders_get_their_own_decoders(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.parquet")
    narrow = _write(tmp_path / "n.parquet", int_type=pa.int32())
    ma, mn = pc.read_metadata(a), pc.read_metadata(narrow)
    assert _stats(ma) == _stats(pq.read_metadata(a))
    assert _stats(mn) == _stats(pq.read_metadata(narrow))
    assert ma._stats_decoders is not mn._stats_decoders

    def drop_orders(meta: Any) -> None:
        meta.column_orders = None
    unordered = tmp_path / "u.parquet"
    unordered.write_bytes(edit_footer(a.read_bytes(), drop_orders))
    mu = pc.read_metadata(unordered)
    assert mu.schema is ma.schema and mu._stats_decoders is not ma._stats_decoders
    chunk_a, chunk_u = ma.row_group(0).column(1), mu.row_group(0).column(1)
    assert chunk_a.column_order == "TYPE_ORDER" and chunk_u.column_order is None
    # without column orders a string's (unsigned) bounds are not trusted; with them they are
    assert chunk_a.statistics.min == "v0000" and chunk_u.statistics.min is None
    assert mu.row_group(0).column(0).statistics.min == 0     # signed: trusted either way


def test_a_chunk_pickles_once_its_shared_decoders_exist(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.parquet")
    b = _write(tmp_path / "b.parquet", start=500)
    _stats(pc.read_metadata(a))             # fills the shared decoders
    chunk = pickle.loads(pickle.dumps(pc.read_metadata(b).row_group(2).column(0)))
    theirs = pq.read_metadata(b).row_group(2).column(0).statistics
    assert (chunk.statistics.min, chunk.statistics.max) == (theirs.min, theirs.max)


def test_decoders_are_kept_by_identity_and_not_pickled_with_the_schema(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.parquet")
    ma = pc.read_metadata(a)
    _stats(ma)
    clone = pickle.loads(pickle.dumps(ma.schema))
    assert clone == ma.schema and clone is not ma.schema
    assert "_shared_statistics_decoders" not in clone.__dict__
    # an equal but distinct descriptor starts its own list (kept by identity, not by hash)
    from parquet_core.metadata.wrappers import _shared_decoders
    orders = [ma.column_order(j) for j in range(ma.num_columns)]
    assert _shared_decoders(clone, orders) is not _shared_decoders(ma.schema, orders)
    assert _shared_decoders(ma.schema, orders) is ma._stats_decoders
