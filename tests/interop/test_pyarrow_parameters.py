"""docs/pyarrow-parameters.md covers every parameter of the installed pyarrow.parquet, and each
parameter is taken as the table says (accepted, aliased, or refused with a clear error)."""

from __future__ import annotations

import inspect
import io
from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.errors import ParquetError, UnsupportedFeatureError
from parquet_core.options.pyarrow import (
    PYARROW_FUNCTIONS, PYARROW_OPTIONS, SAME, pyarrow_parameter_table,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("function", sorted(PYARROW_FUNCTIONS))
def test_table_covers_every_parameter_of_installed_pyarrow(function):
    theirs = list(inspect.signature(getattr(pq, function)).parameters)
    assert list(PYARROW_FUNCTIONS[function]) == theirs


def test_every_pyarrow_entry_point_is_listed():
    wanted = {"read_table", "read_pandas", "write_table", "ParquetFile", "ParquetWriter", "read_metadata",
              "read_schema", "write_to_dataset", "ParquetDataset", "write_metadata"}
    assert set(PYARROW_FUNCTIONS) == wanted


def test_doc_is_current():
    text = (ROOT / "docs" / "pyarrow-parameters.md").read_text()
    assert pyarrow_parameter_table() in text


@pytest.mark.parametrize("function", sorted(PYARROW_FUNCTIONS))
def test_each_entry_is_same_or_declared(function):
    ours = inspect.signature(getattr(pc, function)).parameters
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in ours.values())
    for name, how in PYARROW_FUNCTIONS[function].items():
        if how in PYARROW_OPTIONS:
            assert var_kw or name in ours, (function, name)
            continue
        assert how == SAME or how.startswith("same"), (function, name, how)
        if name not in ("kwargs", "options", "table", "source", "where") or function == "write_to_dataset":
            assert name in ours or var_kw, (function, name)


def _file() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2, 3], "s": ["x", "y", None]}), buf)
    return buf.getvalue()


TUNING = [o for o in PYARROW_OPTIONS.values() if o.kind == "tuning"]
DEFAULT = [o for o in PYARROW_OPTIONS.values() if o.kind == "default"]
READER = ("memory_map", "buffer_size", "pre_buffer", "thrift_string_size_limit", "thrift_container_size_limit",
          "schema_depth_limit", "binary_type", "list_type", "coerce_int96_timestamp_unit",
          "arrow_extensions_enabled")
WRITER = ("write_batch_size", "writer_engine_version", "store_decimal_as_integer",
          "use_content_defined_chunking")


@pytest.mark.parametrize("name", READER)
def test_reader_options_take_pyarrows_default(name):
    default = inspect.signature(pq.read_table).parameters[name].default
    data = _file()
    want = pq.read_table(pa.BufferReader(data), **{name: default})
    for entry in (pc.read_table, pc.ParquetFile):
        got = entry(pa.BufferReader(data), **{name: default})
        got = got if isinstance(got, pc.Table) else got.read()
        assert got.to_arrow().equals(want)
    assert pc.ParquetDataset(_folder(data), **{name: default}).read().to_arrow().equals(want)


def _folder(data: bytes) -> str:
    import tempfile

    root = Path(tempfile.mkdtemp())
    (root / "part-0.parquet").write_bytes(data)
    return str(root)


@pytest.mark.parametrize("name, value", [("arrow_extensions_enabled", False)])
def test_reader_default_only_options_refuse_other_values(name, value):
    with pytest.raises(UnsupportedFeatureError, match=name):
        pc.read_table(io.BytesIO(_file()), **{name: value})


@pytest.mark.parametrize("name", WRITER)
def test_writer_options_take_pyarrows_default(name):
    default = inspect.signature(pq.write_table).parameters[name].default \
        if name in inspect.signature(pq.write_table).parameters else None
    table = pa.table({"a": [1, 2, 3]})
    buf = io.BytesIO()
    pc.write_table(table, buf, **{name: default})
    assert pq.read_table(io.BytesIO(buf.getvalue())).equals(table)
    with pc.ParquetWriter(io.BytesIO(), table.schema, **{name: default}) as w:
        w.write_table(table)


@pytest.mark.parametrize("name, value", [("use_content_defined_chunking", True)])
def test_writer_default_only_options_refuse_other_values(name, value):
    with pytest.raises(UnsupportedFeatureError, match=name) as info:
        pc.write_table({"a": [1]}, io.BytesIO(), **{name: value})
    assert isinstance(info.value, ParquetError)


def test_aliases_mean_our_options():
    table = pa.table({"a": list(range(10))})
    for kw, groups in [({"chunk_size": 3}, 4), ({"row_group_size": 5}, 2)]:
        ours, theirs = io.BytesIO(), io.BytesIO()
        pc.write_table(table, ours, **kw)
        pq.write_table(table, theirs, **kw)
        assert pq.ParquetFile(io.BytesIO(ours.getvalue())).metadata.num_row_groups == groups == \
            pq.ParquetFile(io.BytesIO(theirs.getvalue())).metadata.num_row_groups
    buf = io.BytesIO()
    pc.write_table(table, buf, max_rows_per_page=4, write_page_index=True)
    pages = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata.row_group(0).column(0)
    assert pages.num_values == 10
    with pytest.raises(TypeError, match="chunk_size"):
        pc.write_table(table, io.BytesIO(), chunk_size=3, row_group_size=4)


def test_pyarrow_positional_row_group_size():
    table = pa.table({"a": list(range(10))})
    ours, theirs = io.BytesIO(), io.BytesIO()
    pc.write_table(table, ours, 4)
    pq.write_table(table, theirs, 4)
    assert pq.ParquetFile(io.BytesIO(ours.getvalue())).metadata.num_row_groups == \
        pq.ParquetFile(io.BytesIO(theirs.getvalue())).metadata.num_row_groups == 3


def test_unknown_names_are_still_refused():
    with pytest.raises(TypeError, match="use_legacy_dataset"):
        pc.read_table(io.BytesIO(_file()), use_legacy_dataset=False)
    with pytest.raises(TypeError, match="no_such"):
        pc.write_table({"a": [1]}, io.BytesIO(), no_such=1)


def _pyarrow_crypto():
    pe = pytest.importorskip("pyarrow.parquet.encryption")
    import base64

    class Kms(pe.KmsClient):
        def __init__(self, config):
            pe.KmsClient.__init__(self)

        def wrap_key(self, key_bytes, master_key_identifier):
            return base64.b64encode(key_bytes)

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return base64.b64decode(wrapped_key)

    factory = pe.CryptoFactory(lambda config: Kms(config))
    kms = pe.KmsConnectionConfig()
    enc = factory.file_encryption_properties(kms, pe.EncryptionConfiguration(footer_key="f", column_keys={"f": ["a"]}))
    dec = factory.file_decryption_properties(kms, pe.DecryptionConfiguration())
    return enc, dec


def test_pyarrow_crypto_objects_are_refused_clearly():
    enc, dec = _pyarrow_crypto()
    with pytest.raises(UnsupportedFeatureError, match="pc.FileDecryptionProperties"):
        pc.read_table(io.BytesIO(_file()), decryption_properties=dec)
    with pytest.raises(UnsupportedFeatureError, match="pc.FileEncryptionProperties"):
        pc.write_table({"a": [1]}, io.BytesIO(), encryption_properties=enc)
