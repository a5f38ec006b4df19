"""Error locations have one wording (issue 34): ``in column a.b, row group 0 (file offset N)``
for a chunk and ``at page 3 (file offset N)`` for a page, each written by one helper."""
from __future__ import annotations

import ast
import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import (
    ParquetFormatError,
    add_context,
    add_page_context,
    has_page_context,
    location,
    page_location,
)


def test_chunk_location_wording() -> None:
    assert location(column="a.b", row_group=0) == "in column a.b, row group 0"
    assert location(column="a", row_group=2, file_offset=120) == "in column a, row group 2 (file offset 120)"
    assert location(file_offset=7) == "at file offset 7"
    assert location(column="a", how=", row groups 0-1 (joining)") == "in column a, row groups 0-1 (joining)"
    exc = ValueError("x")
    assert add_context(exc, column="a", row_group=None) is exc
    assert exc.__notes__ == ["in column a"]
    add_context(exc)                        # nothing known: no note
    assert exc.__notes__ == ["in column a"]


def test_page_location_wording_and_one_note_per_page() -> None:
    assert page_location(3, 120) == "at page 3 (file offset 120)"
    assert page_location(3, 120, last=3) == "at page 3 (file offset 120)"
    assert page_location(3, 120, last=5) == "at pages 3 to 5 (file offset 120)"
    exc = ParquetFormatError("bad")
    assert not has_page_context(exc)
    add_page_context(exc, 1, 40)
    add_page_context(exc, 1, 40)            # an outer reader: the deepest note stays the only one
    assert exc.__notes__ == ["at page 1 (file offset 40)"] and has_page_context(exc)


@pytest.mark.parametrize("dictionary", [False, True])
def test_a_corrupt_page_names_file_column_row_group_and_page(tmp_path, dictionary) -> None:
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"id": pa.array(range(50), pa.int64()), "v": pa.array(range(50), pa.int64())}),
                   path, use_dictionary=dictionary, compression="none")
    chunk = pq.read_metadata(path).row_group(0).column(1)
    off = chunk.dictionary_page_offset if dictionary else chunk.data_page_offset
    buf = bytearray(path.read_bytes())
    buf[off:off + 4] = b"\xff\xff\xff\xff"     # the first page header of column v (pyarrow's offsets)
    path.write_bytes(bytes(buf))
    with pytest.raises(pc.ParquetError) as info:
        pc.read_table(path)
    notes = getattr(info.value, "__notes__", [])
    assert str(path) in str(info.value) + " ".join(notes)
    assert [n for n in notes if "page" in n] == [f"at page 0 (file offset {off})"]
    assert any(n.startswith("in column v, row group 0") for n in notes), notes


def test_a_structure_location_wording() -> None:
    assert location(part="the footer of 412 bytes", file_offset=1234) == "in the footer of 412 bytes (file offset 1234)"
    assert location(part="the FileCryptoMetaData", file_offset=4) == "in the FileCryptoMetaData (file offset 4)"
    assert location(part="the schema", field="s") == "in the schema, field s"
    assert location(field="x") == "in field x"
    assert location(geometry_value=3) == "in geometry value 3"
    assert (location(part="the column index of column a, row group 0", page=2)
            == "in the column index of column a, row group 0, page 2")


def _literal_note_calls(root: Path) -> list[str]:
    """``add_note(exc, "text")`` / ``add_note(exc, f"...")`` calls: a note written as text
    rather than by errors.location / page_location (a variable or a call is fine: a stored
    note copied, a finding, a hint)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "errors.py" and path.parent == root:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "add_note" and isinstance(node.args[1], (ast.Constant, ast.JoinedStr)):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def test_no_note_is_written_as_text_in_the_engine() -> None:
    assert _literal_note_calls(Path(pc.__file__).resolve().parent) == []


def test_a_broken_crypto_footer_names_where_it_is(tmp_path) -> None:
    # "PARE" tail, footer length 3, three bytes that are no FileCryptoMetaData (a struct
    # field header announcing a field and then nothing): the location is the file's offset
    body = b"PARE" + b"\x00" * 10
    footer = b"\x1c\x15\x00"
    data = body + footer + struct.pack("<I", len(footer)) + b"PARE"
    with pytest.raises(pc.ParquetError) as info:
        pc.ParquetFile(data, decryption=pc.FileDecryptionProperties(footer_key=b"k" * 16))
    assert f"in the FileCryptoMetaData (file offset {len(body)})" in getattr(info.value, "__notes__", [])
