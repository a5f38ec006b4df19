"""The lazily decoded footer (parquet_core/thrift/lazy_footer.py).

* laziness, checked structurally: which row groups and which statistics fields
  were decoded after which access;
* lazy results equal eager ones (raw structs and ``to_dict()``) on pyarrow files
  and on every file of the conformance corpus;
* mutated footers: the lazy path, fully loaded, either equals the eager decode or
  raises the same ParquetFormatError (message included) that the eager decode
  raises, and never anything else.
"""

from __future__ import annotations

import copy
import io
import os
import pickle
import struct
import tempfile
import threading
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_core as pc
import parquet_core.file.footer as footer_mod
from parquet_core.errors import ParquetError, ParquetFormatError
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.thrift import pt
from parquet_core.thrift.codec import HAVE_ACCELERATED, parse
from parquet_core.thrift.lazy_footer import (
    LazyColumnMetaData, LazyFileMetaData, lazy_state, parse_file_metadata,
)
from tests.fuzz.thrift_walk import walk_struct

pytestmark = pytest.mark.skipif(not HAVE_ACCELERATED, reason="the lazy footer needs thrift's C decoder")


def _table(rows: int = 60) -> pa.Table:
    return pa.table({
        "i": pa.array(range(rows), pa.int64()),
        "s": pa.array([None if k % 7 == 0 else f"v{k % 13}" for k in range(rows)]),
        "f": pa.array([k / 3 for k in range(rows)], pa.float64()),
        "l": pa.array([[k, k + 1] if k % 5 else None for k in range(rows)], pa.list_(pa.int32())),
    })


def _write(path: Path, **kw: Any) -> Path:
    pq.write_table(_table(), path, row_group_size=10, **kw)
    return path


def _footer(data: bytes) -> tuple[bytes, int]:
    (n,) = struct.unpack("<I", data[-8:-4])
    return data[len(data) - 8 - n:-8], len(data) - 8 - n


def _fail(exc: BaseException) -> None:
    raise ParquetFormatError(f"lazy decode failed: {exc}")


