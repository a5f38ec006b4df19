"""FILE-annotated groups (LogicalTypes.md, FILE) against other implementations.

pyarrow 26 and polars refuse any file with a FILE group ("Logical type
Undefined cannot be applied to group node"), so the files we write are
checked with duckdb, and reading is checked on files pyarrow wrote whose
footer is then annotated FILE (pyarrow's reading of the unannotated file is
the expected value).
"""

from __future__ import annotations

import io
import zlib

import pytest

import parquet_core as pc
from parquet_core.thrift import pt
from tests.interop.footer_edit import edit_footer

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_ROWS = [
    {"uri": "s3://bucket/a.png", "offset": None, "size": None, "content_type": "image/png",
     "checksum": "ETAG:\"9b2cf535f27731c974343645a3985328\"", "inline": None},
    None,
    {"uri": None, "offset": 0, "size": 4, "content_type": None,
     "checksum": f"CRC32:{zlib.crc32(b'PAR1'):08x}", "inline": None},
    {"uri": None, "offset": None, "size": None, "content_type": "text/plain",
     "checksum": None, "inline": b"hello"},
]


def _arrow_file(annotate: dict[str, bool]) -> tuple[bytes, bytes]:
    """A pyarrow file with struct columns, and the same file with *annotate*d groups FILE."""
    member_types = {"uri": pa.string(), "offset": pa.int64(), "size": pa.int64(),
                    "content_type": pa.string(), "checksum": pa.string(), "inline": pa.binary()}
    doc = pa.array(_ROWS, pa.struct([pa.field(k, t) for k, t in member_types.items()]))
    other = pa.array([{"uri": "x", "mtime": 1}] * 4,
                     pa.struct([pa.field("uri", pa.string()), pa.field("mtime", pa.int64())]))
    sink = io.BytesIO()
    pq.write_table(pa.table({"doc": doc, "other": other}), sink, store_schema=False)
    raw = sink.getvalue()

    def edit(meta) -> None:
        for el in meta.schema:
            if annotate.get(el.name):
                el.logicalType = pt.LogicalType(FILE=pt.FileType())
    return raw, edit_footer(raw, edit)


def test_reads_groups_annotated_file_as_file_refs() -> None:
    raw, annotated = _arrow_file({"doc": True, "other": True})
    expected = pq.read_table(io.BytesIO(raw)).to_pylist()
    schema = pc.read_schema(annotated)
    assert schema.field("doc").type == pc.file_ref()
    # a member the spec does not define: the group stays a plain struct
    assert schema.field("other").type.annotation is None
    assert pc.read_table(annotated).to_pylist() == expected
    # a projected FILE group is still FILE
    t = pc.read_table(annotated, columns=["doc.inline", "doc.uri"])
    assert t.schema.field("doc").type == pc.file_ref(["uri", "inline"])


def test_written_file_refs_read_back_and_in_duckdb(tmp_path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "refs.parquet"
    schema = pc.schema([pc.field("id", pc.int32()), pc.field("doc", pc.file_ref()),
                        pc.field("docs", pc.list_(pc.file_ref(["uri", "size"])))])
    docs = [[{"uri": "a", "size": 1}], [], None, [{"uri": None, "size": None}, None]]
    pc.write_table({"id": [0, 1, 2, 3], "doc": _ROWS, "docs": docs}, path, schema=schema)
    got = pc.read_table(path)
    assert got.schema == schema
    assert got.column("doc").to_pylist() == _ROWS
    rows = duckdb.sql(f"select doc, docs from '{path}' order by id").fetchall()
    assert [r[0] for r in rows] == _ROWS
    assert [r[1] for r in rows] == docs


def test_resolving_values_read_from_a_file(tmp_path) -> None:
    path = tmp_path / "refs.parquet"
    (tmp_path / "blob.txt").write_bytes(b"external bytes")
    rows = _ROWS[1:] + [{"uri": "blob.txt", "offset": 9, "size": 5, "content_type": None,
                         "checksum": None, "inline": None}]
    pc.write_table({"doc": rows}, path, schema=pc.schema([pc.field("doc", pc.file_ref())]))
    values = pc.read_table(path).column("doc").to_pylist()
    with pc.ParquetFile(path) as pf:
        got = [pc.resolve_file_ref(v, pf) for v in values]
    # offset 0, size 4 of any Parquet file is its magic, "PAR1"
    assert got == [None, b"PAR1", b"hello", b"bytes"]
    assert pc.resolve_file_ref(values[1], path) == b"PAR1"
    with pytest.raises(pc.ParquetFormatError, match="outside the file"):
        pc.resolve_file_ref({"offset": 1 << 40, "size": 1}, path)
