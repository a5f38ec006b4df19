"""Planning a dataset from the start of each footer (dataset/schemas.py, lazy_footer.schema_prefix).

* the schema prefix decodes to the very schema elements the whole footer decodes to
  (pyarrow files of random schemas, every corpus file, mutated footers);
* a dataset's schema planned this way equals the one built from whole footers file by
  file (the general path), on random datasets mixing widths, missing columns and
  nullability, and conflicts name the same two files;
* footers longer than the local tail read, damaged footers (before or after the schema),
  encrypted footers and files replaced after planning.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.dataset.schemas import LOCAL_TAIL_READ_SIZE
from parquet_core.dataset.unify import SchemaUnifier
from parquet_core.errors import ParquetError, ParquetFormatError
from parquet_core.thrift import pt
from parquet_core.thrift.codec import HAVE_ACCELERATED, parse
from parquet_core.thrift.lazy_footer import parse_schema_prefix, schema_prefix
from tests.fuzz.thrift_walk import WalkError, walk_struct

from ._helpers import assert_same

pytestmark = pytest.mark.skipif(not HAVE_ACCELERATED, reason="the schema prefix needs the C thrift decoder")


def _footer(path) -> bytes:
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<I", data[-8:-4])
    return data[-8 - n:-8]


def _general_schema(files) -> pc.Schema:
    """The reference: every file's whole footer opened, added one by one."""
    u = SchemaUnifier()
    for f in files:
        with pc.ParquetFile(str(f)) as pf:
            u.add(pf.schema_arrow, str(f))
    return u.schema()


# -- the prefix itself ----------------------------------------------------------------------------

_TYPES = [pa.int8(), pa.int32(), pa.int64(), pa.float32(), pa.float64(), pa.string(), pa.binary(),
          pa.bool_(), pa.date32(), pa.timestamp("ms"), pa.timestamp("us", "UTC"), pa.decimal128(9, 2),
          pa.list_(pa.int32()), pa.struct([("a", pa.int64()), ("b", pa.string())]),
          pa.map_(pa.string(), pa.int32())]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(range(len(_TYPES))), st.booleans()), min_size=1, max_size=12),
       st.booleans())
def test_prefix_decodes_the_whole_footers_schema(tmp_path, cols, version2):
    schema = pa.schema([pa.field(f"c{i}", _TYPES[t], nullable=n) for i, (t, n) in enumerate(cols)])
    path = tmp_path / "f.parquet"
    pq.write_table(pa.Table.from_pylist([], schema=schema), path, version="2.6" if version2 else "1.0")
    footer = _footer(path)
    used = schema_prefix(footer)
    assert used is not None and 0 < used < len(footer)
    raw = parse_schema_prefix(footer, used)
    full, _ = parse(footer, pt.FileMetaData)
    assert raw.schema == full.schema
    assert raw.version == full.version
    assert raw.row_groups is None and raw.key_value_metadata is None     # not decoded


def _corpus_files():
    root = os.environ.get("PARQUET_TEST_DATA")
    if not root or not os.path.isdir(root):
        return []
    return sorted(str(p) for p in Path(root).rglob("*.parquet"))


@pytest.mark.parametrize("path", _corpus_files() or [pytest.param(None, marks=pytest.mark.skip("no corpus"))])
def test_prefix_on_the_corpus(path):
    data = Path(path).read_bytes()
    if len(data) < 12 or data[-4:] != b"PAR1":
        return
    (n,) = struct.unpack("<I", data[-8:-4])
    if not 0 < n <= len(data) - 12:
        return
    footer = data[-8 - n:-8]
    try:
        full, _ = parse(footer, pt.FileMetaData)
    except ParquetFormatError:
        full = None
    used = schema_prefix(footer)
    if used is None:
        return
    try:
        raw = parse_schema_prefix(footer, used)
    except ParquetFormatError:
        assert full is None or full.schema is None
        return
    if full is not None:
        assert raw.schema == full.schema


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_prefix_on_mutated_footers(data):
    """Flipped, cut or inserted bytes: None, a prefix that decodes, or ParquetFormatError;
    and a prefix that decodes holds the schema the whole footer decodes to (when the whole
    footer decodes and holds one schema field)."""
    table = pa.table({"a": [1, 2], "b": ["x", None], "c": [[1], []]})
    import io

    buf = io.BytesIO()
    pq.write_table(table, buf)
    raw_file = buf.getvalue()
    (n,) = struct.unpack("<I", raw_file[-8:-4])
    footer = bytearray(raw_file[-8 - n:-8])
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        pos = data.draw(st.integers(0, len(footer) - 1))
        if kind == "flip":
            footer[pos] = data.draw(st.integers(0, 255))
        elif kind == "cut":
            del footer[pos:pos + data.draw(st.integers(1, 8))]
        else:
            footer[pos:pos] = bytes(data.draw(st.lists(st.integers(0, 255), min_size=1, max_size=4)))
        if not footer:
            return
    footer_b = bytes(footer)
    used = schema_prefix(footer_b)
    if used is None:
        return
    assert 0 < used <= len(footer_b)
    try:
        raw = parse_schema_prefix(footer_b, used)
    except ParquetFormatError:
        return
    try:
        full, _ = parse(footer_b, pt.FileMetaData)
    except ParquetFormatError:
        return
    if raw.schema != full.schema:
        # only possible when the footer holds a second schema field after the prefix (the
        # whole-footer decode keeps the last): check with the fuzzer's independent walker
        try:
            items, _ = walk_struct(footer_b, 0, len(footer_b), "FileMetaData")
        except WalkError:
            assume(False)
        assert sum(1 for i in items if i.kind == "field" and i.path == "schema") > 1