@pytest.fixture
def eager(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A context in which read_footer decodes eagerly (as before the lazy footer)."""
    class Eager:
        def __enter__(self) -> None:
            monkeypatch.setattr(footer_mod, "parse_file_metadata", lambda buf, fail: None)

        def __exit__(self, *exc: Any) -> None:
            monkeypatch.undo()
    return Eager()


def _outcome(fn: Any) -> Any:
    """``("ok", value)`` or ``("error", type, message)`` (notes left out)."""
    try:
        return ("ok", fn())
    except ParquetError as exc:
        return ("error", type(exc).__name__, str(exc))


# -- laziness -----------------------------------------------------------------------------

def test_nothing_but_the_top_level_is_decoded_at_open(tmp_path: Path) -> None:
    p = _write(tmp_path / "a.parquet")
    md = pc.read_metadata(p)
    state = lazy_state(md.raw)
    assert state is not None and isinstance(md.raw, LazyFileMetaData)
    assert md.num_row_groups == 6 and md.num_rows == 60
    assert (state.decoded_row_groups, state.decoded_extras, state.decoded_key_value) == (0, 0, False)
    assert "row_groups" not in md.raw.__dict__ and "key_value_metadata" not in md.raw.__dict__

    chunk = md.row_group(3).column(1)
    assert chunk.num_values == 10 and chunk.compression == "SNAPPY"
    assert state.decoded_row_groups == 1 and state.decoded_extras == 0
    assert isinstance(chunk.meta, LazyColumnMetaData) and not chunk.meta.extras_loaded

    want = pq.read_metadata(p).row_group(3).column(1).statistics
    assert chunk.statistics is not None and chunk.statistics.null_count == want.null_count
    assert (chunk.statistics.min, chunk.statistics.max) == (want.min, want.max)
    assert state.decoded_row_groups == 1 and state.decoded_extras == 1
    # every chunk of that row group got its statistics, and only them; other groups untouched
    assert all(cc.meta_data.loaded("statistics") for cc in state.row_group(3).columns)
    assert not any(cc.meta_data.loaded("encoding_stats") for cc in state.row_group(3).columns)
    assert state._groups[2] is None
    assert chunk.meta.encoding_stats == pq_encoding_stats(p, 3, 1)
    assert state.decoded_extras == 2 and chunk.meta.extras_loaded

    assert b"ARROW:schema" in md.metadata and state.decoded_key_value


def test_encodings_are_decoded_with_the_statistics(tmp_path: Path) -> None:
    # a walk over sizes does not build each chunk's encodings list; the first read of one
    # decodes them with the group's statistics, in one pass, as pyarrow lists them
    p = _write(tmp_path / "a.parquet")
    md = pc.read_metadata(p)
    state = lazy_state(md.raw)
    rg = md.row_group(2)
    assert [rg.column(j).total_compressed_size for j in range(md.num_columns)]
    assert not any(cc.meta_data.loaded("encodings") for cc in state.row_group(2).columns)
    theirs = pq.read_metadata(p).row_group(2)
    assert [rg.column(j).encodings for j in range(md.num_columns)] == [
        tuple(theirs.column(j).encodings) for j in range(md.num_columns)]
    assert state.decoded_extras == 1
    assert all(cc.meta_data.loaded("statistics") for cc in state.row_group(2).columns)
    # row groups decoded once statistics are wanted carry their encodings already
    assert state.statistics_wanted
    assert md.row_group(4).column(1).statistics is not None
    assert all(cc.meta_data.loaded("encodings") for cc in state.row_group(4).columns)
    assert md.row_group(4).column(1).encodings == tuple(pq.read_metadata(p).row_group(4).column(1).encodings)
    assert state.decoded_extras == 1


def _refooted(tmp_path: Path, change: Any) -> tuple[Any, bytes, Path]:
    """A pyarrow-written file whose footer, decoded eagerly, changed by *change* and encoded again:
    (the changed footer, its bytes, the new file)."""
    from parquet_core.thrift.codec import serialize

    data = _write(tmp_path / "a.parquet").read_bytes()
    buf, start = _footer(data)
    raw, _ = parse(buf, pt.FileMetaData)
    change(raw)
    new = serialize(raw)
    q = tmp_path / "b.parquet"
    q.write_bytes(data[:start] + new + struct.pack("<I", len(new)) + b"PAR1")
    return raw, new, q


@pytest.mark.parametrize("stats_first", [False, True])
def test_a_chunk_without_encodings_reads_none_as_eagerly(tmp_path: Path, stats_first: bool) -> None:
    # ``encodings`` is required; a footer without it (here re-encoded so) gives None, whichever
    # pass decodes the chunk, as the eager decode does
    def drop_encodings(raw: Any) -> None:
        for rg in raw.row_groups:
            rg.columns[1].meta_data.encodings = None

    raw, new, q = _refooted(tmp_path, drop_encodings)
    md = pc.read_metadata(q)
    assert isinstance(md.raw, LazyFileMetaData)
    if stats_first:
        assert md.row_group(0).column(0).statistics is not None
    for i in (0, 3):
        assert md.row_group(i).column(1).meta.encodings is None
        assert md.row_group(i).column(1).encodings == ()
        assert md.row_group(i).column(0).meta.encodings == raw.row_groups[i].columns[0].meta_data.encodings
    eager = parse(new, pt.FileMetaData)[0]
    assert [md.row_group(i).raw for i in range(md.num_row_groups)] == eager.row_groups


@pytest.mark.parametrize("absent", [False, True])
def test_chunk_file_offset_is_decoded_when_first_read(tmp_path: Path, absent: bool) -> None:
    # ColumnChunk.file_offset (deprecated) is left for later like the statistics; absent from
    # the bytes it reads 0, as the eager decode (the generated default) gives
    def set_offsets(raw: Any) -> None:
        for i, rg in enumerate(raw.row_groups):    # (pyarrow writes 0: distinct values instead)
            for j, cc in enumerate(rg.columns):
                cc.file_offset = None if absent and j == 1 else 1000 * i + j + 1

    _, buf, p = _refooted(tmp_path, set_offsets)
    eager = parse(buf, pt.FileMetaData)[0]
    md = pc.read_metadata(p)
    state = lazy_state(md.raw)
    rg = md.row_group(2)
    assert [rg.column(j).total_compressed_size for j in range(md.num_columns)]
    cols = state.row_group(2).columns
    assert not any("file_offset" in cc.__dict__ for cc in cols)
    assert state.decoded_extras == 0
    want = [cc.file_offset for cc in eager.row_groups[2].columns]
    assert want[:3] == [2001, 0 if absent else 2002, 2003]
    assert [cc.file_offset for cc in cols] == want
    assert state.decoded_extras == 1 and all("file_offset" in cc.__dict__ for cc in cols)
    assert [md.row_group(i).raw for i in range(md.num_row_groups)] == eager.row_groups
    assert md.to_dict() == pc.FileMetadata(eager).to_dict()


def pq_encoding_stats(p: Path, i: int, j: int) -> list[Any]:
    """The chunk's encoding_stats, decoded eagerly from the footer bytes."""
    raw, _ = parse(_footer(p.read_bytes())[0], pt.FileMetaData)
    return raw.row_groups[i].columns[j].meta_data.encoding_stats


def test_raw_row_groups_are_the_wrapped_ones(tmp_path: Path) -> None:
    md = pc.read_metadata(_write(tmp_path / "a.parquet"))
    g = md.row_group(2)
    assert md.raw.row_groups[2] is g.raw
    assert lazy_state(md.raw).decoded_row_groups == 6
    # the others were decoded whole when the list was asked for
    assert isinstance(g.raw.columns[0].meta_data, LazyColumnMetaData)
    assert type(md.raw.row_groups[3].columns[0].meta_data) is pt.ColumnMetaData
    assert md.row_group(3).raw is md.raw.row_groups[3]


def test_lazy_equals_eager_on_a_pyarrow_file(tmp_path: Path, eager: Any) -> None:
    p = _write(tmp_path / "a.parquet", compression="zstd")
    lazy = pc.read_metadata(p)
    with eager:
        ref = pc.read_metadata(p)
    assert not isinstance(ref.raw, LazyFileMetaData)
    assert lazy.to_dict() == ref.to_dict()
    assert lazy.raw == ref.raw and ref.raw == lazy.raw
    assert repr(lazy.raw) == repr(ref.raw)
    for i in range(ref.num_row_groups):
        for j in range(ref.num_columns):
            a, b = lazy.row_group(i).column(j), ref.row_group(i).column(j)
            assert a.statistics == b.statistics and a.meta == b.meta and repr(a) == repr(b)
    assert lazy.metadata == ref.metadata


def test_copy_pickle_and_threads(tmp_path: Path) -> None:
    p = _write(tmp_path / "a.parquet")
    raw = pc.read_metadata(p).raw
    for clone in (pickle.loads(pickle.dumps(raw)), copy.deepcopy(raw)):
        assert clone == parse(_footer(p.read_bytes())[0], pt.FileMetaData)[0]
    md = pc.read_metadata(p)
    out: list[Any] = []
    ts = [threading.Thread(target=lambda: out.append([md.row_group(i).raw for i in range(6)]))
          for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(all(a is b for a, b in zip(o, out[0])) for o in out)
    assert lazy_state(md.raw).decoded_row_groups == 6


def test_unusual_layouts_fall_back_to_the_eager_decode(tmp_path: Path) -> None:
    # a footer with the row_groups field written twice: the eager decoder keeps the last
    buf, _ = _footer(_write(tmp_path / "a.parquet").read_bytes())
    items, end = walk_struct(buf, 0, len(buf), "FileMetaData")
    rg = next(i for i in items if i.kind == "field" and i.path == "row_groups")
    # long-form header (delta 0) naming field 4 again, then the same list
    dup = buf[:rg.value_end] + b"\x09\x08" + buf[rg.start + 1:rg.value_end] + buf[rg.value_end:]
    assert parse_file_metadata(dup, _fail) is None
    assert parse_file_metadata(bytearray(buf), _fail) is None   # type: ignore[arg-type]
    assert parse_file_metadata(buf, _fail) is not None


def test_fields_read_at_open_are_not_skipped_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the walk that finds the row groups' and key/value pairs' spans steps over the fields the
    # top-level decode read (a wide schema and its column orders: one C skip per element else)
    import parquet_core.thrift.lazy_footer as lf

    p = tmp_path / "wide.parquet"
    pq.write_table(pa.table({f"c{i}": [i] for i in range(40)}), p)
    buf, _ = _footer(p.read_bytes())
    skips = []
    real = lf._Walker.struct
    monkeypatch.setattr(lf._Walker, "struct", lambda self, pos: skips.append(pos) or real(self, pos))
    raw, used = parse_file_metadata(buf, _fail)
    assert used == len(buf) and len(raw.schema) == 41 and len(raw.column_orders) == 40
    assert len(skips) == len(raw.key_value_metadata)   # the key/value pairs' spans only
    # the schema's span (the key of the shared schema descriptors) is the field's value
    items, _ = walk_struct(buf, 0, len(buf), "FileMetaData")
    schema = next(i for i in items if i.kind == "field" and i.path == "schema")
    assert lazy_state(raw).schema_span == (schema.start + 1, schema.value_end)
    assert raw == parse(buf, pt.FileMetaData)[0]


@pytest.mark.parametrize("field", ["schema", "created_by", "column_orders", "num_rows"])
def test_a_top_level_field_written_twice_falls_back_to_the_eager_decode(tmp_path: Path, field: str) -> None:
    # the top-level decode sets such a field twice: what it recorded of its end is not used,
    # and the walker, seeing the field twice, gives up as before
    buf, _ = _footer(_write(tmp_path / "a.parquet").read_bytes())
    items, _ = walk_struct(buf, 0, len(buf), "FileMetaData")
    f = next(i for i in items if i.kind == "field" and i.path == field)
    fid = {"schema": 2, "num_rows": 3, "created_by": 6, "column_orders": 7}[field]
    ftype = buf[f.start] & 0x0F
    # the same field again right after it, with a long-form header (delta 0, zigzag id)
    dup = buf[:f.value_end] + bytes([ftype, fid * 2]) + buf[f.start + 1:f.value_end] + buf[f.value_end:]
    assert parse(dup, pt.FileMetaData)[0] is not None      # the eager decode takes it
    assert parse_file_metadata(dup, _fail) is None


# -- errors on first access -----------------------------------------------------------------

def _break_extras(data: bytes) -> tuple[bytes, str]:
    """Change the element type of one chunk's size_statistics histogram from i64 to i32: the
    bytes still skip as before, but the eager decode rejects the list."""
    buf, start = _footer(data)
    items, _ = walk_struct(buf, 0, len(buf), "FileMetaData")
    hist = next(i for i in items if i.kind == "list" and i.path.startswith("row_groups[1].columns[0].")
                and i.elem_type == 6 and i.elements)
    b = bytearray(buf)
    b[hist.start] = (b[hist.start] & 0xF0) | 5
    return data[:start] + bytes(b) + data[start + len(buf):], hist.path


def test_a_bad_statistics_field_raises_on_first_access_with_the_eager_error(tmp_path: Path) -> None:
    p = tmp_path / "bad.parquet"
    data, where = _break_extras(_write(tmp_path / "a.parquet").read_bytes())
    p.write_bytes(data)
    buf, start = _footer(data)
    with pytest.raises(ParquetFormatError) as eager_exc:
        parse(buf, pt.FileMetaData)

    md = pc.read_metadata(p)           # opens: the bad bytes are only skipped so far
    chunk = md.row_group(1).column(0)
    assert chunk.num_values == 10      # the trimmed decode of that group is fine
    assert md.row_group(0).column(0).statistics is not None   # other groups too
    assert chunk.statistics is not None   # so are the fields decoded apart from the broken one
    with pytest.raises(ParquetFormatError) as exc:
        chunk.meta.size_statistics
    # the eager error, naming the file in its message (issue 30) and the footer in a note
    assert str(exc.value) == f"{eager_exc.value} (while reading file {str(p)!r})"
    notes = getattr(exc.value, "__notes__", [])
    assert f"in the footer of {len(buf)} bytes (file offset {start})" in notes   # where the file holds it
    assert not any(str(p) in n for n in notes), notes
    with pytest.raises(ParquetFormatError):
        md.to_dict()


def test_a_bad_statistics_field_through_parquet_file_names_the_file_once(tmp_path: Path) -> None:
    p = tmp_path / "bad.parquet"
    p.write_bytes(_break_extras(_write(tmp_path / "a.parquet").read_bytes())[0])
    with pc.ParquetFile(p) as pf:
        with pytest.raises(ParquetFormatError) as exc:
            pf.metadata.row_group(1).column(0).meta.size_statistics
    assert str(exc.value).count(str(p)) == 1, str(exc.value)
    assert not [n for n in getattr(exc.value, "__notes__", []) if str(p) in n]


# -- mutated footers --------------------------------------------------------------------------

def _seed_footer() -> bytes:
    sink = io.BytesIO()
    pq.write_table(_table(30), sink, row_group_size=10, compression="snappy")
    return _footer(sink.getvalue())[0]


_SEED = _seed_footer()


def _lazy_full(buf: bytes, trimmed: bool = True) -> Any:
    """Decode *buf* lazily, then everything: row group by row group and field group by field
    group (*trimmed*), or through the raw ``row_groups`` list (decoded whole)."""
    got = parse_file_metadata(buf, partial(footer_mod.raise_eager, buf, (), None))
    if got is None:
        return parse(buf, pt.FileMetaData)
    raw, used = got
    state = lazy_state(raw)
    if trimmed:
        for i in range(state.num_row_groups):
            for cc in state.row_group(i).columns or []:
                if isinstance(cc.meta_data, LazyColumnMetaData):
                    cc.meta_data.load()
    raw.load()
    return raw, used


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(_SEED) - 1), st.integers(0, 255)), min_size=1, max_size=4),
       st.sampled_from(["set", "insert", "delete", "truncate"]), st.booleans())
