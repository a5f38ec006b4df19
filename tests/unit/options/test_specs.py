"""The writer's keyword arguments are the option table: explicit, documented, typed.

* ``pc.write_table`` and ``pc.ParquetWriter`` take exactly the options of
  ``WRITER_OPTIONS`` as keyword-only parameters with the table's defaults, and
  ``**pyarrow_options`` for pyarrow's names (``options/pyarrow.py``): any other
  name is a TypeError;
* ``help()`` of both lists every option with its default;
* the package ships ``py.typed`` and declares it as package data.
"""

from __future__ import annotations

import inspect
import pydoc
import tomllib
from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.options import WRITER_DEFAULTS, WRITER_OPTIONS, document_writer_options

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("func, leading", [(pc.write_table, ["data", "where", "schema"]),
                                           (pc.ParquetWriter.__init__, ["self", "where", "schema"])])
def test_signature_is_the_option_table(func, leading):
    params = inspect.signature(func).parameters
    assert list(params)[:len(leading)] == leading
    # where the file goes (not writer options): the last two keywords, as in pyarrow; then
    # pyarrow's own names (aliases and tuning knobs, resolved by options.writer_arguments)
    assert list(params)[-3:] == ["filesystem", "storage_options", "pyarrow_options"]
    assert params["pyarrow_options"].kind is inspect.Parameter.VAR_KEYWORD
    options = {n: p for n, p in params.items()
               if n not in leading and n not in ("filesystem", "storage_options", "pyarrow_options")}
    assert list(options) == [o.name for o in WRITER_OPTIONS]
    for name, p in options.items():
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, name
        assert p.default is WRITER_DEFAULTS[name] or p.default == WRITER_DEFAULTS[name], name
        assert p.annotation is not inspect.Parameter.empty, name
    with pytest.raises(TypeError, match="no_such_option"):
        pc.write_table({"a": [1]}, "never-written.parquet", no_such_option=1)


def test_defaults_are_pyarrows_where_pyarrow_has_the_option():
    pq = pytest.importorskip("pyarrow.parquet")
    theirs = inspect.signature(pq.write_table).parameters
    shared = {"version", "use_dictionary", "compression", "write_statistics", "coerce_timestamps",
              "allow_truncated_timestamps", "use_deprecated_int96_timestamps", "flavor", "compression_level",
              "use_byte_stream_split", "column_encoding", "data_page_version", "write_page_checksum",
              "sorting_columns", "bloom_filter_options"}
    assert shared <= set(theirs) and shared <= set(WRITER_DEFAULTS)
    assert {n: WRITER_DEFAULTS[n] for n in shared} == {n: theirs[n].default for n in shared}


@pytest.mark.parametrize("obj", [pc.write_table, pc.ParquetWriter])
def test_help_lists_every_option_with_its_default(obj):
    text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    for o in WRITER_OPTIONS:
        assert f"{o.name} : " in text and f"default {o.default!r}" in text, o.name
        assert f"{o.name}: " in text, o.name      # in the rendered signature too
    assert "{writer options}" not in text


def test_unknown_option_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="compresion"):
        pc.write_table({"a": [1]}, tmp_path / "x.parquet", compresion="zstd")
    with pytest.raises(TypeError, match="compresion"):
        pc.ParquetWriter(tmp_path / "y.parquet", pc.schema([pc.field("a", pc.int64())]), compresion="zstd")
    assert not list(tmp_path.iterdir())


def test_marker_is_required_and_stripped_docstrings_stay_none():
    with pytest.raises(ValueError):
        document_writer_options("no marker here")
    assert document_writer_options(None) is None


def test_py_typed_is_shipped():
    assert (ROOT / "parquet_core" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["parquet_core"]
