"""The writer never leaves a partial file, refuses bad data and bad options clearly.

* an exception mid-write (bad data on a later batch, a failing generator,
  a process killed with ``os._exit``) leaves no file at the target and an
  existing file there untouched; a killed process leaves at most the hidden
  temporary file;
* a normal write leaves no temporary files, publishes with ordinary
  permissions, and replaces an existing target;
* file objects (``BytesIO``, an open file) work;
* data that does not fit the schema raises ``ParquetSchemaError`` naming the
  column and the row, before anything reaches the target;
* invalid options (an encoding the spec forbids for the column's physical
  type, unknown codecs or options) raise ``ValueError``/``TypeError`` naming
  the column.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetSchemaError
from tests.interop.writer_cases import CASES, INVALID_ENCODINGS

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

REPO = Path(__file__).resolve().parents[3]
SCHEMA = pc.schema([pc.field("id", pc.int64(), nullable=False), pc.field("name", pc.string())])


def _good(start: int = 0, n: int = 10) -> dict:
    return {"id": list(range(start, start + n)), "name": [f"n{i}" for i in range(start, start + n)]}


def _message(exc: BaseException) -> str:
    return "\n".join([str(exc), *getattr(exc, "__notes__", [])])


def _only(directory: Path, *names: str) -> None:
    assert sorted(os.listdir(directory)) == sorted(names), f"directory holds {os.listdir(directory)}"


# ---------------------------------------------------------------------------
# exceptions mid-write
# ---------------------------------------------------------------------------

def test_bad_second_batch_leaves_no_file(tmp_path):
    target = tmp_path / "t.parquet"
    with pytest.raises(ParquetSchemaError):
        with pc.ParquetWriter(target, SCHEMA, row_group_size=4) as w:
            w.write_table(_good())
            w.write_table({"id": [1, None, 3], "name": ["a", "b", "c"]})
    _only(tmp_path)


def test_bad_second_batch_keeps_existing_file(tmp_path):
    target = tmp_path / "t.parquet"
    pc.write_table(_good(100, 5), target)
    before = target.read_bytes()
    with pytest.raises(ParquetSchemaError):
        with pc.ParquetWriter(target, SCHEMA) as w:
            w.write_table(_good())
            w.write_table({"id": [1, None], "name": ["a", "b"]})
    assert target.read_bytes() == before
    _only(tmp_path, "t.parquet")
    assert pq.read_table(target).column("id").to_pylist() == list(range(100, 105))


def test_rejected_batch_writes_nothing_and_the_writer_goes_on(tmp_path):
    """A batch refused by validation adds no rows; the caller may catch it and continue."""
    target = tmp_path / "go_on.parquet"
    with pc.ParquetWriter(target, SCHEMA, row_group_size=4) as w:
        w.write_table(_good(0, 6))
        with pytest.raises(ParquetSchemaError):
            w.write_table({"id": [100, 101, None], "name": ["a", "b", "c"]})
        w.write_table(_good(6, 3))
    assert pq.read_table(target).column("id").to_pylist() == list(range(9))


def test_failing_generator_leaves_no_file_and_keeps_existing(tmp_path):
    target = tmp_path / "g.parquet"
    target.write_bytes(b"precious")

    def batches():
        yield _good(0)
        yield _good(10)
        raise RuntimeError("source failed")

    with pytest.raises(RuntimeError, match="source failed"):
        with pc.ParquetWriter(target, SCHEMA, row_group_size=5) as w:
            for b in batches():
                w.write_table(b)
    assert target.read_bytes() == b"precious"
    _only(tmp_path, "g.parquet")


def test_abort_without_context_manager(tmp_path):
    target = tmp_path / "a.parquet"
    w = pc.ParquetWriter(target, SCHEMA)
    w.write_table(_good())
    w.abort()
    _only(tmp_path)


def test_schema_error_in_write_table_leaves_nothing(tmp_path):
    target = tmp_path / "w.parquet"
    with pytest.raises(ParquetSchemaError):
        pc.write_table({"id": [1, None]}, target,
                       schema=pc.schema([pc.field("id", pc.int64(), nullable=False)]))
    _only(tmp_path)


_KILL_SCRIPT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {repo!r})
    import parquet_core as pc
    schema = pc.schema([pc.field("id", pc.int64(), nullable=False), pc.field("name", pc.string())])
    w = pc.ParquetWriter({target!r}, schema, row_group_size=100)
    for k in range(5):
        w.write_table({{"id": list(range(k * 1000, (k + 1) * 1000)),
                        "name": ["x" * 50] * 1000}})
    os._exit(3)          # killed before close(): no footer, no rename
""")