def test_mutated_footers_decode_lazily_as_eagerly(edits: list[tuple[int, int]], how: str,
                                                  trimmed: bool) -> None:
    b = bytearray(_SEED)
    for pos, val in edits:
        pos = min(pos, len(b) - 1)
        if how == "set":
            b[pos] = val
        elif how == "insert":
            b.insert(pos, val)
        elif how == "delete" and len(b) > 1:
            del b[pos]
        elif how == "truncate":
            del b[max(pos, 1):]
    buf = bytes(b)
    lazy = _outcome(lambda: _lazy_full(buf, trimmed))
    ref = _outcome(lambda: parse(buf, pt.FileMetaData))
    assert lazy[0] == ref[0]
    if lazy[0] == "ok":
        assert lazy[1][1] == ref[1][1]
        assert lazy[1][0] == ref[1][0]
    else:
        assert lazy[1:] == ref[1:]


def _file_with_footer_byte(pos: int, val: int) -> bytes:
    sink = io.BytesIO()
    pq.write_table(_table(30), sink, row_group_size=10)
    data = sink.getvalue()
    buf, start = _footer(data)
    b = bytearray(buf)
    b[pos % len(b)] = val
    return data[:start] + bytes(b) + data[start + len(buf):]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_SEED) - 1), st.integers(0, 255))
