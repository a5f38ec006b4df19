"""Errors raised while reading or writing a path name that file, once."""

from __future__ import annotations

import io

import pytest

import parquet_core as pc


def _notes(exc: BaseException) -> list[str]:
    return list(getattr(exc, "__notes__", []))


@pytest.fixture()
def good(tmp_path):
    path = tmp_path / "good.parquet"
    pc.write_table({"a": [1, 2, 3], "s": [{"x": 1}, None, {"x": 3}]}, str(path))
    return path


def _once(exc: BaseException, path, action: str) -> None:
    """The file is named in ``str(exc)`` itself, once, and not again in a note (issue 30)."""
    words = f"(while {action} file {str(path)!r})"
    assert str(exc).count(words) == 1, str(exc)
    assert str(exc).count(str(path)) == 1, str(exc)
    assert not any(str(path) in n for n in _notes(exc)), _notes(exc)


def test_corrupt_footer_names_the_file(good, tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(good.read_bytes()[:-30])
    for call in (lambda: pc.read_table(str(bad)), lambda: pc.read_metadata(bad),
                 lambda: pc.read_schema(str(bad)), lambda: pc.ParquetFile(str(bad))):
        with pytest.raises(pc.ParquetFormatError) as info:
            call()
        _once(info.value, bad, "reading")


def test_corrupt_page_names_the_file_when_read_and_iterated(good, tmp_path):
    raw = bytearray(good.read_bytes())
    raw[4:12] = b"\xff" * 8         # the first page header
    bad = tmp_path / "page.parquet"
    bad.write_bytes(bytes(raw))
    with pytest.raises(pc.ParquetError) as info:
        pc.read_table(str(bad))
    _once(info.value, bad, "reading")
    with pc.ParquetFile(str(bad)) as pf, pytest.raises(pc.ParquetError) as info:
        list(pf.iter_batches())
    _once(info.value, bad, "reading")


def test_unknown_column_lists_the_columns(good):
    with pytest.raises(ValueError, match=r"no column named 'zz'.*\['a', 's'\]") as info:
        pc.read_table(str(good), columns=["zz"])
    _once(info.value, good, "reading")
    with pytest.raises(ValueError, match=r"'s\.y'.*\['a', 's\.x'\]"):
        pc.read_table(str(good), columns=["s.y"])
    with pc.ParquetFile(str(good)) as pf, pytest.raises(ValueError, match=r"'q'.*\['a', 's\.x'\]"):
        pf.bloom_filter(0, "q")


def test_table_column_lookup_lists_the_columns(good):
    table = pc.read_table(str(good))
    with pytest.raises(KeyError, match=r"'zz'.*\['a', 's'\]"):
        table.column("zz")


def test_bytes_source_gets_no_file_note(good):
    raw = good.read_bytes()[:-30]
    with pytest.raises(pc.ParquetFormatError) as info:
        pc.read_table(raw)
    assert not any("file" in n for n in _notes(info.value) if n.startswith("while"))
    assert "while reading file" not in str(info.value)


def test_a_one_line_log_of_a_read_error_names_the_file(good, tmp_path, caplog):
    """``logger.error("%s", e)`` keeps the file (it was only in ``__notes__``)."""
    import logging

    bad = tmp_path / "bad.parquet"
    bad.write_bytes(good.read_bytes()[:-30])
    with pytest.raises(pc.ParquetError) as info:
        pc.read_table(str(bad))
    logging.getLogger("test").error("%s", info.value)
    assert str(bad) in caplog.text


def test_dataset_reads_name_the_failing_file_once(good, tmp_path):
    folder = tmp_path / "ds"
    folder.mkdir()
    (folder / "a.parquet").write_bytes(good.read_bytes())
    bad = folder / "b.parquet"
    raw = bytearray(good.read_bytes())
    raw[4:12] = b"\xff" * 8
    bad.write_bytes(bytes(raw))
    for call in (lambda: pc.read_table(str(folder)), lambda: pc.ParquetDataset(str(folder)).read()):
        with pytest.raises(pc.ParquetError) as info:
            call()
        assert str(info.value).count("b.parquet") == 1, str(info.value)
        assert "a.parquet" not in str(info.value)


def test_an_error_whose_message_is_not_its_text_keeps_a_note():
    from parquet_core.errors import note_file

    exc = note_file(KeyError("k"), "/x/f.parquet", "reading")
    assert str(exc) == "'k'" and _notes(exc) == ["while reading file '/x/f.parquet'"]
    exc = note_file(OSError(5, "I/O error"), "/x/f.parquet", "reading")
    assert _notes(exc) == ["while reading file '/x/f.parquet'"]
    exc = note_file(note_file(pc.ParquetFormatError("bad"), "/x/f.parquet", "reading"), "/x/f.parquet", "reading")
    assert str(exc) == "bad (while reading file '/x/f.parquet')" and not _notes(exc)


def test_write_errors_name_the_file(tmp_path):
    path = tmp_path / "out.parquet"
    with pytest.raises(pc.ParquetSchemaError) as info:
        pc.write_table({"a": [1, "x"]}, str(path))
    _once(info.value, path, "writing")
    schema = pc.schema([pc.field("a", pc.int8())])
    with pytest.raises(pc.ParquetSchemaError) as info:
        with pc.ParquetWriter(str(path), schema) as writer:
            writer.write_table({"a": [1000]})
    _once(info.value, path, "writing")
    assert not path.exists()


def test_named_file_object_is_named(tmp_path):
    path = tmp_path / "obj.parquet"
    with open(path, "wb") as fh, pytest.raises(pc.ParquetSchemaError) as info:
        pc.write_table({"a": [1, "x"]}, fh)
    _once(info.value, path, "writing")
    with pytest.raises(pc.ParquetSchemaError) as info:
        pc.write_table({"a": [1, "x"]}, io.BytesIO())
    assert not any(n.startswith("while writing") for n in _notes(info.value))


def test_pqc_names_the_file_once(good, tmp_path, capsys):
    from parquet_core.cli import main

    bad = tmp_path / "bad.parquet"
    bad.write_bytes(good.read_bytes()[:-30])
    assert main(["meta", "--json", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pqc: {bad}: ") and err.count(str(bad)) == 1, err
