"""A MemoryError while a column is decoded or assembled becomes a ParquetResourceError whose
note names the column as every other location note does: a name from the file is cut to a
few hundred characters (a file can make it megabytes long)."""

from __future__ import annotations

import io

import pytest

import parquet_core as pc
import parquet_core.file.scan as scan

LONG = "c" * 5000


def _file() -> bytes:
    sink = io.BytesIO()
    pc.write_table({LONG: [1, 2, 3]}, sink)
    return sink.getvalue()


def _fail(*args: object, **kwargs: object) -> None:
    raise MemoryError("simulated")


@pytest.mark.parametrize("where", ["read_column_chunks", "concat_data"])
def test_the_column_name_in_the_note_is_cut(monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    monkeypatch.setattr(scan, where, _fail)
    if where == "read_column_chunks":   # the light path of small chunks fails the same way
        monkeypatch.setattr(scan, "read_simple_chunk", _fail)
    with pytest.raises(pc.ParquetResourceError) as info:
        pc.ParquetFile(_file()).read(use_threads=False)
    notes = [n for n in getattr(info.value, "__notes__", []) if n.startswith("in column ")]
    assert notes, getattr(info.value, "__notes__", [])
    assert all(len(n) < 400 and "(5000 characters)" in n for n in notes), [len(n) for n in notes]