def test_prefix_refuses_odd_layouts():
    assert schema_prefix(b"") is None
    assert schema_prefix(b"\x00") is None                 # no schema
    assert schema_prefix(b"\x15\x02\x00") is None         # version only
    assert schema_prefix(b"\x15\x02\x15\x02\x00") is None  # a field 2 that is not a list
    assert schema_prefix(b"\x19\xfc\x7f") is None          # a list count past the bytes left
    assert schema_prefix(b"\x15\x02\x05\x02\x02\x19\x00") is None  # field 1 twice (long form)


# -- datasets planned from prefixes vs from whole footers -----------------------------------------

_WIDTHS = {"i": [pa.int8(), pa.int16(), pa.int32(), pa.int64()], "f": [pa.float32(), pa.float64()],
           "s": [pa.string()]}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sets(st.sampled_from(["i", "f", "s"])),
                          st.integers(0, 3), st.integers(0, 1), st.booleans()), min_size=1, max_size=8),
       st.integers(0, 10_000))
def test_planned_schema_equals_whole_footer_schema(tmp_path_factory, files, seed):
    root = tmp_path_factory.mktemp("ds")
    paths = []
    for k, (cols, iw, fw, nullable) in enumerate(files):
        fields = []
        for c in sorted(cols):
            typ = _WIDTHS[c][min(iw, len(_WIDTHS[c]) - 1) if c == "i" else (fw if c == "f" else 0)]
            fields.append(pa.field(c, typ, nullable=nullable))
        schema = pa.schema(fields + [pa.field("n", pa.int64(), nullable=False)])
        arrays = [pa.array([1, 2], type=f.type) if f.name != "s" else pa.array(["a", "b"]) for f in fields]
        path = root / f"part-{k:02d}.parquet"
        pq.write_table(pa.Table.from_arrays(arrays + [pa.array([k, k], pa.int64())], schema=schema), path)
        paths.append(path)
    expected = _general_schema(paths)
    ds = pc.ParquetDataset(str(root))
    assert ds.schema == expected
    planner = ds._footer_schemas
    assert planner.general_reads == 0
    assert planner.prefix_hits + planner.prefix_decodes == len(paths)
    # the values against pyarrow reading each file and concatenating them, widened
    theirs = pa.concat_tables([pq.read_table(p) for p in paths], promote_options="permissive")
    assert_same(ds.read(), theirs, sort_by="n")


def test_conflict_names_the_same_files_as_file_by_file(tmp_path):
    """Files a (int32), b (string), c (int32): b conflicts with a; with a widened by b
    (int64), the string file is named against the file that set int64."""
    root = tmp_path / "one"
    root.mkdir()
    pq.write_table(pa.table({"x": pa.array([1], pa.int32())}), root / "a.parquet")
    pq.write_table(pa.table({"x": pa.array(["s"])}), root / "b.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.int32())}), root / "c.parquet")
    message = _same_schema_error(root)
    assert "a.parquet" in message and "b.parquet" in message

    root = tmp_path / "two"
    root.mkdir()
    pq.write_table(pa.table({"x": pa.array([1], pa.int32())}), root / "a.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.int64())}), root / "b.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.int32())}), root / "c.parquet")
    pq.write_table(pa.table({"x": pa.array(["s"])}), root / "d.parquet")
    message = _same_schema_error(root)
    assert "b.parquet" in message and "d.parquet" in message


def _same_schema_error(root):
    """The dataset's schema error for the files of *root*, checked equal to the general
    path's; returns its text."""
    with pytest.raises(pc.ParquetSchemaError) as e:
        pc.ParquetDataset(str(root)).schema
    with pytest.raises(pc.ParquetSchemaError) as ref:
        _general_schema(sorted(root.iterdir()))
    assert str(e.value) == str(ref.value)
    return str(e.value)