def test_mutated_files_read_the_same_lazily_and_eagerly(pos: int, val: int) -> None:
    data = _file_with_footer_byte(pos, val)

    def summary() -> Any:
        md = pc.read_metadata(io.BytesIO(data))
        return md.to_dict(), [[md.row_group(i).column(j).statistics for j in range(md.num_columns)]
                              for i in range(md.num_row_groups)]
    lazy = _outcome(summary)
    orig = footer_mod.parse_file_metadata
    footer_mod.parse_file_metadata = lambda buf, fail: None   # type: ignore[assignment]
    try:
        ref = _outcome(summary)
    finally:
        footer_mod.parse_file_metadata = orig
    assert lazy == ref


# -- the corpus -------------------------------------------------------------------------------

def _corpus() -> list[Path]:
    root = os.environ.get("PARQUET_TEST_DATA")
    if not root:
        return []
    return sorted(p for p in Path(root).rglob("*.parquet") if p.stat().st_size < 64 * 2**20)


@pytest.mark.skipif(not _corpus(), reason="PARQUET_TEST_DATA is not set")
def test_lazy_equals_eager_on_the_corpus(eager: Any) -> None:
    compared = 0
    for path in _corpus():
        def summary() -> Any:
            md = pc.read_metadata(path)
            return md.to_dict(), repr(md), md.metadata, [
                [repr(md.row_group(i).column(j).statistics) for j in range(md.num_columns)]
                for i in range(md.num_row_groups)]
        lazy = _outcome(summary)
        with eager:
            ref = _outcome(summary)
        assert lazy == ref, path
        compared += lazy[0] == "ok"
    assert compared > 50