@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_killed_process_leaves_no_partial_target(tmp_path, existing):
    target = tmp_path / "k.parquet"
    if existing:
        pc.write_table(_good(7, 3), target)
        before = target.read_bytes()
    proc = subprocess.run([sys.executable, "-c", _KILL_SCRIPT.format(repo=str(REPO), target=str(target))],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    if existing:
        assert target.read_bytes() == before
    else:
        assert not target.exists()
    leftovers = [f for f in os.listdir(tmp_path) if f != "k.parquet"]
    assert all(f.startswith(".") and f.endswith(".pqcore-tmp") for f in leftovers), leftovers


# ---------------------------------------------------------------------------
# normal paths
# ---------------------------------------------------------------------------

def test_normal_write_leaves_only_the_target(tmp_path):
    target = tmp_path / "ok.parquet"
    pc.write_table(_good(), target)
    with pc.ParquetWriter(tmp_path / "ok2.parquet", SCHEMA) as w:
        w.write_table(_good())
        w.write_table(_good(10))
    _only(tmp_path, "ok.parquet", "ok2.parquet")
    assert pq.read_table(tmp_path / "ok2.parquet").column("id").to_pylist() == list(range(20))


def test_published_file_has_ordinary_permissions(tmp_path):
    target = tmp_path / "perm.parquet"
    pc.write_table(_good(), target)
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_overwrites_existing_target(tmp_path):
    target = tmp_path / "o.parquet"
    pc.write_table(_good(0, 3), target)
    pc.write_table(_good(50, 4), target)
    assert pq.read_table(target).column("id").to_pylist() == [50, 51, 52, 53]
    _only(tmp_path, "o.parquet")


def test_str_and_pathlike_targets(tmp_path):
    pc.write_table(_good(), str(tmp_path / "s.parquet"))
    pc.write_table(_good(), tmp_path / "p.parquet")
    assert pq.read_table(tmp_path / "s.parquet").equals(pq.read_table(tmp_path / "p.parquet"))


def test_write_to_bytesio(tmp_path):
    buf = io.BytesIO()
    pc.write_table(_good(), buf, compression="zstd")
    assert not buf.closed, "the caller owns the file object"
    data = buf.getvalue()
    assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    assert pq.read_table(pa.BufferReader(data)).column("id").to_pylist() == list(range(10))
    assert pc.read_table(data).column("id").to_pylist() == list(range(10))


def test_parquet_writer_to_bytesio_many_batches():
    buf = io.BytesIO()
    with pc.ParquetWriter(buf, SCHEMA, row_group_size=3) as w:
        for k in range(4):
            w.write_table(_good(k * 10, 5))
    got = pq.read_table(pa.BufferReader(buf.getvalue()))
    assert got.column("id").to_pylist() == [k * 10 + i for k in range(4) for i in range(5)]


def test_write_to_open_file(tmp_path):
    target = tmp_path / "f.parquet"
    with open(target, "wb") as f:
        pc.write_table(_good(), f)
    assert pq.read_table(target).column("name").to_pylist() == [f"n{i}" for i in range(10)]


def test_closed_writer_refuses_more_data(tmp_path):
    w = pc.ParquetWriter(tmp_path / "c.parquet", SCHEMA)
    w.write_table(_good())
    w.close()
    w.close()                                           # idempotent
    with pytest.raises(ValueError):
        w.write_table(_good())
    assert pq.read_table(tmp_path / "c.parquet").num_rows == 10


def test_missing_directory_and_directory_target(tmp_path):
    with pytest.raises(FileNotFoundError):
        pc.write_table(_good(), tmp_path / "nope" / "x.parquet")
    with pytest.raises(IsADirectoryError):
        pc.write_table(_good(), tmp_path)


# ---------------------------------------------------------------------------
# bad data: ParquetSchemaError naming column and row, nothing at the target
# ---------------------------------------------------------------------------

BAD_DATA = [
    ("null in required", pc.field("req", pc.int32(), nullable=False), [1, 2, None, 4], 2),
    ("int8 out of range", pc.field("small", pc.int8()), [1, 127, -128, 128], 3),
    ("int32 out of range", pc.field("i", pc.int32()), [0, 2**31], 1),
    ("negative uint", pc.field("u", pc.uint16()), [5, -1], 1),
    ("uint64 too big", pc.field("u", pc.uint64()), [2**64], 0),
    ("decimal beyond precision", pc.field("price", pc.decimal(5, 2)),
     [Decimal("1.00"), Decimal("999.99"), Decimal("1000.00")], 2),
    ("wide decimal beyond precision", pc.field("big", pc.decimal(20, 0)),
     [Decimal(10**19), Decimal(10**20)], 1),
    ("invalid utf-8", pc.field("text", pc.string()), [b"ok", b"\xff\xfe"], 1),
    ("wrong type", pc.field("num", pc.int64()), [1, "two"], 1),
    ("wrong fixed width", pc.field("fx", pc.fixed_size_binary(3)), [b"abc", b"abcd"], 1),
]


@pytest.mark.parametrize("what,fld,values,row", BAD_DATA, ids=[b[0] for b in BAD_DATA])
def test_bad_data_raises_schema_error_naming_column_and_row(tmp_path, what, fld, values, row):
    target = tmp_path / "bad.parquet"
    with pytest.raises(ParquetSchemaError) as info:
        pc.write_table({fld.name: values}, target, schema=pc.schema([fld]))
    msg = _message(info.value)
    assert fld.name in msg, f"{what}: column not named in {msg!r}"
    assert re.search(rf"\brow\W*{row}\b", msg), f"{what}: row {row} not named in {msg!r}"
    _only(tmp_path)


def test_invalid_utf8_allowed_when_validation_is_off(tmp_path):
    target = tmp_path / "raw.parquet"
    pc.write_table({"text": [b"ok", b"\xff\xfe"]}, target, schema=pc.schema([pc.field("text", pc.string())]),
                   validate_utf8=False)
    got = pq.read_table(target, columns=["text"]).column(0).cast(pa.binary())
    assert got.to_pylist() == [b"ok", b"\xff\xfe"]


def test_bad_numpy_data_names_column_and_row(tmp_path):
    target = tmp_path / "np.parquet"
    values = np.array([1, 2, 3, 70000], dtype=np.int64)
    with pytest.raises(ParquetSchemaError) as info:
        pc.write_table({"v": values}, target, schema=pc.schema([pc.field("v", pc.int16())]))
    msg = _message(info.value)
    assert "'v'" in msg or '"v"' in msg or "column v" in msg, msg
    assert re.search(r"\brow\W*3\b", msg), msg
    _only(tmp_path)


# ---------------------------------------------------------------------------
# invalid options
# ---------------------------------------------------------------------------

_BY_PHYSICAL = {}
for _c in CASES:
    if _c.type.name != "null" and not _c.options:
        _BY_PHYSICAL.setdefault(_c.physical, _c)
INVALID = [(case, enc) for phys, case in _BY_PHYSICAL.items() for enc in INVALID_ENCODINGS.get(phys, ())]


@pytest.mark.parametrize("case,enc", INVALID, ids=[f"{c.physical}-{e}" for c, e in INVALID])
def test_encoding_invalid_for_physical_type_is_refused(tmp_path, case, enc):
    from tests.interop.writer_cases import make_columns

    table, _ = make_columns([case], 10, names=["the_column"])
    target = tmp_path / "e.parquet"
    with pytest.raises(ValueError) as info:
        pc.write_table(table, target, column_encoding={"the_column": enc})
    assert "the_column" in _message(info.value)
    _only(tmp_path)


@pytest.mark.parametrize("options,exc", [
    ({"compression": "foo"}, ValueError),
    ({"compression": {"id": "nope"}}, ValueError),
    ({"compression": {"missing": "zstd"}}, ValueError),
    ({"column_encoding": "no_such_encoding"}, ValueError),
    ({"column_encoding": "rle_dictionary"}, ValueError),
    ({"column_encoding": {"missing": "plain"}}, ValueError),
    ({"data_page_version": "3.0"}, ValueError),
    ({"row_group_size": 0}, ValueError),
    ({"data_page_size": -5}, ValueError),
    ({"sorting_columns": [("missing", "ascending")]}, ValueError),
    ({"sorting_columns": [("id", "sideways")]}, ValueError),
    ({"no_such_option": True}, TypeError),
])
def test_invalid_options(tmp_path, options, exc):
    target = tmp_path / "o.parquet"
    with pytest.raises(exc):
        pc.write_table(_good(), target, schema=SCHEMA, **options)
    _only(tmp_path)


def test_string_column_rejects_delta_binary_packed_naming_it(tmp_path):
    with pytest.raises(ValueError) as info:
        pc.write_table(_good(), tmp_path / "x.parquet", schema=SCHEMA,
                       column_encoding={"name": "delta_binary_packed"})
    assert "name" in _message(info.value)
    _only(tmp_path)


def test_global_encoding_invalid_for_one_column_names_it(tmp_path):
    """A file-wide ``column_encoding`` that does not suit one column names that column."""
    with pytest.raises(ValueError) as info:
        pc.write_table({"flag": [True, False], "x": [1.0, 2.0]}, tmp_path / "x.parquet",
                       column_encoding="byte_stream_split")
    assert "flag" in _message(info.value)
    _only(tmp_path)


@pytest.mark.parametrize("encoding, typ", [("delta_binary_packed", "float64"), ("rle", "int64"),
                                           ("delta_byte_array", "int32"), ("byte_stream_split", "bool_"),
                                           ("delta_length_byte_array", "fixed_size_binary")])
def test_invalid_encoding_refused_before_any_file_exists(tmp_path, encoding, typ):
    factory = getattr(pc, typ)
    dtype = factory(4) if typ == "fixed_size_binary" else factory()
    with pytest.raises(ValueError, match=r"column x: encoding .* cannot encode physical type"):
        pc.ParquetWriter(tmp_path / "x.parquet", pc.schema([pc.field("x", dtype)]),
                         column_encoding={"x": encoding})
    assert list(tmp_path.iterdir()) == []