def test_identical_files_decode_one_prefix(tmp_path):
    for i in range(20):
        pq.write_table(pa.table({"a": [i], "b": [str(i)]}), tmp_path / f"{i:02d}.parquet")
    ds = pc.ParquetDataset(str(tmp_path))
    ds.schema
    assert (ds._footer_schemas.prefix_decodes, ds._footer_schemas.prefix_hits) == (1, 19)


def test_footer_longer_than_the_local_tail(tmp_path):
    """A wide file whose footer is longer than the planning read: the rest is read too."""
    wide = pa.table({f"column_with_a_long_name_{i:04d}": pa.array([i], pa.int32() if i % 2 else pa.float32())
                     for i in range(600)})
    pq.write_table(wide, tmp_path / "a.parquet")
    narrow = pa.table({f"column_with_a_long_name_{i:04d}": pa.array([i], pa.int64()) for i in range(1, 600, 2)})
    pq.write_table(narrow, tmp_path / "b.parquet")
    assert len(_footer(tmp_path / "a.parquet")) > LOCAL_TAIL_READ_SIZE
    ds = pc.ParquetDataset(str(tmp_path))
    assert ds.schema == _general_schema([tmp_path / "a.parquet", tmp_path / "b.parquet"])
    assert ds._footer_schemas.general_reads == 0
    got = ds.read()
    assert got.num_rows == 2
    assert got.schema.field("column_with_a_long_name_0001").type == pc.int64()


def test_long_footer_of_many_row_groups_is_not_read_whole(tmp_path, monkeypatch):
    """A footer longer than the tail read because of its row groups: planning reads the tail
    and the footer's first bytes (the schema), not the row groups' bytes."""
    import parquet_core.dataset.schemas as schemas_mod

    monkeypatch.setattr(schemas_mod, "FOOTER_HEAD_READ_SIZE", 4096)
    table = pa.table({"a": np.arange(3000), "b": np.arange(3000) * 0.5})
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=10)     # 300 row groups
    pq.write_table(table.cast(pa.schema([("a", pa.int32()), ("b", pa.float64())])), tmp_path / "b.parquet",
                   row_group_size=10)
    n = len(_footer(tmp_path / "a.parquet"))
    assert n > LOCAL_TAIL_READ_SIZE + 4096
    ds = pc.ParquetDataset(str(tmp_path))
    assert ds.schema == _general_schema([tmp_path / "a.parquet", tmp_path / "b.parquet"])
    assert ds._footer_schemas.general_reads == 0
    assert ds.io_stats.requests == 4 and ds.io_stats.bytes == 2 * (LOCAL_TAIL_READ_SIZE + 4096)
    assert_same(ds.read(), pa.concat_tables([table, table]), sort_by=None)