#: what a footer walk reads first (the trimmed row-group decode and the checked chunks' getters)
_WALK_FIRST = ("total_compressed_size",)
#: then every other attribute of a chunk wrapper (pyarrow's ColumnChunkMetaData surface and
#: ours), each loading what the trimmed decode skipped
_CHUNK_ATTRS = ("num_values", "total_uncompressed_size", "data_page_offset", "dictionary_page_offset",
                "physical_type", "codec_id", "compression", "file_path", "column_index_offset",
                "offset_index_offset", "bloom_filter_offset", "bloom_filter_length", "is_encrypted",
                "encryption_key", "key_metadata", "path_in_schema", "column_order", "encodings",
                "encoding_stats", "statistics", "geospatial_statistics")


def _walked(path: Path) -> Any:
    """Every chunk attribute of *path*'s footer, read in a footer walk's order: the sizes of all
    chunks first, then the rest; each read's value (repr) or error, and the raw structs after."""
    md = pc.read_metadata(path)
    n_groups, n_cols = md.num_row_groups, md.num_columns
    out: dict[Any, Any] = {}
    for name in (*_WALK_FIRST, *_CHUNK_ATTRS, "byte_range", "to_dict", "footer_dict"):
        for i in range(n_groups):
            for j in range(n_cols):
                def read(i: int = i, j: int = j, name: str = name) -> Any:
                    chunk = md.row_group(i).column(j)
                    value = getattr(chunk, name)
                    return repr(value() if callable(value) else value)
                out[name, i, j] = _outcome(read)
    out["raw"] = _outcome(lambda: [repr(md.row_group(i).raw) for i in range(n_groups)])
    return out


