"""The lazy facade (PEP 562): every public name resolves, and importing is cheap."""

from __future__ import annotations

import subprocess
import sys

import pytest

import parquet_core as pc


@pytest.mark.parametrize("name", sorted(set(pc.__all__) - {"__version__"}))
def test_every_public_name_resolves(name: str) -> None:
    value = getattr(pc, name)
    assert value is not None
    assert name in dir(pc)


def test_lazy_table_names_match_the_public_list() -> None:
    from parquet_core.schema import build, build_nested

    eager = {"CodecUnavailableError", "ParquetEncryptionError", "ParquetError", "ParquetFormatError",
             "ParquetResourceError", "ParquetSchemaError", "UnsupportedFeatureError",
             "ParquetChecksumError", "DatasetWriteConflictError", "__version__", "variant"}
    eager |= {n for n in pc.__all__ if getattr(build, n, None) is not None
              or getattr(build_nested, n, None) is not None}
    assert set(pc._LAZY) | eager == set(pc.__all__)


def test_schema_is_the_builder_after_any_layer_loads() -> None:
    # ``parquet_core.schema`` is also a subpackage: loading a layer must not rebind the name.
    code = ("import parquet_core as pc\nimport parquet_core.file.reader\nimport parquet_core.schema.types\n"
            "assert callable(pc.schema) and pc.schema([pc.field('a', pc.int64())]).names == ['a']\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        pc.no_such_name  # noqa: B018


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_import_loads_no_layer() -> None:
    mods = _modules_after("import parquet_core")
    assert "parquet_core.errors" in mods
    for heavy in ("parquet_core.file.reader", "parquet_core.file.writer", "parquet_core.validation",
                  "parquet_core.dataset", "numpy", "parquet_core.thrift.generated.ttypes"):
        assert heavy not in mods, heavy


def test_listing_files_loads_neither_reader_nor_writer() -> None:
    mods = _modules_after("from parquet_core.dataset.discovery import list_data_files")
    for heavy in ("parquet_core.file.reader", "parquet_core.file.writer", "parquet_core.validation",
                  "parquet_core.dataset.dataset"):
        assert heavy not in mods, heavy


def test_strict_reads_work_through_the_facade(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A fresh process: the validator is loaded only when strict=True needs it.
    code = f"""
import parquet_core as pc, sys
pc.write_table({{"a": [1, 2, 3]}}, {str(tmp_path / 'f.parquet')!r})
assert "parquet_core.validation" not in sys.modules
t = pc.ParquetFile({str(tmp_path / 'f.parquet')!r}, strict=True).read()
assert t.column("a").to_pylist() == [1, 2, 3]
assert "parquet_core.validation" in sys.modules
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_test_only_kms_is_not_in_the_facade() -> None:
    """``InMemoryKms`` keeps master keys in a dict: for tests and examples, so it lives
    at ``parquet_core.encryption.keytools`` only, not in the top-level namespace."""
    import parquet_core as pc
    from parquet_core.encryption.keytools import InMemoryKms, KmsClient

    assert "InMemoryKms" not in pc.__all__ and "InMemoryKms" not in dir(pc)
    assert not hasattr(pc, "InMemoryKms")
    assert issubclass(InMemoryKms, KmsClient) and pc.KmsClient is KmsClient