def _damage_row_groups(path: Path) -> None:
    """Make the footer's row_groups list claim 14 row groups (it holds one): the whole footer
    no longer decodes, its schema still does."""
    data = bytearray(path.read_bytes())
    (n,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - n
    items, _ = walk_struct(bytes(data[start:-8]), 0, n, "FileMetaData")
    (header,) = [i for i in items if i.kind == "list" and i.path == "row_groups"]
    assert data[start + header.start] == 0x1C      # one element, of structs
    data[start + header.start] = 0xEC
    path.write_bytes(bytes(data))


def test_damage_after_the_schema_fails_at_read_naming_the_file(tmp_path):
    for i in range(3):
        pq.write_table(pa.table({"a": np.arange(5) + i, "b": ["x"] * 5}), tmp_path / f"{i}.parquet")
    _damage_row_groups(tmp_path / "1.parquet")
    ds = pc.ParquetDataset(str(tmp_path))
    assert ds.schema.names == ["a", "b"]          # planning reads the schema only (as pyarrow, the first file)
    with pytest.raises(ParquetError) as e:
        ds.read()
    assert "1.parquet" in "".join(str(x) for x in [e.value, *getattr(e.value, "__notes__", [])])


def test_damage_in_the_schema_fails_at_planning_with_the_readers_error(tmp_path):
    for i in range(3):
        pq.write_table(pa.table({"a": np.arange(5) + i}), tmp_path / f"{i}.parquet")
    bad = tmp_path / "2.parquet"
    data = bytearray(bad.read_bytes())
    (n,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - n
    data[start:start + 8] = b"\x19\xfc\xff\xff\xff\x0f\x00\x00"     # a schema list claiming 2**32 elements
    bad.write_bytes(bytes(data))
    with pytest.raises(ParquetError) as planned:
        pc.ParquetDataset(str(tmp_path)).schema
    with pytest.raises(ParquetError) as opened:
        pc.ParquetFile(str(bad))
    assert type(planned.value) is type(opened.value)
    assert str(planned.value) == str(opened.value)
    assert str(planned.value).count("2.parquet") == 1     # named in the message itself, once


def test_not_parquet_fails_as_before(tmp_path):
    pq.write_table(pa.table({"a": [1]}), tmp_path / "a.parquet")
    (tmp_path / "b.parquet").write_bytes(b"not a parquet file at all")
    with pytest.raises(ParquetFormatError, match="magic"):
        pc.ParquetDataset(str(tmp_path)).schema


def test_encrypted_footer_goes_the_general_way(tmp_path):
    key = b"0123456789abcdef"
    enc = pc.FileEncryptionProperties(footer_key=key)
    for i in range(2):
        pc.write_table(pa.table({"a": [i]}), str(tmp_path / f"{i}.parquet"), encryption=enc)
    with pytest.raises(pc.ParquetEncryptionError):
        pc.ParquetDataset(str(tmp_path)).schema
    ds = pc.ParquetDataset(str(tmp_path), decryption=pc.FileDecryptionProperties(footer_key=key))
    assert ds.schema.names == ["a"]
    assert sorted(ds.read().column("a").to_pylist()) == [0, 1]


def test_file_replaced_after_planning_is_refused_not_dropped(tmp_path):
    pq.write_table(pa.table({"a": [1]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"a": [2]}), tmp_path / "b.parquet")
    ds = pc.ParquetDataset(str(tmp_path))
    assert ds.schema.names == ["a"]
    pq.write_table(pa.table({"a": [3], "extra": [4]}), tmp_path / "b.parquet")
    with pytest.raises(pc.ParquetSchemaError, match="extra"):
        ds.read()
    with pytest.raises(pc.ParquetSchemaError, match="extra"):
        list(ds.iter_batches())
    # schema= leaves columns out on purpose
    got = pc.ParquetDataset(str(tmp_path), schema=pc.schema([pc.field("a", pc.int64())])).read()
    assert sorted(got.column("a").to_pylist()) == [1, 3]


def test_store_planning_matches_local(tmp_path):
    """memory:// (a store source, 64 KiB tail requests) plans the same schema as the disk."""
    fsspec = pytest.importorskip("fsspec")
    mem = fsspec.filesystem("memory")
    base = f"/plan-{random.randrange(1 << 30)}"
    for i, typ in enumerate([pa.int32(), pa.int64(), pa.int32()]):
        path = tmp_path / f"{i}.parquet"
        pq.write_table(pa.table({"a": pa.array([i], typ), **({"b": ["x"]} if i == 1 else {})}), path)
        mem.pipe(f"{base}/{i}.parquet", path.read_bytes())
    local = pc.ParquetDataset(str(tmp_path)).schema
    remote = pc.ParquetDataset(f"memory://{base}")
    assert remote.schema == local
    assert remote._footer_schemas.general_reads == 0


# -- the local listing (os.scandir) vs pyarrow's ----------------------------------------------------

_NAMES = ["a", "b", "k=1", "k=2", "_tmp", ".hidden", "x_y", "k=_3", "_SUCCESS", ".crc", "part.parquet"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=4), min_size=1, max_size=12))
def test_local_listing_matches_pyarrow(tmp_path_factory, trees):
    """Files anywhere in a tree with litter names (``_x``, ``.x``) at every level: the files
    and their folders below the root are those pyarrow.dataset lists (same ignore rule)."""
    import pyarrow.dataset as pads

    from parquet_core.dataset.discovery import discover, list_data_files
    from parquet_core.file.filesystem import LocalFileSystem

    root = tmp_path_factory.mktemp("tree")
    one = pa.table({"v": [1]})
    for parts in trees:
        folder = root.joinpath(*parts[:-1])
        if any(p.is_file() for p in [folder, *folder.parents] if p != root and root in p.parents):
            continue                     # a file already has this name
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / (parts[-1] + ".parquet")
        if not target.exists() and not target.is_dir():
            pq.write_table(one, target)
    fs = LocalFileSystem()
    found = discover(fs, [str(root)], use_summary=False)
    theirs = sorted(pads.dataset(str(root), format="parquet", partitioning=None).files)
    assert [p for p, _ in found.files] == theirs
    assert [p for p, _ in list_data_files(str(root))] == theirs
    for p, size in found.files:
        assert size == os.path.getsize(p)
        assert found.relative[p] == list(Path(p).relative_to(root).parts[:-1])