@pytest.mark.skipif(not _corpus(), reason="PARQUET_TEST_DATA is not set")
def test_walked_chunk_attributes_equal_the_eager_decode_on_the_corpus(eager: Any) -> None:
    """The test above reads ``to_dict()`` first, which decodes every row group whole: this one
    reads sizes first, as a footer walk does, so each row group goes through the trimmed decode
    and the checked chunks' getters, and every other field through its deferred decode."""
    compared = 0
    for path in _corpus():
        lazy = _outcome(partial(_walked, path))
        with eager:
            ref = _outcome(partial(_walked, path))
        assert lazy == ref, path
        compared += lazy[0] == "ok"
    assert compared > 50




_WALK_DIR = Path(tempfile.mkdtemp(prefix="pqc_lazy_walk_"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**16), st.integers(0, 255))
def test_walks_of_damaged_footers_read_or_raise_as_the_eager_open(pos: int, val: int) -> None:
    """A footer with one byte changed, walked lazily in a footer walk's order (sizes, then each
    other attribute): when the eager decode opens it, every read equals the eager one; when
    the eager open raises, each lazy read either succeeds or raises that very error, the file
    named in it (a row group or field decoded late fails as the open would have)."""
    path = _WALK_DIR / "damaged.parquet"
    path.write_bytes(_file_with_footer_byte(pos, val))
    lazy = _outcome(lambda: _walked(path))
    orig = footer_mod.parse_file_metadata
    footer_mod.parse_file_metadata = lambda buf, fail: None   # type: ignore[assignment]
    try:
        ref = _outcome(lambda: _walked(path))
    finally:
        footer_mod.parse_file_metadata = orig
    if ref[0] == "ok" or lazy[0] == "error":
        assert lazy == ref
        return
    assert str(path) in ref[2]
    for key, got in lazy[1].items():
        assert got[0] == "ok" or got == ref, key


def test_the_eager_check_decodes_an_accepted_footer_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks refused one by one (an encrypted column without its key, asked for column after
    column) each ask whether the eager decode rejects the footer: it is decoded once."""
    import parquet_core.thrift.lazy_footer as lazy_mod

    state = lazy_state(pc.read_metadata(_write(tmp_path / "a.parquet")).raw)
    calls = []
    monkeypatch.setattr(lazy_mod, "parse", lambda *a, **k: calls.append(1) or parse(*a, **k))
    for _ in range(3):
        state.check_eagerly()
    assert len(calls) == 1
    copied = pickle.loads(pickle.dumps(state))
    copied.check_eagerly()
    assert len(calls) == 1


def test_edited_row_group_lists_are_followed(tmp_path: Path) -> None:
    # datasets merge footers by extending one file's raw row_groups
    a = pc.read_metadata(_write(tmp_path / "a.parquet"))
    b = pc.read_metadata(_write(tmp_path / "b.parquet"))
    a.raw.row_groups.extend(b.raw.row_groups)
    a.raw.num_rows += b.raw.num_rows
    merged = FileMetadata(a.raw)
    assert merged.num_row_groups == 12 and a.num_row_groups == 12
    assert merged.row_group(11).raw is b.raw.row_groups[5]
    assert a.row_group(11).num_rows == 10


# -- row group extents picked out at open ------------------------------------------------------

def _extents_of(raw: Any) -> list[tuple[Any, Any]]:
    return [(getattr(m, "file_offset", None), getattr(m, "total_compressed_size", None))
            for m in lazy_state(raw).row_group_marks()]


def test_row_group_extents_at_open_are_the_eager_decode_s(tmp_path: Path) -> None:
    """Each row group's file_offset / total_compressed_size, as Apache thrift's own decoder
    reads them, come with the top-level decode (no row group decoded for them)."""
    p = _write(tmp_path / "a.parquet")
    raw = pc.read_metadata(p).raw
    eager = parse(_footer(p.read_bytes())[0], pt.FileMetaData)[0]
    assert _extents_of(raw) == [(rg.file_offset, rg.total_compressed_size) for rg in eager.row_groups]
    assert len(eager.row_groups) == 6 and lazy_state(raw).decoded_row_groups == 0
    # a pickled footer does not carry them (the dataset then decodes them itself)
    assert lazy_state(pickle.loads(pickle.dumps(raw))).row_group_marks() is None


@pytest.mark.skipif(not _corpus(), reason="PARQUET_TEST_DATA is not set")
def test_row_group_extents_at_open_on_the_corpus() -> None:
    compared = 0
    for path in _corpus():
        try:
            raw = pc.read_metadata(path).raw
            data = path.read_bytes()
            eager = parse(_footer(data)[0], pt.FileMetaData)[0]
        except (ParquetError, OSError, struct.error):
            continue
        state = lazy_state(raw)
        if state is None or state.row_group_marks() is None:
            continue
        assert _extents_of(raw) == [(rg.file_offset, rg.total_compressed_size)
                                    for rg in eager.row_groups or []], path
        compared += 1
    assert compared > 50

